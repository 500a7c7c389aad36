"""League state shared by several processes over ONE database (issue 17, item 3).

Two service instances, each with its own store (as two processes have), on one real SQLite file
and on one real PostgreSQL database (the factories of tests/store_contract): a season started,
a guild setting changed or a match total advanced in one is seen by the other at its next read
and at its next result hook, and nothing is lost when both change the same rows at once.
Process A runs shard 0 of 2, process B shard 1 (their games are fenced to their shards; league
rows are shared).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.league import League
from bot.league.records import NS_MATCH, NS_RESULT, RunningMatch
from bot.service import GameService, ManualClock, ServiceConfig
from bot.store import GameRecord, Seat, ShardPlan, Store, shard_of
from bot.store.records import dumps
from engine.game import Result
from engine.rules import preset as rules_preset
from tests.store_contract.factories import FACTORIES, StoreFactory

T0 = 1_700_000_000.0
GUILD_A = str((0 << 22) + 1)  # a guild on shard 0 of 2: process A runs its games
GUILD_B = str((1 << 22) + 1)  # on shard 1: process B's
CONFIG = "guild_config"


@dataclass
class Process:
    store: Store
    league: League
    service: GameService

    async def close(self) -> None:
        await self.service.stop()
        await self.store.close()


async def open_process(factory: StoreFactory, shard: int, clock: ManualClock) -> Process:
    store = await factory.open(shard_count=2)
    league = await League(store, clock=clock.now).open()
    config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
    service = GameService(
        store, config=config, clock=clock, league=league, shards=ShardPlan(2, (shard,))
    )
    await service.start(run_timers=False)
    return Process(store, league, service)


@pytest.fixture(params=FACTORIES, ids=lambda f: f.name)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    return request.param.make(tmp_path, request)


@pytest.fixture
async def two(factory: StoreFactory) -> AsyncIterator[tuple[Process, Process]]:
    assert shard_of(GUILD_A, 2) == 0 and shard_of(GUILD_B, 2) == 1
    clock = ManualClock(T0)
    a = await open_process(factory, 0, clock)
    try:
        b = await open_process(factory, 1, clock)
        try:
            yield a, b
        finally:
            await b.close()
    finally:
        await a.close()


async def computer_game(
    p: Process, game_id: str, preset: str, *, guild: str, seed: int, bots: int = 2
) -> None:
    """A game of computer players in channel c1 of ``guild``, played to the end by ``p``."""
    made, _ = await p.service.create_game(
        "host",
        preset,
        None,
        guild_id=guild,
        channel_id="c1",
        game_id=game_id,
        seed=seed,
        seat_host=False,
    )
    assert made == game_id
    for _ in range(bots):
        await p.service.add_bot(game_id, "host", "easy")
    await p.service.start_game(game_id, "host")
    await p.service.wait_finished(game_id)
    assert (await p.store.load_game(game_id)).status == "finished"


def hand_record(game_id: str, players: tuple[str, ...], guild: str = GUILD_A) -> GameRecord:
    """A finished classic Rummy hand's record (for an organiser's tool feeding the league)."""
    return GameRecord(
        id=game_id,
        preset="rummy",
        rules_json=dumps(rules_preset("rummy").to_dict()),
        seed=0,
        status="playing",
        host_id="host",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=tuple(Seat(p, p, is_bot=p.startswith("bot:")) for p in players),
        guild_id=guild,
        channel_id="c1",
    )


def small_win(players: tuple[str, ...]) -> Result:
    """Seat 0 goes out and scores 1 point: a match to 100 goes on for a long time."""
    points = [1.0] + [0.0] * (len(players) - 1)
    return Result("out", 0, points, [1] + [2] * (len(players) - 1), [[] for _ in players], {})


async def lobby_hands(store: Store, guild: str = GUILD_A) -> list[str]:
    """Every hand of the lobby's matches (every match, in order)."""
    rows = await store.kv_items(NS_MATCH)
    matches = sorted(
        (RunningMatch.from_dict(r.value) for r in rows),
        key=lambda m: m.number,
    )
    return [g for m in matches if m.lobby == (guild, "c1") for g in m.game_ids]


async def test_a_season_started_in_one_process_counts_in_the_other(two):
    a, b = two
    await computer_game(a, "first", "rummikub", guild=GUILD_A, seed=1)
    assert (await b.store.kv_get(NS_RESULT, "first"))["season"] == 1  # B reads A's result
    assert await b.league.season_number(GUILD_A, "rummikub") == 1
    change = await b.league.start_season(GUILD_A, "rummikub", "Spring")
    assert change.started.number == 2
    # A's next read...
    seasons = await a.league.seasons(GUILD_A, "rummikub")
    assert [(s.number, s.name, s.ended_at is not None) for s in seasons] == [
        (1, "", True),
        (2, "Spring", False),
    ]
    assert await a.league.season_number(GUILD_A, "rummikub") == 2
    # ... and A's next result hook (inside the transaction that finishes A's next game)
    await computer_game(a, "second", "rummikub", guild=GUILD_A, seed=2)
    assert await a.league.result_season("second") == 2
    assert (await b.league.ladder(GUILD_A, "rummikub")).games == ("second",)
    assert (await b.league.ladder(GUILD_A, "rummikub", 1)).games == ("first",)


async def test_a_guild_setting_changed_in_one_process_is_read_by_the_other(two):
    a, b = two
    change = b.service.update_adapter_data
    await change(CONFIG, GUILD_A, lambda s: {**(s or {}), "preset": "romme", "turn_time": 90})
    assert await a.service.adapter_data(CONFIG, GUILD_A) == {"preset": "romme", "turn_time": 90}

    # both change the same guild's settings at once, twenty times each: nothing is lost
    def setter(name: str):
        return lambda stored: {**(stored or {}), name: True}

    await asyncio.gather(
        *(a.service.update_adapter_data(CONFIG, GUILD_A, setter(f"a{i}")) for i in range(20)),
        *(b.service.update_adapter_data(CONFIG, GUILD_A, setter(f"b{i}")) for i in range(20)),
    )
    final = await b.service.adapter_data(CONFIG, GUILD_A)
    assert {k for k in final if k[0] in "ab" and k[1:].isdigit()} == {
        f"{side}{i}" for side in "ab" for i in range(20)
    }
    assert final["preset"] == "romme"


async def test_a_match_advanced_in_one_process_goes_on_in_the_other(two):
    a, b = two
    await computer_game(a, "hand1", "rummy", guild=GUILD_A, seed=3)
    players = tuple(s.player_id for s in (await a.store.load_game("hand1")).seats)
    match = await b.league.rummy_match(GUILD_A, "c1")  # B's next read sees A's hand
    assert match is not None and match.game_ids == ("hand1",)
    # B (an organiser's tool) enters a hand of the same players; A's next hand continues
    # that match (its hook reads the match inside its finishing transaction)
    await b.league.record_result(hand_record("tool1", players), small_win(players), T0 + 1)
    assert (await a.league.rummy_match(GUILD_A, "c1")).game_ids == ("hand1", "tool1")
    await computer_game(a, "hand2", "rummy", guild=GUILD_A, seed=4)
    assert await lobby_hands(b.store) == ["hand1", "tool1", "hand2"]


async def test_no_hand_is_lost_when_both_finish_at_once(two):
    a, b = two
    players = ("bot:easy:1", "bot:easy:2")

    async def tool_hands() -> None:  # B enters ten hands while A's games finish
        for i in range(10):
            rec = hand_record(f"tool{i}", players)
            await b.league.record_result(rec, small_win(players), T0 + i)

    async def service_hands() -> None:
        for i in range(3):
            await computer_game(a, f"hand{i}", "rummy", guild=GUILD_A, seed=10 + i)

    async def other_guild() -> None:  # and B finishes a game of its own shard meanwhile
        await computer_game(b, "b-game", "rummikub", guild=GUILD_B, seed=5)

    await asyncio.gather(tool_hands(), service_hands(), other_guild())
    hands = await lobby_hands(a.store)
    assert sorted(hands) == sorted([f"tool{i}" for i in range(10)] + [f"hand{i}" for i in range(3)])
    assert len(hands) == len(set(hands)) == 13  # each exactly once
    assert (await a.league.ladder(GUILD_B, "rummikub")).games == ("b-game",)
