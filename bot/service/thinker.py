"""Computer players think in a worker process, off the event loop.

A computer player's choice (``engine.ai.choose_move``) is the most expensive thing the service
does per computer move, and on the event loop it delays every other game's commands (a hard
Stein position can take the solver a tenth of a second). The :class:`Thinker` hands it to one
worker process of a standard :class:`concurrent.futures.ProcessPoolExecutor`: the request is the
game's committed JSON, the seat and the level; the answer is the command text. The worker loads
the game and asks the same computer player the service would ask itself
(:func:`bot.service.players.computer_player`); computer players are deterministic per game
state, so the move is the same wherever it was chosen.

The thinker is only a way to save the event loop's time: when it is not running (yet), fails
or dies, :meth:`Thinker.choose` raises (or its future fails with) :class:`ThinkerError` and the
service chooses on the loop as before. A broken pool is replaced on a later request
(``restart_after`` seconds later): a worker that died, one killed during its warm-up, one whose
warm-up takes longer than ``warm_up_timeout``, and one the service gave up waiting for
(:meth:`Thinker.replace`, e.g. a stopped or hung process, which is killed first).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from engine.game import load_game
from engine.variants import Variant, adopt, plugins

from .players import computer_player

log = logging.getLogger(__name__)

RESTART_AFTER = 5.0  # seconds before a broken worker is started again
WARM_UP_TIMEOUT = 60.0  # a worker that has not warmed up by then is killed and replaced


class ThinkerError(Exception):
    """The worker could not answer (not started, died, or failed on this request)."""


class Thinker:
    """One worker process for computer players' choices (see the module docstring)."""

    def __init__(
        self, *, restart_after: float = RESTART_AFTER, warm_up_timeout: float = WARM_UP_TIMEOUT
    ) -> None:
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._warming: concurrent.futures.Future[Any] | None = None
        self._warm_since = 0.0
        self.restart_after = restart_after
        self.warm_up_timeout = warm_up_timeout
        self._failed_at = -restart_after
        self._closed = False
        self.answers = 0  # moves the worker chose
        self.restarts = 0  # workers replaced after they died, hung or failed to warm up

    @property
    def worker_pid(self) -> int | None:
        """The worker's process id, once it has started."""
        return self._warming.result() if self.ready and self._warming is not None else None

    @property
    def ready(self) -> bool:
        """The worker has started and answered its warm-up request."""
        warming = self._warming
        return (
            self._pool is not None
            and warming is not None
            and warming.done()
            and warming.exception() is None
        )

    def warm_up(self) -> None:
        """Start the worker in the background (if it is not running); returns at once. A
        worker that died during its warm-up, or takes too long, is replaced."""
        if self._closed:
            return
        if self._pool is not None:
            warming = self._warming
            if warming is not None and warming.done() and warming.exception() is not None:
                log.warning("the computer players' worker failed to start: %s", warming.exception())
                self._broken()
            elif (
                warming is not None
                and not warming.done()
                and time.monotonic() - self._warm_since > self.warm_up_timeout
            ):
                self.replace("its warm-up takes too long")
            return
        if time.monotonic() - self._failed_at < self.restart_after:
            return
        # spawn, not fork: the service runs threads (the store's sqlite3 thread) that a fork would copy mid-step
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), plugins()),
        )
        self._warm_since = time.monotonic()
        self._warming = self._pool.submit(_warm)

    def worker_pids(self) -> list[int]:
        """The process ids of the pool's worker processes (also before the warm-up answered)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {} if pool is not None else {}
        return [p.pid for p in list(processes.values()) if p.pid is not None]

    def replace(self, reason: str) -> None:
        """Give up on the worker (it hangs, or was stopped): kill it; a new one starts later."""
        if self._pool is None:
            return
        log.warning("killing the computer players' worker (%s); a new one starts later", reason)
        for pid in self.worker_pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self._broken()

    def choose(self, state_json: str, seat: int, level: str) -> asyncio.Future[str | None]:
        """The computer player's command text for ``seat`` in the game ``state_json``, as a
        future; raises (or the future fails with) :class:`ThinkerError`."""
        if not self.ready:
            self.warm_up()
            raise ThinkerError("the worker is not running")
        assert self._pool is not None
        try:
            job = self._pool.submit(think, state_json, seat, level)
        except (BrokenProcessPool, RuntimeError) as exc:
            self._broken()
            raise ThinkerError(f"the worker stopped: {exc}") from exc
        return asyncio.ensure_future(self._answer(job))

    async def _answer(self, job: concurrent.futures.Future[tuple[str | None, str | None]]):
        try:
            text, error = await asyncio.wrap_future(job)
        except asyncio.CancelledError:
            job.cancel()
            raise
        except BrokenProcessPool as exc:
            self._broken()
            raise ThinkerError("the worker stopped") from exc
        if error is not None:
            raise ThinkerError(error)
        self.answers += 1
        return text

    def _broken(self) -> None:
        """The pool lost its worker: think on the loop for a while, then start a new one."""
        if not self._closed:
            log.warning("the computer players' worker stopped; thinking on the event loop")
        pool, self._pool, self._warming = self._pool, None, None
        self._failed_at = time.monotonic()
        if pool is not None:
            self.restarts += 1
            _shutdown_now(pool)

    async def close(self) -> None:
        """Stop the worker: it finishes its request and exits, or is killed after a grace
        period (a stopped or hung worker never holds up the service's shutdown)."""
        self._closed = True
        pool, self._pool, self._warming = self._pool, None, None
        if pool is not None:
            processes = list((getattr(pool, "_processes", None) or {}).values())
            _shutdown_now(pool)
            await asyncio.to_thread(_reap, processes, 2.0)


def _shutdown_now(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)


def _reap(processes: list[Any], grace: float) -> None:
    """Wait up to ``grace`` seconds for the worker processes to exit, then kill them."""
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)


# ------------------------------------------------------------------------------ the worker

_players: dict[str, Any] = {}


def _start_worker(parent: int, found: tuple[Variant, ...]) -> None:
    """In the worker: watch the parent, and know the variants registered in the parent at run
    time (a spawned process imports only the built-in ones). Ctrl-C in a terminal reaches the
    whole process group: the worker ignores it, the service stops it (:meth:`Thinker.close`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(parent)
    adopt(found)


def _watch_parent(parent: int) -> None:
    """In the worker: exit when the service's process is gone (killed, or ended without
    shutting the pool down), so no worker outlives its service."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _warm() -> int:
    """The worker's pid (answered once the worker has imported what :func:`think` needs)."""
    return os.getpid()


def think(state_json: str, seat: int, level: str) -> tuple[str | None, str | None]:
    """In the worker: (the command text, None), or (None, what went wrong)."""
    try:
        player = _players.get(level)
        if player is None:
            player = _players[level] = computer_player(level)
        return player.choose(load_game(state_json), seat), None
    except Exception as exc:  # the service then chooses on the loop, and logs it there
        with contextlib.suppress(Exception):
            log.exception("computer player failed in the worker")
        return None, f"{type(exc).__name__}: {exc}"
