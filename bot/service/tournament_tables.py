"""Tournament tables played as service games: the next game of a table, seated and started.

:class:`TournamentTables` opens the next game of a table of a tournament's running round
(:mod:`bot.league.tournament`: each table plays as many games as it has seats, game ``i``
started by seat ``i``) as a game of the service: the link row (written first, so the game's
result goes to the tournament and not to the ladder, also after a restart), a lobby with the
organiser as unseated host, the table's players seated (people by their ids, computer players
of the tournament, ids ``bot:<level>:<n>``, as computer players of that level), and the start.
When the game finishes, the league's result hook enters it into the tournament inside the
transaction that finishes it (:meth:`bot.league.tournaments.TournamentDesk.result_kv_hook`).

Who moves first: the engine draws the start player by lot from the game's seed, so the table's
seat order is *rotated* (clockwise order kept) to put the designated starter in the seat the
seed makes start; the start is checked after the deal.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from bot.league import LeagueServiceError, TournamentGame
from engine.game import new_game
from engine.rules import preset as rules_preset

from .outgoing import ErrorReply, Outgoing

COMPUTER_PREFIX = "bot:"
LEVELS = ("easy", "medium", "strong")


def computer_id(level: str, number: int) -> str:
    """A tournament's computer player (registered like a person, played by the service)."""
    return f"{COMPUTER_PREFIX}{level}:{number}"


def computer_level(player: str) -> str | None:
    """The level of a tournament computer player's id, or None for a person."""
    if not player.startswith(COMPUTER_PREFIX):
        return None
    parts = player.split(":")
    return parts[1] if len(parts) >= 3 and parts[1] in LEVELS else "medium"


def computer_number(player: str) -> int | None:
    """The number of a tournament computer player's id (its seat is named after it)."""
    last = player.rsplit(":", 1)[-1]
    return int(last) if last.isdigit() else None


def rotate_for_start(seats: Sequence[str], starter: int, start_seat: int) -> tuple[str, ...]:
    """The table's seats rotated so that ``seats[starter]`` sits in ``start_seat`` (game seat
    ``j`` holds table seat ``(starter + j - start_seat) % n``; clockwise order is kept)."""
    n = len(seats)
    return tuple(seats[(starter + j - start_seat) % n] for j in range(n))


class TournamentTables:
    """Opens tournament table games in ``service`` (whose league holds the tournaments)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    @property
    def league(self) -> Any:
        league = self.service.league
        if league is None:
            raise LeagueServiceError("league.not_open")
        return league

    async def next_game(
        self, guild: str, tournament_id: str, table_number: int
    ) -> tuple[int, int, tuple[str, ...]] | None:
        """(round, game number, table seats) of a table's next game, or None when the round
        is over there or that game is already opened (and not finished)."""
        state = await self.league.tournament(guild, tournament_id)
        current = state.current_round
        if current is None:
            return None
        table = current.table(table_number)
        if table.complete or await self.running_game(guild, tournament_id, table_number):
            return None
        return current.number, len(table.games), table.seats

    async def running_game(self, guild: str, tournament_id: str, table_number: int) -> str | None:
        """The id of the table's game being played in the service now (None: none)."""
        state = await self.league.tournament(guild, tournament_id)
        current = state.current_round
        if current is None:
            return None
        number = len(current.table(table_number).games)
        for link in await self.league.tournament_games(guild, tournament_id):
            if (link.round, link.table, link.number) == (current.number, table_number, number):
                record = await self.service.game_record(link.game_id)
                if record is not None and record.status in ("lobby", "playing"):
                    return link.game_id
        return None

    async def open_game(
        self,
        guild: str,
        tournament_id: str,
        table_number: int,
        *,
        host_id: str,
        game_id: str,
        channel_id: str | None = None,
        seed: int | None = None,
    ) -> tuple[TournamentGame, list[Outgoing]]:
        """Open, seat and start the table's next game; its link and the start's messages.
        Raises :class:`LeagueServiceError` when the table has no next game or the service
        refuses (its reason in ``why``)."""
        state = await self.league.tournament(guild, tournament_id)
        current = state.current_round
        if current is None:
            raise LeagueServiceError("tournament.no_round")
        table = current.table(table_number)
        if table.complete:
            raise LeagueServiceError(
                "tournament.table_done",
                table=table.number,
                games=len(table.seats),
                round=current.number,
            )
        number = len(table.games)
        seed = secrets.randbelow(2**31) if seed is None else seed
        rules = rules_preset(state.preset)
        names = [f"Seat {i + 1}" for i in range(len(table.seats))]
        start_seat = new_game(rules, names, seed).public_view().current
        seats = rotate_for_start(table.seats, number, start_seat)
        link = TournamentGame(
            game_id,
            guild,
            tournament_id,
            current.number,
            table.number,
            number,
            seats,
            table.seats[number],
        )
        await self.league.link_game(link)
        made, out = await self.service.create_game(
            host_id,
            state.preset,
            None,
            guild_id=guild,
            channel_id=channel_id,
            game_id=game_id,
            seed=seed,
            seat_host=False,
        )
        if made is None:
            _check(game_id, [*out, None])
        for player in seats:
            level = computer_level(player)
            if level is None:
                step = await self.service.join(game_id, player)
            else:
                number = computer_number(player)
                step = await self.service.add_bot(game_id, host_id, level, number=number)
            _check(game_id, step)
            out += step
        step = await self.service.start_game(game_id, host_id)
        _check(game_id, step)
        out += step
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
        return link, out


def _check(game_id: str, out: Sequence[Any]) -> None:
    for item in out:
        if item is None or isinstance(item, ErrorReply):
            why = {"key": "why.service.refused"} if item is None else item.text
            raise LeagueServiceError("tournament.service", game_id=game_id, why=why)
