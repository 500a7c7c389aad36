"""Rack pictures: the four sortings, new pieces marked, deterministic output, layout bounds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.melds import is_valid
from engine.pieces import Card, Tile, parse_faces, sort_key, sort_key_value
from engine.rules import preset
from rendering import arrange, layout_rack, render_rack
from rendering import style as s
from tests.rendering.words import EN

RACK = parse_faces("R5 R6 R7 B9 Y9 K9 J B1 B2 B3 B4 R12 K12 Y3 Y4 R1 K7 B13 Y13 R9")
SPEC = preset("rummikub").meld_spec

tiles = st.builds(Tile, st.integers(0, 3), st.integers(1, 13)) | st.just(Tile.joker())
racks = st.lists(tiles, min_size=0, max_size=30)


def flat(clusters):
    return [i for c in clusters for i in c]


@pytest.mark.parametrize("sort", ["colour", "value", "run", "group", "none"])
def test_every_sorting_shows_every_piece_once(sort):
    order = flat(arrange(RACK, sort))
    assert sorted(order) == list(range(len(RACK)))


def test_colour_and_value_orders():
    by_colour = [RACK[i] for i in flat(arrange(RACK, "colour"))]
    by_value = [RACK[i] for i in flat(arrange(RACK, "value"))]
    assert by_colour == sorted(RACK, key=sort_key)
    assert by_value == sorted(RACK, key=sort_key_value)
    assert by_colour[-1].is_joker and by_value[-1].is_joker


@pytest.mark.parametrize("sort", ["run", "group"])
def test_run_and_group_sortings_lead_with_valid_melds(sort):
    clusters = arrange(RACK, sort, spec=SPEC)
    melds = [c for c in clusters if len(c) >= 3 and is_valid([RACK[i] for i in c], SPEC)]
    assert len(melds) >= 3
    first = [RACK[i] for i in clusters[0]]
    kinds = {f.rank for f in first}
    if sort == "group":
        assert len(kinds) == 1  # a group first
    else:
        assert len({f.suit for f in first}) == 1 and len(kinds) == len(first)  # a run first


@settings(max_examples=60, deadline=None)
@given(racks, st.sampled_from(["colour", "value", "run", "group"]))
def test_sortings_are_permutations_and_melds_are_valid(rack, sort):
    clusters = arrange(rack, sort, spec=SPEC)
    assert sorted(flat(clusters)) == list(range(len(rack)))
    if sort in ("run", "group"):
        real = [c for c in clusters if not all(rack[i].is_joker for i in c)]
        for meld in real[:-1]:  # the last one holds what is left over
            assert is_valid([rack[i] for i in meld], SPEC)


def test_cards_sort_too():
    hand = parse_faces("AS 2S 3S 10H 10D 10C * KH QH 7C", "card")
    clusters = arrange(hand, "run", spec=preset("rummy").meld_spec)
    assert [str(hand[i]) for i in clusters[0]] == ["AS", "2S", "3S"]
    assert all(isinstance(f, Card) for f in hand)


def test_new_pieces_glow(png):
    new = {0, 6}
    layout = layout_rack(RACK, sort="run", new=new)
    image = png(render_rack(RACK, sort="run", new=new, labels=EN))
    assert image.size == (layout.width, layout.height)
    for piece, index in zip(layout.pieces, layout.order, strict=True):
        y = piece.rect.centre[1]
        assert piece.changed == (index in new)
        inside = image.getpixel((piece.rect.x0 + 2, y))
        assert inside == (s.CHANGED_FACE if index in new else s.TILE_FACE)
        if index in new:
            assert image.getpixel((piece.rect.x0 - 2, y)) == s.HIGHLIGHT


def test_rack_is_deterministic_and_within_bounds():
    assert render_rack(RACK, sort="group", labels=EN) == render_rack(
        list(RACK), sort="group", labels=EN
    )
    layout = layout_rack(RACK, sort="group")
    for rect in layout.rects():
        assert rect.inside(layout.width, layout.height)
    assert s.phone_numeral_height(layout.numeral_height, layout.width) >= s.MIN_PHONE_NUMERAL


def test_strings_are_accepted_and_empty_rack_renders(png):
    assert render_rack(["R5", "J"], labels=EN) == render_rack(parse_faces("R5 J"), labels=EN)
    assert png(render_rack([], labels=EN)).size[0] > 0


def test_unknown_sort_is_rejected():
    with pytest.raises(ValueError):
        arrange(RACK, "sideways")  # type: ignore[arg-type]
