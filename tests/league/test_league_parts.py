"""The league's parts (issue 15): the Ladder-kind table, the registry as the only source of
presets, the tournament repository port, and the records' stored dicts."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from bot.league import (
    SCORING,
    KvTournamentRepository,
    League,
    LeagueError,
    RummyMatch,
    Sitting,
    TournamentGame,
    TournamentInfo,
    VoidRecord,
    new_tournament,
    result_from_scores,
)
from bot.league.kinds import laddered, ranked_presets
from bot.league.presets import GameMeta
from bot.league.records import RunningMatch, RunningSitting
from bot.league.repository import FinishedGames, LeagueStore
from bot.store import GameRecord, Seat, SqliteStore, Store
from bot.store.records import dumps as store_dumps
from engine.codec import canonical_json
from engine.game import Result
from engine.rules import preset as rules_preset
from engine.variants import Ladder, Variant, register, unregister, variant, variants

T0 = 1_700_000_000.0
META = GameMeta("g1", "guild", 1, "2024-01-01T00:00:00+00:00")


def test_the_store_is_a_league_store():
    """The store provides every call of the league's store port, with the same parameters."""
    calls = [n for n, v in vars(LeagueStore).items() if inspect.iscoroutinefunction(v)]
    calls += [n for n, v in vars(FinishedGames).items() if inspect.iscoroutinefunction(v)]
    assert sorted(calls) == ["kv_get", "kv_items", "kv_put", "kv_update", "load_game", "results"]
    for name in calls:
        wanted = list(inspect.signature(getattr(LeagueStore, name)).parameters)
        assert list(inspect.signature(getattr(Store, name)).parameters)[: len(wanted)] == wanted


def test_every_ladder_kind_has_a_builder():
    assert set(SCORING) == set(Ladder)
    for v in variants():
        assert laddered(v.name)[1] is SCORING[v.ladder]


def test_ranked_presets_are_the_registry_s():
    assert ranked_presets() == tuple(v.name for v in variants() if v.ranked)
    assert ranked_presets()[:5] == ("stein", "stein_plus", "rummikub", "romme", "rummy")


def test_rummy_targets_come_from_the_rules():
    targets = dict(variant("rummy").rules.match_target_by_players)
    for count, target in targets.items():
        assert RummyMatch(tuple("abcd"[:count])).target == target


@pytest.fixture
def throwaway():
    """A registered tile variant ranked by points (like Rummikub), and one with no ladder."""
    base = rules_preset("rummikub")
    ranked = register(
        Variant(dataclasses.replace(base, preset="test_points"), ladder=Ladder.PLACE_BY_POINTS)
    )
    unranked = register(
        Variant(
            dataclasses.replace(base, preset="test_casual"),
            ladder=Ladder.PLACE_BY_POINTS,
            ranked=False,
        )
    )
    yield ranked, unranked
    unregister("test_points")
    unregister("test_casual")


def test_a_registered_variant_is_ranked_by_its_kind(throwaway):
    result = result_from_scores("test_points", META, ["a", "b"], {"points": [10, -10]})
    assert result.preset == "test_points"
    assert [p.mp for p in result.players] == [2.0, 1.0]
    assert "test_points" in ranked_presets() and "test_casual" not in ranked_presets()


def test_unknown_and_unranked_variants_are_errors(throwaway):
    with pytest.raises(LeagueError) as caught:
        laddered("poker")
    assert caught.value.code == "result.unknown_preset"
    with pytest.raises(LeagueError) as caught:
        laddered("Stein")  # a spelling, not the stored name
    assert caught.value.code == "result.unknown_preset"
    with pytest.raises(LeagueError) as caught:
        laddered("test_casual")
    assert caught.value.code == "result.unranked"


def _record(game_id: str, preset: str, players: list[str]) -> GameRecord:
    return GameRecord(
        id=game_id,
        preset=preset,
        rules_json=store_dumps({"preset": preset}),
        seed=0,
        status="playing",
        host_id="host",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=tuple(Seat(p, p.upper()) for p in players),
        guild_id="g",
        channel_id="c",
    )


async def test_hook_ranks_a_registered_variant_and_refuses_an_unknown_one(
    tmp_path: Path, throwaway
):
    store = SqliteStore(tmp_path / "l.sqlite3")
    await store.open()
    try:
        league = await League(store).open()
        res = Result("out", 0, [12.0, -12.0], [1, 2], [[], []])
        rows = await league.record_result(_record("x1", "test_points", ["a", "b"]), res, T0)
        assert [r.namespace for r in rows] == ["season", "ladder_result"]
        assert rows[1].value["preset"] == "test_points"
        assert league.result_hook(_record("x2", "test_casual", ["a", "b"]), res, T0).kv_hooks == ()
        with pytest.raises(LeagueError) as caught:
            league.result_hook(_record("x3", "poker", ["a", "b"]), res, T0)
        assert caught.value.code == "result.unknown_preset"
    finally:
        await store.close()


class MemoryTournaments:
    """Another TournamentRepository: plain dicts (what a PostgreSQL one would keep in tables)."""

    def __init__(self) -> None:
        self.infos: dict[tuple[str, str], TournamentInfo] = {}
        self.linked: dict[str, TournamentGame] = {}

    async def load(self, guild, tournament_id):
        return self.infos.get((guild, tournament_id))

    async def exists(self, guild, tournament_id):
        return (guild, tournament_id) in self.infos

    async def save(self, info):
        self.infos[(info.guild_id, info.tournament_id)] = info

    async def all(self):
        return list(self.infos.values())

    async def link(self, link):
        self.linked[link.game_id] = link

    async def link_of(self, game_id):
        return self.linked.get(game_id)

    async def links(self):
        return list(self.linked.values())


async def test_tournaments_go_through_the_repository_port(tmp_path: Path):
    store = SqliteStore(tmp_path / "l.sqlite3")
    await store.open()
    try:
        repo = MemoryTournaments()
        league = await League(store, tournaments=repo, clock=lambda: T0).open()
        await league.create_tournament("g", "cup", ["a", "b", "c"], organiser="o")
        assert ("g", "cup") in repo.infos
        assert await store.kv_items("tournament") == []
        with pytest.raises(LeagueError) as caught:
            await league.create_tournament("g", "cup")
        assert caught.value.code == "tournament.exists"
        later = League(store, tournaments=repo, clock=lambda: T0 + 60)
        await later.open()
        state = await later.create_tournament("g", "cup", ["d", "e", "f"], replace=True)
        info = await later.tournament_info("g", "cup")
        assert info.state == state and state.players == ("d", "e", "f")
        assert info.created_at == (await league.tournament_info("g", "cup")).created_at
        assert [t.tournament_id for t in await later.tournaments("g")] == ["cup"]
    finally:
        await store.close()


async def test_kv_repository_keeps_the_stored_rows(tmp_path: Path):
    store = SqliteStore(tmp_path / "l.sqlite3")
    await store.open()
    try:
        repo = KvTournamentRepository(store)
        info = TournamentInfo("g", "cup", new_tournament("cup", ["a", "b", "c"]), "Cup", "o", "t")
        await repo.save(info)
        assert await store.kv_get("tournament", "g:cup") == info.to_dict()
        assert await repo.load("g", "cup") == info
        assert await repo.load("g", "nope") is None
        link = TournamentGame("x", "g", "cup", 1, 1, 0, ("a", "b", "c"), "a")
        await repo.link(link)
        assert await store.kv_get("tournament_game", "x") == link.to_dict()
        assert await repo.link_of("x") == link and await repo.links() == [link]
    finally:
        await store.close()


async def test_result_season(tmp_path: Path):
    store = SqliteStore(tmp_path / "l.sqlite3")
    await store.open()
    try:
        league = await League(store).open()
        res = Result("out", 0, [12.0, -12.0], [1, 2], [[], []])
        await league.record_result(_record("r1", "rummikub", ["a", "b"]), res, T0)
        assert await league.result_season("r1") == 1
        assert await league.result_season("nope") is None
    finally:
        await store.close()


def test_stored_dicts_keep_their_keys():
    """The codec writes the same dicts the hand-written to_dict did (stored JSON contract)."""
    sitting = Sitting(("a", "b")).add_game([0, 30], winner=0, strike=10)
    assert sitting.to_dict() == {
        "players": ["a", "b"],
        "games": [{"penalties": [0, 30], "winner": 0, "strike": 0}],
    }
    running = RunningSitting("g", "c", 1, sitting, ("x",), "t0")
    assert running.to_dict() == {
        "guild_id": "g",
        "channel_id": "c",
        "number": 1,
        "sitting": sitting.to_dict(),
        "game_ids": ["x"],
        "started_at": "t0",
        "closed_at": None,
        "totals": [0, 30],
        "settlement": sitting.settlement.to_dict(),
    }
    assert RunningSitting.from_dict(running.to_dict()) == running
    match = RummyMatch(("a", "b")).add_hand(1, 40).add_draw()
    assert match.to_dict() == {
        "players": ["a", "b"],
        "target": 100,
        "hands": [{"winner": 1, "points": 40}, {"winner": None, "points": 0}],
    }
    rm = RunningMatch("g", "c", 2, match, ("x", "y"), "t0")
    assert canonical_json(rm.to_dict()) == (
        '{"channel_id":"c","closed_at":null,"game_ids":["x","y"],"guild_id":"g",'
        '"match":{"hands":[{"points":40,"winner":1},{"points":0,"winner":null}],'
        '"players":["a","b"],"target":100},"number":2,"result_game":null,'
        '"started_at":"t0","totals":[0,40],"winner":null}'
    )
    assert RunningMatch.from_dict(rm.to_dict()) == rm
    void = VoidRecord("x", "g", True, ({"action": "void", "by": "m", "at": "t"},))
    assert void.to_dict() == {
        "game_id": "x",
        "guild_id": "g",
        "voided": True,
        "log": [{"action": "void", "by": "m", "at": "t"}],
    }
    assert VoidRecord.from_dict({"game_id": "x", "guild_id": "g", "voided": False}).log == ()
