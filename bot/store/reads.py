"""The store's reads: plain functions of a sqlite3 connection, so the store and a read snapshot
share them; each runs as ONE job on a connection's thread. A row that does not parse is a
``damaged`` :class:`~bot.store.base.StoreError`, never a driver error."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from .base import StoreError
from .lease import OWNER_COLUMNS, owner_from_row
from .records import (
    UNFINISHED,
    CommandRecord,
    GameRecord,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
    seats_from_json,
)

RESULT_COLUMNS = "game_id, seat, player_id, points, rank, winner, reason, finished_at, details"

GAME_COLUMNS = (
    "id, guild_id, channel_id, thread_id, preset, rules_json, seed, status, created_at, "
    "updated_at, host_id, seats, deadline, reminder_sent, last_activity, snapshot_json, "
    "snapshot_seq, seq, meta"
)


def parse_game(row: sqlite3.Row) -> GameRecord:
    """A game row as a record; a column that does not parse is a ``damaged`` StoreError."""
    game_id = row["id"]
    try:
        seats = seats_from_json(row["seats"])
    except Exception as exc:  # bad JSON, a seat that is not an object, a missing key
        raise StoreError(
            f"game {game_id}: its seats column is not valid ({type(exc).__name__}: {exc}); "
            "quarantine the game or restore a backup",
            code="damaged",
        ) from None
    try:
        meta = json.loads(row["meta"] or "{}")
    except Exception as exc:
        meta = exc
    if not isinstance(meta, dict):
        raise StoreError(
            f"game {game_id}: its meta column is not a JSON object; quarantine the game or "
            "restore a backup",
            code="damaged",
        )
    for column, kind in (("seed", int), ("seq", int), ("snapshot_seq", int)):
        if not isinstance(row[column], kind) or isinstance(row[column], bool):
            raise StoreError(
                f"game {game_id}: its {column} column holds {row[column]!r}, not a number; "
                "quarantine the game or restore a backup",
                code="damaged",
            )
    return GameRecord(
        id=game_id,
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        thread_id=row["thread_id"],
        preset=row["preset"],
        rules_json=row["rules_json"],
        seed=row["seed"],
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        host_id=row["host_id"],
        seats=seats,
        deadline=row["deadline"],
        reminder_sent=bool(row["reminder_sent"]),
        last_activity=row["last_activity"],
        snapshot_json=row["snapshot_json"],
        snapshot_seq=row["snapshot_seq"],
        seq=row["seq"],
        meta=meta,
    )


def _json_column(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except Exception as exc:
        raise StoreError(
            f"{what} is not valid JSON ({exc}); restore a backup or rewrite that row",
            code="damaged",
        ) from None


def read_player(conn: sqlite3.Connection, player_id: str) -> PlayerRecord | None:
    row = conn.execute(
        "SELECT id, name, locale, is_bot FROM players WHERE id = ?", (player_id,)
    ).fetchone()
    return None if row is None else PlayerRecord(row[0], row[1], row[2], bool(row[3]))


def read_game(conn: sqlite3.Connection, game_id: str) -> GameRecord | None:
    row = conn.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if row is None else parse_game(row)


def read_unfinished(conn: sqlite3.Connection) -> list[GameRecord | StoreError]:
    marks = ", ".join("?" * len(UNFINISHED))
    rows = conn.execute(
        f"SELECT {GAME_COLUMNS} FROM games WHERE status IN ({marks}) ORDER BY created_at, id",
        UNFINISHED,
    ).fetchall()
    return parse_games(rows)


def parse_games(rows: Sequence[Any]) -> list[GameRecord | StoreError]:
    """Each game row as a record, or as the ``damaged`` StoreError (with its ``game_id``) of a
    row that does not parse."""
    found: list[GameRecord | StoreError] = []
    for row in rows:
        try:
            found.append(parse_game(row))
        except StoreError as exc:
            exc.game_id = row["id"]  # type: ignore[attr-defined]
            found.append(exc)
    return found


def read_game_ids(conn: sqlite3.Connection, status: str | None) -> list[str]:
    if status is None:
        rows = conn.execute("SELECT id FROM games ORDER BY created_at, id").fetchall()
    else:
        rows = conn.execute(
            "SELECT id FROM games WHERE status = ? ORDER BY created_at, id", (status,)
        ).fetchall()
    return [r[0] for r in rows]


def read_commands(conn: sqlite3.Connection, game_id: str, after_seq: int) -> list[CommandRecord]:
    rows = conn.execute(
        "SELECT game_id, seq, seat, text, at FROM commands WHERE game_id = ? AND seq > ? "
        "ORDER BY seq",
        (game_id, after_seq),
    ).fetchall()
    return [CommandRecord(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def read_results(conn: sqlite3.Connection, game_id: str) -> list[ResultRow]:
    rows = conn.execute(
        f"SELECT {RESULT_COLUMNS} FROM results WHERE game_id = ? ORDER BY seat",
        (game_id,),
    ).fetchall()
    return [result_from_row(r) for r in rows]


def result_from_row(r: Sequence[Any]) -> ResultRow:
    """A ``results`` row (its columns in the order of :data:`RESULT_COLUMNS`) as a record."""
    return ResultRow(
        game_id=r[0],
        seat=r[1],
        player_id=r[2],
        points=r[3],
        rank=r[4],
        winner=bool(r[5]),
        reason=r[6],
        finished_at=r[7],
        details=_json_column(r[8], f"result details of game {r[0]} seat {r[1]}"),
    )


def read_kv_get(conn: sqlite3.Connection, namespace: str, key: str) -> Any | None:
    row = conn.execute(
        "SELECT json FROM kv WHERE namespace = ? AND key = ?", (namespace, key)
    ).fetchone()
    return None if row is None else _json_column(row[0], f"key/value row {namespace}/{key}")


def read_kv_items(conn: sqlite3.Connection, namespace: str) -> list[KvRow]:
    rows = conn.execute(
        "SELECT key, json FROM kv WHERE namespace = ? ORDER BY key", (namespace,)
    ).fetchall()
    return [
        KvRow(namespace, r[0], _json_column(r[1], f"key/value row {namespace}/{r[0]}"))
        for r in rows
    ]


def read_kv_range(conn: sqlite3.Connection, namespace: str, prefix: str) -> list[KvRow]:
    """The rows of ``namespace`` whose key starts with ``prefix``, by key."""
    rows = conn.execute(
        "SELECT key, json FROM kv WHERE namespace = ? AND substr(key, 1, ?) = ? ORDER BY key",
        (namespace, len(prefix), prefix),
    ).fetchall()
    return [
        KvRow(namespace, r[0], _json_column(r[1], f"key/value row {namespace}/{r[0]}"))
        for r in rows
    ]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def read_quarantined(
    conn: sqlite3.Connection, guild_id: str | None = None
) -> list[tuple[str, str, float]]:
    if not _has_table(conn, "quarantine"):  # a read-only look at a version 1 database
        return []
    where, params = ("AND g.guild_id = ? ", (guild_id,)) if guild_id is not None else ("", ())
    rows = conn.execute(
        "SELECT q.game_id, q.reason, q.at FROM quarantine AS q JOIN games AS g "
        f"ON g.id = q.game_id WHERE g.status = 'quarantined' {where}ORDER BY q.at, q.game_id",
        params,
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def read_owner(conn: sqlite3.Connection) -> OwnerRecord | None:
    if not _has_table(conn, "owner"):
        return None
    return owner_from_row(
        conn.execute(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1").fetchone()
    )


def identity(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    return int(version), int(app), tables


def begin_snapshot(conn: sqlite3.Connection, busy_timeout_ms: int) -> None:
    conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    conn.execute("PRAGMA query_only=ON")
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot starts here
