"""How each preset feeds the ladder, plus the Rommé sitting and the classic Rummy match.

Every helper turns a finished game's scores into a :class:`GameResult` whose ``mp`` is "higher
is better, at most ``max_mp``", so percentages mean the same on every ladder:

- ``stein`` / ``stein_plus`` (RULES.md): ``mp`` = SMP + CMP. SMP is n+1-k by tiles left in
  ``stein``; in ``stein_plus`` 4 for the empty hand, then 3, 2, 1 by fewest tiles left, for any
  number of players (``engine.scoring.stein_plus_match_points``); ties averaged. ``max_mp`` = the
  first place's SMP (n, or 4 in ``stein_plus``) + the number of claims standing at the end of the
  game (all players'):
  a claim is a point any player could have owned, so percent stays within 0..100 and is 100 only
  for a player who went out and held every claim. ``rank`` and ``won`` come from total MP (seed
  000 Plus: "die Summe aus SMP und CMP gewinnt das Spiel"). ``points`` = tiles left.
- ``rummikub``: ``mp`` = n+1-k by the signed points (higher is better, ties averaged),
  ``max_mp`` = n; ``points`` = the signed points; ``won`` = rank 1.
- ``romme``: each single game of a sitting ranks by that game's penalty (fewer is better);
  ``mp`` = n+1-k, ties averaged, ``max_mp`` = n; ``points`` = the penalty; ``won`` = rank 1.
- ``rummy``: one ladder result per *match* (winner takes all, first to the target). Only the
  match winner counts: ``mp`` 1 / ``max_mp`` 1 and rank 1 for the winner, ``mp`` 0 and a shared
  rank 2 for everybody else, so percent is the share of matches won; ``points`` = match total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.league.errors import LeagueError
from bot.league.ladder import GameResult, PlayerResult
from bot.league.mp import place_points, stein_mp
from engine.codec import Record
from engine.scoring import competition_ranks, stein_plus_match_points, stein_plus_place_values
from engine.settlement import Settlement, settle
from engine.variants import DEFAULT_TOURNAMENT_VARIANT, Ladder, variant


def rummy_targets() -> dict[int, int]:
    """Classic Rummy's match target by player count (``RuleSet.match_target_by_players``)."""
    return dict(variant("rummy").rules.match_target_by_players)


@dataclass(frozen=True)
class GameMeta:
    """Where and when a game finished: the part of a :class:`GameResult` that is not scores."""

    game_id: str
    guild_id: str
    season: int
    finished_at: str


def _first_duplicate(players: Sequence[str]) -> str:
    seen: set[str] = set()
    for player in players:
        if player in seen:
            return player
        seen.add(player)
    return ""


def _check_length(what: str, values: Sequence[Any], players: Sequence[str]) -> None:
    if len(values) != len(players):
        raise LeagueError("mp.length_mismatch", what=what, expected=len(players), got=len(values))


def _build(
    meta: GameMeta,
    preset: str,
    players: Sequence[str],
    mp: Sequence[float],
    max_mp: Sequence[float],
    points: Sequence[float | None],
) -> GameResult:
    ranks = competition_ranks(mp, higher_is_better=True)
    return GameResult(
        game_id=meta.game_id,
        guild_id=meta.guild_id,
        preset=preset,
        season=meta.season,
        finished_at=meta.finished_at,
        players=tuple(
            PlayerResult(player_id=player, mp=m, rank=rank, max_mp=top, won=rank == 1, points=score)
            for player, m, rank, top, score in zip(players, mp, ranks, max_mp, points, strict=True)
        ),
    )


def result_from_stein(
    meta: GameMeta,
    players: Sequence[str],
    tiles_left: Sequence[int],
    winner: int | None,
    *,
    claims: Sequence[int] | None = None,
    smp: Sequence[float] | None = None,
    preset: str = DEFAULT_TOURNAMENT_VARIANT,
) -> GameResult:
    """Stein / Stein Plus: MP = SMP + CMP (RULES.md ``stein_plus`` "Scoring per game").

    ``smp`` overrides the tiles-left SMP when the engine already scored the game differently
    (``first_round_out``, the no-joker stalemate); ``claims`` counts each seat's standing claims.
    """
    _check_length("tiles_left", tiles_left, players)
    if variant(preset).ladder is Ladder.STEIN_PLUS_MP:
        stein_mp(tiles_left, winner)  # the same checks of the input
        first_place = stein_plus_place_values(len(players), True)[0]
        plain = stein_plus_match_points(tiles_left, winner, [0] * len(tiles_left))
    else:
        first_place = len(players)
        plain = stein_mp(tiles_left, winner)
    base = list(smp) if smp is not None else plain
    _check_length("smp", base, players)
    cmp = list(claims) if claims is not None else [0] * len(players)
    _check_length("claims", cmp, players)
    for seat, count in enumerate(cmp):
        if count < 0:
            raise LeagueError("mp.negative", seat=seat, value=count)
    top = float(first_place + sum(cmp))
    mp = [s + c for s, c in zip(base, cmp, strict=True)]
    return _build(meta, preset, players, mp, [top] * len(players), list(tiles_left))


def result_by_place(
    preset: str,
    meta: GameMeta,
    players: Sequence[str],
    scores: Sequence[float],
    *,
    higher_is_better: bool,
) -> GameResult:
    """Place MP n+1-k by the scores (ties averaged), the scores kept as points: signed points
    (higher is better) or penalties (fewer is better)."""
    _check_length("points" if higher_is_better else "penalties", scores, players)
    mp = place_points(scores, higher_is_better=higher_is_better)
    return _build(meta, preset, players, mp, [float(len(players))] * len(players), scores)


def result_by_points(
    preset: str, meta: GameMeta, players: Sequence[str], points: Sequence[float]
) -> GameResult:
    """Place MP n+1-k by points, higher is better (ties averaged), points kept."""
    return result_by_place(preset, meta, players, points, higher_is_better=True)


def result_by_penalty(
    preset: str, meta: GameMeta, players: Sequence[str], penalties: Sequence[int]
) -> GameResult:
    """Place MP n+1-k by penalty, fewer is better (ties averaged), penalties kept."""
    return result_by_place(preset, meta, players, penalties, higher_is_better=False)


def result_from_rummikub(
    meta: GameMeta, players: Sequence[str], points: Sequence[int]
) -> GameResult:
    """Rummikub: place MP n+1-k by signed points (RULES.md ``rummikub`` "End"), points kept."""
    return result_by_points("rummikub", meta, players, points)


def result_from_romme(
    meta: GameMeta, players: Sequence[str], penalties: Sequence[int]
) -> GameResult:
    """One Rommé game: place MP n+1-k by penalty, fewer is better (RULES.md ``romme``)."""
    return result_by_penalty("romme", meta, players, penalties)


def result_from_rummy_match(
    meta: GameMeta, match: RummyMatch, *, preset: str = "rummy"
) -> GameResult:
    """A finished Rummy match: only the winner counts (RULES.md ``rummy`` "Scoring")."""
    winner = match.winner
    if winner is None:
        raise LeagueError("rummy.match_not_over", target=match.target)
    mp = [1.0 if player == winner else 0.0 for player in match.players]
    return _build(meta, preset, match.players, mp, [1.0] * len(match.players), match.totals)


# --------------------------------------------------------------------------- Rommé sitting


@dataclass(frozen=True)
class SittingGame(Record):
    """One game of a sitting: each seat's penalty, and the points struck off the winner."""

    penalties: tuple[int, ...]
    winner: int | None = None
    strike: int = 0


@dataclass(frozen=True)
class Sitting(Record):
    """A Rommé sitting ("Partie"): the cumulative penalty table and its pairwise settlement.

    RULES.md ``romme`` "Settlement"; seed 001 "6. Abrechnung". Immutable: :meth:`add_game`
    returns a new sitting.
    """

    players: tuple[str, ...]
    games: tuple[SittingGame, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "games", tuple(self.games))
        if not 2 <= len(self.players) <= 6:
            raise LeagueError("sitting.player_count", count=len(self.players))
        if len(set(self.players)) != len(self.players):
            raise LeagueError("league.duplicate_player", player=_first_duplicate(self.players))

    def add_game(
        self, penalties: Sequence[int], *, winner: int | None = None, strike: int = 0
    ) -> Sitting:
        """Append one game's penalties (seat order).

        Variant i (RULES.md ``romme``): ``strike`` points (10, or 20 after Hand-Rommé) come off
        the ``winner``'s earlier penalties, never below zero.
        """
        _check_length("penalties", penalties, self.players)
        for seat, value in enumerate(penalties):
            if value < 0:
                raise LeagueError("mp.negative", seat=seat, value=value)
        if winner is not None and not 0 <= winner < len(self.players):
            raise LeagueError("mp.bad_winner", winner=winner, count=len(self.players))
        if strike < 0:
            raise LeagueError("mp.negative", seat=winner, value=strike)
        applied = 0
        if winner is not None and strike:
            applied = min(strike, self.totals[winner])
        game = SittingGame(
            penalties=tuple(int(v) for v in penalties), winner=winner, strike=applied
        )
        return Sitting(players=self.players, games=(*self.games, game))

    @property
    def totals(self) -> list[int]:
        """Each seat's penalty total so far (after any strikes)."""
        totals = [0] * len(self.players)
        for game in self.games:
            for seat, value in enumerate(game.penalties):
                totals[seat] += value
            if game.winner is not None:
                totals[game.winner] -= game.strike
        return totals

    @property
    def settlement(self) -> Settlement:
        """The pairwise settlement of the totals so far (``engine.settlement.settle``)."""
        return settle(list(self.players), self.totals)

    def game_result(self, index: int, meta: GameMeta) -> GameResult:
        """The ladder result of game ``index`` (0-based), ranked by that game's penalty."""
        if not 0 <= index < len(self.games):
            raise LeagueError("sitting.no_game", number=index)
        return result_from_romme(meta, self.players, self.games[index].penalties)


# --------------------------------------------------------------------------- Rummy match


def rummy_hand_points(other_hands: Sequence[int], *, went_rummy: bool = False) -> int:
    """Winner takes all: the sum of the others' hands, doubled for going rummy (RULES.md)."""
    total = sum(other_hands)
    return total * 2 if went_rummy else total


@dataclass(frozen=True)
class RummyHand(Record):
    """One hand of a match: the seat that went out and the points it took; None = a draw."""

    winner: int | None
    points: int


@dataclass(frozen=True)
class RummyMatch(Record):
    """A classic Rummy match: winner-takes-all hands until someone reaches the target.

    RULES.md ``rummy``: the match is won at 100 points (2 players), 150 (3), 200 (4).
    Immutable: :meth:`add_hand` and :meth:`add_draw` return a new match.
    """

    players: tuple[str, ...]
    target: int = 0
    hands: tuple[RummyHand, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "hands", tuple(self.hands))
        targets = rummy_targets()
        if len(self.players) not in targets:
            raise LeagueError("rummy.player_count", count=len(self.players))
        if len(set(self.players)) != len(self.players):
            raise LeagueError("league.duplicate_player", player=_first_duplicate(self.players))
        if not self.target:
            object.__setattr__(self, "target", targets[len(self.players)])

    @property
    def totals(self) -> list[int]:
        totals = [0] * len(self.players)
        for hand in self.hands:
            if hand.winner is not None:
                totals[hand.winner] += hand.points
        return totals

    @property
    def winner(self) -> str | None:
        """The player who reached the target (only one can: a hand scores for one seat)."""
        for seat, total in enumerate(self.totals):
            if total >= self.target:
                return self.players[seat]
        return None

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def add_hand(self, winner: int, points: int) -> RummyMatch:
        """Credit a won hand's points (see :func:`rummy_hand_points`) to seat ``winner``."""
        if self.winner is not None:
            raise LeagueError("rummy.match_over", winner=self.winner, target=self.target)
        if not 0 <= winner < len(self.players):
            raise LeagueError("mp.bad_winner", winner=winner, count=len(self.players))
        if points < 0:
            raise LeagueError("mp.negative", seat=winner, value=points)
        return RummyMatch(
            self.players, self.target, (*self.hands, RummyHand(winner=winner, points=points))
        )

    def add_draw(self) -> RummyMatch:
        """A drawn hand (stock exhausted twice, or nobody can go out): nobody scores."""
        if self.winner is not None:
            raise LeagueError("rummy.match_over", winner=self.winner, target=self.target)
        return RummyMatch(self.players, self.target, (*self.hands, RummyHand(None, 0)))
