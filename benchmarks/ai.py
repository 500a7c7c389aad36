"""Computer-player benchmark: strength of ``strong`` against ``medium``, and speed of ``medium``.

Run: ``python -m benchmarks.ai [--games N] [--speed-games N] [--seed S] [--presets P,...]
[--progress FILE] [--json]``. ``python -m benchmarks ai`` runs :func:`run` with small defaults.

The targets (reported, not timed tests):

- ``strong`` wins at least 40 % of 4-player Rummikub games against three ``medium`` players over
  2,000 seeded games (25 % is parity), and beats ``medium`` likewise in Stein-Rummy;
- at least 20 full 4-player Rummikub games per second with ``medium`` players.

Games use seeds S, S+1, ... (``rummy simulate``); the strong player always sits at seat 0 and the
engine draws the start player by lot from the seed. Because the start player matters, the
strength figure is also compared *paired*: the same seeds with ``medium`` at seat 0
(``seat0_medium_win_rate``); the difference is what ``strong`` adds.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from rummy_tools.ai_cli import simulate

TARGETS = {"strong_win_rate": 0.40, "medium_games_per_s": 20.0}


def strength(preset: str, games: int, seed: int, progress: str | None = None) -> dict[str, Any]:
    """Strong at seat 0 against three medium players, and the same seeds all medium."""
    strong = simulate(preset, 4, ["strong", "medium", "medium", "medium"], games, seed, progress)
    base = simulate(preset, 4, ["medium"], games, seed)
    rate = strong["levels"]["strong"]["win_rate"]
    return {
        "preset": preset,
        "games": games,
        "seed": seed,
        "strong_win_rate": rate,
        "strong_win_rate_se": round(math.sqrt(rate * (1 - rate) / games), 4) if games else None,
        "seat0_medium_win_rate": base["seats"][0]["win_rate"],
        "medium_win_rate_vs_strong": strong["levels"]["medium"]["win_rate"],
        "rejected": strong["rejected"] + base["rejected"],
        "mean_turns": strong["mean_turns"],
        "seconds": round(strong["seconds"] + base["seconds"], 1),
        "target": TARGETS["strong_win_rate"],
    }


def speed(games: int, seed: int) -> dict[str, Any]:
    """Full 4-player Rummikub games per second between medium players."""
    data = simulate("rummikub", 4, ["medium"], games, seed)
    return {
        "games": games,
        "games_per_s": data["games_per_s"],
        "mean_turns": data["mean_turns"],
        "rejected": data["rejected"],
        "target": TARGETS["medium_games_per_s"],
    }


def run(
    games: int = 20,
    speed_games: int = 10,
    seed: int = 0,
    presets: tuple[str, ...] = ("rummikub", "stein"),
    progress: str | None = None,
) -> dict[str, Any]:
    """The benchmark as one dict (small defaults for ``python -m benchmarks``)."""
    return {
        "speed": speed(speed_games, seed),
        "strength": [strength(p, games, seed, progress) for p in presets],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ai", description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--speed-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--presets", default="rummikub,stein")
    parser.add_argument("--progress", default=None, help="progress JSON file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    data = run(args.games, args.speed_games, args.seed, presets, args.progress)
    if args.json:
        print(json.dumps(data))
        return 0
    s = data["speed"]
    print(f"medium Rummikub: {s['games_per_s']} games/s (target {s['target']})")
    for row in data["strength"]:
        print(
            f"{row['preset']}: strong wins {row['strong_win_rate']:.1%} ± "
            f"{row['strong_win_rate_se']:.1%} of {row['games']} games vs 3 medium "
            f"(medium at seat 0: {row['seat0_medium_win_rate']:.1%}; target {row['target']:.0%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
