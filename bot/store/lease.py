"""The owner lease's facts: which process on which machine holds a database, and whether it
still counts as alive (its heartbeat, its process, the machine's boot); and the shard leases of
several processes over one database (:class:`ShardPlan`, :class:`ShardLease`, :func:`shard_of`):
each shard's games are written only by the holder of its lease, checked by a fencing token."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .records import OwnerRecord

log = logging.getLogger(__name__)

HOST = socket.gethostname()


def _read_boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


BOOT_ID = _read_boot_id()


def utc(seconds: float) -> str:
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return f"{seconds!r} (not a valid time)"


def process_facts(pid: int) -> tuple[int | None, str | None]:
    """(start time in clock ticks, state letter) of a process from /proc; (None, None) when
    there is no such process or no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None, None
    try:
        fields = text[text.rindex(")") + 2 :].split()
        return int(fields[19]), fields[0]
    except (ValueError, IndexError):
        return None, None


def _pid_alive(pid: int, started: int | None) -> bool:
    """Whether process ``pid`` of THIS machine is still the one that took the lease."""
    if pid <= 0:
        return False
    now_started, state = process_facts(pid)
    if state is not None:
        if state in ("Z", "X"):  # a zombie or dead process holds nothing
            return False
        return started is None or now_started is None or now_started == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True


def holder_alive(holder: OwnerRecord, *, now: float, lease_seconds: float) -> bool:
    """Whether the lease ``holder`` still counts: not released, heartbeat younger than
    ``lease_seconds`` and, when it ran on this machine since its last boot, its process still
    there (a reused process id does not count: its start time differs)."""
    if holder.released is not None:
        return False
    if abs(now - holder.heartbeat) > lease_seconds:
        # silent too long; or stamped more than a lease ahead of this clock (a clock stepped
        # back): counting that as alive could lock the database out for hours. Safe either way:
        # a holder that is in fact alive finds its lease gone at its next write.
        return False
    if holder.host == HOST:
        if holder.boot is not None and BOOT_ID is not None and holder.boot != BOOT_ID:
            return False  # this machine rebooted since
        return _pid_alive(holder.pid, holder.started)
    return True


def owner_from_row(row: Sequence[Any] | None) -> OwnerRecord | None:
    if row is None:
        return None
    return OwnerRecord(
        token=row[0],
        pid=int(row[1]),
        host=row[2],
        since=float(row[3]),
        heartbeat=float(row[4]),
        released=None if row[5] is None else float(row[5]),
        boot=row[6],
        started=row[7],
    )


def holder_text(holder: OwnerRecord, now: float) -> str:
    who = "this very process" if holder.pid == os.getpid() and holder.host == HOST else ""
    who = who or f"process {holder.pid} on host {holder.host}"
    return (
        f"{who} since {utc(holder.since)} (last heartbeat {max(0.0, now - holder.heartbeat):.0f}"
        " s ago)"
    )


OWNER_COLUMNS = "token, pid, host, since, heartbeat, released, boot, started"


# ---------------------------------------------------------------------------- shard leases


def shard_of(guild_id: str | None, shard_count: int) -> int:
    """The shard of a guild, by Discord's formula ``(guild_id >> 22) % shard_count``; a game
    without a guild (None), or whose guild id is not a decimal number, is on shard 0 (Discord
    sends direct messages to shard 0)."""
    if shard_count <= 1 or guild_id is None:
        return 0
    text = str(guild_id)
    if not text.isascii() or not text.isdigit():
        return 0
    return (int(text) >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """The shards one process runs: ``count`` in all (``SHARD_COUNT``), ``ids`` of them its own
    (``SHARD_IDS``), each held by a lease of ``lease_seconds`` in the database."""

    count: int
    ids: tuple[int, ...]
    lease_seconds: float = 30.0

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or isinstance(self.count, bool) or self.count < 1:
            raise ValueError(f"the shard count must be a whole number >= 1, not {self.count!r}")
        if not self.ids:
            raise ValueError("a shard plan needs at least one shard id")
        wrong = [i for i in self.ids if not 0 <= i < self.count]
        if wrong:
            raise ValueError(
                f"shard id(s) {', '.join(map(str, wrong))} outside 0-{self.count - 1} "
                f"(SHARD_COUNT={self.count})"
            )
        if not self.lease_seconds > 0:
            raise ValueError(f"lease_seconds must be positive, not {self.lease_seconds!r}")

    @classmethod
    def of(
        cls, count: int, ids: Sequence[int] | None = None, *, lease_seconds: float = 30.0
    ) -> ShardPlan:
        """The plan for ``count`` shards and ``ids`` of them (None or empty: all)."""
        chosen = tuple(sorted(set(ids))) if ids else tuple(range(count))
        return cls(count, chosen, lease_seconds)

    def owns(self, guild_id: str | None) -> bool:
        """Whether the plan's shards include the guild's."""
        return shard_of(guild_id, self.count) in self.ids

    def label(self) -> str:
        """``0-3`` / ``0,2`` (as SHARD_IDS), for logs and key names."""
        parts: list[str] = []
        run: list[int] = []
        for shard in self.ids:
            if run and shard == run[-1] + 1:
                run.append(shard)
                continue
            if run:
                parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run = [shard]
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        return ",".join(parts)


@dataclass(frozen=True, slots=True)
class ShardLease:
    """One row of ``shard_leases``: who may write the games of one shard.

    ``holder`` is the holding store's random id; ``token`` the fencing token, which grows on
    every acquisition (a takeover, or a fresh take after a release) and stays the same while the
    holder renews. ``since``/``heartbeat``/``expires``/``released`` are POSIX seconds of the
    holder's clock."""

    shard: int
    shard_count: int
    holder: str
    token: int
    pid: int
    host: str
    since: float
    heartbeat: float
    expires: float
    released: float | None = None
    boot: str | None = None
    started: int | None = None

    def live(self, now: float) -> bool:
        """Not given back and not expired at ``now``."""
        return self.released is None and now < self.expires

    def free(self, now: float) -> bool:
        """Whether another store may take the lease over at ``now``: given back, expired, or
        its holder ran on this machine since its boot and that process is gone."""
        if not self.live(now):
            return True
        if self.host == HOST and self.boot is not None and self.boot == BOOT_ID:
            return not _pid_alive(self.pid, self.started)
        return False

    def text(self, now: float) -> str:
        who = f"process {self.pid} on host {self.host}"
        return (
            f"{who} (shard {self.shard} of {self.shard_count}, token {self.token}, since "
            f"{utc(self.since)}, expires in {self.expires - now:.0f} s)"
        )


SHARD_COLUMNS = (
    "shard, shard_count, holder, token, pid, host, since, heartbeat, expires, released, boot, "
    "started"
)


def shard_lease_from_row(row: Sequence[Any]) -> ShardLease:
    return ShardLease(
        shard=int(row[0]),
        shard_count=int(row[1]),
        holder=str(row[2]),
        token=int(row[3]),
        pid=int(row[4]),
        host=str(row[5]),
        since=float(row[6]),
        heartbeat=float(row[7]),
        expires=float(row[8]),
        released=None if row[9] is None else float(row[9]),
        boot=row[10],
        started=None if row[11] is None else int(row[11]),
    )


# the decisions both stores make about shard leases (each store only reads and writes the rows)


def shard_range_error(wanted: Sequence[int], count: int) -> str | None:
    """Why ``wanted`` are not shards of ``count`` (None: they are)."""
    bad = [s for s in wanted if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < count]
    return f"shard(s) {bad} outside 0-{count - 1} (shard_count {count})" if bad else None


def acquire_steps(
    rows: Mapping[int, ShardLease],
    wanted: Sequence[int],
    *,
    holder: str | None,
    held: Mapping[int, int],
    now: float,
    count: int,
    where: str,
) -> list[tuple[int, int, bool]]:
    """What acquiring ``wanted`` does, given the lease ``rows`` read in the transaction:
    ``(shard, token, renew)`` per shard to write (``renew``: this store's own lease, extended
    with its token; else taken with ``token``: 1 for a new row, the old one + 1 for a free one).
    Shards held by another live store are left out. A live lease of another shard count is
    :class:`~bot.store.base.StoreLocked`."""
    from .base import StoreLocked

    for lease in rows.values():
        if lease.shard_count != count and not lease.free(now):
            raise StoreLocked(
                f"{where} is run with SHARD_COUNT={lease.shard_count} by {lease.text(now)}, not "
                f"{count}: use one SHARD_COUNT for every process"
            )
    steps: list[tuple[int, int, bool]] = []
    for shard in sorted(set(wanted)):
        row = rows.get(shard)
        mine = row is not None and row.holder == holder and row.released is None
        if mine and held.get(shard) == row.token:
            steps.append((shard, row.token, True))
            continue
        if row is not None and not row.free(now):
            continue  # a live holder elsewhere
        token = 1 if row is None else row.token + 1
        if row is not None and row.released is None:
            log.warning(
                "%s: taking shard %d over from %s (fencing token %d)",
                where,
                shard,
                row.text(now),
                token,
            )
        steps.append((shard, token, False))
    return steps


def keep_held(held: dict[int, int], stored: Mapping[int, int], where: str) -> dict[int, int]:
    """Drop from ``held`` every shard whose row (``stored``: shard -> token of this store's
    unreleased rows) carries another holder or token now; returns a copy of what is left."""
    for shard, token in list(held.items()):
        if stored.get(shard) != token:
            log.error("%s: the lease of shard %d was taken over", where, shard)
            held.pop(shard, None)
    return dict(held)


def check_fence(
    needed: set[int], held: dict[int, int], stored: Mapping[int, int], where: str
) -> None:
    """The fence of a game write: every shard in ``needed`` must be in ``held`` with the token
    its row carries now (``stored``: shard -> token of this store's unreleased rows). Else the
    lost shards leave ``held`` and :class:`~bot.store.base.StoreFenced` is raised."""
    from .base import StoreFenced

    fenced = {s for s in needed if s not in held or stored.get(s) != held[s]}
    if not fenced:
        return
    lost = sorted(s for s in fenced if s in held)
    for shard in lost:
        held.pop(shard, None)
    names = ", ".join(map(str, sorted(fenced)))
    why = "another process took its lease over" if lost else "this process does not hold its lease"
    raise StoreFenced(
        f"shard {names} of {where}: {why}; nothing was saved (that shard's games run in another "
        "process now)",
        shards=frozenset(fenced),
    )
