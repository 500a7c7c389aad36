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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.league.errors import LeagueError
from bot.league.ladder import GameResult, PlayerResult
from bot.league.mp import competition_ranks, place_points, stein_mp
from engine.scoring import stein_plus_match_points, stein_plus_place_values
from engine.settlement import Settlement, settle

PRESETS = ("stein", "stein_plus", "rummikub", "romme", "rummy")
RUMMY_TARGETS = {2: 100, 3: 150, 4: 200}


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
    preset: str = "stein",
) -> GameResult:
    """Stein / Stein Plus: MP = SMP + CMP (RULES.md ``stein_plus`` "Scoring per game").

    ``smp`` overrides the tiles-left SMP when the engine already scored the game differently
    (``first_round_out``, the no-joker stalemate); ``claims`` counts each seat's standing claims.
    """
    _check_length("tiles_left", tiles_left, players)
    if preset == "stein_plus":
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


def result_from_rummikub(
    meta: GameMeta, players: Sequence[str], points: Sequence[int]
) -> GameResult:
    """Rummikub: place MP n+1-k by signed points (RULES.md ``rummikub`` "End"), points kept."""
    _check_length("points", points, players)
    mp = place_points(points, higher_is_better=True)
    return _build(meta, "rummikub", players, mp, [float(len(players))] * len(players), points)


def result_from_romme(
    meta: GameMeta, players: Sequence[str], penalties: Sequence[int]
) -> GameResult:
    """One Rommé game: place MP n+1-k by penalty, fewer is better (RULES.md ``romme``)."""
    _check_length("penalties", penalties, players)
    mp = place_points(penalties, higher_is_better=False)
    return _build(meta, "romme", players, mp, [float(len(players))] * len(players), penalties)


def result_from_rummy_match(meta: GameMeta, match: RummyMatch) -> GameResult:
    """A finished Rummy match: only the winner counts (RULES.md ``rummy`` "Scoring")."""
    winner = match.winner
    if winner is None:
        raise LeagueError("rummy.match_not_over", target=match.target)
    mp = [1.0 if player == winner else 0.0 for player in match.players]
    return _build(meta, "rummy", match.players, mp, [1.0] * len(match.players), match.totals)


def result_from_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    """Dispatch on the preset. ``scores`` keys:

    ``stein``/``stein_plus``: ``tiles_left``, ``winner`` (seat or None), optional ``claims``,
    ``smp``; ``rummikub``: ``points``; ``romme``: ``penalties``; ``rummy``: ``match``
    (a finished :class:`RummyMatch`, whose players replace ``players``).
    """

    def need(field: str) -> Any:
        if field not in scores:
            raise LeagueError("result.missing_score", preset=preset, field=field)
        return scores[field]

    if preset in ("stein", "stein_plus"):
        return result_from_stein(
            meta,
            players,
            need("tiles_left"),
            need("winner"),
            claims=scores.get("claims"),
            smp=scores.get("smp"),
            preset=preset,
        )
    if preset == "rummikub":
        return result_from_rummikub(meta, players, need("points"))
    if preset == "romme":
        return result_from_romme(meta, players, need("penalties"))
    if preset == "rummy":
        return result_from_rummy_match(meta, need("match"))
    raise LeagueError("result.unknown_preset", preset=preset, choices=", ".join(PRESETS))


# --------------------------------------------------------------------------- Rommé sitting


@dataclass(frozen=True)
class SittingGame:
    """One game of a sitting: each seat's penalty, and the points struck off the winner."""

    penalties: tuple[int, ...]
    winner: int | None = None
    strike: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"penalties": list(self.penalties), "winner": self.winner, "strike": self.strike}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SittingGame:
        return cls(penalties=tuple(data["penalties"]), winner=data["winner"], strike=data["strike"])


@dataclass(frozen=True)
class Sitting:
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

    def to_dict(self) -> dict[str, Any]:
        return {"players": list(self.players), "games": [game.to_dict() for game in self.games]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sitting:
        return cls(
            players=tuple(data["players"]),
            games=tuple(SittingGame.from_dict(game) for game in data["games"]),
        )


# --------------------------------------------------------------------------- Rummy match


def rummy_hand_points(other_hands: Sequence[int], *, went_rummy: bool = False) -> int:
    """Winner takes all: the sum of the others' hands, doubled for going rummy (RULES.md)."""
    total = sum(other_hands)
    return total * 2 if went_rummy else total


@dataclass(frozen=True)
class RummyHand:
    """One hand of a match: the seat that went out and the points it took; None = a draw."""

    winner: int | None
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "points": self.points}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RummyHand:
        return cls(winner=data["winner"], points=data["points"])


@dataclass(frozen=True)
class RummyMatch:
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
        if len(self.players) not in RUMMY_TARGETS:
            raise LeagueError("rummy.player_count", count=len(self.players))
        if len(set(self.players)) != len(self.players):
            raise LeagueError("league.duplicate_player", player=_first_duplicate(self.players))
        if not self.target:
            object.__setattr__(self, "target", RUMMY_TARGETS[len(self.players)])

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "target": self.target,
            "hands": [hand.to_dict() for hand in self.hands],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RummyMatch:
        return cls(
            players=tuple(data["players"]),
            target=data["target"],
            hands=tuple(RummyHand.from_dict(hand) for hand in data["hands"]),
        )
