"""Write ``old_v2.sqlite3``: a database written by the version before the redesign (issue 15,
commit 8053d55, store schema 2). It holds finished soak games of every preset, a finished Stein
tournament with its ladder rows, and unfinished human games in the middle of a turn (one per preset,
with a computer seat). ``test_golden.py`` opens it with the current store, checks that it migrates,
that ``rummy-bot verify-db`` passes and that the unfinished games resume.

Run: ``.venv/bin/python -m tests.golden.make_old_db`` (only to re-record on purpose).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
DB = HERE / "old_v2.sqlite3"
PRESETS = ("stein", "stein_plus", "rummikub", "romme", "rummy")
# The unfinished games: (game id, preset, seed, commands typed by alice in her first turn).
UNFINISHED = [(f"old-{p}", p, 11 + k) for k, p in enumerate(PRESETS)]


def cli(*words: str) -> None:
    subprocess.run([sys.executable, "-m", "bot.cli", *words], check=True, capture_output=True)


async def unfinished() -> None:
    from bot.service import GameService, ManualClock, ServiceConfig
    from bot.store import SqliteStore

    store = SqliteStore(DB)
    await store.open()
    service = GameService(
        store, config=ServiceConfig(pictures=False, bot_pause=0.0), clock=ManualClock(1.7e9)
    )
    await service.start(run_timers=False)
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "de")
    for game_id, preset, seed in UNFINISHED:
        made, out = await service.create_game(
            "alice", preset, seed=seed, guild_id="g1", channel_id="c1", game_id=game_id
        )
        assert made, out
        await service.join(game_id, "bob")
        await service.add_bot(game_id, "alice", "easy")
        await service.start_game(game_id, "alice")
        for player in ("alice", "bob", "alice"):
            await service.handle(game_id, player, "draw")
            await service.handle(game_id, player, "hint")
    await service.stop()
    await store.close()


def main() -> None:
    for path in DB.parent.glob(DB.name + "*"):
        path.unlink()
    for k, preset in enumerate(PRESETS):
        cli(
            "soak",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--preset",
            preset,
            "--db",
            str(DB),
            "--seed",
            str(100 + k),
        )
    cli(
        "tournament",
        "simulate",
        "--players",
        "6",
        "--rounds",
        "2",
        "--seed",
        "5",
        "--db",
        str(DB),
        "--preset",
        "stein",
        "--guild",
        "g1",
        "--id",
        "old-cup",
    )
    asyncio.run(unfinished())
    subprocess.run(["sqlite3", str(DB), "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"], check=False)


if __name__ == "__main__":
    main()
