"""Every failure out of asyncpg as one :class:`~bot.store.base.StoreError`: one line saying what
is wrong and what to do, and a ``code``.

Codes beyond SQLite's: ``unreachable`` (the server cannot be reached at all, or refuses this
login or database: start-up stops on it) and ``unavailable`` (the connection was lost during a
call: nothing of that call is acknowledged; the next call connects again)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import asyncpg

from ..base import StoreConflict, StoreError, StoreInvalid
from ..failures import value_error

#: failures that mean "the connection (or the server) is gone", not "the statement is wrong"
CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.exceptions.IdleSessionTimeoutError,
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,
)


def safe_url(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    try:
        parts = urlsplit(url)
        if not parts.password:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        user = f"{parts.username}:***@" if parts.username else ""
        return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))
    except ValueError:
        return "the PostgreSQL URL"


def is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, asyncpg.InterfaceError) and not isinstance(
        exc, asyncpg.exceptions._base.ClientConfigurationError
    ):
        text = str(exc).lower()
        return "closed" in text or "connection" in text or "released" in text
    if isinstance(exc, asyncpg.InterfaceError):
        return False
    return isinstance(exc, CONNECTION_ERRORS)


def connect_error(exc: BaseException, where: str) -> StoreError:
    """A one-line StoreError for a failure to connect at all (``code="unreachable"``)."""
    if isinstance(exc, StoreError):
        return exc
    check = f"check DATABASE_URL / --db ({where})"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        why = f"the database does not exist ({exc}); create it (createdb) or {check}"
    elif isinstance(exc, asyncpg.InvalidPasswordError):
        why = f"the server refused the password ({exc}); {check}"
    elif isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError):
        why = f"the server refused this user ({exc}); {check}"
    elif isinstance(exc, asyncpg.TooManyConnectionsError):
        why = f"the server has no connection left ({exc}); try again later"
    elif isinstance(exc, TimeoutError):
        why = f"no answer from the server in time; is it running? {check}"
    elif isinstance(exc, (ValueError, asyncpg.exceptions._base.ClientConfigurationError)):
        return StoreError(f"not a valid PostgreSQL URL {where}: {exc}", code="invalid")
    elif isinstance(exc, OSError):
        detail = exc.strerror or str(exc) or type(exc).__name__
        why = f"the server cannot be reached ({detail}); is it running? {check}"
    else:
        why = f"{type(exc).__name__}: {exc}; {check}"
    return StoreError(f"cannot connect to PostgreSQL {where}: {why}", code="unreachable")


def pg_error(exc: BaseException, doing: str, *, where: str) -> StoreError:
    """A one-line StoreError for an exception out of asyncpg (or the values given to it)."""
    known = value_error(exc, doing)
    if known is not None:
        return known
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return StoreConflict(f"{doing}: the write conflicts with stored rows ({exc})")
    if isinstance(exc, (asyncpg.DataError, asyncpg.exceptions._base.DataError)):
        return StoreInvalid(f"{doing}: a value the database cannot keep ({exc}); nothing was saved")
    if isinstance(exc, asyncpg.DiskFullError):
        return StoreError(
            f"{where}: {doing} failed: the database server's disk is full; nothing was saved; "
            "free some disk space on the server",
            code="full",
        )
    if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
        return StoreError(
            f"{where}: {doing} failed: the database is read-only ({exc}); nothing was saved",
            code="readonly",
        )
    if isinstance(exc, (asyncpg.DeadlockDetectedError, asyncpg.SerializationError)):
        return StoreError(
            f"{where}: {doing} failed: the database was busy with a conflicting write ({exc}); "
            "nothing was saved; try again",
            code="busy",
        )
    if is_connection_error(exc):
        detail = str(exc) or type(exc).__name__
        return StoreError(
            f"{where}: {doing} failed: the connection to the database was lost ({detail}); "
            "nothing was acknowledged; the store connects again at the next call",
            code="unavailable",
        )
    return StoreError(f"{where}: {doing} failed: {type(exc).__name__}: {exc}")
