"""Pictures for the size Discord shows (issue 16 item 10) and in the reader's language (item 3):
the four tile colours (and card suits) differ at a glance with normal and with red-green colour
vision (CIEDE2000 under simulated protanopia and deuteranopia), the shapes stay, the seat panel's
text stays legible when the picture is shown at phone width, and every word drawn comes from the
labels (i18n)."""

from __future__ import annotations

import dataclasses
import re

import pytest

import i18n
import rendering
import rendering.rack as rack_module
import rendering.table as table_module
from engine.cards import CardGame
from engine.tiles import TileGame
from engine.variants import variant
from rendering import Labels
from rendering import style as s
from tests.rendering.colour_vision import VISIONS, contrast, difference, smallest_difference

MIN_DIFFERENCE = 20.0  # CIEDE2000; about 2.3 is "just noticeable", 10+ differ at a glance
OLD_TILE_INKS = ((0, 114, 178), (213, 94, 0), (222, 143, 0), (30, 30, 30))


@pytest.mark.parametrize("vision", VISIONS)
def test_tile_colours_differ_at_a_glance(vision: str) -> None:
    assert smallest_difference(s.TILE_INKS, vision) >= MIN_DIFFERENCE


@pytest.mark.parametrize("vision", VISIONS)
def test_suit_colours_differ_at_a_glance(vision: str) -> None:
    assert smallest_difference(s.SUIT_INKS_FOUR, vision) >= MIN_DIFFERENCE


def test_red_and_yellow_were_too_close_before() -> None:
    """The old vermilion and orange: about 9 apart for deuteranopia (what the issue saw)."""
    red, yellow = OLD_TILE_INKS[1], OLD_TILE_INKS[2]
    assert difference(red, yellow, "deuteranopia") < 10
    new_red, new_yellow = s.TILE_INKS[1], s.TILE_INKS[2]
    assert difference(new_red, new_yellow, "deuteranopia") > 2 * difference(
        red, yellow, "deuteranopia"
    )


def test_tile_inks_read_on_the_tile_face_and_keep_their_shapes() -> None:
    for ink in s.TILE_INKS:
        assert contrast(ink, s.TILE_FACE) >= 2.4
        assert contrast(ink, s.CHANGED_FACE) >= 2.3
    assert len(set(s.TILE_MARKS)) == 4  # a second cue per colour, unchanged
    assert s.TILE_MARKS == ("circle", "triangle", "diamond", "square")


def _line_height(size: int) -> int:
    """The ink height of a line of text (ascender to descender) at ``size``."""
    box = s.font(size, s.BOLD).getbbox("Hg")
    return box[3] - box[1]


def test_seat_panel_text_is_legible_at_phone_width() -> None:
    """Discord shows the table about 400 px wide on a phone: every line of the seat panel keeps
    at least 9 px there."""
    for size in (table_module.SEAT_NAME_SIZE, table_module.SEAT_TEXT_SIZE):
        on_phone = _line_height(size) * s.PHONE_WIDTH / s.TABLE_WIDTH
        assert on_phone >= s.MIN_PHONE_TEXT, (size, on_phone)


def _tile_view(players: int, lang: str):
    rules = variant("rummikub").rules
    game = TileGame.position(
        rules,
        "R5 R6 R7 | B2 R2 Y2 K2",
        ["B1"] * 0 + ["B1", "R1", "Y1", "K1", "B3", "R3"][:players],
        opened=(True, False) * 3,
        players=players,
    )
    names = ["Anna", "Computer 1", "Bernhard", "Computer 3", "Dora", "Computer 5"]
    view = game.public_view()
    seats = [
        dataclasses.replace(seat, name=names[i], is_bot=names[i].startswith("Computer"))
        for i, seat in enumerate(view.seats)
    ]
    return dataclasses.replace(view, seats=seats)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_seat_panel_words_fit_without_being_cut(players: int, lang: str, monkeypatch) -> None:
    drawn: list[tuple[str, int]] = []
    real = table_module.draw_text

    def spy(draw, xy, text, size, fill, **kw):
        drawn.append((text, size))
        return real(draw, xy, text, size, fill, **kw)

    monkeypatch.setattr(table_module, "draw_text", spy)
    labels = Labels(**i18n.render_labels(lang))
    rendering.render_table(_tile_view(players, lang), labels=labels)
    seat_sizes = (table_module.SEAT_NAME_SIZE, table_module.SEAT_TEXT_SIZE)
    seat_texts = [text for text, size in drawn if size in seat_sizes]
    assert len(seat_texts) >= 3 * players
    assert not [t for t in seat_texts if t.endswith("…")]  # nothing shortened


def _marked_labels() -> Labels:
    """Labels whose every word is the marker §, keeping the placeholders."""
    words = {}
    for key, value in i18n.render_labels("en").items():
        if key == "presets":
            words[key] = {name: "§" for name in value}
        else:
            words[key] = "§" + "".join(re.findall(r"\{[^}]*\}", value))
    return Labels(**words)


@pytest.mark.parametrize("family", ["tile", "card"])
def test_every_word_on_a_picture_comes_from_the_labels(family: str, monkeypatch) -> None:
    """With every label replaced by a marker, nothing drawn holds a word of its own: only the
    marker, numbers, the players' names and piece names are left."""
    drawn: list[str] = []
    for module in (table_module, rack_module):
        real = module.draw_text

        def spy(draw, xy, text, size, fill, _real=real, **kw):
            drawn.append(text)
            return _real(draw, xy, text, size, fill, **kw)

        monkeypatch.setattr(module, "draw_text", spy)
    labels = _marked_labels()
    if family == "tile":
        view = _tile_view(4, "en")
        finished = dataclasses.replace(view, status="finished")
        pieces = ["R5", "J", "B1"]
    else:
        game = CardGame.position(
            variant("romme").rules, "5D 6D 7D", ["9C 9H", "3H"], discards="QH", pool="2S"
        )
        view = game.public_view()
        finished = view
        pieces = ["9C", "9H"]
    rendering.render_table(view, labels=labels)
    rendering.render_table(finished, labels=labels)
    rendering.render_rack(pieces, family=family, labels=labels)
    names = {seat.name for seat in view.seats}
    for text in drawn:
        rest = text.replace("§", "")
        for name in names:
            rest = rest.replace(name, "")
        words = re.findall(r"[A-Za-zÄÖÜäöüß]{2,}", rest)
        assert not words, (text, words)
