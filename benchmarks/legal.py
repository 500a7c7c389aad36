"""Hint benchmark: the time of a ``hint`` before and after the legal search (issue 18 item 1).

Run: ``python -m benchmarks.legal [--positions N] [--seed S] [--preset P] [--json]``.

The positions are those of ``benchmarks/solver.py`` (same generator, seed and count: a table of
20-60 tiles, some melds with jokers, a rack of 14-20, the player has opened), set up as a game
with :meth:`engine.tiles.TileGame.position`. For each position the hint is asked twice in one
process, paired: ``before`` without the legal search (``engine.hints._legal_options`` switched
off, the hint as it was) and ``after`` with it; the solver's memory of recent answers is
cleared before each. Reported per preset: median / p95 / max CPU milliseconds of both, how often
the search ran (the solver's bound above the best answer found the old way), how often it
placed more, how often it was not exact (the hint says "good move" instead of "best move"), the
pieces the hints place in total, and the load average at the start and end of each preset (timing
figures on a shared machine are only comparable at similar load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from unittest import mock

from engine import hints
from engine.errors import RummyError
from engine.pieces import format_faces
from engine.rules import preset
from engine.solver import forget_recent
from engine.tiles import TileGame

from .solver import positions


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median": round(statistics.median(ordered), 2),
        "p95": round(p95, 2),
        "max": round(ordered[-1], 2),
    }


def _hint(game: TileGame) -> tuple[float, int, bool]:
    """CPU ms of one hint, the pieces its play takes from the rack, and whether it is exact."""
    forget_recent()
    start = time.process_time()
    (event,) = hints.tile_hint(game, 0)
    spent = (time.process_time() - start) * 1000
    command = hints.hint_command(event)
    play = command.split("; ")[:-1]
    after = game.tried(0, "; ".join(play)) if play else game
    placed = len(game.turn.rack) - len(after.turn.rack) if after is not None else -1
    return spent, placed, not event.params["inexact"]


def run_one(count: int, seed: int, name: str) -> dict:
    rules = preset(name)
    load_start = os.getloadavg()[0]
    before_ms: list[float] = []
    after_ms: list[float] = []
    ran = more = inexact = skipped = 0
    placed_before = placed_after = 0
    for table, hand in positions(count, seed, rules):
        text = " | ".join(format_faces(m) for m in table)
        try:
            game = TileGame.position(rules, text, [format_faces(hand)], opened=[True], players=4)
        except RummyError:
            skipped += 1
            continue
        with mock.patch.object(hints, "_legal_options", lambda *a, **k: []):
            ms, old, _ = _hint(game)
        before_ms.append(ms)
        placed_before += old
        counted = _Counted(hints.legal_play)
        with mock.patch.object(hints, "legal_play", counted):
            ms, placed, exact = _hint(game)
        after_ms.append(ms)
        placed_after += placed
        ran += counted.calls > 0
        more += placed > old
        inexact += not exact
    return {
        "preset": name,
        "positions": len(before_ms),
        "skipped": skipped,
        "seed": seed,
        "before_ms": _stats(before_ms),
        "after_ms": _stats(after_ms),
        "search_ran": ran,
        "placed_more": more,
        "not_exact": inexact,
        "pieces_placed_before": placed_before,
        "pieces_placed_after": placed_after,
        "load": [round(load_start, 2), round(os.getloadavg()[0], 2)],
    }


class _Counted:
    """``legal_play`` counting its calls."""

    def __init__(self, function) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.legal", description=__doc__)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2015)
    parser.add_argument(
        "--preset", action="append", choices=["rummikub", "stein", "stein_plus"], default=None
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    reports = [run_one(args.positions, args.seed, p) for p in args.preset or ["rummikub", "stein"]]
    if args.json:
        json.dump(reports, sys.stdout, indent=2)
        print()
        return 0
    for r in reports:
        print(
            f"{r['preset']}: {r['positions']} positions (seed {r['seed']}, {r['skipped']} skipped)"
            f"\n  hint before: median {r['before_ms']['median']} ms, p95 {r['before_ms']['p95']},"
            f" max {r['before_ms']['max']}"
            f"\n  hint after:  median {r['after_ms']['median']} ms, p95 {r['after_ms']['p95']},"
            f" max {r['after_ms']['max']}"
            f"\n  legal search ran {r['search_ran']}x, placed more {r['placed_more']}x,"
            f" not exact {r['not_exact']}x; pieces placed {r['pieces_placed_before']}"
            f" -> {r['pieces_placed_after']}"
            f"\n  load average {r['load'][0]} -> {r['load'][1]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
