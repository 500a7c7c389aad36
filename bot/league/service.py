"""The league over a :class:`~bot.store.Store`: ladder results, seasons, voids, Rommé sittings,
Rummy matches and tournaments, kept in the store's key/value table.

No SQL here: only the :class:`~bot.store.Store` interface (``kv_get`` / ``kv_put`` /
``kv_items``, plus ``load_game`` / ``results`` to read finished tournament games). The league
rules themselves are the pure modules' (:mod:`bot.league.ladder`, :mod:`~bot.league.presets`,
:mod:`~bot.league.tournament`); this module only stores their values and wires the game
service's result hook to them.

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
  ``default_guild``), its rules are ``ranked`` and, for ``stein`` / ``stein_plus``, it had 3 or 4
  players (2 is "casual, unranked", RULES.md). Computer players count like people (their ids,
  e.g. ``bot:medium:1``, appear on the ladder); pass ``count_bots=False`` to leave out games
  with a computer seat. Games linked to a tournament (:meth:`League.link_game`) are scored by the
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
- **The hook is synchronous** (it runs inside the store transaction that finishes the game), so
  the seasons, running sittings/matches and tournament links it needs are cached in memory:
  call :meth:`League.open` once before the service starts. The hook returns its rows as
  :class:`HookRows`; the cache changes only when their :meth:`HookRows.committed` is called,
  which the game service does once the transaction that stores them has committed. A game
  whose final write fails leaves the cache as it was and is scored afresh when it finishes again
  (and if a first try did reach the cache, the sitting/match entry of that game id is replaced,
  not added twice). One process per database is assumed, as for the game service.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, ClassVar

from bot.league import tournament as tour
from bot.league.errors import MESSAGES as _LEAGUE_MESSAGES
from bot.league.errors import LeagueError
from bot.league.ladder import (
    GameResult,
    Ladder,
    Season,
    SeasonChange,
    StandingRow,
    compute_ladder,
    current_season,
    end_season,
    select_results,
    start_season,
)
from bot.league.presets import (
    PRESETS,
    RUMMY_TARGETS,
    GameMeta,
    RummyMatch,
    Sitting,
    result_from_romme,
    result_from_rummikub,
    result_from_rummy_match,
    result_from_stein,
)
from bot.league.tournament import Promotion, Tournament, TournamentRow
from bot.store import GameRecord, KvRow, ResultRow, Store
from engine.game import Result

NS_RESULT = "ladder_result"
NS_SEASON = "season"
NS_VOID = "void"
NS_SITTING = "sitting"
NS_MATCH = "rummy_match"
NS_TOURNAMENT = "tournament"
NS_TOURNAMENT_GAME = "tournament_game"
NO_CHANNEL = "-"

# --------------------------------------------------------------------------- errors

SERVICE_MESSAGES: dict[str, tuple[str, str]] = {
    "league.not_open": (
        "The league is not loaded yet (call League.open() first).",
        "Die Liga ist noch nicht geladen (zuerst League.open() aufrufen).",
    ),
    "league.unknown_game": (
        "Game {game_id} is not on the ladder of server {guild}.",
        "Spiel {game_id} steht nicht in der Rangliste von Server {guild}.",
    ),
    "league.already_voided": (
        "Game {game_id} is already voided.",
        "Spiel {game_id} ist bereits gestrichen.",
    ),
    "league.not_voided": (
        "Game {game_id} is not voided.",
        "Spiel {game_id} ist nicht gestrichen.",
    ),
    "season.none_open": (
        "{preset} has no open season on server {guild}.",
        "{preset} hat auf Server {guild} keine laufende Saison.",
    ),
    "season.unknown": (
        "{preset} has no season {number} on server {guild}.",
        "{preset} hat auf Server {guild} keine Saison {number}.",
    ),
    "tournament.unknown": (
        'There is no tournament "{tournament}" on server {guild}.',
        'Es gibt kein Turnier "{tournament}" auf Server {guild}.',
    ),
    "tournament.exists": (
        'The tournament "{tournament}" already exists on server {guild}.',
        'Das Turnier "{tournament}" gibt es auf Server {guild} schon.',
    ),
    "tournament.unlinked_game": (
        "Game {game_id} is not a game of tournament {tournament}.",
        "Spiel {game_id} ist kein Spiel des Turniers {tournament}.",
    ),
    "tournament.game_not_finished": (
        "Game {game_id} has not finished yet.",
        "Spiel {game_id} ist noch nicht beendet.",
    ),
    "tournament.wrong_game": (
        "Game {game_id} was set up as game {expected} of table {table} in round {round}, "
        "but that table is at {actual}.",
        "Spiel {game_id} war Spiel {expected} an Tisch {table} in Runde {round}, "
        "der Tisch ist aber bei {actual}.",
    ),
    "tournament.service": (
        "Game {game_id} could not be played: {why}.",
        "Spiel {game_id} konnte nicht gespielt werden: {why}.",
    ),
}


class LeagueServiceError(LeagueError):
    """A rejected league operation of the storage layer (a :class:`LeagueError`); its own codes
    are :data:`SERVICE_MESSAGES`, kept here because ``errors.py`` belongs to the pure package."""

    catalogue: ClassVar[dict[str, tuple[str, str]]] = {**_LEAGUE_MESSAGES, **SERVICE_MESSAGES}


# --------------------------------------------------------------------------- helpers


def iso(seconds: float) -> str:
    """POSIX seconds (the service's clock) as the league's ISO 8601 UTC text."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()


def _check_preset(preset: str) -> None:
    if preset not in PRESETS:
        raise LeagueError("result.unknown_preset", preset=preset, choices=", ".join(PRESETS))


def _num(number: int) -> str:
    return f"{number:05d}"


def _rules_field(record: GameRecord, name: str, default: Any) -> Any:
    try:
        return json.loads(record.rules_json).get(name, default)
    except (TypeError, ValueError, AttributeError):
        return default


def game_result(preset: str, meta: GameMeta, players: Sequence[str], result: Result) -> GameResult:
    """The ladder result of one finished single game, as the engine scored it.

    ``stein`` / ``stein_plus``: the engine's points are SMP (+ CMP), first-round-out policy
    included, so SMP = points - claims; ``rummikub``: signed points; ``romme``: penalties.
    Classic ``rummy`` has no single-game result (see :meth:`League.result_hook`).
    """
    points = [float(p) for p in result.points]
    if preset in ("stein", "stein_plus"):
        raw = result.details.get("claims") if preset == "stein_plus" else None
        claims = [int(c) for c in raw] if isinstance(raw, list) else [0] * len(players)
        return result_from_stein(
            meta,
            players,
            [len(left) for left in result.left],
            result.winner,
            claims=claims,
            smp=[p - c for p, c in zip(points, claims, strict=True)],
            preset=preset,
        )
    if preset == "rummikub":
        return result_from_rummikub(meta, players, points)  # type: ignore[arg-type]
    if preset == "romme":
        return result_from_romme(meta, players, [round(p) for p in points])
    raise LeagueError("result.unknown_preset", preset=preset, choices=", ".join(PRESETS))


# --------------------------------------------------------------------------- stored values


@dataclass(frozen=True)
class VoidRecord:
    """Whether a ladder game is voided, with the log of who voided / unvoided it when."""

    game_id: str
    guild_id: str
    voided: bool
    log: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "guild_id": self.guild_id,
            "voided": self.voided,
            "log": [dict(entry) for entry in self.log],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VoidRecord:
        return cls(
            game_id=data["game_id"],
            guild_id=data["guild_id"],
            voided=bool(data["voided"]),
            log=tuple(data.get("log", ())),
        )


class _InLobby:
    """A numbered series of one lobby (guild + channel): its store key and its lobby."""

    guild_id: str
    channel_id: str
    number: int

    @property
    def key(self) -> str:
        return f"{self.guild_id}:{self.channel_id}:{_num(self.number)}"

    @property
    def lobby(self) -> tuple[str, str]:
        return (self.guild_id, self.channel_id)


@dataclass(frozen=True)
class RunningSitting(_InLobby):
    """A Rommé sitting of one lobby (guild + channel), numbered per lobby.

    ``game_ids[i]`` is the game behind ``sitting.games[i]``; ``closed_at`` is set once the
    sitting is over (new players, or :meth:`League.end_sitting`).
    """

    guild_id: str
    channel_id: str
    number: int
    sitting: Sitting
    game_ids: tuple[str, ...] = ()
    started_at: str = ""
    closed_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "guild_id": self.guild_id,
            "channel_id": self.channel_id,
            "number": self.number,
            "sitting": self.sitting.to_dict(),
            "game_ids": list(self.game_ids),
            "started_at": self.started_at,
            "closed_at": self.closed_at,
            "totals": self.sitting.totals,
            "settlement": self.sitting.settlement.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunningSitting:
        return cls(
            guild_id=data["guild_id"],
            channel_id=data["channel_id"],
            number=data["number"],
            sitting=Sitting.from_dict(data["sitting"]),
            game_ids=tuple(data["game_ids"]),
            started_at=data["started_at"],
            closed_at=data.get("closed_at"),
        )


@dataclass(frozen=True)
class RunningMatch(_InLobby):
    """A classic Rummy match of one lobby; ``game_ids[i]`` played ``match.hands[i]``.

    ``closed_at`` is set when the match was won (``result_game`` = the game that won it and
    holds its ladder result) or given up for new players.
    """

    guild_id: str
    channel_id: str
    number: int
    match: RummyMatch
    game_ids: tuple[str, ...] = ()
    started_at: str = ""
    closed_at: str | None = None
    result_game: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "guild_id": self.guild_id,
            "channel_id": self.channel_id,
            "number": self.number,
            "match": self.match.to_dict(),
            "game_ids": list(self.game_ids),
            "started_at": self.started_at,
            "closed_at": self.closed_at,
            "result_game": self.result_game,
            "totals": self.match.totals,
            "winner": self.match.winner,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunningMatch:
        return cls(
            guild_id=data["guild_id"],
            channel_id=data["channel_id"],
            number=data["number"],
            match=RummyMatch.from_dict(data["match"]),
            game_ids=tuple(data["game_ids"]),
            started_at=data["started_at"],
            closed_at=data.get("closed_at"),
            result_game=data.get("result_game"),
        )


@dataclass(frozen=True)
class TournamentInfo:
    """A stored tournament: its guild, name, organiser and pure :class:`Tournament` state.

    The stored dict holds ``name``, ``organiser`` and ``state`` like the Discord adapter's
    one-tournament-per-guild row, plus the ids.
    """

    guild_id: str
    tournament_id: str
    state: Tournament
    name: str = ""
    organiser: str = ""
    created_at: str = ""

    @property
    def key(self) -> str:
        return f"{self.guild_id}:{self.tournament_id}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "guild_id": self.guild_id,
            "tournament_id": self.tournament_id,
            "name": self.name,
            "organiser": self.organiser,
            "created_at": self.created_at,
            "state": self.state.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentInfo:
        return cls(
            guild_id=data["guild_id"],
            tournament_id=data["tournament_id"],
            state=Tournament.from_dict(data["state"]),
            name=data.get("name", ""),
            organiser=data.get("organiser", ""),
            created_at=data.get("created_at", ""),
        )


@dataclass(frozen=True)
class TournamentGame:
    """Link from a service game to its place in a tournament.

    ``seats`` are the tournament players in the game's seat order (the game's own seats may be
    computer players with other ids); ``starter`` is the player who must move first.
    """

    game_id: str
    guild_id: str
    tournament_id: str
    round: int
    table: int
    number: int
    seats: tuple[str, ...]
    starter: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "guild_id": self.guild_id,
            "tournament_id": self.tournament_id,
            "round": self.round,
            "table": self.table,
            "number": self.number,
            "seats": list(self.seats),
            "starter": self.starter,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentGame:
        return cls(
            game_id=data["game_id"],
            guild_id=data["guild_id"],
            tournament_id=data["tournament_id"],
            round=data["round"],
            table=data["table"],
            number=data["number"],
            seats=tuple(data["seats"]),
            starter=data["starter"],
        )


@dataclass(frozen=True)
class PresetStats:
    """One player's figures in one preset: the shown season and the whole career."""

    preset: str
    season: int
    season_row: StandingRow | None
    career: StandingRow
    seasons: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "season": self.season,
            "season_row": None if self.season_row is None else self.season_row.to_dict(),
            "career": self.career.to_dict(),
            "seasons": list(self.seasons),
        }


@dataclass(frozen=True)
class PlayerStats:
    """A player's figures on every ladder of a guild (voided games left out)."""

    guild_id: str
    player_id: str
    presets: tuple[PresetStats, ...] = ()

    @property
    def games(self) -> int:
        return sum(stats.career.games for stats in self.presets)

    def to_dict(self) -> dict[str, Any]:
        return {
            "guild_id": self.guild_id,
            "player_id": self.player_id,
            "games": self.games,
            "presets": [stats.to_dict() for stats in self.presets],
        }


@dataclass
class _Cache:
    """What the synchronous hook needs, loaded by :meth:`League.open`."""

    seasons: dict[tuple[str, str], list[Season]] = field(default_factory=dict)
    sittings: dict[tuple[str, str], RunningSitting] = field(default_factory=dict)
    matches: dict[tuple[str, str], RunningMatch] = field(default_factory=dict)
    links: dict[str, TournamentGame] = field(default_factory=dict)


class HookRows(list[KvRow]):
    """The result hook's rows, plus what the league's cache learns once they are stored:
    call :meth:`committed` after the transaction that writes them has committed (the game
    service does); until then the cache is unchanged, so a failed write changes nothing."""

    def __init__(self, rows: Iterable[KvRow] = (), steps: Iterable[Callable[[], None]] = ()):
        super().__init__(rows)
        self.steps = list(steps)

    def committed(self) -> None:
        """Apply the cache changes (once)."""
        steps, self.steps = self.steps, []
        for step in steps:
            step()


# --------------------------------------------------------------------------- the league


class League:
    """Ladder, seasons, voids, sittings, matches and tournaments over a :class:`Store`.

    ``clock`` gives POSIX seconds for the times of seasons, voids and tournaments (the hook
    uses the service's ``now``). ``default_guild`` is the guild of games without one (console
    games); ``None`` leaves them off the ladder.
    """

    def __init__(
        self,
        store: Store,
        *,
        default_guild: str | None = None,
        count_bots: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.default_guild = default_guild
        self.count_bots = count_bots
        self.clock = clock
        self._cache: _Cache | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------------ loading

    async def open(self) -> League:
        """Load what the result hook needs (seasons, running sittings/matches, tournament
        links). Call once before the game service finishes any game."""
        cache = _Cache()
        for row in await self.store.kv_items(NS_SEASON):
            season = Season.from_dict(row.value)
            cache.seasons.setdefault((season.guild_id, season.preset), []).append(season)
        for row in await self.store.kv_items(NS_SITTING):
            sitting = RunningSitting.from_dict(row.value)
            _keep_latest(cache.sittings, sitting)
        for row in await self.store.kv_items(NS_MATCH):
            match = RunningMatch.from_dict(row.value)
            _keep_latest(cache.matches, match)
        for row in await self.store.kv_items(NS_TOURNAMENT_GAME):
            link = TournamentGame.from_dict(row.value)
            cache.links[link.game_id] = link
        self._cache = cache
        return self

    @property
    def cache(self) -> _Cache:
        if self._cache is None:
            raise LeagueServiceError("league.not_open")
        return self._cache

    def _lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    # ------------------------------------------------------------------ the result hook

    def result_hook(self, record: GameRecord, result: Result, now: float) -> HookRows:
        """The service's ``ResultHook``: the rows a finished game adds, written in the same
        transaction that finishes it. Synchronous and I/O-free (reads the cache only; the
        cache changes when :meth:`HookRows.committed` is called after the commit).

        Stein/Stein Plus/Rummikub/Rommé: a ``ladder_result`` row (plus, for Rommé, the lobby's
        sitting); classic Rummy: the lobby's match, and a ladder row only when the match is won.
        Also the guild's next season when none is open. See the module docstring for what
        counts.
        """
        cache = self.cache
        guild = record.guild_id if record.guild_id is not None else self.default_guild
        if guild is None or record.id in cache.links or result.reason == "abandoned":
            return HookRows()
        guild = str(guild)
        players = [seat.player_id for seat in record.seats]
        if not _rules_field(record, "ranked", True):
            return HookRows()
        if not self.count_bots and any(seat.is_bot for seat in record.seats):
            return HookRows()
        if record.preset in ("stein", "stein_plus") and len(players) < 3:
            return HookRows()
        if record.preset not in PRESETS or len(players) < 2:
            return HookRows()
        finished_at = iso(now)
        season, new_season = self._season_for(guild, record.preset, finished_at)
        meta = GameMeta(record.id, guild, season.number, finished_at)
        channel = str(record.channel_id) if record.channel_id is not None else NO_CHANNEL
        rows: list[KvRow] = []
        commit: list[Callable[[], None]] = []
        if record.preset == "rummy":
            rows += self._match_rows(guild, channel, meta, players, result, commit)
        else:
            rows.append(
                KvRow(
                    NS_RESULT,
                    record.id,
                    game_result(record.preset, meta, players, result).to_dict(),
                )
            )
            if record.preset == "romme":
                rows += self._sitting_rows(guild, channel, meta, players, result, commit)
        if new_season is not None:
            rows.insert(0, _season_row(new_season))
            commit.insert(0, lambda: self._season_stored(new_season))
        return HookRows(rows, commit)

    def _season_stored(self, season: Season) -> None:
        """A season opened by the hook is stored: the cache knows it (once)."""
        known = self.cache.seasons.setdefault((season.guild_id, season.preset), [])
        kept = [s for s in known if s.number != season.number]
        known[:] = sorted([*kept, season], key=lambda s: s.number)

    def _season_for(self, guild: str, preset: str, at: str) -> tuple[Season, Season | None]:
        """The open season (and None), or the season to open now (returned twice)."""
        known = self.cache.seasons.get((guild, preset), [])
        season = current_season(known, guild, preset)
        if season is not None:
            return season, None
        opened = start_season(known, guild_id=guild, preset=preset, at=at).started
        return opened, opened

    def _sitting_rows(
        self,
        guild: str,
        channel: str,
        meta: GameMeta,
        players: list[str],
        result: Result,
        commit: list[Callable[[], None]],
    ) -> list[KvRow]:
        if not 2 <= len(players) <= 6:
            return []
        rows: list[KvRow] = []
        running = self.cache.sittings.get((guild, channel))
        if (
            running is not None
            and running.closed_at is None
            and sorted(running.sitting.players) != sorted(players)
        ):
            running = replace(running, closed_at=meta.finished_at)
            rows.append(KvRow(NS_SITTING, running.key, running.to_dict()))
        if running is None or running.closed_at is not None:
            number = running.number + 1 if running is not None else 1
            running = RunningSitting(
                guild, channel, number, Sitting(players=tuple(players)), (), meta.finished_at
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
        final = running
        commit.append(lambda: self.cache.sittings.__setitem__((guild, channel), final))
        return rows

    def _match_rows(
        self,
        guild: str,
        channel: str,
        meta: GameMeta,
        players: list[str],
        result: Result,
        commit: list[Callable[[], None]],
    ) -> list[KvRow]:
        if len(players) not in RUMMY_TARGETS:
            return []
        rows: list[KvRow] = []
        running = self.cache.matches.get((guild, channel))
        if running is not None and running.closed_at is None and meta.game_id in running.game_ids:
            cut = running.game_ids.index(meta.game_id)  # a failed final write, tried again
            m = running.match
            running = replace(
                running,
                match=RummyMatch(m.players, m.target, m.hands[:cut]),
                game_ids=running.game_ids[:cut],
            )
        if (
            running is not None
            and running.closed_at is None
            and sorted(running.match.players) != sorted(players)
        ):
            running = replace(running, closed_at=meta.finished_at)
            rows.append(KvRow(NS_MATCH, running.key, running.to_dict()))
        if running is None or running.closed_at is not None:
            number = running.number + 1 if running is not None else 1
            target = result.details.get("match_target") or RUMMY_TARGETS[len(players)]
            running = RunningMatch(
                guild,
                channel,
                number,
                RummyMatch(players=tuple(players), target=int(target)),
                (),
                meta.finished_at,
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
        final = running
        commit.append(lambda: self.cache.matches.__setitem__((guild, channel), final))
        return rows

    # ------------------------------------------------------------------ results and ladder

    async def results(
        self, guild: str | None = None, preset: str | None = None, season: int | None = None
    ) -> list[GameResult]:
        """Stored ladder results (voided ones included), in replay order."""
        found = [GameResult.from_dict(row.value) for row in await self.store.kv_items(NS_RESULT)]
        return select_results(found, guild_id=guild, preset=preset, season=season)

    async def voided(self, guild: str) -> set[str]:
        """Ids of the guild's voided games."""
        rows = await self.store.kv_items(NS_VOID)
        return {
            row.value["game_id"]
            for row in rows
            if row.value.get("guild_id") == guild and row.value.get("voided")
        }

    async def guilds(self) -> list[str]:
        """Guilds with at least one season (every result opens one)."""
        return sorted({guild for guild, _ in self.cache.seasons})

    async def presets(self, guild: str) -> list[str]:
        """Presets with at least one season in the guild."""
        return sorted(preset for g, preset in self.cache.seasons if g == guild)

    def season_number(self, guild: str, preset: str, season: int | None = None) -> int:
        """The season a ladder shows: ``season`` if it exists (else an error); for None the
        open season, else the last one, else 1."""
        known = self.cache.seasons.get((guild, preset), [])
        if season is None:
            current = current_season(known, guild, preset)
            if current is not None:
                return current.number
            return max((s.number for s in known), default=1)
        if not any(s.number == season for s in known):
            raise LeagueServiceError("season.unknown", guild=guild, preset=preset, number=season)
        return season

    async def ladder(
        self,
        guild: str,
        preset: str,
        season: int | None = None,
        *,
        min_games: int = 0,
        order: str = "percent",
        trend_games: int = 1,
    ) -> Ladder:
        """A season's ladder, recomputed from the stored results without voided games.

        ``season=None``: the open season, or the last one when none is open (season 1 while
        the guild has none: an empty ladder).
        """
        _check_preset(preset)
        number = self.season_number(guild, preset, season)
        chosen = await self.results(guild, preset, number)
        return compute_ladder(
            chosen,
            min_games=min_games,
            order=order,
            voided=await self.voided(guild),
            trend_games=trend_games,
        )

    async def player_stats(self, guild: str, player_id: str) -> PlayerStats:
        """The player's current-season row and career row per preset they played."""
        voided = await self.voided(guild)
        everything = await self.results(guild)
        stats: list[PresetStats] = []
        for preset in PRESETS:
            mine = [
                r
                for r in everything
                if r.preset == preset and r.game_id not in voided and player_id in r.player_ids
            ]
            if not mine:
                continue
            all_games = [r for r in everything if r.preset == preset]
            career = compute_ladder(all_games, voided=voided).row(player_id)
            number = self.season_number(guild, preset, None)
            in_season = [r for r in all_games if r.season == number]
            season_ladder = compute_ladder(in_season, voided=voided)
            try:
                season_row: StandingRow | None = season_ladder.row(player_id)
            except LeagueError:
                season_row = None
            seasons = tuple(sorted({r.season for r in mine}))
            stats.append(PresetStats(preset, number, season_row, career, seasons))
        return PlayerStats(guild, player_id, tuple(stats))

    # ------------------------------------------------------------------ voiding

    async def _void_flag(self, guild: str, game_id: str, by: str, voided: bool) -> VoidRecord:
        async with self._lock(f"void:{game_id}"):
            stored = await self.store.kv_get(NS_RESULT, game_id)
            if stored is None or stored.get("guild_id") != guild:
                raise LeagueServiceError("league.unknown_game", game_id=game_id, guild=guild)
            raw = await self.store.kv_get(NS_VOID, game_id)
            record = VoidRecord.from_dict(raw) if raw else VoidRecord(game_id, guild, False)
            if record.voided == voided:
                code = "league.already_voided" if voided else "league.not_voided"
                raise LeagueServiceError(code, game_id=game_id)
            entry = {"action": "void" if voided else "unvoid", "by": by, "at": iso(self.clock())}
            record = replace(record, voided=voided, log=(*record.log, entry))
            await self.store.kv_put([KvRow(NS_VOID, game_id, record.to_dict())])
            return record

    async def void_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Void a ladder game: every ladder is then as if it had never been played."""
        return await self._void_flag(guild, game_id, by, True)

    async def unvoid_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Count a voided game again."""
        return await self._void_flag(guild, game_id, by, False)

    unvoid = unvoid_game

    # ------------------------------------------------------------------ seasons

    async def seasons(self, guild: str, preset: str) -> list[Season]:
        """Every season of a guild and preset, oldest first (archived ones included)."""
        return sorted(self.cache.seasons.get((guild, preset), []), key=lambda s: s.number)

    async def _put_seasons(self, guild: str, preset: str, changed: Iterable[Season]) -> None:
        """Swap ``changed`` into the cache now (the hook sees it at once), then store it."""
        key = (guild, preset)
        before = list(self.cache.seasons.get(key, []))
        changed = list(changed)
        numbers = {s.number for s in changed}
        self.cache.seasons[key] = [s for s in before if s.number not in numbers] + changed
        try:
            await self.store.kv_put([_season_row(s) for s in changed])
        except BaseException:
            self.cache.seasons[key] = before
            raise

    async def start_season(
        self, guild: str, preset: str, name: str = "", *, at: float | None = None
    ) -> SeasonChange:
        """Archive the open season (if any) and open the next, named ``name``."""
        _check_preset(preset)
        moment = iso(self.clock() if at is None else at)
        change = start_season(
            self.cache.seasons.get((guild, preset), []),
            guild_id=guild,
            preset=preset,
            at=moment,
            name=name,
        )
        await self._put_seasons(guild, preset, [s for s in (change.ended, change.started) if s])
        return change

    async def end_season(self, guild: str, preset: str, *, at: float | None = None) -> Season:
        """Archive the open season; its ladder stays viewable by number."""
        _check_preset(preset)
        current = current_season(self.cache.seasons.get((guild, preset), []), guild, preset)
        if current is None:
            raise LeagueServiceError("season.none_open", guild=guild, preset=preset)
        ended = end_season(current, iso(self.clock() if at is None else at))
        await self._put_seasons(guild, preset, [ended])
        return ended

    # ------------------------------------------------------------------ sittings and matches

    async def sitting(self, guild: str, channel: str | None) -> RunningSitting | None:
        """The lobby's latest Rommé sitting (open or closed), or None."""
        return self.cache.sittings.get((guild, channel or NO_CHANNEL))

    async def rummy_match(self, guild: str, channel: str | None) -> RunningMatch | None:
        """The lobby's latest Rummy match (running or over), or None."""
        return self.cache.matches.get((guild, channel or NO_CHANNEL))

    async def end_sitting(self, guild: str, channel: str | None) -> RunningSitting | None:
        """Close the lobby's running sitting (its settlement is final); None if none runs."""
        running = await self.sitting(guild, channel)
        if running is None or running.closed_at is not None:
            return None
        closed = replace(running, closed_at=iso(self.clock()))
        self.cache.sittings[running.lobby] = closed
        await self.store.kv_put([KvRow(NS_SITTING, closed.key, closed.to_dict())])
        return closed

    async def sittings(self, guild: str) -> list[RunningSitting]:
        """Every stored sitting of a guild (all lobbies, archived ones included)."""
        rows = await self.store.kv_items(NS_SITTING)
        found = [RunningSitting.from_dict(r.value) for r in rows]
        return [s for s in found if s.guild_id == guild]

    async def rummy_matches(self, guild: str) -> list[RunningMatch]:
        """Every stored Rummy match of a guild."""
        rows = await self.store.kv_items(NS_MATCH)
        found = [RunningMatch.from_dict(r.value) for r in rows]
        return [m for m in found if m.guild_id == guild]

    # ------------------------------------------------------------------ tournaments

    async def _load_tournament(self, guild: str, tournament_id: str) -> TournamentInfo:
        raw = await self.store.kv_get(NS_TOURNAMENT, f"{guild}:{tournament_id}")
        if not raw or "tournament_id" not in raw:
            raise LeagueServiceError("tournament.unknown", guild=guild, tournament=tournament_id)
        return TournamentInfo.from_dict(raw)

    async def _save_tournament(self, info: TournamentInfo) -> None:
        await self.store.kv_put([KvRow(NS_TOURNAMENT, info.key, info.to_dict())])

    async def save_tournament(self, info: TournamentInfo) -> None:
        """Store a tournament record as a whole (for front ends that change it themselves)."""
        async with self._lock(f"tournament:{info.guild_id}:{info.tournament_id}"):
            await self._save_tournament(info)

    async def _change(
        self, guild: str, tournament_id: str, change: Callable[[Tournament], Tournament]
    ) -> Tournament:
        """Read, change (a pure function of :mod:`bot.league.tournament`) and store."""
        async with self._lock(f"tournament:{guild}:{tournament_id}"):
            info = await self._load_tournament(guild, tournament_id)
            state = change(info.state)
            await self._save_tournament(replace(info, state=state))
            return state

    async def create_tournament(
        self,
        guild: str,
        tournament_id: str,
        players: Sequence[str] = (),
        *,
        preset: str = "stein",
        promotion: Promotion | None = None,
        name: str = "",
        organiser: str = "",
    ) -> Tournament:
        """Create a tournament (``stein`` or ``stein_plus``) with these players registered."""
        async with self._lock(f"tournament:{guild}:{tournament_id}"):
            if await self.store.kv_get(NS_TOURNAMENT, f"{guild}:{tournament_id}"):
                raise LeagueServiceError("tournament.exists", guild=guild, tournament=tournament_id)
            state = tour.new_tournament(tournament_id, players, preset=preset, promotion=promotion)
            info = TournamentInfo(
                guild, tournament_id, state, name or tournament_id, organiser, iso(self.clock())
            )
            await self._save_tournament(info)
            return state

    async def tournament(self, guild: str, tournament_id: str) -> Tournament:
        """The stored state of a tournament."""
        return (await self._load_tournament(guild, tournament_id)).state

    async def tournament_info(self, guild: str, tournament_id: str) -> TournamentInfo:
        return await self._load_tournament(guild, tournament_id)

    async def tournaments(self, guild: str) -> list[TournamentInfo]:
        """The guild's tournaments, by id."""
        rows = await self.store.kv_items(NS_TOURNAMENT)
        found = [
            TournamentInfo.from_dict(r.value)
            for r in rows
            if isinstance(r.value, dict) and "tournament_id" in r.value
        ]
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
        self.cache.links[link.game_id] = link
        await self.store.kv_put([KvRow(NS_TOURNAMENT_GAME, link.game_id, link.to_dict())])

    async def tournament_games(self, guild: str, tournament_id: str) -> list[TournamentGame]:
        """The linked service games of a tournament, in playing order."""
        rows = await self.store.kv_items(NS_TOURNAMENT_GAME)
        links = [TournamentGame.from_dict(r.value) for r in rows]
        mine = [g for g in links if g.guild_id == guild and g.tournament_id == tournament_id]
        return sorted(mine, key=lambda g: (g.round, g.table, g.number))

    async def record_service_game(self, game_id: str) -> Tournament:
        """Enter a finished, linked service game into its tournament (idempotent).

        The result rows are mapped from the game's seats to the table's seats through the
        link. A game the organiser ended (or that was abandoned) is entered as ended early
        (tiles left, no winner); the first-round-out policy comes from the game's rules.
        """
        raw = await self.store.kv_get(NS_TOURNAMENT_GAME, game_id)
        if raw is None:
            raise LeagueServiceError("tournament.unlinked_game", game_id=game_id, tournament="?")
        link = TournamentGame.from_dict(raw)
        rows = sorted(await self.store.results(game_id), key=lambda r: r.seat)
        record = await self.store.load_game(game_id)
        if not rows or record is None or record.status != "finished":
            raise LeagueServiceError("tournament.game_not_finished", game_id=game_id)
        policy = _rules_field(record, "first_round_out", "normal")

        def enter(t: Tournament) -> Tournament:
            for rnd in t.rounds:
                for table in rnd.tables:
                    if any(game.game_id == game_id for game in table.games):
                        return t  # already entered
            current = t.current_round
            if current is None or current.number != link.round:
                raise LeagueServiceError(
                    "tournament.wrong_game",
                    game_id=game_id,
                    expected=link.number + 1,
                    table=link.table,
                    round=link.round,
                    actual="another round",
                )
            table = current.table(link.table)
            if len(table.games) != link.number:
                raise LeagueServiceError(
                    "tournament.wrong_game",
                    game_id=game_id,
                    expected=link.number + 1,
                    table=link.table,
                    round=link.round,
                    actual=f"game {len(table.games) + 1}",
                )
            return _enter_rows(t, table, link, rows, policy)

        return await self._change(link.guild_id, link.tournament_id, enter)

    async def sync_tournament(self, guild: str, tournament_id: str) -> int:
        """Enter every finished linked game not entered yet (after a restart); the count."""
        entered = 0
        for link in await self.tournament_games(guild, tournament_id):
            record = await self.store.load_game(link.game_id)
            if record is None or record.status != "finished":
                continue
            t = await self.tournament(guild, tournament_id)
            known = {g.game_id for r in t.rounds for tb in r.tables for g in tb.games}
            if link.game_id in known:
                continue
            await self.record_service_game(link.game_id)
            entered += 1
        return entered


# --------------------------------------------------------------------------- module helpers


def _season_row(season: Season) -> KvRow:
    return KvRow(
        NS_SEASON, f"{season.guild_id}:{season.preset}:{_num(season.number)}", season.to_dict()
    )


def _keep_latest(into: dict[tuple[str, str], Any], value: Any) -> None:
    known = into.get(value.lobby)
    if known is None or value.number > known.number:
        into[value.lobby] = value


def _enter_rows(
    t: Tournament,
    table: tour.Table,
    link: TournamentGame,
    rows: Sequence[ResultRow],
    policy: str,
) -> Tournament:
    """Map a finished game's result rows (game seat order) onto the table's seats."""
    to_game = [link.seats.index(player) for player in table.seats]  # table seat -> game seat
    tiles = [len(rows[g].details.get("left", [])) for g in to_game]
    details = rows[0].details.get("game", {}) or {}
    claims: list[int] | None = None
    if t.preset == "stein_plus" and isinstance(details.get("claims"), list):
        claims = [int(details["claims"][g]) for g in to_game]
    winners = [i for i, g in enumerate(to_game) if rows[g].winner]
    winner = winners[0] if winners else None
    reason = rows[0].reason
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
