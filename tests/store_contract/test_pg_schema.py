"""The PostgreSQL schema: numbered migrations recorded in ``schema_version``; an older database
migrates forward when a writer opens it (its rows kept), a newer one is refused in one line, a
reader never migrates."""

from __future__ import annotations

import pytest

from bot.store import StoreError, open_store
from bot.store.postgres.schema import MIGRATION_FILES, SCHEMA_VERSION
from tests.pg import PgServer
from tests.store_contract.helpers import started, write


def test_migrations_are_numbered_files():
    assert SCHEMA_VERSION == len(MIGRATION_FILES) >= 3
    assert MIGRATION_FILES[0] == "0001_initial.sql"


async def test_a_version_1_database_migrates_forward_and_keeps_its_rows(
    pg_server: PgServer, pg_url: str
):
    first = open_store(pg_url)
    await first.open()
    await started(first, "g1")
    await first.append_command(write(1))
    await first.close()
    # what a database written by schema version 1 looks like
    for function in (
        "rummy_write_commands",
        "rummy_held_shards",
        "rummy_owner_row",
        "rummy_lock_lease_exclusive",
        "rummy_end_idle_sessions",
    ):
        pg_server.sql(pg_url, f"DROP FUNCTION {function}")
    pg_server.sql(pg_url, "DROP FUNCTION rummy_lock_leases")  # used by the two before
    pg_server.sql(pg_url, "DROP TABLE shard_leases")
    pg_server.sql(pg_url, "UPDATE schema_version SET version = 1")
    reader = open_store(pg_url, readonly=True)
    await reader.open()
    try:
        assert await reader.schema_version() == 1  # a reader never migrates
        assert await reader.shard_leases() == []
    finally:
        await reader.close()
    again = open_store(pg_url)
    await again.open()
    try:
        assert await again.schema_version() == SCHEMA_VERSION
        await again.append_command(write(2))  # the write function is back
        assert [c.seq for c in await again.commands("g1")] == [1, 2]
    finally:
        await again.close()


async def test_a_newer_schema_is_refused_in_one_line(pg_server: PgServer, pg_url: str):
    store = open_store(pg_url)
    await store.open()
    await store.close()
    pg_server.sql(pg_url, f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")
    for readonly in (False, True):
        with pytest.raises(StoreError, match="newer than this program knows") as caught:
            await open_store(pg_url, readonly=readonly).open()
        assert caught.value.code == "future" and "\n" not in str(caught.value)


async def test_an_empty_database_is_not_read_as_one(pg_url: str):
    with pytest.raises(StoreError, match="holds no rummy-bot database") as caught:
        await open_store(pg_url, readonly=True).open()
    assert caught.value.code == "missing"
    with pytest.raises(StoreError, match="holds no rummy-bot database"):
        await open_store(pg_url, create=False).open()


async def test_a_writer_stopped_inside_a_transaction_cannot_hold_its_locks_for_ever(pg_url: str):
    """A write transaction left idle (a process stopped with SIGSTOP inside it) is ended by
    the server after a lease period, so a takeover is not blocked by its row locks."""
    store = open_store(pg_url, lease_seconds=5)
    await store.open()
    try:
        setting = await store._read(
            lambda conn: conn.fetchval("SHOW idle_in_transaction_session_timeout")
        )
        assert setting == "5s"
    finally:
        await store.close()
