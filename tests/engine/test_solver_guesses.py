"""Stein's crossing runs: the guesses ``engine._dp`` makes for itself and the ones it leaves out.

In wrap mode (RULES.md, Stein: runs wrap 12-13-1-2) the searches are given no guesses and make
them (``_wrap_cut`` of engine/solver.py, in C), leaving out those whose crossing runs need more
jokers than there are (see ``guess_jokers`` in engine/_dp.c). That must change nothing: every
search answers with the play it finds with the whole list given explicitly, and a tie-break
trial (``first``, cut short by ``limit``) answers exactly as before. The search proper also
prunes by the bounds of other guesses (OtherSlot there): the same play again.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.solver as solver_module
from engine import _dp
from engine.rules import STEIN, STEIN_PLUS
from engine.solver import solve
from tests.engine.test_solver import random_position

_VALUES = bytes(range(1, 14))


def _with_every_guess(args: tuple) -> tuple:
    """The same problem with the whole list of guesses given (nothing left out)."""
    cut, guesses = _dp.wrap_guesses(args[0], args[1], args[4])
    changed = list(args)
    changed[9] = _VALUES[cut:] + _VALUES[:cut]
    changed[10] = guesses
    return tuple(changed)


def _captured(monkeypatch, table, hand, rules, mode) -> list[tuple]:
    """The problems (engine._dp arguments and target) the solver searched for this position."""
    calls = []
    real = solver_module._dp_call

    def capture(function, args, target, *more):
        calls.append((args, target))
        return real(function, args, target, *more)

    monkeypatch.setattr(solver_module, "_dp_call", capture)
    solver_module.forget_recent()
    solve(table, hand, rules, opened=True, mode=mode)
    monkeypatch.undo()
    return calls


SEEDED = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SEEDED
@given(
    seed=st.integers(0, 10**9),
    plus=st.booleans(),
    mode=st.sampled_from(["count", "value"]),
    limit=st.sampled_from([1, 20, 200, 1500]),
)
def test_left_out_guesses_change_no_answer(monkeypatch, seed, plus, mode, limit):
    rules = STEIN_PLUS if plus else STEIN
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(2, 7), rng.randint(4, 12))
    for args, target in _captured(monkeypatch, table, hand, rules, mode):
        every = _with_every_guess(args)
        assert (
            _dp.wrap_guesses(args[0], args[1], args[4], True)[0]
            == _dp.wrap_guesses(args[0], args[1], args[4])[0]
        )
        # the search proper, and the layered pass after it (going on with its memo): the same
        # play (the states may differ: bounds of other guesses prune both, see OtherSlot)
        ours = _dp.search(*args, target, -1, False, -1), _dp.run(*args, target, -1)
        old = _dp.search(*every, target, -1, False, -1), _dp.run(*every, target, -1)
        for mine, theirs in zip(ours, old, strict=True):
            assert mine[0] == theirs[0] and mine[2:] == theirs[2:]
        # a tie-break trial: the same answer (a play, or none) and, with a play, the same states
        ours = _dp.search(*args, target, -1, True, limit)
        old = _dp.search(*every, target, -1, True, limit)
        assert ours[2:] == old[2:]
        if old[3] is not None:
            assert ours[:2] == old[:2]
        else:
            assert ours[0] in (0, 3) and ours[1] <= old[1]


def _jokers_needed(need: bytes, opt: bytes, cut: int, guess: tuple[int, ...]) -> int:
    """The jokers the crossing runs of ``guess`` need at least: per colour, the pieces missing
    at the five cells they pass for sure (two or three before the cut, one or two after)."""
    before = cut or 13
    total = 0
    for colour, code in enumerate(guess):
        n1, n2, n3 = code & 7, code >> 3 & 7, code >> 6 & 7
        cells = {before - 2: n3, before - 1: n2 + n3, before: n1 + n2 + n3}
        cells.update({cut + 1: n1 + n2 + n3, cut + 2: n1})
        for value, runs in cells.items():
            cell = colour * 15 + (value - 1) % 13 + 1
            total += max(0, runs - need[cell] - opt[cell])
    return total


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(st.integers(0, 2), min_size=104, max_size=104),
    jokers=st.integers(0, 4),
)
def test_the_guesses_left_out_need_too_many_jokers(cells, jokers):
    """The guesses kept are the full list in order without those needing more jokers than
    there are."""
    need = bytearray(60)
    opt = bytearray(60)
    for colour in range(4):
        for value in range(1, 14):
            need[colour * 15 + value] = cells[colour * 13 + value - 1]
            opt[colour * 15 + value] = min(1, cells[52 + colour * 13 + value - 1])
    cut, every = _dp.wrap_guesses(bytes(need), bytes(opt), jokers)
    kept_cut, kept = _dp.wrap_guesses(bytes(need), bytes(opt), jokers, True)
    assert kept_cut == cut

    def split(raw: bytes) -> list[tuple[int, ...]]:
        codes = memoryview(raw).cast("H")
        return [tuple(codes[i : i + 4]) for i in range(0, len(codes), 4)]

    assert split(kept) == [
        g for g in split(every) if _jokers_needed(bytes(need), bytes(opt), cut, g) <= jokers
    ]


@SEEDED
@given(seed=st.integers(0, 10**9), plus=st.booleans(), mode=st.sampled_from(["count", "value"]))
def test_bounds_of_other_guesses_change_no_play(monkeypatch, seed, plus, mode):
    """The search proper pruning by the bounds of covered guesses (OtherSlot in engine/_dp.c)
    finds the same first best play as without (sound pruning never drops a play better than
    the best so far, and the first best play in search order is found either way)."""
    rules = STEIN_PLUS if plus else STEIN
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(3, 8), rng.randint(6, 14))
    for args, target in _captured(monkeypatch, table, hand, rules, mode):
        ours = _dp.search(*args, target, -1, False, -1)
        before = _dp.other_guesses(False)
        try:
            plain = _dp.search(*args, target, -1, False, -1)
        finally:
            _dp.other_guesses(before)
        assert ours[0] == plain[0] and ours[2:] == plain[2:]


@SEEDED
@given(
    seed=st.integers(0, 10**9),
    plus=st.booleans(),
    mode=st.sampled_from(["count", "value"]),
    budget=st.sampled_from([2_000, 400_000]),
)
def test_the_relaxation_changes_no_play(monkeypatch, seed, plus, mode, budget):
    """The search proper under a budget, pruned by the relaxation over every guess at once
    (``relax`` in engine/_dp.c), finds the same first best play as without; the relaxation's
    own states count against the budget, so it may run out of it where the search without it
    does not, but only after the 1,000 states (RELAX_AFTER) before which it never runs."""
    rules = STEIN_PLUS if plus else STEIN
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(3, 8), rng.randint(8, 16))
    for args, target in _captured(monkeypatch, table, hand, rules, mode):
        ours = _dp.search(*args, target, budget, False, 500_000)
        before = _dp.relaxed(False)
        try:
            plain = _dp.search(*args, target, budget, False, 500_000)
        finally:
            _dp.relaxed(before)
        if ours[0] != 2 and plain[0] != 2:
            assert ours[0] == plain[0] and ours[2:] == plain[2:]
        elif ours[0] == 2 and plain[0] != 2:
            assert plain[1] >= 1000
