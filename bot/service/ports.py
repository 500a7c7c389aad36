"""What the game service needs from the world, as interfaces (ports).

The service is written against these protocols only; :mod:`bot.wiring` builds the real ones
(the SQLite store, the rendering-backed renderer, the league, the system clock, the
``engine.ai`` computer players) and tests pass their own (a manual clock, scripted players, a
store that fails on purpose).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.game import PublicView, Result

from ..store import (
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvRow,
    PlayerRecord,
    Seat,
)


class GameStore(Protocol):
    """The store calls the service makes (:class:`bot.store.Store` provides them). Failures
    raise :class:`~bot.store.StoreError` (a refused write :class:`~bot.store.StoreConflict`,
    a lost database :class:`~bot.store.StoreOwnerLost`)."""

    async def upsert_player(self, player: PlayerRecord) -> None: ...

    async def get_player(self, player_id: str) -> PlayerRecord | None: ...

    async def create_game(self, game: GameRecord) -> None: ...

    async def update_lobby(
        self, game_id: str, seats: Sequence[Seat], *, at: float, rules_json: str | None = None
    ) -> None: ...

    async def start_game(
        self,
        game_id: str,
        *,
        seats: Sequence[Seat],
        seed: int,
        snapshot_json: str,
        deadline: float | None,
        at: float,
    ) -> None: ...

    async def append_command(self, write: CommandWrite) -> None: ...

    async def set_timer(
        self, game_id: str, *, deadline: float | None, reminder_sent: bool, seq: int
    ) -> None: ...

    async def set_status(
        self,
        game_id: str,
        status: GameStatus,
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = ...,
        seq: int | None = None,
    ) -> None: ...

    async def update_meta(
        self,
        game_id: str,
        meta: dict[str, Any],
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = None,
        seq: int | None = None,
    ) -> None: ...

    async def load_game(self, game_id: str) -> GameRecord | None: ...

    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]: ...

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]: ...

    async def quarantine(self, game_id: str, reason: str, *, at: float) -> None: ...

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]: ...

    async def kv_get(self, namespace: str, key: str) -> Any | None: ...

    async def kv_put(self, rows: Sequence[KvRow]) -> None: ...


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
