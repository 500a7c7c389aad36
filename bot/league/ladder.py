"""The league ladder: standings, ratings and histories recomputed from finished games.

RULES.md "Tournaments and ladder" (seed 000, "Turniere"): a player's result is a percentage,
MP won / maximum possible MP over the games played, so sessions with different numbers of games
compare. Beside it every player carries an openskill Plackett-Luce rating.

The ladder is never updated in place: :func:`compute_ladder` replays the list of
:class:`GameResult` values sorted by ``(finished_at, game_id)``. Voiding a game is therefore the
same as the game never having happened, ratings included.

Decisions (written down here because the rules are silent):

- ``rating`` is openskill's ``ordinal()``, i.e. ``mu - 3 * sigma`` (0.0 for a new player with the
  default model: mu 25, sigma 25/3). ``mu`` and ``sigma`` are exposed as well.
- Each game is rated once with all its players as one-player teams and ``ranks`` from the result,
  so players sharing a rank are a tie for openskill.
- ``trend`` is the rating change over the player's last ``trend_games`` games (default 1); over
  all their games when they played fewer.
- Players below ``min_games`` are not dropped: they are listed after the qualified players, with
  ``qualified = False`` and ``position = None``. This holds for both orders.
- Ties in the order are broken by: percent/rating (the other one), MP, games, player id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from bot.league.codec import parse_time
from bot.league.errors import LeagueError
from engine.codec import Record, to_data

ORDERS = ("percent", "rating")
# Tolerance for float MP checks (averaged ties give thirds and halves).
_EPS = 1e-9


def rating_model() -> PlackettLuce:
    """The rating model of every ladder: openskill Plackett-Luce with its default parameters."""
    return PlackettLuce()


def percent(mp: float, max_mp: float) -> float:
    """MP won as a percentage of the maximum possible (seed 000 "Turniere"); 0 when max is 0."""
    return mp / max_mp * 100.0 if max_mp > 0 else 0.0


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PlayerResult(Record):
    """One player's line of a finished game.

    ``mp`` is the ladder's match points (higher is better, ``0 <= mp <= max_mp``); ``points`` keeps
    the preset's own score (Stein tiles left, Rummikub signed points, Rommé penalty, Rummy match
    points) for display. ``rank`` 1 is best, ties share a rank.
    """

    player_id: str
    mp: float
    rank: int
    max_mp: float
    won: bool
    points: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mp", float(self.mp))
        object.__setattr__(self, "max_mp", float(self.max_mp))
        object.__setattr__(self, "rank", int(self.rank))
        object.__setattr__(self, "won", bool(self.won))
        if self.points is not None:
            object.__setattr__(self, "points", float(self.points))


@dataclass(frozen=True)
class GameResult(Record):
    """A finished game as the ladder sees it; ``players`` in seat order."""

    game_id: str
    guild_id: str
    preset: str
    season: int
    finished_at: str
    players: tuple[PlayerResult, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "season", int(self.season))
        count = len(self.players)
        if count < 2:
            raise LeagueError("result.too_few_players", game_id=self.game_id, count=count)
        if parse_time(self.finished_at) is None:
            raise LeagueError("result.bad_timestamp", game_id=self.game_id, value=self.finished_at)
        seen: set[str] = set()
        for line in self.players:
            if line.player_id in seen:
                raise LeagueError(
                    "result.duplicate_player", game_id=self.game_id, player=line.player_id
                )
            seen.add(line.player_id)
            if not -_EPS <= line.mp <= line.max_mp + _EPS:
                raise LeagueError(
                    "result.bad_mp",
                    game_id=self.game_id,
                    player=line.player_id,
                    mp=line.mp,
                    max_mp=line.max_mp,
                )
            if not 1 <= line.rank <= count:
                raise LeagueError(
                    "result.bad_rank",
                    game_id=self.game_id,
                    player=line.player_id,
                    rank=line.rank,
                    count=count,
                )

    @property
    def player_ids(self) -> tuple[str, ...]:
        return tuple(line.player_id for line in self.players)

    def sort_key(self) -> tuple[datetime, str]:
        """Replay order: finish time (as UTC), then game id."""
        moment = parse_time(self.finished_at)
        assert moment is not None  # checked in __post_init__
        return (moment, self.game_id)


def select_results(
    results: Iterable[GameResult],
    *,
    guild_id: str | None = None,
    preset: str | None = None,
    season: int | None = None,
) -> list[GameResult]:
    """The results of one guild / preset / season (``None`` = any), in replay order."""
    chosen = [
        result
        for result in results
        if (guild_id is None or result.guild_id == guild_id)
        and (preset is None or result.preset == preset)
        and (season is None or result.season == season)
    ]
    return sorted(chosen, key=GameResult.sort_key)


# --------------------------------------------------------------------------- ladder values


@dataclass(frozen=True)
class HistoryEntry(Record):
    """One game in a player's history, with the running totals after it."""

    game_id: str
    finished_at: str
    preset: str
    mp: float
    max_mp: float
    rank: int
    won: bool
    points: float | None
    games: int
    percent: float
    mu: float
    sigma: float
    rating: float
    rating_change: float


@dataclass(frozen=True)
class StandingRow(Record):
    """A ladder line. ``position`` is None for players below the minimum number of games."""

    position: int | None
    player_id: str
    games: int
    wins: int
    mp: float
    max_mp: float
    percent: float
    rating: float
    mu: float
    sigma: float
    trend: float
    qualified: bool


@dataclass(frozen=True)
class RatingPoint:
    """A point of a rating chart: the rating after ``game_id``, finished at ``at``."""

    at: str
    game_id: str
    rating: float

    def to_dict(self) -> dict[str, Any]:
        return to_data(self)


@dataclass(frozen=True)
class Ladder:
    """Standings plus every player's game history, as computed by :func:`compute_ladder`."""

    order: str
    min_games: int
    trend_games: int
    rows: tuple[StandingRow, ...]
    histories: tuple[tuple[str, tuple[HistoryEntry, ...]], ...]
    games: tuple[str, ...]
    voided: tuple[str, ...]

    def row(self, player_id: str) -> StandingRow:
        for row in self.rows:
            if row.player_id == player_id:
                return row
        raise LeagueError("ladder.unknown_player", player=player_id)

    def history(self, player_id: str) -> tuple[HistoryEntry, ...]:
        for player, entries in self.histories:
            if player == player_id:
                return entries
        raise LeagueError("ladder.unknown_player", player=player_id)

    def rating_history(self, player_id: str) -> list[RatingPoint]:
        """The player's rating after each of their games, for charts."""
        return [
            RatingPoint(at=entry.finished_at, game_id=entry.game_id, rating=entry.rating)
            for entry in self.history(player_id)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "min_games": self.min_games,
            "trend_games": self.trend_games,
            "rows": [row.to_dict() for row in self.rows],
            "histories": {
                player: [entry.to_dict() for entry in entries] for player, entries in self.histories
            },
            "games": list(self.games),
            "voided": list(self.voided),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ladder:
        return cls(
            order=data["order"],
            min_games=data["min_games"],
            trend_games=data["trend_games"],
            rows=tuple(StandingRow.from_dict(row) for row in data["rows"]),
            histories=tuple(
                (player, tuple(HistoryEntry.from_dict(entry) for entry in entries))
                for player, entries in sorted(data["histories"].items())
            ),
            games=tuple(data["games"]),
            voided=tuple(data["voided"]),
        )


# --------------------------------------------------------------------------- computation


@dataclass
class _Running:
    games: int = 0
    wins: int = 0
    mp: float = 0.0
    max_mp: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0


def rate_game(
    model: PlackettLuce, before: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """One game's rating update: each player a one-player team, ``ranks`` with ties as ties."""
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


def _ordinal(model: PlackettLuce, mu: float, sigma: float) -> float:
    return model.rating(mu=mu, sigma=sigma).ordinal()


def compute_ladder(
    results: Iterable[GameResult],
    *,
    min_games: int = 0,
    order: str = "percent",
    voided: Iterable[str] = frozenset(),
    trend_games: int = 1,
) -> Ladder:
    """Recompute standings, ratings and histories from scratch (RULES.md "Tournaments and ladder").

    ``results`` may come in any order; they are replayed sorted by ``(finished_at, game_id)``.
    Games whose id is in ``voided`` are skipped entirely (ids not among the results are ignored).
    No filtering happens here: pass one guild's, preset's and season's results
    (:func:`select_results`, :func:`season_ladder`) for the usual ladder.
    """
    if order not in ORDERS:
        raise LeagueError("ladder.bad_order", order=order)
    if trend_games < 1:
        raise LeagueError("ladder.bad_trend", games=trend_games)
    voided_ids = frozenset(voided)
    model = rating_model()
    ordered = sorted(results, key=GameResult.sort_key)
    seen: set[str] = set()
    running: dict[str, _Running] = {}
    histories: dict[str, list[HistoryEntry]] = {}
    counted: list[str] = []
    skipped: list[str] = []
    for result in ordered:
        if result.game_id in seen:
            raise LeagueError("ladder.duplicate_game", game_id=result.game_id)
        seen.add(result.game_id)
        if result.game_id in voided_ids:
            skipped.append(result.game_id)
            continue
        counted.append(result.game_id)
        states = [
            running.setdefault(line.player_id, _Running(mu=model.mu, sigma=model.sigma))
            for line in result.players
        ]
        before = [(state.mu, state.sigma) for state in states]
        after = rate_game(model, before, [line.rank for line in result.players])
        for line, state, (mu0, sigma0), (mu, sigma) in zip(
            result.players, states, before, after, strict=True
        ):
            state.games += 1
            state.wins += int(line.won)
            state.mp += line.mp
            state.max_mp += line.max_mp
            state.mu, state.sigma = mu, sigma
            rating = _ordinal(model, mu, sigma)
            histories.setdefault(line.player_id, []).append(
                HistoryEntry(
                    game_id=result.game_id,
                    finished_at=result.finished_at,
                    preset=result.preset,
                    mp=line.mp,
                    max_mp=line.max_mp,
                    rank=line.rank,
                    won=line.won,
                    points=line.points,
                    games=state.games,
                    percent=percent(state.mp, state.max_mp),
                    mu=mu,
                    sigma=sigma,
                    rating=rating,
                    rating_change=rating - _ordinal(model, mu0, sigma0),
                )
            )
    initial = _ordinal(model, model.mu, model.sigma)
    rows = [
        _standing(player, state, histories[player], trend_games, initial, min_games)
        for player, state in running.items()
    ]
    rows.sort(key=lambda row: (not row.qualified, *_order_key(row, order)))
    position = 0
    placed: list[StandingRow] = []
    for row in rows:
        if row.qualified:
            position += 1
            row = StandingRow(**{**row.to_dict(), "position": position})
        placed.append(row)
    return Ladder(
        order=order,
        min_games=min_games,
        trend_games=trend_games,
        rows=tuple(placed),
        histories=tuple((player, tuple(entries)) for player, entries in sorted(histories.items())),
        games=tuple(counted),
        voided=tuple(sorted(skipped)),
    )


def _standing(
    player: str,
    state: _Running,
    history: list[HistoryEntry],
    trend_games: int,
    initial: float,
    min_games: int,
) -> StandingRow:
    rating = history[-1].rating
    window = history[-trend_games:]
    start = history[-trend_games - 1].rating if len(history) > trend_games else initial
    assert len(window) >= 1
    return StandingRow(
        position=None,
        player_id=player,
        games=state.games,
        wins=state.wins,
        mp=state.mp,
        max_mp=state.max_mp,
        percent=percent(state.mp, state.max_mp),
        rating=rating,
        mu=state.mu,
        sigma=state.sigma,
        trend=rating - start,
        qualified=state.games >= min_games,
    )


def _order_key(row: StandingRow, order: str) -> tuple[Any, ...]:
    if order == "rating":
        return (-row.rating, -row.percent, -row.mp, -row.games, row.player_id)
    return (-row.percent, -row.rating, -row.mp, -row.games, row.player_id)


# --------------------------------------------------------------------------- seasons


@dataclass(frozen=True)
class Season(Record):
    """A ladder season of one guild and preset; archived once ``ended_at`` is set.

    ``number`` counts from 1 per (guild, preset) and is what :attr:`GameResult.season` holds.
    """

    guild_id: str
    preset: str
    number: int
    started_at: str
    ended_at: str | None = None
    name: str = ""

    def __post_init__(self) -> None:
        for value in (self.started_at, self.ended_at):
            if value is not None and parse_time(value) is None:
                raise LeagueError("season.bad_timestamp", number=self.number, value=value)

    @property
    def archived(self) -> bool:
        return self.ended_at is not None

    @property
    def title(self) -> str:
        return self.name or f"Season {self.number}"

    def holds(self, result: GameResult) -> bool:
        """Whether ``result`` belongs to this season."""
        return (
            result.guild_id == self.guild_id
            and result.preset == self.preset
            and result.season == self.number
        )


@dataclass(frozen=True)
class SeasonChange:
    """What :func:`start_season` did: the season it archived (if one was open) and the new one."""

    ended: Season | None
    started: Season


def current_season(seasons: Iterable[Season], guild_id: str, preset: str) -> Season | None:
    """The open (not archived) season of a guild and preset, the newest if several."""
    open_ones = [
        season
        for season in seasons
        if season.guild_id == guild_id and season.preset == preset and not season.archived
    ]
    return max(open_ones, key=lambda season: season.number, default=None)


def end_season(season: Season, at: str) -> Season:
    """Archive ``season`` at time ``at``; its ladder stays computable from its results."""
    if season.ended_at is not None:
        raise LeagueError("season.already_ended", number=season.number, ended_at=season.ended_at)
    moment, begin = parse_time(at), parse_time(season.started_at)
    if moment is None:
        raise LeagueError("season.bad_timestamp", number=season.number, value=at)
    assert begin is not None  # checked when the season was made
    if moment < begin:
        raise LeagueError(
            "season.ends_before_start", number=season.number, at=at, started_at=season.started_at
        )
    return Season(
        guild_id=season.guild_id,
        preset=season.preset,
        number=season.number,
        started_at=season.started_at,
        ended_at=at,
        name=season.name,
    )


def start_season(
    seasons: Iterable[Season], *, guild_id: str, preset: str, at: str, name: str = ""
) -> SeasonChange:
    """Open the next season of a guild and preset at ``at``, archiving the open one first."""
    known = [s for s in seasons if s.guild_id == guild_id and s.preset == preset]
    current = current_season(known, guild_id, preset)
    ended = end_season(current, at) if current is not None else None
    number = max((s.number for s in known), default=0) + 1
    started = Season(guild_id=guild_id, preset=preset, number=number, started_at=at, name=name)
    return SeasonChange(ended=ended, started=started)


def season_ladder(results: Iterable[GameResult], season: Season, **options: Any) -> Ladder:
    """The ladder of one season (open or archived), from all results; options as compute_ladder."""
    return compute_ladder([r for r in results if season.holds(r)], **options)
