"""Shared pieces of the store and fault tests: record builders and real small file systems."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.store import CommandWrite, GameRecord, Seat

T0 = 1_700_000_000.0
SEATS = (Seat("alice", "Alice"), Seat("bot:easy:1", "Computer 1", True, "easy"))


def game(game_id: str = "g1", **changes) -> GameRecord:
    """A lobby record of a Rummikub game hosted by alice."""
    base = dict(
        id=game_id,
        preset="rummikub",
        rules_json='{"preset":"rummikub"}',
        seed=7,
        status="lobby",
        host_id="alice",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=(Seat("alice", "Alice"),),
    )
    base.update(changes)
    return GameRecord(**base)


def write(seq: int, game_id: str = "g1", **changes) -> CommandWrite:
    """The command write number ``seq`` of a game."""
    base = dict(
        game_id=game_id,
        seq=seq,
        seat=0,
        text=f"cmd {seq}",
        at=T0 + seq,
        deadline=T0 + seq + 120,
        snapshot_json=f'{{"after":{seq}}}',
    )
    base.update(changes)
    return CommandWrite(**base)


@contextmanager
def tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` mounted at ``mount`` (root only; skipped elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip("mounting needs root")
    mount.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)]
    ).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    """Write a file until the disk is full; returns it."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        block = b"\0" * 4096
        while True:
            try:
                os.write(fd, block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
    finally:
        os.close(fd)
    return filler
