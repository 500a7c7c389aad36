"""The store's write statements: one transaction (BEGIN IMMEDIATE ... COMMIT, the owner check
inside), and a group commit's batch of command writes as multi-row statements."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine.codec import canonical_json

from .base import StoreConflict, StoreOwnerLost
from .reads import read_kv_range
from .records import CommandWrite, KvHook, KvRow

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def run_transaction(
    conn: sqlite3.Connection,
    work: Callable[[sqlite3.Connection], _T],
    check: Callable[[sqlite3.Connection], None] | None = None,
) -> _T:
    """``check(conn)`` then ``work(conn)`` inside BEGIN IMMEDIATE ... COMMIT (rolled back if
    either raises). ``check`` is the owner-lease check: under the write lock, so no other
    process can take the lease between it and COMMIT."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if check is not None:
            check(conn)
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error as exc:  # the original error matters more
                log.warning("ROLLBACK failed: %s", exc)
        raise
    return result


def _values(rows: int, columns: int) -> str:
    one = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([one] * rows)


_INSERT_COMMANDS = "INSERT INTO commands (game_id, seq, seat, text, at) "


# the log rows of a batch, inserted only while the owner lease carries the token (the lease check
# of the batch's transaction, made by its first write instead of a SELECT of its own)

_OWNED = " WHERE EXISTS (SELECT 1 FROM owner WHERE id = 1 AND token = ? AND released IS NULL)"


# VALUES columns: column1 id, column2 seq, column3 status, column4 deadline, column5
# reminder_sent, column6 at, column7 snapshot, column8 activity (no WITH: Python's sqlite3 only
# counts rowcount for statements that begin with UPDATE)

_UPDATE_GAMES = (
    "UPDATE games SET seq = v.column2, status = v.column3, deadline = v.column4, "
    "reminder_sent = v.column5, updated_at = v.column6, "
    "snapshot_json = COALESCE(v.column7, games.snapshot_json), "
    "snapshot_seq = CASE WHEN v.column7 IS NULL THEN games.snapshot_seq ELSE v.column2 END, "
    "last_activity = CASE WHEN v.column8 THEN v.column6 ELSE games.last_activity END "
    "FROM (VALUES {}) AS v "
    "WHERE games.id = v.column1 AND games.seq = v.column2 - 1 AND games.status = 'playing'"
)


def write_commands(
    conn: sqlite3.Connection,
    writes: Sequence[CommandWrite],
    token: str | None,
    check_owner: Callable[[sqlite3.Connection], None],
) -> None:
    """The statements of a batch of command writes (inside a transaction), the log rows only
    while the owner lease carries ``token`` (None: a store without a lease); otherwise
    ``check_owner`` says why (StoreOwnerLost).

    A batch of n writes is one multi-row INSERT and one multi-row UPDATE ... FROM, not 2n
    statements, and the INSERT checks the lease itself: every statement releases and retakes the
    GIL, and under load each retake can wait a whole switch interval (5 ms) for the busy
    event-loop thread."""
    if len({w.game_id for w in writes}) != len(writes):
        # two commands of one game in one batch: in their order, one game row at a time
        for write in writes:
            write_commands(conn, [write], token, check_owner)
        return
    per_statement = max(1, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // 8)
    for first in range(0, len(writes), per_statement):
        chunk = writes[first : first + per_statement]
        log_params: list[Any] = []
        game_params: list[Any] = []
        for w in chunk:
            log_params += (w.game_id, w.seq, w.seat, w.text, w.at)
            game_params += (
                w.game_id,
                w.seq,
                w.status,
                w.deadline,
                int(w.reminder_sent),
                w.at,
                w.snapshot_json,
                int(w.activity),
            )
        rows = _values(len(chunk), 5)
        if token is None:
            insert, params = f"{_INSERT_COMMANDS}VALUES {rows}", log_params
        else:
            insert, params = f"{_INSERT_COMMANDS}SELECT * FROM (VALUES {rows}){_OWNED}", log_params
            params.append(token)
        try:
            inserted = conn.execute(insert, params).rowcount
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"command already logged: {exc}") from exc
        if inserted != len(chunk):  # the lease is not ours any more
            check_owner(conn)
            raise StoreOwnerLost("this process no longer owns the database; nothing was saved")
        cur = conn.execute(_UPDATE_GAMES.format(_values(len(chunk), 8)), game_params)
        if cur.rowcount != len(chunk):
            raise StoreConflict("a command's seq is not the next one of its game")
    result_rows = [
        (
            r.game_id,
            r.seat,
            r.player_id,
            r.points,
            r.rank,
            int(r.winner),
            r.reason,
            r.finished_at,
            canonical_json(r.details),
        )
        for w in writes
        for r in w.results
    ]
    if result_rows:
        try:
            conn.executemany(
                "INSERT INTO results (game_id, seat, player_id, points, rank, winner, reason, "
                "finished_at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                result_rows,
            )
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"result rows conflict with stored ones: {exc}") from exc
    kv_rows = [(k.namespace, k.key, canonical_json(k.value)) for w in writes for k in w.kv]
    if kv_rows:
        conn.executemany(
            "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)", kv_rows
        )
    for w in writes:  # in the batch's order: a later hook reads an earlier one's rows
        for hook in w.kv_hooks:
            run_kv_hook(conn, hook)


def run_kv_hook(conn: sqlite3.Connection, hook: KvHook) -> list[KvRow]:
    """Read the hook's ranges, compute, write the rows it returns (inside the caller's
    transaction, under SQLite's write lock: no other process writes meanwhile)."""
    found: dict[tuple[str, str], KvRow] = {}
    for read in hook.reads:
        for row in read_kv_range(conn, read.namespace, read.prefix):
            found[(row.namespace, row.key)] = row
    rows = list(hook.compute([found[k] for k in sorted(found)]))
    if rows:
        conn.executemany(
            "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)",
            [(r.namespace, r.key, canonical_json(r.value)) for r in rows],
        )
    return rows


def settle_batch(
    batch: Sequence[tuple[CommandWrite, asyncio.Future[None]]],
    outcomes: Sequence[BaseException | None],
) -> None:
    """Wake a batch's writers (on the event loop): each with None or its write's error."""
    for (_, future), exc in zip(batch, outcomes, strict=True):
        if future.done():  # the writer gave up waiting (cancelled)
            continue
        if exc is None:
            future.set_result(None)
        else:
            future.set_exception(exc)
