"""Ladder, ratings, seasons and how each preset feeds the ladder (RULES.md "Tournaments and
ladder", seed 000 "Turniere")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from bot.league import (
    GameMeta,
    GameResult,
    Ladder,
    LeagueError,
    PlayerResult,
    RummyMatch,
    Season,
    Sitting,
    compute_ladder,
    current_season,
    dumps,
    end_season,
    first_round_out_mp,
    loads,
    place_points,
    result_from_romme,
    result_from_rummikub,
    result_from_rummy_match,
    result_from_scores,
    result_from_stein,
    rummy_hand_points,
    season_ladder,
    select_results,
    start_season,
    stein_mp,
)
from engine.settlement import settle


def meta(game_id: str, minute: int = 0, season: int = 1, guild: str = "g1") -> GameMeta:
    return GameMeta(
        game_id=game_id,
        guild_id=guild,
        season=season,
        finished_at=f"2024-05-01T10:{minute:02d}:00+00:00",
    )


def stein(game_id, players, tiles, winner, minute=0, claims=None, preset="stein"):
    return result_from_stein(
        meta(game_id, minute), players, tiles, winner, claims=claims, preset=preset
    )


# --------------------------------------------------------------------------- match points


def test_stein_mp_four_and_three_players():
    assert stein_mp([0, 2, 5, 9], 0) == [4.0, 3.0, 2.0, 1.0]
    assert stein_mp([4, 0, 1], 1) == [1.0, 3.0, 2.0]


def test_stein_mp_ties_share_the_average():
    # RULES.md: "2.5 each with four players"
    assert stein_mp([0, 3, 3, 7], 0) == [4.0, 2.5, 2.5, 1.0]
    assert stein_mp([0, 3, 3, 3], 0) == [4.0, 2.0, 2.0, 2.0]


def test_stein_mp_winner_beats_a_seat_with_zero_tiles():
    assert stein_mp([0, 0, 4], 0) == [3.0, 2.0, 1.0]


def test_stein_mp_ended_early_has_no_winner():
    assert stein_mp([2, 2, 2, 2], None) == [2.5, 2.5, 2.5, 2.5]
    assert stein_mp([1, 1, 6], None) == [2.5, 2.5, 1.0]


@pytest.mark.parametrize(
    ("tiles", "winner", "code"),
    [
        ([0, 3, 4], 3, "mp.bad_winner"),
        ([1, 3, 4], 0, "mp.winner_has_tiles"),
        ([0, -1, 4], 0, "mp.negative"),
        ([0], 0, "mp.too_few_players"),
    ],
)
def test_stein_mp_errors(tiles, winner, code):
    with pytest.raises(LeagueError) as caught:
        stein_mp(tiles, winner)
    assert caught.value.code == code


@given(
    st.lists(st.integers(min_value=0, max_value=15), min_size=2, max_size=6),
    st.data(),
)
def test_stein_mp_sums_to_n_n_plus_1_over_2(tiles, data):
    winner = data.draw(st.one_of(st.none(), st.integers(0, len(tiles) - 1)))
    if winner is not None:
        tiles = [0 if seat == winner else t for seat, t in enumerate(tiles)]
    n = len(tiles)
    mp = stein_mp(tiles, winner)
    assert sum(mp) == pytest.approx(n * (n + 1) / 2)
    assert all(1 <= value <= n for value in mp)
    if winner is not None:
        assert mp[winner] == n
    for a in range(n):
        for b in range(n):
            if tiles[a] == tiles[b] and winner not in (a, b):
                assert mp[a] == mp[b]


def test_first_round_out_policies():
    assert first_round_out_mp(4, 2, "split") == [2.0, 2.0, 4.0, 2.0]
    assert first_round_out_mp(3, 0, "split") == [3.0, 1.5, 1.5]
    assert first_round_out_mp(4, 0, "equal") == [2.5] * 4
    with pytest.raises(LeagueError) as caught:
        first_round_out_mp(4, 0, "nobody")
    assert caught.value.code == "mp.bad_policy"


# --------------------------------------------------------------------------- presets


def test_stein_result_fields():
    result = stein("s1", ["a", "b", "c", "d"], [0, 3, 3, 7], 0)
    lines = {line.player_id: line for line in result.players}
    assert [line.mp for line in result.players] == [4.0, 2.5, 2.5, 1.0]
    assert [line.rank for line in result.players] == [1, 2, 2, 4]
    assert [line.won for line in result.players] == [True, False, False, False]
    assert {line.max_mp for line in result.players} == {4.0}
    assert lines["d"].points == 7.0
    assert result.preset == "stein"


def test_stein_plus_claims_add_to_mp_and_to_the_maximum():
    result = stein(
        "p1", ["a", "b", "c", "d"], [0, 2, 5, 8], 0, claims=[0, 2, 0, 1], preset="stein_plus"
    )
    mp = [line.mp for line in result.players]
    assert mp == [4.0, 5.0, 2.0, 2.0]
    assert sum(mp) == 10 + 3
    assert {line.max_mp for line in result.players} == {7.0}
    # seed 000 Plus: "die Summe aus SMP und CMP gewinnt das Spiel"
    assert [line.rank for line in result.players] == [2, 1, 3, 3]
    assert [line.won for line in result.players] == [False, True, False, False]


def test_stein_plus_scores_four_three_two_with_three_players():
    """RULES.md Stein Plus: empty hand 4 SMP, then 3, 2, 1 by fewest tiles, for any number of
    players (plain Stein keeps n+1-k); the most a player can earn is 4 + the claims."""
    result = stein("p3", ["a", "b", "c"], [0, 6, 2], 0, claims=[1, 0, 0], preset="stein_plus")
    assert [line.mp for line in result.players] == [5.0, 2.0, 3.0]
    assert {line.max_mp for line in result.players} == {5.0}
    assert all(0 <= line.mp <= line.max_mp for line in result.players)
    plain = stein("s3", ["a", "b", "c"], [0, 6, 2], 0)
    assert [line.mp for line in plain.players] == [3.0, 1.0, 2.0]
    tied = stein("p3t", ["a", "b", "c"], [0, 4, 4], 0, preset="stein_plus")
    assert [line.mp for line in tied.players] == [4.0, 2.5, 2.5]


def test_rummikub_uses_place_mp_and_keeps_signed_points():
    result = result_from_rummikub(meta("r1"), ["a", "b", "c"], [57, -30, -27])
    assert [line.mp for line in result.players] == [3.0, 1.0, 2.0]
    assert [line.points for line in result.players] == [57.0, -30.0, -27.0]
    assert [line.rank for line in result.players] == [1, 3, 2]
    assert {line.max_mp for line in result.players} == {3.0}


def test_rummikub_pool_out_tie_shares():
    result = result_from_rummikub(meta("r2"), ["a", "b", "c", "d"], [-5, -5, -20, -9])
    assert [line.mp for line in result.players] == [3.5, 3.5, 1.0, 2.0]
    assert [line.won for line in result.players] == [True, True, False, False]


def test_romme_game_ranked_by_penalty():
    result = result_from_romme(meta("m1"), ["a", "b", "c", "d"], [80, 220, 0, 350])
    assert [line.mp for line in result.players] == [3.0, 2.0, 4.0, 1.0]
    assert [line.rank for line in result.players] == [2, 3, 1, 4]
    assert [line.won for line in result.players] == [False, False, True, False]


def test_sitting_accumulates_and_settles_like_the_seed():
    sitting = Sitting(players=("A", "B", "C", "D"))
    sitting = sitting.add_game([30, 100, 0, 150])
    sitting = sitting.add_game([50, 120, 0, 200])
    assert sitting.totals == [80, 220, 0, 350]
    assert sitting.settlement.to_dict() == settle(["A", "B", "C", "D"], [80, 220, 0, 350]).to_dict()
    assert sitting.settlement.balances == {"A": 330, "B": -230, "C": 650, "D": -750}
    first = sitting.game_result(0, meta("m1"))
    assert [line.mp for line in first.players] == [3.0, 2.0, 4.0, 1.0]
    with pytest.raises(LeagueError) as caught:
        sitting.game_result(2, meta("m3"))
    assert caught.value.code == "sitting.no_game"


def test_sitting_is_immutable_and_strike_never_goes_below_zero():
    empty = Sitting(players=("A", "B"))
    one = empty.add_game([0, 40])
    assert empty.totals == [0, 0]
    two = one.add_game([15, 0], winner=1, strike=10)
    assert two.totals == [15, 30]  # variant i: 10 struck off B's earlier 40
    three = two.add_game([0, 5], winner=0, strike=20)
    assert three.totals == [0, 35]  # A only had 15 to strike
    assert Sitting.from_dict(loads(dumps(three.to_dict()))) == three


def test_sitting_player_count():
    with pytest.raises(LeagueError) as caught:
        Sitting(players=("A",))
    assert caught.value.code == "sitting.player_count"


def test_rummy_match_targets_and_only_the_winner_counts():
    assert RummyMatch(("a", "b")).target == 100
    assert RummyMatch(("a", "b", "c")).target == 150
    assert RummyMatch(("a", "b", "c", "d")).target == 200
    match = RummyMatch(("a", "b", "c"))
    match = match.add_hand(1, rummy_hand_points([20, 35]))
    match = match.add_draw()
    match = match.add_hand(0, rummy_hand_points([30, 25], went_rummy=True))
    assert match.totals == [110, 55, 0]
    assert match.winner is None
    with pytest.raises(LeagueError) as caught:
        result_from_rummy_match(meta("x"), match)
    assert caught.value.code == "rummy.match_not_over"
    match = match.add_hand(0, 40)
    assert match.winner == "a"
    assert match.finished
    with pytest.raises(LeagueError) as caught:
        match.add_hand(1, 10)
    assert caught.value.code == "rummy.match_over"
    result = result_from_scores("rummy", meta("x"), [], {"match": match})
    assert [
        (line.player_id, line.mp, line.max_mp, line.rank, line.won) for line in result.players
    ] == [
        ("a", 1.0, 1.0, 1, True),
        ("b", 0.0, 1.0, 2, False),
        ("c", 0.0, 1.0, 2, False),
    ]
    assert [line.points for line in result.players] == [150.0, 55.0, 0.0]
    assert RummyMatch.from_dict(loads(dumps(match.to_dict()))) == match


def test_result_from_scores_dispatch_and_errors():
    players = ["a", "b", "c"]
    via = result_from_scores("stein", meta("s"), players, {"tiles_left": [0, 1, 2], "winner": 0})
    assert via == stein("s", players, [0, 1, 2], 0)
    via = result_from_scores("romme", meta("m"), players, {"penalties": [0, 10, 10]})
    assert [line.mp for line in via.players] == [3.0, 1.5, 1.5]
    with pytest.raises(LeagueError) as caught:
        result_from_scores("rummikub", meta("r"), players, {})
    assert caught.value.code == "result.missing_score"
    with pytest.raises(LeagueError) as caught:
        result_from_scores("poker", meta("r"), players, {})
    assert caught.value.code == "result.unknown_preset"


def test_game_result_validation():
    line = PlayerResult("a", 1, 1, 3, True)
    with pytest.raises(LeagueError) as caught:
        GameResult("g", "x", "stein", 1, "2024-01-01T00:00:00", (line,))
    assert caught.value.code == "result.too_few_players"
    with pytest.raises(LeagueError) as caught:
        GameResult("g", "x", "stein", 1, "yesterday", (line, PlayerResult("b", 1, 2, 3, False)))
    assert caught.value.code == "result.bad_timestamp"
    with pytest.raises(LeagueError) as caught:
        GameResult("g", "x", "stein", 1, "2024-01-01", (line, PlayerResult("b", 4, 2, 3, False)))
    assert caught.value.code == "result.bad_mp"
    with pytest.raises(LeagueError) as caught:
        GameResult("g", "x", "stein", 1, "2024-01-01", (line, PlayerResult("a", 1, 2, 3, False)))
    assert caught.value.code == "result.duplicate_player"


# --------------------------------------------------------------------------- ladder


def test_percent_seed_example():
    """Seed 000: three games at a table of three, all won: 9 of 9 = 100%."""
    players = ["a", "b", "c"]
    results = [stein(f"g{i}", players, [0, 2, 4], 0, minute=i) for i in range(3)]
    ladder = compute_ladder(results)
    assert ladder.row("a").mp == 9.0
    assert ladder.row("a").max_mp == 9.0
    assert ladder.row("a").percent == 100.0
    assert ladder.row("b").percent == pytest.approx(200 / 3)
    assert ladder.row("c").percent == pytest.approx(100 / 3)
    assert [row.player_id for row in ladder.rows] == ["a", "b", "c"]
    assert [row.position for row in ladder.rows] == [1, 2, 3]
    assert ladder.row("a").wins == 3
    assert ladder.row("b").wins == 0


def test_percent_across_table_sizes():
    results = [
        stein("g1", ["a", "b", "c", "d"], [0, 1, 2, 3], 3 - 3, minute=1),  # a: 4 of 4
        stein("g2", ["a", "b", "c"], [5, 0, 2], 1, minute=2),  # a: 1 of 3
    ]
    assert compute_ladder(results).row("a").percent == pytest.approx(5 / 7 * 100)


def test_ratings_match_openskill_directly():
    results = [
        stein("g1", ["a", "b", "c", "d"], [0, 3, 3, 7], 0, minute=1),
        stein("g2", ["b", "c", "a"], [2, 0, 5], 1, minute=2),
    ]
    ladder = compute_ladder(results)

    model = PlackettLuce()
    r = {p: model.rating() for p in "abcd"}
    out = model.rate([[r["a"]], [r["b"]], [r["c"]], [r["d"]]], ranks=[1.0, 2.0, 2.0, 4.0])
    for p, team in zip("abcd", out, strict=True):
        r[p] = team[0]
    out = model.rate([[r["b"]], [r["c"]], [r["a"]]], ranks=[2.0, 1.0, 3.0])
    for p, team in zip("bca", out, strict=True):
        r[p] = team[0]

    for p in "abcd":
        row = ladder.row(p)
        assert row.mu == pytest.approx(r[p].mu, abs=1e-12)
        assert row.sigma == pytest.approx(r[p].sigma, abs=1e-12)
        assert row.rating == pytest.approx(r[p].ordinal(), abs=1e-12)
        assert row.rating == pytest.approx(r[p].mu - 3 * r[p].sigma, abs=1e-12)


def test_rating_direction_winner_up_loser_down():
    ladder = compute_ladder([stein("g1", ["a", "b", "c"], [0, 2, 6], 0)])
    fresh = PlackettLuce().rating()
    assert ladder.row("a").mu > fresh.mu
    assert ladder.row("c").mu < fresh.mu
    assert ladder.row("a").rating > ladder.row("b").rating > ladder.row("c").rating
    assert ladder.row("a").trend > 0
    assert ladder.row("c").trend < ladder.row("a").trend


def test_tie_between_equals_leaves_mu_equal():
    ladder = compute_ladder([stein("g1", ["a", "b", "c", "d"], [0, 4, 4, 9], 0)])
    assert ladder.row("b").mu == ladder.row("c").mu
    assert ladder.row("b").sigma == ladder.row("c").sigma
    draw = compute_ladder([result_from_rummikub(meta("r"), ["x", "y"], [-5, -5])])
    assert draw.row("x").mu == pytest.approx(PlackettLuce().mu)
    assert draw.row("x").mu == draw.row("y").mu


def random_results(seed: int, count: int) -> list[GameResult]:
    rng = random.Random(seed)
    pool = ["ann", "bob", "cid", "dee", "eve", "fay"]
    results = []
    for i in range(count):
        players = rng.sample(pool, rng.choice([3, 4]))
        winner = rng.randrange(len(players))
        tiles = [0 if s == winner else rng.randint(0, 9) for s in range(len(players))]
        results.append(stein(f"g{i:03d}", players, tiles, winner, minute=rng.randint(0, 59)))
    return results


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 14), st.data())
def test_voiding_equals_never_played(seed, count, data):
    results = random_results(seed, count)
    voided = data.draw(st.sets(st.sampled_from([r.game_id for r in results]), max_size=3))
    kept = [r for r in results if r.game_id not in voided]
    with_void = compute_ladder(results, voided=voided, min_games=2)
    without = compute_ladder(kept, min_games=2)
    assert with_void.rows == without.rows
    assert with_void.histories == without.histories
    assert with_void.games == without.games
    assert set(with_void.voided) == voided


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_ladder_does_not_depend_on_input_order(seed, rnd):
    results = random_results(seed, 10)
    shuffled = list(results)
    rnd.shuffle(shuffled)
    assert dumps(compute_ladder(results).to_dict()) == dumps(compute_ladder(shuffled).to_dict())


def test_replay_order_is_finish_time_then_game_id():
    late = stein("a-late", ["a", "b", "c"], [0, 1, 2], 0, minute=30)
    early = stein("z-early", ["a", "b", "c"], [2, 0, 1], 1, minute=5)
    same_time = stein("b-same", ["a", "b", "c"], [1, 2, 0], 2, minute=30)
    ladder = compute_ladder([late, same_time, early])
    assert ladder.games == ("z-early", "a-late", "b-same")
    assert [entry.game_id for entry in ladder.history("a")] == ["z-early", "a-late", "b-same"]


def test_duplicate_game_is_an_error():
    game = stein("g1", ["a", "b", "c"], [0, 1, 2], 0)
    with pytest.raises(LeagueError) as caught:
        compute_ladder([game, game])
    assert caught.value.code == "ladder.duplicate_game"


def test_min_games_lists_newcomers_after():
    results = [
        stein("g1", ["a", "b", "c"], [0, 5, 6], 0, minute=1),
        stein("g2", ["a", "b", "d"], [4, 6, 0], 2, minute=2),
    ]
    ladder = compute_ladder(results, min_games=2)
    assert [(row.player_id, row.position, row.qualified) for row in ladder.rows] == [
        ("a", 1, True),
        ("b", 2, True),
        ("d", None, False),
        ("c", None, False),
    ]
    assert ladder.row("d").percent == 100.0


def test_order_by_rating():
    results = [
        stein("g1", ["a", "b", "c"], [0, 5, 6], 0, minute=1),
        stein("g2", ["a", "b", "c"], [4, 0, 6], 1, minute=2),
        stein("g3", ["a", "b", "c"], [0, 5, 6], 0, minute=3),
        stein("g4", ["d", "b", "c"], [0, 5, 6], 0, minute=4),
    ]
    by_rating = compute_ladder(results, order="rating")
    ratings = [row.rating for row in by_rating.rows]
    assert ratings == sorted(ratings, reverse=True)
    by_percent = compute_ladder(results)
    assert by_percent.rows[0].player_id == "d"  # 100% in one game, a has 8 of 9
    assert by_rating.rows[0].player_id == "a"  # two wins and a second beat one win
    assert by_rating.row("a").rating > by_rating.row("d").rating
    with pytest.raises(LeagueError) as caught:
        compute_ladder(results, order="alphabet")
    assert caught.value.code == "ladder.bad_order"


def test_history_and_trend():
    results = [
        stein("g1", ["a", "b", "c"], [0, 5, 6], 0, minute=1),
        stein("g2", ["a", "b", "c"], [6, 0, 5], 1, minute=2),
        stein("g3", ["a", "b", "c"], [5, 6, 0], 2, minute=3),
    ]
    ladder = compute_ladder(results, trend_games=2)
    history = ladder.history("a")
    assert [entry.mp for entry in history] == [3.0, 1.0, 2.0]
    assert [entry.games for entry in history] == [1, 2, 3]
    assert [entry.percent for entry in history] == pytest.approx([100.0, 400 / 6, 600 / 9])
    assert history[0].rating_change == pytest.approx(history[0].rating - 0.0, abs=1e-9)
    assert ladder.row("a").trend == pytest.approx(history[2].rating - history[0].rating)
    one = compute_ladder(results)
    assert one.row("a").trend == pytest.approx(history[2].rating_change)
    chart = ladder.rating_history("a")
    assert [(p.game_id, p.rating) for p in chart] == [(e.game_id, e.rating) for e in history]
    with pytest.raises(LeagueError) as caught:
        ladder.history("nobody")
    assert caught.value.code == "ladder.unknown_player"


def test_ladder_json_round_trip_is_byte_identical():
    romme = result_from_romme(meta("m1", 59), ["ann", "bob"], [0, 35])
    results = [*random_results(7, 8), romme]
    ladder = compute_ladder(results, min_games=3, trend_games=3)
    text = dumps(ladder.to_dict())
    again = Ladder.from_dict(loads(text))
    assert again == ladder
    assert dumps(again.to_dict()) == text
    for result in results:
        line = dumps(result.to_dict())
        assert dumps(GameResult.from_dict(loads(line)).to_dict()) == line
        assert GameResult.from_dict(loads(line)) == result


# --------------------------------------------------------------------------- seasons


def test_seasons_start_end_and_archived_ladder():
    first = start_season([], guild_id="g1", preset="stein", at="2024-01-01T00:00:00+00:00")
    assert first.ended is None
    s1 = first.started
    assert (s1.number, s1.archived, s1.title) == (1, False, "Season 1")
    second = start_season([s1], guild_id="g1", preset="stein", at="2024-06-01T00:00:00+00:00")
    assert second.ended == end_season(s1, "2024-06-01T00:00:00+00:00")
    assert second.ended.archived
    s2 = second.started
    assert s2.number == 2
    other_preset = start_season([s1, s2], guild_id="g1", preset="romme", at="2024-06-02")
    assert other_preset.started.number == 1 and other_preset.ended is None
    seasons = [second.ended, s2, other_preset.started]
    assert current_season(seasons, "g1", "stein") == s2

    old = [stein("o1", ["a", "b", "c"], [0, 1, 2], 0, minute=1)]
    new = [
        result_from_stein(meta("n1", 2, season=2), ["a", "b", "c"], [2, 1, 0], 2),
        result_from_stein(meta("x1", 3, season=2, guild="g2"), ["a", "b", "c"], [0, 1, 2], 0),
    ]
    archived = season_ladder(old + new, second.ended)
    assert archived.games == ("o1",)
    assert archived.row("a").percent == 100.0
    assert season_ladder(old + new, s2).games == ("n1",)
    assert [r.game_id for r in select_results(old + new, guild_id="g1", season=2)] == ["n1"]
    for season in seasons:
        assert Season.from_dict(loads(dumps(season.to_dict()))) == season


def test_season_errors():
    s1 = Season("g", "stein", 1, "2024-05-01T00:00:00+00:00")
    ended = end_season(s1, "2024-05-02T00:00:00+00:00")
    with pytest.raises(LeagueError) as caught:
        end_season(ended, "2024-05-03T00:00:00+00:00")
    assert caught.value.code == "season.already_ended"
    with pytest.raises(LeagueError) as caught:
        end_season(s1, "2024-04-01T00:00:00+00:00")
    assert caught.value.code == "season.ends_before_start"
    with pytest.raises(LeagueError) as caught:
        end_season(s1, "soon")
    assert caught.value.code == "season.bad_timestamp"
    with pytest.raises(LeagueError) as caught:
        Season("g", "stein", 2, "whenever")
    assert caught.value.code == "season.bad_timestamp"


def test_place_points_matches_the_rule():
    assert place_points([5, 5, 1], higher_is_better=True) == [2.5, 2.5, 1.0]
    assert place_points([1, 2, 3, 4], higher_is_better=False) == [4.0, 3.0, 2.0, 1.0]
