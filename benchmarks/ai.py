"""Computer-player benchmark: every level against the level below, in every preset, paired; and
the speed of ``medium``.

Run: ``python -m benchmarks.ai [--games N] [--speed-games N] [--seed S] [--presets P,...]
[--pairs strong/medium,medium/easy] [--progress FILE] [--json]``. ``python -m benchmarks ai``
runs :func:`run` with small defaults (options after ``ai`` are passed on).

A pair ``level/below`` in a preset plays the same seeds S, S+1, ... twice (as ``rummy
simulate`` plays them: the engine draws the start player by lot from the seed, seats do not
rotate): once with ``level`` at seat 0 against ``below`` at every other seat, once with ``below``
everywhere. Seat 0's win share in the first run against the second is what ``level`` adds at
the same seat on the same deals (*paired*; the standard error is that of the per-game
difference). Players: 4 in the tile presets, 3 in the card presets (parity 25 % / 33 %).

The targets (reported, not timed tests; issue 18):

- ``strong`` wins at least 40 % of the games against ``medium`` players over 2,000 seeded games
  in 4-player Rummikub, 3-player classic Rummy and 3-player Rommé (and beats ``medium`` in
  Stein-Rummy);
- ``medium`` beats ``easy`` and ``strong`` beats ``medium`` in every preset (the levels mean
  something);
- at least 20 full 4-player Rummikub games per second with ``medium`` players.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from engine.rules import preset as rules_of
from rummy_tools.ai_cli import play_game, simulate, winners

PRESETS = ("rummikub", "stein", "stein_plus", "romme", "rummy")
PLAYERS = {"rummikub": 4, "stein": 4, "stein_plus": 4, "romme": 3, "rummy": 3}
PAIRS = (("strong", "medium"), ("medium", "easy"))
TARGETS = {"strong_win_rate": 0.40, "medium_games_per_s": 20.0}
STRONG_TARGET_PRESETS = ("rummikub", "romme", "rummy")


def paired(
    preset: str,
    level: str,
    below: str,
    games: int,
    seed: int,
    players: int | None = None,
    progress: str | None = None,
) -> dict[str, Any]:
    """``level`` at seat 0 against ``below`` players, and the same seeds with ``below`` at
    seat 0 (see the module docstring)."""
    n = players or PLAYERS[preset]
    rules = rules_of(preset)
    diffs: list[float] = []
    wins = [0.0, 0.0]
    rejected = 0
    draws = [0, 0]
    started = time.perf_counter()
    for k in range(games):
        shares = []
        for run, levels in enumerate(([level] + [below] * (n - 1), [below] * n)):
            played = play_game(rules, levels, seed + k)
            won = winners(played["result"])
            draws[run] += not won
            rejected += played["rejected"]
            shares.append(won.get(0, 0.0))
        wins[0] += shares[0]
        wins[1] += shares[1]
        diffs.append(shares[0] - shares[1])
        if progress and ((k + 1) % 10 == 0 or k + 1 == games):
            with open(progress, "w", encoding="utf-8") as fh:
                elapsed = round(time.perf_counter() - started, 1)
                fh.write(
                    json.dumps(
                        {
                            "preset": preset,
                            "pair": f"{level}/{below}",
                            "done": k + 1,
                            "of": games,
                            "wins": wins,
                            "s": elapsed,
                        }
                    )
                )
    mean = sum(diffs) / games if games else 0.0
    var = sum((d - mean) ** 2 for d in diffs) / (games - 1) if games > 1 else 0.0
    rate = wins[0] / games if games else 0.0
    out = {
        "preset": preset,
        "players": n,
        "level": level,
        "below": below,
        "games": games,
        "seed": seed,
        "win_rate": round(rate, 4),
        "win_rate_se": round(math.sqrt(rate * (1 - rate) / games), 4) if games else None,
        "below_at_seat0_win_rate": round(wins[1] / games, 4) if games else 0.0,
        "paired_gain": round(mean, 4),
        "paired_gain_se": round(math.sqrt(var / games), 4) if games else None,
        "parity": round(1 / n, 4),
        "draws": draws,
        "rejected": rejected,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if level == "strong" and preset in STRONG_TARGET_PRESETS:
        out["target"] = TARGETS["strong_win_rate"]
    return out


def speed(games: int, seed: int) -> dict[str, Any]:
    """Full 4-player Rummikub games per second between medium players (``rummy simulate``)."""
    data = simulate("rummikub", 4, ["medium"], games, seed)
    return {
        "games": games,
        "seed": seed,
        "games_per_s": data["games_per_s"],
        "mean_turns": data["mean_turns"],
        "rejected": data["rejected"],
        "target": TARGETS["medium_games_per_s"],
        "command": (
            f"rummy simulate --rules rummikub --players 4 --ai medium --games {games} "
            f"--seed {seed} --json"
        ),
    }


def measure(
    games: int,
    speed_games: int,
    seed: int,
    presets: tuple[str, ...] = PRESETS,
    pairs: tuple[tuple[str, str], ...] = PAIRS,
    progress: str | None = None,
) -> dict[str, Any]:
    """The benchmark as one dict."""
    return {
        "speed": speed(speed_games, seed) if speed_games else None,
        "levels": [
            paired(p, level, below, games, seed, progress=progress)
            for p in presets
            for level, below in pairs
        ],
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ai", description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--speed-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--pairs", default=",".join(f"{a}/{b}" for a, b in PAIRS))
    parser.add_argument("--progress", default=None, help="progress JSON file")
    parser.add_argument("--json", action="store_true")
    return parser


def _options(args: argparse.Namespace) -> dict[str, Any]:
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    unknown = [p for p in presets if p not in PLAYERS]
    if unknown:
        raise SystemExit(f"unknown preset(s) {', '.join(unknown)}; have {', '.join(PRESETS)}")
    pairs = []
    for word in args.pairs.split(","):
        level, _, below = word.strip().partition("/")
        pairs.append((level, below))
    return {
        "games": args.games,
        "speed_games": args.speed_games,
        "seed": args.seed,
        "presets": presets,
        "pairs": tuple(pairs),
        "progress": args.progress,
    }


def run(argv: list[str] | None = None) -> dict[str, Any]:
    """For ``python -m benchmarks``: small defaults (20 games per pair, 10 speed games), or the
    options given after ``ai``."""
    if argv is None:
        return measure(20, 10, 0)
    return measure(**_options(_parser().parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    data = measure(**_options(args))
    if args.json:
        print(json.dumps(data))
        return 0
    s = data["speed"]
    if s is not None:
        print(f"medium Rummikub: {s['games_per_s']} games/s (target {s['target']}): {s['command']}")
    for row in data["levels"]:
        target = f"; target {row['target']:.0%}" if "target" in row else ""
        print(
            f"{row['preset']} ({row['players']} players): {row['level']} at seat 0 wins "
            f"{row['win_rate']:.1%} of {row['games']} games vs {row['below']} "
            f"({row['below']} at seat 0: {row['below_at_seat0_win_rate']:.1%}; paired gain "
            f"{row['paired_gain']:+.1%} ± {row['paired_gain_se']:.1%}; parity "
            f"{row['parity']:.0%}{target}) seeds {row['seed']}..{row['seed'] + row['games'] - 1}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
