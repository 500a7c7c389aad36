"""Computer players as seen by the service: ``choose(state, seat) -> command text``.

The real computer players are ``engine.ai.choose_move`` at a level (:func:`computer_player`).
When one proposes a move the engine rejects, the service falls back on :class:`FallbackPlayer`:
a deliberately simple, always-legal player, clearly not meant to play well:

- tile games: ``engine.autoplay.random_tile_turn`` (lay melds from the rack, lay off, then draw /
  discard), checked on a copy of the state; if rejected, the plainest legal turn (Rummikub:
  ``draw``; where the turn starts with the draws, Stein: ``draw; draw; discard X`` with pick
  from the discards when the pool is dry);
- card games: take a card and discard one (``draw; discard X``), checked on a copy.

Every candidate is tried on a copy, so the fallback never hands the service an illegal move
unless none of its candidates is legal; then it returns ``None`` and the service runs the
preset's time-out action instead, so a game can never hang on a computer seat.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from typing import Any

from engine.ai import LEVELS, choose_move
from engine.autoplay import random_tile_turn
from engine.errors import RummyError

from .ports import ComputerPlayer

log = logging.getLogger(__name__)

__all__ = ["LEVELS", "EngineAIPlayer", "FallbackPlayer", "computer_player", "copy_state"]


def copy_state(state: Any) -> Any:
    """An independent copy of a game state (``copy()`` where the class has one)."""
    if hasattr(state, "copy"):
        return state.copy()
    return type(state).from_json(state.to_json())


def is_legal(state: Any, seat: int, text: str) -> bool:
    """Whether the engine would accept ``text`` from ``seat`` now (tried on a copy)."""
    try:
        copy_state(state).apply(seat, text)
    except RummyError:
        return False
    except Exception:  # an engine bug must not stop a computer player from choosing
        log.exception("engine failed while checking %r", text)
        return False
    return True


def _rng(state: Any, seat: int) -> random.Random:
    """Deterministic per turn, so a replayed or resumed game makes the same choices."""
    turn = getattr(state, "turn_no", 0)
    return random.Random(f"{getattr(state, 'seed', 0)}:{turn}:{seat}:fallback")


def _faces(state: Any, seat: int) -> list[str]:
    return [str(f) for f in state.rack(seat)]


def _tile_candidates(state: Any, seat: int) -> Iterator[str]:
    try:
        yield random_tile_turn(state, seat, _rng(state, seat))
    except Exception:  # autoplay is a helper; its bugs only cost us this candidate
        log.exception("autoplay failed")
    rules = state.rules
    if not rules.draw_first:
        yield "reset; draw"
        return
    rack = _faces(state, seat)
    pool = len(getattr(state, "pool", ()))
    discards = [str(state.deck[i]) for i in getattr(state, "discards", ())]
    draws: list[str] = []
    extra: list[str] = []
    for _ in range(rules.draws_per_turn):
        if pool:
            draws.append("draw")
            pool -= 1
        elif discards and not any(d.startswith("pick") for d in draws):
            draws.append(f"pick {discards[-1]}")
            extra.append(discards[-1])
    for piece in [*rack, *extra][::-1]:
        yield "; ".join(["reset", *draws, f"discard {piece}"])
    yield "; ".join(["reset", *draws, "done"])


def _card_candidates(state: Any, seat: int) -> Iterator[str]:
    rack = _faces(state, seat)
    for first in ("draw", "pick"):
        for piece in rack[::-1]:
            yield f"{first}; discard {piece}"
    yield "draw"
    yield "draw; done"
    yield "done"


class FallbackPlayer:
    """The service's own minimal computer player (see the module docstring).

    :meth:`choose` proposes its first idea unchecked (the service applies it, which checks it);
    :meth:`safe_choose` tries every candidate on a copy and is what the service falls back on
    when a proposed move is rejected.
    """

    def choose(self, state: Any, seat: int) -> str | None:
        return next(self._candidates(state, seat), None)

    def safe_choose(self, state: Any, seat: int) -> str | None:
        for text in self._candidates(state, seat):
            if is_legal(state, seat, text):
                return text
        return None

    @staticmethod
    def _candidates(state: Any, seat: int) -> Iterator[str]:
        if state.rules.family == "tile":
            return _tile_candidates(state, seat)
        return _card_candidates(state, seat)


class EngineAIPlayer:
    """``engine.ai.choose_move`` at a level (the service checks the move by applying it)."""

    def __init__(self, level: str) -> None:
        self.level = level

    def choose(self, state: Any, seat: int) -> str | None:
        move = choose_move(state, seat, level=self.level)
        return None if move is None else str(move)


def computer_player(level: str) -> ComputerPlayer:
    """The standard computer player of a level (``engine.ai``)."""
    return EngineAIPlayer(level)
