"""Scores of finished tile games, pinned where mutation testing of engine/scoring.py found them
untested (issue 13, `make mutation`). Each figure is worked out from RULES.md: Stein MP (rank k of n
gets n+1-k, ties share, option ``first_round_out``), Stein Plus SMP 4/3/2/1 + one CMP per claim,
Rummikub rack values (joker 30) and the zero-sum lowest-rack win when nobody goes out.
"""

import pytest

from engine.pieces import parse_faces
from engine.rules import RUMMIKUB, STEIN, STEIN_PLUS
from engine.scoring import (
    competition_ranks,
    places_by_tiles_left,
    rack_value,
    rummikub_points,
    score_tile_game,
    stein_match_points,
    stein_plus_match_points,
)

# -- ranks ------------------------------------------------------------------------------------


def test_equal_scores_share_the_best_rank_of_their_block():
    assert competition_ranks([10, 5, 10]) == [1, 3, 1]
    assert competition_ranks([-5, 20, -15]) == [2, 1, 3]
    assert competition_ranks([3, 1, 3], higher_is_better=False) == [2, 1, 2]
    assert competition_ranks([7.5, 7.5, 7.5, 0]) == [1, 1, 1, 4]


def test_stein_places_the_winner_first_then_fewest_tiles_left():
    assert places_by_tiles_left([5, 0, 2, 5], winner=1) == [3, 1, 2, 3]
    assert places_by_tiles_left([0, 3, 3, 6], winner=0) == [1, 2, 2, 4]
    # the winner ranks first by right, not by counting tiles
    assert places_by_tiles_left([0, 0, 3], winner=1) == [2, 1, 3]
    assert stein_match_points([0, 0, 3], winner=1) == [2, 3, 1]
    assert stein_plus_match_points([0, 0, 3], 1, [0, 0, 0]) == [3, 4, 2]
    # a game ended early has no winner: fewest tiles first
    assert places_by_tiles_left([4, 2, 2, 9], winner=None) == [3, 1, 1, 4]


# -- Stein match points -----------------------------------------------------------------------


def test_stein_rank_k_of_n_gets_n_plus_one_minus_k():
    assert stein_match_points([0, 2, 5, 7], 0) == [4, 3, 2, 1]
    assert stein_match_points([4, 0, 1], 1) == [1, 3, 2]
    assert stein_match_points([3, 0], 1) == [1, 2]


def test_stein_players_tied_on_tiles_share_the_average_of_their_places():
    assert stein_match_points([0, 3, 3, 6], 0) == [4, 2.5, 2.5, 1]
    assert stein_match_points([0, 3, 3, 3], 0) == [4, 2, 2, 2]
    assert stein_match_points([4, 2, 2, 9], None) == [2, 3.5, 3.5, 1]


@pytest.mark.parametrize("rule", ["split", "equal", "normal"])
def test_first_round_out_applies_only_in_the_first_round(rule):
    assert stein_match_points([0, 2, 5, 7], 0, first_round_out=rule) == [4, 3, 2, 1]
    assert stein_match_points([0, 2, 5, 7], 0, first_round_out=rule, first_round=False) == [
        4,
        3,
        2,
        1,
    ]


def test_first_round_out_split_gives_the_winner_full_mp_and_the_rest_shares():
    # four players: 10 MP in all, the winner 4, the other three share 6
    assert stein_match_points([5, 0, 2, 7], 1, first_round_out="split", first_round=True) == [
        2,
        4,
        2,
        2,
    ]
    assert stein_match_points([0, 2, 5], 0, first_round_out="split", first_round=True) == [
        3,
        1.5,
        1.5,
    ]


def test_first_round_out_equal_gives_everybody_the_same():
    assert (
        stein_match_points([0, 2, 5, 7], 0, first_round_out="equal", first_round=True) == [2.5] * 4
    )
    assert stein_match_points([2, 0, 5], 1, first_round_out="equal", first_round=True) == [2] * 3


def test_first_round_out_normal_scores_as_usual():
    assert stein_match_points([0, 2, 5, 7], 0, first_round_out="normal", first_round=True) == [
        4,
        3,
        2,
        1,
    ]


def test_a_game_ended_in_the_first_round_without_a_winner_is_scored_by_tiles():
    assert stein_match_points([4, 2, 2, 9], None, first_round_out="split", first_round=True) == [
        2,
        3.5,
        3.5,
        1,
    ]


# -- Stein Plus -------------------------------------------------------------------------------


def test_stein_plus_smp_is_4_3_2_1_for_any_number_of_players_plus_one_per_claim():
    assert stein_plus_match_points([0, 2, 5, 7], 0, [1, 0, 2, 0]) == [5, 3, 4, 1]
    assert stein_plus_match_points([0, 3, 1], 0, [0, 0, 0]) == [4, 2, 3]
    assert stein_plus_match_points([6, 0, 3], 1, [0, 1, 1]) == [2, 5, 4]


def test_stein_plus_ties_share_and_claims_add_on_top():
    assert stein_plus_match_points([0, 3, 3, 6], 0, [0, 1, 0, 0]) == [4, 3.5, 2.5, 1]


def test_stein_plus_without_a_winner_nobody_earns_the_empty_hand_four():
    assert stein_plus_match_points([3, 1, 5], None, [0, 0, 1]) == [2, 3, 2]


def test_stein_plus_first_round_split_and_equal():
    # SMP 4 + 3 + 2 = 9 with three players: split gives the winner 4, the others 2.5
    assert stein_plus_match_points(
        [0, 2, 5], 0, [0, 0, 0], first_round_out="split", first_round=True
    ) == [4, 2.5, 2.5]
    assert stein_plus_match_points(
        [0, 2, 5], 0, [1, 0, 0], first_round_out="equal", first_round=True
    ) == [4, 3, 3]


@pytest.mark.parametrize("rule", ["split", "equal"])
def test_stein_plus_first_round_out_applies_only_in_the_first_round(rule):
    assert stein_plus_match_points([0, 2, 5], 0, [0, 0, 0], first_round_out=rule) == [4, 3, 2]


def test_stein_plus_claims_must_match_the_players():
    with pytest.raises(ValueError):
        stein_plus_match_points([0, 2, 5], 0, [0, 0])


# -- Rummikub ---------------------------------------------------------------------------------


def test_a_rack_is_worth_its_face_values_and_a_joker_30():
    assert rack_value(parse_faces("R5 J K13")) == 48
    assert rack_value(parse_faces("R5 J K13"), joker_penalty=20) == 38
    assert rack_value([]) == 0


def test_rummikub_winner_scores_the_sum_of_the_others_racks():
    assert rummikub_points([0, 10, 25], 0) == [35, -10, -25]
    assert rummikub_points([7, 0, 3, 12], 1) == [-7, 22, -3, -12]


def test_rummikub_without_a_winner_the_lowest_rack_wins_and_points_add_to_zero():
    points = rummikub_points([12, 5, 5, 20], None)
    assert points == [-7, 11, 11, -15]
    assert sum(points) == 0
    assert rummikub_points([9, 4, 6], None) == [-5, 7, -2]


# -- one entry point for every tile preset ----------------------------------------------------


def test_score_tile_game_rummikub_counts_rack_values_with_jokers_30():
    lefts = [[], parse_faces("R10 J"), parse_faces("B1 B2")]
    assert score_tile_game(RUMMIKUB, lefts, 0) == [43, -40, -3]
    assert score_tile_game(RUMMIKUB, [parse_faces("R1"), parse_faces("J")], None) == [29, -29]


def test_score_tile_game_stein_counts_tiles_left_a_joker_as_one():
    lefts = [parse_faces("R1 R2"), [], parse_faces("J"), parse_faces("K5 K6 K7")]
    assert score_tile_game(STEIN, lefts, 1) == [2, 4, 3, 1]
    # Stein's preset splits a first-round win
    assert score_tile_game(STEIN, lefts, 1, first_round=True) == [2, 4, 2, 2]


def test_score_tile_game_stein_plus_adds_claims():
    lefts = [parse_faces("R1 R2"), [], parse_faces("J"), parse_faces("K5 K6 K7")]
    assert score_tile_game(STEIN_PLUS, lefts, 1) == [2, 4, 3, 1]
    assert score_tile_game(STEIN_PLUS, lefts, 1, claims=[1, 0, 0, 2]) == [3, 4, 3, 3]
    assert score_tile_game(STEIN_PLUS, lefts, 1, first_round=True) == [2, 4, 2, 2]


def test_first_round_out_with_two_casual_players():
    assert stein_match_points([0, 4], 0, first_round_out="equal", first_round=True) == [1.5, 1.5]
    assert stein_match_points([0, 4], 0, first_round_out="split", first_round=True) == [2, 1]


def test_the_rack_value_of_a_joker_is_the_rule_sets():
    lefts = [[], parse_faces("J R2")]
    assert score_tile_game(RUMMIKUB.with_options(joker_penalty=25), lefts, 0) == [27, -27]
