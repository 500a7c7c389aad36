"""The same seeds give byte-identical games (issue 15: the redesign changes no behaviour).

``simulate_golden.json`` was recorded by the version before the redesign (see ``make_golden``); every
game's final JSON and command log, and the ``rummy simulate --json`` summaries, must match it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.make_golden import CASES, SUMMARY, play, summary

GOLDEN = json.loads((Path(__file__).parent / "simulate_golden.json").read_text())


@pytest.mark.parametrize("preset,players,ai,seeds", CASES, ids=lambda v: str(v))
def test_seeded_games_are_byte_identical(preset, players, ai, seeds):
    levels = ai.split(",") if "," in ai else [ai] * players
    for seed in seeds:
        assert play(preset, levels, seed) == GOLDEN["games"][f"{preset}/{players}/{ai}/{seed}"], (
            seed
        )


@pytest.mark.parametrize("case", SUMMARY, ids=lambda v: "/".join(map(str, v)))
def test_simulate_summary_is_identical(case):
    assert summary(*case) == GOLDEN["simulate"]["/".join(map(str, case))]


OLD_DB = Path(__file__).parent / "old_v2.sqlite3"


def test_the_database_of_the_version_before_verifies(tmp_path):
    """``rummy-bot verify-db`` on a copy of the old database: it opens (migrating) and every
    stored game replays to its snapshot."""
    import shutil
    import subprocess
    import sys

    db = tmp_path / "old.sqlite3"
    shutil.copy(OLD_DB, db)
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "verify-db", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["games"] == report["ok"] == 27 and report["problems"] == []


async def test_the_database_of_the_version_before_resumes(tmp_path):
    """The old database opens read-write with the current store; its unfinished games resume at
    their stored command, take the next command, and the tournament and ladder are still there."""
    import shutil

    from bot.service import GameService, ManualClock, ServiceConfig
    from bot.store import SqliteStore
    from engine.ai import choose_move
    from engine.game import load_game
    from tests.golden.make_old_db import UNFINISHED

    db = tmp_path / "old.sqlite3"
    shutil.copy(OLD_DB, db)
    store = SqliteStore(db)
    await store.open()
    try:
        before = {gid: (await store.load_game(gid)).seq for gid, _, _ in UNFINISHED}
        service = GameService(
            store, config=ServiceConfig(pictures=False, bot_pause=0.0), clock=ManualClock(1.7e9)
        )
        await service.start(run_timers=False)
        moved = 0
        for game_id, _, _ in UNFINISHED:
            record = await store.load_game(game_id)
            assert record.status == "playing" and record.seq == before[game_id]
            game = load_game(record.snapshot_json)
            player = record.seats[game.current].player_id
            if player in ("alice", "bob"):
                move = choose_move(game, game.current, level="medium")
                await service.handle(game_id, player, move)
                assert (await store.load_game(game_id)).seq > before[game_id], (game_id, move)
                moved += 1
        assert moved >= 3
        assert len(await store.results("old-cup-r1-t1-g1")) == 3
        await service.stop()
    finally:
        await store.close()
