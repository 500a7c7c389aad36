"""``postgresql://`` URLs: the store's own query options are taken out, the rest is asyncpg's."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..base import StoreError
from .errors import safe_url

#: query options of the store itself (numbers of seconds or connections), not asyncpg's
NUMBER_OPTIONS = {
    "lease_seconds": float,
    "lease_wait": float,
    "connect_timeout": float,
    "pool_size": int,
    "shard_count": int,
}


def split_url(url: str) -> tuple[str, dict[str, Any]]:
    """(the DSN for asyncpg, the store options in the URL's query)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise StoreError(f"not a valid PostgreSQL URL {safe_url(url)}: {exc}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise StoreError(f"not a PostgreSQL URL: {safe_url(url)}", code="invalid")
    kept: list[tuple[str, str]] = []
    options: dict[str, Any] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in NUMBER_OPTIONS:
            try:
                options[name] = NUMBER_OPTIONS[name](value)
            except ValueError:
                raise StoreError(
                    f"{name} must be a number in {safe_url(url)}, not {value!r}", code="invalid"
                ) from None
        elif name == "synchronous":
            options[name] = value
        else:
            kept.append((name, value))
    dsn = urlunsplit(
        ("postgresql", parts.netloc, parts.path, urlencode(kept, safe="/"), parts.fragment)
    )
    return dsn, options


def postgres_store(url: str, **options: Any) -> Any:
    """The :class:`~bot.store.postgres.PostgresStore` (not yet opened) for a URL; keyword
    ``options`` win over the URL's."""
    from .store import PostgresStore

    dsn, found = split_url(url)
    found.update(options)
    return PostgresStore(dsn, **found)
