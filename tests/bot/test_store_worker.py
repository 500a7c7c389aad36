"""The store's connection thread (bot/store/worker.py): jobs run in order on one thread, their
results and errors come back to the event loop, a cancelled waiter does not cancel its job, and
closing ends the thread."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from bot.store.worker import Connection, live_threads


def memory() -> Connection:
    return Connection(lambda: sqlite3.connect(":memory:", isolation_level=None), name="test")


async def test_jobs_run_in_order_on_one_thread_and_closing_ends_it():
    db = memory()
    await db.open()
    threads: list[threading.Thread] = []

    def job(n: int):
        def run(conn: sqlite3.Connection) -> int:
            threads.append(threading.current_thread())
            return conn.execute("SELECT ?", (n,)).fetchone()[0]

        return run

    futures = [db.submit(job(n)) for n in range(20)]  # queued at once, before any await
    assert await asyncio.gather(*futures) == list(range(20))
    assert len(set(threads)) == 1 and threads[0] is not threading.current_thread()
    assert threads[0] in live_threads()
    await db.close()
    threads[0].join(5)
    assert not threads[0].is_alive() and threads[0] not in live_threads()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        await db.call(lambda conn: None)


async def test_errors_come_back_as_they_are_and_a_cancelled_waiter_keeps_its_job():
    db = memory()
    await db.open()
    try:
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            await db.call(lambda conn: conn.execute("SELECT * FROM nowhere"))
        await db.call(lambda conn: conn.execute("CREATE TABLE t (x)"))
        waiter = asyncio.ensure_future(
            db.call(lambda conn: conn.execute("INSERT INTO t VALUES (1)"))
        )
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert await db.call(lambda conn: conn.execute("SELECT count(*) FROM t").fetchone()[0]) == 1
    finally:
        await db.close()


async def test_a_failed_connect_leaves_no_thread():
    def refuse() -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    before = set(live_threads())
    db = Connection(refuse, name="refused")
    with pytest.raises(sqlite3.OperationalError):
        await db.open()
    await asyncio.sleep(0.05)
    assert set(live_threads()) <= before
    await db.close()  # closing again is harmless
