"""Rommé settlement (RULES.md ``romme`` "Settlement"; seed 001 "6. Abrechnung")."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.settlement import PairSettlement, Settlement, SettlementError, settle
from i18n import error_text

SEED_NAMES = ["A", "B", "C", "D"]
SEED_PENALTIES = [80, 220, 0, 350]


def test_seed_example_comes_out_exactly():
    assert settle(SEED_NAMES, SEED_PENALTIES).to_dict() == {
        "pairs": [
            {"a": "A", "b": "B", "a_gets": 140},
            {"a": "A", "b": "C", "a_gets": -80},
            {"a": "A", "b": "D", "a_gets": 270},
            {"a": "B", "b": "C", "a_gets": -220},
            {"a": "B", "b": "D", "a_gets": 130},
            {"a": "C", "b": "D", "a_gets": 350},
        ],
        "balances": {"A": 330, "B": -230, "C": 650, "D": -750},
    }


def test_seed_table_columns():
    """The seed prints one column per player: each entry is that player's side of a pair."""
    result = settle(SEED_NAMES, SEED_PENALTIES)
    column: dict[str, list[int]] = {name: [] for name in SEED_NAMES}
    for pair in result.pairs:
        column[pair.a].append(pair.a_gets)
        column[pair.b].append(pair.b_gets)
    assert column == {
        "A": [140, -80, 270],
        "B": [-140, -220, 130],
        "C": [80, 220, 350],
        "D": [-270, -130, -350],
    }
    assert {name: sum(values) for name, values in column.items()} == result.balances


def test_to_dict_is_json_and_key_order_is_fixed():
    text = json.dumps(settle(SEED_NAMES, SEED_PENALTIES).to_dict())
    assert text.startswith('{"pairs": [{"a": "A", "b": "B", "a_gets": 140}')
    assert text.endswith('"balances": {"A": 330, "B": -230, "C": 650, "D": -750}}')


def test_pair_round_trip():
    pair = PairSettlement(a="A", b="B", a_gets=-5)
    assert PairSettlement.from_dict(pair.to_dict()) == pair
    assert pair.b_gets == 5


def test_two_players():
    result = settle(["X", "Y"], [10, 25])
    assert result.to_dict() == {
        "pairs": [{"a": "X", "b": "Y", "a_gets": 15}],
        "balances": {"X": 15, "Y": -15},
    }


@given(st.lists(st.integers(min_value=0, max_value=2000), min_size=2, max_size=6))
def test_balances_sum_to_zero_and_follow_the_closed_form(penalties):
    names = [f"P{i}" for i in range(len(penalties))]
    result = settle(names, penalties)
    assert isinstance(result, Settlement)
    balances = result.balances
    assert sum(balances.values()) == 0
    total, n = sum(penalties), len(penalties)
    for name, penalty in zip(names, penalties, strict=True):
        assert balances[name] == total - n * penalty
    assert len(result.pairs) == n * (n - 1) // 2


@pytest.mark.parametrize(
    ("names", "penalties", "code"),
    [
        (["A", "B"], [1], "settlement.length_mismatch"),
        (["A"], [1], "settlement.too_few_players"),
        (["A", "A"], [1, 2], "settlement.duplicate_name"),
        (["A", "B"], [1, -2], "settlement.negative_penalty"),
    ],
)
def test_errors_have_stable_codes(names, penalties, code):
    with pytest.raises(SettlementError) as caught:
        settle(names, penalties)
    assert caught.value.code == code
    assert error_text(caught.value, "de") != error_text(caught.value, "en")


def test_module_uses_only_the_standard_library():
    source = Path(__file__).resolve().parents[2] / "engine" / "settlement.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            modules.add((node.module or "").split(".")[0])
    assert modules
    assert modules <= set(sys.stdlib_module_names) | {"__future__"}
