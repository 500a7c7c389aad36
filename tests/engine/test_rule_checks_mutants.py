"""Rule checks of the tile and card games, pinned where mutation testing found them untested
(issue 13, `make mutation`): card penalties and points (RULES.md "Preset romme", "Preset rummy"),
runs laid in order, opening minimums, and the end-of-turn checks of the tile games.
"""

import re

import pytest

from engine.cards import (
    CardGame,
    has_jokers,
    refuse_jokers,
    romme_card_penalty,
    romme_hand_penalty,
    romme_penalties,
    rummy_card_points,
    rummy_points,
    strike_points,
)
from engine.errors import RummyError
from engine.melds import run_start
from engine.pieces import parse_faces
from engine.rules import ROMME, RUMMIKUB, RUMMY
from engine.tiles import TileGame
from i18n import error_text, event_text

from .helpers import game, hand, rejects, table


def cards(text):
    return parse_faces(text, "card")


# -- card penalties and points ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "penalty"),
    [("AS", 11), ("2H", 2), ("9D", 9), ("10C", 10), ("JS", 10), ("QH", 10), ("KD", 10), ("*", 20)],
)
def test_romme_penalty_of_a_card_left_in_hand(card, penalty):
    assert romme_card_penalty(cards(card)[0]) == penalty


def test_romme_joker_weight_with_variant_h():
    assert romme_card_penalty(cards("*")[0], joker_double=True) == 40
    assert romme_card_penalty(cards("KD")[0], joker_double=True) == 10


def test_variant_h_doubles_the_whole_hand_of_a_joker_holder():
    assert romme_hand_penalty(cards("AS 5H *")) == 36
    assert romme_hand_penalty(cards("AS 5H *"), joker_double=True) == 72
    assert romme_hand_penalty(cards("AS 5H"), joker_double=True) == 16
    assert romme_hand_penalty([]) == 0


def test_romme_penalties_per_seat():
    lefts = [cards("AS 5H"), [], cards("KD *")]
    assert romme_penalties(lefts) == [16, 0, 30]
    # Hand-Rommé doubles the others' penalties
    assert romme_penalties(lefts, hand_romme=True) == [32, 0, 60]
    # variant h doubles the joker holder's hand, and both together make four times
    assert romme_penalties(lefts, joker_double=True) == [16, 0, 60]
    assert romme_penalties(lefts, hand_romme=True, joker_double=True) == [32, 0, 120]
    # exempt seats (announcer, colour Rommé, winner) score nothing
    assert romme_penalties(lefts, exempt=[0]) == [0, 0, 30]
    assert romme_penalties(lefts, exempt=(0, 2), hand_romme=True) == [0, 0, 0]


@pytest.mark.parametrize(
    ("card", "points"), [("AS", 1), ("2H", 2), ("10C", 10), ("JS", 10), ("KD", 10)]
)
def test_classic_rummy_card_points(card, points):
    assert rummy_card_points(cards(card)[0]) == points


def test_classic_rummy_winner_takes_all_and_going_rummy_doubles():
    lefts = [cards("AS KD"), [], cards("5H 5C")]
    assert rummy_points(lefts, 1) == [0, 21, 0]
    assert rummy_points(lefts, 1, rummy=True) == [0, 42, 0]
    # the winner's own cards (none, normally) never count
    assert rummy_points([cards("9S"), cards("2H")], 0) == [2, 0]


def test_variant_i_strikes_10_or_20_after_a_hand_romme():
    assert strike_points(False) == 10
    assert strike_points(True) == 20


def test_classic_rummy_has_no_jokers_romme_has():
    assert not has_jokers(RUMMY)
    assert has_jokers(ROMME)
    assert not has_jokers(ROMME.with_options(pool_jokers=0))
    with pytest.raises(RummyError) as info:
        refuse_jokers(RUMMY, cards("5S 6S *"), "*")
    assert info.value.code == "cards.no_jokers"
    refuse_jokers(RUMMY, cards("5S 6S 7S"))
    refuse_jokers(ROMME, cards("5S 6S *"))


# -- runs laid in order -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mode", "start"),
    [
        ("AS 2S 3S", "linear", 1),
        ("JS QS KS", "linear", 11),
        ("* QS KS", "linear", 11),
        ("QS KS AS", "ace_high", 12),
        ("QS KS *", "ace_high", 12),
        ("KS AS 2S", "wrap", 13),
        ("QS KS AS 2S", "wrap", 12),
        ("5H * 7H", "wrap", 5),
    ],
)
def test_a_run_laid_in_order_starts_where_its_first_card_lies(text, mode, start):
    assert run_start(cards(text), mode, 13) == start


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("QS KS AS", "linear"),  # aces low only
        ("KS AS 2S", "ace_high"),  # no corner with variant c
        ("KS AS *", "ace_high"),  # nothing above the high ace
        ("3S 2S AS", "linear"),  # in this order it is not a run
        ("5S 6H 7S", "wrap"),  # one suit
        ("* * *", "wrap"),
    ],
)
def test_cards_not_forming_a_run_in_this_order(text, mode):
    assert run_start(cards(text), mode, 13) is None


def test_a_card_run_is_at_most_thirteen_long():
    thirteen = cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    assert run_start(thirteen, "linear", 13) == 1
    assert run_start(thirteen, "wrap", 13) == 1
    assert run_start([*thirteen, cards("*")[0]], "wrap", 13) is None
    assert run_start([*thirteen[1:], cards("AS")[0]], "ace_high", 13) == 2
    assert run_start([*thirteen, cards("AS")[0]], "ace_high", 14) == 1
    assert run_start(cards("JS QS KS"), "linear", 2) is None


# -- tile games: refusals say what is wrong, in both languages --------------------------------

TILE_REFUSALS = [
    # take: Stein only, with a joker from the hand, never a joker, the meld stays valid
    (
        "rummikub",
        "R4 R5 R6",
        "J B9",
        [],
        "take 1 R6",
        "turn.not_allowed",
        ["take", "Rummikub"],
        ["take", "Rummikub"],
    ),
    ("stein", "R4 R5 R6", "B9", [], "take 1 R6", "joker.none_in_hand", [], []),
    ("stein", "R4 R5 R6 J", "B9", [], "take 1 J", "joker.take_joker", [], []),
    ("stein", "R4 R5 R6", "J B9", [], "take 1 R9", "piece.not_in_meld", ["R9", "1"], ["R9"]),
    (
        "stein",
        "R4 J J",
        "J B9",
        [],
        "take 1 R4",
        "meld.only_jokers",
        ["Meld 1 (J J J)"],
        ["Kombination 1 (J J J)"],
    ),
    # the last discard from the table: only with an empty hand, and every meld stays valid
    (
        "stein",
        "R1 R2 R3 R4",
        "B9 B8",
        [],
        "discard 1 R4",
        "turn.discard_from_hand",
        ["2 tiles"],
        ["2 Steine"],
    ),
    (
        "stein",
        "R1 R2 R3 R4 | B5 B6 B7",
        "R5",
        ["add 1 R5"],
        "discard 2 R9",
        "piece.not_in_meld",
        ["R9 is not in meld 2"],
        ["R9", "Kombination 2"],
    ),
    (
        "stein",
        "R1 R2 R3 R4 | B5 B6 B7",
        "R5",
        ["add 1 R5"],
        "discard R9",
        "piece.not_on_table",
        ["R9"],
        ["R9"],
    ),
    (
        "stein",
        "R1 R2 R3 R4 | B5 B6 B7",
        "R5",
        ["add 1 R5"],
        "discard 1 R3",
        "turn.discard_breaks",
        ["R3", "meld 1", "R1 R2 R4 R5: ", "gap at R3"],
        ["R3", "Kombination 1", "R1 R2 R4 R5: ", "Lücke bei R3"],
    ),
    (
        "stein",
        "R1 R2 R3 J | B5 B6 B7",
        "B8",
        ["add 2 B8"],
        "discard 1 J",
        "joker.cannot_move",
        ["swap 1 "],
        ["swap 1 "],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 B5 Y5 K5 B4",
        ["meld R5 B5 Y5 K5", "claim 2", "add 1 B4"],
        "discard 2 K5",
        "claim.broken",
        ["Claim 2"],
        ["Claim 2"],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 B5 Y5 K5 B4",
        ["meld R5 B5 Y5 K5", "claim 2", "add 1 B4"],
        "discard K5",
        "claim.broken",
        ["Claim 2"],
        ["Claim 2"],
    ),
    ("rummikub", "R1 R2 R3", "B9", [], "discard B9", "turn.no_discard", ["done"], ["done"]),
    # claims: Stein Plus only, a group of exactly four, once
    (
        "stein",
        "R5 B5 Y5 K5",
        "B9",
        [],
        "claim 1",
        "turn.not_allowed",
        ["claim", "Stein-Rummy"],
        ["claim", "Stein-Rummy"],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 B5 Y5 K5 B9",
        ["meld R5 B5 Y5 K5", "claim 2"],
        "claim 2",
        "claim.already",
        ["Meld 2 "],
        ["Kombination 2 "],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 B5 Y5 K5 B9",
        ["meld R5 B5 Y5 K5", "claim 2"],
        "move 2 R5 B5 Y5 K5 > new",
        "claim.dissolve_first",
        ["Meld 2 ", "unclaim 2"],
        ["Kombination 2 ", "unclaim 2"],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 B5 Y5 B9",
        ["meld R5 B5 Y5"],
        "claim 2",
        "claim.not_group_of_four",
        ["Meld 2 "],
        ["Kombination 2 "],
    ),
    (
        "stein_plus",
        "B1 B2 B3",
        "R5 R6 R7 R8 B9",
        ["meld R5 R6 R7 R8"],
        "claim 2",
        "claim.not_group_of_four",
        ["Meld 2 "],
        ["Kombination 2 "],
    ),
]


@pytest.mark.parametrize(
    ("name", "tables", "rack", "before", "command", "code", "en", "de"), TILE_REFUSALS
)
def test_tile_refusals_name_what_is_wrong(name, tables, rack, before, command, code, en, de):
    g = game(name, tables, rack)
    for text in before:
        g.apply(0, text)
    err = rejects(g, command, code)
    for part in en:
        assert part in error_text(err, "en")
    for part in de:
        assert part in error_text(err, "de")
    if code == "turn.not_allowed":  # the command is named as typed
        assert error_text(err, "en").startswith(f"{command.split()[0]} is not part of ")
    if code == "turn.discard_breaks":
        assert error_text(err, "en").startswith(f"{command.split()[-1]} cannot leave the table: ")


def test_a_player_who_laid_every_tile_discards_from_the_table_the_tile_named():
    g = game("stein", "R1 R2 R3 R4 | B5 B6 B7", "B8")
    g.apply(0, "add 2 B8")
    events = g.apply(0, "discard 1 R4")
    assert [e.kind for e in events][:2] == ["discard", "game_over"]
    assert table(g) == ["R1 R2 R3", "B5 B6 B7 B8"]
    # without a meld number: the first meld that stays valid without the tile
    g = game("stein", "B1 B2 B3 | R5 B5 Y5 K5", "B4")
    g.apply(0, "add 1 B4")
    g.apply(0, "discard K5")
    assert table(g) == ["B1 B2 B3 B4", "B5 R5 Y5"]
    assert g.result.winner == 0


def test_take_puts_the_joker_in_and_the_tile_in_the_hand():
    g = game("stein", "R4 R5 R6", "J B9 K1")
    events = g.apply(0, "take 1 R6")
    assert [(e.kind, e.private) for e in events] == [("take", True)]
    assert event_text(events[0], "en") == "P1 takes from meld 1 with a joker: R6"
    assert event_text(events[0], "de") == "P1 nimmt mit Joker aus 1: R6"
    assert table(g, working=True) == ["R4 R5 J"]
    assert hand(g) == ["B9", "K1", "R6"]


def test_a_stein_opening_may_hold_the_own_joker_put_in_by_take():
    # R4 R5 J is a run of three from the player's own hand (RULES.md "Preset stein" opening)
    g = game("stein", "", "R4 R5 R6 J B9", opened=(False,))
    g.apply(0, "meld R4 R5 R6")
    g.apply(0, "take 1 R6")
    kinds = [e.kind for e in g.apply(0, "discard B9")]
    assert "opened" in kinds
    assert g.opened[0]
    assert table(g) == ["R4 R5 J"]


# -- Rommé variant b: a joker in a set of three is declared as one card ----------------------

VARIANT_B = ROMME.with_options(variant_declared_joker=True)


def card_position(hand_text, rules=VARIANT_B, opened=(True, True)):
    return CardGame.position(
        rules, "", [hand_text, "9D 9D KS"], opened=opened, pool="2C 3C 4C 5C 6C 7C"
    )


def card_table(g):
    return [" ".join(str(f) for f in m) for m in g.table_faces()]


@pytest.mark.parametrize(
    ("hand_text", "command", "en", "de"),
    [
        (
            "9C 9H * * 2D",
            "meld 9C 9H * *=9D",
            '"*=9D": only a joker in a set of three is declared (variant b)',
            '"*=9D": nur ein Joker in einem Dreiersatz wird festgelegt (Variante b)',
        ),
        (
            "9C 10H * 2D",
            "meld 9C 10H *=9D",
            '"*=9D": 9C 10H * is not a set (same rank, different suits)',
            '"*=9D": 9C 10H * ist kein Satz (gleicher Wert, verschiedene Farben)',
        ),
        (
            "9C 9C * 2D",
            "meld 9C 9C *=9D",
            '"*=9D": 9C 9C * is not a set',
            '"*=9D": 9C 9C * ist kein Satz',
        ),
        (
            "9C 9H * 2D",
            "meld 9C 9H *=10D",
            '"*=10D": the joker must stand for a missing card of rank 9',
            '"*=10D": der Joker muss für eine fehlende Karte vom Wert 9 stehen',
        ),
        (
            "AC AH * 2D",
            "meld AC AH *=AC",
            '"*=AC": the joker must stand for a missing card of rank A',
            '"*=AC": der Joker muss für eine fehlende Karte vom Wert A stehen',
        ),
    ],
)
def test_a_declared_joker_must_be_a_missing_card_of_a_set_of_three(hand_text, command, en, de):
    g = card_position(hand_text)
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, command)
    assert info.value.code == "cards.declare_bad"
    assert error_text(info.value, "en").startswith(en)
    assert error_text(info.value, "de").startswith(de)
    assert g.to_json() == before


def test_a_declared_set_lies_sorted_in_front_of_its_player():
    g = card_position("* 9H 9S 2D")
    g.apply(0, "meld *=9D 9H 9S")
    assert card_table(g) == ["9S 9H *"]
    assert g.table[0].declared == {2: cards("9D")[0]}
    assert g.public_view().melds[0].owner == 0


def test_undeclared_jokers_of_a_declared_set_take_the_missing_suits():
    g = card_position("* * 9H 2D")
    g.apply(0, "meld * *=9S 9H")
    assert card_table(g) == ["9H * *"]
    assert sorted(map(str, g.table[0].declared.values())) == ["9D", "9S"]


def test_a_declared_set_counts_towards_the_opening():
    g = card_position("9C 9H * JS QS KS 2D 5H", opened=(False, True))
    g.apply(0, "meld 9C 9H *=9D | JS QS KS")  # 27 + 30 = 57, at least 40
    g.apply(0, "discard 5H")
    assert g.opened[0]
    g = card_position("9C 9H * JS 2D 5H", opened=(False, True))
    g.apply(0, "meld 9C 9H *=9D")  # 27 is below 40
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, "discard 5H")
    assert info.value.code == "opening.below_minimum"
    assert "27" in error_text(info.value, "en") and "40" in error_text(info.value, "en")
    assert g.to_json() == before


def test_without_the_option_a_rummikub_joker_meld_may_be_split():
    rules = RUMMIKUB.with_options(joker_meld_no_split=False)
    for command in ("split 1 R7", "move 1 R7 R8 R9 > new"):
        g = TileGame.position(rules, "R3 R4 J R6 R7 R8 R9", ["B1"], opened=(True,))
        g.apply(0, command)
        assert table(g, working=True) == ["R3 R4 J R6", "R7 R8 R9"]


# -- card jokers are freed by the card they stand for -----------------------------------------


def card_game(table_text, hand_text, rules=ROMME):
    return CardGame.position(
        rules, table_text, [hand_text, "9D 9D KS"], opened=(True, True), pool="2C 3C 4C 5C"
    )


def test_a_joker_round_the_corner_is_freed_by_its_card():
    g = card_game("QS KS AS * 3S", "2S 5H")
    g.apply(0, "swap 1 2S")
    assert card_table(g) == ["QS KS AS 2S 3S"]
    assert sorted(str(f) for f in g.rack(0)) == ["*", "5H"]


@pytest.mark.parametrize(
    ("table_text", "hand_text", "command", "stands"),
    [
        ("QS KS AS * 3S", "2H 5H", "swap 1 2H", "2S"),
        ("5S * 7S", "6H 5H", "swap 1 6H", "6S"),
        ("9C 9H *", "9C 5H", "swap 1 9C", "9S / 9D"),  # a set never repeats a suit
        ("9C 9H *", "8D 5H", "swap 1 8D", "9S / 9D"),
    ],
)
def test_a_wrong_card_does_not_free_a_joker_and_is_told_what_does(
    table_text, hand_text, command, stands
):
    g = card_game(table_text, hand_text)
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, command)
    assert info.value.code == "joker.wrong_piece"
    assert error_text(info.value, "en").endswith(f"it stands for {stands}.")
    assert error_text(info.value, "de").endswith(f"er steht für {stands}.")
    assert g.to_json() == before


def test_a_declared_joker_is_freed_only_by_its_declared_card():
    g = card_position("9C 9H * 9S 9D 5H 2D")
    g.apply(0, "meld 9C 9H *=9D")
    with pytest.raises(RummyError) as info:
        g.apply(0, "swap 1 9S")
    assert error_text(info.value, "en").endswith("it stands for 9D.")
    g.apply(0, "swap 1 9D")
    assert "*" in [str(f) for f in g.rack(0)]


def test_romme_keeps_a_card_for_the_final_discard():
    g = card_game("", "5S 6S 7S")
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, "meld 5S 6S 7S")
    assert info.value.code == "cards.keep_one"
    assert error_text(info.value, "en").endswith(
        ": in Rommé the last card is discarded (variant g is off)"
    )
    assert error_text(info.value, "de").endswith(
        ": beim Rommé wird die letzte Karte abgelegt (Variante g ist aus)"
    )
    assert g.to_json() == before


# -- Stein: two draws, fewer when the stocks run dry ------------------------------------------


def stein_to_draw(rack, discards=""):
    return game("stein", "", rack, discards=discards, draws_done=False)


def test_stein_draws_two_one_of_them_at_most_from_the_discard_stock():
    g = stein_to_draw("R1 R2 R3 B9", discards="Y3")
    err = rejects(g, "discard B9", "turn.draw_first")
    assert re.search(r"(?<![-\d])0 of 2", error_text(err, "en"))
    assert re.search(r"(?<![-\d])0 von 2", error_text(err, "de"))
    g.apply(0, "pick Y3")
    err = rejects(g, "discard B9", "turn.draw_first")
    # 1 drawn of 2 (not "-1"), however the sentence is worded
    assert re.search(r"(?<![-\d])1 (of|von) 2", error_text(err, "en"))
    assert re.search(r"(?<![-\d])1 von 2", error_text(err, "de"))
    g.apply(0, "draw")
    assert "discard" in [e.kind for e in g.apply(0, "discard B9")]


def test_stein_draws_fewer_when_the_pool_runs_dry():
    g = stein_to_draw("R1 R2 R3 B9", discards="Y3 K4 R5")
    g.pool.clear()  # the pool has run dry: one pick from the discard stock is all there is
    assert g.draws_needed() == 1
    rejects(g, "discard B9", "turn.draw_first")
    g.apply(0, "pick K4")
    assert g.draws_complete()
    g.apply(0, "discard B9")
    g = stein_to_draw("R1 R2 R3 B9")
    del g.pool[1:]  # one tile left in the pool, nothing discarded yet
    assert g.draws_needed() == 1
    g.apply(0, "draw")
    g.apply(0, "discard B9")
    g = stein_to_draw("R1 R2 R3 B9", discards="Y3 K4")
    del g.pool[1:]  # a pick and the pool's last tile make two draws
    g.apply(0, "pick K4")
    rejects(g, "discard B9", "turn.draw_first")
    g.apply(0, "draw")
    g.apply(0, "discard B9")
    g = stein_to_draw("R1 R2 R3 B9")
    g.pool.clear()  # nothing to draw at all
    assert g.draws_needed() == 0
    g.apply(0, "discard B9")


def test_only_stein_requires_draws():
    assert game("rummikub", "", "R1 R2 R3 B9").draws_needed() == 0
    assert game("stein", "", "R1 R2 R3 B9", draws_done=False).draws_needed() == 2


def test_ending_a_tile_turn():
    g = game("stein", "", "R1 R2 R3 B9")
    err = rejects(g, "done", "turn.must_discard")
    assert "discard" in error_text(err, "en")
    g = game("rummikub", "R1 R2 R3", "B9")
    rejects(g, "done", "turn.nothing_played")
    g.apply(0, "move 1 R3 > new")
    err = rejects(g, "done", "turn.invalid_table")
    # every invalid meld is named, in the player's language
    assert "Meld 1 (R1 R2)" in error_text(err, "en") and "Meld 2 (R3)" in error_text(err, "en")
    assert "Kombination 1 (R1 R2)" in error_text(err, "de")


# -- Rummikub: the 30-point opening -----------------------------------------------------------


@pytest.mark.parametrize("melds", ["R9 R10 R11", "R9 R10 J", "R9 R10 R11 | B1 B2 B3"])
def test_a_rummikub_opening_of_30_or_more_is_accepted(melds):
    g = game("rummikub", "", "R9 R10 R11 J B1 B2 B3 K7", opened=(False,))
    g.apply(0, f"meld {melds}")
    assert "opened" in [e.kind for e in g.apply(0, "done")]
    assert g.opened[0]


@pytest.mark.parametrize(
    ("tables", "melds", "value"),
    [
        ("", "R8 R9 R10", 27),
        ("", "J R9 R10", 27),
        ("B10 B11 B12 | Y1 Y2 Y3", "R8 R9 R10", 27),  # only the player's own melds count
    ],
)
def test_a_rummikub_opening_below_30_is_refused(tables, melds, value):
    g = game("rummikub", tables, "R8 R9 R10 J K7", opened=(False,))
    g.apply(0, f"meld {melds}")
    err = rejects(g, "done", "opening.below_minimum")
    assert f"worth {value} points" in error_text(err, "en") and "reach 30" in error_text(err, "en")
    assert f"zählt {value} Punkte" in error_text(err, "de") and "30" in error_text(err, "de")


def test_before_opening_the_table_is_locked_unless_the_option_and_30_points():
    g = game("rummikub", "R1 R2 R3", "R9 R10 R11 R12 R4", opened=(False,))
    g.apply(0, "meld R9 R10 R11 R12")
    err = rejects(g, "add 1 R4", "opening.table_locked")
    assert "(meld 1)" in error_text(err, "en") and "(Kombination 1)" in error_text(err, "de")
    rules = RUMMIKUB.with_options(opening_may_add_after_minimum=True)
    g = TileGame.position(rules, "R1 R2 R3", ["R8 R9 R10 R11 R4"], opened=(False,))
    rejects(g, "add 1 R4", "opening.table_locked")
    g.apply(0, "meld R8 R9 R10")  # 27: not yet
    rejects(g, "add 1 R4", "opening.table_locked")
    g = TileGame.position(rules, "R1 R2 R3", ["R9 R10 R11 R4"], opened=(False,))
    g.apply(0, "meld R9 R10 R11")  # exactly 30
    g.apply(0, "add 1 R4")
    g.apply(0, "done")
    assert table(g) == ["R1 R2 R3 R4", "R9 R10 R11"]


# -- freeing a table joker (RULES.md "Common ground", "Preset stein", "Preset rummikub") ------

SWAP_REFUSALS = [
    ("rummikub", "R4 R5 R6", "R7 B1", [], "swap 1 R7", "joker.not_in_meld", "Meld 1 "),
    ("rummikub", "R4 R5 J", "R6 R3 B1", [], "swap 1 R3", "joker.wrong_piece", "for R6"),
    ("rummikub", "R4 R5 J", "R6 R3 B1", [], "swap 1 J", "joker.wrong_piece", "for R6"),
    ("stein", "R4 J J R7", "R5 R6 K1", [], "swap 1 R5 R5", "joker.wrong_piece", "R5 R6"),
    ("stein", "R5 B5 J", "Y5 K5 B1", [], "swap 1 R5", "joker.wrong_piece", "K5 Y5"),
    ("rummikub", "R5 B5 Y5 J", "R5 K1", [], "swap 1 R5", "joker.wrong_piece", "for K5"),
    # Stein: a group joker only by the missing fourth tile
    ("stein", "R5 B5 J", "Y5 K5 B1", [], "swap 1 Y5", "joker.group_needs_fourth", "meld 1 "),
    ("stein", "R5 B5 J J", "Y5 K5 K1", [], "swap 1 Y5", "joker.group_needs_fourth", "meld 1 "),
    # a meld not valid as it lies gives its joker no meaning yet
    ("stein", "R4 R5 J", "B9 R6 K1", ["add 1 B9"], "swap 1 R6", "joker.no_meaning", "Meld 1 "),
]


@pytest.mark.parametrize(
    ("name", "tables", "rack", "before", "command", "code", "en"), SWAP_REFUSALS
)
def test_a_joker_is_freed_only_by_the_tile_its_place_stands_for(
    name, tables, rack, before, command, code, en
):
    g = game(name, tables, rack)
    for text in before:
        g.apply(0, text)
    err = rejects(g, command, code)
    if code == "joker.wrong_piece":  # what the jokers stand for, however it is worded
        named = error_text(err, "en").split("stands for", 1)[1]
        assert all(piece in named for piece in en.removeprefix("for ").split())
    else:
        assert en in error_text(err, "en")
    if code == "joker.wrong_piece":
        piece = command.split()[-1]
        assert error_text(err, "en").startswith(f"{piece} cannot free the joker in meld 1: ")
        assert error_text(err, "de").startswith(f"{piece} kann den Joker in Kombination 1 nicht")


@pytest.mark.parametrize(
    ("name", "tables", "rack", "command", "after", "left"),
    [
        ("stein", "R4 R5 J R7 R8", "R6 K1", "swap 1 R6", "R4 R5 R6 R7 R8", "J K1"),
        ("stein", "R4 J J R7", "R5 R6 K1", "swap 1 R6 R5", "R4 R5 R6 R7", "J J K1"),
        ("stein", "R5 B5 Y5 J", "K5 B1", "swap 1 K5", "B5 R5 Y5 K5", "B1 J"),
        ("stein", "R5 B5 J", "Y5 K5 B1", "swap 1 Y5 K5", "B5 R5 Y5 K5", "B1 J"),
        ("stein", "R5 B5 J J", "Y5 K5 K1", "swap 1 K5 Y5", "B5 R5 Y5 K5", "J J K1"),
        # Rummikub: any missing colour frees a group joker; the group may stay at three
        ("rummikub", "R5 B5 J", "Y5 K5 B1", "swap 1 K5", "B5 R5 K5", "B1 J Y5"),
        ("rummikub", "R5 B5 J J", "Y5 K5 K1", "swap 1 Y5", "B5 R5 Y5 J", "J K1 K5"),
    ],
)
def test_a_freed_joker_goes_to_the_rack_and_its_tile_takes_its_place(
    name, tables, rack, command, after, left
):
    g = game(name, tables, rack)
    events = g.apply(0, command)
    assert table(g, working=True)[0] == after
    assert hand(g) == sorted(left.split())
    pieces = command.split(maxsplit=2)[2]
    assert [(e.kind, e.private) for e in events] == [("swap", True)]
    assert event_text(events[0], "en") == f"P1 frees the joker of meld 1 with {pieces}"
    assert event_text(events[0], "de") == f"P1 löst den Joker in 1 aus mit {pieces}"


@pytest.mark.parametrize(
    ("before", "code", "en", "de"),
    [
        (["swap 1 R6"], "joker.freed_unused", "new meld", "neue Kombination"),
        (["swap 1 R6", "add 2 J"], "joker.freed_unused", "new meld", "neue Kombination"),
        (
            ["swap 1 R6", "add 2 B10 J"],
            "joker.freed_not_new",
            "Meld 2: the freed joker must go into a new meld with tiles from your rack, not into "
            "a meld that was on the table (B7 B8 B9).",
            "Kombination 2: ",
        ),
        (
            ["swap 1 R6", "move 2 B7 B8 B9 > new"],
            "joker.freed_unused",
            "new meld",
            "neue Kombination",
        ),
    ],
)
def test_a_freed_rummikub_joker_goes_into_a_new_meld_with_rack_tiles(before, code, en, de):
    g = game("rummikub", "R4 R5 J | B7 B8 B9", "R6 B10 B11 K1")
    for text in before:
        g.apply(0, text)
    err = rejects(g, "done", code)
    assert en in error_text(err, "en")
    assert de in error_text(err, "de")


def test_a_freed_rummikub_joker_in_a_new_meld_with_rack_tiles_ends_the_turn():
    g = game("rummikub", "R4 R5 J", "R6 B7 B8 K1")
    g.apply(0, "swap 1 R6")
    g.apply(0, "meld J B7 B8")
    g.apply(0, "done")
    assert table(g) == ["R4 R5 R6", "J B7 B8"]


@pytest.mark.parametrize(
    ("name", "tables", "rack", "command", "code", "en"),
    [
        ("stein", "R4 R5 J | B7 B8 B9", "K1", "move 1 J > 2", "joker.cannot_move", "swap 1 "),
        ("stein", "R5 B5 J | R6 R7 R8", "K1 K2", "move 1 J > 2", "joker.cannot_move", "swap 1 "),
        ("rummikub", "R4 R5 J R7", "K1", "move 1 R7 > new", "joker.locked_meld", "Meld 1 "),
        ("rummikub", "R4 J R6 R7", "R5 K1", "split 1 R6", "joker.locked_meld", "Meld 1 "),
        ("rummikub", "R3 R4 J R6 R7 R8", "K1", "move 1 R3 > new", "joker.locked_meld", "Meld 1 "),
        ("rummikub", "R3 R4 J R6 R7 R8", "R7 K1", "add 1 R7", "joker.locked_meld", "Meld 1 "),
        (
            "rummikub",
            "R4 R5 J | B7 B8 B9",
            "K1",
            "move 1 R4 R5 > 2",
            "joker.locked_meld",
            "Meld 1 ",
        ),
    ],
)
def test_a_table_joker_stays_in_its_meld(name, tables, rack, command, code, en):
    g = game(name, tables, rack)
    err = rejects(g, command, code)
    assert en in error_text(err, "en")


def test_a_stein_joker_meld_may_be_split():
    g = game("stein", "R4 R5 J R7", "K1")
    g.apply(0, "move 1 R7 > new")
    assert table(g, working=True) == ["R4 R5 J", "R7"]


# -- laying off on card melds -----------------------------------------------------------------

ACE_HIGH_ROMME = ROMME.with_options(run_mode="ace_high")


@pytest.mark.parametrize(
    ("rules", "table_text", "command", "after"),
    [
        (ROMME, "9C 9H 9S", "add 1 9D", "9C 9H 9S 9D"),
        (ROMME, "9C 9H 9S", "add 1 *", "9C 9H 9S *"),
        (ROMME, "5S 6S 7S", "add 1 4S", "4S 5S 6S 7S"),
        (ROMME, "5S 6S 7S", "add 1 8S", "5S 6S 7S 8S"),
        (ROMME, "5S 6S 7S", "add 1 4S 8S", "4S 5S 6S 7S 8S"),
        (ROMME, "5S 6S 7S", "add 1 *", "5S 6S 7S *"),  # a joker goes to the high end first
        (ROMME, "5S 6S 7S", "add 1 * 9S", "5S 6S 7S * 9S"),
        (ROMME, "5S 6S 7S", "add 1 4S *", "4S 5S 6S 7S *"),
        (ROMME, "5S * 7S", "add 1 4S 8S", "4S 5S * 7S 8S"),
        (ROMME, "QS KS AS", "add 1 2S", "QS KS AS 2S"),  # round the corner
        (ACE_HIGH_ROMME, "QS KS AS", "add 1 JS", "JS QS KS AS"),
        (RUMMY, "2S 3S 4S", "add 1 AS", "AS 2S 3S 4S"),
        (RUMMY, "JS QS KS", "add 1 10S", "10S JS QS KS"),  # nothing above the king
        (ROMME, "5S 6S 7S", "add 1 3S 4S", "3S 4S 5S 6S 7S"),
        (ROMME, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS", "add 1 KS", None),
        (ROMME, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "add 1 2S", None),
    ],
)
def test_cards_laid_off_where_they_fit(rules, table_text, command, after):
    hand_text = "3S 4S 8S 9S 10S 9D JS KS AS 2S 5H" + (" *" if rules is not RUMMY else "")
    g = CardGame.position(rules, table_text, [hand_text, "9D 9D KS"], opened=(True, True))
    g.apply(0, command)
    pieces = command.split(maxsplit=2)[2]
    expected = after or f"{table_text} {pieces}"
    assert card_table(g) == [expected]


@pytest.mark.parametrize(
    ("rules", "table_text", "cards_text"),
    [
        (ROMME, "9C 9H 9S", "9C"),  # a set never repeats a suit
        (ROMME, "9C 9H 9S", "10D"),
        (ROMME, "9C 9H 9S 9D", "9C"),  # at most four
        (ROMME, "9C 9H 9S 9D", "*"),
        (ROMME, "5S 6S 7S", "9S"),  # a gap
        (ROMME, "5S 6S 7S", "3S"),
        (ROMME, "5S 6S 7S", "8H"),  # another suit
        (ACE_HIGH_ROMME, "QS KS AS", "2S"),  # variant c: no corner
        (RUMMY, "JS QS KS", "AS"),  # classic Rummy: aces low only
        (ROMME, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "AS"),  # at most 13
    ],
)
def test_cards_that_do_not_fit_are_refused_naming_the_meld(rules, table_text, cards_text):
    hand_text = "9C 10D 9S 8H 2S 3S AS 5H" + (" *" if rules is not RUMMY else "")
    g = CardGame.position(rules, table_text, [hand_text, "9D 9D KS"], opened=(True, True))
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, f"add 1 {cards_text}")
    assert info.value.code == "cards.layoff"
    assert error_text(info.value, "en") == f"{cards_text} does not fit meld 1 ({table_text})."
    assert (
        error_text(info.value, "de") == f"{cards_text} passt nicht an Kombination 1 ({table_text})."
    )
    assert g.to_json() == before


def test_a_claim_stays_a_group_of_four_to_the_end_of_the_turn():
    g = game("stein_plus", "B1 B2 B3", "R5 B5 Y5 K5 B9 B4")
    for text in ("meld R5 B5 Y5 K5", "claim 2", "move 2 K5 > new", "add 1 B4"):
        g.apply(0, text)
    err = rejects(g, "discard B9", "turn.invalid_table")
    # every fault is named: the broken claim and the meld that is too short
    assert "Claim 2 must stay a group of 4" in error_text(err, "en")
    assert "Meld 3 (K5)" in error_text(err, "en")
    assert "unclaim it first. Meld 3 (K5)" in error_text(err, "en")
    assert "Claim 2 muss eine Vierer-Gruppe bleiben" in error_text(err, "de")
    assert "erst unclaim. Kombination 3 (K5)" in error_text(err, "de")
    assert "Kombination 3 (K5)" in error_text(err, "de")


def test_the_table_lock_before_opening_covers_take():
    g = game("stein", "R4 R5 R6", "B9 B8 J", opened=(False,))
    err = rejects(g, "take 1 R6", "opening.table_locked")
    assert "(meld 1)" in error_text(err, "en")


def test_variant_a_a_player_may_not_knock_for_their_own_discard():
    rules = ROMME.with_options(variant_knocking=True)
    g = CardGame.position(
        rules,
        "KS KH KD",
        ["5H 6H 7H 8D", "9S 9H 2C 3C", "4D 5D"],
        opened=[True, True, True],
        pool="JC QC KC AC 4C",
        drawn=True,
    )
    g.apply(0, "discard 8D")
    g.apply(1, "draw")  # seat 1 declines the 8D
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, "knock")
    assert info.value.code == "cards.knock_own"
    assert g.to_json() == before


def test_only_the_owner_touches_a_claim():
    g = game("stein_plus", "B1 B2 B3", "R5 B5 Y5 K5 B9 B8", "R1 R2 R3 K7", opened=(True, True))
    for text in ("meld R5 B5 Y5 K5", "claim 2", "discard B9"):
        g.apply(0, text)
    g.apply(1, "draw")
    g.apply(1, "draw")
    err = rejects(g, "move 2 K5 > new", "claim.not_yours", seat=1)
    assert error_text(err, "en").startswith("Meld 2 is P1's claim")
    assert error_text(err, "de").startswith("Kombination 2 ist ein Claim von P1")
    rejects(g, "take 2 K5", "claim.not_yours", seat=1)


def test_a_stein_discard_is_shown_to_everybody():
    g = game("stein", "", "R1 R2 R3 B9 B8")
    events = g.apply(0, "discard B9")
    discard = events[0]
    assert (discard.kind, discard.seat, discard.private) == ("discard", 0, False)
    assert event_text(discard, "en") == "P1 discards B9."
    assert event_text(discard, "de") == "P1 legt B9 ab."
    assert discard.pieces == ("B9",)
    assert [str(g.deck[i]) for i in g.discards] == ["B9"]


# -- new card melds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand_text", "commands", "after"),
    [
        # without variant b a set's joker is any missing suit, for lay-offs and for swaps
        ("9C 9H * 9S 9D 5H", ["meld 9C 9H *", "add 1 9S"], "9C 9H * 9S"),
        ("9C 9H * 9S 9D 5H", ["meld 9C 9H *", "swap 1 9D"], "9C 9H 9D"),
        ("9C 9H 9S 9D 5H", ["meld 9C 9H 9S", "add 1 9D"], "9C 9H 9S 9D"),
        ("5S 6S 7S 8S 5H", ["meld 5S 6S 7S", "add 1 8S"], "5S 6S 7S 8S"),
    ],
)
def test_a_new_card_meld_takes_lay_offs_like_any_other(hand_text, commands, after):
    g = CardGame.position(ROMME, "", [hand_text, "9D 9D KS"], opened=(True, True))
    for text in commands:
        g.apply(0, text)
    assert card_table(g) == [after]


def test_an_invalid_card_meld_is_named_by_its_number():
    g = CardGame.position(ROMME, "KS KH KD", ["5S 7S 9S 5H", "9D 9D KS"], opened=(True, True))
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, "meld 5S 7S 9S")
    assert info.value.code == "meld.run_gap"
    assert error_text(info.value, "en").startswith("Meld 2 (5S 7S 9S): ")
    assert error_text(info.value, "de").startswith("Kombination 2 (5S 7S 9S): ")
    assert g.to_json() == before


def test_a_stein_table_joker_stays_with_tiles_of_its_meld():
    # the joker itself cannot move, but its meld's tiles may; at the end it must lie with one
    g = game("stein", "R4 R5 J | B7 B8 B9", "R8 R9 R3 K1")
    for text in ("move 1 R4 R5 > new", "add 1 R8 R9", "add 3 R3"):
        g.apply(0, text)  # a Stein run joker may change its meaning on the way (R6, then R7)
    err = rejects(g, "discard K1", "joker.left_meld")
    assert error_text(err, "en").startswith("Meld 1: a joker from the table stays with tiles of")
    assert "(R4 R5 J)" in error_text(err, "en")
    assert error_text(err, "de").startswith("Kombination 1: ")
    assert "(R4 R5 J)" in error_text(err, "de")


# -- a table joker keeps its meaning until it is freed (Rummikub) -----------------------------

SPLITTABLE = RUMMIKUB.with_options(joker_meld_no_split=False)


@pytest.mark.parametrize(
    ("tables", "rack", "commands", "was", "now", "was_de", "now_de"),
    [
        ("R4 R5 J", "R8 R9 K1", ["move 1 R4 R5 > new", "add 1 R8 R9"], "R6", "R7", "R6", "R7"),
        (
            "R5 B5 J",
            "R6 R7 K1",
            ["move 1 R5 B5 > new", "add 1 R6 R7"],
            "a 5 of a missing colour",
            "R5",
            "eine 5 einer fehlenden Farbe",
            "R5",
        ),
        (
            "R4 R5 J",
            "B6 Y6 K1",
            ["move 1 R4 R5 > new", "add 1 B6 Y6"],
            "R6",
            "a 6 of a missing colour",
            "R6",
            "eine 6 einer fehlenden Farbe",
        ),
    ],
)
def test_a_rummikub_table_joker_keeps_its_meaning(tables, rack, commands, was, now, was_de, now_de):
    g = TileGame.position(SPLITTABLE, tables, [rack], opened=(True,))
    for text in commands[:-1]:
        g.apply(0, text)
    err = rejects(g, commands[-1], "joker.meaning_changed")
    assert error_text(err, "en").startswith(
        f"Meld 1: its joker stood for {was} at the start of your turn and would now stand "
        f"for {now}."
    )
    assert error_text(err, "de").startswith(
        f"Kombination 1: ihr Joker stand zu Beginn deines Zuges für {was_de} und stünde nun "
        f"für {now_de}."
    )


def test_a_rummikub_table_joker_left_without_its_tiles_ends_no_turn():
    g = TileGame.position(SPLITTABLE, "R4 R5 J", ["R7 R8 R3 K1"], opened=(True,))
    for text in ("move 1 R4 R5 > new", "add 1 R7 R8", "add 2 R3"):
        g.apply(0, text)  # the joker still means R6, but lies apart from R4 R5
    err = rejects(g, "done", "joker.left_meld")
    assert "(R4 R5 J)" in error_text(err, "en")


def test_a_claim_is_announced_to_its_owner():
    g = game("stein_plus", "B1 B2 B3", "R5 B5 Y5 K5 B9")
    g.apply(0, "meld R5 B5 Y5 K5")
    events = g.apply(0, "claim 2")
    assert [(e.kind, e.seat, e.private) for e in events] == [("claim", 0, True)]
    assert event_text(events[0], "en") == "P1 claims meld 2"
    assert event_text(events[0], "de") == "P1 erklärt zum Claim: 2"


def test_one_tile_frees_one_group_joker():
    g = game("stein", "R5 B5 J J", "Y5 Y5 K1")
    err = rejects(g, "swap 1 Y5 Y5", "joker.wrong_piece")
    assert error_text(err, "en").startswith("Y5 cannot free the joker in meld 1")


@pytest.mark.parametrize(
    ("tables", "rack", "before", "command", "after"),
    [
        # the first meld holding R5 would break without it: the next one gives it
        ("R4 R5 R6 | B5 Y5 K5 R5", "R7", ["add 1 R7"], "discard R5", ["R4 R5 R6 R7", "B5 Y5 K5"]),
        # a tile laid this turn may be the one discarded from the table
        ("R4 R5 R6", "R7", ["add 1 R7"], "discard 1 R7", ["R4 R5 R6"]),
        # so may the player's own joker laid this turn (only table jokers stay)
        ("", "R4 R5 R6 J", ["meld R4 R5 R6 J"], "discard 1 J", ["R4 R5 R6"]),
    ],
)
def test_the_last_stein_discard_from_the_table(tables, rack, before, command, after):
    g = game("stein", tables, rack)
    for text in before:
        g.apply(0, text)
    kinds = [e.kind for e in g.apply(0, command)]
    assert kinds[:2] == ["discard", "game_over"]
    assert table(g) == after
    assert g.result.winner == 0


def test_a_group_that_lay_on_the_table_is_no_new_claim():
    g = game("stein_plus", "R5 B5 Y5 K5", "R9")
    err = rejects(g, "claim 1", "claim.not_formed")
    assert error_text(err, "en").startswith("Meld 1 lay on the table like this")
    assert error_text(err, "de").startswith("Kombination 1 lag zu Beginn deines Zuges")


def test_one_joker_is_enough_for_a_game_with_jokers():
    assert has_jokers(ROMME.with_options(pool_jokers=1))
    with pytest.raises(RummyError) as info:
        refuse_jokers(RUMMY, cards("5S JK"), "JK")
    assert error_text(info.value, "en").startswith("JK: Rummy is played without jokers")


def test_a_card_discard_is_shown_to_everybody():
    g = CardGame.position(ROMME, "KS KH KD", ["5H 6H 9S", "9D 9D KS"], opened=(True, True))
    discard = g.apply(0, "discard 5H")[0]
    assert (discard.kind, discard.seat, discard.private) == ("discard", 0, False)
    assert event_text(discard, "en", g.players) == "P1 discards 5H."
    assert event_text(discard, "de", g.players) == "P1 legt 5H ab."
    assert discard.pieces == ("5H",)


def test_a_refused_swap_names_declared_and_undeclared_meanings():
    g = card_position("* * 9H 8D 2D 5H")
    g.apply(0, "meld * *=9S 9H")
    with pytest.raises(RummyError) as info:
        g.apply(0, "swap 1 8D")
    named = error_text(info.value, "en").split("stands for", 1)[1]
    assert "9S" in named and "9D" in named


def test_a_joker_is_refused_as_typed_by_default_star():
    with pytest.raises(RummyError) as info:
        refuse_jokers(RUMMY, cards("5S *"))
    assert error_text(info.value, "en").startswith("*: ")


def test_an_unused_freed_joker_is_said_to_be_where_it_lies():
    g = game("rummikub", "R4 R5 J | B7 B8 B9", "R6 B10 B11 K1")
    g.apply(0, "swap 1 R6")
    err = rejects(g, "done", "joker.freed_unused")
    assert error_text(err, "en").endswith(" (it is still on your rack).")
    assert error_text(err, "de").endswith(" (er liegt noch auf deiner Bank).")
    g.apply(0, "add 2 J")
    err = rejects(g, "done", "joker.freed_unused")
    assert error_text(err, "en").endswith(" (meld 2 holds no tile from your rack).")
    assert error_text(err, "de").endswith(" (Kombination 2 enthält keinen Stein von deiner Bank).")


def test_a_refused_table_discard_gives_the_reason_as_one_sentence():
    g = game("stein", "R1 R2 R3 R4 | B5 B6 B7", "R5")
    g.apply(0, "add 1 R5")
    err = rejects(g, "discard 1 R3", "turn.discard_breaks")
    assert error_text(err, "en").endswith("not enough jokers to fill it).")
    assert error_text(err, "de").endswith("zu wenige Joker).")


def test_a_refused_swap_names_the_meanings_in_german_too():
    g = game("stein", "R5 B5 J", "Y5 K5 B1")
    err = rejects(g, "swap 1 R5", "joker.wrong_piece")
    named = error_text(err, "de").split("er steht für", 1)[1]
    assert "Y5" in named and "K5" in named
    assert " or " not in named  # worded in German


def test_a_rack_joker_swapped_back_out_is_simply_unplayed():
    g = game("rummikub", "B9 B10 B11", "J R4 R5 R6 B1 B2 B3")
    g.apply(0, "meld R4 R5 J")
    g.apply(0, "swap 2 R6")  # the own joker goes back to the rack: it was never a table joker
    g.apply(0, "meld B1 B2 B3")
    g.apply(0, "done")
    assert table(g) == ["B9 B10 B11", "R4 R5 R6", "B1 B2 B3"]
    assert hand(g) == ["J"]
