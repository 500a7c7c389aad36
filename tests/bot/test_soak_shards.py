"""Sharded soaks (issue 17 item 4): ``rummy-bot soak --shard-count N --shard-ids RANGE`` plays only
the games of its shards, N soaks over one database cover every game once, a killed one started
again resumes its own, and a bad option is one line (exit 2). Real SQLite files."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.service.soak import verify_db
from bot.soak import run_soak, soak_game_id, soak_guild_id, soak_shards
from bot.store import ShardPlan, SqliteStore, shard_of

RUMMY_BOT = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())"]


def test_game_i_of_a_sharded_soak_is_on_shard_i_mod_n():
    for count in (1, 2, 3, 4, 16):
        assert [shard_of(soak_guild_id(i), count) for i in range(40)] == [
            i % count for i in range(40)
        ]


def test_the_shard_options():
    assert soak_shards(None, None) is None
    assert soak_shards(4, "1-2") == ShardPlan(4, (1, 2))
    assert soak_shards(4, None) == ShardPlan(4, (0, 1, 2, 3))
    for count, ids, words in (
        (None, "0", "needs --shard-count"),
        (2, "a-b", "must look like"),
        (2, "0-2", "outside 0-1"),
        (0, "0", "whole number"),
    ):
        with pytest.raises(ValueError, match=words):
            soak_shards(count, ids)


def test_a_bad_shard_option_is_one_line_and_exit_2(tmp_path: Path):
    db = tmp_path / "soak.sqlite3"
    done = subprocess.run(
        [*RUMMY_BOT, "soak", "--db", str(db), "--shard-count", "2", "--shard-ids", "5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "rummy-bot soak: shard id(s) 5 outside 0-1 (SHARD_COUNT=2)"
    ]
    assert not db.exists()


async def test_two_sharded_soaks_over_one_database_play_every_game_once(tmp_path: Path):
    db = tmp_path / "soak.sqlite3"
    acks = [tmp_path / "ack-0.tsv", tmp_path / "ack-1.tsv"]
    figures = []
    for shard, ack in enumerate(acks):
        figures.append(
            await run_soak(
                db,
                games=6,
                concurrency=6,
                seed=3,
                ack_path=ack,
                think_in_worker=False,
                shards=ShardPlan.of(2, [shard]),
            )
        )
    assert [(f["shards"], f["shard_games"], f["games_finished"]) for f in figures] == [
        ("0", 3, 3),
        ("1", 3, 3),
    ]
    games = [{line.split("\t")[0] for line in ack.read_text().splitlines()} for ack in acks]
    assert games == [
        {soak_game_id(3, i) for i in (0, 2, 4)},
        {soak_game_id(3, i) for i in (1, 3, 5)},
    ]
    report = await verify_db(db)
    assert (report["games"], report["ok"], report["problems"]) == (6, 6, [])
    store = SqliteStore(db, readonly=True)
    await store.open()
    try:
        for i in range(6):
            record = await store.load_game(soak_game_id(3, i))
            assert record.guild_id == soak_guild_id(i) and record.status == "finished"
        leases = await store.shard_leases()
        assert [lease.shard for lease in leases] == [0, 1]
        assert all(lease.released is not None for lease in leases)  # both soaks gave it back
    finally:
        await store.close()


def test_a_killed_sharded_soak_started_again_resumes_its_own_games(tmp_path: Path):
    """SIGKILL a soak of shard 1 once it has acknowledged a command, start it again at once:
    it takes its lease back (its process is gone) and finishes its games; shard 0's games are
    never touched by it."""
    db, ack = tmp_path / "soak.sqlite3", tmp_path / "ack.tsv"
    command = [
        *RUMMY_BOT,
        "soak",
        "--db",
        str(db),
        "--games",
        "6",
        "--concurrency",
        "6",
        "--seed",
        "5",
        "--ack",
        str(ack),
        "--shard-count",
        "2",
        "--shard-ids",
        "1",
        "--json",
    ]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):  # wait for the first acknowledgement (no time assertion)
            if (ack.exists() and ack.stat().st_size > 0) or first.poll() is not None:
                break
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait()
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    figures = json.loads(again.stdout.strip().splitlines()[-1])
    assert (figures["shards"], figures["shard_games"], figures["games_finished"]) == ("1", 3, 3)
    acked = [line.split("\t") for line in ack.read_text().splitlines() if line.count("\t") == 2]
    assert {game for game, _, _ in acked} <= {soak_game_id(5, i) for i in (1, 3, 5)}
    seen = [(game, int(seq)) for game, seq, _ in acked]
    assert len(seen) == len(set(seen))  # no command acknowledged twice
