"""Every failure out of SQLite as one :class:`~bot.store.base.StoreError`: one line saying what is
wrong and what to do, and a ``code`` (``full``, ``busy``, ``readonly``, ``corrupt``, ``io``...)."""

from __future__ import annotations

import sqlite3

from .base import StoreConflict, StoreError, StoreInvalid

# SQLite's primary result codes (sqlite3.SQLITE_* from Python 3.11 on)
_PERM, _BUSY, _LOCKED, _NOMEM, _READONLY, _IOERR, _CORRUPT = 3, 5, 6, 7, 8, 10, 11
_FULL, _CANTOPEN, _CONSTRAINT, _NOTADB = 13, 14, 19, 26


def value_error(exc: BaseException, doing: str) -> StoreError | None:
    """The StoreError itself, or the one for a value no database driver could send (a lone
    surrogate, a number too large); None for any other exception. Both stores start here."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, UnicodeEncodeError):
        return StoreInvalid(
            f"{doing}: a text value is not valid Unicode (a lone surrogate); nothing was saved"
        )
    if isinstance(exc, OverflowError):
        return StoreInvalid(f"{doing}: a number is too large for the database ({exc})")
    return None


def sqlite_error(exc: BaseException, doing: str, *, path: str, busy_timeout_ms: int) -> StoreError:
    """A one-line StoreError for an exception out of SQLite (or the values given to it)."""
    known = value_error(exc, doing)
    if known is not None:
        return known
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    where = path
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
            f"(waited {busy_timeout_ms / 1000:g} s); nothing was saved; try again",
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
