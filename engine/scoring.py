"""Scoring of a finished tile game (RULES.md: Stein MP, Stein Plus SMP + CMP, Rummikub points).

Pure functions over plain numbers, so the league and the command-line tool use the very same code.
"""

from __future__ import annotations

from collections.abc import Sequence

from .pieces import Face
from .rules import RuleSet


def competition_ranks(scores: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Ranks 1..n where equal scores share the best rank of their block (1, 1, 3)."""
    sign = -1 if higher_is_better else 1
    order = sorted(scores, key=lambda s: sign * s)
    return [order.index(s) + 1 for s in scores]


def places_by_tiles_left(tiles_left: Sequence[int], winner: int | None) -> list[int]:
    """Stein ranking: the winner first, the others by tiles left, fewer is better; ties share."""
    keys = [(0 if i == winner else 1, n) for i, n in enumerate(tiles_left)]
    order = sorted(keys)
    return [order.index(k) + 1 for k in keys]


def stein_match_points(
    tiles_left: Sequence[int],
    winner: int | None,
    *,
    first_round_out: str = "normal",
    first_round: bool = False,
) -> list[float]:
    """Match points of one single game: rank k of n gets n+1-k; players tied on tiles share the
    average of their places' MP (RULES.md "Preset stein"). When the winner went out in the very
    first round of turns, ``first_round_out`` decides: ``split`` the winner gets full MP and the
    others share the rest equally, ``equal`` everybody gets the same, ``normal`` as usual."""
    n = len(tiles_left)
    total = n * (n + 1) / 2
    if first_round and winner is not None and n > 1:
        if first_round_out == "equal":
            return [total / n] * n
        if first_round_out == "split":
            rest = (total - n) / (n - 1)
            return [float(n) if i == winner else rest for i in range(n)]
    keys = [(0 if i == winner else 1, t) for i, t in enumerate(tiles_left)]
    order = sorted(keys)
    points = []
    for key in keys:
        first = order.index(key)  # 0-based first place of the tie block
        size = order.count(key)
        places = range(first + 1, first + size + 1)
        points.append(sum(n + 1 - k for k in places) / size)
    return points


def stein_plus_match_points(
    tiles_left: Sequence[int],
    winner: int | None,
    claims: Sequence[int],
    *,
    first_round_out: str = "normal",
    first_round: bool = False,
) -> list[float]:
    """Stein Plus: game MP (SMP, as Stein: n+1-k, so 4/3/2/1 with four players as the seed
    prints) plus one claim MP (CMP) per claim still standing at the end."""
    smp = stein_match_points(
        tiles_left, winner, first_round_out=first_round_out, first_round=first_round
    )
    return [s + c for s, c in zip(smp, claims, strict=True)]


def rack_value(faces: Sequence[Face], joker_penalty: int = 30) -> int:
    """Face values of the pieces left on a rack; a joker counts ``joker_penalty`` (Rummikub 30)."""
    return sum(joker_penalty if f.is_joker else f.rank for f in faces)


def rummikub_points(rack_values: Sequence[int], winner: int | None) -> list[float]:
    """Rummikub: the others score minus their rack values, the winner plus the sum of them.

    With no winner (pool exhausted and nobody can play), the lowest rack total wins: every other
    player scores minus the difference to that total and the winners (ties share) get the sum of
    the differences, so a game's points always add up to zero."""
    n = len(rack_values)
    if winner is not None:
        points = [-float(v) for v in rack_values]
        points[winner] = float(sum(v for i, v in enumerate(rack_values) if i != winner))
        return points
    best = min(rack_values)
    winners = [i for i in range(n) if rack_values[i] == best]
    points = [-float(v - best) for v in rack_values]
    pot = -sum(points)
    for i in winners:
        points[i] = pot / len(winners)
    return points


def score_tile_game(
    rules: RuleSet,
    lefts: Sequence[Sequence[Face]],
    winner: int | None,
    *,
    claims: Sequence[int] | None = None,
    first_round: bool = False,
) -> list[float]:
    """The points of a finished tile game for any tile preset (what ``rummy score`` prints)."""
    if rules.game == "rummikub":
        values = [rack_value(left, rules.joker_penalty) for left in lefts]
        return rummikub_points(values, winner)
    tiles = [len(left) for left in lefts]
    if rules.claims:
        return stein_plus_match_points(
            tiles,
            winner,
            claims or [0] * len(lefts),
            first_round_out=rules.first_round_out,
            first_round=first_round,
        )
    return stein_match_points(
        tiles, winner, first_round_out=rules.first_round_out, first_round=first_round
    )
