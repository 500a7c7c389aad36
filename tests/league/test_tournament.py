"""Stein-Rummy tournaments (RULES.md "Tournaments and ladder"; seed 000 "Turniere")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league import (
    LeagueError,
    Promotion,
    Tournament,
    award_game,
    choose_group,
    dumps,
    end_game_early,
    loads,
    move_players,
    neutralise_game,
    new_tournament,
    promote,
    record_game,
    register,
    seat_tables,
    set_groups,
    slow_player_award,
    standings,
    start_round,
    table_sizes,
)
from bot.league.tournament import round_loser, round_winner, table_average


def names(count: int) -> list[str]:
    return [f"p{i:02d}" for i in range(count)]


def play_round(t: Tournament, rng: random.Random) -> Tournament:
    """Enter random finished games at every table until the round is complete."""
    rnd = t.current_round
    assert rnd is not None
    for table in rnd.tables:
        for _ in table.seats:
            n = len(table.seats)
            winner = rng.randrange(n)
            tiles = [0 if seat == winner else rng.randint(1, 8) for seat in range(n)]
            t = record_game(t, table.number, tiles, winner)
    assert t.current_round is None
    return t


# --------------------------------------------------------------------------- seating


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        (3, [3]),
        (4, [4]),
        (6, [3, 3]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [3, 3, 3]),
        (10, [4, 3, 3]),
        (11, [4, 4, 3]),
        (12, [3, 3, 3, 3]),
        (13, [4, 3, 3, 3]),
    ],
)
def test_table_sizes_prefer_threes(count, sizes):
    assert table_sizes(count) == sizes
    tables = seat_tables(names(count))
    assert [len(table) for table in tables] == sizes
    assert [p for table in tables for p in table] == names(count)


@pytest.mark.parametrize(
    ("count", "code"),
    [
        (0, "tournament.too_few_players"),
        (2, "tournament.too_few_players"),
        (5, "tournament.cannot_seat"),
    ],
)
def test_unseatable_counts(count, code):
    with pytest.raises(LeagueError) as caught:
        table_sizes(count)
    assert caught.value.code == code


def test_seat_tables_rejects_duplicates():
    with pytest.raises(LeagueError) as caught:
        seat_tables(["a", "b", "a"])
    assert caught.value.code == "tournament.duplicate_player"


# --------------------------------------------------------------------------- rounds and movement


def test_round_winner_and_loser_tie_breaks():
    assert round_winner([5, 7, 7], [20, 10, 30]) == 2  # tournament MP breaks the tie
    assert round_winner([7, 7, 5], [10, 10, 0]) == 0  # then the lower seat
    assert round_loser([3, 3, 9], [20, 10, 0]) == 1
    assert round_loser([3, 3, 9], [10, 10, 0]) == 1  # then the higher seat


def test_movement_swaps_winner_up_and_loser_down():
    tables = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]
    round_mp = [[9, 4, 5], [3, 8, 7], [6, 5, 7]]
    moved = move_players(tables, round_mp, {})
    # a wins table 1 and takes the seat of d (last at table 2); d takes a's seat.
    # e wins table 2 and takes the seat of h (last at table 3); h takes e's seat.
    # i wins the top table and stays; b is last at table 1 and stays.
    assert moved == [["d", "b", "c"], ["a", "h", "f"], ["g", "e", "i"]]


def test_movement_keeps_four_and_three_tables():
    tables = [["a", "b", "c", "d"], ["e", "f", "g"]]
    moved = move_players(tables, [[1, 2, 3, 4], [5, 1, 3]], {})
    assert moved == [["a", "b", "c", "f"], ["e", "d", "g"]]


def test_full_round_flow_and_seed_percent():
    t = start_round(new_tournament("t1", ["a", "b", "c"]))
    table = t.current_round.tables[0]
    assert table.next_starter == "a"
    for _ in range(3):
        t = record_game(t, 1, [0, 2, 5], 0)
    rows = standings(t)
    # Seed 000: nine points from three games at a table of three are 100%.
    assert (rows[0].player_id, rows[0].mp, rows[0].max_mp, rows[0].percent) == ("a", 9, 9, 100)
    assert [g.starter for g in t.rounds[0].tables[0].games] == [0, 1, 2]
    with pytest.raises(LeagueError) as caught:
        record_game(t, 1, [0, 2, 5], 0)
    assert caught.value.code == "tournament.no_round"
    t2 = start_round(t)
    with pytest.raises(LeagueError) as caught:
        start_round(t2)
    assert caught.value.code == "tournament.round_open"
    with pytest.raises(LeagueError) as caught:
        record_game(t2, 2, [0, 2, 5], 0)
    assert caught.value.code == "tournament.unknown_table"


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=3, max_value=30).filter(lambda n: n != 5),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=1, max_value=4),
)
def test_movement_keeps_sizes_and_everybody_starts_once(count, seed, rounds):
    rng = random.Random(seed)
    players = names(count)
    t = new_tournament("t", players)
    for _ in range(rounds):
        previous = t.rounds[-1] if t.rounds else None
        t = start_round(t)
        rnd = t.rounds[-1]
        assert [len(table.seats) for table in rnd.tables] == table_sizes(count)
        seated = [p for table in rnd.tables for p in table.seats]
        assert sorted(seated) == sorted(players)
        if previous is not None:
            before = [table.seats for table in previous.tables]
            top = previous.tables[-1]
            top_mp = top.round_mp()
            totals = {}
            for row in standings(t):
                totals[row.player_id] = row.mp
            # the top table's round winner stays at the top table
            winner = top.seats[round_winner(top_mp, [totals[p] for p in top.seats])]
            assert winner in rnd.tables[-1].seats
            # everybody moves at most one table
            where = {p: i for i, table in enumerate(before) for p in table}
            for i, table in enumerate(rnd.tables):
                assert all(abs(where[p] - i) <= 1 for p in table.seats)
                changed = sum(1 for p in table.seats if where[p] != i)
                expected = (i > 0) + (i < len(rnd.tables) - 1)
                assert changed == expected
        t = play_round(t, rng)
        for table in t.rounds[-1].tables:
            n = len(table.seats)
            assert len(table.games) == n
            starters = [table.seats[game.starter] for game in table.games]
            assert sorted(starters) == sorted(table.seats)
            for game in table.games:
                assert sum(game.mp) == pytest.approx(n * (n + 1) / 2)
                assert game.max_mp == n
    rows = standings(t)
    assert sorted(row.player_id for row in rows) == sorted(players)
    for row in rows:
        assert 0 < row.percent <= 100
        assert row.max_mp == pytest.approx(
            sum(len(tb.seats) for tb in _tables_of(t, row.player_id))
        )
    assert [row.percent for row in rows] == sorted((row.percent for row in rows), reverse=True)
    assert Tournament.from_dict(loads(dumps(t.to_dict()))) == t


def _tables_of(t: Tournament, player: str):
    return [
        table
        for rnd in t.rounds
        for table in rnd.tables
        for _ in table.games
        if player in table.seats
    ]


# --------------------------------------------------------------------------- director actions


def test_end_game_early_scores_by_tiles_left_with_ties_averaged():
    t = start_round(new_tournament("t", ["a", "b", "c", "d"]))
    t = end_game_early(t, 1, [3, 3, 1, 6], note="time")
    game = t.rounds[0].tables[0].games[0]
    assert game.kind == "ended_early"
    assert game.mp == (2.5, 2.5, 4.0, 1.0)
    assert sum(game.mp) == 10
    assert game.max_mp == 4.0
    action = t.actions[-1]
    assert (action.kind, action.round, action.table, action.game) == ("end_early", 1, 1, 0)
    assert action.detail["tiles_left"] == [3, 3, 1, 6]


def test_award_equal_mp_and_one_less_for_the_slow_player():
    award = slow_player_award(3, slow=[1])
    assert award == [2.0, 1.0, 2.0]
    t = start_round(new_tournament("t", ["a", "b", "c"]))
    t = award_game(t, 1, award, note="b too slow")
    game = t.rounds[0].tables[0].games[0]
    assert (game.kind, game.mp, game.max_mp) == ("awarded", (2.0, 1.0, 2.0), 3.0)
    assert t.actions[-1].kind == "award"
    assert t.actions[-1].note == "b too slow"
    assert slow_player_award(4, [0, 3], base=3) == [2.0, 3.0, 3.0, 2.0]
    with pytest.raises(LeagueError) as caught:
        award_game(t, 1, [4, 1, 1])
    assert caught.value.code == "tournament.bad_award"
    with pytest.raises(LeagueError) as caught:
        award_game(t, 1, [1, 1])
    assert caught.value.code == "mp.length_mismatch"


def test_neutralise_enters_the_table_average():
    t = start_round(new_tournament("t", ["a", "b", "c", "d"]))
    t = neutralise_game(t, 1)
    first = t.rounds[0].tables[0].games[0]
    assert (first.kind, first.mp, first.max_mp) == ("neutralised", (2.5,) * 4, 4.0)
    t = record_game(t, 1, [0, 2, 2, 5], 0)
    t = neutralise_game(t, 1, minus_half=True, note="all slow")
    third = t.rounds[0].tables[0].games[2]
    assert third.mp == (2.0,) * 4
    assert t.actions[-1].detail == {"minus_half": True, "mp": 2.0}
    assert [a.kind for a in t.actions] == ["neutralise", "neutralise"]


def test_neutralise_in_stein_plus_uses_the_table_average_with_claims():
    t = start_round(new_tournament("t", ["a", "b", "c"], preset="stein_plus"))
    t = record_game(t, 1, [0, 2, 4], 0, claims=[1, 0, 2])
    table = t.rounds[0].tables[0]
    assert table.games[0].mp == (4.0, 2.0, 3.0)
    assert table.games[0].max_mp == 6.0
    assert table_average(table) == (3.0, 6.0)
    t = neutralise_game(t, 1)
    assert t.rounds[0].tables[0].games[1].mp == (3.0, 3.0, 3.0)
    assert t.rounds[0].tables[0].games[1].max_mp == 6.0


def test_claims_only_count_in_stein_plus():
    t = start_round(new_tournament("t", ["a", "b", "c"]))
    with pytest.raises(LeagueError) as caught:
        record_game(t, 1, [0, 2, 4], 0, claims=[1, 0, 0])
    assert caught.value.code == "tournament.bad_award"


def test_first_round_out_split():
    t = start_round(new_tournament("t", ["a", "b", "c", "d"]))
    t = record_game(t, 1, [0, 14, 14, 14], 3 - 3, first_round_out="split")
    assert t.rounds[0].tables[0].games[0].mp == (4.0, 2.0, 2.0, 2.0)


# --------------------------------------------------------------------------- strength groups


def test_groups_set_by_the_organiser_play_separately():
    t = new_tournament("t", names(7))
    t = set_groups(t, {"A": names(7)[:4], "B": names(7)[4:]}, note="by rating")
    t = start_round(t)
    tables = t.rounds[0].tables
    assert [(tb.number, tb.group, tb.seats) for tb in tables] == [
        (1, "A", tuple(names(7)[:4])),
        (2, "B", tuple(names(7)[4:])),
    ]
    assert t.actions[-1].kind == "set_groups"
    t = play_round(t, random.Random(1))
    t = start_round(t)
    # one table per group: nobody moves between groups
    assert [set(tb.seats) for tb in t.rounds[1].tables] == [set(tb.seats) for tb in tables]
    assert {row.group for row in standings(t, group="B")} == {"B"}
    with pytest.raises(LeagueError) as caught:
        set_groups(t, {"A": names(7)[:4], "B": names(7)[4:]})
    assert caught.value.code == "tournament.round_open"


def test_bad_groups():
    t = new_tournament("t", names(6))
    with pytest.raises(LeagueError) as caught:
        set_groups(t, {"A": names(6)[:3]})
    assert caught.value.code == "tournament.bad_groups"
    with pytest.raises(LeagueError) as caught:
        set_groups(t, {"A": names(6)[:4], "B": names(6)[3:]})
    assert caught.value.code == "tournament.bad_groups"
    with pytest.raises(LeagueError) as caught:
        set_groups(t, {"A": names(6)[:4], "B": names(6)[4:]})
    assert caught.value.code == "tournament.too_few_players"
    with pytest.raises(LeagueError) as caught:
        set_groups(t, {"A": names(6)[:5], "B": names(6)[5:]})
    assert caught.value.code == "tournament.cannot_seat"


def test_self_selected_groups():
    t = new_tournament("t")
    for player in ["a", "b", "c"]:
        t = register(t, player, group="strong")
    for player in ["d", "e", "f"]:
        t = register(t, player, group="casual")
    t = register(t, "g")  # no choice: the first group
    t = choose_group(t, "g", "casual")
    assert [(g.name, g.players) for g in t.groups] == [
        ("strong", ("a", "b", "c")),
        ("casual", ("d", "e", "f", "g")),
    ]
    t = start_round(t)
    assert [tb.group for tb in t.rounds[0].tables] == ["strong", "casual"]
    with pytest.raises(LeagueError) as caught:
        register(t, "h")
    assert caught.value.code == "tournament.started"


def test_promotion_after_k_rounds_into_a_winners_group():
    players = names(9)
    t = new_tournament("t", players, promotion=Promotion(after_rounds=2, sizes=(3, 6)))
    rng = random.Random(5)
    for _ in range(2):
        t = play_round(start_round(t), rng)
    best = [row.player_id for row in standings(t)]
    t = start_round(t)
    assert [g.name for g in t.groups] == ["winners", "group 2"]
    assert set(t.groups[0].players) == set(best[:3])
    assert t.actions[-1].kind == "promote"
    tables = t.rounds[2].tables
    assert [(tb.group, len(tb.seats)) for tb in tables] == [
        ("winners", 3),
        ("group 2", 3),
        ("group 2", 3),
    ]
    # within the others the strongest sit at the top table
    assert set(tables[2].seats) == set(best[3:6])
    t = play_round(t, rng)
    t = start_round(t)
    assert set(t.rounds[3].tables[0].seats) == set(best[:3])


def test_manual_promotion_checks_sizes():
    t = play_round(start_round(new_tournament("t", names(6))), random.Random(2))
    with pytest.raises(LeagueError) as caught:
        promote(t, [3, 4])
    assert caught.value.code == "tournament.bad_promotion"
    t = promote(t, [3, 3], ["top", "rest"])
    assert [g.name for g in t.groups] == ["top", "rest"]
    ranked = [row.player_id for row in standings(t)]
    assert t.groups[0].players == tuple(reversed(ranked[:3]))


# --------------------------------------------------------------------------- serialisation


def test_tournament_json_round_trip_is_byte_identical():
    t = new_tournament("t9", names(10), preset="stein_plus", promotion=Promotion(1, (4, 6)))
    rng = random.Random(3)
    t = play_round(start_round(t), rng)
    t = start_round(t)
    t = end_game_early(t, 1, [1, 1, 2, 3], claims=[0, 1, 0, 0])
    t = award_game(t, 2, [1, 1, 2])
    t = neutralise_game(t, 3, minus_half=True)
    text = dumps(t.to_dict())
    again = Tournament.from_dict(loads(text))
    assert again == t
    assert dumps(again.to_dict()) == text
    assert [row.to_dict() for row in standings(again)] == [row.to_dict() for row in standings(t)]
