"""The SQLite schema: numbered forward migrations in ``bot/store/migrations/NNNN_name.sql``.

Migration ``NNNN`` brings ``PRAGMA user_version`` from ``NNNN - 1`` to ``NNNN``. Never edit a
published file; add the next number. Each runs statement by statement inside the opening
transaction (:func:`statements` splits a script, triggers included).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from importlib import resources

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def _load() -> tuple[tuple[str, ...], tuple[str, ...]]:
    found: dict[int, tuple[str, str]] = {}
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found[int(match[1])] = (entry.name, entry.read_text(encoding="utf-8"))
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"bot/store/migrations: numbers {numbers} are not 1, 2, 3, ...")
    return tuple(found[n][0] for n in numbers), tuple(found[n][1] for n in numbers)


#: the migration files' names and scripts: ``MIGRATIONS[i]`` brings user_version i to i + 1
MIGRATION_FILES, MIGRATIONS = _load()
SCHEMA_VERSION = len(MIGRATIONS)
#: ``PRAGMA application_id`` of a rummy-bot database ("RUMB"): tells our files from others.
APPLICATION_ID = 0x52554D42

#: the tables of each schema version (a file that lacks some of them is damaged)
TABLES: dict[int, frozenset[str]] = {
    1: frozenset({"players", "games", "commands", "results", "kv"}),
    2: frozenset({"players", "games", "commands", "results", "kv", "owner", "quarantine"}),
    3: frozenset(
        {"players", "games", "commands", "results", "kv", "owner", "quarantine", "shard_leases"}
    ),
}


def statements(script: str) -> Iterator[str]:
    """The statements of a migration script, one by one (triggers included)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if _code(buffer):
                yield buffer.strip()
            buffer = ""
    if _code(buffer):
        raise ValueError(f"incomplete statement in a migration: {buffer.strip()[:60]}")


def _code(text: str) -> bool:
    """Whether ``text`` holds more than blank lines and ``--`` comments."""
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())


def migrate(
    conn: sqlite3.Connection, version: int, *, on_step: Callable[[int], object] | None = None
) -> None:
    """Run the migrations after ``version`` on ``conn`` (inside the caller's transaction),
    setting ``user_version`` after each; ``on_step(number)`` is called before each."""
    for number in range(version, SCHEMA_VERSION):
        if on_step is not None:
            on_step(number + 1)
        for statement in statements(MIGRATIONS[number]):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number + 1}")
