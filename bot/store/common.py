"""What the SQLite and the PostgreSQL store decide and say alike, written once: the owner lease's
refusals, opening while another process holds the lease, the refusal of a guarded game update,
the values of a game row, the report of unreadable games, and a key/value hook's own error.
Each store only reads and writes its rows."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from engine.codec import canonical_json

from .base import StoreConflict, StoreError, StoreLocked, StoreOwnerLost
from .lease import ShardLease, holder_alive, holder_text
from .records import GameRecord, KvHook, KvRow, OwnerRecord, seats_to_json

log = logging.getLogger(__name__)
_T = TypeVar("_T")


async def open_waiting(
    open_once: Callable[[], Awaitable[None]], *, lease_wait: float, lease_seconds: float, where: str
) -> None:
    """``open_once()``; while it raises StoreLocked, try again every ``lease_seconds / 6`` for
    ``lease_wait`` seconds (a holder that died elsewhere is free ``lease_seconds`` after its
    last heartbeat), then raise it."""
    deadline = time.monotonic() + lease_wait
    while True:
        try:
            await open_once()
            return
        except StoreLocked:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            log.info("%s is in use; waiting up to %.0f s for its lease", where, left)
            await asyncio.sleep(min(lease_seconds / 6, left))


def refuse_live_holders(
    holder: OwnerRecord | None,
    leases: Sequence[ShardLease],
    *,
    now: float,
    lease_seconds: float,
    where: str,
) -> None:
    """Taking the owner lease: refused (StoreLocked) while its holder is alive or any shard
    lease is live; a dead holder is taken over (logged)."""
    if holder is not None and holder_alive(holder, now=now, lease_seconds=lease_seconds):
        raise StoreLocked(
            f"{where} is in use by {holder_text(holder, now)}: stop that process first "
            f"(a holder that died counts as gone {lease_seconds:.0f} s after its last "
            "heartbeat)",
            holder=holder,
        )
    for lease in leases:
        if not lease.free(now):
            raise StoreLocked(
                f"{where} is in use by sharded processes, e.g. {lease.text(now)}: stop "
                "them first, or run this one with their SHARD_COUNT and its own SHARD_IDS"
            )
    if holder is not None and holder.released is None:
        log.warning(
            "%s: taking the owner lease over from %s, which is gone",
            where,
            holder_text(holder, now),
        )


def refuse_live_owner(holder: OwnerRecord | None, *, lease_seconds: float, where: str) -> None:
    """A sharded store never writes beside a live whole-database owner (StoreLocked)."""
    now = time.time()
    if holder is not None and holder_alive(holder, now=now, lease_seconds=lease_seconds):
        raise StoreLocked(
            f"{where} is in use by {holder_text(holder, now)}, which runs every game "
            "(no SHARD_COUNT): stop it first",
            holder=holder,
        )


def owner_lost(holder: OwnerRecord | None, where: str) -> StoreOwnerLost:
    """The refusal of a write whose owner lease another process holds now."""
    now = time.time()
    by = holder_text(holder, now) if holder and holder.released is None else "nobody"
    return StoreOwnerLost(
        f"this process no longer owns {where}: the lease is held by {by}; nothing was "
        "saved; stop this process (the other one runs the games now)",
        holder=holder,
    )


def guard_refusal(
    game_id: str,
    found: Sequence[Any] | None,
    expected: Sequence[str] | None,
    seq: int | None,
) -> StoreError:
    """Why a guarded game update changed no row: no such game (``code="missing"``), or the
    game's stored ``(status, seq)`` in ``found`` is not the one expected (StoreConflict)."""
    if found is None:
        return StoreError(f"no game {game_id}", code="missing")
    wanted = " or ".join(expected) if expected else "any status"
    at_seq = f" at seq {seq}" if seq is not None else ""
    return StoreConflict(
        f"game {game_id} is {found[0]} at seq {found[1]}, not {wanted}{at_seq}: nothing "
        "changed (reload the game)"
    )


def game_values(game: GameRecord) -> tuple[Any, ...]:
    """A game's values in the order of :data:`bot.store.reads.GAME_COLUMNS`."""
    return (
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
        game.reminder_sent,
        game.last_activity,
        game.snapshot_json,
        game.snapshot_seq,
        game.seq,
        canonical_json(game.meta),
    )


def good_games(
    found: Sequence[GameRecord | StoreError], on_bad: Callable[[str, str], None] | None
) -> list[GameRecord]:
    """The records of ``found``; each unreadable row (a StoreError with its ``game_id``) goes
    to ``on_bad(game_id, reason)`` (default: a log warning)."""
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


async def with_own_errors(hook: KvHook, run: Callable[[KvHook], Awaitable[_T]]) -> _T:
    """``await run(same_hook)``: an exception raised by the hook's ``compute`` itself comes out
    as it is (the caller's own error), not as the store's wording of a failed transaction."""
    raised: list[BaseException] = []

    def compute(rows: list[KvRow]) -> Sequence[KvRow]:
        try:
            return hook.compute(rows)
        except BaseException as exc:
            raised.append(exc)
            raise

    try:
        return await run(KvHook(hook.reads, compute))
    except BaseException:
        if raised:
            raise raised[0] from None
        raise
