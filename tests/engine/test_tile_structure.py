"""The tile game's shape (issue 15): its state is declared once (the dataclass fields), so a
field cannot be left out of the saved form, the copy or the adoption of a worked-on copy; every
command the parser knows for tiles has a handler; events are data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields

from engine import tiles
from engine.commands import VERBS
from engine.game import IDS, load_game
from engine.rules import preset
from engine.tiles import TileGame
from i18n import event_text, t

from .helpers import game

CARD_ONLY = {"knock"}


def test_every_saved_field_is_in_the_json_and_comes_back():
    g = game("stein_plus", "R1 R2 R3 | Y5 K5 B5", "R4 B7 B8 B9 R5")
    g.apply(0, "add 1 R4; meld B7 B8 B9; add 2 R5")
    data = json.loads(g.to_json())
    declared = {f.name for f in fields(TileGame)}
    assert set(data) == declared - {"deck"}  # the deck alone is derived (TRANSIENT)
    again = load_game(g.to_json())
    assert type(again) is TileGame and again.to_json() == g.to_json()
    assert g.copy().to_json() == g.to_json()
    assert again.working_melds() == g.working_melds()


def test_a_new_state_field_is_saved_copied_and_adopted_without_more_code():
    @dataclass(eq=False, repr=False)
    class Noted(TileGame):
        notes: list[int] = field(default_factory=list, metadata=IDS)

    rules = preset("rummikub")
    g = Noted.from_dict({**TileGame.new(rules, ["A", "B"], 3).to_dict(), "notes": [7]})
    assert g.notes == [7] and json.loads(g.to_json())["notes"] == [7]
    copy = g.copy()
    assert copy.notes == [7] and copy.notes is not g.notes  # IDS: copied with list()
    copy.notes.append(8)
    g._adopt(copy)  # what apply does with its worked-on copy
    assert g.notes == [7, 8]


def test_every_tile_command_has_a_handler():
    assert set(tiles.HANDLERS) == set(VERBS) - CARD_ONLY


def test_events_are_data_worded_per_reader():
    g = game("rummikub", "R1 R2 R3", "R4 K9")
    g.opened[0] = True
    events = g.apply(0, "add 1 R4; done")
    assert [e.kind for e in events] == ["add", "turn"]
    add = events[0]
    assert add.params == {"meld": 1, "pieces": "R4", "player": "P1"} and add.private
    assert event_text(add, "en") == "P1 adds to meld 1: R4"
    assert event_text(add, "de") == "P1 legt an 1 an: R4"
    assert event_text(events[1], "de") == "P2 ist am Zug."


def test_the_working_table_is_data_worded_at_the_edge():
    g = game("stein_plus", "R1 R2 R3 | Y5 K5 B5 R5 | K7 K8 K9", "R4 B7")
    g.table[1].claim = g.turn.table[1].claim = 1
    g.apply(0, "add 1 R4; move 3 K9 > new")
    lines = [
        " 1: R1 R2 R3 R4",
        " 2: Y5 K5 B5 R5  [claim: P2]",
        " 3: K7 K8  <- not valid yet",
        " 4: K9  <- not valid yet",
    ]
    for lang, title in (("en", "Your working table:"), ("de", "Dein Tisch in Arbeit:")):
        worded = t("service.working_table", lang, table=g.working_table())
        assert worded == "\n".join([title, *lines])
    empty = game("rummikub", "", "R1")
    assert t("service.working_table", "en", table=empty.working_table()).endswith("(empty table)")
