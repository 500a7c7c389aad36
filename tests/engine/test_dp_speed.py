"""engine._dp keeps its search memo between calls: a ``run`` of the problem the last ``search``
solved goes on with that search and prunes with its bounds. The answer must not change."""

from __future__ import annotations

import random
from array import array

import pytest

from engine import _dp


def _problem(rng: random.Random, jokers: int, canon: bool, mode: str) -> tuple:
    need = bytearray(60)
    opt = bytearray(60)
    for c in range(4):
        for v in range(1, 14):
            need[c * 15 + v] = rng.choice((0, 0, 0, 1, 1, 2))
            opt[c * 15 + v] = rng.choice((0, 0, 0, 0, 1))
    weight = bytes(range(15)) if mode == "value" else bytes([1] * 15)
    jw = 30 if mode == "value" else 1
    guesses = array("H", [0, 0, 0, 0]).tobytes()
    zeros = bytes(60)
    jokers_need = rng.randint(0, jokers)
    return (
        bytes(need),
        bytes(opt),
        weight,
        jw,
        jokers,
        jokers_need,
        0,
        int(canon),
        0,
        bytes(range(1, 14)),
        guesses,
        zeros,
        zeros,
        zeros,
        b"",
    )


def _cold_run(args: tuple, target: int):
    _dp.search(*_problem(random.Random(-1), 0, True, "count"), 0, -1, False, 10)  # other memo
    return _dp.run(*args, target, -1)


@pytest.mark.parametrize("seed", range(40))
def test_warm_run_matches_cold_run(seed: int) -> None:
    rng = random.Random(seed)
    args = _problem(rng, rng.randint(0, 3), rng.random() < 0.7, rng.choice(("count", "value")))
    full = _dp.search(*args, 0, -1, False, -1)
    for limit in (1, 30, 300):
        first = _dp.search(*args, 0, -1, False, limit)
        if first[0] != 3:
            continue
        low = 0 if first[3] is None else first[2] + 1
        for target in (full[2] + 1, full[2], low):
            cold = _cold_run(args, target)
            _dp.search(*args, 0, -1, False, limit)  # the memo of this problem again
            warm = _dp.run(*args, target, -1)
            assert warm[0] == cold[0] and warm[2] == cold[2], (seed, limit, target)
            if full[0] == 1 and target <= full[2]:
                assert warm[0] == 1 and warm[2] == full[2]


# -- the look-ahead (runs that must go on, groups that must fill up) never drops a play -----------


def _subproblems(rules, seed: int, mode: str):
    """Every problem (and target, trial flag) the solver hands to the C searches on one random
    position of the solver benchmark's kind (a smaller table, so the Python reference keeps up)."""
    import engine.solver as solver_module
    from benchmarks.solver import random_position

    rng = random.Random(seed)
    table, hand = random_position(rng, rules, (8, 30), (6, 12))
    captured = []
    run = solver_module._run_dp

    def capture(problem, target, first=False):
        captured.append((problem, target, first))
        return run(problem, target, first)

    solver_module._run_dp = capture
    try:
        solver_module.forget_recent()
        solver_module.solve(table, hand, rules, opened=rng.random() < 0.85, mode=mode)
    finally:
        solver_module._run_dp = run
    return captured


@pytest.mark.parametrize("seed", range(16))
def test_look_ahead_keeps_every_optimum(seed: int) -> None:
    """Both C searches (with their look-ahead) reach the pure-Python programme's optimum on
    every subproblem of random positions, tie-break trials (a partition question) included,
    for linear runs with locked or free jokers and for wrap-around runs."""
    import engine.solver as solver_module
    from engine.rules import preset

    names = ("rummikub", "rummikub_free", "stein")
    name = names[seed % 3]
    rules = preset(name.split("_")[0])
    if name.endswith("free"):
        rules = rules.with_options(joker_meld_no_split=False)
    mode = ("count", "value")[seed // 3 % 2]
    for problem, target, first in _subproblems(rules, seed, mode):
        if problem.wrap and sum(map(sum, problem.usable())) > 6:
            continue  # the Python programme is slow on wrap-around runs
        args = solver_module._dp_arguments(problem)
        reference = solver_module._run_dp_reference(problem, target)
        expected = None if reference is None else reference[0]
        status, _spent, score, *_played = _dp.search(*args, target, -1, False, -1)
        assert (None if status == 0 else score) == expected, (seed, target)
        layered = solver_module._layers(args, target)
        assert (None if layered is None else layered[0]) == expected, (seed, target)
        if first:
            trial = _dp.search(*args, target, -1, True, -1)
            assert (trial[0] == 1) == (expected is not None), (seed, target)


@pytest.mark.parametrize("mode", ["count", "value"])
def test_benchmark_positions_stay_within_a_budget(mode: str) -> None:
    """The Rummikub benchmark positions (the slowest ones took up to 100k DP states before the
    look-ahead, about 20k with it) are solved within 50k states each."""
    from benchmarks.solver import positions
    from engine.rules import preset
    from engine.solver import forget_recent, solve

    rules = preset("rummikub")
    for table, hand in positions(40, 2015, rules):
        forget_recent()
        solve(table, hand, rules, opened=True, mode=mode, budget=50_000)
