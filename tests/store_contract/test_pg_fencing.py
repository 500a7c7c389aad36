"""The PostgreSQL store's fencing while a write is in flight (issue 17 item 2: a process that lost
its lease can never write a move), on a real server:

- a takeover of a shard waits for the old holder's write that is inside the server: that write
  commits (it was checked while the lease was still its holder's), the takeover follows, and
  the old holder's next write is refused with nothing written;
- the same for the owner lease of an unsharded store taken over by a new owner;
- a holder STOPPED inside a write transaction (SIGSTOP: its session idle in the transaction,
  holding the lease's shared lock) does not hold a takeover up once its lease has expired: the
  takeover ends that session (its uncommitted write is rolled back) and the old holder's next
  write is refused; while its lease is live, a takeover round neither waits for it nor ends it;
- the same for a stopped holder's write of no game (a player row: a row lock, no lease lock),
  which would hold up every other process's write of that row.

A write is held inside the server by a table lock taken from outside the store (after its lease
check: the check comes first in every write), so the order is forced, whatever the timing. A
stopped holder is a connection of its store left idle inside a transaction after the lease
check, with the server's idle time-out off for it (so only the takeover can end it); the
database's ``lock_timeout`` makes a takeover that waits for it fail instead of hanging."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.store import PlayerRecord, StoreFenced, StoreOwnerLost
from bot.store.postgres.store import PostgresStore
from tests.pg import PgServer
from tests.store_contract.helpers import SEATS, T0, game, started, write
from tests.store_contract.test_pg_writer import table_locked, waiting_backends

LEASE = 30.0


def guild0() -> str:
    """A guild on shard 0 of 2."""
    return str(6000 << 22)


async def test_a_shard_takeover_waits_for_the_write_in_flight_then_fences_the_old_holder(
    pg_server: PgServer, pg_url: str
):
    async with two_holders(pg_url) as (a, b):
        async with table_locked(pg_url):
            in_flight = asyncio.ensure_future(a.append_command(write(1, "g0")))
            await waiting_backends(pg_server, pg_url, 1)  # a's write: past its lease check
            # a's lease has expired for b, which takes shard 0 over: it must wait for a's write
            takeover = asyncio.ensure_future(
                b.acquire_shards([0], now=T0 + LEASE, lease_seconds=LEASE)
            )
            await waiting_backends(pg_server, pg_url, 2)
            assert not takeover.done() and not in_flight.done()
        await in_flight  # checked while a held the lease: committed and acknowledged
        assert await takeover == {0: 2}
        assert [c.seq for c in await b.commands("g0")] == [1]
        with pytest.raises(StoreFenced):
            await a.append_command(write(2, "g0"))
        assert (await b.load_game("g0")).seq == 1
        await b.append_command(write(2, "g0"))  # the new holder goes on
        assert [c.seq for c in await b.commands("g0")] == [1, 2]


async def test_an_owner_takeover_waits_for_the_write_in_flight_then_fences_the_old_owner(
    pg_server: PgServer, pg_url: str
):
    a = PostgresStore(pg_url, lease_seconds=1.0)
    await a.open()
    try:
        await started(a, "g1")
        heartbeat = a._heartbeat  # a stops renewing: a paused process, as far as others see
        assert heartbeat is not None
        heartbeat.cancel()
        async with table_locked(pg_url):
            in_flight = asyncio.ensure_future(a.append_command(write(1, "g1")))
            await waiting_backends(pg_server, pg_url, 1)
            # until a's last heartbeat is older than its lease: then b may take it over
            ((beat,),) = pg_server.sql(pg_url, "SELECT heartbeat FROM owner")
            while time.time() - beat <= 1.5:
                await asyncio.sleep(0.1)
            b = PostgresStore(pg_url, lease_seconds=1.0)
            opening = asyncio.ensure_future(b.open())
            await waiting_backends(pg_server, pg_url, 2)
            assert not opening.done() and not in_flight.done()
        await in_flight
        await opening
        try:
            assert b.owned and b.owner_token != a.owner_token
            with pytest.raises(StoreOwnerLost):
                await a.append_command(write(2, "g1"))
            assert [c.seq for c in await b.commands("g1")] == [1]
        finally:
            await b.close()
    finally:
        await a.close()


def no_waiting(pg_server: PgServer, url: str) -> None:
    """A session of the database that waits for a lock longer than 10 s fails (for the tests
    below: a takeover that waits for a stopped holder fails instead of hanging)."""
    database = urlsplit(url).path.lstrip("/")
    pg_server.sql(pg_server.base_url, f"ALTER DATABASE {database} SET lock_timeout = '10s'")


@asynccontextmanager
async def two_holders(
    pg_url: str, *, with_game: bool = True
) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two sharded stores over the database: ``a`` holds shard 0 (with game g0 started on it),
    ``b`` is the one that may take it over; both closed at the end."""
    a = PostgresStore(pg_url, shard_count=2)
    b = PostgresStore(pg_url, shard_count=2)
    await a.open()
    await b.open()
    try:
        assert await a.acquire_shards([0], now=T0, lease_seconds=LEASE) == {0: 1}
        if with_game:
            await a.create_game(game("g0", guild_id=guild0()))
            await a.start_game(
                "g0", seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=None, at=T0
            )
        yield a, b
    finally:
        await a.close()
        await b.close()


@asynccontextmanager
async def stopped_inside_a_write(
    store: PostgresStore,
    check: str,
    *args: object,
    write: str | None = "UPDATE games SET updated_at = 1 WHERE id = 'g0'",
) -> AsyncIterator[asyncpg.Connection]:
    """One of ``store``'s connections inside a write transaction, past its lease check
    (``check``: the query a write's check runs, taking the lease's shared lock) and one
    uncommitted ``write``, then left idle as a process stopped there leaves it (the server's
    idle time-out off for it)."""
    assert store._pool is not None
    async with store._pool.acquire() as conn:
        await conn.execute("SET idle_in_transaction_session_timeout = 0")
        transaction = conn.transaction()
        await transaction.start()
        await conn.fetch(check, *args)
        if write is not None:
            await conn.execute(write)
        yield conn


async def ended(conn: asyncpg.Connection) -> bool:
    """Whether the server ended that connection's session (its pool then lets go of it)."""
    try:
        await conn.fetchval("SELECT 1")
    except (asyncpg.InterfaceError, asyncpg.PostgresError, OSError):
        return True
    return False


async def test_a_shard_takeover_ends_the_idle_transaction_of_a_stopped_holder(
    pg_server: PgServer, pg_url: str
):
    no_waiting(pg_server, pg_url)
    async with two_holders(pg_url) as (a, b):
        check = "SELECT * FROM rummy_held_shards($1, $2::int[])"
        async with stopped_inside_a_write(a, check, a._holder, [0]) as conn:
            # a's lease is live: b's round leaves the shard alone, without waiting
            assert await b.acquire_shards([0], now=T0 + 1, lease_seconds=LEASE) == {}
            assert not await ended(conn)
            # a's lease has expired: b takes the shard over, ending a's idle transaction
            assert await b.acquire_shards([0], now=T0 + LEASE, lease_seconds=LEASE) == {0: 2}
            assert await ended(conn)
        assert (await b.load_game("g0")).updated_at == T0  # a's uncommitted write: rolled back
        with pytest.raises(StoreFenced):
            await a.append_command(write(1, "g0"))
        await b.append_command(write(1, "g0"))
        assert [c.seq for c in await b.commands("g0")] == [1]


async def test_an_owner_takeover_ends_the_idle_transaction_of_a_stopped_owner(
    pg_server: PgServer, pg_url: str
):
    no_waiting(pg_server, pg_url)
    a = PostgresStore(pg_url, lease_seconds=1.0)
    await a.open()
    try:
        await started(a, "g0")
        heartbeat = a._heartbeat  # a stops renewing: a paused process, as far as others see
        assert heartbeat is not None
        heartbeat.cancel()
        async with stopped_inside_a_write(a, "SELECT * FROM rummy_owner_row()") as conn:
            ((beat,),) = pg_server.sql(pg_url, "SELECT heartbeat FROM owner")
            while time.time() - beat <= 1.5:
                await asyncio.sleep(0.1)
            b = PostgresStore(pg_url, lease_seconds=1.0)
            await b.open()
            assert await ended(conn)
        try:
            assert b.owned and b.owner_token != a.owner_token
            assert (await b.load_game("g0")).updated_at == T0
            with pytest.raises(StoreOwnerLost):
                await a.append_command(write(1, "g0"))
            await b.append_command(write(1, "g0"))
        finally:
            await b.close()
    finally:
        await a.close()


async def test_a_shard_takeover_ends_a_stopped_holders_idle_write_of_no_game(
    pg_server: PgServer, pg_url: str
):
    no_waiting(pg_server, pg_url)
    async with two_holders(pg_url, with_game=False) as (a, b):
        await a.upsert_player(PlayerRecord("bot-1", "Bot"))
        # a stopped inside a write of that player's row (a write of no game: no lease check)
        stopped = "UPDATE players SET name = 'Stopped' WHERE id = 'bot-1'"
        async with stopped_inside_a_write(a, stopped, write=None) as conn:
            assert await b.acquire_shards([0], now=T0 + 1, lease_seconds=LEASE) == {}
            assert not await ended(conn)  # a's lease is live: left alone
            assert await b.acquire_shards([0], now=T0 + LEASE, lease_seconds=LEASE) == {0: 2}
            assert await ended(conn)
        await b.upsert_player(PlayerRecord("bot-1", "Bot 2"))  # not held up by a's row lock
        assert (await b.get_player("bot-1")).name == "Bot 2"
