"""The SQLite store: the standard library's ``sqlite3`` on a thread of its own, WAL mode,
numbered ``.sql`` migrations (:mod:`bot.store.schema`), group commit.

One connection serves the whole process, on one thread (:class:`~bot.store.worker.Connection`):
every read or transaction is ONE job on it, so jobs never interleave. Accepted commands are
written by a *group commit*: every :meth:`SqliteStore.append_command` call queues its
:class:`~bot.store.records.CommandWrite` and waits; a writer on the connection's thread
drains the queue and commits everything queued so far in one transaction (each command still
atomic with its own effects), so 500 concurrent games cost one fsync per batch instead of one
per move. The writer never waits for the event loop: writes queued while a batch commits go into
the next batch at once, and each batch's waiters are woken with one call into the loop. When a
batch fails (a seq conflict), the writer retries its writes one by one, so only the faulty write
fails.

**One owner per database.** A writable store takes the *owner lease* when it opens: the one row
of table ``owner`` names its process (id, host, boot id, start time), a random token, since when
it holds the lease and its last heartbeat, renewed every ``lease_seconds / 3`` while open. A
second process is refused (:class:`~bot.store.base.StoreLocked`) while the holder is alive; a
holder that closed, whose heartbeat is older than ``lease_seconds``, or (on this machine) whose
process is gone may be taken over. Every write transaction first checks, under SQLite's write
lock, that the row still carries this store's token, so a process that lost its lease can never
change anything again (:class:`~bot.store.base.StoreOwnerLost`). Status, deadline and meta
writes also check the game's status and ``seq`` in their ``WHERE`` clause.

**Clean failures.** Opening checks the file before SQLite touches it (missing, 0 bytes, not
SQLite, truncated, read-only) and the database after (another program's file, a newer schema);
a failed open closes the connection and its thread, and every failure is a
:class:`~bot.store.base.StoreError` whose one-line message says what is wrong and what to do.
Every ``sqlite3`` error of every method becomes a ``StoreError`` with a ``code`` (``full``,
``busy``, ``readonly``, ``io``, ``corrupt``...); text SQLite cannot store (lone surrogates) is a
:class:`~bot.store.base.StoreInvalid`.

Read-only tools open with ``readonly=True`` (no lease, no migration, no writes) and read one
consistent state with :meth:`SqliteStore.snapshot`.

Durability: ``synchronous=FULL`` (default) fsyncs the WAL at every commit; ``NORMAL`` only at
checkpoints, which survives a killed process but may lose the last commits on power loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from engine.codec import canonical_json

from .base import (
    Store,
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreInvalid,
    StoreOwnerLost,
)
from .common import (
    game_values,
    good_games,
    guard_refusal,
    open_waiting,
    owner_lost,
    refuse_live_holders,
    refuse_live_owner,
    with_own_errors,
)
from .files import DatabaseFile
from .lease import (
    BOOT_ID,
    HOST,
    OWNER_COLUMNS,
    SHARD_COLUMNS,
    ShardLease,
    acquire_steps,
    check_fence,
    keep_held,
    owner_from_row,
    process_facts,
    shard_lease_from_row,
    shard_of,
    shard_range_error,
)
from .reads import (
    GAME_COLUMNS,
    begin_snapshot,
    identity,
    read_commands,
    read_game,
    read_game_ids,
    read_kv_get,
    read_kv_items,
    read_owner,
    read_player,
    read_quarantined,
    read_results,
    read_unfinished,
)
from .records import (
    STATUSES,
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvHook,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
    Seat,
    seats_to_json,
)
from .schema import APPLICATION_ID, SCHEMA_VERSION, migrate
from .worker import Connection
from .writes import (
    install_command_write,
    run_kv_hook,
    run_transaction,
    settle_batch,
    single_statement,
    write_commands,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

MAX_BATCH = 256
LEASE_SECONDS = 30.0
BUSY_TIMEOUT_MS = 10_000


# ---------------------------------------------------------------------------- small helpers


def _short(value: str) -> str:
    return repr(value[:40] + ("..." if len(value) > 40 else ""))


def _text(what: str, value: Any, *, optional: bool = False) -> None:
    """Refuse, before any I/O, a value SQLite cannot store as text (with the field's name)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise StoreInvalid(f"{what} must be text, not {type(value).__name__}; nothing was saved")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise StoreInvalid(
            f"{what} {_short(value)} is not valid Unicode text (a lone surrogate at position "
            f"{exc.start}); nothing was saved"
        ) from None


def _seat_texts(seats: Sequence[Seat]) -> None:
    for index, seat in enumerate(seats):
        _text(f"seat {index} player id", seat.player_id)
        _text(f"seat {index} name", seat.name)
        _text(f"seat {index} level", seat.level, optional=True)


def _statuses(expect: GameStatus | Sequence[GameStatus] | None) -> tuple[str, ...] | None:
    if expect is None:
        return None
    found = (expect,) if isinstance(expect, str) else tuple(expect)
    for status in found:
        if status not in STATUSES:
            raise StoreInvalid(f"unknown game status {status!r}")
    return found


# ---------------------------------------------------------------------------- the store


class SqliteStore(DatabaseFile, Store):
    """:class:`~bot.store.base.Store` on one SQLite file (or ``:memory:``).

    ``create``: a missing file may be created (else ``code="missing"``); ``init_empty``: an
    existing 0-byte file may be taken as a new database (else refused, ``code="empty"``: an
    emptied file is more often a lost database than a new one); ``readonly``: read without the
    owner lease (verify-db, reports), every write refused; ``lease_seconds``: how long after its
    last heartbeat a silent owner counts as dead; ``lease_wait``: how long :meth:`open` waits
    for another process's lease; ``busy_timeout``: how long a write waits for another
    connection's lock (then ``code="busy"``)."""

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "full",
        create: bool = True,
        init_empty: bool = False,
        readonly: bool = False,
        lease_seconds: float = LEASE_SECONDS,
        busy_timeout: float = BUSY_TIMEOUT_MS / 1000,
        lease_wait: float = 0.0,
        shard_count: int | None = None,
    ) -> None:
        self.path = str(path)
        if shard_count is not None and (
            not isinstance(shard_count, int) or isinstance(shard_count, bool) or shard_count < 1
        ):
            raise StoreError(
                f"shard_count must be a whole number >= 1, not {shard_count!r}", code="invalid"
            )
        #: sharded (several processes, one lease per shard) or None (one owner, the owner lease)
        self.shard_count = shard_count
        self._holder: str | None = None  # this store's id in shard_leases (sharded, open)
        self._held: dict[int, int] = {}  # shard -> fencing token (changed on the thread only)
        self._game_shards: dict[str, int] = {}  # game id -> shard (a game's guild never changes)
        self.busy_timeout_ms = max(0, round(busy_timeout * 1000))
        self.synchronous = synchronous.upper()
        if self.synchronous not in ("FULL", "NORMAL", "EXTRA", "OFF"):
            raise StoreError(
                f"synchronous must be full or normal, not {synchronous!r}", code="invalid"
            )
        if not lease_seconds > 0:
            raise StoreError(f"lease_seconds must be positive, not {lease_seconds!r}")
        self.create = create
        self.init_empty = init_empty
        self.readonly = readonly
        self.lease_seconds = float(lease_seconds)
        self.lease_wait = max(0.0, float(lease_wait))
        #: the lease row found at open (None: no earlier owner); see OwnerRecord
        self.previous_owner: OwnerRecord | None = None
        self._token: str | None = None
        self._lost = False
        self._deep_check = False  # set by the file checks: run a quick_check at open
        self._heartbeat: asyncio.Task[None] | None = None
        self._db: Connection | None = None
        # one job of the methods below at a time on the thread, so a group commit queued by
        # append_command waits behind at most one of them (not behind every lobby write)
        self._lock = asyncio.Lock()
        # group commit: writes queued by the event loop, drained by the connection's thread
        self._mutex = threading.Lock()
        self._pending: deque[tuple[CommandWrite, asyncio.Future[None]]] = deque()
        self._draining = False
        self._writer: asyncio.Future[None] | None = None

    @property
    def owned(self) -> bool:
        """Whether this store is open for writing and still holds the owner lease."""
        return self._db is not None and not self.readonly and not self._lost

    @property
    def owner_token(self) -> str | None:
        return self._token

    @property
    def held_shards(self) -> dict[int, int]:
        return dict(self._held)

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        """Open (see the class); with ``lease_wait`` a lease held by another process is waited
        for that long (a holder that died on another machine is free ``lease_seconds`` after
        its last heartbeat) before :class:`~bot.store.base.StoreLocked` is raised."""
        if self._db is not None:
            return
        await open_waiting(
            self._open_once,
            lease_wait=self.lease_wait,
            lease_seconds=self.lease_seconds,
            where=self.path,
        )

    async def _open_once(self) -> None:
        self._deep_check = False
        if self._check_file():
            await asyncio.to_thread(self._create_file)
            self._check_file()  # it exists now: the checks of an existing file
        await self._probe()
        self._lost = False
        target = (
            self.path if self.memory else self._read_uri() if self.readonly else self._uri("rwc")
        )
        db = _connection(target, uri=not self.memory, name=self.path)
        try:
            await db.open()
            await db.call(self._prepare)
        except BaseException as exc:
            await _shut(db)  # a failed open leaves no thread behind
            self._token = None
            if isinstance(exc, StoreError):
                raise
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc, "opening the database") from None
            raise
        self._db = db
        if self._token is not None:
            self._heartbeat = asyncio.get_running_loop().create_task(
                self._keep_lease(), name=f"store-lease:{self.path}"
            )

    async def _probe(self) -> None:
        """Look at an existing file through a READ-ONLY connection first: a writable one that
        finds the file damaged would, on closing, checkpoint a crash's -wal into it."""
        if self.memory or self.readonly:
            return
        path = Path(self.path)
        if not path.is_file() or path.stat().st_size == 0:
            return
        db = _connection(self._read_uri(), uri=True, name=f"{self.path} (probe)")
        try:
            await db.open()
            await db.call(self._look)
        except sqlite3.Error as exc:
            raise self._error(exc, "opening the database") from None
        finally:
            await _shut(db)

    def _look(self, conn: sqlite3.Connection) -> None:
        """Read-only checks: our application id and schema version, our tables, and after a
        crash (commits only in the -wal file) a quick_check of every page."""
        conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
        self._check_identity(*identity(conn))
        if self._deep_check:
            found = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            if found != "ok":
                raise StoreError(
                    f"{self.path} is damaged ({found}); restore a backup, then run "
                    f"`rummy-bot verify-db --db {self.path}`",
                    code="corrupt",
                )

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Everything opening does on the connection, as ONE call on its thread: look at the
        file (before writing anything into it), WAL mode, migrations and the owner lease in one
        transaction."""
        if self.readonly:
            self._look(conn)
            conn.execute("PRAGMA query_only=ON")
            return
        conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
        self._check_identity(*identity(conn))
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() not in ("wal", "memory"):
            raise StoreError(
                f"{self.path}: SQLite cannot switch it to WAL mode (it stays {mode}); is the "
                "file or its directory read-only?",
                code="readonly",
            )
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        conn.execute("PRAGMA foreign_keys=OFF")  # migrations rebuild tables; back ON below
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                version, app, tables = identity(conn)  # again, now under the write lock
                self._check_identity(version, app, tables)
                migrate(
                    conn,
                    version,
                    on_step=lambda n: log.info("migrating %s to schema version %d", self.path, n),
                )
                if version < SCHEMA_VERSION and conn.execute("PRAGMA foreign_key_check").fetchone():
                    raise StoreError(
                        f"{self.path}: rows refer to missing games; restore a backup",
                        code="damaged",
                    )
                if app != APPLICATION_ID:
                    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                if self.shard_count is not None:
                    self._refuse_live_owner(conn)
                    self._token = None
                    self._holder = uuid.uuid4().hex
                    self._held = {}
                else:
                    self._token = None if self.memory else self._take_lease(conn)
                conn.execute("COMMIT")
                install_command_write(conn)
            except BaseException:
                self._token = None
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA foreign_keys=ON")

    def _take_lease(self, conn: sqlite3.Connection) -> str:
        """Take the owner lease (inside the opening transaction) or raise StoreLocked."""
        now = time.time()
        holder = read_owner(conn)
        self.previous_owner = holder
        refuse_live_holders(
            holder,
            read_shard_leases(conn),
            now=now,
            lease_seconds=self.lease_seconds,
            where=self.path,
        )
        token = uuid.uuid4().hex
        started, _ = process_facts(os.getpid())
        conn.execute(
            f"INSERT OR REPLACE INTO owner (id, {OWNER_COLUMNS}) "
            "VALUES (1, ?, ?, ?, ?, ?, NULL, ?, ?)",
            (token, os.getpid(), HOST, now, now, BOOT_ID, started),
        )
        return token

    def _check_owner(self, conn: sqlite3.Connection) -> None:
        """Inside a write transaction (so under SQLite's write lock): the lease is still ours."""
        if self._token is None:
            return
        row = conn.execute(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1").fetchone()
        if row is not None and row[0] == self._token and row[5] is None:
            return
        self._lost = True
        raise owner_lost(owner_from_row(row), self.path)

    async def _keep_lease(self) -> None:
        """Renew the lease every ``lease_seconds / 3`` until closed or lost."""
        interval = self.lease_seconds / 3
        while True:
            await asyncio.sleep(interval)
            try:
                await self._transaction(
                    lambda conn: conn.execute(
                        "UPDATE owner SET heartbeat = ? WHERE id = 1 AND token = ?",
                        (time.time(), self._token),
                    ),
                    "renewing the owner lease",
                )
            except StoreOwnerLost as exc:
                log.error("%s", exc)
                return
            except StoreError as exc:
                if exc.code == "closed":
                    return
                log.warning("could not renew the owner lease (will try again): %s", exc)

    async def close(self) -> None:
        task, self._heartbeat = self._heartbeat, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._writer is not None:
            with contextlib.suppress(Exception):  # its writers got the error already
                await asyncio.shield(self._writer)
        if self._db is not None and self._held:
            try:
                await self.release_shards(now=time.time())
            except StoreError as exc:
                log.warning("%s", exc)
        if self._db is not None:
            if self._token is not None and not self._lost:
                now, token = time.time(), self._token
                try:
                    await self._transaction(
                        lambda conn: conn.execute(
                            "UPDATE owner SET released = ?, heartbeat = ? WHERE id = 1 "
                            "AND token = ?",
                            (now, now, token),
                        ),
                        "giving the owner lease back",
                    )
                except StoreError as exc:
                    log.warning("%s", exc)
            db, self._db = self._db, None
            await _shut(db)
        self._token = None
        self._holder = None
        self._held = {}

    @property
    def _conn(self) -> Connection:
        if self._db is None:
            raise StoreError(f"the store {self.path} is not open", code="closed")
        return self._db

    async def schema_version(self) -> int:
        return await self._read(lambda c: int(c.execute("PRAGMA user_version").fetchone()[0]))

    # ------------------------------------------------------------------ plumbing
    async def _call(self, fn: Callable[[sqlite3.Connection], _T], doing: str) -> _T:
        """``fn(connection)`` as ONE job on the connection's thread (however many statements
        it runs: one hand-over to the thread and one back), errors made StoreErrors."""
        db = self._conn
        try:
            async with self._lock:
                return await db.call(fn)
        except (sqlite3.Error, UnicodeEncodeError, OverflowError, ValueError) as exc:
            if isinstance(exc, StoreError):
                raise
            raise self._error(exc, doing) from exc

    async def _read(self, fn: Callable[[sqlite3.Connection], _T], doing: str = "reading") -> _T:
        return await self._call(fn, doing)

    async def _transaction(
        self,
        work: Callable[[sqlite3.Connection], _T],
        doing: str,
        *,
        games: Sequence[str] = (),
        guilds: Sequence[str | None] = (),
    ) -> _T:
        """Run ``work(connection)`` inside BEGIN IMMEDIATE ... COMMIT, after checking the owner
        lease (sharded: the leases of the shards of ``games`` and ``guilds``), as ONE job on
        the connection's thread (rolled back if it raises)."""
        self._writable(doing)
        check = self._fence(games, guilds)
        return await self._call(lambda conn: run_transaction(conn, work, check), doing)

    # ------------------------------------------------------------------ shard leases
    def _fence(
        self, games: Sequence[str], guilds: Sequence[str | None]
    ) -> Callable[[sqlite3.Connection], None] | None:
        """The check a write transaction runs first: the owner lease, or (sharded) the leases of
        the written games' shards (none for a write of no game: players, key/value rows)."""
        if self.shard_count is None:
            return self._check_owner
        if not games and not guilds:
            return None
        return lambda conn: self._check_shards(conn, games, guilds)

    def _check_shards(
        self, conn: sqlite3.Connection, games: Sequence[str], guilds: Sequence[str | None]
    ) -> None:
        """Inside a write transaction (under SQLite's write lock, so no takeover can come
        between this and COMMIT): this store still holds, with its token, the lease of the
        shard of every game written (a game not stored yet: of its guild). Else StoreFenced."""
        count = self.shard_count or 1
        needed = {shard_of(guild, count) for guild in guilds}
        unknown = sorted({g for g in games if g not in self._game_shards})
        if unknown:
            marks = ", ".join("?" * len(unknown))
            for game_id, guild in conn.execute(
                f"SELECT id, guild_id FROM games WHERE id IN ({marks})", unknown
            ):
                self._game_shards[game_id] = shard_of(guild, count)
        needed.update(self._game_shards[g] for g in games if g in self._game_shards)
        if not needed:
            return  # no such game: the write itself says so
        check_fence(needed, self._held, self._stored_tokens(conn), self.path)

    def _stored_tokens(self, conn: sqlite3.Connection) -> dict[int, int]:
        """shard -> token of this store's unreleased lease rows, as stored now."""
        rows = conn.execute(
            "SELECT shard, token FROM shard_leases WHERE holder = ? AND released IS NULL",
            (self._holder,),
        ).fetchall()
        return {int(shard): int(token) for shard, token in rows}

    def _refuse_live_owner(self, conn: sqlite3.Connection) -> None:
        """A sharded store never writes beside a live whole-database owner."""
        refuse_live_owner(read_owner(conn), lease_seconds=self.lease_seconds, where=self.path)

    def _sharded(self, doing: str) -> None:
        self._writable(doing)
        if self.shard_count is None:
            raise StoreError(
                f"{self.path} was opened without shard_count: {doing} refused", code="unsupported"
            )
        self._conn  # noqa: B018 - the store must be open

    async def acquire_shards(
        self, shards: Sequence[int], *, now: float, lease_seconds: float
    ) -> dict[int, int]:
        self._sharded("taking shard leases")
        count = self.shard_count or 1
        wrong = shard_range_error(shards, count)
        if wrong:
            raise StoreInvalid(wrong)
        holder = self._holder
        started, _ = process_facts(os.getpid())

        def work(conn: sqlite3.Connection) -> dict[int, int]:
            self._refuse_live_owner(conn)
            rows = {lease.shard: lease for lease in read_shard_leases(conn)}
            steps = acquire_steps(
                rows, shards, holder=holder, held=self._held, now=now, count=count, where=self.path
            )
            expires = now + lease_seconds
            for shard, token, renew in steps:
                if renew:
                    conn.execute(
                        "UPDATE shard_leases SET heartbeat = ?, expires = ? WHERE shard = ? "
                        "AND holder = ? AND token = ?",
                        (now, expires, shard, holder, token),
                    )
                    continue
                conn.execute(
                    f"INSERT OR REPLACE INTO shard_leases ({SHARD_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                    (
                        *(shard, count, holder, token, os.getpid(), HOST),
                        *(now, now, expires, BOOT_ID, started),
                    ),
                )
                self._held[shard] = token
            return self._still_held(conn)

        return await self._call(lambda conn: run_transaction(conn, work), "taking shard leases")

    def _still_held(self, conn: sqlite3.Connection) -> dict[int, int]:
        """Drop from ``_held`` every shard whose row carries another holder or token now."""
        return keep_held(self._held, self._stored_tokens(conn), self.path)

    async def renew_shards(self, *, now: float, lease_seconds: float) -> dict[int, int]:
        self._sharded("renewing shard leases")
        holder = self._holder

        def work(conn: sqlite3.Connection) -> dict[int, int]:
            for shard, token in list(self._held.items()):
                conn.execute(
                    "UPDATE shard_leases SET heartbeat = ?, expires = ? WHERE shard = ? AND "
                    "holder = ? AND token = ? AND released IS NULL",
                    (now, now + lease_seconds, shard, holder, token),
                )
            return self._still_held(conn)

        return await self._call(lambda conn: run_transaction(conn, work), "renewing shard leases")

    async def release_shards(self, shards: Sequence[int] | None = None, *, now: float) -> None:
        self._sharded("giving shard leases back")
        holder = self._holder

        def work(conn: sqlite3.Connection) -> None:
            chosen = list(self._held) if shards is None else [s for s in shards if s in self._held]
            for shard in chosen:
                conn.execute(
                    "UPDATE shard_leases SET released = ?, heartbeat = ? WHERE shard = ? AND "
                    "holder = ? AND token = ?",
                    (now, now, shard, holder, self._held[shard]),
                )
                self._held.pop(shard, None)

        await self._call(lambda conn: run_transaction(conn, work), "giving shard leases back")

    async def shard_leases(self) -> list[ShardLease]:
        return await self._read(read_shard_leases, "reading the shard leases")

    def _writable(self, doing: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only: {doing} refused", code="readonly")
        if self._lost:
            raise StoreOwnerLost(
                f"this process no longer owns {self.path}: {doing} refused; nothing was saved; "
                "stop this process (another one runs the games now)"
            )

    async def _write(
        self,
        statements: Sequence[tuple[str, Sequence[Any]]],
        doing: str = "saving",
        *,
        games: Sequence[str] = (),
        guilds: Sequence[str | None] = (),
    ) -> int:
        """Run statements in one transaction (fenced by ``games``/``guilds`` as
        :meth:`_transaction`); returns the last statement's rowcount."""

        def work(conn: sqlite3.Connection) -> int:
            count = 0
            for sql, params in statements:
                count = conn.execute(sql, params).rowcount
            return count

        return await self._transaction(work, doing, games=games, guilds=guilds)

    # ------------------------------------------------------------------ players
    async def upsert_player(self, player: PlayerRecord) -> None:
        _text("player id", player.id)
        _text("player name", player.name)
        _text("player locale", player.locale)
        await self._write(
            [
                (
                    "INSERT INTO players (id, name, locale, is_bot) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                    "locale = excluded.locale, is_bot = excluded.is_bot",
                    (player.id, player.name, player.locale, int(player.is_bot)),
                )
            ],
            f"saving player {player.id}",
        )

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        _text("player id", player_id)
        return await self._read(lambda c: read_player(c, player_id))

    # ------------------------------------------------------------------ games
    async def create_game(self, game: GameRecord) -> None:
        _text("game id", game.id)
        _text("host id", game.host_id)
        _text("preset", game.preset)
        for what in ("guild_id", "channel_id", "thread_id"):
            _text(what.replace("_", " "), getattr(game, what), optional=True)
        _seat_texts(game.seats)
        if game.status not in STATUSES:
            raise StoreInvalid(f"unknown game status {game.status!r}")
        try:
            await self._write(
                [
                    (
                        f"INSERT INTO games ({GAME_COLUMNS}) VALUES "
                        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        game_values(game),
                    )
                ],
                f"creating game {game.id}",
                guilds=(game.guild_id,),
            )
        except StoreConflict as exc:
            raise StoreConflict(f"game {game.id} already exists") from exc

    async def update_lobby(
        self, game_id: str, seats: Sequence[Seat], *, at: float, rules_json: str | None = None
    ) -> None:
        _text("game id", game_id)
        _seat_texts(seats)
        changed = await self._write(
            [
                (
                    "UPDATE games SET seats = ?, rules_json = COALESCE(?, rules_json), "
                    "updated_at = ?, last_activity = ? WHERE id = ? AND status = 'lobby'",
                    (seats_to_json(seats), rules_json, at, at, game_id),
                )
            ],
            f"saving the lobby of game {game_id}",
            games=(game_id,),
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
        _text("game id", game_id)
        _seat_texts(seats)
        changed = await self._write(
            [
                (
                    "UPDATE games SET status = 'playing', seats = ?, seed = ?, snapshot_json = ?, "
                    "snapshot_seq = 0, seq = 0, deadline = ?, reminder_sent = 0, updated_at = ?, "
                    "last_activity = ? WHERE id = ? AND status = 'lobby'",
                    (seats_to_json(seats), seed, snapshot_json, deadline, at, at, game_id),
                )
            ],
            f"starting game {game_id}",
            games=(game_id,),
        )
        if changed != 1:
            raise StoreConflict(f"game {game_id} is not in the lobby")

    async def append_command(self, write: CommandWrite) -> None:
        """Queue the write for the group commit and wait until it is durable (or failed).

        The write is queued before this coroutine first waits, and is committed (or fails)
        even if the caller is cancelled: a cancelled caller does not know which, and must
        reload the game from the store before using its copy again."""
        _text("game id", write.game_id)
        _text("command text", write.text)
        self._writable(f"saving command {write.seq} of game {write.game_id}")
        self._conn  # noqa: B018 - raises StoreError when closed, before anything is queued
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._mutex:
            self._pending.append((write, future))
            start = not self._draining
            self._draining = True
        if start:
            try:
                self._writer = self._conn.submit(lambda conn: self._drain(conn, loop))
            except BaseException:
                with self._mutex:
                    self._pending.clear()
                    self._draining = False
                raise
        await future

    def _drain(self, conn: sqlite3.Connection, loop: asyncio.AbstractEventLoop) -> None:
        """The group-commit writer, on the connection's thread: commit everything queued, batch by
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
                outcomes = self._commit_writes(conn, [w for w, _ in batch])
                loop.call_soon_threadsafe(settle_batch, batch, outcomes)
                batch = []
        except BaseException as exc:  # a bug here must not leave writers waiting for ever
            with self._mutex:
                stranded = [*batch, *self._pending]
                self._pending.clear()
                self._draining = False
            log.exception("the store writer failed")
            error = self._error(exc, "saving commands")
            loop.call_soon_threadsafe(settle_batch, stranded, [error] * len(stranded))
            raise

    def _commit_writes(
        self, conn: sqlite3.Connection, writes: list[CommandWrite]
    ) -> list[BaseException | None]:
        """Commit ``writes`` in one transaction (on the connection's thread); when that fails,
        one by one, so only a faulty write fails. Returns each write's StoreError or None."""

        def doing(write: CommandWrite) -> str:
            return f"saving command {write.seq} of game {write.game_id}"

        try:
            if self.shard_count is not None:  # the shard leases are checked in the transaction
                run_transaction(
                    conn,
                    lambda c: write_commands(c, writes, self._token, self._check_owner),
                    self._fence([w.game_id for w in writes], ()),
                )
            elif single_statement(conn, writes):  # the statement is the transaction
                write_commands(conn, writes, self._token, self._check_owner)
            else:
                run_transaction(
                    conn, lambda c: write_commands(c, writes, self._token, self._check_owner)
                )
        except Exception as exc:
            if len(writes) == 1:
                return [self._error(exc, doing(writes[0]))]
            if isinstance(exc, StoreOwnerLost):  # no write of this batch can succeed
                return [exc] * len(writes)
            log.log(
                logging.INFO if isinstance(exc, StoreFenced) else logging.WARNING,
                "group commit of %d writes failed (%s); retrying one by one",
                len(writes),
                exc,
            )
            outcomes: list[BaseException | None] = []
            for write in writes:
                try:
                    run_transaction(
                        conn,
                        lambda c, w=write: write_commands(c, [w], self._token, self._check_owner),
                        self._fence([write.game_id], ()) if self.shard_count else None,
                    )
                except Exception as single:
                    outcomes.append(self._error(single, doing(write)))
                else:
                    outcomes.append(None)
            return outcomes
        return [None] * len(writes)

    async def set_timer(
        self, game_id: str, *, deadline: float | None, reminder_sent: bool, seq: int | None = None
    ) -> None:
        _text("game id", game_id)
        sql = "UPDATE games SET deadline = ?, reminder_sent = ? WHERE id = ? AND status = 'playing'"
        params: list[Any] = [deadline, int(reminder_sent), game_id]
        if seq is not None:
            sql += " AND seq = ?"
            params.append(seq)
        await self._guarded(
            game_id, sql, params, ("playing",), seq, f"saving the timer of game {game_id}"
        )

    async def set_status(
        self,
        game_id: str,
        status: GameStatus,
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = UNFINISHED,
        seq: int | None = None,
    ) -> None:
        _text("game id", game_id)
        if status not in STATUSES or status == "quarantined":
            raise StoreInvalid(f"set_status cannot set {status!r} (quarantine() sets a game aside)")
        expected = _statuses(expect)
        sql = "UPDATE games SET status = ?, deadline = NULL, updated_at = ? WHERE id = ?"
        params: list[Any] = [status, at, game_id]
        if expected is not None:
            sql += f" AND status IN ({', '.join('?' * len(expected))})"
            params += expected
        if seq is not None:
            sql += " AND seq = ?"
            params.append(seq)
        await self._guarded(game_id, sql, params, expected, seq, f"setting game {game_id} {status}")

    async def update_meta(
        self,
        game_id: str,
        meta: dict[str, Any],
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = None,
        seq: int | None = None,
    ) -> None:
        _text("game id", game_id)
        expected = _statuses(expect)
        sql = "UPDATE games SET meta = ?, updated_at = ? WHERE id = ?"
        params: list[Any] = [canonical_json(meta), at, game_id]
        if expected is not None:
            sql += f" AND status IN ({', '.join('?' * len(expected))})"
            params += expected
        if seq is not None:
            sql += " AND seq = ?"
            params.append(seq)
        await self._guarded(
            game_id, sql, params, expected, seq, f"saving the meta data of game {game_id}"
        )

    async def _guarded(
        self,
        game_id: str,
        sql: str,
        params: Sequence[Any],
        expected: Sequence[str] | None,
        seq: int | None,
        doing: str,
    ) -> None:
        """One guarded UPDATE of a game row; when it changes no row, say why: no such game
        (``code="missing"``) or another status / seq than expected (StoreConflict)."""

        def work(conn: sqlite3.Connection) -> None:
            if conn.execute(sql, params).rowcount == 1:
                return
            row = conn.execute("SELECT status, seq FROM games WHERE id = ?", (game_id,)).fetchone()
            raise guard_refusal(game_id, row, expected, seq)

        await self._transaction(work, doing, games=(game_id,))

    async def load_game(self, game_id: str) -> GameRecord | None:
        _text("game id", game_id)
        return await self._read(lambda c: read_game(c, game_id), f"loading game {game_id}")

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        return good_games(await self._read(read_unfinished, "loading the unfinished games"), on_bad)

    async def unreadable_games(self) -> list[tuple[str, str]]:
        found = await self._read(read_unfinished, "loading the unfinished games")
        return [
            (getattr(item, "game_id", "?"), str(item))
            for item in found
            if isinstance(item, StoreError)
        ]

    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        return await self._read(lambda c: read_game_ids(c, status))

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        _text("game id", game_id)
        return await self._read(lambda c: read_commands(c, game_id, after_seq))

    async def results(self, game_id: str) -> list[ResultRow]:
        _text("game id", game_id)
        return await self._read(lambda c: read_results(c, game_id))

    # ------------------------------------------------------------------ quarantine
    async def quarantine(self, game_id: str, reason: str, *, at: float) -> None:
        _text("game id", game_id)
        _text("reason", reason)

        def work(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"no game {game_id}", code="missing")
            previous = conn.execute(
                "SELECT previous_status FROM quarantine WHERE game_id = ?", (game_id,)
            ).fetchone()
            before = previous[0] if previous and row[0] == "quarantined" else row[0]
            conn.execute(
                "INSERT OR REPLACE INTO quarantine (game_id, reason, at, previous_status) "
                "VALUES (?, ?, ?, ?)",
                (game_id, reason, at, before),
            )
            conn.execute(
                "UPDATE games SET status = 'quarantined', deadline = NULL, updated_at = ? "
                "WHERE id = ?",
                (at, game_id),
            )

        await self._transaction(work, f"quarantining game {game_id}", games=(game_id,))

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        _text("guild id", guild_id, optional=True)
        return await self._read(lambda conn: read_quarantined(conn, guild_id))

    async def release_quarantine(self, game_id: str, *, at: float) -> None:
        _text("game id", game_id)

        def work(conn: sqlite3.Connection) -> None:
            row = conn.execute(
                "SELECT q.previous_status FROM quarantine AS q JOIN games AS g ON g.id = "
                "q.game_id WHERE q.game_id = ? AND g.status = 'quarantined'",
                (game_id,),
            ).fetchone()
            if row is None:
                raise StoreConflict(f"game {game_id} is not quarantined")
            conn.execute(
                "UPDATE games SET status = ?, updated_at = ? WHERE id = ?", (row[0], at, game_id)
            )
            conn.execute("DELETE FROM quarantine WHERE game_id = ?", (game_id,))

        await self._transaction(work, f"releasing game {game_id}", games=(game_id,))

    async def owner(self) -> OwnerRecord | None:
        """The owner lease row as stored now (None: nobody ever took it)."""
        return await self._read(read_owner)

    # ------------------------------------------------------------------ key / value
    async def kv_get(self, namespace: str, key: str) -> Any | None:
        _text("key/value namespace", namespace)
        _text("key", key)
        return await self._read(lambda c: read_kv_get(c, namespace, key))

    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        for r in rows:
            _text("key/value namespace", r.namespace)
            _text("key", r.key)
        await self._write(
            [
                (
                    "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)",
                    (r.namespace, r.key, canonical_json(r.value)),
                )
                for r in rows
            ],
            "saving key/value rows",
        )

    async def kv_update(self, hook: KvHook) -> list[KvRow]:
        for read in hook.reads:
            _text("key/value namespace", read.namespace)

        async def run(own: KvHook) -> list[KvRow]:
            return await self._transaction(
                lambda conn: run_kv_hook(conn, own), "updating key/value rows"
            )

        return await with_own_errors(hook, run)

    async def kv_items(self, namespace: str) -> list[KvRow]:
        _text("key/value namespace", namespace)
        return await self._read(lambda c: read_kv_items(c, namespace))

    # ------------------------------------------------------------------ one snapshot
    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[StoreSnapshot]:
        """Read one consistent state of the database: every read of the returned
        :class:`StoreSnapshot` sees the database as it was when the snapshot began, whatever
        the owner commits meanwhile. It has a read-only connection of its own, so it never
        blocks (nor is blocked by) this store's writes."""
        if self.memory:
            raise StoreError("a :memory: database has no snapshots", code="unsupported")
        self._conn  # noqa: B018 - the store must be open
        db = _connection(self._read_uri(), uri=True, name=f"{self.path} (snapshot)")
        try:
            try:
                await db.open()
                await db.call(lambda conn: begin_snapshot(conn, self.busy_timeout_ms))
            except sqlite3.Error as exc:
                raise self._error(exc, "opening a read snapshot") from None
            yield StoreSnapshot(self, db)
        finally:
            await _shut(db)


class StoreSnapshot:
    """The read methods of a store, all on one read transaction (see
    :meth:`SqliteStore.snapshot`)."""

    def __init__(self, store: SqliteStore, db: Connection) -> None:
        self._store = store
        self._db = db

    async def _read(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        db = self._db
        try:
            return await db.call(fn)
        except (sqlite3.Error, UnicodeEncodeError, OverflowError, ValueError) as exc:
            if isinstance(exc, StoreError):
                raise
            raise self._store._error(exc, "reading a snapshot") from exc

    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        return await self._read(lambda c: read_game_ids(c, status))

    async def load_game(self, game_id: str) -> GameRecord | None:
        _text("game id", game_id)
        return await self._read(lambda c: read_game(c, game_id))

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        return good_games(await self._read(read_unfinished), on_bad)

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        _text("game id", game_id)
        return await self._read(lambda c: read_commands(c, game_id, after_seq))

    async def results(self, game_id: str) -> list[ResultRow]:
        _text("game id", game_id)
        return await self._read(lambda c: read_results(c, game_id))

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        _text("player id", player_id)
        return await self._read(lambda c: read_player(c, player_id))

    async def kv_get(self, namespace: str, key: str) -> Any | None:
        _text("key/value namespace", namespace)
        _text("key", key)
        return await self._read(lambda c: read_kv_get(c, namespace, key))

    async def kv_items(self, namespace: str) -> list[KvRow]:
        _text("key/value namespace", namespace)
        return await self._read(lambda c: read_kv_items(c, namespace))

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        _text("guild id", guild_id, optional=True)
        return await self._read(lambda conn: read_quarantined(conn, guild_id))

    async def owner(self) -> OwnerRecord | None:
        return await self._read(read_owner)


def _connection(target: str, *, uri: bool, name: str) -> Connection:
    """A connection (not yet open) of the store: autocommit (the store says BEGIN itself), rows
    readable by column name."""

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(target, isolation_level=None, uri=uri)
        conn.row_factory = sqlite3.Row
        return conn

    return Connection(connect, name=name)


async def _shut(db: Connection) -> None:
    """Close a connection and end its thread, whatever happens (a thread left running keeps the
    process from exiting)."""
    try:
        await db.close()
    except Exception as exc:  # the thread has ended all the same
        log.warning("closing the database failed: %s", exc)


def read_shard_leases(conn: sqlite3.Connection) -> list[ShardLease]:
    """Every shard lease row, by shard (none in a database of schema 2 opened read-only)."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'shard_leases'"
    ).fetchone()
    if found is None:
        return []
    rows = conn.execute(f"SELECT {SHARD_COLUMNS} FROM shard_leases ORDER BY shard").fetchall()
    return [shard_lease_from_row(row) for row in rows]
