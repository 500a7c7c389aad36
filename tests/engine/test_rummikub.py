"""Rummikub, the 30-point tile game (RULES.md "Preset rummikub", source text 002)."""

from engine.game import load_game, new_game
from engine.rules import RUMMIKUB
from i18n import error_text
from rummy_tools.engine_cli import tile_turn

from .helpers import game, hand, rejects, table


def turn(table_text, hand_text, commands, opened=True):
    return tile_turn(RUMMIKUB, table_text, hand_text, opened, commands)


# The four manipulation examples of the source text ------------------------------------------


def test_example_1_lay_off_on_run_and_group():
    out = turn("R8 R9 R10 | R7 Y7 B7", "R7 R11 K7 B1", "add 1 R7 R11; add 2 K7; done")
    assert out["ok"], out
    assert out["table"] == [["R7", "R8", "R9", "R10", "R11"], ["B7", "R7", "Y7", "K7"]]


def test_example_2_inserting_a_duplicate_splits_the_run():
    out = turn("B2 B3 B4 B5 B6", "B4 R1", "add 1 B4; done")
    assert out["table"] == [["B2", "B3", "B4"], ["B4", "B5", "B6"]]
    assert out["hand"] == ["R1"]


def test_example_3_take_a_tile_after_laying_off():
    out = turn("K2 K3 K4", "K5 R2 B2 Y9", "add 1 K5; move 1 K2 > new; add 2 R2 B2; done")
    assert out["table"] == [["K3", "K4", "K5"], ["B2", "R2", "K2"]]


def test_example_4_new_group_from_run_and_group():
    out = turn(
        "B5 B6 B7 B8 | R5 B5 Y5 K5",
        "R5 Y1",
        "move 1 B5 > new; move 2 Y5 > 3; add 3 R5; done",
    )
    assert out["table"] == [["B6", "B7", "B8"], ["B5", "R5", "K5"], ["B5", "R5", "Y5"]]


# Opening ----------------------------------------------------------------------------------------


def test_opening_needs_30_from_the_rack():
    g = game("rummikub", "", "R10 R11 R12 B1 B2 B3", opened=(False,))
    err = rejects(g, "meld B1 B2 B3; done", "opening.below_minimum")
    assert "6 points" in error_text(err) and "30" in error_text(err)
    g.apply(0, "meld R10 R11 R12; done")
    assert g.opened[0]


def test_opening_may_combine_melds_and_counts_joker_value():
    g = game("rummikub", "", "R9 J R11 B3 Y3 K3 K1", opened=(False,))
    g.apply(0, "meld R9 J R11 | B3 Y3 K3; done")  # 30 + 9 = 39
    assert g.opened[0]


def test_no_table_tiles_before_opening():
    g = game("rummikub", "R1 R2 R3", "R4 B10 Y10 K10", opened=(False,))
    rejects(g, "add 1 R4", "opening.table_locked")
    rejects(g, "move 1 R1 > new", "opening.table_locked")


def test_option_may_add_after_reaching_30():
    rules = RUMMIKUB.with_options(opening_may_add_after_minimum=True)
    from engine.tiles import TileGame

    g = TileGame.position(rules, "R1 R2 R3", ["R4 B10 Y10 K10 Y1"], opened=[False])
    g.apply(0, "meld B10 Y10 K10; add 1 R4; done")
    assert table(g) == ["R1 R2 R3 R4", "B10 Y10 K10"]


def test_default_forbids_adding_even_after_30():
    g = game("rummikub", "R1 R2 R3", "R4 B10 Y10 K10 Y1", opened=(False,))
    rejects(g, "meld B10 Y10 K10; add 1 R4; done", "opening.table_locked")


# Turn structure -----------------------------------------------------------------------------------


def test_done_requires_a_played_tile():
    g = game("rummikub", "R1 R2 R3", "B5")
    rejects(g, "done", "turn.nothing_played")


def test_draw_ends_turn_and_cannot_follow_a_play():
    g = game("rummikub", "R1 R2 R3", "R4 B5", "Y1")
    rejects(g, "add 1 R4; draw", "turn.draw_after_play")
    pool = len(g.pool)
    g.apply(0, "draw")
    assert g.current == 1 and len(g.pool) == pool - 1 and len(g.racks[0]) == 3


def test_invalid_table_names_meld_and_fault():
    g = game("rummikub", "R1 R2 R3 R4", "R5 B9")
    err = rejects(g, "add 1 R5; split 1 R3; done", "turn.invalid_table")
    assert "Meld 1 (R1 R2)" in error_text(err) and "at least 3" in error_text(err)
    assert "Kombination 1 (R1 R2)" in error_text(err, "de")


def test_not_your_turn():
    g = game("rummikub", "", "R1", "R2")
    err = rejects(g, "draw", "turn.not_yours", seat=1)
    assert "P1" in error_text(err)


def test_undo_and_reset():
    g = game("rummikub", "R1 R2 R3", "R4 R5")
    g.apply(0, "add 1 R4")
    g.apply(0, "add 1 R5")
    assert table(g, working=True) == ["R1 R2 R3 R4 R5"]
    g.apply(0, "undo")
    assert table(g, working=True) == ["R1 R2 R3 R4"]
    g.apply(0, "reset")
    assert table(g, working=True) == ["R1 R2 R3"]
    assert hand(g) == ["R4", "R5"]
    g.apply(0, "undo")  # undo takes back the reset too, exactly
    assert table(g, working=True) == ["R1 R2 R3 R4"]
    g.apply(0, "undo")
    assert table(g, working=True) == ["R1 R2 R3"]
    rejects(g, "undo", "turn.nothing_to_undo")


# Jokers ------------------------------------------------------------------------------------------


def test_swapped_joker_must_go_into_a_new_meld_with_rack_tiles():
    g = game("rummikub", "R5 J R7", "R6 B9 Y9 K1")
    rejects(g, "swap 1 R6; done", "joker.freed_unused")
    g.apply(0, "swap 1 R6; meld B9 Y9 J; done")
    assert table(g) == ["R5 R6 R7", "B9 Y9 J"]
    assert hand(g) == ["K1"]


def test_swap_needs_the_tile_the_joker_stands_for():
    g = game("rummikub", "R5 J R7", "R8")
    err = rejects(g, "swap 1 R8", "joker.wrong_piece")
    assert "R6" in error_text(err)


def test_joker_meld_may_not_be_split_by_default():
    g = game("rummikub", "R1 R2 J R4 R5 R6", "B9")
    rejects(g, "split 1 R4", "joker.locked_meld")
    g2 = game("rummikub", "R1 R2 R3 R4 R5 R6", "B9")
    g2.apply(0, "split 1 R4")


def test_table_joker_cannot_be_moved_away():
    g = game("rummikub", "R1 R2 R3 J", "B9")
    rejects(g, "move 1 J > new", "joker.cannot_move")


# Time-out, end, scoring --------------------------------------------------------------------------


def test_timeout_restores_table_returns_tiles_and_draws_three():
    g = game("rummikub", "R1 R2 R3", "R4 B5", "Y1")
    g.apply(0, "add 1 R4")
    events = g.timeout()
    assert table(g) == ["R1 R2 R3"]
    assert len(g.racks[0]) == 5 and "R4" in hand(g, 0)
    assert g.current == 1
    assert any(e.kind == "penalty" for e in events)
    assert not any(e.private and e.seat != 0 for e in events)


def test_going_out_wins_and_scores_minus_points():
    g = game("rummikub", "R1 R2 R3", "R4", "B13 J", "Y2")
    g.apply(0, "add 1 R4; done")
    assert g.status == "finished"
    assert g.result.winner == 0
    assert g.result.points == [45.0, -43.0, -2.0]
    assert g.result.ranks == [1, 3, 2]


def test_pool_exhausted_ends_when_nobody_can_play():
    g = game("rummikub", "R1 R2 R3", "B9 B10", "Y1", "K13")
    g.pool.clear()
    g.apply(0, "draw")
    g.apply(1, "draw")
    assert g.status == "playing"
    g.apply(2, "draw")
    assert g.status == "finished" and g.result.reason == "stalemate"
    # lowest rack total (Y1) wins; zero-sum
    assert g.result.winner is None
    assert g.result.ranks[1] == 1
    assert sum(g.result.points) == 0


def test_start_player_by_highest_tile_and_deal():
    g = new_game(RUMMIKUB, ["a", "b", "c", "d"], seed=42)
    assert [len(r) for r in g.racks] == [14] * 4
    # 104 numbered tiles and 4 jokers (source text 002: "Die 4 Joker des Spiels")
    assert len(g.pool) == 108 - 56
    last_round = g.lot[len(g.lot) - sum(1 for _ in _last_round(g.lot)) :]
    best = max(g.deck[piece].rank for _, piece in last_round)
    assert [seat for seat, piece in last_round if g.deck[piece].rank == best] == [g.current]


def _last_round(lot):
    """The draws of the final round: the lot ends with one draw per remaining contender."""
    seats = []
    for seat, _ in reversed(lot):
        if seat in seats:
            break
        seats.append(seat)
    return seats


def test_same_seed_same_game_and_json_round_trip():
    a = new_game(RUMMIKUB, ["a", "b"], seed=7)
    b = new_game(RUMMIKUB, ["a", "b"], seed=7)
    assert a.to_json() == b.to_json()
    assert load_game(a.to_json()).to_json() == a.to_json()
    assert new_game(RUMMIKUB, ["a", "b"], seed=8).to_json() != a.to_json()


def test_two_joker_option():
    rules = RUMMIKUB.with_options(pool_jokers=2)
    g = new_game(rules, ["a", "b"], seed=1)
    assert len(g.all_piece_ids()) == 106
    assert sum(g.deck[i].is_joker for i in g.all_piece_ids()) == 2
