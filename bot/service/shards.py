"""Shard ownership: several processes over one database, each running the games of its shards.

With a :class:`~bot.store.ShardPlan` (``SHARD_COUNT`` / ``SHARD_IDS``) the service runs only the
games whose guild is on a shard it holds the lease of (Discord's formula,
:func:`~bot.store.shard_of`). :class:`ShardKeeper` takes the plan's leases at start, then every
``lease_seconds / 3`` renews them and tries to take the plan's shards it does not hold (a dead
holder's lease is free once it expires, at once when its process on this machine is gone). A
shard taken over has its games resumed here, in a task of its own while the renewals go on
(their deadlines move by the time nobody ran them, as after downtime; its commands are refused
until they are loaded); a shard lost (another process took it over while
this one was paused or cut off) has its games dropped from memory. The store's fencing token
makes the rest safe: every write of a game checks its shard's lease inside its transaction, so
a process that lost a shard never writes one of its moves, timers or computer turns
(:class:`~bot.store.StoreFenced`), and each timer and computer turn runs exactly once: in the
holder.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..store import GameRecord, ShardPlan, StoreError, StoreLocked, shard_of
from .context import ServiceContext, ServicePart

if TYPE_CHECKING:
    from .timers import Timers

log = logging.getLogger(__name__)


class ShardKeeper(ServicePart):
    """The leases of one process's shards (see the module docstring)."""

    def __init__(
        self, context: ServiceContext, plan: ShardPlan, timers: Timers | None = None
    ) -> None:
        super().__init__(context)
        self.timers = timers
        if self.store.shard_count != plan.count:
            raise StoreError(
                f"the store was opened with shard_count={self.store.shard_count}, the plan has "
                f"{plan.count} shards",
                code="invalid",
            )
        self.plan = plan
        self._waiting: set[int] = set()  # wanted shards held elsewhere (logged once)
        self._running: set[int] = set()  # held shards whose games are in memory
        self._resuming: set[int] = set()  # held shards whose games are being loaded

    def resumed(self) -> None:
        """The service's start has loaded the games of every shard held now."""
        self._running = self.held

    def runs(self, guild_id: str | None) -> bool:
        """Whether this process runs the games of that guild now: it holds the guild's shard
        and has loaded its games (a game of a shard just taken over is loaded a moment after
        the lease is taken)."""
        shard = shard_of(guild_id, self.plan.count)
        return shard in self._running and shard in self.store.held_shards

    @property
    def held(self) -> set[int]:
        return set(self.store.held_shards)

    def owns(self, record: GameRecord) -> bool:
        """Whether the game's guild is on a shard this process holds."""
        return shard_of(record.guild_id, self.plan.count) in self.store.held_shards

    async def take(self) -> set[int]:
        """Take the plan's free shards (at start); the shards held afterwards. A live lease
        of another shard count, or a live owner of the whole database, is StoreLocked."""
        held = await self.store.acquire_shards(
            self.plan.ids, now=self.clock.now(), lease_seconds=self.plan.lease_seconds
        )
        self._note_waiting(set(held))
        log.info(
            "shards %s of %d: holding %s",
            self.plan.label(),
            self.plan.count,
            ",".join(map(str, sorted(held))) or "none yet",
        )
        return set(held)

    def _note_waiting(self, held: set[int]) -> None:
        waiting = set(self.plan.ids) - held
        new = waiting - self._waiting
        if new:
            log.warning(
                "shard(s) %s are held by another live process; taken over when its lease ends",
                ",".join(map(str, sorted(new))),
            )
        self._waiting = waiting

    async def loop(self) -> None:
        """Renew and take over every ``lease_seconds / 3`` until the service stops. The games
        of a shard taken over are resumed in a task of their own, so the renewals go on while
        they load (a resume longer than the lease would otherwise lose the lease just taken)."""
        while not self.registry.stopping:
            await self.clock.sleep(self.plan.lease_seconds / 3)
            try:
                _, _, silent = await self._round()
            except StoreLocked as exc:
                log.error("shard leases: %s", exc)
                continue
            except StoreError as exc:
                log.warning("shard leases not renewed now (will try again): %s", exc)
                continue
            # held, not running, not being resumed: just taken over, or a resume that failed
            todo = self.held - self._running - self._resuming
            if todo:
                self._resuming |= todo
                silent = {s: silent[s] for s in todo if s in silent}
                self.registry.spawn(self._take_over(todo, silent), "service-shard-resume")

    async def tick(self) -> tuple[set[int], set[int]]:
        """One renewal round, its takeovers' games resumed before it returns: (shards lost,
        shards taken over). Lost shards' games are dropped."""
        lost, gained, silent = await self._round()
        if gained:
            await self._take_over(gained, silent)
        return lost, gained

    async def _take_over(self, gained: set[int], silent: dict[int, float]) -> None:
        """Resume the games of shards just taken over; they run here once loaded, unless the
        lease was lost meanwhile (then what was loaded of them is dropped again)."""
        try:
            await self.resume(gained, silent)
        finally:
            self._resuming -= gained
        kept = gained & self.held
        self._running |= kept
        if gained - kept:
            self.registry.drop_shards(gained - kept)

    async def _round(self) -> tuple[set[int], set[int], dict[int, float]]:
        """Renew the leases held and take the plan's missing shards: (shards lost, shards
        taken over, since when nobody ran each taken shard's games)."""
        before = self.held
        now = self.clock.now()
        held = set(await self.store.renew_shards(now=now, lease_seconds=self.plan.lease_seconds))
        lost = before - held
        if lost:
            self._running -= lost
            self.registry.drop_shards(lost)
        missing = set(self.plan.ids) - held
        gained: set[int] = set()
        silent: dict[int, float] = {}
        if missing:
            for lease in await self.store.shard_leases():
                if lease.shard in missing:  # since when nobody ran the shard's games
                    silent[lease.shard] = lease.released or lease.heartbeat
            after = await self.store.acquire_shards(
                sorted(missing), now=now, lease_seconds=self.plan.lease_seconds
            )
            gained = set(after) - held
            lost_now = held - set(after)
            if lost_now:
                self._running -= lost_now
                self.registry.drop_shards(lost_now)
                lost |= lost_now
            self._note_waiting(set(after))
        return lost, gained, {s: silent[s] for s in gained if s in silent}

    async def resume(self, shards: set[int], silent: dict[int, float] | None = None) -> None:
        """Load the unfinished games of ``shards`` (just taken over) and let them go on.
        ``silent``: since when nobody ran a shard's games (its last holder's last renewal, or
        its release); deadlines of those games move by that gap, as after downtime."""
        count = self.plan.count
        now = self.clock.now()

        def taken(record: GameRecord) -> bool:
            return shard_of(record.guild_id, count) in shards

        loaded = await self.registry.resume(only=taken)
        log.info(
            "took over shard(s) %s: %d game(s) resumed",
            ",".join(map(str, sorted(shards))),
            len(loaded),
        )
        for live in loaded:
            since = (silent or {}).get(shard_of(live.record.guild_id, count))
            gap = now - since if since is not None else 0.0
            deadline = live.deadline
            if self.timers is not None and gap > 0 and deadline is not None and deadline > since:
                await self.timers.move_deadline(live, deadline + gap)
            self.after_move(live)
