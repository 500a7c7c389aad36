"""Solver benchmark: our exact solver against the PyPI ``rummikub-solver`` 1.0.0 (GLPK_MI).

Run: ``python -m benchmarks.solver [--positions N] [--seed S] [--preset P] [--json]``.

Positions are random but reproducible (fixed seed): a table of 20-60 tiles laid as valid melds
(some holding jokers), a rack of 14-20 tiles from what is left, the player has opened. Both
solvers see the same positions in one process; we report the tiles each places per position
(ours must never place fewer), median / p95 / max milliseconds for both, and the speed ratio.

``rummikub-solver`` models Rummikub (linear runs, up to 13), so the comparison runs on
``rummikub`` positions; its model treats jokers as free to move, so we compare against our
solver with ``joker_meld_no_split`` off (the same rules) and also time ours with the preset's
default. ``ours_free_jokers_untidy`` is the same without the tie-break that keeps table melds
unchanged (``prefer_unchanged=False``): the optimum and a valid table, which is what
rummikub-solver returns. For ``stein``/``stein_plus`` only our solver is measured. The package is optional
(``pip install rummikub-solver[glpk-mi]==1.0.0``, the ``bench`` extra); when it is missing or
fails, the report says so and still measures ours.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any

from engine.melds import is_valid
from engine.pieces import Face, Tile, format_faces
from engine.rules import RuleSet, preset
from engine.solver import SolverBudgetExceeded, forget_recent, solve, states_spent
from engine.tiles import HELP_BUDGET

JOKER = Tile.joker()


def random_position(
    rng: random.Random, rules: RuleSet, table_tiles: tuple[int, int] = (20, 60), rack=(14, 20)
) -> tuple[list[list[Face]], list[Face]]:
    """A table of valid melds (some with jokers) of ``table_tiles`` pieces, and a rack drawn
    from the pieces left (two copies of every tile, the preset's jokers)."""
    spec = rules.meld_spec
    wrap = spec.run_mode == "wrap"
    jokers = rules.pool_jokers + rules.jokers_per_player * 4
    left = Counter({Tile(s, r): rules.copies for s in range(4) for r in range(1, 14)})
    goal = rng.randint(*table_tiles)
    table: list[list[Face]] = []
    size = 0
    attempts = 0
    while size < goal and attempts < 2000:
        attempts += 1
        if rng.random() < 0.45:
            rank = rng.randint(1, 13)
            meld: list[Face] = [Tile(s, rank) for s in rng.sample(range(4), rng.randint(3, 4))]
        else:
            suit = rng.randrange(4)
            length = rng.randint(3, 7)
            start = rng.randint(1, 13 if wrap else 14 - length)
            meld = [Tile(suit, (start - 1 + i) % 13 + 1) for i in range(length)]
        if jokers and rng.random() < 0.15:
            meld[rng.randrange(len(meld))] = JOKER
        real = Counter(f for f in meld if not f.is_joker)
        if size + len(meld) > table_tiles[1] or real - left or not is_valid(meld, spec):
            continue
        left -= real
        jokers -= len(meld) - sum(real.values())
        table.append(meld)
        size += len(meld)
    pool = list(left.elements()) + [JOKER] * jokers
    hand = rng.sample(pool, rng.randint(*rack))
    return table, hand


def positions(count: int, seed: int, rules: RuleSet):
    rng = random.Random(seed)
    return [random_position(rng, rules) for _ in range(count)]


# -- rummikub-solver ----------------------------------------------------------------------------


class Theirs:
    """``rummikub-solver`` 1.0.0 with GLPK_MI, or the reason it is not available."""

    def __init__(self) -> None:
        self.error: str | None = None
        try:
            import rummikub_solver as rs

            self.rs = rs
            self.ruleset = rs.RuleSet(jokers=4, solver_backend=rs.MILPSolver.GLPK_MI)
            colours = list(rs.Colour)[:4]
            self.tiles = {}
            for t in self.ruleset.tiles:
                if isinstance(t, rs.Number):
                    self.tiles[Tile(colours.index(t.colour), t.value)] = t
                else:
                    self.tiles[JOKER] = t
            # warm up (cvxpy compiles the problems on first use)
            self.solve([[Tile(0, 1), Tile(0, 2), Tile(0, 3)]], [Tile(0, 4)], "count")
        except Exception as exc:  # import or backend failure: report it, measure ours
            self.error = f"{type(exc).__name__}: {exc}"

    def solve(
        self, table: list[list[Face]], hand: list[Face], mode: str
    ) -> tuple[list[Face], float]:
        """Pieces placed by rummikub-solver (player opened) and the milliseconds it took."""
        rs = self.rs
        state = self.ruleset.new_game()
        state.add_table(*(self.tiles[f] for m in table for f in m))
        state.add_rack(*(self.tiles[f] for f in hand))
        state.initial = False
        which = rs.SolverMode.TOTAL_VALUE if mode == "value" else rs.SolverMode.TILE_COUNT
        start = time.perf_counter()
        proposal = self.ruleset.solve(state, which)
        ms = (time.perf_counter() - start) * 1000
        back = {t: f for f, t in self.tiles.items()}
        return ([back[t] for t in proposal.tiles] if proposal else []), ms


# -- running ------------------------------------------------------------------------------------


def _stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    if not ordered:
        return {}
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(ordered[-1], 3),
    }


def timed_solve(
    table, hand, rules, mode, tidy: bool = True, budget: int | None = None
) -> tuple[Any, float]:
    """Our solve of one position and its milliseconds (``tidy=False``: without the tie-break
    that keeps table melds unchanged, i.e. the optimum and a table, as rummikub-solver gives).
    With a ``budget`` (DP states) the solution is None when the search needs more."""
    forget_recent()  # no answer remembered from an earlier run
    start = time.perf_counter()
    try:
        solution = solve(
            table, hand, rules, opened=True, mode=mode, prefer_unchanged=tidy, budget=budget
        )
    except SolverBudgetExceeded:
        solution = None
    return solution, (time.perf_counter() - start) * 1000


def run(
    count: int = 40,
    seed: int = 2015,
    presets: tuple[str, ...] = ("rummikub", "stein"),
    modes: tuple[str, ...] = ("count", "value"),
    compare: bool = True,
) -> dict:
    """Every preset and mode (``python -m benchmarks`` calls this with the defaults)."""
    return {
        "reports": [run_one(count, seed, name, mode, compare) for name in presets for mode in modes]
    }


def run_one(count: int, seed: int, preset_name: str, mode: str, compare: bool = True) -> dict:
    """One preset and mode. Stein positions are solved within the budget the bot gives
    ``hint`` and ``place`` (``engine.tiles.HELP_BUDGET``): the report counts those beyond it
    (the bot then answers "too involved", the computer player makes a simpler move); their
    time until giving up is in the timings."""
    rules = preset(preset_name)
    cases = positions(count, seed, rules)
    budget = HELP_BUDGET if rules.run_mode == "wrap" else None
    report: dict[str, Any] = {
        "preset": preset_name,
        "mode": mode,
        "positions": count,
        "seed": seed,
    }
    ours_times: list[float] = []
    ours_counts: list[int] = []
    ours_values: list[int] = []
    ours_states: list[int] = []
    beyond = 0
    for table, hand in cases:
        before = states_spent()
        solution, ms = timed_solve(table, hand, rules, mode, budget=budget)
        ours_times.append(ms)
        ours_states.append(states_spent() - before)
        if solution is None:
            beyond += 1
            continue
        ours_counts.append(solution.count)
        ours_values.append(solution.value)
    report["ours"] = {
        **_stats(ours_times),
        "tiles_placed": sum(ours_counts),
        "value_placed": sum(ours_values),
    }
    if budget is not None:
        report["ours"]["budget_states"] = budget
        report["ours"]["beyond_budget"] = beyond
        # DP states per position (load-independent, unlike the times; one beyond the budget
        # counts budget + 1)
        states = sorted(ours_states)
        report["ours"]["states_median"] = round(statistics.median(states))
        report["ours"]["states_p95"] = states[min(len(states) - 1, round(0.95 * (len(states) - 1)))]
    if not compare or preset_name != "rummikub":
        report["theirs"] = {"skipped": "rummikub-solver models Rummikub rules only"}
        return report
    theirs = Theirs()
    if theirs.error:
        report["theirs"] = {"unavailable": theirs.error}
        return report
    same_rules = rules.with_options(joker_meld_no_split=False)
    free_times, free_counts, their_times, their_counts = [], [], [], []
    core_times: list[float] = []
    short, more = [], []
    free_values, their_values = [], []
    for n, (table, hand) in enumerate(cases):
        core, ms = timed_solve(table, hand, same_rules, mode, tidy=False)
        core_times.append(ms)
        solution, ms = timed_solve(table, hand, same_rules, mode)
        if (core.count, core.value)[mode == "value"] != (solution.count, solution.value)[
            mode == "value"
        ]:
            raise AssertionError(f"position {n}: the tie-break changed the optimum")
        free_times.append(ms)
        free_counts.append(solution.count)
        free_values.append(solution.value)
        pieces, their_ms = theirs.solve(table, hand, mode)
        their_times.append(their_ms)
        their_counts.append(len(pieces))
        # their pieces valued as ours (a joker counts rules.joker_penalty)
        value = sum(rules.joker_penalty if f.is_joker else f.rank for f in pieces)
        their_values.append(value)
        ours_score = solution.count if mode == "count" else solution.value
        their_score = len(pieces) if mode == "count" else value
        row = {"position": n, "ours": ours_score, "theirs": their_score}
        if their_score < ours_score:
            short.append(row)
        elif their_score > ours_score:
            row.update(table=[format_faces(m) for m in table], hand=format_faces(hand))
            more.append(row)
    report["ours_free_jokers"] = {
        **_stats(free_times),
        "tiles_placed": sum(free_counts),
        "value_placed": sum(free_values),
    }
    report["ours_free_jokers_untidy"] = _stats(core_times)
    report["theirs"] = {
        "package": "rummikub-solver 1.0.0, GLPK_MI",
        **_stats(their_times),
        "tiles_placed": sum(their_counts),
        "value_placed": sum(their_values),
        "positions_where_theirs_places_fewer": len(short),
        "positions_where_theirs_places_more": len(more),
        "examples_fewer": short[:10],
        "examples_more": more[:10],
    }
    ours_median = report["ours_free_jokers"]["median_ms"]
    their_median = report["theirs"]["median_ms"]
    if ours_median and their_median:
        report["ratio_median_ours_over_theirs"] = round(ours_median / their_median, 2)
        untidy = report["ours_free_jokers_untidy"]["median_ms"]
        report["ratio_median_untidy_over_theirs"] = round(untidy / their_median, 2)
    return report


def _print(report: dict) -> None:
    print(
        f"{report['preset']} ({report['mode']}), {report['positions']} positions, seed {report['seed']}"
    )
    for who in ("ours", "ours_free_jokers", "ours_free_jokers_untidy", "theirs"):
        if who not in report:
            continue
        data = report[who]
        if "median_ms" in data:
            placed = (
                f"  tiles {data['tiles_placed']}  value {data['value_placed']}"
                if "tiles_placed" in data
                else ""
            )
            if "beyond_budget" in data:
                placed += (
                    f"  beyond the {data['budget_states']}-state budget: {data['beyond_budget']}"
                    f"  states median {data['states_median']} p95 {data['states_p95']}"
                )
            print(
                f"  {who:23} median {data['median_ms']:8.3f} ms  p95 {data['p95_ms']:8.3f} ms  "
                f"max {data['max_ms']:8.3f} ms{placed}"
            )
        else:
            print(f"  {who:23} {next(iter(data.values()))}")
    theirs = report.get("theirs", {})
    if "positions_where_theirs_places_fewer" in theirs:
        print(
            f"  theirs scores less (tiles in count mode, value in value mode) in "
            f"{theirs['positions_where_theirs_places_fewer']} positions, "
            f"more in {theirs['positions_where_theirs_places_more']}"
        )
    if "ratio_median_ours_over_theirs" in report:
        print(
            f"  median time ours/theirs: {report['ratio_median_ours_over_theirs']}x "
            f"(without the tie-break: {report['ratio_median_untidy_over_theirs']}x)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.solver", description=__doc__)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2015)
    parser.add_argument(
        "--preset", action="append", choices=["rummikub", "stein", "stein_plus"], default=None
    )
    parser.add_argument("--mode", action="append", choices=["count", "value"], default=None)
    parser.add_argument("--no-compare", action="store_true", help="measure ours only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    reports = run(
        args.positions,
        args.seed,
        tuple(args.preset or ["rummikub", "stein"]),
        tuple(args.mode or ["count", "value"]),
        not args.no_compare,
    )["reports"]
    if args.json:
        json.dump(reports, sys.stdout, indent=2)
        print()
    else:
        for report in reports:
            _print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
