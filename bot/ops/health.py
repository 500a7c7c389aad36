"""The checks behind ``/healthz``: each is ``async () -> None`` (healthy) or a reason (a short
English line for the operator; the answer is 503 then)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

Check = Callable[[], Awaitable[str | None]]

#: the namespace of the health read (no row is ever written there)
PROBE_NAMESPACE = "ops"


def gateway_check(bot: Any) -> Check:
    """Healthy while the Discord client is logged in and every shard's gateway connection is
    open (a ``discord.Client`` / ``AutoShardedClient``)."""

    async def check() -> str | None:
        if bot.is_closed():
            return "the Discord client is closed"
        if not bot.is_ready():
            return "not connected to the Discord gateway (yet)"
        shards = getattr(bot, "shards", None) or {}
        down = sorted(shard_id for shard_id, info in shards.items() if info.is_closed())
        if down:
            return f"gateway connection closed for shard(s) {', '.join(map(str, down))}"
        ws = getattr(bot, "ws", None)
        if not shards and (ws is None or not ws.open):
            return "the Discord gateway connection is closed"
        return None

    return check


def store_check(store: Callable[[], Any]) -> Check:
    """Healthy while ``store()`` (the open store, or None before it is opened) answers a read
    (one ``kv_get`` through the database: the connection thread or the pool)."""

    async def check() -> str | None:
        found = store()
        if found is None:
            return "the database is not open (yet)"
        try:
            await found.kv_get(PROBE_NAMESPACE, "healthz")
        except Exception as exc:
            return (
                f"the database cannot be read: {' '.join(str(exc).split()) or type(exc).__name__}"
            )
        return None

    return check


async def run_checks(checks: Sequence[Check], timeout: float) -> list[str]:
    """The reasons of every failing check (empty: healthy); a check that takes longer than
    ``timeout`` seconds fails."""
    reasons: list[str] = []
    for check in checks:
        try:
            reason = await asyncio.wait_for(check(), timeout)
        except TimeoutError:
            reason = f"a health check took longer than {timeout:g} s"
        except Exception as exc:
            reason = f"a health check failed: {exc}"
        if reason:
            reasons.append(reason)
    return reasons
