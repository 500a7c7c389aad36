"""The independent reading the stateful tests judge the engine by (oracle.py)."""

from __future__ import annotations

from engine.pieces import parse_faces
from engine.rules import preset

from .oracle import expected_deck, meld_value, read_meld


def faces(text: str, family: str = "tile"):
    return [(f.suit, f.rank) for f in parse_faces(text, family)]


def reading(text: str, mode: str = "linear", max_run: int = 13, family: str = "tile"):
    return read_meld(faces(text, family), mode, max_run)


def test_a_joker_stands_for_the_place_it_sits_in():
    (run,) = reading("R4 R5 J")
    assert run.stands[2] == faces("R6")[0]  # not R3 (defect 3)
    (run,) = reading("J R5 R6")
    assert run.stands[0] == faces("R4")[0]
    (run,) = reading("R12 R13 J", "wrap", 26)
    assert run.stands[2] == faces("R1")[0]
    assert reading("R12 R13 J") == []  # Rummikub: no wrap, and 14 does not exist
    assert reading("R5 R7 J") == []  # table order: the joker is not in the gap


def test_groups_and_runs():
    (group,) = reading("R5 B5 J")
    assert group.kind == "group" and set(group.missing) == {2, 3}
    assert len(reading("R5 J J")) == 2  # one real tile: run or group
    assert reading("R5 R5 J") == []
    assert reading("J J J") == []
    assert reading("R5 B5 Y5 K5 J") == []
    assert len(reading("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", "wrap", 26)) == 1
    assert reading("QS KS AS", "ace_high", 13, "card")
    assert not reading("KS AS 2S", "ace_high", 13, "card")
    assert reading("KS AS 2S", "wrap", 13, "card")
    assert not reading("QS KS AS", "linear", 13, "card")


def test_values():
    assert meld_value(reading("R10 R11 J")[0], "face") == 33
    assert meld_value(reading("AS 2S 3S", family="card")[0], "romme") == 6
    assert meld_value(reading("QS KS AS", "ace_high", family="card")[0], "romme") == 31
    assert meld_value(reading("AS AH AD", family="card")[0], "romme") == 33


def test_decks_as_rules_md_gives_them():
    assert sum(expected_deck(preset("rummikub"), 3).values()) == 108
    assert sum(expected_deck(preset("stein"), 4).values()) == 108
    assert sum(expected_deck(preset("romme"), 4).values()) == 110
    deck = expected_deck(preset("rummy"), 2)
    assert sum(deck.values()) == 52 and (-1, 0) not in deck
