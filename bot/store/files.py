"""What opening looks at before SQLite touches a file, and what it makes when there is none.

SQLite takes a 0-byte file as a new database and writes into whatever it finds; these checks tell
a missing, empty, read-only, truncated, foreign or newer file apart first (each a one-line
:class:`~bot.store.base.StoreError`), and a new file is built beside its place and linked in, so a
racing process never sees half of it."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
import uuid
from pathlib import Path

from .base import StoreError
from .failures import sqlite_error
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, TABLES, statements

log = logging.getLogger(__name__)

MAGIC = b"SQLite format 3\x00"


class DatabaseFile:
    """The file checks of :class:`~bot.store.sqlite.SqliteStore` (a mixin over its ``path``,
    ``readonly``, ``create``, ``init_empty``, ``busy_timeout_ms`` and ``_deep_check``), and its
    one-line errors for whatever SQLite raises."""

    path: str
    readonly: bool
    create: bool
    init_empty: bool
    busy_timeout_ms: int
    _deep_check: bool

    @property
    def memory(self) -> bool:
        return self.path == ":memory:"

    def _error(self, exc: BaseException, doing: str) -> StoreError:
        """A one-line StoreError for an exception out of SQLite (or the values given to it)."""
        return sqlite_error(exc, doing, path=self.path, busy_timeout_ms=self.busy_timeout_ms)

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
        if len(header) < 100 or header[:16] != MAGIC:
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
