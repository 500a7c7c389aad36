"""One SQLite connection on a thread of its own, driven from asyncio with the standard library.

A :class:`Connection` owns a ``sqlite3`` connection and the one thread that ever touches it.
Work is a plain function of the connection, run as ONE job on that thread (however many
statements it has): :meth:`Connection.call` awaits it, :meth:`Connection.submit` queues it at
once (no round trip through the event loop first) and returns its future. Jobs run in the order
they were queued; each result is handed back with one ``loop.call_soon_threadsafe``.

The thread is not a daemon, so a write in progress is finished before the interpreter exits;
:meth:`Connection.close` ends it. :func:`live_threads` lists the threads of connections that
were never closed (the CLI's safety net gives them a moment, then exits anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")
THREAD_PREFIX = "rummy-store"

_Job = tuple[Callable[[], Any], "asyncio.Future[Any]", asyncio.AbstractEventLoop]


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the caller stopped waiting (cancelled): the job ran all the same
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class _Thread(threading.Thread):
    """The thread of one connection: runs its jobs until told to stop."""

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=False)
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()

    def run(self) -> None:
        jobs = self.jobs
        while True:
            job = jobs.get()
            if job is None:
                return
            fn, future, loop = job
            result: Any = None
            error: BaseException | None = None
            try:
                result = fn()
            except BaseException as exc:  # handed to the caller, whatever it is
                error = exc
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_resolve, future, result, error)


class Connection:
    """A ``sqlite3`` connection used from asyncio through its own thread (see the module)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], *, name: str) -> None:
        self._connect = connect
        self._thread = _Thread(f"{THREAD_PREFIX}:{name}")
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, for functions running on its thread."""
        if self._conn is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        return self._conn

    async def open(self) -> None:
        """Start the thread and connect on it; a failure ends the thread and is raised."""
        self._thread.start()

        def connect() -> None:
            self._conn = self._connect()

        try:
            await self.submit(lambda _conn: None, before=connect)
        except BaseException:
            self._stop()
            raise

    def submit(
        self,
        fn: Callable[[sqlite3.Connection], _T],
        *,
        before: Callable[[], None] | None = None,
    ) -> asyncio.Future[_T]:
        """Queue ``fn(connection)`` on the thread NOW; its future (of the running loop)."""
        if self._closed:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()

        def job() -> _T:
            if before is not None:
                before()
            return fn(self.conn)

        self._thread.jobs.put((job, future, loop))
        return future

    async def call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """``fn(connection)`` as one job on the thread."""
        return await self.submit(fn)

    async def close(self) -> None:
        """Close the connection (after every queued job) and end the thread, whatever
        happens: a close that fails still ends the thread and is raised."""
        if self._closed:
            return
        future: asyncio.Future[None] | None = None
        if self._thread.is_alive():

            def shut(_conn: sqlite3.Connection) -> None:
                conn, self._conn = self._conn, None
                if conn is not None:
                    conn.close()

            with contextlib.suppress(sqlite3.ProgrammingError):
                future = self.submit(shut)
        self._stop()
        if future is not None:
            await future

    def _stop(self) -> None:
        self._closed = True
        self._thread.jobs.put(None)


def live_threads() -> list[threading.Thread]:
    """The threads of store connections still running (never closed), other than this one."""
    return [
        t
        for t in threading.enumerate()
        if isinstance(t, _Thread) and t is not threading.current_thread() and t.is_alive()
    ]
