"""Write ``simulate_golden.json``: for seeded computer-player games of every preset, the SHA-256 of
the final game JSON and of its command log, and the ``rummy simulate --json`` summary (less the
timing keys). Written once by the version before the redesign (issue 15, commit 8053d55); the test
``test_golden.py`` plays the same games and asserts byte-identical results.

Run: ``.venv/bin/python -m tests.golden.make_golden`` (only to re-record on purpose).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CASES = [
    # (preset, players, levels, seeds)
    ("stein", 3, "medium", range(0, 4)),
    ("stein", 4, "easy,medium,strong,medium", range(10, 13)),
    ("stein_plus", 3, "strong", range(0, 3)),
    ("stein_plus", 4, "easy", range(20, 23)),
    ("rummikub", 2, "strong", range(0, 3)),
    ("rummikub", 3, "easy,medium,strong", range(5, 8)),
    ("romme", 3, "medium", range(0, 4)),
    ("romme", 4, "easy,strong,medium,easy", range(30, 32)),
    ("rummy", 2, "strong", range(0, 4)),
    ("rummy", 3, "easy,medium,strong", range(40, 43)),
]
SUMMARY = [
    ("stein", 3, "medium", 7, 3),
    ("rummikub", 3, "medium", 7, 3),
    ("romme", 3, "medium", 7, 3),
]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def play(preset: str, levels: list[str], seed: int) -> dict[str, str]:
    """One game as ``rummy simulate`` plays it (its ``play_game`` loop), fingerprinted."""
    from engine.ai import choose_move
    from engine.errors import RummyError
    from engine.game import new_game
    from engine.rules import preset as rules_of

    game = new_game(rules_of(preset), [f"{level}{k}" for k, level in enumerate(levels)], seed)
    calls, log = 0, []
    while game.status == "playing":
        seat = game.current
        calls += 1
        if calls > 20000:
            game.end("ended")
            break
        text = choose_move(game, seat, level=levels[seat])
        log.append(f"{seat}:{text}")
        try:
            game.apply(seat, text)
        except RummyError as error:
            log.append(f"{seat}!{error.code}")
            game.timeout()
    return {"state": sha(game.to_json()), "log": sha("\n".join(log)), "commands": len(log)}


def summary(preset: str, players: int, ai: str, seed: int, games: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.rummy_cli",
            "simulate",
            "--rules",
            preset,
            "--players",
            str(players),
            "--ai",
            ai,
            "--games",
            str(games),
            "--seed",
            str(seed),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    data.pop("seconds"), data.pop("games_per_s")
    return data


def record() -> dict:
    games = {}
    for preset, players, ai, seeds in CASES:
        levels = ai.split(",") if "," in ai else [ai] * players
        for seed in seeds:
            games[f"{preset}/{players}/{ai}/{seed}"] = play(preset, levels, seed)
    sums = {f"{p}/{n}/{ai}/{s}/{g}": summary(p, n, ai, s, g) for p, n, ai, s, g in SUMMARY}
    return {"games": games, "simulate": sums}


if __name__ == "__main__":
    (HERE / "simulate_golden.json").write_text(
        json.dumps(record(), indent=1, sort_keys=True) + "\n"
    )
