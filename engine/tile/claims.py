"""Stein Plus claims (RULES.md "Preset stein_plus"): ``claim`` / ``unclaim`` and the rules
other commands keep (only ``unclaim`` ends a claim)."""

from __future__ import annotations

from collections.abc import Sequence

from ..commands import Command
from ..errors import RummyError
from ..game import Event
from ..melds import (
    readings,
)
from .turn import Meld, TurnContext, meld_at, touch, working_event


def claim(g: TurnContext, seat: int, c: Command) -> list[Event]:
    if not g.rules.claims:
        raise RummyError("turn.not_allowed", command="claim", preset=g.rules.name)
    number = c.meld or 0
    meld = touch(g, seat, number)
    if meld.claim is not None:
        raise RummyError("claim.already", meld=number)
    found = readings(g.faces(meld.ids), g.rules.meld_spec)
    if len(meld.ids) != 4 or not found or found[0].kind != "group":
        raise RummyError("claim.not_group_of_four", meld=number)
    if not formed_this_turn(g, meld) and not was_claimed_by(g, seat, meld):
        raise RummyError("claim.not_formed", meld=number)
    meld.claim = seat
    return [working_event(g, seat, "claim", meld=number)]


def unclaim(g: TurnContext, seat: int, c: Command) -> list[Event]:
    if not g.rules.claims:
        raise RummyError("turn.not_allowed", command="unclaim", preset=g.rules.name)
    number = c.meld or 0
    meld = meld_at(g, number)
    if meld.claim is None:
        raise RummyError("claim.not_claimed", meld=number)
    if meld.claim != seat:
        raise RummyError("claim.not_yours", meld=number, owner=g.players[meld.claim])
    meld.claim = None
    return [working_event(g, seat, "unclaim", meld=number)]


def keep_claim(g: TurnContext, meld: Meld, number: int, leaving: Sequence[int]) -> None:
    """Only ``unclaim`` ends a claim: a command may not take every tile out of one."""
    if meld.claim is not None and set(meld.ids) <= set(leaving):
        raise RummyError("claim.dissolve_first", meld=number)


def formed_this_turn(g: TurnContext, meld: Meld) -> bool:
    """A claim comes from the hand or is formed on the table (RULES.md "Preset stein_plus"):
    the meld is not one that lay on the table, exactly these tiles, at the turn's start."""
    return set(meld.ids) not in [set(m.ids) for m in g.table]


def was_claimed_by(g: TurnContext, seat: int, meld: Meld) -> bool:
    """The meld is the seat's own claim of the turn's start, unclaimed this turn (claiming it
    again simply takes the unclaim back)."""
    return any(set(m.ids) == set(meld.ids) and m.claim == seat for m in g.table)


def fixed_melds(g: TurnContext, seat: int) -> set[int]:
    """Melds the solver must leave alone: every claim - others' may not be touched, and
    only ``unclaim`` ends one's own (RULES.md "Preset stein_plus")."""
    return {k for k, m in enumerate(g.turn.table) if m.claim is not None}
