"""The classic Rummy matches of the league: one running match per lobby (guild + channel).

:class:`MatchBook` keeps the ``rummy_match`` rows of a :class:`~bot.store.Store`; the result
hook asks it for the rows a finished hand adds (:meth:`MatchBook.rows`), including the match's
one ladder result once it is won, from the lobby's rows as read inside the transaction that
finishes the hand (nothing is cached, so every process continues the same match).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from bot.league.presets import GameMeta, RummyMatch, result_from_rummy_match
from bot.league.records import NS_MATCH, NS_RESULT, LobbyBook, RunningMatch
from bot.store import KvRow
from engine.game import Result


class MatchBook(LobbyBook[RunningMatch]):
    """Rummy matches over ``store``."""

    namespace = NS_MATCH
    record = RunningMatch

    def rows(
        self,
        guild: str,
        channel: str,
        meta: GameMeta,
        players: list[str],
        result: Result,
        stored: list[KvRow],
        targets: Mapping[int, int],
    ) -> list[KvRow]:
        """The rows a finished hand adds to its lobby's match (``targets``: the match target
        by player count, the rules' ``match_target_by_players``), given the rows ``stored``
        now (read in the finishing transaction, :meth:`lobby_read`)."""
        if len(players) not in targets:
            return []
        rows: list[KvRow] = []
        running = self.latest_in(stored, (guild, channel))
        if running is not None and running.closed_at is None and meta.game_id in running.game_ids:
            cut = running.game_ids.index(meta.game_id)  # a failed final write, tried again
            m = running.match
            running = replace(
                running,
                match=RummyMatch(m.players, m.target, m.hands[:cut]),
                game_ids=running.game_ids[:cut],
            )

        def start(number: int) -> RunningMatch:
            target = result.details.get("match_target") or targets[len(players)]
            match = RummyMatch(players=tuple(players), target=int(target))
            return RunningMatch(guild, channel, number, match, (), meta.finished_at)

        running = self.running(
            (guild, channel),
            players,
            meta.finished_at,
            rows,
            start,
            running,
        )
        match = running.match
        if result.winner is None:
            match = match.add_draw()
        else:
            seat = match.players.index(players[result.winner])
            match = match.add_hand(seat, round(float(result.points[result.winner])))
        running = replace(running, match=match, game_ids=(*running.game_ids, meta.game_id))
        if match.finished:
            running = replace(running, closed_at=meta.finished_at, result_game=meta.game_id)
            rows.append(
                KvRow(NS_RESULT, meta.game_id, result_from_rummy_match(meta, match).to_dict())
            )
        rows.append(KvRow(NS_MATCH, running.key, running.to_dict()))
        return rows

    async def rummy_match(self, guild: str, channel: str | None) -> RunningMatch | None:
        """The lobby's latest Rummy match (running or over), or None, as stored now."""
        return await self.latest_of(guild, channel)
