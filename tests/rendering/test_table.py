"""Table pictures: every preset renders, the output is deterministic, labels and highlights land
where the layout says, long tables wrap, and numerals stay readable on a phone."""

from __future__ import annotations

import itertools

import pytest

from engine.game import MeldView, PublicView, Result, SeatView
from engine.pieces import parse_melds
from engine.rules import PRESETS, preset
from rendering import layout_table, render_table, sprites
from rendering import style as s
from rendering.layout import Rect
from rendering.samples import full_table, make_seats, view_from_melds
from tests.rendering.words import DE, EN

PRESET_NAMES = sorted(PRESETS)


def pixel(image, xy):
    return image.getpixel(xy)


def count_colour(image, rect: Rect, colour) -> int:
    crop = image.crop((rect.x0, rect.y0, rect.x1, rect.y1))
    return sum(1 for p in crop.get_flattened_data() if p == colour)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_full_table_of_every_preset_renders(name, png):
    view = full_table(name)
    rules = preset(name)
    deck_size = len(rules.deck(len(view.seats)))
    assert sum(len(m.pieces) for m in view.melds) == deck_size
    image = png(render_table(view, labels=EN))
    layout = layout_table(view, labels=EN)
    assert image.size == (layout.width, layout.height)
    for rect in layout.rects():
        assert rect.inside(layout.width, layout.height), rect


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_same_view_gives_identical_bytes(name):
    assert render_table(full_table(name), labels=EN) == render_table(full_table(name), labels=EN)


def test_different_views_give_different_pictures():
    a = render_table(full_table("rummikub"), labels=EN)
    b = render_table(full_table("rummikub", discards=0, jokers=2), labels=EN)
    assert a != b


def test_106_tile_table_meets_the_size_target():
    view = full_table("rummikub", jokers=2)
    assert sum(len(m.pieces) for m in view.melds) == 106
    assert len(render_table(view, labels=EN)) <= 250 * 1024


def test_changed_pieces_glow_and_others_do_not(png):
    view = full_table("rummikub")
    layout = layout_table(view, labels=EN)
    image = png(render_table(view, labels=EN))
    changed = [p for m in layout.melds for p in m.pieces if p.changed]
    plain = [p for m in layout.melds for p in m.pieces if not p.changed]
    expected = {(m.number, i) for m in view.melds for i in m.changed}
    assert {(m.number, i) for m in layout.melds for i, p in enumerate(m.pieces) if p.changed} == (
        expected
    )
    for piece in changed:
        y = piece.rect.centre[1]
        assert pixel(image, (piece.rect.x0 + 2, y)) == s.CHANGED_FACE
        assert pixel(image, (piece.rect.x0 - 2, y)) == s.HIGHLIGHT
    glowing_right_edges = {(p.rect.x1, p.rect.y0) for p in changed}
    for piece in plain:
        y = piece.rect.centre[1]
        face = s.CARD_FACE if layout.family == "card" else s.TILE_FACE
        assert pixel(image, (piece.rect.x0 + 2, y)) == face
        left_neighbour = (piece.rect.x0 - s.PIECE_GAP, piece.rect.y0)
        if left_neighbour not in glowing_right_edges:
            assert pixel(image, (piece.rect.x0 - 2, y)) != s.HIGHLIGHT


def test_meld_numbers_sit_on_labels_left_of_their_melds(png):
    view = full_table("stein")
    layout = layout_table(view, labels=EN)
    image = png(render_table(view, labels=EN))
    assert [m.number for m in layout.melds] == [m.number for m in view.melds]
    for meld in layout.melds:
        first = meld.pieces[0].rect
        assert meld.label.x1 <= first.x0 and meld.label.y0 == first.y0
        assert pixel(image, (meld.label.x0 + 4, meld.label.centre[1])) == s.BADGE
        assert count_colour(image, meld.label, s.BADGE_TEXT) > 40


def test_claims_are_framed_with_the_owners_name(png):
    view = full_table("stein_plus")
    layout = layout_table(view, labels=EN)
    image = png(render_table(view, labels=EN))
    claimed = [m for m in view.melds if m.claim is not None]
    assert claimed
    for meld in view.melds:
        box = layout.meld(meld.number)
        if meld.claim is None:
            assert not box.frames and box.tag is None
            continue
        assert box.claim == meld.claim and box.tag is not None
        for frame in box.frames:
            assert pixel(image, (frame.x1 - 2, frame.centre[1])) == s.CLAIM
            assert pixel(image, (frame.x0 + 1, frame.centre[1])) == s.CLAIM
            for piece in box.pieces:
                if piece.rect.y0 > frame.y0 and piece.rect.y1 < frame.y1:
                    assert frame.x0 < piece.rect.x0 and piece.rect.x1 < frame.x1
        assert box.tag.y1 > box.frames[0].y0  # the tab sits on the frame
        assert count_colour(image, box.tag, s.TEXT_DARK) > 20  # the name is written on it


def test_current_seat_is_marked(png):
    view = full_table("rummikub")
    layout = layout_table(view, labels=EN)
    image = png(render_table(view, labels=EN))
    for box in layout.seats:
        left_edge = pixel(image, (box.rect.x0 + 1, box.rect.centre[1]))
        if box.seat == view.current:
            assert box.current and box.marker is not None
            assert left_edge == s.HIGHLIGHT
            m = box.marker
            assert pixel(image, (m.x0 + 4, m.centre[1])) == s.HIGHLIGHT
        else:
            assert not box.current and box.marker is None
            assert left_edge != s.HIGHLIGHT


def test_no_seat_is_current_once_the_game_is_over():
    view = full_table("rummy")
    view.status = "finished"
    layout = layout_table(view, labels=EN)
    assert not any(b.current for b in layout.seats)
    assert layout.result is not None


@pytest.mark.parametrize("labels", [EN, DE], ids=["en", "de"])
def test_a_finished_game_names_its_winner(png, labels):
    view = full_table("rummikub")
    view.status = "finished"
    view.result = Result("out", 1, [10.0, -10.0], [2, 1], [[], []])
    layout = layout_table(view, labels=labels)
    image = png(render_table(view, labels=labels))
    assert layout.result is not None and image.size == (layout.width, layout.height)


def _long_view() -> PublicView:
    rules = preset("stein")
    melds = parse_melds(" | ".join(["B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13"] * 30), "tile")
    twice_round = parse_melds(
        " ".join(f"R{v}" for v in list(range(1, 14)) * 2), "tile"
    )  # a 26-tile Stein run
    return view_from_melds(
        rules, [*twice_round, *melds], seats=make_seats(4), claims=[0] + [None] * 30
    )


def test_long_tables_wrap_inside_the_picture(png):
    view = _long_view()
    layout = layout_table(view, labels=EN)
    image = png(render_table(view, labels=EN))
    assert image.size == (layout.width, layout.height)
    for rect in layout.rects():
        assert rect.inside(layout.width, layout.height), rect
    for meld in layout.melds:
        for piece in meld.pieces:
            assert piece.rect.x1 <= layout.width - s.MARGIN
    first = layout.melds[0]
    assert len({p.rect.y0 for p in first.pieces}) >= 2  # the 26-tile run spans rows
    assert len(first.frames) == len({p.rect.y0 for p in first.pieces})


def test_pieces_never_overlap():
    layout = layout_table(_long_view(), labels=EN)
    rects = [p.rect for m in layout.melds for p in m.pieces] + [m.label for m in layout.melds]
    seen = set()
    for r in rects:
        key = (r.x0, r.y0)
        assert key not in seen
        seen.add(key)
    by_row: dict[int, list[Rect]] = {}
    for r in rects:
        by_row.setdefault(r.y0, []).append(r)
    for row in by_row.values():
        row.sort(key=lambda r: r.x0)
        for a, b in itertools.pairwise(row):
            assert a.x1 <= b.x0


def test_numerals_are_readable_on_a_phone():
    layout = layout_table(full_table("rummikub"), labels=EN)
    assert s.phone_numeral_height(layout.numeral_height, layout.width) >= s.MIN_PHONE_NUMERAL


def test_numeral_ink_is_as_high_as_the_layout_says():
    sprite = sprites.tile_sprite("B8").convert("RGB")
    ink = s.TILE_INKS[0]
    rows = [
        y
        for y in range(sprite.height)
        if any(
            sum(abs(a - b) for a, b in zip(sprite.getpixel((x, y)), ink, strict=True)) < 60
            for x in range(sprite.width)
        )
    ]
    numeral_rows = [y for y in rows if y < s.GLOW + 60]  # above the colour mark
    height = max(numeral_rows) - min(numeral_rows) + 1
    assert height * s.PHONE_WIDTH / s.TABLE_WIDTH >= s.MIN_PHONE_NUMERAL


def test_card_melds_are_grouped_in_front_of_their_owners():
    view = full_table("romme", 6)
    layout = layout_table(view, labels=EN)
    names = [sec.title for sec in layout.sections]
    owners = sorted({m.owner for m in view.melds if m.owner is not None})
    assert names[: len(owners)] == [view.seats[o].name for o in owners]
    for section, owner in zip(layout.sections, owners, strict=False):
        next_top = min(
            (sec.rect.y0 for sec in layout.sections if sec.rect.y0 > section.rect.y0),
            default=layout.height,
        )
        for meld in view.melds:
            if meld.owner == owner:
                box = layout.meld(meld.number)
                assert section.rect.y1 <= box.label.y0 < next_top
    assert layout.stock is not None
    assert [p.face for p in layout.discards] == [view.discards[-1]]


def test_stein_discards_show_every_tile_in_order():
    view = full_table("stein", discards=8)
    layout = layout_table(view, labels=EN)
    assert [p.face for p in layout.discards] == view.discards


def test_empty_table_and_german_labels_render(png):
    view = PublicView(
        preset="rummikub",
        family="tile",
        status="playing",
        current=0,
        turn_no=1,
        melds=[],
        seats=[SeatView(0, "Ä" * 40, 14, False, 0.0), SeatView(1, "Bo", 14, False, 0.0, True)],
        pool=78,
        discards=[],
    )
    layout = layout_table(view, labels=DE)
    assert layout.empty is not None and not layout.melds
    image = png(render_table(view, labels=DE))
    assert image.size == (layout.width, layout.height)


def test_invalid_meld_still_draws():
    view = full_table("rummikub")
    view.melds.append(MeldView(number=len(view.melds) + 1, pieces=["R1", "B5"], kind=None))
    assert render_table(view, labels=EN)[:4] == b"\x89PNG"
