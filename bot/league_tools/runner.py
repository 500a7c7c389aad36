"""Play tournament games with computer players through the real game service and store.

:class:`TournamentRunner` takes the next game of a tournament table, creates it in the
:class:`~bot.service.GameService` (a lobby without the host seated, one computer player per
table seat, then ``start_game``), waits until the computer players have finished it, and enters
the stored result into the tournament (:meth:`League.record_service_game`).

How the designated starter moves first: the service cannot be told who starts; the engine
draws the start player by lot from the game's seed (``random.Random(f"{seed}:deal")``, RULES.md
"Start player by lot"). The runner therefore asks the engine which seat the seed makes start
(``new_game(rules, names, seed).public_view().current``; it depends only on seed and player
count) and *rotates* the table's seat order so the designated starter sits in that seat.
Rotation keeps the clockwise order of the table, so the game is the one the table would play.
After ``start_game`` the runner checks that the service's game really starts with that seat.

Computer players get the service's own ids (``bot:LEVEL:N``); the link row
(:class:`~bot.league.records.TournamentGame`, written before the game is created) maps the
game's seats back to the tournament players, and keeps the game off the ladder. A game that
runs longer than ``max_seconds`` is ended by the director (scored by tiles left, entered as
ended early). Everything is deterministic for a seed: game seeds and ids are derived from
(seed, tournament, round, table, game), and the service's computer players choose from the game
state only.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.league.errors import LeagueServiceError
from bot.league.records import TournamentGame
from bot.league.service import League
from bot.league.tournament import Tournament
from bot.service import ErrorReply, GameService
from engine.codec import to_data
from engine.game import new_game
from engine.rules import preset as rules_preset


def game_seed(seed: int, tournament_id: str, round_no: int, table: int, number: int) -> int:
    """The deal seed of one tournament game (stable across runs and Python versions)."""
    text = f"{seed}:{tournament_id}:{round_no}:{table}:{number}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") % 2**31


def rotate_for_start(seats: tuple[str, ...], starter: int, start_seat: int) -> tuple[str, ...]:
    """The table's seats rotated so that ``seats[starter]`` sits in ``start_seat``.

    Clockwise order is kept: game seat ``j`` holds table seat ``(starter + j - start_seat) % n``.
    """
    n = len(seats)
    return tuple(seats[(starter + j - start_seat) % n] for j in range(n))


@dataclass(frozen=True)
class PlayedGame:
    """One tournament game played through the service."""

    game_id: str
    round: int
    table: int
    number: int
    starter: str
    seats: tuple[str, ...]  # tournament players in the game's seat order
    reason: str
    mp: Mapping[str, float]

    def to_dict(self) -> dict[str, Any]:
        return to_data(self)


class TournamentRunner:
    """Plays a tournament's games with computer players through ``service``.

    ``host_id`` is the (unseated) host of every table; ``options`` are rule options for every
    game (e.g. ``{"first_round_out": "equal"}``).
    """

    def __init__(
        self,
        league: League,
        service: GameService,
        *,
        seed: int = 0,
        level: str = "medium",
        host_id: str = "tournament-director",
        options: dict[str, Any] | None = None,
        max_seconds: float = 300.0,
    ) -> None:
        self.league = league
        self.service = service
        self.seed = seed
        self.level = level
        self.host_id = host_id
        self.options = dict(options or {})
        self.max_seconds = max_seconds

    async def play_game(self, guild: str, tournament_id: str, table_number: int) -> PlayedGame:
        """Play the next game of a table of the running round and enter its result."""
        t = await self.league.tournament(guild, tournament_id)
        rnd = t.current_round
        if rnd is None:
            raise LeagueServiceError("tournament.no_round")
        table = rnd.table(table_number)
        number = len(table.games)
        if table.complete:
            raise LeagueServiceError(
                "tournament.table_done",
                table=table.number,
                games=len(table.seats),
                round=rnd.number,
            )
        game_id = f"{tournament_id}-r{rnd.number}-t{table.number}-g{number + 1}"
        existing = await self.service.game_record(game_id)
        if existing is None:
            await self._create(guild, t, rnd.number, table.number, number, table.seats, game_id)
        elif existing.status == "lobby" or (
            existing.status == "playing" and self.service.status(game_id) is None
        ):
            raise LeagueServiceError(
                "tournament.service",
                game_id=game_id,
                why={"key": "why.service.not_running", "status": existing.status},
            )
        await self._finish(game_id)
        t = await self.league.record_service_game(game_id)
        link = next(
            g
            for g in await self.league.tournament_games(guild, tournament_id)
            if g.game_id == game_id
        )
        game = t.rounds[rnd.number - 1].table(table.number).games[number]
        return PlayedGame(
            game_id=game_id,
            round=rnd.number,
            table=table.number,
            number=number,
            starter=table.seats[number],
            seats=link.seats,
            reason=await self.league.end_reason(game_id),
            mp={p: game.mp[i] for i, p in enumerate(table.seats)},
        )

    async def _create(
        self,
        guild: str,
        t: Tournament,
        round_no: int,
        table_no: int,
        number: int,
        table_seats: tuple[str, ...],
        game_id: str,
    ) -> None:
        seed = game_seed(self.seed, t.tournament_id, round_no, table_no, number)
        rules = rules_preset(t.preset)
        if self.options:
            rules = rules.with_options(**self.options)
        n = len(table_seats)
        names = [f"Computer {i + 1}" for i in range(n)]
        start_seat = new_game(rules, names, seed).public_view().current
        seats = rotate_for_start(table_seats, number, start_seat)
        link = TournamentGame(
            game_id, guild, t.tournament_id, round_no, table_no, number, seats, table_seats[number]
        )
        await self.league.link_game(link)
        made, out = await self.service.create_game(
            self.host_id,
            t.preset,
            self.options or None,
            guild_id=guild,
            game_id=game_id,
            seed=seed,
            seat_host=False,
        )
        if made is None:
            self._check(game_id, [*out, None])
        for _ in range(n):
            self._check(game_id, await self.service.add_bot(game_id, self.host_id, self.level))
        self._check(game_id, await self.service.start_game(game_id, self.host_id))
        view = self.service.view(game_id)
        if view is not None and view.turn_no == 0 and view.current != start_seat:
            raise LeagueServiceError(
                "tournament.service",
                game_id=game_id,
                why={
                    "key": "why.service.wrong_start",
                    "seat": view.current,
                    "expected": start_seat,
                },
            )

    @staticmethod
    def _check(game_id: str, out: list[Any]) -> None:
        for item in out:
            if item is None or isinstance(item, ErrorReply):
                why = {"key": "why.service.refused"} if item is None else item.text
                raise LeagueServiceError("tournament.service", game_id=game_id, why=why)

    async def _finish(self, game_id: str) -> None:
        try:
            await asyncio.wait_for(self.service.wait_finished(game_id), self.max_seconds)
        except TimeoutError:
            self._check(game_id, await self.service.end_game(game_id, self.host_id, "ended"))
            await self.service.wait_finished(game_id)

    async def play_table(
        self, guild: str, tournament_id: str, table_number: int
    ) -> list[PlayedGame]:
        """Play the remaining games of one table in this round."""
        played: list[PlayedGame] = []
        while True:
            rnd = (await self.league.tournament(guild, tournament_id)).current_round
            if rnd is None or rnd.table(table_number).complete:
                return played
            played.append(await self.play_game(guild, tournament_id, table_number))

    async def play_round(self, guild: str, tournament_id: str) -> list[PlayedGame]:
        """Finish the running round, or start and play the next one; tables one after another."""
        await self.league.sync_tournament(guild, tournament_id)
        t = await self.league.tournament(guild, tournament_id)
        if t.current_round is None:
            t = await self.league.start_round(guild, tournament_id)
        rnd = t.current_round
        assert rnd is not None
        played: list[PlayedGame] = []
        for table in rnd.tables:
            played += await self.play_table(guild, tournament_id, table.number)
        return played

    async def play(self, guild: str, tournament_id: str, rounds: int) -> Tournament:
        """Play until ``rounds`` rounds are complete (a round in progress is finished first)."""
        while True:
            t = await self.league.tournament(guild, tournament_id)
            done = sum(1 for r in t.rounds if r.complete)
            if done >= rounds and t.current_round is None:
                return t
            await self.play_round(guild, tournament_id)
