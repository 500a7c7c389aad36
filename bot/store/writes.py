"""The store's write statements: one transaction (BEGIN IMMEDIATE ... COMMIT, the owner check
inside), and a group commit's batch of command writes as ONE statement (see command_write)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine.codec import canonical_json

from .base import StoreConflict, StoreOwnerLost
from .reads import read_kv_range
from .records import CommandWrite, KvHook, KvRow, ResultRow

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


# A command write is ONE row inserted into the TEMP view command_write; its INSTEAD OF trigger
# (both created on the writer connection when it opens, never in the schema) makes the write's
# checks and statements. A batch of n writes is then ONE statement (in autocommit mode: one
# transaction, committed inside the statement's step) instead of BEGIN, INSERT, UPDATE, COMMIT:
# every sqlite3 call releases and retakes the GIL, and under load each retake waits a whole switch
# interval (5 ms) for the busy event-loop thread. Rows are handled in their order, so two
# commands of one game in one batch go in order. The checks, in this order: the owner lease
# still carries the write's token (NULL: a store without a lease), the game is playing at the
# seq before this one; then the log row (its primary key refuses a repeated seq) and the game row.
# A failed check aborts the whole statement: nothing of the batch is written.
#
# A statement's row count is a *size class* (:func:`statement_rows`: 1, 2, 4 ... 256, at most the
# variable limit allows), the rows after the batch's own all NULL, which the trigger skips
# (RAISE(IGNORE): that row only; the statement goes on). sqlite3 caches every statement text it
# runs (128 by default), and a cached statement keeps a copy of the values last bound to it (every
# row's snapshot, ~1.6 KB in a soak) beside its code (~1.3 KB a row): one text per batch size held
# 15 MB in the soak's load run (91 sizes up to 208 rows); the size classes hold at most 9 texts,
# their values at most 511 rows' worth (tests/bot/test_store_command_write.py).

COMMAND_WRITE_COLUMNS = (
    "game_id",
    "seq",
    "seat",
    "text",
    "at",
    "status",
    "deadline",
    "reminder_sent",
    "snapshot_json",
    "activity",
    "token",
)

COMMAND_WRITE_SQL = f"""
CREATE TEMP VIEW IF NOT EXISTS command_write ({", ".join(COMMAND_WRITE_COLUMNS)}) AS
    SELECT {", ".join(["NULL"] * len(COMMAND_WRITE_COLUMNS))} WHERE 0;
CREATE TEMP TRIGGER IF NOT EXISTS command_write_insert INSTEAD OF INSERT ON command_write
BEGIN
    SELECT RAISE(IGNORE) WHERE NEW.game_id IS NULL;
    SELECT RAISE(ABORT, 'rummy:owner') WHERE NEW.token IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM owner WHERE id = 1 AND token = NEW.token AND released IS NULL);
    SELECT RAISE(ABORT, 'rummy:seq') WHERE NOT EXISTS (
        SELECT 1 FROM games WHERE id = NEW.game_id AND seq = NEW.seq - 1 AND status = 'playing');
    INSERT INTO commands (game_id, seq, seat, text, at)
        VALUES (NEW.game_id, NEW.seq, NEW.seat, NEW.text, NEW.at);
    UPDATE games SET seq = NEW.seq, status = NEW.status, deadline = NEW.deadline,
        reminder_sent = NEW.reminder_sent, updated_at = NEW.at,
        snapshot_json = COALESCE(NEW.snapshot_json, snapshot_json),
        snapshot_seq = CASE WHEN NEW.snapshot_json IS NULL THEN snapshot_seq ELSE NEW.seq END,
        last_activity = CASE WHEN NEW.activity THEN NEW.at ELSE last_activity END
        WHERE id = NEW.game_id;
END;
"""


def install_command_write(conn: sqlite3.Connection) -> None:
    """Create the TEMP view and trigger of command writes on ``conn`` (the writer connection)."""
    conn.executescript(COMMAND_WRITE_SQL)


def _per_statement(conn: sqlite3.Connection) -> int:
    """The most command writes one statement can carry (SQLite's variable limit)."""
    return max(1, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(COMMAND_WRITE_COLUMNS))


def statement_rows(count: int, per_statement: int) -> int:
    """The rows of the statement that carries ``count`` (1 to ``per_statement``) command writes:
    the next power of two, at most ``per_statement`` (the padding rows are all NULL)."""
    return min(per_statement, 1 << (count - 1).bit_length())


def command_statements(conn: sqlite3.Connection, writes: Sequence[CommandWrite], token: str | None):
    """``(sql, params)`` statements inserting ``writes`` into command_write, as few as the
    variable limit allows, each padded to its size class (see above)."""
    width = len(COMMAND_WRITE_COLUMNS)
    per_statement = _per_statement(conn)
    for first in range(0, len(writes), per_statement):
        chunk = writes[first : first + per_statement]
        rows = statement_rows(len(chunk), per_statement)
        params: list[Any] = []
        for w in chunk:
            params += (
                w.game_id,
                w.seq,
                w.seat,
                w.text,
                w.at,
                w.status,
                w.deadline,
                int(w.reminder_sent),
                w.snapshot_json,
                int(w.activity),
                token,
            )
        params += [None] * ((rows - len(chunk)) * width)
        yield f"INSERT INTO command_write VALUES {_values(rows, width)}", params


def single_statement(conn: sqlite3.Connection, writes: Sequence[CommandWrite]) -> bool:
    """Whether ``writes`` are one statement with no other rows: then, in autocommit mode, that
    statement alone is the whole transaction (no BEGIN ... COMMIT around it)."""
    fits = len(writes) <= _per_statement(conn)
    return fits and not any(w.results or w.kv or w.kv_hooks for w in writes)


def write_commands(
    conn: sqlite3.Connection,
    writes: Sequence[CommandWrite],
    token: str | None,
    check_owner: Callable[[sqlite3.Connection], None],
) -> None:
    """The statements of a batch of command writes, the log rows only while the owner lease
    carries ``token`` (None: a store without a lease); otherwise ``check_owner`` says why
    (StoreOwnerLost). Inside a transaction, or alone in autocommit mode when
    :func:`single_statement` says so. Refusals are StoreConflict / StoreOwnerLost."""
    for sql, params in command_statements(conn, writes, token):
        try:
            conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            reason = str(exc)
            if "rummy:owner" in reason:
                check_owner(conn)  # raises StoreOwnerLost, naming the holder
                raise StoreOwnerLost(
                    "this process no longer owns the database; nothing was saved"
                ) from None
            if "rummy:seq" in reason:
                raise StoreConflict(
                    "a command's seq is not the next one of its playing game"
                ) from None
            raise StoreConflict(f"command already logged: {exc}") from exc
    result_rows = [result_values(r) for w in writes for r in w.results]
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


def result_values(r: ResultRow) -> tuple[Any, ...]:
    """A result row's values in the order of :data:`bot.store.reads.RESULT_COLUMNS`."""
    return (
        r.game_id,
        r.seat,
        r.player_id,
        float(r.points),
        r.rank,
        bool(r.winner),
        r.reason,
        r.finished_at,
        canonical_json(r.details),
    )


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
