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
service chooses on the loop as before. A broken pool is replaced on a later request.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)

RESTART_AFTER = 5.0  # seconds before a broken worker is started again


class ThinkerError(Exception):
    """The worker could not answer (not started, died, or failed on this request)."""


class Thinker:
    """One worker process for computer players' choices (see the module docstring)."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._warming: concurrent.futures.Future[Any] | None = None
        self._failed_at = -RESTART_AFTER
        self._closed = False
        self.answers = 0  # moves the worker chose

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
        """Start the worker in the background (if it is not running); returns at once."""
        if self._closed or self._pool is not None:
            return
        if time.monotonic() - self._failed_at < RESTART_AFTER:
            return
        # spawn, not fork: the service runs threads (aiosqlite) that a fork would copy mid-step
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_watch_parent,
            initargs=(os.getpid(),),
        )
        self._warming = self._pool.submit(_warm)

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
            pool.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        self._closed = True
        pool, self._pool, self._warming = self._pool, None, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


# ------------------------------------------------------------------------------ the worker

_players: dict[str, Any] = {}


def _watch_parent(parent: int) -> None:
    """In the worker: exit when the service's process is gone (killed, or ended without
    shutting the pool down), so no worker outlives its service."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _warm() -> int:
    """Import what :func:`think` needs, so the first real request is not slow; the pid."""
    from engine.game import load_game  # noqa: F401

    from .players import computer_player  # noqa: F401

    return os.getpid()


def think(state_json: str, seat: int, level: str) -> tuple[str | None, str | None]:
    """In the worker: (the command text, None), or (None, what went wrong)."""
    from engine.game import load_game

    from .players import computer_player

    try:
        player = _players.get(level)
        if player is None:
            player = _players[level] = computer_player(level)
        return player.choose(load_game(state_json), seat), None
    except Exception as exc:  # the service then chooses on the loop, and logs it there
        with contextlib.suppress(Exception):
            log.exception("computer player failed in the worker")
        return None, f"{type(exc).__name__}: {exc}"
