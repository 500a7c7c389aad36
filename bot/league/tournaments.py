"""The tournaments of the league, over a :class:`~bot.league.repository.TournamentRepository`.

:class:`TournamentDesk` reads a tournament, changes it with a pure function of
:mod:`bot.league.tournament` and saves it (one change at a time per tournament); it links the
service games played for a tournament (so the ladder leaves them out) and enters their results.
The links are cached for the synchronous result hook: :meth:`load` once, before the hook runs.

A finished linked game is entered by the league's result hook inside the very transaction that
finishes it (:meth:`TournamentDesk.result_kv_hook`: a :class:`~bot.store.KvHook` that reads the
tournament's row there and writes it with the game entered), so the standings are durable with
the game's last command; :meth:`record_service_game` stays for games finished before (it is
idempotent). Over the store's key/value rows every change of a tournament is one
read-modify-write transaction (:meth:`~bot.store.Store.kv_update`), so a change by the
organiser and a game finishing at the same moment both land.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.league import tournament as tour
from bot.league.errors import LeagueError, LeagueServiceError
from bot.league.records import (
    NS_TOURNAMENT,
    TournamentGame,
    TournamentInfo,
    iso,
    rules_field,
)
from bot.league.repository import FinishedGames, KvTournamentRepository, TournamentRepository
from bot.league.tournament import Promotion, Tournament, TournamentRow
from bot.store import GameRecord, KvHook, KvRead, KvRow, ResultRow
from engine.game import Result
from engine.variants import DEFAULT_TOURNAMENT_VARIANT, Ladder, variant

log = logging.getLogger(__name__)


class TournamentDesk:
    """Tournaments kept in ``repository``; finished service games read from ``games``."""

    def __init__(
        self,
        repository: TournamentRepository,
        games: FinishedGames,
        clock: Callable[[], float],
    ) -> None:
        self.repository = repository
        self.games = games
        self.clock = clock
        self.linked: dict[str, TournamentGame] | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    async def load(self) -> None:
        """Read every tournament link into the cache."""
        self.linked = {link.game_id: link for link in await self.repository.links()}

    @property
    def links(self) -> dict[str, TournamentGame]:
        """Game id -> its tournament link (the cache)."""
        if self.linked is None:
            raise LeagueServiceError("league.not_open")
        return self.linked

    def _lock(self, guild: str, tournament_id: str) -> asyncio.Lock:
        return self._locks.setdefault(f"tournament:{guild}:{tournament_id}", asyncio.Lock())

    async def _load_tournament(self, guild: str, tournament_id: str) -> TournamentInfo:
        info = await self.repository.load(guild, tournament_id)
        if info is None:
            raise LeagueServiceError("tournament.unknown", guild=guild, tournament=tournament_id)
        return info

    async def save_tournament(self, info: TournamentInfo) -> None:
        """Store a tournament record as a whole (for front ends that change it themselves)."""
        async with self._lock(info.guild_id, info.tournament_id):
            await self.repository.save(info)

    async def _change(
        self, guild: str, tournament_id: str, change: Callable[[Tournament], Tournament]
    ) -> Tournament:
        """Read, change (a pure function of :mod:`bot.league.tournament`) and store; over the
        store's key/value rows in one transaction (a finishing game cannot slip in between)."""
        kv_update = getattr(getattr(self.repository, "store", None), "kv_update", None)
        if isinstance(self.repository, KvTournamentRepository) and kv_update is not None:
            key = f"{guild}:{tournament_id}"
            changed: list[Tournament] = []

            def compute(rows: list[KvRow]) -> list[KvRow]:
                info = _stored_info(rows, key)
                if info is None:
                    raise LeagueServiceError(
                        "tournament.unknown", guild=guild, tournament=tournament_id
                    )
                state = change(info.state)
                changed.append(state)
                return [KvRow(NS_TOURNAMENT, key, replace(info, state=state).to_dict())]

            async with self._lock(guild, tournament_id):
                await kv_update(KvHook((KvRead(NS_TOURNAMENT, key),), compute))
            return changed[-1]
        async with self._lock(guild, tournament_id):
            info = await self._load_tournament(guild, tournament_id)
            state = change(info.state)
            await self.repository.save(replace(info, state=state))
            return state

    async def create_tournament(
        self,
        guild: str,
        tournament_id: str,
        players: Sequence[str] = (),
        *,
        preset: str = DEFAULT_TOURNAMENT_VARIANT,
        promotion: Promotion | None = None,
        name: str = "",
        organiser: str = "",
        replace: bool = False,
    ) -> Tournament:
        """Create a tournament (``stein`` or ``stein_plus``) with these players registered.

        A stored tournament of that id is an error, or with ``replace`` is replaced by the new
        one (which keeps its creation time).
        """
        async with self._lock(guild, tournament_id):
            created = iso(self.clock())
            if await self.repository.exists(guild, tournament_id):
                known = await self.repository.load(guild, tournament_id) if replace else None
                if known is None:
                    raise LeagueServiceError(
                        "tournament.exists", guild=guild, tournament=tournament_id
                    )
                created = known.created_at
            state = tour.new_tournament(tournament_id, players, preset=preset, promotion=promotion)
            info = TournamentInfo(
                guild, tournament_id, state, name or tournament_id, organiser, created
            )
            await self.repository.save(info)
            return state

    async def tournament(self, guild: str, tournament_id: str) -> Tournament:
        """The stored state of a tournament."""
        return (await self._load_tournament(guild, tournament_id)).state

    async def tournament_info(self, guild: str, tournament_id: str) -> TournamentInfo:
        return await self._load_tournament(guild, tournament_id)

    async def tournaments(self, guild: str) -> list[TournamentInfo]:
        """The guild's tournaments, by id."""
        found = await self.repository.all()
        return sorted((t for t in found if t.guild_id == guild), key=lambda t: t.tournament_id)

    async def register_player(
        self, guild: str, tournament_id: str, player: str, *, group: str | None = None
    ) -> Tournament:
        """Register a player before round 1 (optionally choosing a strength group)."""
        return await self._change(
            guild, tournament_id, lambda t: tour.register(t, player, group=group)
        )

    async def choose_group(
        self, guild: str, tournament_id: str, player: str, group: str
    ) -> Tournament:
        """Self-selection of a strength group before round 1."""
        return await self._change(
            guild, tournament_id, lambda t: tour.choose_group(t, player, group)
        )

    async def set_groups(
        self,
        guild: str,
        tournament_id: str,
        groups: dict[str, Sequence[str]],
        *,
        note: str = "",
    ) -> Tournament:
        """The organiser sets the strength groups (between rounds)."""
        return await self._change(
            guild, tournament_id, lambda t: tour.set_groups(t, groups, note=note)
        )

    async def promote(
        self,
        guild: str,
        tournament_id: str,
        sizes: Sequence[int],
        names: Sequence[str] = (),
        *,
        note: str = "",
    ) -> Tournament:
        """Regroup by standings into a winners' group and others (between rounds)."""
        return await self._change(
            guild, tournament_id, lambda t: tour.promote(t, sizes, names, note=note)
        )

    async def start_round(self, guild: str, tournament_id: str) -> Tournament:
        """Seat the next round (fresh seating, or movement after a round)."""
        return await self._change(guild, tournament_id, tour.start_round)

    async def seating(self, guild: str, tournament_id: str) -> list[tour.Table]:
        """The tables of the round being played ([] between rounds)."""
        current = (await self.tournament(guild, tournament_id)).current_round
        return [] if current is None else list(current.tables)

    async def record_game(
        self,
        guild: str,
        tournament_id: str,
        table: int,
        tiles_left: Sequence[int],
        winner: int | None,
        *,
        claims: Sequence[int] | None = None,
        first_round_out: str | None = None,
        game_id: str | None = None,
    ) -> Tournament:
        """Enter the next game of a table by hand (tiles left per seat, the winner's seat)."""
        return await self._change(
            guild,
            tournament_id,
            lambda t: tour.record_game(
                t,
                table,
                tiles_left,
                winner,
                claims=claims,
                first_round_out=first_round_out,
                game_id=game_id,
            ),
        )

    async def end_game_early(
        self,
        guild: str,
        tournament_id: str,
        table: int,
        tiles_left: Sequence[int],
        *,
        claims: Sequence[int] | None = None,
        game_id: str | None = None,
        note: str = "",
    ) -> Tournament:
        """Director: end a table's game now, scored by tiles left."""
        return await self._change(
            guild,
            tournament_id,
            lambda t: tour.end_game_early(
                t, table, tiles_left, claims=claims, game_id=game_id, note=note
            ),
        )

    async def award_game(
        self,
        guild: str,
        tournament_id: str,
        table: int,
        mp: Sequence[float],
        *,
        game_id: str | None = None,
        note: str = "",
    ) -> Tournament:
        """Director: award MP at discretion (e.g. :func:`tour.slow_player_award`)."""
        return await self._change(
            guild,
            tournament_id,
            lambda t: tour.award_game(t, table, mp, game_id=game_id, note=note),
        )

    async def neutralise_game(
        self,
        guild: str,
        tournament_id: str,
        table: int,
        *,
        minus_half: bool = False,
        note: str = "",
    ) -> Tournament:
        """Director: neutralise a game that was not played (the table's average)."""
        return await self._change(
            guild,
            tournament_id,
            lambda t: tour.neutralise_game(t, table, minus_half=minus_half, note=note),
        )

    async def standings(
        self, guild: str, tournament_id: str, *, group: str | None = None
    ) -> list[TournamentRow]:
        """Players by percent of the maximum possible MP."""
        return tour.standings(await self.tournament(guild, tournament_id), group=group)

    # ------------------------------------------------------------------ tournament games

    async def link_game(self, link: TournamentGame) -> None:
        """Remember that a service game is a tournament game (before it is created), so its
        result goes to the tournament and not to the ladder, also after a restart."""
        self.links[link.game_id] = link
        await self.repository.link(link)

    async def tournament_games(self, guild: str, tournament_id: str) -> list[TournamentGame]:
        """The linked service games of a tournament, in playing order."""
        mine = [
            g
            for g in await self.repository.links()
            if g.guild_id == guild and g.tournament_id == tournament_id
        ]
        return sorted(mine, key=lambda g: (g.round, g.table, g.number))

    async def record_service_game(self, game_id: str) -> Tournament:
        """Enter a finished, linked service game into its tournament (idempotent).

        The result rows are mapped from the game's seats to the table's seats through the
        link. A game the organiser ended (or that was abandoned) is entered as ended early
        (tiles left, no winner); the first-round-out policy comes from the game's rules.
        """
        link = await self.repository.link_of(game_id)
        if link is None:
            raise LeagueServiceError("tournament.unlinked_game", game_id=game_id, tournament="?")
        rows = sorted(await self.games.results(game_id), key=lambda r: r.seat)
        record = await self.games.load_game(game_id)
        if not rows or record is None or record.status != "finished":
            raise LeagueServiceError("tournament.game_not_finished", game_id=game_id)
        policy = rules_field(record, "first_round_out", "normal")

        game = _GameOutcome.of_rows(rows)
        return await self._change(
            link.guild_id, link.tournament_id, lambda t: _enter(t, link, game, policy)
        )

    def result_kv_hook(self, record: GameRecord, result: Result) -> KvHook:
        """The result hook's part for a finished game linked to a tournament: a :class:`~bot.store.KvHook` run inside the transaction that finishes the
        game, which reads the tournament's row and writes it with the game entered (nothing
        when it is entered already, or when it does not fit the round: logged, the game stays
        finished and the organiser enters it). Only over the store's key/value rows (another
        repository gets a hook that writes nothing: :meth:`record_service_game` enters it)."""
        link = (self.linked or {}).get(record.id)
        if link is None or not isinstance(self.repository, KvTournamentRepository):
            return KvHook((), lambda _rows: [])  # entered by record_service_game instead
        key = f"{link.guild_id}:{link.tournament_id}"
        policy = rules_field(record, "first_round_out", "normal")
        game = _GameOutcome.of_result(result)

        def compute(rows: list[KvRow]) -> list[KvRow]:
            info = _stored_info(rows, key)
            if info is None:
                log.error("tournament %s of game %s is not stored", key, record.id)
                return []
            try:
                state = _enter(info.state, link, game, policy)
            except LeagueError:
                log.exception("game %s does not fit tournament %s", record.id, key)
                return []
            if state is info.state:
                return []
            return [KvRow(NS_TOURNAMENT, key, replace(info, state=state).to_dict())]

        return KvHook((KvRead(NS_TOURNAMENT, key),), compute)

    async def end_reason(self, game_id: str) -> str:
        """How a finished service game ended (``out``, ``ended``, ...; "" before it has)."""
        rows = await self.games.results(game_id)
        return rows[0].reason if rows else ""

    async def sync_tournament(self, guild: str, tournament_id: str) -> int:
        """Enter every finished linked game not entered yet (after a restart); the count."""
        entered = 0
        for link in await self.tournament_games(guild, tournament_id):
            record = await self.games.load_game(link.game_id)
            if record is None or record.status != "finished":
                continue
            t = await self.tournament(guild, tournament_id)
            known = {g.game_id for r in t.rounds for tb in r.tables for g in tb.games}
            if link.game_id in known:
                continue
            await self.record_service_game(link.game_id)
            entered += 1
        return entered


def _stored_info(rows: Sequence[KvRow], key: str) -> TournamentInfo | None:
    """The tournament stored under ``key`` among the rows a hook read (None: not there)."""
    for row in rows:
        if row.key == key and isinstance(row.value, dict) and "tournament_id" in row.value:
            return TournamentInfo.from_dict(row.value)
    return None


@dataclass(frozen=True)
class _GameOutcome:
    """What a tournament needs of a finished game, in the game's seat order."""

    tiles: tuple[int, ...]
    winners: tuple[bool, ...]
    reason: str
    details: dict

    @classmethod
    def of_rows(cls, rows: Sequence[ResultRow]) -> _GameOutcome:
        return cls(
            tiles=tuple(len(r.details.get("left", [])) for r in rows),
            winners=tuple(bool(r.winner) for r in rows),
            reason=rows[0].reason,
            details=dict(rows[0].details.get("game", {}) or {}),
        )

    @classmethod
    def of_result(cls, result: Result) -> _GameOutcome:
        seats = len(result.points)
        left = list(result.left) + [[]] * (seats - len(result.left))
        return cls(
            tiles=tuple(len(pieces) for pieces in left[:seats]),
            winners=tuple(result.winner == seat for seat in range(seats)),
            reason=result.reason,
            details=dict(result.details or {}),
        )


def _wrong_game(link: TournamentGame, actual: str) -> LeagueServiceError:
    """A linked game that is not the one its table plays next (``actual``: what it is)."""
    return LeagueServiceError(
        "tournament.wrong_game",
        game_id=link.game_id,
        expected=link.number + 1,
        table=link.table,
        round=link.round,
        actual=actual,
    )


def _enter(t: Tournament, link: TournamentGame, game: _GameOutcome, policy: str) -> Tournament:
    """Enter a finished linked game into its table (the same tournament when it is entered)."""
    for rnd in t.rounds:
        for table in rnd.tables:
            if any(entered.game_id == link.game_id for entered in table.games):
                return t  # already entered
    current = t.current_round
    if current is None or current.number != link.round:
        raise _wrong_game(link, "another round")
    table = current.table(link.table)
    if len(table.games) != link.number:
        raise _wrong_game(link, f"game {len(table.games) + 1}")
    return _enter_outcome(t, table, link, game, policy)


def _enter_outcome(
    t: Tournament,
    table: tour.Table,
    link: TournamentGame,
    game: _GameOutcome,
    policy: str,
) -> Tournament:
    """Map a finished game (game seat order) onto the table's seats."""
    to_game = [link.seats.index(player) for player in table.seats]  # table seat -> game seat
    tiles = [game.tiles[g] for g in to_game]
    details = game.details
    claims: list[int] | None = None
    if variant(t.preset).ladder is Ladder.STEIN_PLUS_MP and isinstance(details.get("claims"), list):
        claims = [int(details["claims"][g]) for g in to_game]
    winners = [i for i, g in enumerate(to_game) if game.winners[g]]
    winner = winners[0] if winners else None
    reason = game.reason
    if reason in ("ended", "abandoned"):
        return tour.end_game_early(
            t, table.number, tiles, claims=claims, game_id=link.game_id, note=f"game {reason}"
        )
    first_round = bool(details.get("first_round")) and winner is not None
    return tour.record_game(
        t,
        table.number,
        tiles,
        winner,
        claims=claims,
        first_round_out=policy if first_round and policy != "normal" else None,
        game_id=link.game_id,
    )
