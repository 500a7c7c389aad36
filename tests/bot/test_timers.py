"""Timers and downtime (issue 14), on real SQLite files.

- deadlines that ran while the bot was down move by the downtime (clean stop, and a crash
  where only the last heartbeat tells when the bot died);
- abandonment counts only the time the bot was up;
- the system clock runs monotonically within a run (a clock stepped back delays nothing);
- the timer loop never waits for a busy game: it checks it again at the next tick.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig, SystemClock
from bot.service.outgoing import GameOver
from bot.store import SqliteStore

T0 = 1_700_000_000.0
DAY = 24 * 3600.0


class Bot:
    """A service on a file that can be stopped, crashed and started again on one clock."""

    def __init__(self, path: Path, **config) -> None:
        self.path = path
        self.clock = ManualClock(T0)
        self.config = ServiceConfig(pictures=False, bot_pause=0.0, **config)
        self.store: SqliteStore | None = None
        self.service: GameService | None = None

    async def start(self) -> GameService:
        self.store = SqliteStore(self.path)
        await self.store.open()
        self.service = GameService(self.store, config=self.config, clock=self.clock)
        await self.service.start(run_timers=False)
        return self.service

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()
        if self.store is not None:
            await self.store.close()
        self.service = self.store = None

    async def crash(self) -> None:
        """The process dies: no clean stop of the service (its last heartbeat stays)."""
        self.service.registry.stopping = True
        self.service = None
        await self.store.close()
        self.store = None


@pytest.fixture
async def bot(tmp_path: Path):
    made = Bot(tmp_path / "timers.sqlite3", tick_seconds=1.0, heartbeat_seconds=5.0)
    yield made
    await made.stop()


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


async def people_game(service: GameService, options: dict | None = None) -> str:
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "en")
    game_id, _ = await service.create_game("alice", "rummikub", options, seed=1)
    assert not errors(await service.join(game_id, "bob"))
    assert not errors(await service.start_game(game_id, "alice"))
    return game_id


async def test_a_deadline_that_ran_while_the_bot_was_down_moves_by_the_downtime(bot: Bot):
    s = await bot.start()
    game_id = await people_game(s, {"turn_seconds": 60})
    assert s.deadline(game_id) == T0 + 60
    bot.clock.advance(10)
    await bot.stop()  # 50 s of the turn left
    bot.clock.advance(600)  # ten minutes down
    s = await bot.start()
    assert s.deadline(game_id) == T0 + 660
    assert (await bot.store.load_game(game_id)).deadline == T0 + 660  # stored too
    assert await s.run_due() == []  # no time-out for the bot's downtime
    bot.clock.advance(45)
    assert (await bot.store.load_game(game_id)).seq == 0
    bot.clock.advance(6)  # the 50 s are over
    assert await s.run_due()
    assert (await bot.store.load_game(game_id)).seq == 1  # the time-out, once


async def test_after_a_crash_the_last_heartbeat_tells_the_downtime(bot: Bot):
    s = await bot.start()
    game_id = await people_game(s, {"turn_seconds": 60})
    bot.clock.advance(20)
    await s.run_due()  # a heartbeat at T0 + 20
    bot.clock.advance(2)  # the bot dies 2 s after its last heartbeat
    await bot.crash()
    bot.clock.advance(3600)
    s = await bot.start()
    # down from the last heartbeat: the turn has its 40 s left (less the 2 s nobody saw)
    assert s.deadline(game_id) == T0 + 60 + 3602
    assert await s.run_due() == []


async def test_abandonment_counts_only_the_time_the_bot_was_up(tmp_path: Path):
    bot = Bot(tmp_path / "abandon.sqlite3", abandon_after=3 * DAY)
    try:
        s = await bot.start()
        game_id = await people_game(s, {"turn_seconds": None})  # no turn timer, only idleness
        bot.clock.advance(DAY)
        await bot.stop()
        bot.clock.advance(4 * DAY)  # four days down
        s = await bot.start()
        assert await s.run_due() == []
        assert s.status(game_id) == "playing"
        bot.clock.advance(2 * DAY - 60)  # 3 days up, less a minute
        assert await s.run_due() == []
        # a restart in between keeps the outage in mind
        await bot.stop()
        s = await bot.start()
        assert await s.run_due() == []
        bot.clock.advance(61)
        out = await s.run_due()
        assert any(isinstance(m, GameOver) and m.reason == "abandoned" for m in out)
        assert (await bot.store.load_game(game_id)).status == "finished"
    finally:
        await bot.stop()


def test_the_system_clock_is_monotonic_within_a_run(monkeypatch):
    clock = SystemClock()
    before = clock.now()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 3600)  # the wall clock steps back
    after = clock.now()
    assert 0 <= after - before < 5
    monkeypatch.setattr(time, "time", lambda: real() + 3600)  # and forward
    assert 0 <= clock.now() - after < 5


async def test_a_timer_on_a_stepped_back_clock_fires_on_time(monkeypatch, tmp_path: Path):
    """A real timer loop on the system clock: the wall clock stepping back an hour does not
    delay the lobby expiry (0.5 s)."""
    store = SqliteStore(tmp_path / "wall.sqlite3")
    await store.open()
    config = ServiceConfig(pictures=False, lobby_expiry=0.5, tick_seconds=0.05)
    service = GameService(store, config=config)
    await service.start()
    try:
        await service.register_player("alice", "Alice")
        game_id, _ = await service.create_game("alice", "rummikub")
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() - 3600)
        started = time.monotonic()
        while service.status(game_id) == "lobby":
            assert time.monotonic() - started < 5, "the expiry did not fire"
            await asyncio.sleep(0.05)
        assert (await store.load_game(game_id)).status == "cancelled"
    finally:
        await service.stop()
        await store.close()


async def test_the_timer_loop_skips_a_busy_game_and_comes_back(bot: Bot):
    s = await bot.start()
    busy = await people_game(s, {"turn_seconds": 60})
    free = await people_game(s, {"turn_seconds": 60})
    bot.clock.advance(61)
    lock = s.registry.games[busy].lock
    await lock.acquire()  # e.g. a commit on its way
    try:
        out = await asyncio.wait_for(s.run_due(), 2)  # never waits for the busy game
        assert {m.game_id for m in out} == {free}
    finally:
        lock.release()
    out = await s.run_due()  # the next tick
    assert {m.game_id for m in out} == {busy}
    assert (await bot.store.load_game(busy)).seq == 1
    assert (await bot.store.load_game(free)).seq == 1
