"""Computer players as seen by the service: ``choose(state, seat) -> command text``.

The real computer players live in ``engine.ai`` (``choose_move``), written separately. Until it
exists (or when it proposes a move the engine rejects), the service uses :class:`FallbackPlayer`:
a deliberately simple, always-legal player, clearly not meant to play well:

- tile games: ``engine.autoplay.random_tile_turn`` (lay melds from the rack, lay off, then draw /
  discard), checked on a copy of the state; if rejected, the plainest legal turn (Rummikub
  ``draw``; Stein ``draw; draw; discard X`` with pick from the discards when the pool is dry);
- card games: take a card and discard one (``draw; discard X``), checked on a copy.

Every candidate is tried on a copy, so the fallback never hands the service an illegal move
unless none of its candidates is legal; then it returns ``None`` and the service runs the
preset's time-out action instead, so a game can never hang on a computer seat.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import random
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from engine.errors import RummyError

log = logging.getLogger(__name__)

LEVELS = ("easy", "medium", "strong")


class BotPlayer(Protocol):
    """A computer player: the command text for ``seat`` (the seat to move), or None. The
    service applies it; when the engine rejects it, :meth:`FallbackPlayer.safe_choose` (a
    move checked on a copy) is used instead, and failing that the preset's time-out action."""

    def choose(self, state: Any, seat: int) -> str | None: ...


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
        from engine.autoplay import random_tile_turn

        yield random_tile_turn(state, seat, _rng(state, seat))
    except ImportError:
        pass
    except Exception:  # autoplay is a helper; its bugs only cost us this candidate
        log.exception("autoplay failed")
    rules = state.rules
    if rules.game != "stein":
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

    def __init__(self, choose_move: Callable[..., Any], level: str) -> None:
        self._choose = choose_move
        self.level = level
        try:
            params = inspect.signature(choose_move).parameters
        except (TypeError, ValueError):
            params = {}
        self._takes_level = "level" in params

    def choose(self, state: Any, seat: int) -> str | None:
        if self._takes_level:
            move = self._choose(state, seat, level=self.level)
        else:
            move = self._choose(state, seat)
        return None if move is None else str(move)


def computer_player(level: str) -> BotPlayer:
    """The computer player for a level: ``engine.ai`` when installed, else the fallback."""
    try:
        ai = importlib.import_module("engine.ai")
    except ModuleNotFoundError as exc:
        if exc.name != "engine.ai":
            raise
        return FallbackPlayer()
    choose_move = getattr(ai, "choose_move", None)
    if choose_move is None:
        return FallbackPlayer()
    return EngineAIPlayer(choose_move, level)
