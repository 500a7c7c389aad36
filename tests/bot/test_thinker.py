"""Computer players' worker process under attack (issue 14), with a real worker process.

- the worker stopped with SIGSTOP while a computer player waits for it: the person's command
  answers at once, another game's timer fires on time, the computer player moves after the
  think timeout (chosen by a cheaper level on the loop), and the stopped worker is killed and
  replaced;
- a worker killed, or stopped, during its warm-up is replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig
from bot.service.thinker import Thinker
from bot.store import SqliteStore

T0 = 1_700_000_000.0


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            state = next(line for line in status if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return False
    return "zombie" not in state and "(dead)" not in state


async def wait_until(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        await asyncio.sleep(0.05)


async def ready(thinker: Thinker, seconds: float = 60.0) -> int:
    """Warm the worker up (at most ``seconds``); its pid."""

    def up() -> bool:
        thinker.warm_up()
        return thinker.ready

    await wait_until(up, seconds, "the worker is ready")
    return thinker.worker_pid


@pytest.fixture
async def world(tmp_path: Path):
    clock = ManualClock(T0)
    store = SqliteStore(tmp_path / "thinker.sqlite3")
    await store.open()
    config = ServiceConfig(
        pictures=False, bot_pause=0.0, think_timeout=1.5, worker_restart_after=0.2
    )
    service = GameService(store, config=config, clock=clock)
    await service.start(run_timers=False)
    stopped: list[int] = []
    try:
        yield service, clock, store, stopped
    finally:
        for pid in stopped:  # never leave a stopped process behind
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        await service.stop()
        await store.close()


async def test_a_stopped_worker_stops_nobody(world):
    service, clock, store, stopped = world
    for person in ("alice", "bob", "carol"):
        await service.register_player(person, person.title(), "en")
    # a person against a computer player that thinks in the worker
    game, _ = await service.create_game("alice", "rummikub", seed=3)
    await service.add_bot(game, "alice", "medium")
    # a people-only game with a turn timer
    other, _ = await service.create_game("bob", "rummikub", {"turn_seconds": 30}, seed=4)
    await service.join(other, "carol")
    assert not errors(await service.start_game(other, "bob"))
    thinker = service.computer.thinker
    pid = await ready(thinker)
    assert not errors(await service.start_game(game, "alice"))
    await service.wait_idle()
    live = service.registry.games[game]
    assert live.seats[live.state.current].player_id == "alice"
    seq = (await store.load_game(game)).seq

    os.kill(pid, signal.SIGSTOP)
    stopped.append(pid)
    assert not errors(await service.handle(game, "alice", "draw"))  # now the computer thinks
    await asyncio.sleep(0.1)
    assert live.bot_task is not None and not live.bot_task.done()
    # the person's next command is answered at once (the lock is not held while waiting)
    started = time.monotonic()
    (reply,) = errors(await service.handle(game, "alice", "draw"))
    assert reply.code == "turn.not_yours"
    assert time.monotonic() - started < 0.5
    # the other game's turn timer fires on time
    clock.advance(31)
    started = time.monotonic()
    out = await service.run_due()
    assert time.monotonic() - started < 0.5
    assert any(m.game_id == other for m in out)
    assert (await store.load_game(other)).seq == 1
    # after the think timeout a cheaper player moves, and the stopped worker is replaced
    await asyncio.wait_for(service.wait_idle(), 20)
    assert live.seats[live.state.current].player_id == "alice"
    assert (await store.load_game(game)).seq == seq + 2
    assert thinker.restarts >= 1
    await wait_until(lambda: not alive(pid), 10, "the stopped worker is killed")
    new_pid = await ready(thinker)
    assert new_pid != pid and alive(new_pid)
    # the new worker thinks for the next move
    answers = thinker.answers
    assert not errors(await service.handle(game, "alice", "draw"))
    await asyncio.wait_for(service.wait_idle(), 20)
    assert thinker.answers == answers + 1


async def test_a_worker_killed_during_its_warm_up_is_restarted():
    thinker = Thinker(restart_after=0.2)
    try:
        thinker.warm_up()
        (pid,) = thinker.worker_pids()
        os.kill(pid, signal.SIGKILL)
        new_pid = await ready(thinker)
        assert new_pid != pid and thinker.restarts == 1
    finally:
        await thinker.close()


async def test_a_worker_stopped_during_its_warm_up_is_replaced():
    thinker = Thinker(restart_after=0.2, warm_up_timeout=1.0)
    pid = None
    try:
        thinker.warm_up()
        (pid,) = thinker.worker_pids()
        os.kill(pid, signal.SIGSTOP)

        def replaced() -> bool:
            thinker.warm_up()
            return thinker.restarts == 1

        await wait_until(replaced, 10, "the stopped worker is replaced")
        thinker.warm_up_timeout = 60.0  # the new one may take its time on a busy machine
        new_pid = await ready(thinker)
        assert new_pid != pid and thinker.restarts == 1
        await wait_until(lambda: not alive(pid), 10, "the stopped worker is killed")
    finally:
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        await thinker.close()


async def test_closing_never_waits_for_a_stopped_worker():
    thinker = Thinker()
    pid = await ready(thinker)
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        await thinker.close()
        assert time.monotonic() - started < 10
        await wait_until(lambda: not alive(pid), 10, "the stopped worker is killed")
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
