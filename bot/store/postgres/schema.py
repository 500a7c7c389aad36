"""The PostgreSQL schema: numbered forward migrations in
``bot/store/migrations_pg/NNNN_name.sql`` and a ``schema_version`` table.

Migration ``NNNN`` brings ``schema_version.version`` from ``NNNN - 1`` to ``NNNN``. Never edit a
published file; add the next number. All of them run in the opening transaction, under an
advisory lock, so two processes opening a new database at once migrate it once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources

import asyncpg

from ..base import StoreError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

#: ``schema_version.application``: tells our databases from another program's
APPLICATION = "rummy-bot"
#: the advisory lock key of opening (migrations, the owner lease): "RUMB"
LOCK_KEY = 0x52554D42
#: the advisory locks of the leases since migration 0004 (``(class, key)``): a write takes
#: them shared, a takeover exclusive; the key is the shard, or OWNER_KEY for the owner lease
LEASE_LOCK_CLASS = 0x4C53  # "LS"
OWNER_KEY = -1


def _load() -> tuple[tuple[str, ...], tuple[str, ...]]:
    found: dict[int, tuple[str, str]] = {}
    folder = resources.files(__package__.rpartition(".")[0]).joinpath("migrations_pg")
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found[int(match[1])] = (entry.name, entry.read_text(encoding="utf-8"))
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"bot/store/migrations_pg: numbers {numbers} are not 1, 2, 3, ...")
    return tuple(found[n][0] for n in numbers), tuple(found[n][1] for n in numbers)


#: the migration files' names and scripts: ``MIGRATIONS[i]`` brings version i to i + 1
MIGRATION_FILES, MIGRATIONS = _load()
SCHEMA_VERSION = len(MIGRATIONS)


async def identity(conn: asyncpg.Connection) -> tuple[int | None, set[str]]:
    """(the stored schema version, None without a schema_version table; the tables of the
    connection's current schema)."""
    tables = {
        r[0]
        for r in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
    }
    if "schema_version" not in tables:
        return None, tables
    row = await conn.fetchrow("SELECT version, application FROM schema_version")
    if row is None or row[1] != APPLICATION:
        raise StoreError(
            "this PostgreSQL database belongs to another program (its schema_version table is "
            "not rummy-bot's); use a database of its own (DATABASE_URL)",
            code="foreign",
        )
    return int(row[0]), tables


def check_identity(version: int | None, tables: set[str], where: str) -> int:
    """The stored version (0 for an empty database); refuses another program's database and a
    newer schema."""
    if version is None:
        if tables:
            raise StoreError(
                f"{where} holds tables of another program ({', '.join(sorted(tables)[:5])}) "
                "and no rummy-bot schema; use a database of its own",
                code="foreign",
            )
        return 0
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{where} has schema version {version}, newer than this program knows "
            f"({SCHEMA_VERSION}); run a newer rummy-bot",
            code="future",
        )
    return version


async def migrate(
    conn: asyncpg.Connection, version: int, *, on_step: Callable[[int], object] | None = None
) -> None:
    """Run the migrations after ``version`` (inside the caller's transaction)."""
    if version == 0:
        await conn.execute(
            "CREATE TABLE schema_version (version INTEGER NOT NULL, application TEXT NOT NULL)"
        )
        await conn.execute(
            "INSERT INTO schema_version (version, application) VALUES (0, $1)", APPLICATION
        )
    for number in range(version, SCHEMA_VERSION):
        if on_step is not None:
            on_step(number + 1)
        await conn.execute(MIGRATIONS[number])
        await conn.execute("UPDATE schema_version SET version = $1", number + 1)
