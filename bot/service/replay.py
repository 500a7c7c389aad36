"""Rebuilding a game from what the store keeps: seed + rules + command log (+ snapshot).

The command log holds what players typed (exactly as accepted) and the service's own actions,
which start with ``!`` so no player can type them (the engine rejects such text):

- ``!timeout``: the preset's time-out action (``state.timeout()``) for the seat to move;
- ``!end REASON``: the game was ended (``state.end(REASON)``; ``abandoned`` or ``ended``).

Replaying seed + log therefore gives the stored snapshot byte for byte (``verify-db`` checks it).
"""

from __future__ import annotations

import json
from typing import Any

from engine.game import Event, load_game, new_game
from engine.rules import RuleSet

from ..store import CommandRecord, GameRecord

TIMEOUT = "!timeout"
END = "!end"


def rules_of(record: GameRecord) -> RuleSet:
    return RuleSet.from_dict(json.loads(record.rules_json))


def initial_state(record: GameRecord) -> Any:
    """The freshly dealt game of a record (seed, rules and seat names)."""
    return new_game(rules_of(record), [s.name for s in record.seats], record.seed)


def apply_logged(state: Any, seat: int | None, text: str) -> list[Event]:
    """Apply one logged command (a player's text or a service action) to ``state``."""
    if text == TIMEOUT:
        return state.timeout()
    if text == END or text.startswith(END + " "):
        reason = text[len(END) :].strip() or "ended"
        return state.end(reason)
    if seat is None:
        raise ValueError(f"logged command {text!r} has no seat")
    return state.apply(seat, text)


def restore(record: GameRecord, commands: list[CommandRecord]) -> Any:
    """The current state: the stored snapshot plus the commands logged after it."""
    if record.snapshot_json is None:
        state = initial_state(record)
        after = 0
    else:
        state = load_game(record.snapshot_json)
        after = record.snapshot_seq
    for command in commands:
        if command.seq > after:
            apply_logged(state, command.seat, command.text)
    return state
