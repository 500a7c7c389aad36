"""How a finished game counts on the ladder, by the variant's :class:`~engine.variants.Ladder`.

The league never asks for a preset by name: :func:`laddered` asks the registry for the variant
(``engine.variants.variant``) and returns its :class:`LadderScoring` from :data:`SCORING`, the one
table that maps every :class:`Ladder` kind to its result builders (a test checks that every kind
has one). A variant the registry does not know, or one that is not ranked, is an error
(``result.unknown_preset`` / ``result.unranked``), never silently left off the ladder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.league.errors import LeagueError
from bot.league.ladder import GameResult
from bot.league.presets import (
    GameMeta,
    result_by_penalty,
    result_by_points,
    result_from_rummy_match,
    result_from_stein,
)
from engine.errors import RummyError
from engine.game import Result
from engine.variants import Ladder, Variant, variant, variants

ScoresBuilder = Callable[[str, GameMeta, Sequence[str], Mapping[str, Any]], GameResult]
GameBuilder = Callable[[str, GameMeta, Sequence[str], Result], GameResult]


@dataclass(frozen=True)
class LadderScoring:
    """How the games of one :class:`Ladder` kind become ladder results.

    ``from_scores`` builds a result from named scores (:func:`result_from_scores`);
    ``from_game`` from the engine's :class:`Result` of one finished game, or is None when only a
    whole match counts (its games feed the lobby's match instead). ``min_players``: fewer is a
    casual, unranked game (RULES.md: Stein with two). ``sitting``: the games also enter the
    lobby's Rommé sitting (penalty table and settlement).
    """

    from_scores: ScoresBuilder
    from_game: GameBuilder | None
    min_players: int = 2
    sitting: bool = False


def _need(preset: str, scores: Mapping[str, Any], field: str) -> Any:
    if field not in scores:
        raise LeagueError("result.missing_score", preset=preset, field=field)
    return scores[field]


def _stein_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    return result_from_stein(
        meta,
        players,
        _need(preset, scores, "tiles_left"),
        _need(preset, scores, "winner"),
        claims=scores.get("claims"),
        smp=scores.get("smp"),
        preset=preset,
    )


def _stein_game(
    preset: str, meta: GameMeta, players: Sequence[str], result: Result, *, claims_count: bool
) -> GameResult:
    """The engine's points are SMP (+ CMP), first-round-out policy included: SMP = points -
    claims."""
    points = [float(p) for p in result.points]
    raw = result.details.get("claims") if claims_count else None
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


def _stein_mp_game(
    preset: str, meta: GameMeta, players: Sequence[str], result: Result
) -> GameResult:
    return _stein_game(preset, meta, players, result, claims_count=False)


def _stein_plus_game(
    preset: str, meta: GameMeta, players: Sequence[str], result: Result
) -> GameResult:
    return _stein_game(preset, meta, players, result, claims_count=True)


def _points_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    return result_by_points(preset, meta, players, _need(preset, scores, "points"))


def _points_game(preset: str, meta: GameMeta, players: Sequence[str], result: Result) -> GameResult:
    return result_by_points(preset, meta, players, [float(p) for p in result.points])


def _penalty_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    return result_by_penalty(preset, meta, players, _need(preset, scores, "penalties"))


def _penalty_game(
    preset: str, meta: GameMeta, players: Sequence[str], result: Result
) -> GameResult:
    return result_by_penalty(preset, meta, players, [round(float(p)) for p in result.points])


def _match_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    return result_from_rummy_match(meta, _need(preset, scores, "match"), preset=preset)


SCORING: dict[Ladder, LadderScoring] = {
    Ladder.STEIN_MP: LadderScoring(_stein_scores, _stein_mp_game, min_players=3),
    Ladder.STEIN_PLUS_MP: LadderScoring(_stein_scores, _stein_plus_game, min_players=3),
    Ladder.PLACE_BY_POINTS: LadderScoring(_points_scores, _points_game),
    Ladder.PLACE_BY_PENALTY: LadderScoring(_penalty_scores, _penalty_game, sitting=True),
    Ladder.MATCH_WINNER: LadderScoring(_match_scores, None),
}
"""Every :class:`Ladder` kind's result builders."""


def ranked_presets() -> tuple[str, ...]:
    """The names of the variants that count on the ladder, in the registry's order."""
    return tuple(v.name for v in variants() if v.ranked)


def known(preset: str) -> Variant:
    """The registered variant stored as ``preset``; ``result.unknown_preset`` if there is none."""
    try:
        found: Variant | None = variant(preset)
    except RummyError:
        found = None
    if found is None or found.name != preset:  # the stored name, not a spelling of it
        raise LeagueError(
            "result.unknown_preset", preset=preset, choices=", ".join(ranked_presets())
        )
    return found


def laddered(preset: str) -> tuple[Variant, LadderScoring]:
    """The variant of ``preset`` and how its games count; an error if it has no ladder."""
    found = known(preset)
    if not found.ranked:
        raise LeagueError("result.unranked", preset=found.name)
    return found, SCORING[found.ladder]


def check_ranked(preset: str) -> None:
    """A LeagueError unless ``preset`` has a ladder."""
    laddered(preset)


def result_from_scores(
    preset: str, meta: GameMeta, players: Sequence[str], scores: Mapping[str, Any]
) -> GameResult:
    """A ladder result from named scores, by the variant's ladder kind. ``scores`` keys:

    Stein kinds: ``tiles_left``, ``winner`` (seat or None), optional ``claims``, ``smp``; by
    points (Rummikub): ``points``; by penalty (Rommé): ``penalties``; match winner (Rummy):
    ``match`` (a finished :class:`RummyMatch`, whose players replace ``players``).
    """
    found, scoring = laddered(preset)
    return scoring.from_scores(found.name, meta, players, scores)
