"""``engine.solver.states_spent``: the DP states solves with a budget spent in this thread."""

from __future__ import annotations

import pytest

from engine.pieces import parse_faces, parse_melds
from engine.rules import STEIN
from engine.solver import SolverBudgetExceeded, forget_recent, solve, states_spent


def test_states_spent_counts_budgeted_solves_only():
    table = parse_melds("B1 B2 B3, R5 Y5 K5, K9 K10 K11 K12")
    rack = parse_faces("B4 B5 R6 R7 R8 Y9 Y10 K13 J")
    forget_recent()
    before = states_spent()
    solve(table, rack, STEIN, opened=True)  # no budget: not counted
    assert states_spent() == before
    forget_recent()
    solve(table, rack, STEIN, opened=True, budget=400_000)
    spent = states_spent() - before
    assert 0 < spent <= 400_000
    solve(table, rack, STEIN, opened=True, budget=400_000)  # remembered: costs nothing
    assert states_spent() - before == spent
    forget_recent()
    with pytest.raises(SolverBudgetExceeded):
        solve(table, rack, STEIN, opened=True, budget=1)
    assert states_spent() - before == spent + 2
