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
