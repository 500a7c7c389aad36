"""The stores the contract suite checks: one factory per implementation.

A factory makes stores over ONE database of its own (a fresh one per test) and offers the few
things a test needs beyond the :class:`~bot.store.Store` interface: a read-only store, a way for
"another process" to take the owner lease, and a row count. A PostgreSQL store plugs in by adding
its factory to :data:`FACTORIES` (for example skipped unless a test database URL is set).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Protocol

from bot.store import SqliteStore, Store


class StoreFactory(Protocol):
    name: str

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


#: every store implementation the suite runs against
FACTORIES: list[type] = [SqliteFactory]
