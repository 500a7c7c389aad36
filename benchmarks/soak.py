"""Soak benchmark: 500 concurrent computer-only games through the full service and SQLite store.

``python -m benchmarks.soak [--games 500] [--concurrency 500] [--pause 0.3] [--preset rummikub]``

Two runs on fresh database files (pictures off), each printed as JSON:

1. ``capacity``: computer players move without pause, so every game always wants to move. This
   gives commands/s and peak RSS; its latency is mostly queueing behind the other 499 games'
   moves (the computer players' own thinking runs on the same core).
2. ``load``: computer players think ``--pause`` seconds (jittered) per move, a steady load below
   capacity; its p50/p99 are the latencies a player would see with 500 busy tables.

Latency is per command through the service, from applying it to its durable commit.
Targets: p99 <= 50 ms, >= 1,000 commands/s on one core, peak RSS <= 300 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from bot.service.soak import run_soak

TARGETS = {"p99_ms": 50.0, "commands_per_s": 1000.0, "peak_rss_mb": 300.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=500)
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--pause", type=float, default=0.3, help="think time of the load run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synchronous", default="full", choices=("full", "normal"))
    parser.add_argument("--skip-load", action="store_true", help="only the capacity run")
    args = parser.parse_args(argv)
    runs = {"capacity": 0.0} if args.skip_load else {"capacity": 0.0, "load": args.pause}
    report = {}
    with tempfile.TemporaryDirectory(prefix="rummy-soak-") as tmp:
        for name, pause in runs.items():
            figures = asyncio.run(
                run_soak(
                    Path(tmp) / f"{name}.sqlite3",
                    games=args.games,
                    concurrency=args.concurrency,
                    preset=args.preset,
                    seed=args.seed,
                    synchronous=args.synchronous,
                    bot_pause=pause,
                )
            )
            report[name] = {"bot_pause_s": pause, **figures}
            print(json.dumps({name: report[name]}), flush=True)
    capacity = report["capacity"]
    latency = report.get("load", capacity)
    checks = {
        "commands_per_s": capacity["commands_per_s"] >= TARGETS["commands_per_s"],
        "peak_rss_mb": max(r["peak_rss_mb"] for r in report.values()) <= TARGETS["peak_rss_mb"],
        "p99_ms": latency["p99_ms"] <= TARGETS["p99_ms"],
    }
    print(json.dumps({"targets": TARGETS, "met": checks}))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
