"""Issue 13: the stateful test per preset (CI part: fixed, bounded, deterministic)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from .machine import machine_for
from .presets import configurations

CONFIGS = configurations()
CI = settings(
    max_examples=25,
    stateful_step_count=50,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_stateful(name):
    rules, players = CONFIGS[name]
    run_state_machine_as_test(machine_for(name, rules, players), settings=CI)
