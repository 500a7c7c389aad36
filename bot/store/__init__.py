"""Persistence: every SQL statement of the bot lives in this package.

Use :func:`open_store` with a database URL; the game service only sees the :class:`Store`
interface and the record types.
"""

from .base import (
    Store,
    StoreConflict,
    StoreError,
    StoreFenced,
    StoreInvalid,
    StoreLocked,
    StoreOwnerLost,
    open_store,
)
from .lease import ShardLease, ShardPlan, shard_of
from .records import (
    STATUSES,
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvHook,
    KvRead,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
    Seat,
)
from .schema import APPLICATION_ID, SCHEMA_VERSION
from .sqlite import SqliteStore, StoreSnapshot

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "STATUSES",
    "UNFINISHED",
    "CommandRecord",
    "CommandWrite",
    "GameRecord",
    "GameStatus",
    "KvHook",
    "KvRead",
    "KvRow",
    "OwnerRecord",
    "PlayerRecord",
    "ResultRow",
    "Seat",
    "ShardLease",
    "ShardPlan",
    "SqliteStore",
    "Store",
    "StoreConflict",
    "StoreError",
    "StoreFenced",
    "StoreInvalid",
    "StoreLocked",
    "StoreOwnerLost",
    "StoreSnapshot",
    "open_store",
    "shard_of",
]
