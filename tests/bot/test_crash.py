"""Crash safety: ``rummy-bot soak`` killed with SIGKILL at random moments, again and again, then
restarted on the same database until every game is finished.

Afterwards ``verify-db`` finds nothing wrong (every game replays to its snapshot, pieces are
conserved, finished games have results), and the acknowledgement file written after each commit
shows that no acknowledged command was lost and none was applied twice.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from bot.store import SqliteStore

GAMES = 300
KILLS = 20


def soak_args(db: Path, ack: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bot.cli",
        "soak",
        "--games",
        str(GAMES),
        "--concurrency",
        "8",
        "--preset",
        "rummikub",
        "--db",
        str(db),
        "--seed",
        "11",
        "--ack",
        str(ack),
        "--json",
    ]


def read_acks(path: Path) -> list[tuple[str, int, str]]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = text.split("\n")[:-1]  # a line cut by the kill has no newline: not acknowledged
    out = []
    for line in lines:
        game_id, seq, command = line.split("\t", 2)
        out.append((game_id, int(seq), command))
    return out


async def logged_commands(db: Path) -> dict[tuple[str, int], str]:
    store = SqliteStore(db)
    await store.open()
    try:
        found = {}
        for game_id in await store.game_ids():
            for c in await store.commands(game_id):
                found[(game_id, c.seq)] = c.text.replace("\t", " ").replace("\n", "\\n")
        return found
    finally:
        await store.close()


def _wait_for_new_ack(ack: Path, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until the soak appends an acknowledgement (or ends, which the caller reports)."""
    size = ack.stat().st_size if ack.exists() else 0
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if (ack.stat().st_size if ack.exists() else 0) > size:
            return
        time.sleep(0.005)


def test_soak_survives_sigkill(tmp_path: Path):
    db, ack = tmp_path / "crash.sqlite3", tmp_path / "acks.tsv"
    rng = random.Random(20240611)
    kills = 0
    while kills < KILLS:
        proc = subprocess.Popen(soak_args(db, ack), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if kills % 2:
            # during start-up: creation, migration, the lease, resuming the games
            time.sleep(rng.uniform(0.05, 0.8))
        else:
            # mid-soak: once this run has acknowledged a command (however slow the machine)
            _wait_for_new_ack(ack, proc)
            time.sleep(rng.uniform(0.0, 0.4))
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"soak ended before the kill ({proc.returncode}): {out}{err}")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
    acked_before_end = len(read_acks(ack))
    assert acked_before_end > 0

    final = subprocess.run(soak_args(db, ack), capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    figures = json.loads(final.stdout)
    assert figures["games_finished"] == GAMES

    verify = subprocess.run(
        [sys.executable, "-m", "bot.cli", "verify-db", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(verify.stdout)
    assert verify.returncode == 0 and report["problems"] == [], report["problems"][:5]
    assert report["games"] == report["ok"] == GAMES

    acks = read_acks(ack)
    keys = [(g, s) for g, s, _ in acks]
    assert len(keys) == len(set(keys)), "a command was acknowledged twice"
    logged = asyncio.run(logged_commands(db))
    lost = [(g, s, t) for g, s, t in acks if logged.get((g, s)) != t]
    assert lost == [], f"acknowledged but not stored as acknowledged: {lost[:5]}"
