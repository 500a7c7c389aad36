"""The league over the real store and game service (bot.league.service, bot.league_tools.runner).

Every test uses a real SQLite file in ``tmp_path``; games are played by computer players through
:class:`bot.service.GameService`, or (for exact figures) finished games are fed through the very
hook the service calls and written with the store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.league import (
    League,
    LeagueError,
    LeagueServiceError,
    dumps,
    slow_player_award,
)
from bot.league.records import NS_RESULT, NS_SEASON, NS_TOURNAMENT_GAME, iso
from bot.league_tools.runner import TournamentRunner
from bot.service import GameService, ManualClock, ServiceConfig
from bot.store import CommandWrite, GameRecord, Seat, SqliteStore
from bot.store.records import dumps as store_dumps
from engine.game import Result
from engine.rules import preset as rules_preset
from engine.scoring import (
    competition_ranks,
    places_by_tiles_left,
    stein_match_points,
    stein_plus_place_values,
)
from i18n import error_text

T0 = 1_700_000_000.0
GUILD = "g1"


# --------------------------------------------------------------------------- helpers


class SpyStore(SqliteStore):
    """The real SQLite store, remembering every command write (to see what one transaction
    carried)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes: list[CommandWrite] = []

    async def append_command(self, write: CommandWrite) -> None:
        await super().append_command(write)
        self.writes.append(write)


@dataclass
class World:
    path: Path
    store: SqliteStore
    league: League
    service: GameService

    async def close(self) -> None:
        await self.service.stop()
        await self.store.close()


async def open_world(path: Path, *, spy: bool = False, clock_start: float = T0) -> World:
    store = SpyStore(path) if spy else SqliteStore(path)
    await store.open()
    clock = ManualClock(clock_start)
    league = await League(store, clock=clock.now).open()
    config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
    service = GameService(store, config=config, clock=clock, result_hooks=[league.result_hook])
    await service.start(run_timers=False)
    return World(path, store, league, service)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    w = await open_world(tmp_path / "league.sqlite3", spy=True)
    yield w
    await w.close()


async def bot_game(
    w: World,
    game_id: str,
    preset: str = "stein",
    bots: int = 3,
    *,
    seed: int = 1,
    guild: str | None = GUILD,
    channel: str | None = "c1",
    options: dict | None = None,
) -> str:
    """A game of computer players through the service, played to the end."""
    made, _ = await w.service.create_game(
        "host",
        preset,
        options,
        guild_id=guild,
        channel_id=channel,
        game_id=game_id,
        seed=seed,
        seat_host=False,
    )
    assert made == game_id
    for _ in range(bots):
        await w.service.add_bot(game_id, "host", "medium")
    await w.service.start_game(game_id, "host")
    await w.service.wait_finished(game_id)
    record = await w.store.load_game(game_id)
    assert record is not None and record.status == "finished"
    return game_id


def record(
    game_id: str,
    preset: str,
    players: list[str],
    *,
    guild: str | None = GUILD,
    channel: str | None = "c1",
    **options,
) -> GameRecord:
    rules = rules_preset(preset)
    if options:
        rules = rules.with_options(**options)
    return GameRecord(
        id=game_id,
        preset=preset,
        rules_json=store_dumps(rules.to_dict()),
        seed=0,
        status="playing",
        host_id="host",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=tuple(Seat(p, p.upper()) for p in players),
        guild_id=guild,
        channel_id=channel,
    )


def stein_result(tiles: list[int], winner: int | None, claims: list[int] | None = None) -> Result:
    smp = stein_match_points(tiles, winner)
    cmp = claims or [0] * len(tiles)
    details: dict = {"first_round": False}
    if claims is not None:
        details["claims"] = claims
    return Result(
        reason="out" if winner is not None else "stalemate",
        winner=winner,
        points=[s + c for s, c in zip(smp, cmp, strict=True)],
        ranks=places_by_tiles_left(tiles, winner),
        left=[["R1"] * t for t in tiles],
        details=details,
    )


async def feed(league: League, store: SqliteStore, rec: GameRecord, res: Result, at: float):
    """What the service does when a game finishes: the hook's rows, computed and written by the
    store in one transaction (the rows written are returned)."""
    return await league.record_result(rec, res, at)


# --------------------------------------------------------------------------- the hook


async def test_finished_game_lands_on_ladder_in_the_finishing_transaction(world: World):
    game_id = await bot_game(world, "lad1")
    stored = await world.store.kv_get(NS_RESULT, game_id)
    assert stored is not None and stored["guild_id"] == GUILD and stored["season"] == 1
    # the ladder row travelled in the same CommandWrite (= one transaction) as the results
    final = [w for w in world.store.writes if w.game_id == game_id and w.status == "finished"]
    assert len(final) == 1
    # (computed inside that transaction by the league's KvHook, from the rows stored there)
    assert final[0].results and final[0].kv == () and len(final[0].kv_hooks) == 1
    season_rows = await world.store.kv_items(NS_SEASON)
    assert [r.value["number"] for r in season_rows] == [1]
    ladder = await world.league.ladder(GUILD, "stein")
    assert ladder.games == (game_id,)
    seats = [r.player_id for r in await world.store.results(game_id)]
    assert sorted(row.player_id for row in ladder.rows) == sorted(seats)
    # the ladder's MP are the engine's MP
    engine = {r.player_id: r.points for r in await world.store.results(game_id)}
    assert {row.player_id: row.mp for row in ladder.rows} == engine


async def test_mp_per_game_sum_to_triangle_number_through_the_service(world: World):
    games = [
        await bot_game(world, "s3", "stein", 3, seed=5),
        await bot_game(world, "s4", "stein", 4, seed=6),
        await bot_game(world, "p3", "stein_plus", 3, seed=7),
        await bot_game(world, "p4", "stein_plus", 4, seed=8),
    ]
    for game_id in games:
        data = await world.store.kv_get(NS_RESULT, game_id)
        n = len(data["players"])
        claims = (await world.store.results(game_id))[0].details["game"].get("claims") or [0] * n
        total = sum(line["mp"] for line in data["players"])
        won = any(row.winner for row in await world.store.results(game_id))
        if game_id.startswith("p"):  # Stein Plus: 4, 3, 2, 1 for any number of players
            places = stein_plus_place_values(n, won)
            assert total == pytest.approx(sum(places) + sum(claims))
            assert {line["max_mp"] for line in data["players"]} == {4 + sum(claims)}
        else:
            assert total == pytest.approx(n * (n + 1) / 2 + sum(claims))
            assert {line["max_mp"] for line in data["players"]} == {n + sum(claims)}


async def test_stein_plus_claims_add_mp_and_max(world: World):
    rec = record("claims", "stein_plus", ["a", "b", "c", "d"])
    res = stein_result([0, 3, 3, 7], 0, claims=[1, 0, 2, 0])
    rows = await feed(world.league, world.store, rec, res, T0)
    data = next(r.value for r in rows if r.namespace == NS_RESULT)
    mp = {line["player_id"]: line["mp"] for line in data["players"]}
    assert mp == {"a": 5.0, "b": 2.5, "c": 4.5, "d": 1.0}
    assert sum(mp.values()) == 10 + 3
    assert {line["max_mp"] for line in data["players"]} == {7.0}
    assert [line["rank"] for line in data["players"]] == [1, 3, 2, 4]


async def test_rummikub_by_signed_points_and_rank(world: World):
    rec = record("rk", "rummikub", ["a", "b", "c"])
    res = Result("out", 1, [-10.0, 25.0, -15.0], competition_ranks([-10, 25, -15]), [[], [], []])
    rows = await feed(world.league, world.store, rec, res, T0)
    data = next(r.value for r in rows if r.namespace == NS_RESULT)
    assert [(x["mp"], x["rank"], x["points"]) for x in data["players"]] == [
        (2.0, 2, -10.0),
        (3.0, 1, 25.0),
        (1.0, 3, -15.0),
    ]


async def test_what_does_not_count(world: World):
    res = stein_result([0, 2, 4], 0)
    abandoned = Result("abandoned", None, [2.0, 2.0, 2.0], [1, 1, 1], [["R1"]] * 3)
    hook = world.league.result_hook
    assert hook(record("ab", "stein", ["a", "b", "c"]), abandoned, T0).kv_hooks == ()
    assert hook(record("ng", "stein", ["a", "b", "c"], guild=None), res, T0).kv_hooks == ()
    unranked = record("ur", "stein", ["a", "b", "c"], ranked=False)
    assert hook(unranked, res, T0).kv_hooks == ()
    two = record("two", "stein", ["a", "b"], min_players=2)
    assert hook(two, stein_result([0, 3], 0), T0).kv_hooks == ()
    # an organiser-ended game counts, scored as the engine scored it (by tiles left)
    ended = Result("ended", None, [3.0, 1.5, 1.5], [1, 2, 2], [["R1"], ["R1"] * 4, ["R1"] * 4])
    rows = await feed(world.league, world.store, record("end", "stein", ["a", "b", "c"]), ended, T0)
    data = next(r.value for r in rows if r.namespace == NS_RESULT)
    assert [x["mp"] for x in data["players"]] == [3.0, 1.5, 1.5]
    # a league given a default guild ranks guild-less (console) games there
    local = League(world.store, default_guild="local")
    await local.open()
    rows = await feed(
        local, world.store, record("ng", "stein", ["a", "b", "c"], guild=None), res, T0
    )
    assert next(r.value for r in rows if r.namespace == NS_RESULT)["guild_id"] == "local"


# --------------------------------------------------------------------------- voiding


def ladder_figures(ladder) -> tuple:
    return (
        [row.to_dict() for row in ladder.rows],
        {p: [e.to_dict() for e in h] for p, h in ladder.histories},
        ladder.games,
    )


async def test_voiding_equals_never_played_through_the_store(tmp_path: Path):
    games = [
        ("v1", ["a", "b", "c"], stein_result([0, 3, 5], 0)),
        ("v2", ["a", "b", "d"], stein_result([4, 0, 2], 1)),
        ("v3", ["b", "c", "d", "a"], stein_result([1, 0, 1, 6], 1)),
        ("v4", ["d", "a", "c"], stein_result([0, 3, 3], 0)),
    ]
    played = await open_world(tmp_path / "played.sqlite3")
    never = await open_world(tmp_path / "never.sqlite3")
    for i, (game_id, players, res) in enumerate(games):
        at = T0 + 60 * i
        await feed(played.league, played.store, record(game_id, "stein", players), res, at)
        if game_id != "v2":
            await feed(never.league, never.store, record(game_id, "stein", players), res, at)
    before = ladder_figures(await played.league.ladder(GUILD, "stein"))
    voided = await played.league.void_game(GUILD, "v2", by="director")
    assert voided.voided and voided.log[-1]["by"] == "director"
    with pytest.raises(LeagueServiceError) as err:
        await played.league.void_game(GUILD, "v2", by="director")
    assert err.value.code == "league.already_voided"
    expected = ladder_figures(await never.league.ladder(GUILD, "stein"))
    assert ladder_figures(await played.league.ladder(GUILD, "stein")) == expected
    # also for a new League on the same file (after a restart), and in both orders
    await played.close()
    played = await open_world(tmp_path / "played.sqlite3")
    for order in ("percent", "rating"):
        got = await played.league.ladder(GUILD, "stein", order=order)
        assert ladder_figures(got) == ladder_figures(
            await never.league.ladder(GUILD, "stein", order=order)
        )
        assert got.voided == ("v2",)
    stats = await played.league.player_stats(GUILD, "d")
    assert stats.presets[0].career.games == 2
    await played.league.unvoid(GUILD, "v2", by="director")
    assert ladder_figures(await played.league.ladder(GUILD, "stein")) == before
    with pytest.raises(LeagueServiceError) as err:
        await played.league.void_game("other-guild", "v1", by="x")
    assert err.value.code == "league.unknown_game"
    assert "v1" in error_text(err.value, "de")
    await played.close()
    await never.close()


# --------------------------------------------------------------------------- seasons


async def test_seasons_archive_and_stay_viewable(tmp_path: Path):
    w = await open_world(tmp_path / "seasons.sqlite3")
    players = ["a", "b", "c"]
    await feed(w.league, w.store, record("s1", "stein", players), stein_result([0, 1, 2], 0), T0)
    change = await w.league.start_season(GUILD, "stein", "Spring", at=T0 + 100)
    assert change.ended is not None and change.ended.ended_at == iso(T0 + 100)
    assert change.started.number == 2 and change.started.name == "Spring"
    await feed(
        w.league, w.store, record("s2", "stein", players), stein_result([2, 0, 1], 1), T0 + 200
    )
    await w.close()

    w = await open_world(tmp_path / "seasons.sqlite3")
    assert [(s.number, s.archived) for s in await w.league.seasons(GUILD, "stein")] == [
        (1, True),
        (2, False),
    ]
    assert (await w.league.ladder(GUILD, "stein", 1)).games == ("s1",)
    assert (await w.league.ladder(GUILD, "stein")).games == ("s2",)
    ended = await w.league.end_season(GUILD, "stein", at=T0 + 300)
    assert ended.number == 2 and ended.archived
    # with no open season the ladder shows the last one; the next game opens season 3
    assert (await w.league.ladder(GUILD, "stein")).games == ("s2",)
    with pytest.raises(LeagueServiceError):
        await w.league.end_season(GUILD, "stein")
    await feed(
        w.league, w.store, record("s3", "stein", players), stein_result([1, 0, 2], 1), T0 + 400
    )
    assert [s.number for s in await w.league.seasons(GUILD, "stein")] == [1, 2, 3]
    assert (await w.league.ladder(GUILD, "stein")).games == ("s3",)
    with pytest.raises(LeagueServiceError) as err:
        await w.league.ladder(GUILD, "stein", 9)
    assert err.value.code == "season.unknown"
    with pytest.raises(LeagueError):
        await w.league.ladder(GUILD, "poker")
    stats = await w.league.player_stats(GUILD, "b")
    assert stats.presets[0].seasons == (1, 2, 3) and stats.presets[0].career.games == 3
    await w.close()


# --------------------------------------------------------------------------- sittings, matches


def romme_result(penalties: list[int], winner: int | None, strike: int = 0) -> Result:
    details: dict = {"hand_romme": False}
    if strike:
        details["strike"] = {"seat": winner, "points": strike}
    ranks = competition_ranks([-p for p in penalties])
    return Result("out", winner, [float(p) for p in penalties], ranks, [[]] * 3, details)


async def test_romme_sitting_keeps_the_penalty_table(tmp_path: Path):
    w = await open_world(tmp_path / "romme.sqlite3")
    players = ["a", "b", "c"]
    await feed(w.league, w.store, record("r1", "romme", players), romme_result([0, 20, 35], 0), T0)
    # same players in another seat order continue the sitting (mapped by player id)
    await feed(
        w.league,
        w.store,
        record("r2", "romme", ["c", "a", "b"]),
        romme_result([0, 12, 5], 0),
        T0 + 1,
    )
    await w.close()
    w = await open_world(tmp_path / "romme.sqlite3")
    running = await w.league.sitting(GUILD, "c1")
    assert running is not None and running.game_ids == ("r1", "r2")
    assert running.sitting.totals == [12, 25, 35]
    assert running.sitting.settlement.balances == {"a": 36, "b": -3, "c": -33}
    assert len((await w.league.ladder(GUILD, "romme")).games) == 2
    # new players: the sitting is closed and a new one begins
    rows = await feed(
        w.league,
        w.store,
        record("r3", "romme", ["a", "b", "d"]),
        romme_result([5, 0, 9], 1),
        T0 + 2,
    )
    keys = [r.key for r in rows if r.namespace == "sitting"]
    assert keys == [f"{GUILD}:c1:00001", f"{GUILD}:c1:00002"]
    assert (await w.league.sitting(GUILD, "c1")).number == 2
    stored = await w.league.sittings(GUILD)
    assert [(s.number, s.closed_at is not None) for s in stored] == [(1, True), (2, False)]
    await w.close()


async def test_rummy_match_gives_one_ladder_result_when_won(tmp_path: Path):
    w = await open_world(tmp_path / "rummy.sqlite3")
    players = ["a", "b"]

    def hand(winner: int | None, points: int) -> Result:
        if winner is None:
            return Result("draw", None, [0.0, 0.0], [1, 1], [[], []], {})
        pts = [0.0, 0.0]
        pts[winner] = float(points)
        ranks = [1 if s == winner else 2 for s in range(2)]
        return Result("out", winner, pts, ranks, [[], []], {"match_target": 100})

    plan = [(0, 40), (None, 0), (1, 30), (0, 50), (1, 10), (0, 15)]
    for i, (winner, points) in enumerate(plan):
        rows = await feed(
            w.league, w.store, record(f"h{i}", "rummy", players), hand(winner, points), T0 + i
        )
        results = [r for r in rows if r.namespace == NS_RESULT]
        assert bool(results) == (i == len(plan) - 1)
    data = await w.store.kv_get(NS_RESULT, "h5")
    assert [(x["player_id"], x["mp"], x["max_mp"], x["points"]) for x in data["players"]] == [
        ("a", 1.0, 1.0, 105.0),
        ("b", 0.0, 1.0, 40.0),
    ]
    match = await w.league.rummy_match(GUILD, "c1")
    assert match.closed_at is not None and match.result_game == "h5" and match.match.winner == "a"
    # the next hand starts match 2
    await feed(w.league, w.store, record("h6", "rummy", players), hand(1, 20), T0 + 9)
    assert (await w.league.rummy_match(GUILD, "c1")).number == 2
    await w.close()


async def test_retried_final_write_is_not_counted_twice(world: World):
    rec = record("rr", "romme", ["a", "b", "c"])
    world.league.result_hook(rec, romme_result([0, 10, 20], 0), T0)  # its write "failed"
    await feed(world.league, world.store, rec, romme_result([0, 10, 20], 0), T0 + 5)
    assert (await world.league.sitting(GUILD, "c1")).game_ids == ("rr",)
    assert (await world.league.sitting(GUILD, "c1")).sitting.totals == [0, 10, 20]


# --------------------------------------------------------------------------- tournaments


async def test_tournament_survives_a_restart(tmp_path: Path):
    path = tmp_path / "tournament.sqlite3"
    w = await open_world(path)
    lg = w.league
    await lg.create_tournament(GUILD, "cup", ["a", "b", "c", "d", "e", "f"], name="Cup")
    await lg.register_player(GUILD, "cup", "g")
    with pytest.raises(LeagueServiceError) as err:
        await lg.create_tournament(GUILD, "cup")
    assert err.value.code == "tournament.exists"
    t = await lg.start_round(GUILD, "cup")
    assert [list(table.seats) for table in t.current_round.tables] == [
        ["a", "b", "c", "d"],
        ["e", "f", "g"],
    ]
    await lg.record_game(GUILD, "cup", 1, [0, 3, 5, 2], 0)
    await lg.end_game_early(GUILD, "cup", 1, [4, 2, 2, 6], note="time")
    await lg.award_game(GUILD, "cup", 1, slow_player_award(4, [3]), note="slow")
    await lg.neutralise_game(GUILD, "cup", 1, minus_half=True)
    await lg.record_game(GUILD, "cup", 2, [0, 1, 2], 0)
    before = await lg.tournament(GUILD, "cup")
    await w.close()

    w = await open_world(path)
    after = await w.league.tournament(GUILD, "cup")
    assert dumps(after.to_dict()) == dumps(before.to_dict())
    assert [a.kind for a in after.actions] == ["end_early", "award", "neutralise"]
    assert (await w.league.tournament_info(GUILD, "cup")).name == "Cup"
    assert [t.tournament_id for t in await w.league.tournaments(GUILD)] == ["cup"]
    rows = await w.league.standings(GUILD, "cup")
    assert rows[0].player_id == "e" and rows[0].percent == 100.0
    assert len(await w.league.seating(GUILD, "cup")) == 2
    with pytest.raises(LeagueError):
        await w.league.tournament(GUILD, "nope")
    await w.close()


async def test_runner_plays_tournament_games_through_the_service(tmp_path: Path):
    path = tmp_path / "runner.sqlite3"
    w = await open_world(path, clock_start=T0)
    await w.league.create_tournament(GUILD, "sim", [f"p{i}" for i in range(1, 8)])
    runner = TournamentRunner(w.league, w.service, seed=4)
    played = await runner.play_round(GUILD, "sim")
    assert len(played) == 4 + 3  # a table of 4 and a table of 3
    t = await w.league.tournament(GUILD, "sim")
    assert t.rounds[0].complete
    for game in played:
        table = t.rounds[0].table(game.table)
        # the designated starter (seat = game number) made the first move of the game
        assert game.starter == table.seats[game.number]
        first = (await w.store.commands(game.game_id))[0]
        assert game.seats[first.seat] == game.starter
        # clockwise order kept: the game's seats are a rotation of the table's
        n = len(table.seats)
        shift = table.seats.index(game.seats[0])
        assert game.seats == tuple(table.seats[(shift + j) % n] for j in range(n))
        # the tournament's MP are the engine's, seat by seat
        rows = await w.store.results(game.game_id)
        assert {game.seats[r.seat]: r.points for r in rows} == dict(game.mp)
        assert sum(game.mp.values()) == n * (n + 1) / 2
        # tournament games stay off the ladder
        assert await w.store.kv_get(NS_RESULT, game.game_id) is None
        assert await w.store.kv_get(NS_TOURNAMENT_GAME, game.game_id) is not None
    # a restart: a new League and service on the same file carry on with round 2
    await w.close()
    w = await open_world(path, clock_start=T0 + 3600)
    assert await w.league.sync_tournament(GUILD, "sim") == 0
    t = await TournamentRunner(w.league, w.service, seed=4).play(GUILD, "sim", 2)
    assert len(t.rounds) == 2 and t.rounds[1].complete
    assert sum(row.games for row in await w.league.standings(GUILD, "sim")) == 2 * 25
    await w.close()
