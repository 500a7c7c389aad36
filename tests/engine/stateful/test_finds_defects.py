"""The state machine finds defects of issue 13's kinds: here injected into a copy of the
engine's behaviour (monkeypatched for one test), so the check is known to bite."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from engine import tiles
from engine.card import moves as card_moves
from engine.errors import RummyError
from engine.rules import preset

from .machine import machine_for
from .oracle import Violation

FIND = settings(
    max_examples=60,
    stateful_step_count=40,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.generate],  # finding is enough; no shrinking
    suppress_health_check=list(HealthCheck),
)


def test_finds_an_undo_that_loses_a_piece(monkeypatch):
    undo = tiles.HANDLERS["undo"]

    def lossy(g, seat, c):  # defect 1: undo restores the table but a piece is gone
        events = undo(g, seat, c)
        if g.turn.rack:
            g.turn.rack.pop()
        return events

    monkeypatch.setitem(tiles.HANDLERS, "undo", lossy)
    with pytest.raises(Violation, match=r"lost|undo"):
        run_state_machine_as_test(machine_for("rummikub", preset("rummikub")), settings=FIND)


def test_finds_an_undo_that_does_not_restore(monkeypatch):
    undo = tiles.HANDLERS["undo"]

    def shuffled(g, seat, c):  # the pieces are back, but not where they were
        events = undo(g, seat, c)
        g.turn.rack.reverse()
        return events

    monkeypatch.setitem(tiles.HANDLERS, "undo", shuffled)
    with pytest.raises(Violation, match="undo"):
        run_state_machine_as_test(machine_for("stein", preset("stein")), settings=FIND)


def test_finds_a_card_hint_that_is_refused(monkeypatch):
    def no_hint(g, seat, c, declared):  # defect 12: "hint is not part of Rommé"
        raise RummyError("turn.not_allowed", command="hint", preset=g.rules.name)

    monkeypatch.setitem(card_moves.HANDLERS, "hint", no_hint)
    with pytest.raises(Violation, match="hint"):
        run_state_machine_as_test(machine_for("romme", preset("romme")), settings=FIND)
