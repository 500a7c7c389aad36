"""The PostgreSQL store's group-commit thread (bot/store/postgres/writer.py), on a real server:

- closing the store commits the writes queued before it, ends the thread and refuses later
  writes (``code="closed"``);
- a caller cancelled while its write is held in the database: the write goes on, and a read of
  its game (what the service's cancelled commit does) waits for it and sees it;
- the connection of a batch the thread holds is cut: the batch is acknowledged only as far as it
  was committed (here: redone on a fresh connection, exactly once), and the store goes on.

A write is held by a table lock taken from outside the store: the batch waits inside the server
until the lock is given back, whatever the timing of this test."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.store import StoreError
from bot.store.postgres.store import PostgresStore
from tests.pg import PgServer
from tests.store_contract.helpers import started, write


def writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("store-writer:")]


@asynccontextmanager
async def table_locked(url: str) -> AsyncIterator[asyncpg.Connection]:
    """The games table locked against writes by a connection outside the store, until the block
    ends."""
    conn = await asyncpg.connect(url)
    try:
        transaction = conn.transaction()
        await transaction.start()
        await conn.execute("LOCK TABLE games IN EXCLUSIVE MODE")
        try:
            yield conn
        finally:
            await transaction.rollback()
    finally:
        await conn.close()


async def waiting_backends(server: PgServer, url: str, count: int = 1) -> list[int]:
    """The store's backends waiting for a lock (at least ``count``: waits until there are)."""
    database = urlsplit(url).path.lstrip("/")
    for _ in range(500):
        rows = server.sql(
            server.base_url,
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' "
            "AND application_name LIKE 'rummy-bot%'",
            database,
        )
        if len(rows) >= count:
            return [int(r[0]) for r in rows]
        await asyncio.sleep(0.01)
    raise AssertionError("the write never reached the lock")


@asynccontextmanager
async def open_store(url: str, **options: object) -> AsyncIterator[PostgresStore]:
    """A store opened on ``url`` with game g1 started, closed when the block ends."""
    store = PostgresStore(url, **options)
    await store.open()
    try:
        await started(store)
        yield store
    finally:
        await store.close()


async def test_close_commits_what_is_queued_and_ends_the_thread(pg_url: str):
    before = len(writer_threads())
    store = PostgresStore(pg_url)
    await store.open()
    assert len(writer_threads()) == before + 1
    for game_id in ("g1", "g2", "g3"):
        await started(store, game_id)
    writes = [
        asyncio.ensure_future(store.append_command(write(seq, game_id)))
        for seq in (1, 2)
        for game_id in ("g1", "g2", "g3")
    ]
    await asyncio.sleep(0)  # all queued
    await store.close()
    assert all(w.done() and w.exception() is None for w in writes)
    assert len(writer_threads()) == before
    with pytest.raises(StoreError) as refused:
        await store.append_command(write(3, "g1"))
    assert refused.value.code == "closed"
    reader = PostgresStore(pg_url, readonly=True)
    await reader.open()
    try:
        for game_id in ("g1", "g2", "g3"):
            assert [c.seq for c in await reader.commands(game_id)] == [1, 2]
    finally:
        await reader.close()


async def test_a_cancelled_callers_write_is_read_back_once_it_is_committed(pg_url: str):
    async with open_store(pg_url) as store:
        async with table_locked(pg_url):
            task = asyncio.ensure_future(store.append_command(write(1)))
            await asyncio.sleep(0)  # queued
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # the service's read-back of a cancelled commit: it waits for the write
            read = asyncio.ensure_future(store.commands("g1"))
            await asyncio.sleep(0.2)
            assert not read.done()
        assert [c.seq for c in await read] == [1]
        assert (await store.load_game("g1")).seq == 1


async def test_a_batch_whose_connection_is_cut_is_acknowledged_only_once_committed(
    pg_server: PgServer, pg_url: str
):
    async with open_store(pg_url) as store:
        async with table_locked(pg_url):
            pending = asyncio.ensure_future(store.append_command(write(1)))
            (pid,) = await waiting_backends(pg_server, pg_url)
            pg_server.sql(pg_server.base_url, "SELECT pg_terminate_backend($1)", pid)
            # cut mid-batch: nothing was committed, so the store redoes the batch on a new
            # connection, which waits for the lock again
            await waiting_backends(pg_server, pg_url)
            assert not pending.done()
        await pending  # acknowledged: committed once
        assert [c.seq for c in await store.commands("g1")] == [1]
        await store.append_command(write(2))  # and the store goes on
        assert (await store.load_game("g1")).seq == 2


async def test_a_write_fails_while_no_connection_can_be_made_and_goes_through_after(
    pg_url: str,
):
    """The writer thread's connections cut while the database takes no new one: the write
    fails with ``code="unavailable"`` (nothing acknowledged: the service answers "nothing
    changed"), and the next one, once connections can be made again, commits."""
    async with open_store(pg_url, connect_timeout=2) as store:
        database = urlsplit(pg_url).path.lstrip("/")
        server_url = pg_url.replace(f"/{database}?", "/postgres?")
        conn = await asyncpg.connect(server_url)
        try:
            await conn.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                database,
            )
            try:
                with pytest.raises(StoreError) as failed:
                    await store.append_command(write(1))
            finally:
                await conn.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")
            assert failed.value.code == "unavailable"
            assert "nothing was acknowledged" in str(failed.value)
        finally:
            await conn.close()
        assert await store.commands("g1") == []
        await store.append_command(write(1))
        assert [c.seq for c in await store.commands("g1")] == [1]


async def test_writes_queued_while_a_batch_commits_form_the_next_batch_without_a_wake(
    pg_server: PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
):
    """One batch commits at a time; the writes queued meanwhile (here in three passes of the
    loop) wait for it and go as ONE next batch, taken by the running drainer: the writer
    thread is not woken for them (each wake costs the service's thread the GIL)."""
    batches: list[list[str]] = []
    wakes: list[int] = []
    commit = PostgresStore._commit_writes
    wake = PostgresStore._wake

    async def counted_commit(self, writes, *args, **kwargs):  # type: ignore[no-untyped-def]
        batches.append([w.game_id for w in writes])
        return await commit(self, writes, *args, **kwargs)

    def counted_wake(self) -> None:  # type: ignore[no-untyped-def]
        wakes.append(1)
        wake(self)

    monkeypatch.setattr(PostgresStore, "_commit_writes", counted_commit)
    monkeypatch.setattr(PostgresStore, "_wake", counted_wake)
    async with open_store(pg_url) as store:
        for game_id in ("g2", "g3", "g4"):
            await started(store, game_id)
        async with table_locked(pg_url):
            first = asyncio.ensure_future(store.append_command(write(1, "g1")))
            await waiting_backends(pg_server, pg_url)  # the first batch is in the server
            later = []
            for game_id in ("g2", "g3", "g4"):
                later.append(asyncio.ensure_future(store.append_command(write(1, game_id))))
                await asyncio.sleep(0)  # a pass of the loop of its own
            await asyncio.sleep(0.1)
            assert not first.done() and not any(w.done() for w in later)
        await first
        await asyncio.gather(*later)
        assert batches == [["g1"], ["g2", "g3", "g4"]]
        assert len(wakes) == 1
        for game_id in ("g1", "g2", "g3", "g4"):
            assert [c.seq for c in await store.commands(game_id)] == [1]
