"""The stores the contract suite checks: one factory per implementation.

A factory makes stores over ONE database of its own (a fresh one per test) and offers the few
things a test needs beyond the :class:`~bot.store.Store` interface: a read-only store, a way for
"another process" to take the owner lease, and a row count. Each factory is made by
``Factory.make(tmp_path, request)``; the PostgreSQL one takes a fresh database of the session's
own server (tests/pg.py), so no test is skipped for want of a server.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Protocol

import pytest

from bot.store import SqliteStore, Store, open_store
from tests.pg import PgServer


class StoreFactory(Protocol):
    name: str
    #: the database's URL (``sqlite:///...`` or ``postgresql://...``)
    url: str

    async def open(self, **options: Any) -> Store:
        """A writable store on the factory's database, opened (it holds the owner lease)."""

    async def reader(self) -> Store:
        """A read-only store on the same database, opened (no lease, every write refused)."""

    def steal_lease(self, token: str) -> None:
        """What another process does when it takes the owner lease over: afterwards the lease
        carries ``token`` and names a live holder elsewhere."""

    def count_rows(self, table: str) -> int:
        """How many rows the database holds in ``table`` (players, games, commands, results,
        kv), looked at from outside the store."""


class SqliteFactory:
    """:class:`~bot.store.SqliteStore` on a file of its own."""

    name = "sqlite"

    def __init__(self, directory: Path) -> None:
        self.path = directory / "contract" / "rummy.sqlite3"
        self.url = f"sqlite:///{self.path}"

    @classmethod
    def make(cls, directory: Path, request: pytest.FixtureRequest) -> SqliteFactory:
        return cls(directory)

    async def open(self, **options: Any) -> Store:
        store = SqliteStore(self.path, **options)
        await store.open()
        return store

    async def reader(self) -> Store:
        return await self.open(readonly=True)

    def _raw(self, sql: str) -> list[tuple[Any, ...]]:
        with closing(sqlite3.connect(self.path, timeout=10)) as db:
            rows = db.execute(sql).fetchall()
            db.commit()
            return rows

    def steal_lease(self, token: str) -> None:
        self._raw(f"UPDATE owner SET token = '{token}', pid = 1, host = 'elsewhere'")

    def count_rows(self, table: str) -> int:
        assert table.isidentifier()
        return int(self._raw(f"SELECT count(*) FROM {table}")[0][0])


class PostgresFactory:
    """:class:`~bot.store.postgres.PostgresStore` on a fresh database of the test session's
    PostgreSQL server (fixture ``pg_server`` of tests/pg.py)."""

    name = "postgres"

    def __init__(self, server: PgServer) -> None:
        self.server = server
        self.url = server.new_database()

    @classmethod
    def make(cls, directory: Path, request: pytest.FixtureRequest) -> PostgresFactory:
        return cls(request.getfixturevalue("pg_server"))

    async def open(self, **options: Any) -> Store:
        store = open_store(self.url, **options)
        await store.open()
        return store

    async def reader(self) -> Store:
        return await self.open(readonly=True)

    def _raw(self, sql: str) -> list[tuple[Any, ...]]:
        return self.server.sql(self.url, sql)

    def steal_lease(self, token: str) -> None:
        self._raw(f"UPDATE owner SET token = '{token}', pid = 1, host = 'elsewhere'")

    def count_rows(self, table: str) -> int:
        assert table.isidentifier()
        return int(self._raw(f"SELECT count(*) FROM {table}")[0][0])


#: every store implementation the suite runs against
FACTORIES: list[type] = [SqliteFactory, PostgresFactory]
