"""The thread of the PostgreSQL store's group commit: an event loop of its own, on which the
writer pool's connections live and the batches are committed.

On the service's event loop a commit done there took about four passes through that loop (the
writer task starts, the server's answer is read, the writer resumes, the batch's callers
resume), and at capacity each pass lasts as long as the moves of every game that is ready
meanwhile. With the commit on this thread the service's loop spends one hand-over per batch
(the batch's callers are woken with ONE ``call_soon_threadsafe``), as the SQLite store's
writer thread does; the thread's own passes are short (it runs nothing but commits)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..base import StoreError

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: how long :meth:`WriterThread.stop` waits for the thread's loop to end, seconds
STOP_TIMEOUT = 30.0


class WriterThread:
    """A daemon thread running an event loop of its own until :meth:`stop`."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        try:
            self.loop.run_forever()
        finally:
            # what is still scheduled there (nothing, after a clean stop) ends with the loop
            tasks = asyncio.all_tasks(self.loop)
            for task in tasks:
                task.cancel()
            if tasks:
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the thread's loop (callable from any thread); a stopped
        thread is a ``code="closed"`` StoreError."""
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed
            raise StoreError("the store's writer thread has stopped", code="closed") from None

    async def call(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coro`` on the thread's loop and wait for its result on the caller's loop."""
        try:
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        except RuntimeError:
            coro.close()
            raise StoreError("the store's writer thread has stopped", code="closed") from None
        return await asyncio.wrap_future(future)

    async def stop(self) -> None:
        """End the thread's loop (the tasks still on it are cancelled) and wait for the
        thread, without blocking the caller's loop."""
        with contextlib.suppress(RuntimeError):  # stopped already
            self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.to_thread(self._thread.join, STOP_TIMEOUT)
        if self._thread.is_alive():
            log.warning("the store's writer thread did not stop in %.0f s", STOP_TIMEOUT)


class ConnectionStack:
    """The writer thread's connections: a stack of open ones, a new one made when none is free.
    The group commit's one drainer holds one at a time, so there is one open (a cut one is
    dropped when given back, and the next use connects anew). Used as asyncpg's pool is (``acquire()`` as an async context manager,
    ``close()``, ``terminate()``), without its costs per use: asyncpg's pool gives a connection
    back in a shielded task of its own, four more passes through the thread's loop per batch,
    each of which waits for the GIL while the service's thread is busy."""

    def __init__(self, connect: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._connect = connect
        self._free: list[Any] = []  # asyncpg connections, the last given back on top
        self._closing = False

    async def check(self) -> None:
        """Connect one now (a server that refuses it raises asyncpg's error)."""
        self._give_back(await self._take())

    def acquire(self, timeout: float | None = None) -> _Held:
        del timeout  # a drainer always finds one free or connects (with the connect timeout)
        return _Held(self)

    async def _take(self) -> Any:
        if self._closing:
            raise StoreError("the store's writer connections are closing", code="closed")
        while self._free:
            conn = self._free.pop()
            if not conn.is_closed():
                return conn
        try:
            return await self._connect()
        except Exception as exc:
            # the store was open, so the URL is right: a server that cannot be reached or
            # refuses connections now (stopping, restarting, ALLOW_CONNECTIONS false) makes
            # this call fail as a lost connection does (nothing acknowledged, next call anew)
            raise ConnectionError(f"cannot connect again: {type(exc).__name__}: {exc}") from exc

    def _give_back(self, conn: Any) -> None:
        if conn.is_closed():
            return
        if self._closing or conn.is_in_transaction():  # a transaction left open: cut it
            conn.terminate()
            return
        self._free.append(conn)

    async def close(self) -> None:
        """Close every connection (each politely; one that does not answer is cut)."""
        self._closing = True
        free, self._free = self._free, []
        for conn in free:
            try:
                await conn.close(timeout=STOP_TIMEOUT)
            except Exception:
                conn.terminate()

    def terminate(self) -> None:
        self._closing = True
        free, self._free = self._free, []
        for conn in free:
            conn.terminate()


class _Held:
    """One connection of a :class:`ConnectionStack` for an ``async with``."""

    __slots__ = ("_conn", "_stack")

    def __init__(self, stack: ConnectionStack) -> None:
        self._stack = stack
        self._conn: Any = None

    async def __aenter__(self) -> Any:
        self._conn = await self._stack._take()
        return self._conn

    async def __aexit__(self, *exc: object) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._stack._give_back(conn)
