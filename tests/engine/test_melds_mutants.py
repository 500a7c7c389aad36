"""Meld rules that mutation testing of engine/melds.py showed untested (issue 13, `make mutation`).

Each test states a rule of RULES.md "Common ground" and the per-preset run rules: which melds are
valid, what a joker stands for, what a meld is worth, and that an invalid meld is refused with the
reason that applies (the meld's number, the piece that is doubled, the gap that is missing).
"""

import pytest

from engine.errors import RummyError
from engine.melds import (
    analyse,
    is_valid,
    joker_meanings,
    meaning_at,
    meaning_words,
    positional_reading,
    readings,
)
from engine.pieces import Tile, format_faces, parse_faces
from engine.rules import ROMME, RUMMIKUB, RUMMY, STEIN
from i18n import error_text, t

LINEAR = RUMMIKUB.meld_spec
WRAP = STEIN.meld_spec
ROMME_SPEC = ROMME.meld_spec
ACE_HIGH = ROMME.with_options(run_mode="ace_high").meld_spec  # Rommé variant c
RUMMY_SPEC = RUMMY.meld_spec


def tiles(text):
    return parse_faces(text)


def cards(text):
    return parse_faces(text, "card")


def refusal(faces, spec, meld_no=2):
    with pytest.raises(RummyError) as info:
        analyse(faces, spec, meld_no)
    return info.value


def run_of(colour, values):
    return tiles(" ".join(f"{colour}{v}" for v in values))


# -- an invalid meld names itself and what is wrong ------------------------------------------

INVALID = [
    ("R5 R6", "meld.too_short"),
    ("J J J", "meld.only_jokers"),
    ("R5 B5 Y5 K5 J", "meld.group_too_long"),
    ("R5 B5 R5", "meld.group_colours"),
    ("R1 R2 R2", "meld.run_duplicate"),
    ("R12 R13 R1", "meld.run_wrap"),
    ("R1 R3 R4", "meld.run_gap"),
    ("B5 R6 Y7", "meld.mixed"),
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 J", "meld.run_too_long"),
]


@pytest.mark.parametrize(("text", "code"), INVALID)
def test_a_numbered_meld_is_named_in_its_refusal(text, code):
    err = refusal(tiles(text), LINEAR, meld_no=2)
    assert err.code == code
    assert error_text(err, "en").startswith(f"Meld 2 ({text}): ")
    assert error_text(err, "de").startswith(f"Kombination 2 ({text}): ")


@pytest.mark.parametrize(("text", "code"), INVALID)
def test_a_meld_without_a_number_is_shown_as_typed(text, code):
    err = refusal(tiles(text), LINEAR, meld_no=None)
    assert err.code == code
    assert error_text(err, "en").startswith(f"{text}: ")
    assert error_text(err, "de").startswith(f"{text}: ")


# -- groups: same value, every colour once, at most four -------------------------------------


def test_two_equal_tiles_and_a_joker_are_a_group_with_a_doubled_colour():
    err = refusal(tiles("R5 R5 J"), LINEAR)
    assert err.code == "meld.group_colours"
    assert "R5 appears twice" in error_text(err, "en")


def test_a_doubled_colour_in_a_group_of_four_is_not_a_length_problem():
    err = refusal(tiles("R5 B5 R5 K5"), LINEAR)
    assert err.code == "meld.group_colours"
    assert "R5 appears twice" in error_text(err, "en")


def test_the_group_refusal_names_the_colour_that_appears_twice():
    err = refusal(tiles("R5 B5 B5"), LINEAR)
    assert err.code == "meld.group_colours"
    assert "B5 appears twice" in error_text(err, "en")
    assert "B5 kommt doppelt vor" in error_text(err, "de")


def test_one_tile_and_many_jokers_is_a_run_that_is_too_long():
    faces = tiles("R5" + " J" * 13)  # 14 pieces: no run of Rummikub is that long
    err = refusal(faces, LINEAR)
    assert err.code == "meld.run_too_long"
    assert "at most 13" in error_text(err, "en")


def test_the_run_length_limit_is_the_presets():
    err = refusal(run_of("K", list(range(1, 14)) * 2) + tiles("J"), WRAP)
    assert err.code == "meld.run_too_long"
    assert "at most 26" in error_text(err, "en")


# -- runs: duplicates, gaps, ends -------------------------------------------------------------


def test_thirteen_tiles_with_a_duplicate_are_refused_for_the_duplicate():
    faces = run_of("B", range(1, 13)) + tiles("B12")
    err = refusal(faces, LINEAR)
    assert err.code == "meld.run_duplicate"
    assert "B12 appears twice" in error_text(err, "en")


def test_a_stein_run_of_thirteen_or_fewer_may_not_repeat_a_tile():
    err = refusal(tiles("R5 R5 R6"), WRAP)
    assert err.code == "meld.run_duplicate"
    assert "R5 appears twice" in error_text(err, "en")
    faces = run_of("R", range(1, 13)) + tiles("R5")
    assert refusal(faces, WRAP).code == "meld.run_duplicate"


def test_a_stein_run_longer_than_thirteen_repeats_tiles_and_is_judged_by_its_gaps():
    # fourteen tiles go once round the cycle and one further: K13 is missing
    err = refusal(run_of("K", range(1, 13)) + tiles("K1 K3"), WRAP)
    assert err.code == "meld.run_gap"
    assert "gap at K13" in error_text(err, "en")
    # K12 and K13 are missing: the gap starts at K12
    err = refusal(run_of("K", range(1, 12)) + tiles("K1 K2 K3"), WRAP)
    assert err.code == "meld.run_gap"
    assert "gap at K12" in error_text(err, "en")
    assert is_valid(run_of("K", range(1, 14)) + tiles("K1"), WRAP)


def test_a_run_gap_is_a_real_tile():
    # every rank is there, but the two repeated tiles are not neighbours in the cycle
    err = refusal(run_of("K", range(1, 14)) + tiles("K1 K3"), WRAP)
    assert err.code == "meld.run_gap"
    gap = error_text(err, "en").split("gap at ")[1].split()[0]
    assert Tile.parse(gap).rank in range(1, 14)


@pytest.mark.parametrize(
    ("text", "gap"), [("R1 R2 R4", "R3"), ("R1 R3 R4", "R2"), ("B4 B5 B6 B9", "B7")]
)
def test_the_run_refusal_names_the_first_missing_tile(text, gap):
    err = refusal(tiles(text), LINEAR)
    assert err.code == "meld.run_gap"
    assert f"gap at {gap} " in error_text(err, "en")
    assert f"Lücke bei {gap} " in error_text(err, "de")


def test_nothing_stands_below_the_one():
    reading = analyse(tiles("J R1 R2"), LINEAR)
    assert format_faces(reading.stands_for) == "R1 R2 R3"
    assert reading.value == 6
    assert all(r.stands_for[0].rank >= 1 for r in readings(tiles("J R1 R2"), LINEAR))


def test_nothing_stands_above_the_ace_when_the_ace_is_high():
    # Rommé variant c: the ace may follow the king, nothing follows the ace
    reading = analyse(cards("JS QS KS AS *"), ACE_HIGH)
    assert format_faces(reading.stands_for) == "10S JS QS KS AS"
    assert reading.value == 10 + 10 + 10 + 10 + 11
    for reading in readings(cards("JS QS KS AS *"), ACE_HIGH):
        assert all(1 <= f.rank <= 13 for f in reading.stands_for)
    assert joker_meanings(cards("* QS KS AS"), ACE_HIGH) == set(cards("JS"))
    assert joker_meanings(cards("QS KS AS *"), ACE_HIGH) == set()


# -- what a meld is worth (opening minimums) --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("AS 2S 3S", 6),  # the ace counts 1 in a run that starts A-2 without a king
        ("* 2S 3S", 6),  # also when a joker stands for that ace
        ("AS 2S * 4S", 10),
        ("QS KS AS", 31),  # ace high: 11
        ("KS AS 2S", 23),  # round the corner: the king is there, the ace counts 11
        ("AS AH AD", 33),  # a set of aces: 11 each
        ("AS AH *", 33),
        ("9S 10S JS", 29),  # J/Q/K 10, 2-10 face value
        ("JS QS KS", 30),
    ],
)
def test_romme_meld_values(text, value):
    assert analyse(cards(text), ROMME_SPEC).value == value


@pytest.mark.parametrize(
    ("text", "value"), [("AS 2S 3S", 6), ("AS AH AD", 3), ("9S 10S JS", 29), ("JS QS KS", 30)]
)
def test_classic_rummy_meld_values(text, value):
    # faces 10, ace 1, others face value
    assert analyse(cards(text), RUMMY_SPEC).value == value


def test_tile_meld_values_count_a_joker_as_the_tile_it_stands_for():
    assert analyse(tiles("R11 R12 J"), LINEAR).value == 36
    assert analyse(tiles("R5 B5 J J"), LINEAR).value == 20
    assert analyse(tiles("J R4 R5"), LINEAR).value == 12


# -- reading a meld: where the jokers go --------------------------------------------------------


def test_a_group_lies_in_colour_order_with_its_jokers_last():
    reading = analyse(tiles("Y5 J R5"), LINEAR)
    assert reading.kind == "group"
    assert format_faces(reading.faces) == "R5 Y5 J"
    reading = analyse(tiles("R5 B5 J J"), LINEAR)
    assert format_faces(reading.faces) == "B5 R5 J J"
    assert {f.rank for f in reading.stands_for} == {5}


def test_one_tile_and_jokers_read_as_a_run():
    reading = analyse(tiles("R5 J J"), LINEAR)
    assert reading.kind == "run"
    assert format_faces(reading.stands_for) == "R5 R6 R7"
    assert reading.value == 18


def test_an_unordered_run_fills_gaps_first_then_the_high_end():
    reading = analyse(tiles("R5 R7 J J"), LINEAR)
    assert format_faces(reading.faces) == "R5 J R7 J"
    assert format_faces(reading.stands_for) == "R5 R6 R7 R8"


def test_a_run_in_the_order_given_keeps_it():
    reading = analyse(tiles("J R4 R5"), LINEAR)
    assert format_faces(reading.faces) == "J R4 R5"
    assert format_faces(reading.stands_for) == "R3 R4 R5"
    assert reading.joker_positions() == [0]
    assert format_faces(reading.joker_meanings()) == "R3"


def test_the_positional_reading_is_the_meld_as_it_lies():
    assert format_faces(positional_reading(tiles("R4 R5 J"), LINEAR).stands_for) == "R4 R5 R6"
    assert format_faces(positional_reading(tiles("J R4 R5"), LINEAR).stands_for) == "R3 R4 R5"
    assert positional_reading(tiles("B5 J R5"), LINEAR).kind == "group"
    # valid once rearranged, but not as it lies
    assert is_valid(tiles("R7 R5 R6"), LINEAR)
    assert positional_reading(tiles("R7 R5 R6"), LINEAR) is None
    assert positional_reading(tiles("R5 R7 J"), LINEAR) is None
    assert positional_reading(tiles("R5 R6"), LINEAR) is None


def test_a_joker_stands_for_what_its_place_says():
    assert joker_meanings(tiles("R4 R5 J"), LINEAR) == set(tiles("R6"))
    assert joker_meanings(tiles("J R4 R5"), LINEAR) == set(tiles("R3"))
    assert joker_meanings(tiles("R12 R13 J"), WRAP) == set(tiles("R1"))
    assert joker_meanings(tiles("R5 J J"), LINEAR) == set(tiles("R6 R7"))
    # a group joker: any missing colour of the value
    assert joker_meanings(tiles("R5 B5 Y5 J"), LINEAR) == set(tiles("K5"))
    assert joker_meanings(tiles("B5 J R5"), LINEAR) == set(tiles("Y5 K5"))
    # a meld that is not valid as it lies gives its jokers no meaning
    assert joker_meanings(tiles("R5 R7 J"), LINEAR) == set()


def said(meaning, lang="en"):
    """A joker's meaning as a player reads it (its data worded by i18n)."""
    words = meaning_words(meaning)
    if isinstance(words, str):
        return words
    return t(words["key"], lang, **{k: v for k, v in words.items() if k != "key"})


def test_a_jokers_meaning_in_words():
    group = analyse(tiles("R5 B5 J"), LINEAR)
    assert meaning_at(group, 2) == ("group", 5)
    assert said(meaning_at(group, 2)) == "a 5 of a missing colour"
    assert said(meaning_at(group, 2), "de") == "eine 5 einer fehlenden Farbe"
    run = analyse(tiles("R4 R5 J"), LINEAR)
    assert meaning_at(run, 2) == ("run", tiles("R6")[0])
    assert said(meaning_at(run, 2)) == "R6"
    assert said(meaning_at(run, 2), "de") == "R6"


def test_groups_and_runs_need_one_colour_or_one_value():
    assert not is_valid(tiles("R5 B6 R7"), LINEAR)
    assert not is_valid(tiles("R5 B5 Y5 K5 R5"), LINEAR)
    assert not is_valid(tiles("R5 B5 Y5 J J"), LINEAR)
    assert is_valid(tiles("R5 B5 Y5 K5"), LINEAR)
    assert not is_valid(tiles("J J"), LINEAR)
    assert not is_valid(tiles("J J J J"), LINEAR)
    assert not is_valid(run_of("K", list(range(1, 14)) * 2) + tiles("K1"), WRAP)


@pytest.mark.parametrize(
    ("text", "gap"),
    [
        (" ".join(f"K{v}" for v in range(2, 14)) + " K2 K3", "K1"),  # once round and on: K1 lacks
        ("K12 K13 K3", "K1"),  # round the corner: 12 13 1 2 3
        ("R12 R13 R2 R3 R5", "R1"),
        ("R1 R7 R9", "R8"),  # the shortest run holding them is 7 ... 13 1
        (" ".join(f"K{v}" for v in range(1, 14)) + " K1 K3", "K2"),
        # twice round: the shortest run holding these 24 tiles is 25 long and lacks the second K11
        (" ".join(f"K{v}" for v in [*range(1, 14), *range(1, 11), 12]), "K11"),
    ],
)
def test_a_stein_run_gap_is_found_round_the_corner(text, gap):
    err = refusal(tiles(text), WRAP)
    assert err.code == "meld.run_gap"
    assert f"gap at {gap} " in error_text(err, "en")


def test_a_romme_run_gap_is_found_round_the_corner():
    err = refusal(cards("QS KS 3S"), ROMME_SPEC)
    assert err.code == "meld.run_gap"
    assert "AS" in error_text(err, "en")


def test_a_run_gap_does_not_go_round_the_corner_where_runs_do_not():
    # Rummikub: R1 R7 R9 misses R2 first (no wrap to 7 ... 13 1)
    err = refusal(tiles("R1 R7 R9"), LINEAR)
    assert err.code == "meld.run_gap"
    assert "gap at R2 " in error_text(err, "en")


def test_a_group_joker_stands_for_a_missing_colour_of_its_value():
    reading = analyse(tiles("R5 B5 J"), LINEAR)
    assert reading.stands_for[2] in set(tiles("Y5 K5"))
    assert (
        analyse(tiles("R5 J J"), LINEAR).kind == "run"
    )  # one tile and jokers read as a run (R5 R6 R7) ...
    group = [r for r in readings(tiles("R5 J J"), LINEAR) if r.kind == "group"]
    assert [sorted(map(str, r.stands_for[1:])) for r in group] == [["B5", "Y5"]]  # ... or a group


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("K1 K3 K2 " + " ".join(f"K{v}" for v in range(4, 14)) + " J", WRAP),
        ("K1 K3 K2 " + " ".join(f"K{v}" for v in range(4, 14)) + " K1 K2", WRAP),
        ("R7 R5 J R8", LINEAR),
    ],
)
def test_an_arranged_run_holds_exactly_the_pieces_given(text, spec):
    reading = analyse(tiles(text), spec)
    assert sorted(reading.faces) == sorted(tiles(text))
    assert [f.rank for f in reading.stands_for] == [
        (reading.stands_for[0].rank - 1 + i) % 13 + 1 for i in range(len(reading.faces))
    ]


def test_run_positions_are_one_geometry_for_tiles_and_cards():
    """engine.melds is the one place that says which value stands at a run position (RULES.md:
    Stein and Rommé wrap round the corner, Rommé variant c puts the ace after the king, Rummikub
    and Rummy are linear); the card table and the card plan read runs through it."""
    from engine.melds import first_positions, rank_at, span_ok

    assert [rank_at("wrap", p) for p in (1, 13, 14, 15, 26, 27)] == [1, 13, 1, 2, 13, 1]
    assert [rank_at(mode, 14) for mode in ("linear", "ace_high")] == [1, 1]
    assert rank_at("linear", 7) == rank_at("ace_high", 7) == rank_at("wrap", 7) == 7
    assert list(first_positions("ace_high")) == list(range(1, 15))
    assert list(first_positions("wrap")) == list(first_positions("linear")) == list(range(1, 14))
    assert span_ok("ace_high", 12, 3, 13) and not span_ok("linear", 12, 3, 13)
    assert span_ok("wrap", 12, 13, 13) and not span_ok("wrap", 1, 14, 26)
    assert not span_ok("linear", 0, 3, 13) and not span_ok("linear", 1, 4, 3)
