"""Stein-Rummy (RULES.md "Preset stein", source text 000)."""

import pytest

from engine.game import new_game
from engine.rules import STEIN
from engine.scoring import stein_match_points
from engine.tiles import TileGame
from i18n import error_text

from .helpers import game, hand, rejects, table


def fresh(table_text, *hands, discards="", opened=(True,), **kw):
    """A Stein position before the mover has drawn."""
    return game(
        "stein", table_text, *hands, discards=discards, opened=opened, draws_done=False, **kw
    )


def test_deal_gives_14_tiles_and_one_joker_each():
    g = new_game(STEIN, ["a", "b", "c", "d"], seed=3)
    for seat in range(4):
        faces = g.rack(seat)
        assert len(faces) == 15
        assert sum(f.is_joker for f in faces) == 1
    assert len(g.pool) == 104 - 56
    assert not any(g.deck[i].is_joker for i in g.pool)


def test_joker_options():
    none = new_game(STEIN.with_options(jokers_per_player=0), ["a", "b", "c"], seed=1)
    assert not any(f.is_joker for s in range(3) for f in none.rack(s))
    pool = new_game(STEIN.with_options(jokers_per_player=0, pool_jokers=2), ["a", "b", "c"], 1)
    assert sum(pool.deck[i].is_joker for i in pool.all_piece_ids()) == 2


def test_player_counts():
    from engine.errors import RummyError

    with pytest.raises(RummyError) as info:
        new_game(STEIN, ["a", "b"], seed=1)
    assert info.value.code == "rules.players"
    casual = STEIN.with_options(min_players=2, ranked=False)
    assert new_game(casual, ["a", "b"], seed=1).status == "playing"


def test_must_draw_two_before_melding():
    g = fresh("", "R1 R2 R3 B9")
    rejects(g, "meld R1 R2 R3", "turn.draw_first")
    g.apply(0, "draw")
    rejects(g, "discard B9", "turn.draw_first")
    g.apply(0, "draw")
    rejects(g, "draw", "turn.draws_done")
    g.apply(0, "meld R1 R2 R3")
    assert table(g, working=True) == ["R1 R2 R3"]


def test_at_most_one_tile_from_the_discard_stock_any_tile():
    g = fresh("", "B9", discards="Y3 K4 R5")
    g.apply(0, "pick K4")  # any visible tile, not only the top
    assert "K4" in hand(g)
    rejects(g, "pick R5", "turn.one_pick")
    g.apply(0, "draw")
    assert g.draws_complete()


def test_pool_first_then_choose_second_tile():
    g = fresh("", "B9", discards="Y3")
    g.apply(0, "draw; pick Y3")
    assert g.draws_complete()


def test_top_only_option():
    rules = STEIN.with_options(pick_any_discard=False)
    g = TileGame.position(rules, "", ["B9"], discards="Y3 K4", draws_done=False)
    err = rejects(g, "pick Y3", "piece.not_top_discard")
    assert "K4" in error_text(err)
    g.apply(0, "pick K4")


def test_turn_ends_with_a_discard():
    g = game("stein", "", "R1 R2 R3 B9 B8", "Y1", "Y2")
    rejects(g, "meld R1 R2 R3; done", "turn.must_discard")
    g.apply(0, "meld R1 R2 R3; discard B9")
    assert g.current == 1
    assert [str(g.deck[i]) for i in g.discards] == ["B9"]


def test_opening_needs_a_meld_of_three_from_the_hand():
    g = game("stein", "R1 R2 R3", "R4 K5 K6 K7 B1", opened=(False,))
    rejects(g, "add 1 R4", "opening.table_locked")
    g.apply(0, "meld K5 K6 K7; discard B1")
    assert g.opened[0]


def test_discarding_without_opening_is_fine():
    g = game("stein", "", "B1 Y7", "Y1", "Y2", opened=(False,))
    g.apply(0, "discard Y7")
    assert not g.opened[0] and g.current == 1


def test_wrap_around_runs_on_the_table():
    g = game("stein", "R12 R13 R1", "R2 B5 B6")
    g.apply(0, "add 1 R2; discard B5")
    assert table(g) == ["R12 R13 R1 R2"]


def test_take_a_table_tile_with_the_own_joker():
    g = game("stein", "R4 R5 R6 R7", "J B1", "Y1", "Y2")
    g.apply(0, "take 1 R7")
    assert table(g, working=True) == ["R4 R5 R6 J"]
    assert "R7" in hand(g)
    g.apply(0, "discard B1")
    assert table(g) == ["R4 R5 R6 J"]


def test_take_needs_a_joker_in_hand():
    g = game("stein", "R4 R5 R6 R7", "B1")
    rejects(g, "take 1 R7", "joker.none_in_hand")


def test_run_joker_freed_goes_to_the_hand():
    g = game("stein", "R4 J R6", "R5 B1", "Y1", "Y2")
    g.apply(0, "swap 1 R5; discard B1")
    assert table(g) == ["R4 R5 R6"]
    assert hand(g) == ["J"]


def test_group_joker_freed_only_by_the_fourth_tile():
    g = game("stein", "R5 B5 J", "Y5 K5 B1")
    rejects(g, "swap 1 Y5", "joker.group_needs_fourth")
    g2 = game("stein", "R5 B5 Y5 J", "K5 B1")
    g2.apply(0, "swap 1 K5")
    assert table(g2, working=True) == ["B5 R5 Y5 K5"]
    assert "J" in hand(g2)


def test_group_joker_freed_by_both_missing_tiles():
    g = game("stein", "R5 B5 J", "Y5 K5 B1")
    g.apply(0, "swap 1 Y5 K5")
    assert table(g, working=True) == ["B5 R5 Y5 K5"]


def test_going_out_by_discarding_the_last_tile():
    g = game("stein", "R1 R2 R3", "R4 B9", "Y1 Y2", "K1", "K2 K3 K4")
    g.apply(0, "add 1 R4; discard B9")
    assert g.status == "finished" and g.result.winner == 0
    # 4 players: winner 4, K1 (1 tile) 3, Y1 Y2 (2) 2, K2 K3 K4 (3) 1
    assert g.result.points == [4, 2, 3, 1]


def test_going_out_by_melding_everything():
    g = game("stein", "", "R1 R2 R3", "Y1", "Y2")
    g.apply(0, "meld R1 R2 R3; done")
    assert g.status == "finished" and g.result.winner == 0


def test_tied_players_share_the_average():
    assert stein_match_points([0, 2, 2, 5], 0) == [4, 2.5, 2.5, 1]
    assert stein_match_points([0, 1, 1], 0) == [3, 1.5, 1.5]
    assert sum(stein_match_points([0, 3, 3, 3], 0)) == 10


@pytest.mark.parametrize(
    ("option", "expected"),
    [("split", [4, 2, 2, 2]), ("equal", [2.5, 2.5, 2.5, 2.5]), ("normal", [4, 3, 2, 1])],
)
def test_first_round_out(option, expected):
    assert stein_match_points([0, 1, 2, 3], 0, first_round_out=option, first_round=True) == expected


def test_first_round_detected_in_play():
    g = game("stein", "", "R1 R2 R3", "Y1", "Y2", round_no=0)
    g.apply(0, "meld R1 R2 R3; done")
    assert g.result.details["first_round"] is True
    assert g.result.points == [3, 1.5, 1.5]  # split: the others share 6 - 3 equally


def test_no_joker_stalemate_gives_everyone_the_same():
    rules = STEIN.with_options(jokers_per_player=0)
    g = TileGame.position(rules, "", ["B1", "B2", "B3"], discards="Y9", draws_done=False)
    g.pool.clear()
    for seat in range(3):
        top = g.deck[g.discards[-1]]
        g.apply(seat, f"pick {top}; discard {top}")
    assert g.status == "finished" and g.result.reason == "stalemate"
    assert g.result.points == [2, 2, 2]


def test_organiser_ends_game_scored_by_tiles_left():
    g = game("stein", "", "R1", "R2 R3", "R4 R5 R6")
    g.end("ended")
    assert g.result.reason == "ended" and g.result.points == [3, 2, 1]


def test_timeout_draws_and_discards_the_last_drawn_tile():
    g = fresh("R1 R2 R3", "R4 B9", "Y1", "Y2")
    g.apply(0, "draw")
    g.timeout()
    assert g.current == 1
    assert len(g.racks[0]) == 3  # 2 + 2 drawn - 1 discarded
    assert len(g.discards) == 1
