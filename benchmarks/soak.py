"""Soak benchmark: 500 concurrent computer-only games through the full service and SQLite store.

``python -m benchmarks.soak [--games 500] [--concurrency 500] [--pause 0.3] [--preset rummikub]
[--repeat 1] [--only capacity|load] [--cpu N] [--no-worker]``

Two runs on fresh database files (pictures off), each printed as JSON:

1. ``capacity``: computer players move without pause, so every game always wants to move. This
   gives commands/s and peak RSS; its latency is mostly queueing behind the other 499 games'
   moves.
2. ``load``: computer players think ``--pause`` seconds (jittered) per move, a steady load below
   capacity; its p50/p99 are the latencies a player would see with 500 busy tables.

Latency is per command through the service, from applying it to its durable commit: the engine
applying the move, the snapshot, the group commit with its fsync, and every wait for the event
loop in between, up to the moment the service may acknowledge it (as before). The computer
player's choice of the move comes before that, as a person's typing would; the bot and this
benchmark make that choice in a worker process (``bot.service.thinker``) during the think pause,
``--no-worker`` makes it on the event loop as before.

Each run also reports ``cpu_s``, the CPU seconds of the process and its children (the worker):
``commands_per_cpu_s`` is what one fully available core would give, which matters on a shared
machine. ``--cpu N`` pins the benchmark (and its worker) to core N: one core, really.

With ``--repeat R`` every run is made R times (each on a fresh database) and the median, minimum
and maximum of each figure are printed; the targets are checked against the medians.
Targets: p99 <= 50 ms, >= 1,000 commands/s on one core, peak RSS <= 300 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bot.soak import run_soak

TARGETS = {"p99_ms": 50.0, "commands_per_s": 1000.0, "peak_rss_mb": 300.0}
FIGURES = (
    "commands_per_s",
    "p50_ms",
    "p99_ms",
    "peak_rss_mb",
    "rss_with_worker_mb",
    "cpu_s",
    "commands_per_cpu_s",
)


def _cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def one_run(path: Path, args: argparse.Namespace, pause: float) -> dict:
    cpu = _cpu_seconds()
    started = time.perf_counter()
    figures = asyncio.run(
        run_soak(
            path,
            games=args.games,
            concurrency=args.concurrency,
            preset=args.preset,
            seed=args.seed,
            synchronous=args.synchronous,
            bot_pause=pause,
            think_in_worker=not args.no_worker,
        )
    )
    cpu = _cpu_seconds() - cpu
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    figures["cpu_s"] = round(cpu, 1)
    figures["commands_per_cpu_s"] = round(figures["commands"] / cpu, 1) if cpu else 0.0
    # the worker's own peak (the largest child so far), counted on top of this process's
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures["rss_with_worker_mb"] = round(figures["peak_rss_mb"] + worker, 1)
    return {"bot_pause_s": pause, **figures}


def summary(runs: list[dict]) -> dict:
    out = {}
    for key in FIGURES:
        values = [r[key] for r in runs]
        out[key] = {
            "median": round(statistics.median(values), 1),
            "min": min(values),
            "max": max(values),
        }
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=500)
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--pause", type=float, default=0.3, help="think time of the load run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synchronous", default="full", choices=("full", "normal"))
    parser.add_argument("--repeat", type=int, default=1, help="make every run this many times")
    parser.add_argument("--only", choices=("capacity", "load"), help="make only this run")
    parser.add_argument("--skip-load", action="store_true", help="only the capacity run")
    parser.add_argument("--cpu", type=int, help="pin the benchmark to this core")
    parser.add_argument(
        "--no-worker", action="store_true", help="computer players think on the event loop"
    )
    return parser


def run(argv: list[str] | None = None, echo: bool = False) -> dict:
    """The soak runs (``argv`` as on the command line; ``python -m benchmarks`` uses the
    defaults): the figures per run, their summary, and which targets are met."""
    args = _parser().parse_args(argv or [])
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    runs = {"capacity": 0.0, "load": args.pause}
    if args.skip_load:
        args.only = "capacity"
    if args.only:
        runs = {args.only: runs[args.only]}
    results: dict[str, list[dict]] = {name: [] for name in runs}
    with tempfile.TemporaryDirectory(prefix="rummy-soak-") as tmp:
        for number in range(max(1, args.repeat)):
            for name, pause in runs.items():
                figures = one_run(Path(tmp) / f"{name}-{number}.sqlite3", args, pause)
                results[name].append(figures)
                if echo:
                    print(json.dumps({name: figures}), flush=True)
    report = {name: summary(items) for name, items in results.items()}
    if echo and args.repeat > 1:
        for name, figures in report.items():
            print(json.dumps({f"{name} over {args.repeat} runs": figures}), flush=True)
    checks = {}
    if "capacity" in report:
        checks["commands_per_s"] = (
            report["capacity"]["commands_per_s"]["median"] >= TARGETS["commands_per_s"]
        )
    checks["peak_rss_mb"] = (
        max(f["rss_with_worker_mb"]["max"] for f in report.values()) <= TARGETS["peak_rss_mb"]
    )
    latency = report.get("load", report.get("capacity"))
    checks["p99_ms"] = latency["p99_ms"]["median"] <= TARGETS["p99_ms"]
    return {"runs": results, "summary": report, "targets": TARGETS, "met": checks}


def main(argv: list[str] | None = None) -> int:
    result = run(argv if argv is not None else sys.argv[1:], echo=True)
    print(json.dumps({"targets": result["targets"], "met": result["met"]}))
    return 0 if all(result["met"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
