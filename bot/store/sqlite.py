"""The SQLite store: aiosqlite, WAL mode, ``PRAGMA user_version`` migrations, group commit.

One connection serves the whole process; an asyncio lock keeps transactions from interleaving on
it. Accepted commands are written by a *group commit*: every :meth:`SqliteStore.append_command`
call queues its :class:`~bot.store.records.CommandWrite` and waits; a writer on aiosqlite's thread
drains the queue and commits everything queued so far in one transaction (each command still
atomic with its own effects), so 500 concurrent games cost one fsync per batch instead of one
per move. The writer never waits for the event loop: writes queued while a batch commits go into
the next batch at once, and each batch's waiters are woken with one call into the loop. When a
batch fails (a seq conflict), the writer retries its writes one by one, so only the faulty write
fails.

Durability: ``synchronous=FULL`` (default) fsyncs the WAL at every commit; ``NORMAL`` only at
checkpoints, which survives a killed process but may lose the last commits on power loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .base import Store, StoreConflict, StoreError
from .records import (
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvRow,
    PlayerRecord,
    ResultRow,
    Seat,
    dumps,
    seats_from_json,
    seats_to_json,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# Forward migrations: MIGRATIONS[i] brings user_version from i to i + 1. Never edit a published
# entry; append a new one.
MIGRATIONS: list[str] = [
    # 1: players, games, the append-only command log, results, generic key/value data
    """
    CREATE TABLE players (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        is_bot INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        guild_id TEXT,
        channel_id TEXT,
        thread_id TEXT,
        preset TEXT NOT NULL,
        rules_json TEXT NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        host_id TEXT NOT NULL,
        seats TEXT NOT NULL DEFAULT '[]',
        deadline REAL,
        reminder_sent INTEGER NOT NULL DEFAULT 0,
        last_activity REAL NOT NULL,
        snapshot_json TEXT,
        snapshot_seq INTEGER NOT NULL DEFAULT 0,
        seq INTEGER NOT NULL DEFAULT 0,
        meta TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX games_status ON games (status);
    CREATE INDEX games_channel ON games (guild_id, channel_id);
    CREATE TABLE commands (
        game_id TEXT NOT NULL REFERENCES games (id),
        seq INTEGER NOT NULL,
        seat INTEGER,
        text TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER commands_no_update BEFORE UPDATE ON commands
    BEGIN SELECT RAISE(ABORT, 'the command log is append-only'); END;
    CREATE TRIGGER commands_no_delete BEFORE DELETE ON commands
    BEGIN SELECT RAISE(ABORT, 'the command log is append-only'); END;
    CREATE TABLE results (
        game_id TEXT NOT NULL REFERENCES games (id),
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        points REAL NOT NULL,
        rank INTEGER NOT NULL,
        winner INTEGER NOT NULL,
        reason TEXT NOT NULL,
        finished_at REAL NOT NULL,
        details TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID;
    CREATE INDEX results_player ON results (player_id);
    CREATE TABLE kv (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
    ) WITHOUT ROWID;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)
MAX_BATCH = 256

_GAME_COLUMNS = (
    "id, guild_id, channel_id, thread_id, preset, rules_json, seed, status, created_at, "
    "updated_at, host_id, seats, deadline, reminder_sent, last_activity, snapshot_json, "
    "snapshot_seq, seq, meta"
)


def _game_from_row(row: sqlite3.Row) -> GameRecord:
    return GameRecord(
        id=row["id"],
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
        seats=seats_from_json(row["seats"]),
        deadline=row["deadline"],
        reminder_sent=bool(row["reminder_sent"]),
        last_activity=row["last_activity"],
        snapshot_json=row["snapshot_json"],
        snapshot_seq=row["snapshot_seq"],
        seq=row["seq"],
        meta=json.loads(row["meta"] or "{}"),
    )


class SqliteStore(Store):
    """:class:`~bot.store.base.Store` on one SQLite file (or ``:memory:``)."""

    def __init__(self, path: str | Path, *, synchronous: str = "full") -> None:
        self.path = str(path)
        self.synchronous = synchronous.upper()
        if self.synchronous not in ("FULL", "NORMAL", "EXTRA", "OFF"):
            raise StoreError(f"synchronous must be full or normal, not {synchronous!r}")
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        # group commit: writes queued by the event loop, drained by aiosqlite's thread
        self._mutex = threading.Lock()
        self._pending: deque[tuple[CommandWrite, asyncio.Future[None]]] = deque()
        self._draining = False
        self._writer: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        if self._db is not None:
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            db = await aiosqlite.connect(self.path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from exc
        db.row_factory = sqlite3.Row
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute(f"PRAGMA synchronous={self.synchronous}")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA busy_timeout=10000")
        self._db = db
        _prompt_gil_handoff()
        await self._migrate()

    async def _migrate(self) -> None:
        db = self._conn
        async with db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = row[0] if row else 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this program "
                f"({SCHEMA_VERSION}): upgrade the bot"
            )
        for number in range(version, SCHEMA_VERSION):
            log.info("migrating %s to schema version %d", self.path, number + 1)
            script = f"BEGIN IMMEDIATE;\n{MIGRATIONS[number]}\nPRAGMA user_version = {number + 1};"
            try:
                await db.executescript(script)
                await db.execute("COMMIT")
            except sqlite3.Error:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise

    async def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):  # its writers got the error already
                await asyncio.shield(self._writer)
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    @property
    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("the store is not open")
        return self._db

    async def schema_version(self) -> int:
        async with self._lock, self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def _transaction(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``work(connection)`` inside BEGIN IMMEDIATE ... COMMIT as ONE call on aiosqlite's
        worker thread (rolled back if it raises).

        aiosqlite runs every call on its own thread; each ``await db.execute`` is a round trip
        through the event loop, which under load waits behind every other ready task. Handing the
        whole transaction over in one call (aiosqlite's ``_execute``, the primitive all its
        public methods use) makes a commit cost one round trip however many statements it has.
        """
        db = self._conn

        def run() -> _T:
            return _run_transaction(db._conn, work)  # only touched on aiosqlite's thread

        async with self._lock:
            return await db._execute(run)

    async def _write(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> int:
        """Run statements in one transaction; returns the last statement's rowcount."""

        def work(conn: sqlite3.Connection) -> int:
            count = 0
            for sql, params in statements:
                count = conn.execute(sql, params).rowcount
            return count

        return await self._transaction(work)

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, params))

    # ------------------------------------------------------------------ players
    async def upsert_player(self, player: PlayerRecord) -> None:
        await self._write(
            [
                (
                    "INSERT INTO players (id, name, locale, is_bot) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                    "locale = excluded.locale, is_bot = excluded.is_bot",
                    (player.id, player.name, player.locale, int(player.is_bot)),
                )
            ]
        )

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        rows = await self._fetchall(
            "SELECT id, name, locale, is_bot FROM players WHERE id = ?", (player_id,)
        )
        if not rows:
            return None
        row = rows[0]
        return PlayerRecord(row["id"], row["name"], row["locale"], bool(row["is_bot"]))

    # ------------------------------------------------------------------ games
    async def create_game(self, game: GameRecord) -> None:
        try:
            await self._write(
                [
                    (
                        f"INSERT INTO games ({_GAME_COLUMNS}) VALUES "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            game.id,
                            game.guild_id,
                            game.channel_id,
                            game.thread_id,
                            game.preset,
                            game.rules_json,
                            game.seed,
                            game.status,
                            game.created_at,
                            game.updated_at,
                            game.host_id,
                            seats_to_json(game.seats),
                            game.deadline,
                            int(game.reminder_sent),
                            game.last_activity,
                            game.snapshot_json,
                            game.snapshot_seq,
                            game.seq,
                            dumps(game.meta),
                        ),
                    )
                ]
            )
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"game {game.id} already exists") from exc

    async def update_lobby(
        self, game_id: str, seats: Sequence[Seat], *, at: float, rules_json: str | None = None
    ) -> None:
        changed = await self._write(
            [
                (
                    "UPDATE games SET seats = ?, rules_json = COALESCE(?, rules_json), "
                    "updated_at = ?, last_activity = ? WHERE id = ? AND status = 'lobby'",
                    (seats_to_json(seats), rules_json, at, at, game_id),
                )
            ]
        )
        if changed != 1:
            raise StoreConflict(f"game {game_id} is not in the lobby")

    async def start_game(
        self,
        game_id: str,
        *,
        seats: Sequence[Seat],
        seed: int,
        snapshot_json: str,
        deadline: float | None,
        at: float,
    ) -> None:
        changed = await self._write(
            [
                (
                    "UPDATE games SET status = 'playing', seats = ?, seed = ?, snapshot_json = ?, "
                    "snapshot_seq = 0, seq = 0, deadline = ?, reminder_sent = 0, updated_at = ?, "
                    "last_activity = ? WHERE id = ? AND status = 'lobby'",
                    (seats_to_json(seats), seed, snapshot_json, deadline, at, at, game_id),
                )
            ]
        )
        if changed != 1:
            raise StoreConflict(f"game {game_id} is not in the lobby")

    async def append_command(self, write: CommandWrite) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._mutex:
            self._pending.append((write, future))
            start = not self._draining
            self._draining = True
        if start:
            try:
                self._writer = self._submit(lambda: self._drain(loop))
            except BaseException:
                with self._mutex:
                    self._pending.clear()
                    self._draining = False
                raise
        await future

    def _submit(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Queue ``fn`` on aiosqlite's worker thread NOW (not when a task gets round to it) and
        return the future of its result. ``_execute`` is a coroutine: awaiting it from a task
        would put the call on the thread's queue only when the event loop runs that task."""
        db = self._conn
        tx = getattr(db, "_tx", None)
        if tx is None:  # an aiosqlite without the queue we know: one loop round trip more
            return asyncio.ensure_future(db._execute(fn))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        tx.put_nowait((future, fn))
        return future

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        """The group-commit writer, on aiosqlite's thread: commit everything queued, batch by
        batch, until the queue is empty. Each batch's waiters are woken with ONE call into the
        event loop; writes queued while a batch commits go into the next batch without any
        round trip through the loop."""
        batch: list[tuple[CommandWrite, asyncio.Future[None]]] = []
        try:
            while True:
                with self._mutex:
                    if not self._pending:
                        self._draining = False
                        return
                    count = min(MAX_BATCH, len(self._pending))
                    batch = [self._pending.popleft() for _ in range(count)]
                outcomes = self._commit_writes([w for w, _ in batch])
                loop.call_soon_threadsafe(_settle_batch, batch, outcomes)
                batch = []
        except BaseException as exc:  # a bug here must not leave writers waiting for ever
            with self._mutex:
                stranded = [*batch, *self._pending]
                self._pending.clear()
                self._draining = False
            log.exception("the store writer failed")
            loop.call_soon_threadsafe(_settle_batch, stranded, [exc] * len(stranded))
            raise

    def _commit_writes(self, writes: list[CommandWrite]) -> list[BaseException | None]:
        """Commit ``writes`` in one transaction (on aiosqlite's thread); when that fails, one
        by one, so only a faulty write fails. Returns each write's error or None."""
        conn: sqlite3.Connection = self._conn._conn
        try:
            _run_transaction(conn, lambda c: _write_commands(c, writes))
        except Exception as exc:
            if len(writes) == 1:
                return [exc]
            log.warning(
                "group commit of %d writes failed (%s); retrying one by one", len(writes), exc
            )
            outcomes: list[BaseException | None] = []
            for write in writes:
                try:
                    _run_transaction(conn, lambda c, w=write: _write_commands(c, [w]))
                except Exception as single:
                    outcomes.append(single)
                else:
                    outcomes.append(None)
            return outcomes
        return [None] * len(writes)

    async def set_timer(self, game_id: str, *, deadline: float | None, reminder_sent: bool) -> None:
        await self._write(
            [
                (
                    "UPDATE games SET deadline = ?, reminder_sent = ? WHERE id = ?",
                    (deadline, int(reminder_sent), game_id),
                )
            ]
        )

    async def set_status(self, game_id: str, status: GameStatus, *, at: float) -> None:
        changed = await self._write(
            [
                (
                    "UPDATE games SET status = ?, deadline = NULL, updated_at = ? WHERE id = ?",
                    (status, at, game_id),
                )
            ]
        )
        if changed != 1:
            raise StoreError(f"no game {game_id}")

    async def update_meta(self, game_id: str, meta: dict[str, Any], *, at: float) -> None:
        await self._write(
            [("UPDATE games SET meta = ?, updated_at = ? WHERE id = ?", (dumps(meta), at, game_id))]
        )

    async def load_game(self, game_id: str) -> GameRecord | None:
        rows = await self._fetchall(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _game_from_row(rows[0]) if rows else None

    async def load_unfinished_games(self) -> list[GameRecord]:
        marks = ", ".join("?" * len(UNFINISHED))
        rows = await self._fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ({marks}) ORDER BY created_at, id",
            UNFINISHED,
        )
        return [_game_from_row(r) for r in rows]

    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        if status is None:
            rows = await self._fetchall("SELECT id FROM games ORDER BY created_at, id")
        else:
            rows = await self._fetchall(
                "SELECT id FROM games WHERE status = ? ORDER BY created_at, id", (status,)
            )
        return [r["id"] for r in rows]

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        rows = await self._fetchall(
            "SELECT game_id, seq, seat, text, at FROM commands WHERE game_id = ? AND seq > ? "
            "ORDER BY seq",
            (game_id, after_seq),
        )
        return [CommandRecord(r["game_id"], r["seq"], r["seat"], r["text"], r["at"]) for r in rows]

    async def results(self, game_id: str) -> list[ResultRow]:
        rows = await self._fetchall(
            "SELECT game_id, seat, player_id, points, rank, winner, reason, finished_at, details "
            "FROM results WHERE game_id = ? ORDER BY seat",
            (game_id,),
        )
        return [
            ResultRow(
                game_id=r["game_id"],
                seat=r["seat"],
                player_id=r["player_id"],
                points=r["points"],
                rank=r["rank"],
                winner=bool(r["winner"]),
                reason=r["reason"],
                finished_at=r["finished_at"],
                details=json.loads(r["details"]),
            )
            for r in rows
        ]

    # ------------------------------------------------------------------ key / value
    async def kv_get(self, namespace: str, key: str) -> Any | None:
        rows = await self._fetchall(
            "SELECT json FROM kv WHERE namespace = ? AND key = ?", (namespace, key)
        )
        return json.loads(rows[0]["json"]) if rows else None

    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        await self._write(
            [
                (
                    "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)",
                    (r.namespace, r.key, dumps(r.value)),
                )
                for r in rows
            ]
        )

    async def kv_items(self, namespace: str) -> list[KvRow]:
        rows = await self._fetchall(
            "SELECT key, json FROM kv WHERE namespace = ? ORDER BY key", (namespace,)
        )
        return [KvRow(namespace, r["key"], json.loads(r["json"])) for r in rows]


GIL_SWITCH_INTERVAL = 0.0005


def _prompt_gil_handoff() -> None:
    """Let aiosqlite's thread have the GIL back within 0.5 ms instead of CPython's 5 ms.

    The writer thread gives the GIL up around every SQLite call (prepare, step, the fsync at
    COMMIT) and must take it back after each; while the event loop thread is busy, CPython makes
    it wait a whole switch interval for that. At the default 5 ms a group commit of a few
    statements took 12 ms (median) under load and 100 ms at the 99th percentile, all of it
    waiting for the GIL. The interval is process-wide; this only ever lowers it."""
    if sys.getswitchinterval() > GIL_SWITCH_INTERVAL:
        sys.setswitchinterval(GIL_SWITCH_INTERVAL)


def _run_transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], _T]) -> _T:
    """``work(conn)`` inside BEGIN IMMEDIATE ... COMMIT (rolled back if it raises)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


def _values(rows: int, columns: int) -> str:
    one = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([one] * rows)


_INSERT_COMMANDS = "INSERT INTO commands (game_id, seq, seat, text, at) VALUES "
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


def _write_commands(conn: sqlite3.Connection, writes: Sequence[CommandWrite]) -> None:
    """The statements of a batch of command writes (inside a transaction).

    A batch of n writes is one multi-row INSERT and one multi-row UPDATE ... FROM, not 2n
    statements: every statement releases and retakes the GIL, and under load each retake can
    wait a whole switch interval (5 ms) for the busy event-loop thread."""
    if len({w.game_id for w in writes}) != len(writes):
        # two commands of one game in one batch: in their order, one game row at a time
        for write in writes:
            _write_commands(conn, [write])
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
        try:
            conn.execute(_INSERT_COMMANDS + _values(len(chunk), 5), log_params)
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"command already logged: {exc}") from exc
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
            dumps(r.details),
        )
        for w in writes
        for r in w.results
    ]
    if result_rows:
        conn.executemany(
            "INSERT INTO results (game_id, seat, player_id, points, rank, winner, reason, "
            "finished_at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            result_rows,
        )
    kv_rows = [(k.namespace, k.key, dumps(k.value)) for w in writes for k in w.kv]
    if kv_rows:
        conn.executemany(
            "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)", kv_rows
        )


def _settle_batch(
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
