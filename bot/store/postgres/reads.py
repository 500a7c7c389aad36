"""The store's reads on PostgreSQL, shared by the store (a pooled connection per read) and a read
snapshot (one connection in one REPEATABLE READ transaction). Rows become the same records as
SQLite's (the row parser of :mod:`bot.store.reads`); a row that does not parse is a ``damaged``
:class:`~bot.store.base.StoreError`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg

from ..base import StoreError, StoreInvalid
from ..common import good_games
from ..lease import OWNER_COLUMNS, owner_from_row
from ..reads import (
    GAME_COLUMNS,
    RESULT_COLUMNS,
    _json_column,
    parse_game,
    parse_games,
    result_from_row,
)
from ..records import (
    STATUSES,
    UNFINISHED,
    CommandRecord,
    GameRecord,
    GameStatus,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

Query = Callable[[asyncpg.Connection], Awaitable[_T]]


def check_text(what: str, value: Any, *, optional: bool = False) -> None:
    """Refuse, before any I/O, a value PostgreSQL cannot store as text: not a string, a lone
    surrogate, or a NUL character (which PostgreSQL's text type cannot hold)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise StoreInvalid(f"{what} must be text, not {type(value).__name__}; nothing was saved")
    short = repr(value[:40] + ("..." if len(value) > 40 else ""))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise StoreInvalid(
            f"{what} {short} is not valid Unicode text (a lone surrogate at position "
            f"{exc.start}); nothing was saved"
        ) from None
    if "\x00" in value:
        raise StoreInvalid(
            f"{what} {short} holds a NUL character (position {value.index(chr(0))}), which the "
            "database cannot store; nothing was saved"
        )


def check_status(status: str | None) -> None:
    if status is not None and status not in STATUSES:
        raise StoreInvalid(f"unknown game status {status!r}")


class PgReads:
    """The read methods, over ``_read(query, doing)`` (how a subclass gets a connection)."""

    async def _read(self, query: Query[_T], doing: str = "reading") -> _T:
        raise NotImplementedError

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        check_text("player id", player_id)

        async def query(conn: asyncpg.Connection) -> PlayerRecord | None:
            row = await conn.fetchrow(
                "SELECT id, name, locale, is_bot FROM players WHERE id = $1", player_id
            )
            return None if row is None else PlayerRecord(row[0], row[1], row[2], bool(row[3]))

        return await self._read(query, f"loading player {player_id}")

    async def load_game(self, game_id: str) -> GameRecord | None:
        check_text("game id", game_id)

        async def query(conn: asyncpg.Connection) -> GameRecord | None:
            row = await conn.fetchrow(f"SELECT {GAME_COLUMNS} FROM games WHERE id = $1", game_id)
            return None if row is None else parse_game(row)

        return await self._read(query, f"loading game {game_id}")

    async def _unfinished(self) -> list[GameRecord | StoreError]:
        async def query(conn: asyncpg.Connection) -> list[GameRecord | StoreError]:
            rows = await conn.fetch(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = ANY($1::text[]) "
                "ORDER BY created_at, id",
                list(UNFINISHED),
            )
            return parse_games(rows)

        return await self._read(query, "loading the unfinished games")

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        return good_games(await self._unfinished(), on_bad)

    async def unreadable_games(self) -> list[tuple[str, str]]:
        return [
            (getattr(item, "game_id", "?"), str(item))
            for item in await self._unfinished()
            if isinstance(item, StoreError)
        ]

    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        check_status(status)

        async def query(conn: asyncpg.Connection) -> list[str]:
            if status is None:
                rows = await conn.fetch("SELECT id FROM games ORDER BY created_at, id")
            else:
                rows = await conn.fetch(
                    "SELECT id FROM games WHERE status = $1 ORDER BY created_at, id", status
                )
            return [r[0] for r in rows]

        return await self._read(query, "listing the games")

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        check_text("game id", game_id)

        async def query(conn: asyncpg.Connection) -> list[CommandRecord]:
            rows = await conn.fetch(
                "SELECT game_id, seq, seat, text, at FROM commands WHERE game_id = $1 AND "
                "seq > $2 ORDER BY seq",
                game_id,
                after_seq,
            )
            return [CommandRecord(r[0], r[1], r[2], r[3], r[4]) for r in rows]

        return await self._read(query, f"loading the commands of game {game_id}")

    async def results(self, game_id: str) -> list[ResultRow]:
        check_text("game id", game_id)

        async def query(conn: asyncpg.Connection) -> list[ResultRow]:
            rows = await conn.fetch(
                f"SELECT {RESULT_COLUMNS} FROM results WHERE game_id = $1 ORDER BY seat",
                game_id,
            )
            return [result_from_row(r) for r in rows]

        return await self._read(query, f"loading the results of game {game_id}")

    async def kv_get(self, namespace: str, key: str) -> Any | None:
        check_text("key/value namespace", namespace)
        check_text("key", key)

        async def query(conn: asyncpg.Connection) -> Any | None:
            text = await conn.fetchval(
                "SELECT json FROM kv WHERE namespace = $1 AND key = $2", namespace, key
            )
            return None if text is None else _json_column(text, f"key/value row {namespace}/{key}")

        return await self._read(query, f"loading key/value row {namespace}/{key}")

    async def kv_items(self, namespace: str) -> list[KvRow]:
        check_text("key/value namespace", namespace)

        async def query(conn: asyncpg.Connection) -> list[KvRow]:
            rows = await conn.fetch(
                "SELECT key, json FROM kv WHERE namespace = $1 ORDER BY key", namespace
            )
            return [
                KvRow(namespace, r[0], _json_column(r[1], f"key/value row {namespace}/{r[0]}"))
                for r in rows
            ]

        return await self._read(query, f"loading key/value rows {namespace}")

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        check_text("guild id", guild_id, optional=True)

        async def query(conn: asyncpg.Connection) -> list[tuple[str, str, float]]:
            rows = await conn.fetch(
                "SELECT q.game_id, q.reason, q.at FROM quarantine AS q JOIN games AS g "
                "ON g.id = q.game_id WHERE g.status = 'quarantined' "
                "AND ($1::text IS NULL OR g.guild_id = $1) ORDER BY q.at, q.game_id",
                guild_id,
            )
            return [(r[0], r[1], r[2]) for r in rows]

        return await self._read(query, "listing the quarantined games")

    async def owner(self) -> OwnerRecord | None:
        async def query(conn: asyncpg.Connection) -> OwnerRecord | None:
            return owner_from_row(
                await conn.fetchrow(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1")
            )

        return await self._read(query, "reading the owner lease")
