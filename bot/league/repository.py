"""Where the league keeps its tournaments: the :class:`TournamentRepository` port, and
:class:`KvTournamentRepository`, its implementation over the store's key/value rows.

The tournament part of the league (:mod:`bot.league.tournaments`) and the front ends that load
or save a tournament go through this port only, so another store (PostgreSQL, a file) plugs in
with another implementation. The rows are the contract: ``tournament`` (key
``guild:tournament``, a :class:`TournamentInfo`) and ``tournament_game`` (key game id, a
:class:`TournamentGame`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.league.records import NS_TOURNAMENT, NS_TOURNAMENT_GAME, TournamentGame, TournamentInfo
from bot.store import GameRecord, KvHook, KvRow, ResultRow


class TournamentRepository(Protocol):
    """Loading and saving tournaments and the links of service games to them."""

    async def load(self, guild: str, tournament_id: str) -> TournamentInfo | None:
        """The stored tournament, or None."""
        ...

    async def exists(self, guild: str, tournament_id: str) -> bool:
        """Whether anything is stored under this tournament's key."""
        ...

    async def save(self, info: TournamentInfo) -> None:
        """Store the tournament as a whole."""
        ...

    async def all(self) -> list[TournamentInfo]:
        """Every stored tournament (every guild)."""
        ...

    async def link(self, link: TournamentGame) -> None:
        """Store the link of a service game to its tournament."""
        ...

    async def link_of(self, game_id: str) -> TournamentGame | None:
        """The link of a service game, or None."""
        ...

    async def links(self) -> list[TournamentGame]:
        """Every stored link (every guild and tournament)."""
        ...


class FinishedGames(Protocol):
    """What the tournaments read of the games the service played (the store has it)."""

    async def load_game(self, game_id: str) -> GameRecord | None: ...

    async def results(self, game_id: str) -> list[ResultRow]: ...


class LeagueStore(FinishedGames, Protocol):
    """The store as the league uses it: its key/value rows and the finished games
    (:class:`bot.store.Store` provides it; another store must too)."""

    async def kv_get(self, namespace: str, key: str) -> Any | None: ...

    async def kv_put(self, rows: Sequence[KvRow]) -> None: ...

    async def kv_items(self, namespace: str) -> list[KvRow]: ...

    async def kv_update(self, hook: KvHook) -> list[KvRow]: ...


class KvTournamentRepository:
    """:class:`TournamentRepository` over a :class:`~bot.store.Store`'s key/value rows."""

    def __init__(self, store: LeagueStore) -> None:
        self.store = store

    async def load(self, guild: str, tournament_id: str) -> TournamentInfo | None:
        raw = await self.store.kv_get(NS_TOURNAMENT, f"{guild}:{tournament_id}")
        if not raw or "tournament_id" not in raw:
            return None
        return TournamentInfo.from_dict(raw)

    async def exists(self, guild: str, tournament_id: str) -> bool:
        return bool(await self.store.kv_get(NS_TOURNAMENT, f"{guild}:{tournament_id}"))

    async def save(self, info: TournamentInfo) -> None:
        await self.store.kv_put([KvRow(NS_TOURNAMENT, info.key, info.to_dict())])

    async def all(self) -> list[TournamentInfo]:
        rows = await self.store.kv_items(NS_TOURNAMENT)
        return [
            TournamentInfo.from_dict(r.value)
            for r in rows
            if isinstance(r.value, dict) and "tournament_id" in r.value
        ]

    async def link(self, link: TournamentGame) -> None:
        await self.store.kv_put([KvRow(NS_TOURNAMENT_GAME, link.game_id, link.to_dict())])

    async def link_of(self, game_id: str) -> TournamentGame | None:
        raw = await self.store.kv_get(NS_TOURNAMENT_GAME, game_id)
        return None if raw is None else TournamentGame.from_dict(raw)

    async def links(self) -> list[TournamentGame]:
        return [
            TournamentGame.from_dict(r.value) for r in await self.store.kv_items(NS_TOURNAMENT_GAME)
        ]
