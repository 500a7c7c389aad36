"""Timers: turn reminders and time-outs, abandonment, stale lobbies, and downtime.

The timer loop checks every ``tick_seconds``; a game that is busy (its lock is held) is
skipped and checked at the next tick, and the due games run side by side. Downtime is not the
players' time: a heartbeat in the store (key/value ``service/alive``) tells the next start how
long the bot was down; deadlines that ran during the outage move by that much, and the
abandonment clock only counts time the bot was up (outages are kept in ``service/outages``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable
from typing import Any

from ..store import KvRow, ShardPlan, StoreConflict, StoreError
from .context import ServiceContext, ServicePart
from .outgoing import Outgoing, PublicText
from .pipeline import CommandPipeline
from .registry import LiveGame
from .replay import END, TIMEOUT

log = logging.getLogger(__name__)

ALIVE_KEY = ("service", "alive")  # kv: {"at": the service clock's time of the last heartbeat}
OUTAGES_KEY = ("service", "outages")  # kv: [[down since, up again], ...] (abandonment clock)
MAX_OUTAGES = 1000


def _parse_outages(value: Any) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    if isinstance(value, list):
        for item in value:
            if (
                isinstance(item, list | tuple)
                and len(item) == 2
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in item)
                and item[0] <= item[1]
            ):
                out.append((float(item[0]), float(item[1])))
    return out


class Timers(ServicePart):
    """Every live game's timers, and the service's heartbeat (see the module docstring)."""

    def __init__(self, context: ServiceContext, pipeline: CommandPipeline) -> None:
        super().__init__(context)
        self.pipeline = pipeline
        self._outages: list[tuple[float, float]] = []  # (down since, up again), wall time
        self._beat_at: float | None = None  # when the last heartbeat was written
        self.alive_key: tuple[str, str] = ALIVE_KEY
        self.outages_key: tuple[str, str] = OUTAGES_KEY

    def per_shards(self, plan: ShardPlan) -> None:
        """Keep the heartbeat and the outages of this process's shards (``service/alive/4/0-1``):
        several processes over one database are up and down each on its own."""
        suffix = f"/{plan.count}/{plan.label()}"
        self.alive_key = (ALIVE_KEY[0], ALIVE_KEY[1] + suffix)
        self.outages_key = (OUTAGES_KEY[0], OUTAGES_KEY[1] + suffix)

    # ------------------------------------------------------------------ downtime

    async def note_downtime(self, now: float) -> tuple[float, float]:
        """Read the last heartbeat: (when the bot was last alive, how long it was down since);
        remember the outage for the abandonment clock and write a fresh heartbeat."""
        try:
            alive = await self.store.kv_get(*self.alive_key)
            outages = await self.store.kv_get(*self.outages_key)
        except StoreError:
            log.exception("cannot read the last heartbeat; assuming no downtime")
            return now, 0.0
        self._outages = _parse_outages(outages)
        last = alive.get("at") if isinstance(alive, dict) else None
        if not isinstance(last, int | float) or isinstance(last, bool) or not last < now:
            await self.beat(now, force=True)
            return now, 0.0
        downtime = now - float(last)
        log.info("the bot was down for %.0f s; deadlines move by that much", downtime)
        self._outages.append((float(last), now))
        horizon = now - max(self.config.abandon_after or 0.0, self.config.lobby_expiry or 0.0)
        self._outages = [o for o in self._outages if o[1] > horizon][-MAX_OUTAGES:]
        await self.beat(now, force=True)
        return float(last), downtime

    async def beat(self, now: float, *, force: bool = False) -> None:
        """Write the "alive" heartbeat (and the outages) every ``heartbeat_seconds``."""
        recent = (
            self._beat_at is not None and 0 <= now - self._beat_at < self.config.heartbeat_seconds
        )
        if recent and not force:
            return
        try:
            await self.store.kv_put(
                [
                    KvRow(*self.alive_key, {"at": now}),
                    KvRow(*self.outages_key, [list(o) for o in self._outages]),
                ]
            )
        except StoreError as exc:
            self.registry.store_failed(exc)
            log.warning("heartbeat not written: %s", exc)
            return
        self._beat_at = now

    def _downtime_between(self, since: float, now: float) -> float:
        """Seconds of ``since .. now`` the bot was down (known outages)."""
        return sum(max(0.0, min(end, now) - max(start, since)) for start, end in self._outages)

    def idle(self, live: LiveGame, now: float) -> float:
        """How long nobody played, counting only time the bot was up."""
        return now - live.last_activity - self._downtime_between(live.last_activity, now)

    async def move_deadline(self, live: LiveGame, deadline: float) -> None:
        try:
            await self.store.set_timer(
                live.id, deadline=deadline, reminder_sent=live.reminder_sent, seq=live.seq
            )
        except StoreConflict as exc:
            await self.registry.reload(live, f"its deadline could not be moved ({exc})")
            return
        except StoreError as exc:
            self.registry.store_failed(exc)
            log.warning("game %s: the moved deadline is not stored (%s)", live.id, exc)
        live.deadline = deadline

    # ------------------------------------------------------------------ the loop

    async def tick_loop(self) -> None:
        """Check the timers every ``tick_seconds``; survives any error."""
        while not self.registry.stopping:
            await self.clock.sleep(self.config.tick_seconds)
            try:
                await self.run_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer check failed")

    async def run_due(self) -> list[Outgoing]:
        """Run every timer that is due now (see :meth:`GameService.run_due`)."""
        now = self.clock.now()
        await self.beat(now)
        games = self.registry.games
        due = [g for g in list(games.values()) if self._maybe_due(g, now)]
        results = await asyncio.gather(
            *(self._due_locked(live, now) for live in due), return_exceptions=True
        )
        out: list[Outgoing] = []
        for live, result in zip(due, results, strict=True):
            if isinstance(result, BaseException):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                log.error("timer of game %s failed", live.id, exc_info=result)
                continue
            out += result
        for live in list(games.values()):
            self.after_move(live)
        await self.emit(out)
        return out

    def _maybe_due(self, live: LiveGame, now: float) -> bool:
        """Cheap check without the lock: could a timer of this game be due now?"""
        cfg = self.config
        if live.status == "lobby":
            return cfg.lobby_expiry is not None and self.idle(live, now) >= cfg.lobby_expiry
        if live.status != "playing" or live.state is None:
            return False
        if cfg.abandon_after is not None and self.idle(live, now) >= cfg.abandon_after:
            return True
        if live.deadline is None:
            return False
        seconds = live.rules.turn_seconds or 0
        return now >= live.deadline - seconds * cfg.reminder_fraction

    async def _due_locked(self, live: LiveGame, now: float) -> list[Outgoing]:
        if live.lock.locked():  # busy: come back at the next tick
            return []
        async with live.lock:
            if not self.registry.is_live(live):
                return []
            return await self.due(live, now)

    async def _guarded(self, live: LiveGame, write: Awaitable[None], what: str) -> bool:
        """A status or timer write guarded by the game's stored status and seq: True when it is
        stored. Refused (this copy is stale): the game is reloaded from the database; another
        store error is logged. Either way nothing changes in memory."""
        try:
            await write
        except StoreConflict as exc:
            await self.registry.reload(live, f"{what} was refused ({exc})")
            return False
        except StoreError as exc:
            self.registry.store_failed(exc)
            log.error("game %s: %s is not stored: %s", live.id, what, exc)
            return False
        return True

    async def due(self, live: LiveGame, now: float) -> list[Outgoing]:
        """The timers of one game that are due ``now``. Caller holds ``live.lock``."""
        cfg = self.config
        if live.status == "lobby":
            if cfg.lobby_expiry is not None and self.idle(live, now) >= cfg.lobby_expiry:
                closing = self.store.set_status(live.id, "cancelled", at=now, expect="lobby")
                if not await self._guarded(live, closing, "closing its lobby"):
                    return []
                live.record = dataclasses.replace(live.record, status="cancelled")
                self.registry.forget(live)
                return [
                    PublicText(live.id, "service.lobby.expired", {"game": live.id}, kind="lobby")
                ]
            return []
        if live.status != "playing" or live.state is None:
            return []
        if cfg.abandon_after is not None and self.idle(live, now) >= cfg.abandon_after:
            out = await self.pipeline.service_action(live, f"{END} abandoned", activity=False)
            if out:
                out.insert(0, PublicText(live.id, "service.abandoned", kind="abandoned"))
            return out
        if live.deadline is None:
            return []
        if now >= live.deadline:
            return await self.pipeline.service_action(live, TIMEOUT, activity=False)
        seconds = live.rules.turn_seconds or 0
        remind_at = live.deadline - seconds * cfg.reminder_fraction
        if not live.reminder_sent and seconds and now >= remind_at:
            marking = self.store.set_timer(
                live.id, deadline=live.deadline, reminder_sent=True, seq=live.seq
            )
            if not await self._guarded(live, marking, "its reminder"):
                return []
            live.reminder_sent = True
            info = live.seats[live.state.current]
            if info.is_bot:
                return []
            left = max(0, round(live.deadline - now))
            return [self.messages.reminder(live, left)]
        return []
