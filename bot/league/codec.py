"""Canonical JSON and ISO times shared by the league value types.

Every state object has ``to_dict()`` / ``from_dict()`` (``engine.codec``); :func:`dumps` turns
such a dict into the byte-stable text the store keeps: it is the engine's one
:func:`engine.codec.canonical_json` (sorted keys, no spaces, UTF-8 kept as is), so the same
state always gives the same bytes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from engine.codec import canonical_json as dumps

__all__ = ["dumps", "loads", "parse_time"]


def loads(text: str) -> Any:
    """Parse JSON text written by :func:`dumps`."""
    return json.loads(text)


def parse_time(value: str) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (naive times are read as UTC); None if invalid."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)
