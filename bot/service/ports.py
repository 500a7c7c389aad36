"""What the game service needs from the world, as interfaces (ports).

The service is written against these protocols only; :mod:`bot.wiring` builds the real ones
(the SQLite store, the rendering-backed renderer, the league, the system clock, the
``engine.ai`` computer players, the operations metrics) and tests pass their own (a manual clock, scripted players, a
store that fails on purpose).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.game import PublicView, Result

from ..store import GameRecord, KvRow, Store

# The store calls the service makes are the store's own interface, :class:`bot.store.Store`
# (declared once there; the SQLite store implements it, and a PostgreSQL store will). Failures
# raise :class:`~bot.store.StoreError` (a refused write :class:`~bot.store.StoreConflict`, a
# lost database :class:`~bot.store.StoreOwnerLost`).
GameStore = Store


class Renderer(Protocol):
    """Pictures as PNG bytes, in the reader's language (``None``: no picture this time). The
    service calls them in a worker thread; a failure never fails a move."""

    def table(self, view: PublicView, lang: str) -> bytes | None: ...

    def rack(self, pieces: Sequence[str], lang: str) -> bytes | None: ...

    def ladder(
        self, rows: Sequence[Mapping[str, Any]], *, title: str | None, lang: str
    ) -> bytes | None: ...


class LeaguePort(Protocol):
    """The league as the service sees it: rows written in the transaction that finishes a
    game. The rows may have a ``committed()`` method, called once they are stored."""

    def result_hook(self, record: GameRecord, result: Result, at: float) -> Sequence[KvRow]: ...


class Clock(Protocol):
    """Time: ``now()`` in POSIX seconds, ``await sleep(seconds)``."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class ComputerPlayer(Protocol):
    """A computer player: the command text for ``seat`` (the seat to move), or None. The
    service applies it; when the engine rejects it, a move checked on a copy is used instead,
    and failing that the preset's time-out action."""

    def choose(self, state: Any, seat: int) -> str | None: ...


ComputerPlayers = Callable[[str], ComputerPlayer]
"""The computer player of a level (``easy``, ``medium``, ``strong``)."""


class Metrics(Protocol):
    """What the service reports for operations (:mod:`bot.ops` exports it for Prometheus).
    Every call is synchronous, cheap and never raises; the service imports no metrics
    library. ``outcome`` of a command: ``accepted`` (committed), ``refused`` (the engine or the
    service said no; nothing changed) or ``failed`` (the store or the service failed)."""

    def command(self, outcome: str, seconds: float) -> None: ...

    def store_commit(self, seconds: float) -> None: ...

    def discord_failure(self, kind: str) -> None: ...


class NoMetrics:
    """The :class:`Metrics` that records nothing (the default)."""

    def command(self, outcome: str, seconds: float) -> None:
        return None

    def store_commit(self, seconds: float) -> None:
        return None

    def discord_failure(self, kind: str) -> None:
        return None


NO_METRICS: Metrics = NoMetrics()
