"""The league over a :class:`~bot.store.Store`: ladder results, seasons, voids, Rommé sittings,
Rummy matches and tournaments, kept in the store's key/value table.

No SQL here: only the :class:`~bot.store.Store` interface (``kv_get`` / ``kv_put`` /
``kv_items``, plus ``load_game`` / ``results`` to read finished tournament games). The league
rules themselves are the pure modules' (:mod:`bot.league.ladder`, :mod:`~bot.league.presets`,
:mod:`~bot.league.kinds`, :mod:`~bot.league.tournament`). The storage parts: the ladder book
(:mod:`bot.league.book`: results, seasons, voids), the Rommé sittings
(:mod:`bot.league.sittings`), the Rummy matches (:mod:`bot.league.matches`) and the tournament
desk (:mod:`bot.league.tournaments`) over a tournament repository
(:mod:`bot.league.repository`); their records are :mod:`bot.league.records`. This module's
:class:`League` puts them together and runs the game service's result hook.

Key/value layout (values are the pure types' ``to_dict()``; every value carries its own ids, so
keys are only for lookup):

======================  =====================================  ===================================
namespace               key                                    value
======================  =====================================  ===================================
``ladder_result``       game id                                :class:`GameResult`
``season``              ``guild:preset:NNNNN``                 :class:`Season`
``void``                game id                                :class:`VoidRecord`
``sitting``             ``guild:channel:NNNNN``                :class:`RunningSitting` (Rommé)
``rummy_match``         ``guild:channel:NNNNN``                :class:`RunningMatch` (Rummy)
``tournament``          ``guild:tournament``                   :class:`TournamentInfo`
``tournament_game``     game id                                :class:`TournamentGame` (a link)
======================  =====================================  ===================================

Decisions (the rules are silent):

- **What counts.** A game counts for the ladder when it has a guild (or the League was given a
  ``default_guild``), its variant and its rules are ``ranked`` and it had enough players for its
  :class:`~engine.variants.Ladder` kind (:data:`bot.league.kinds.SCORING`: Stein and Stein Plus
  need 3 or 4, 2 is "casual, unranked", RULES.md). A preset the variant registry does not know is
  an error (``result.unknown_preset``), never silently left off. Computer players count like
  people (their ids, e.g. ``bot:medium:1``, appear on the ladder); pass ``count_bots=False`` to
  leave out games with a computer seat. Games linked to a tournament (:meth:`League.link_game`) are scored by the
  tournament and not put on the ladder.
- **Ended and abandoned games.** A game the organiser *ended* counts, scored exactly as the
  engine scored it (tiles left, penalties, rack values). An *abandoned* game (nobody played for
  days) does not count anywhere (ladder, sitting, match): there is no contest to rank. This is
  also what the Discord adapter decided.
- **Draws.** Stein/Rummikub stalemates count as scored by the engine; a drawn Rommé game enters
  the sitting with zero penalties (and the ladder as an all-way tie); a drawn Rummy hand is a
  :meth:`RummyMatch.add_draw` and gives no ladder row.
- **Seasons.** Every result belongs to a stored season. When a game finishes and its guild and
  preset have no open season, the hook opens the next one (season 1 the first time, starting
  when that game finished) in the same transaction. :meth:`League.end_season` archives; the next
  game then opens a new unnamed season, :meth:`League.start_season` opens a named one at once.
  Archived seasons stay viewable (:meth:`League.ladder` with ``season=N``).
- **Voiding** writes a ``void`` row (the result stays stored); every ladder is recomputed from
  scratch without the voided games, so it equals the ladder where they were never played.
  Unvoiding flips the row back; both are logged in the row. Voiding the game that won a Rummy
  match voids that match's ladder result. Sittings (money settlement) are not changed by voids.
- **Sittings and matches** are per lobby: guild + channel (the game's ``channel_id``; ``-``
  without one). A new game with a different set of players closes the running one and starts
  a new one; the same players in another seat order continue it (mapped by player id).
- **The hook is synchronous and reads the database in the finishing transaction.** The
  service calls :meth:`League.result_hook` when a command finishes a game; it answers at once
  (no I/O) with a :class:`~bot.store.KvHook` that the store runs INSIDE the transaction that
  finishes the game: it reads the guild's seasons of the preset, the lobby's sittings or matches
  and the game's tournament link there, and computes the rows from them. Nothing is cached, so
  every process sharing the database scores against the same seasons, sittings and matches
  (a season started in another process counts at the next game), and two games finishing at
  once in one lobby both land (the store serialises transactions reading the same rows). A
  game whose final write fails writes nothing and is scored afresh when it finishes again.
  Starting and ending seasons, ending sittings and voiding are read-modify-write transactions
  of their own (:meth:`~bot.store.Store.kv_update`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.league import kinds
from bot.league.book import LadderBook, season_row, seasons_in
from bot.league.matches import MatchBook
from bot.league.presets import GameMeta
from bot.league.records import (
    NO_CHANNEL,
    NS_RESULT,
    NS_TOURNAMENT_GAME,
    HookRows,
    TournamentInfo,
    iso,
    rules_field,
)
from bot.league.repository import KvTournamentRepository, LeagueStore, TournamentRepository
from bot.league.sittings import SittingBook
from bot.league.tournaments import TournamentDesk
from bot.store import GameRecord, KvHook, KvRead, KvRow
from engine.game import Result

# TournamentInfo, NS_RESULT and iso were imported from here by bot/discord/league.py (kept for it).
__all__ = ["NS_RESULT", "League", "TournamentInfo", "iso"]

log = logging.getLogger(__name__)


class League:
    """Ladder, seasons, voids, sittings, matches and tournaments over a store (a
    :class:`~bot.league.repository.LeagueStore`, e.g. :class:`~bot.store.Store`).

    The parts: :attr:`book` (:class:`~bot.league.book.LadderBook`: results, seasons, voids,
    ladders), :attr:`sitting_book` (Rommé sittings), :attr:`match_book` (Rummy matches) and
    :attr:`desk` (:class:`~bot.league.tournaments.TournamentDesk`: tournaments over
    ``tournaments``, a :class:`~bot.league.repository.TournamentRepository`, by default the
    store's key/value rows). The League itself runs the result hook and keeps the parts' public
    methods as its own, for its callers.

    ``clock`` gives POSIX seconds for the times of seasons, voids and tournaments (the hook
    uses the service's ``now``). ``default_guild`` is the guild of games without one (console
    games); ``None`` leaves them off the ladder.
    """

    def __init__(
        self,
        store: LeagueStore,
        *,
        default_guild: str | None = None,
        count_bots: bool = True,
        clock: Callable[[], float] = time.time,
        tournaments: TournamentRepository | None = None,
    ) -> None:
        self.store = store
        self.default_guild = default_guild
        self.count_bots = count_bots
        self.clock = clock
        now = self._now
        self.book = LadderBook(store, now)
        self.sitting_book = SittingBook(store, now)
        self.match_book = MatchBook(store)
        self.desk = TournamentDesk(tournaments or KvTournamentRepository(store), store, now)
        # the parts' methods, as the League's (its callers use these)
        book, desk = self.book, self.desk
        self.results = book.results
        self.result_season = book.result_season
        self.voided = book.voided
        self.guilds = book.guilds
        self.presets = book.presets
        self.season_number = book.season_number
        self.ladder = book.ladder
        self.player_stats = book.player_stats
        self.void_game = book.void_game
        self.unvoid_game = self.unvoid = book.unvoid_game
        self.seasons = book.seasons
        self.start_season = book.start_season
        self.end_season = book.end_season
        self.sitting = self.sitting_book.sitting
        self.end_sitting = self.sitting_book.end_sitting
        self.sittings = self.sitting_book.sittings
        self.rummy_match = self.match_book.rummy_match
        self.save_tournament = desk.save_tournament
        self.create_tournament = desk.create_tournament
        self.tournament = desk.tournament
        self.tournament_info = desk.tournament_info
        self.tournaments = desk.tournaments
        self.register_player = desk.register_player
        self.choose_group = desk.choose_group
        self.set_groups = desk.set_groups
        self.promote = desk.promote
        self.start_round = desk.start_round
        self.seating = desk.seating
        self.record_game = desk.record_game
        self.end_game_early = desk.end_game_early
        self.award_game = desk.award_game
        self.neutralise_game = desk.neutralise_game
        self.standings = desk.standings
        self.link_game = desk.link_game
        self.tournament_games = desk.tournament_games
        self.record_service_game = desk.record_service_game
        self.end_reason = desk.end_reason
        self.sync_tournament = desk.sync_tournament

    def _now(self) -> float:
        return self.clock()

    async def open(self) -> League:
        """Get the league ready (the tournament desk loads its links). The ladder parts read
        the store at every use and need nothing here."""
        await self.desk.load()
        return self

    # ------------------------------------------------------------------ the result hook

    def result_hook(self, record: GameRecord, result: Result, at: float) -> HookRows:
        """The service's league port (``at``: when the game finished, by the service's clock):
        what a finished game adds, as a :class:`~bot.store.KvHook` in
        :attr:`HookRows.kv_hooks` that the store runs inside the transaction that finishes the
        game (see the module docstring). Synchronous and I/O-free; a game that does not count
        gets no hook. A preset the registry does not know raises ``result.unknown_preset``.

        Stein/Stein Plus/Rummikub/Rommé: a ``ladder_result`` row (plus, for Rommé, the lobby's
        sitting); classic Rummy: the lobby's match, and a ladder row only when the match is won.
        Also the guild's next season when none is open.
        """
        guild = record.guild_id if record.guild_id is not None else self.default_guild
        if record.id in (self.desk.linked or {}):  # scored by its tournament, not the ladder
            return HookRows(kv_hooks=[self.desk.result_kv_hook(record, result)])
        if guild is None or result.reason == "abandoned":
            return HookRows()
        guild = str(guild)
        players = [seat.player_id for seat in record.seats]
        if not rules_field(record, "ranked", True):
            return HookRows()
        if not self.count_bots and any(seat.is_bot for seat in record.seats):
            return HookRows()
        found = kinds.known(record.preset)  # not registered: an error, never silently unranked
        if not found.ranked:  # the variant says so
            return HookRows()
        scoring = kinds.SCORING[found.ladder]
        if len(players) < scoring.min_players:
            return HookRows()
        channel = str(record.channel_id) if record.channel_id is not None else NO_CHANNEL
        reads = [KvRead(NS_TOURNAMENT_GAME, record.id), self.book.seasons_read(guild, found.name)]
        if scoring.from_game is None:
            reads.append(self.match_book.lobby_read(guild, channel))
        elif scoring.sitting:
            reads.append(self.sitting_book.lobby_read(guild, channel))

        def compute(stored: list[KvRow]) -> list[KvRow]:
            try:
                return self.rows_for(record, result, at, stored, guild=guild, channel=channel)
            except Exception:  # never fail the game's final write: it finishes unscored
                log.exception("league rows of game %s failed; the game is not scored", record.id)
                return []

        return HookRows(kv_hooks=[KvHook(tuple(reads), compute)])

    def rows_for(
        self,
        record: GameRecord,
        result: Result,
        at: float,
        stored: list[KvRow],
        *,
        guild: str,
        channel: str,
    ) -> list[KvRow]:
        """The rows a finished game adds, given the rows ``stored`` now (its hook's reads)."""
        if any(r.namespace == NS_TOURNAMENT_GAME and r.key == record.id for r in stored):
            return []  # scored by its tournament
        found = kinds.known(record.preset)
        scoring = kinds.SCORING[found.ladder]
        players = [seat.player_id for seat in record.seats]
        finished_at = iso(at)
        known = seasons_in(stored, guild, found.name)
        season, new_season = self.book.season_for(known, guild, found.name, finished_at)
        meta = GameMeta(record.id, guild, season.number, finished_at)
        rows: list[KvRow] = []
        if scoring.from_game is None:  # only a whole match counts
            targets = dict(found.rules.match_target_by_players)
            rows += self.match_book.rows(guild, channel, meta, players, result, stored, targets)
        else:
            game = scoring.from_game(found.name, meta, players, result)
            rows.append(KvRow(NS_RESULT, record.id, game.to_dict()))
            if scoring.sitting:
                rows += self.sitting_book.rows(guild, channel, meta, players, result, stored)
        if new_season is not None:
            rows.insert(0, season_row(new_season))
        return rows

    async def record_result(self, record: GameRecord, result: Result, at: float) -> list[KvRow]:
        """Score a finished game outside the service (a tool, a test): the hook's rows, read,
        computed and written in one transaction of their own. Returns the rows written."""
        written: list[KvRow] = []
        for hook in self.result_hook(record, result, at).kv_hooks:
            written += await self.store.kv_update(hook)
        return written
