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
import json
import logging
import os
import socket
import sqlite3
import stat
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from .base import Store, StoreConflict, StoreError, StoreInvalid, StoreLocked, StoreOwnerLost
from .records import (
    STATUSES,
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
    Seat,
    dumps,
    seats_from_json,
    seats_to_json,
)
from .schema import MIGRATIONS, SCHEMA_VERSION, TABLES, migrate, statements
from .worker import Connection

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: ``PRAGMA application_id`` of a rummy-bot database ("RUMB"): tells our files from others.
APPLICATION_ID = 0x52554D42
MAX_BATCH = 256
LEASE_SECONDS = 30.0
BUSY_TIMEOUT_MS = 10_000

_MAGIC = b"SQLite format 3\x00"

# SQLite's primary result codes (sqlite3.SQLITE_* from Python 3.11 on)
_PERM, _BUSY, _LOCKED, _NOMEM, _READONLY, _IOERR, _CORRUPT = 3, 5, 6, 7, 8, 10, 11
_FULL, _CANTOPEN, _CONSTRAINT, _NOTADB = 13, 14, 19, 26

_GAME_COLUMNS = (
    "id, guild_id, channel_id, thread_id, preset, rules_json, seed, status, created_at, "
    "updated_at, host_id, seats, deadline, reminder_sent, last_activity, snapshot_json, "
    "snapshot_seq, seq, meta"
)
_OWNER_COLUMNS = "token, pid, host, since, heartbeat, released, boot, started"

HOST = socket.gethostname()


def _read_boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


BOOT_ID = _read_boot_id()


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


def _utc(seconds: float) -> str:
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return f"{seconds!r} (not a valid time)"


def _process_facts(pid: int) -> tuple[int | None, str | None]:
    """(start time in clock ticks, state letter) of a process from /proc; (None, None) when
    there is no such process or no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None, None
    try:
        fields = text[text.rindex(")") + 2 :].split()
        return int(fields[19]), fields[0]
    except (ValueError, IndexError):
        return None, None


def _pid_alive(pid: int, started: int | None) -> bool:
    """Whether process ``pid`` of THIS machine is still the one that took the lease."""
    if pid <= 0:
        return False
    now_started, state = _process_facts(pid)
    if state is not None:
        if state in ("Z", "X"):  # a zombie or dead process holds nothing
            return False
        return started is None or now_started is None or now_started == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True


def holder_alive(holder: OwnerRecord, *, now: float, lease_seconds: float) -> bool:
    """Whether the lease ``holder`` still counts: not released, heartbeat younger than
    ``lease_seconds`` and, when it ran on this machine since its last boot, its process still
    there (a reused process id does not count: its start time differs)."""
    if holder.released is not None:
        return False
    if abs(now - holder.heartbeat) > lease_seconds:
        # silent too long; or stamped more than a lease ahead of this clock (a clock stepped
        # back): counting that as alive could lock the database out for hours. Safe either way:
        # a holder that is in fact alive finds its lease gone at its next write.
        return False
    if holder.host == HOST:
        if holder.boot is not None and BOOT_ID is not None and holder.boot != BOOT_ID:
            return False  # this machine rebooted since
        return _pid_alive(holder.pid, holder.started)
    return True


def _owner_from_row(row: Sequence[Any] | None) -> OwnerRecord | None:
    if row is None:
        return None
    return OwnerRecord(
        token=row[0],
        pid=int(row[1]),
        host=row[2],
        since=float(row[3]),
        heartbeat=float(row[4]),
        released=None if row[5] is None else float(row[5]),
        boot=row[6],
        started=row[7],
    )


def _holder_text(holder: OwnerRecord, now: float) -> str:
    who = "this very process" if holder.pid == os.getpid() and holder.host == HOST else ""
    who = who or f"process {holder.pid} on host {holder.host}"
    return (
        f"{who} since {_utc(holder.since)} (last heartbeat {max(0.0, now - holder.heartbeat):.0f}"
        " s ago)"
    )


def _parse_game(row: sqlite3.Row) -> GameRecord:
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


# ---------------------------------------------------------------------------- reads
# Plain functions of a sqlite3 connection, so the store and a snapshot share them; each runs as
# ONE call on a connection's thread.


def _read_player(conn: sqlite3.Connection, player_id: str) -> PlayerRecord | None:
    row = conn.execute(
        "SELECT id, name, locale, is_bot FROM players WHERE id = ?", (player_id,)
    ).fetchone()
    return None if row is None else PlayerRecord(row[0], row[1], row[2], bool(row[3]))


def _read_game(conn: sqlite3.Connection, game_id: str) -> GameRecord | None:
    row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if row is None else _parse_game(row)


def _read_unfinished(conn: sqlite3.Connection) -> list[GameRecord | StoreError]:
    marks = ", ".join("?" * len(UNFINISHED))
    rows = conn.execute(
        f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ({marks}) ORDER BY created_at, id",
        UNFINISHED,
    ).fetchall()
    found: list[GameRecord | StoreError] = []
    for row in rows:
        try:
            found.append(_parse_game(row))
        except StoreError as exc:
            exc.game_id = row["id"]  # type: ignore[attr-defined]
            found.append(exc)
    return found


def _read_game_ids(conn: sqlite3.Connection, status: str | None) -> list[str]:
    if status is None:
        rows = conn.execute("SELECT id FROM games ORDER BY created_at, id").fetchall()
    else:
        rows = conn.execute(
            "SELECT id FROM games WHERE status = ? ORDER BY created_at, id", (status,)
        ).fetchall()
    return [r[0] for r in rows]


def _read_commands(conn: sqlite3.Connection, game_id: str, after_seq: int) -> list[CommandRecord]:
    rows = conn.execute(
        "SELECT game_id, seq, seat, text, at FROM commands WHERE game_id = ? AND seq > ? "
        "ORDER BY seq",
        (game_id, after_seq),
    ).fetchall()
    return [CommandRecord(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def _read_results(conn: sqlite3.Connection, game_id: str) -> list[ResultRow]:
    rows = conn.execute(
        "SELECT game_id, seat, player_id, points, rank, winner, reason, finished_at, details "
        "FROM results WHERE game_id = ? ORDER BY seat",
        (game_id,),
    ).fetchall()
    return [
        ResultRow(
            game_id=r[0],
            seat=r[1],
            player_id=r[2],
            points=r[3],
            rank=r[4],
            winner=bool(r[5]),
            reason=r[6],
            finished_at=r[7],
            details=_json_column(r[8], f"result details of game {game_id} seat {r[1]}"),
        )
        for r in rows
    ]


def _read_kv_get(conn: sqlite3.Connection, namespace: str, key: str) -> Any | None:
    row = conn.execute(
        "SELECT json FROM kv WHERE namespace = ? AND key = ?", (namespace, key)
    ).fetchone()
    return None if row is None else _json_column(row[0], f"key/value row {namespace}/{key}")


def _read_kv_items(conn: sqlite3.Connection, namespace: str) -> list[KvRow]:
    rows = conn.execute(
        "SELECT key, json FROM kv WHERE namespace = ? ORDER BY key", (namespace,)
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


def _read_quarantined(
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


def _read_owner(conn: sqlite3.Connection) -> OwnerRecord | None:
    if not _has_table(conn, "owner"):
        return None
    return _owner_from_row(
        conn.execute(f"SELECT {_OWNER_COLUMNS} FROM owner WHERE id = 1").fetchone()
    )


def _identity(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    return int(version), int(app), tables


# ---------------------------------------------------------------------------- the store


class SqliteStore(Store):
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
    ) -> None:
        self.path = str(path)
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
    def memory(self) -> bool:
        return self.path == ":memory:"

    @property
    def owned(self) -> bool:
        """Whether this store is open for writing and still holds the owner lease."""
        return self._db is not None and not self.readonly and not self._lost

    @property
    def owner_token(self) -> str | None:
        return self._token

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        """Open (see the class); with ``lease_wait`` a lease held by another process is waited
        for that long (a holder that died on another machine is free ``lease_seconds`` after
        its last heartbeat) before :class:`~bot.store.base.StoreLocked` is raised."""
        if self._db is not None:
            return
        deadline = time.monotonic() + self.lease_wait
        while True:
            try:
                await self._open_once()
                return
            except StoreLocked:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise
                log.info("%s is in use; waiting up to %.0f s for its lease", self.path, left)
                await asyncio.sleep(min(self.lease_seconds / 6, left))

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

    def _uri(self, mode: str) -> str:
        return f"{Path(self.path).absolute().as_uri()}?mode={mode}"

    def _read_uri(self) -> str:
        """The URI of a read-only connection. On read-only media (no -shm file, and none can be
        created) a WAL database can only be read as *immutable*, which is safe exactly when
        nothing can write it and no -wal file holds commits."""
        path = Path(self.path)
        uri = self._uri("ro")
        if Path(f"{path}-shm").exists() or os.access(path.absolute().parent, os.W_OK):
            return uri
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"{path} is on read-only media with unmerged commits in {wal.name} and no "
                f"{path.name}-shm: copy the file with its -wal to a writable place and read it "
                "there",
                code="readonly",
            )
        return uri + "&immutable=1"

    def _check_file(self) -> bool:
        """What can be told about the file before SQLite opens it (which would take a 0-byte
        file as a new database and write into whatever it finds). True: the file is missing
        and may be created."""
        if self.memory:
            if self.readonly:
                raise StoreError("a read-only :memory: database has nothing to read")
            return False
        path = Path(self.path)
        again = f"check the path (DATABASE_URL / --db {self.path})"
        try:
            info = path.stat()
        except FileNotFoundError:
            if self.readonly or not self.create:
                raise StoreError(
                    f"{path}: no such database file; {again}", code="missing"
                ) from None
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"{path}: cannot create its directory ({exc.strerror}); {again}", code="io"
                ) from None
            if not os.access(path.parent, os.W_OK):
                raise StoreError(
                    f"{path}: its directory {path.parent} is read-only, so no database can be "
                    f"created there; {again} or fix the directory's permissions",
                    code="readonly",
                ) from None
            return True
        except OSError as exc:
            raise StoreError(
                f"{path}: cannot look at the file ({exc.strerror}); {again}", code="io"
            ) from None
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path} is not a regular file; {again}", code="foreign")
        restore = f"restore a backup, then run `rummy-bot verify-db --db {self.path}`"
        if info.st_size == 0:
            if self.readonly or not self.init_empty:
                raise StoreError(
                    f"{path} is an empty file (0 bytes), not a database: if it held games, "
                    f"{restore}; to start a new database there, delete the file (or pass "
                    "--init-empty)",
                    code="empty",
                )
            header = b""
        else:
            try:
                with path.open("rb") as file:
                    header = file.read(100)
            except OSError as exc:
                raise StoreError(
                    f"{path}: cannot read the file ({exc.strerror}); fix its permissions",
                    code="io" if exc.errno != 13 else "readonly",
                ) from None
            self._check_header(path, header, info.st_size, restore)
        if self.readonly:
            return False
        mode = stat.S_IMODE(info.st_mode)
        if not mode & 0o222 or not os.access(path, os.W_OK):
            why = f"mode {mode:o}" if not mode & 0o222 else "a read-only file system or not ours"
            raise StoreError(
                f"{path} is read-only ({why}): the bot must write its database; make it "
                f"writable (chmod u+w {path}) or use a copy; `rummy-bot verify-db` can read it "
                "as it is",
                code="readonly",
            )
        side = [Path(f"{path}-wal"), Path(f"{path}-shm")]
        if not all(p.exists() for p in side) and not os.access(path.parent, os.W_OK):
            raise StoreError(
                f"{path}: its directory {path.parent} is read-only, so SQLite cannot create its "
                "-wal and -shm files; make the directory writable",
                code="readonly",
            )
        return False

    def _check_header(self, path: Path, header: bytes, size: int, restore: str) -> None:
        if len(header) < 100 or header[:16] != _MAGIC:
            raise StoreError(
                f"{path} is not a SQLite database (random bytes or a damaged file, {size} "
                f"bytes); {restore}, or move it away to start a new database",
                code="corrupt",
            )
        page = int.from_bytes(header[16:18], "big")
        page = 65536 if page == 1 else page
        if page < 512 or page & (page - 1):
            raise StoreError(
                f"{path} has a damaged SQLite header (page size {page}); {restore}",
                code="corrupt",
            )
        wal = Path(f"{path}-wal")
        pending = (wal.exists() and wal.stat().st_size > 0) or Path(f"{path}-journal").exists()
        pages = int.from_bytes(header[28:32], "big")
        header_valid = header[24:28] == header[92:96]
        # after a crash the -wal file holds the last commits and the header may lag behind
        # them: then only SQLite can tell whether pages are missing (a quick_check at open)
        self._deep_check = pending
        if not pending and header_valid and pages and size < pages * page:
            raise StoreError(
                f"{path} is truncated ({size} bytes; its header says {pages * page}); {restore}",
                code="corrupt",
            )

    def _check_identity(self, version: int, app: int, tables: set[str]) -> None:
        restore = f"restore a backup, then run `rummy-bot verify-db --db {self.path}`"
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this program "
                f"({SCHEMA_VERSION}): upgrade the bot (or restore a backup made by this version)",
                code="future",
            )
        if app not in (0, APPLICATION_ID):
            raise StoreError(
                f"{self.path} belongs to another program (SQLite application_id {app:#x}), not "
                "rummy-bot: check the path (DATABASE_URL / --db)",
                code="foreign",
            )
        if version == 0:
            if tables:
                raise StoreError(
                    f"{self.path} is another program's SQLite database (tables "
                    f"{', '.join(sorted(tables)[:5])}), not rummy-bot's: check the path "
                    "(DATABASE_URL / --db)",
                    code="foreign",
                )
            if self.readonly:
                raise StoreError(f"{self.path} has no rummy-bot data yet", code="empty")
            return
        missing = TABLES[version] - tables
        if missing and not tables & TABLES[version] and app != APPLICATION_ID:
            raise StoreError(
                f"{self.path} is another program's SQLite database (user_version {version}, "
                "none of rummy-bot's tables): check the path (DATABASE_URL / --db)",
                code="foreign",
            )
        if missing:
            raise StoreError(
                f"{self.path} is damaged: table(s) {', '.join(sorted(missing))} are missing; "
                f"{restore}",
                code="damaged",
            )
        if version >= 2 and app != APPLICATION_ID:
            raise StoreError(
                f"{self.path} has rummy-bot's tables but application_id {app:#x}: it was "
                f"written by another program; {restore}",
                code="foreign",
            )

    def _create_file(self) -> None:
        """Make a new database where none is, atomically: built (schema, application id) in a
        temporary file beside it and hard-linked into place, so a process racing to create the
        same database never meets a 0-byte or half-made file (it finds either none or this one)."""
        path = Path(self.path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.new")
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")  # rollback journal: all of it in the main file
                for script in MIGRATIONS:
                    for statement in statements(script):
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute("COMMIT")
            finally:
                conn.close()
            try:
                os.link(tmp, path)
            except FileExistsError:
                log.info("%s was created by another process meanwhile", path)
            except OSError:  # a file system without hard links
                if not path.exists():
                    os.replace(tmp, path)
        except sqlite3.Error as exc:
            raise self._error(exc, "creating the database") from None
        except OSError as exc:
            raise StoreError(
                f"{path}: cannot create the database ({exc.strerror}); check the directory",
                code="io",
            ) from None
        finally:
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(f"{tmp}{suffix}")

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
        self._check_identity(*_identity(conn))
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
        self._check_identity(*_identity(conn))
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
                version, app, tables = _identity(conn)  # again, now under the write lock
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
                self._token = None if self.memory else self._take_lease(conn)
                conn.execute("COMMIT")
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
        holder = _read_owner(conn)
        self.previous_owner = holder
        if holder is not None and holder_alive(holder, now=now, lease_seconds=self.lease_seconds):
            raise StoreLocked(
                f"{self.path} is in use by {_holder_text(holder, now)}: stop that process first "
                f"(a holder that died counts as gone {self.lease_seconds:.0f} s after its last "
                "heartbeat)",
                holder=holder,
            )
        if holder is not None and holder.released is None:
            log.warning(
                "%s: taking the owner lease over from %s, which is gone",
                self.path,
                _holder_text(holder, now),
            )
        token = uuid.uuid4().hex
        started, _ = _process_facts(os.getpid())
        conn.execute(
            f"INSERT OR REPLACE INTO owner (id, {_OWNER_COLUMNS}) "
            "VALUES (1, ?, ?, ?, ?, ?, NULL, ?, ?)",
            (token, os.getpid(), HOST, now, now, BOOT_ID, started),
        )
        return token

    def _check_owner(self, conn: sqlite3.Connection) -> None:
        """Inside a write transaction (so under SQLite's write lock): the lease is still ours."""
        if self._token is None:
            return
        row = conn.execute(f"SELECT {_OWNER_COLUMNS} FROM owner WHERE id = 1").fetchone()
        if row is not None and row[0] == self._token and row[5] is None:
            return
        self._lost = True
        holder = _owner_from_row(row)
        now = time.time()
        by = _holder_text(holder, now) if holder and holder.released is None else "nobody"
        raise StoreOwnerLost(
            f"this process no longer owns {self.path}: the lease is held by {by}; nothing was "
            "saved; stop this process (the other one runs the games now)",
            holder=holder,
        )

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

    @property
    def _conn(self) -> Connection:
        if self._db is None:
            raise StoreError(f"the store {self.path} is not open", code="closed")
        return self._db

    async def schema_version(self) -> int:
        return await self._read(lambda c: int(c.execute("PRAGMA user_version").fetchone()[0]))

    # ------------------------------------------------------------------ errors
    def _error(self, exc: BaseException, doing: str) -> StoreError:
        """A one-line StoreError for an exception out of SQLite (or the values given to it)."""
        if isinstance(exc, StoreError):
            return exc
        if isinstance(exc, UnicodeEncodeError):
            return StoreInvalid(
                f"{doing}: a text value is not valid Unicode (a lone surrogate); nothing was saved"
            )
        if isinstance(exc, OverflowError):
            return StoreInvalid(f"{doing}: a number is too large for the database ({exc})")
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        where = self.path
        restore = f"restore a backup, then run `rummy-bot verify-db --db {where}`"
        if isinstance(exc, sqlite3.IntegrityError) or primary == _CONSTRAINT:
            return StoreConflict(f"{doing}: the write conflicts with stored rows ({exc})")
        if primary == _FULL:
            return StoreError(
                f"{where}: {doing} failed: the disk (or the database file) is full; nothing was "
                "saved; free some disk space",
                code="full",
            )
        if primary in (_BUSY, _LOCKED):
            return StoreError(
                f"{where}: {doing} failed: the database is locked by another connection "
                f"(waited {self.busy_timeout_ms / 1000:g} s); nothing was saved; try again",
                code="busy",
            )
        if primary in (_READONLY, _PERM):
            return StoreError(
                f"{where}: {doing} failed: the database is read-only ({exc}); nothing was saved; "
                "make the file and its directory writable",
                code="readonly",
            )
        if primary in (_CORRUPT, _NOTADB):
            return StoreError(
                f"{where}: {doing} failed: the file is damaged ({exc}); {restore}", code="corrupt"
            )
        if primary == _CANTOPEN:
            return StoreError(
                f"{where}: cannot open the file ({exc}); check the path and its permissions",
                code="io",
            )
        if primary == _IOERR:
            return StoreError(
                f"{where}: {doing} failed: disk I/O error ({exc}); nothing was saved; check the "
                f"disk, then run `rummy-bot verify-db --db {where}`",
                code="io",
            )
        if primary == _NOMEM:
            return StoreError(f"{where}: {doing} failed: out of memory", code="io")
        closed = isinstance(exc, (ValueError, sqlite3.ProgrammingError))
        if closed and "closed" in str(exc).lower():
            return StoreError(f"the store {where} is closed ({doing})", code="closed")
        return StoreError(f"{where}: {doing} failed: {type(exc).__name__}: {exc}")

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

    async def _transaction(self, work: Callable[[sqlite3.Connection], _T], doing: str) -> _T:
        """Run ``work(connection)`` inside BEGIN IMMEDIATE ... COMMIT, after checking the owner
        lease, as ONE job on the connection's thread (rolled back if it raises)."""
        self._writable(doing)
        return await self._call(lambda conn: _run_transaction(conn, work, self._check_owner), doing)

    def _writable(self, doing: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only: {doing} refused", code="readonly")
        if self._lost:
            raise StoreOwnerLost(
                f"this process no longer owns {self.path}: {doing} refused; nothing was saved; "
                "stop this process (another one runs the games now)"
            )

    async def _write(
        self, statements: Sequence[tuple[str, Sequence[Any]]], doing: str = "saving"
    ) -> int:
        """Run statements in one transaction; returns the last statement's rowcount."""

        def work(conn: sqlite3.Connection) -> int:
            count = 0
            for sql, params in statements:
                count = conn.execute(sql, params).rowcount
            return count

        return await self._transaction(work, doing)

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
        return await self._read(lambda c: _read_player(c, player_id))

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
                ],
                f"creating game {game.id}",
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
                loop.call_soon_threadsafe(_settle_batch, batch, outcomes)
                batch = []
        except BaseException as exc:  # a bug here must not leave writers waiting for ever
            with self._mutex:
                stranded = [*batch, *self._pending]
                self._pending.clear()
                self._draining = False
            log.exception("the store writer failed")
            error = self._error(exc, "saving commands")
            loop.call_soon_threadsafe(_settle_batch, stranded, [error] * len(stranded))
            raise

    def _commit_writes(
        self, conn: sqlite3.Connection, writes: list[CommandWrite]
    ) -> list[BaseException | None]:
        """Commit ``writes`` in one transaction (on the connection's thread); when that fails,
        one by one, so only a faulty write fails. Returns each write's StoreError or None."""

        def doing(write: CommandWrite) -> str:
            return f"saving command {write.seq} of game {write.game_id}"

        try:
            _run_transaction(
                conn, lambda c: _write_commands(c, writes, self._token, self._check_owner)
            )
        except Exception as exc:
            if len(writes) == 1:
                return [self._error(exc, doing(writes[0]))]
            if isinstance(exc, StoreOwnerLost):  # no write of this batch can succeed
                return [exc] * len(writes)
            log.warning(
                "group commit of %d writes failed (%s); retrying one by one", len(writes), exc
            )
            outcomes: list[BaseException | None] = []
            for write in writes:
                try:
                    _run_transaction(
                        conn,
                        lambda c, w=write: _write_commands(c, [w], self._token, self._check_owner),
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
        params: list[Any] = [dumps(meta), at, game_id]
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
            if row is None:
                raise StoreError(f"no game {game_id}", code="missing")
            wanted = " or ".join(expected) if expected else "any status"
            at_seq = f" at seq {seq}" if seq is not None else ""
            raise StoreConflict(
                f"game {game_id} is {row[0]} at seq {row[1]}, not {wanted}{at_seq}: nothing "
                "changed (reload the game)"
            )

        await self._transaction(work, doing)

    async def load_game(self, game_id: str) -> GameRecord | None:
        _text("game id", game_id)
        return await self._read(lambda c: _read_game(c, game_id), f"loading game {game_id}")

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        found = await self._read(_read_unfinished, "loading the unfinished games")
        good: list[GameRecord] = []
        for item in found:
            if isinstance(item, GameRecord):
                good.append(item)
                continue
            game_id = getattr(item, "game_id", "?")
            if on_bad is None:
                log.warning("game %s is left out: %s", game_id, item)
            else:
                on_bad(game_id, str(item))
        return good

    async def unreadable_games(self) -> list[tuple[str, str]]:
        found = await self._read(_read_unfinished, "loading the unfinished games")
        return [
            (getattr(item, "game_id", "?"), str(item))
            for item in found
            if isinstance(item, StoreError)
        ]

    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        return await self._read(lambda c: _read_game_ids(c, status))

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        _text("game id", game_id)
        return await self._read(lambda c: _read_commands(c, game_id, after_seq))

    async def results(self, game_id: str) -> list[ResultRow]:
        _text("game id", game_id)
        return await self._read(lambda c: _read_results(c, game_id))

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

        await self._transaction(work, f"quarantining game {game_id}")

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        _text("guild id", guild_id, optional=True)
        return await self._read(lambda conn: _read_quarantined(conn, guild_id))

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

        await self._transaction(work, f"releasing game {game_id}")

    async def owner(self) -> OwnerRecord | None:
        """The owner lease row as stored now (None: nobody ever took it)."""
        return await self._read(_read_owner)

    # ------------------------------------------------------------------ key / value
    async def kv_get(self, namespace: str, key: str) -> Any | None:
        _text("key/value namespace", namespace)
        _text("key", key)
        return await self._read(lambda c: _read_kv_get(c, namespace, key))

    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        for r in rows:
            _text("key/value namespace", r.namespace)
            _text("key", r.key)
        await self._write(
            [
                (
                    "INSERT OR REPLACE INTO kv (namespace, key, json) VALUES (?, ?, ?)",
                    (r.namespace, r.key, dumps(r.value)),
                )
                for r in rows
            ],
            "saving key/value rows",
        )

    async def kv_items(self, namespace: str) -> list[KvRow]:
        _text("key/value namespace", namespace)
        return await self._read(lambda c: _read_kv_items(c, namespace))

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
                await db.call(lambda conn: _begin_snapshot(conn, self.busy_timeout_ms))
            except sqlite3.Error as exc:
                raise self._error(exc, "opening a read snapshot") from None
            yield StoreSnapshot(self, db)
        finally:
            await _shut(db)


def _begin_snapshot(conn: sqlite3.Connection, busy_timeout_ms: int) -> None:
    conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    conn.execute("PRAGMA query_only=ON")
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot starts here


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
        return await self._read(lambda c: _read_game_ids(c, status))

    async def load_game(self, game_id: str) -> GameRecord | None:
        _text("game id", game_id)
        return await self._read(lambda c: _read_game(c, game_id))

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        found = await self._read(_read_unfinished)
        good = [g for g in found if isinstance(g, GameRecord)]
        for item in found:
            if isinstance(item, StoreError):
                game_id = getattr(item, "game_id", "?")
                if on_bad is None:
                    log.warning("game %s is left out: %s", game_id, item)
                else:
                    on_bad(game_id, str(item))
        return good

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        _text("game id", game_id)
        return await self._read(lambda c: _read_commands(c, game_id, after_seq))

    async def results(self, game_id: str) -> list[ResultRow]:
        _text("game id", game_id)
        return await self._read(lambda c: _read_results(c, game_id))

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        _text("player id", player_id)
        return await self._read(lambda c: _read_player(c, player_id))

    async def kv_get(self, namespace: str, key: str) -> Any | None:
        _text("key/value namespace", namespace)
        _text("key", key)
        return await self._read(lambda c: _read_kv_get(c, namespace, key))

    async def kv_items(self, namespace: str) -> list[KvRow]:
        _text("key/value namespace", namespace)
        return await self._read(lambda c: _read_kv_items(c, namespace))

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        _text("guild id", guild_id, optional=True)
        return await self._read(lambda conn: _read_quarantined(conn, guild_id))

    async def owner(self) -> OwnerRecord | None:
        return await self._read(_read_owner)


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


def _run_transaction(
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


def _write_commands(
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
            _write_commands(conn, [write], token, check_owner)
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
            dumps(r.details),
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
