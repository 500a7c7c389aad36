"""Rule checks of the tile and card games, pinned where mutation testing found them untested
(issue 13, `make mutation`): card penalties and points (RULES.md "Preset romme", "Preset rummy"),
runs laid in order, opening minimums, and the end-of-turn checks of the tile games.
"""

import pytest

from engine.cards import (
    has_jokers,
    refuse_jokers,
    romme_card_penalty,
    romme_hand_penalty,
    romme_penalties,
    rummy_card_points,
    rummy_points,
    run_start,
    strike_points,
)
from engine.errors import RummyError
from engine.pieces import parse_faces
from engine.rules import ROMME, RUMMY


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
