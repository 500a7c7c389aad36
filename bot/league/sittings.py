"""The Rommé sittings of the league: one running sitting per lobby (guild + channel).

:class:`SittingBook` keeps the ``sitting`` rows of a :class:`~bot.store.Store`; the result hook
asks it for the rows a finished Rommé game adds (:meth:`SittingBook.rows`), from the lobby's
rows as read inside the transaction that finishes the game (nothing is cached).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.league.presets import GameMeta, Sitting
from bot.league.records import NS_SITTING, LobbyBook, RunningSitting, iso
from bot.league.repository import LeagueStore
from bot.store import KvRow
from engine.game import Result


class SittingBook(LobbyBook[RunningSitting]):
    """Rommé sittings over ``store``; ``clock`` gives POSIX seconds."""

    namespace = NS_SITTING
    record = RunningSitting

    def __init__(self, store: LeagueStore, clock: Callable[[], float]) -> None:
        super().__init__(store)
        self.clock = clock

    def rows(
        self,
        guild: str,
        channel: str,
        meta: GameMeta,
        players: list[str],
        result: Result,
        stored: list[KvRow],
    ) -> list[KvRow]:
        """The rows a finished game adds to its lobby's sitting, given the rows ``stored`` now
        (read in the finishing transaction, :meth:`lobby_read`)."""
        if not 2 <= len(players) <= 6:
            return []
        rows: list[KvRow] = []
        running = self.running(
            (guild, channel),
            players,
            meta.finished_at,
            rows,
            lambda number: RunningSitting(
                guild, channel, number, Sitting(players=tuple(players)), (), meta.finished_at
            ),
            self.latest_in(stored, (guild, channel)),
        )
        sitting, game_ids = running.sitting, running.game_ids
        if meta.game_id in game_ids:  # the first try of this game's final write failed
            cut = game_ids.index(meta.game_id)
            sitting = Sitting(sitting.players, sitting.games[:cut])
            game_ids = game_ids[:cut]
        order = [players.index(p) for p in sitting.players]  # sitting seat -> game seat
        penalties = [round(float(result.points[i])) for i in order]
        winner = order.index(result.winner) if result.winner is not None else None
        strike = 0
        detail = result.details.get("strike")
        if isinstance(detail, dict) and winner is not None:
            strike = int(detail.get("points", 0))
        sitting = sitting.add_game(penalties, winner=winner, strike=strike)
        running = replace(running, sitting=sitting, game_ids=(*game_ids, meta.game_id))
        rows.append(KvRow(NS_SITTING, running.key, running.to_dict()))
        return rows

    async def sitting(self, guild: str, channel: str | None) -> RunningSitting | None:
        """The lobby's latest Rommé sitting (open or closed), or None, as stored now."""
        return await self.latest_of(guild, channel)

    async def end_sitting(self, guild: str, channel: str | None) -> RunningSitting | None:
        """Close the lobby's running sitting (its settlement is final); None if none runs.
        One read-modify-write transaction: a game finishing meanwhile in another process
        either lands before (and is in the settlement) or starts the next sitting."""
        return await self.close_latest(guild, channel, iso(self.clock()))

    async def sittings(self, guild: str) -> list[RunningSitting]:
        """Every stored sitting of a guild (all lobbies, archived ones included)."""
        rows = await self.store.kv_items(NS_SITTING)
        found = [RunningSitting.from_dict(r.value) for r in rows]
        return [s for s in found if s.guild_id == guild]
