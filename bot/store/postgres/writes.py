"""The statements of a group commit's batch of command writes on PostgreSQL: the log rows and the
game rows as one ``unnest`` statement each, whatever the batch's size."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from engine.codec import canonical_json

from ..base import StoreConflict
from ..reads import _json_column
from ..records import CommandWrite, KvHook, KvRow
from ..writes import result_values

#: one batch of command writes in ONE statement: the function of migration 0003 (the lease
#: check when given, the log rows, the game rows; SQLSTATE RUM03 when a seq does not fit)
_WRITE_FUNCTION = (
    "SELECT rummy_write_commands($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
)

_INSERT_RESULTS = (
    "INSERT INTO results (game_id, seat, player_id, points, rank, winner, reason, finished_at, "
    "details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
)

KV_UPSERT = (
    "INSERT INTO kv (namespace, key, json) VALUES ($1, $2, $3) "
    "ON CONFLICT (namespace, key) DO UPDATE SET json = excluded.json"
)


#: the first key of the advisory locks of key/value ranges (the second: the namespace's hash)
KV_LOCK_CLASS = 0x4B56


async def lock_kv_ranges(conn: asyncpg.Connection, hooks: Sequence[KvHook]) -> None:
    """Serialise the transactions whose hooks read the same rows: an advisory transaction lock
    per namespace read (a namespace holds every prefix of it), taken in sorted order so two
    transactions never wait for each other in a circle."""
    for namespace in sorted({read.namespace for hook in hooks for read in hook.reads}):
        await conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", KV_LOCK_CLASS, namespace
        )


async def run_kv_hook(conn: asyncpg.Connection, hook: KvHook) -> list[KvRow]:
    """Read the hook's ranges, compute, write the rows it returns (inside the caller's
    transaction, after :func:`lock_kv_ranges`)."""
    found: dict[tuple[str, str], KvRow] = {}
    for read in hook.reads:
        rows = await conn.fetch(
            "SELECT key, json FROM kv WHERE namespace = $1 AND starts_with(key, $2) ORDER BY key",
            read.namespace,
            read.prefix,
        )
        for r in rows:
            value = _json_column(r[1], f"key/value row {read.namespace}/{r[0]}")
            found[(read.namespace, r[0])] = KvRow(read.namespace, r[0], value)
    written = list(hook.compute([found[k] for k in sorted(found)]))
    if written:
        await conn.executemany(
            KV_UPSERT, [(r.namespace, r.key, canonical_json(r.value)) for r in written]
        )
    return written


def row_count(status: str) -> int:
    """The row count of an asyncpg command status (``"UPDATE 3"``, ``"INSERT 0 3"``)."""
    try:
        return int(status.rsplit(" ", 1)[-1])
    except (ValueError, IndexError):
        return 0


async def call_write_function(
    conn: asyncpg.Connection,
    writes: Sequence[CommandWrite],
    *,
    owner_token: str | None = None,
    holder: str | None = None,
    shards: Sequence[int] = (),
    tokens: Sequence[int] = (),
) -> None:
    """The log rows and game rows of ``writes`` (distinct games) as one call of
    ``rummy_write_commands``, which first checks the owner lease (``owner_token``) or the
    shard leases (``holder`` with ``shards`` and their ``tokens``) when given. A seq that does
    not fit, a command logged already or a game that does not exist is a StoreConflict; a lease
    that is not ours raises the function's RUM01 / RUM02 (asyncpg's error)."""
    ordered = sorted(writes, key=lambda w: w.game_id)  # one lock order for every batch
    try:
        await conn.execute(
            _WRITE_FUNCTION,
            owner_token,
            holder,
            list(shards),
            list(tokens),
            [w.game_id for w in ordered],
            [w.seq for w in ordered],
            [w.seat for w in ordered],
            [w.text for w in ordered],
            [w.at for w in ordered],
            [w.status for w in ordered],
            [w.deadline for w in ordered],
            [w.reminder_sent for w in ordered],
            [w.snapshot_json for w in ordered],
            [w.activity for w in ordered],
        )
    except asyncpg.UniqueViolationError as exc:
        raise StoreConflict(f"command already logged: {exc}") from None
    except asyncpg.ForeignKeyViolationError as exc:
        raise StoreConflict(f"a command of a game that does not exist: {exc}") from None
    except asyncpg.PostgresError as exc:
        if getattr(exc, "sqlstate", None) == "RUM03":
            raise StoreConflict("a command's seq is not the next one of its game") from None
        raise


async def write_commands(conn: asyncpg.Connection, writes: Sequence[CommandWrite]) -> None:
    """The statements of a batch of command writes (inside the caller's transaction, after its
    lease check). Two commands of one game go one after the other, in their order."""
    hooks = [hook for w in writes for hook in w.kv_hooks]
    if hooks:
        await lock_kv_ranges(conn, hooks)
    if len({w.game_id for w in writes}) != len(writes):
        for write in writes:
            await write_commands(conn, [write])
        return
    await call_write_function(conn, writes)
    result_rows = [result_values(r) for w in writes for r in w.results]
    if result_rows:
        try:
            await conn.executemany(_INSERT_RESULTS, result_rows)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise StoreConflict(f"result rows conflict with stored ones: {exc}") from None
    # in the order the commands were accepted: a later ladder row wins
    kv_rows = [(k.namespace, k.key, canonical_json(k.value)) for w in writes for k in w.kv]
    if kv_rows:
        await conn.executemany(KV_UPSERT, kv_rows)
    for w in writes:
        for hook in w.kv_hooks:
            await run_kv_hook(conn, hook)
