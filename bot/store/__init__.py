"""Persistence: every SQL statement of the bot lives in this package.

Use :func:`open_store` with a database URL; the game service only sees the :class:`Store`
interface and the record types.
"""

from .base import Store, StoreConflict, StoreError, open_store
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
)
from .sqlite import SCHEMA_VERSION, SqliteStore

__all__ = [
    "SCHEMA_VERSION",
    "UNFINISHED",
    "CommandRecord",
    "CommandWrite",
    "GameRecord",
    "GameStatus",
    "KvRow",
    "PlayerRecord",
    "ResultRow",
    "Seat",
    "SqliteStore",
    "Store",
    "StoreConflict",
    "StoreError",
    "open_store",
]
