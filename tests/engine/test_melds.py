"""Groups and runs with jokers (RULES.md "Common ground", per-preset run rules)."""

import pytest

from engine.errors import RummyError
from engine.melds import analyse, is_valid, joker_meanings
from engine.pieces import format_faces, parse_faces
from engine.rules import RUMMIKUB, STEIN
from i18n import error_text

LINEAR = RUMMIKUB.meld_spec
WRAP = STEIN.meld_spec


def read(text, spec=LINEAR):
    return analyse(parse_faces(text), spec)


def code_of(text, spec=LINEAR):
    with pytest.raises(RummyError) as info:
        read(text, spec)
    return info.value.code


def test_group_of_three_and_four():
    assert read("R5 B5 Y5").kind == "group"
    assert read("R5 B5 Y5 K5").value == 20
    assert code_of("R5 B5 Y5 K5 J") == "meld.group_too_long"
    assert code_of("R5 B5 R5") == "meld.group_colours"


def test_group_joker_stands_for_a_missing_colour():
    reading = read("R5 B5 J")
    assert reading.kind == "group"
    assert reading.value == 15
    assert joker_meanings(parse_faces("R5 B5 J"), LINEAR) == set(parse_faces("Y5 K5"))


def test_runs_in_order_and_with_jokers():
    assert read("R7 R5 R6").faces == tuple(parse_faces("R5 R6 R7"))
    r = read("R5 J R7")
    assert format_faces(r.stands_for) == "R5 R6 R7"
    assert r.value == 18
    # the given order fixes where the joker sits
    assert format_faces(read("J R5 R6").stands_for) == "R4 R5 R6"
    # otherwise extra jokers go to the high end, then the low end
    assert format_faces(read("R12 R13 J").stands_for) == "R11 R12 R13"
    assert read("R12 R13 J").value == 36


def test_rummikub_runs_do_not_wrap_and_stop_at_13():
    assert code_of("R12 R13 R1") == "meld.run_wrap"
    assert code_of("R13 R1 R2") == "meld.run_wrap"
    assert is_valid(parse_faces(" ".join(f"B{v}" for v in range(1, 14))), LINEAR)
    assert code_of("B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 J") == "meld.run_too_long"


def test_stein_runs_wrap_around_up_to_26():
    assert read("R12 R13 R1 R2", WRAP).kind == "run"
    assert read("R13 R1 R2", WRAP).value == 16
    twice = " ".join(f"K{v}" for v in list(range(1, 14)) * 2)
    assert read(twice, WRAP).kind == "run"
    assert code_of(twice + " J", WRAP) == "meld.run_too_long"


def test_invalid_melds_say_why():
    assert code_of("R5 R6") == "meld.too_short"
    assert code_of("J J J") == "meld.only_jokers"
    assert code_of("R1 R3 R4") == "meld.run_gap"
    assert code_of("R1 R2 R2") == "meld.run_duplicate"
    assert code_of("B5 R6 Y7") == "meld.mixed"
    msg = RummyError("meld.run_gap", where="Meld 3 ", pieces="(R1 R3 R4)", gap="R2")
    assert "Meld 3 (R1 R3 R4): the run has a gap at R2" in error_text(msg)


def test_gap_filled_by_joker():
    assert read("R1 J R3").kind == "run"
    assert read("R1 J J R4").value == 10


def test_a_meld_is_read_as_it_lies():
    from engine.melds import meaning_at, positional_reading

    from .test_melds_mutants import said

    r = positional_reading(parse_faces("R4 R5 J"), LINEAR)
    assert r.faces == tuple(parse_faces("R4 R5 J"))
    assert meaning_at(r, 2) == ("run", parse_faces("R6")[0])
    assert positional_reading(parse_faces("R5 R4 R6"), LINEAR) is None  # valid, but not in order
    assert is_valid(parse_faces("R5 R4 R6"), LINEAR)
    assert positional_reading(parse_faces("R13 R1 J"), WRAP).stands_for[2] == parse_faces("R2")[0]
    assert positional_reading(parse_faces("R13 R1 J"), LINEAR) is None
    g = positional_reading(parse_faces("J B5 R5"), LINEAR)
    assert g.kind == "group" and meaning_at(g, 2) == ("group", 5)
    assert said(("group", 5)) == "a 5 of a missing colour"
    assert said(("group", 5), "de") == "eine 5 einer fehlenden Farbe"
    assert said(meaning_at(r, 2), "de") == "R6"
    assert joker_meanings(parse_faces("R4 J R5"), LINEAR) == set()  # not valid as it lies
