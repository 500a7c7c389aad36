"""The long run of the stateful tests (issue 13): `make fuzz`.

Runs the Hypothesis state machines of ``tests/engine/stateful`` with random (not derandomised)
examples, in chunks, until every configuration has made ``--steps`` rule steps (or ``--seconds``
per configuration ran out), and prints, per configuration, the steps, accepted and rejected
messages, turns and games checked, and every violation with its shrunk example.

    python -m benchmarks.fuzz --steps 100000            # every configuration
    python -m benchmarks.fuzz --only stein,rummikub --steps 20000 --seconds 300
    python -m benchmarks.fuzz --jobs 5 --only stein,stein_plus,rummikub,romme,rummy
    FUZZ_STEPS=100000 FUZZ_JOBS=2 make fuzz

The exit code is 1 when a violation was found. As a module of ``python -m benchmarks`` it
runs a short round (``run()``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.engine.stateful.machine import STATS, machine_for
from tests.engine.stateful.presets import configurations

FIELDS = ("steps", "accepted", "rejected", "turns", "games_finished", "undo_checked")
FIELDS += ("legal_accepted", "hints")


def fuzz_one(name: str, steps: int, seconds: float, chunk: int, step_count: int) -> dict:
    rules, players = configurations()[name]
    machine = machine_for(name, rules, players)
    started = time.monotonic()
    violations: list[str] = []
    chunks = 0
    while STATS[f"{name}:steps"] < steps and time.monotonic() - started < seconds:
        chunks += 1
        config = settings(
            max_examples=chunk,
            stateful_step_count=step_count,
            derandomize=False,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
        )
        try:
            run_state_machine_as_test(machine, settings=config)
        except Exception as exc:  # a violation (or a crash): report it, keep fuzzing
            notes = "\n".join(getattr(exc, "__notes__", []))
            text = f"{type(exc).__name__}: {exc}\n{notes}"
            if not isinstance(exc, AssertionError):
                text += "\n" + "".join(traceback.format_exception(exc)[-6:])
            violations.append(text)
            print(f"--- {name}: violation\n{text}", flush=True)
            if len(violations) >= 5:
                break
    out = {f: STATS[f"{name}:{f}"] for f in FIELDS}
    prefix = f"{name}:ok:"
    out["accepted_by_verb"] = {
        k[len(prefix) :]: v for k, v in sorted(STATS.items()) if k.startswith(prefix)
    }
    out["positions"] = STATS[f"{name}:positions"]
    out["timeouts"] = STATS[f"{name}:timeouts"]
    out["violations"] = len(violations)
    out["seconds"] = round(time.monotonic() - started, 1)
    out["chunks"] = chunks
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=int(os.environ.get("FUZZ_STEPS", 100_000)))
    parser.add_argument(
        "--seconds", type=float, default=float(os.environ.get("FUZZ_SECONDS", 3600))
    )
    parser.add_argument("--only", default=os.environ.get("FUZZ_ONLY", ""))
    parser.add_argument("--chunk", type=int, default=200, help="examples per Hypothesis run")
    parser.add_argument("--step-count", type=int, default=100, help="max steps per example")
    parser.add_argument(
        "--jobs", type=int, default=int(os.environ.get("FUZZ_JOBS", 1)), help="processes"
    )
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(configurations())
    results = {}
    wall = time.monotonic()
    job = (args.steps, args.seconds, args.chunk, args.step_count)
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {name: pool.submit(fuzz_one, name, *job) for name in names}
            for name, future in futures.items():
                results[name] = future.result()
                print(json.dumps({name: results[name]}), flush=True)
    else:
        for name in names:
            results[name] = fuzz_one(name, *job)
            print(json.dumps({name: results[name]}), flush=True)
    print("\nsummary (steps per configuration, violations):")
    for name, r in results.items():
        print(
            f"  {name:18} steps {r['steps']:>8}  messages {r['accepted'] + r['rejected']:>8}"
            f"  turns {r['turns']:>6}  games {r['games_finished']:>5}"
            f"  violations {r['violations']}  ({r['seconds']} s)"
        )
    print(f"wall time {time.monotonic() - wall:.0f} s")
    return 1 if any(r["violations"] for r in results.values()) else 0


def run() -> dict:
    """A short round for ``python -m benchmarks``."""
    return {
        name: fuzz_one(name, steps=500, seconds=60, chunk=20, step_count=50)
        for name in configurations()
    }


if __name__ == "__main__":
    sys.exit(main())
