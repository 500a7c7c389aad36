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


def conserved(state: Any) -> str | None:
    """None when every piece of the deck is somewhere exactly once, else what is wrong."""
    deck = len(state.deck) if hasattr(state, "deck") else None
    if hasattr(state, "all_piece_ids") and deck is not None:
        ids = sorted(state.all_piece_ids())
        if ids != list(range(deck)):
            missing = sorted(set(range(deck)) - set(ids))
            seen: set[int] = set()
            dups = sorted({i for i in ids if i in seen or seen.add(i)})
            return f"pieces not conserved: missing {missing[:10]}, duplicated {dups[:10]}"
        return None
    view = state.public_view()
    total = sum(s.pieces for s in view.seats) + sum(len(m.pieces) for m in view.melds)
    total += view.pool + len(view.discards)
    if deck is not None and total != deck:
        return f"pieces not conserved: {total} counted, the deck has {deck}"
    return None


def check_state(record: GameRecord, state: Any) -> str | None:
    """None when a restored game can go on, else why not: the state must have one seat per
    stored seat, a player to move among them, and every piece exactly once."""
    seats = len(state.public_view().seats)
    if seats != len(record.seats):
        return f"the snapshot has {seats} seats, the game {len(record.seats)}"
    current = getattr(state, "current", None)
    if not isinstance(current, int) or not 0 <= current < seats:
        return f"the player to move ({current!r}) is not one of the {seats} seats"
    return conserved(state)


def check_log(record: GameRecord, commands: list[CommandRecord]) -> str | None:
    """None when the commands after the snapshot run exactly from ``snapshot_seq + 1`` to
    ``seq``, else what is wrong (a missing command, or a ``seq`` ahead of the log)."""
    seqs = [c.seq for c in commands if c.seq > record.snapshot_seq]
    wanted = list(range(record.snapshot_seq + 1, record.seq + 1))
    if seqs != wanted:
        last = seqs[-1] if seqs else record.snapshot_seq
        return f"the log ends at {last}, the game says seq {record.seq}"
    return None
