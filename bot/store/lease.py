"""The owner lease's facts: which process on which machine holds a database, and whether it
still counts as alive (its heartbeat, its process, the machine's boot)."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .records import OwnerRecord

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
