"""Scoring of a finished tile game (RULES.md: Stein MP, Stein Plus SMP + CMP, Rummikub points),
the one ranking (:func:`competition_ranks`) and the one opening value (:func:`opening_value`).

Pure functions over plain numbers, so the league and the command-line tool use the very same code.
Which scoring a game uses is its ``RuleSet.scoring`` (declared by its variant), never its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .melds import MeldSpec, readings
from .pieces import Face
from .rules import RuleSet


def competition_ranks(scores: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Ranks 1..n where equal scores share the best rank of their block (1, 1, 3)."""
    sign = -1 if higher_is_better else 1
    order = sorted(scores, key=lambda s: sign * s)
    return [order.index(s) + 1 for s in scores]


def meld_value(faces: Sequence[Face], spec: MeldSpec) -> int:
    """What a meld is worth toward the opening: its first reading's value, a joker counting the
    piece it stands for (RULES.md opening); 0 when the pieces are no meld."""
    found = readings(faces, spec)
    return found[0].value if found else 0


def opening_value(melds: Iterable[Sequence[Face]], spec: MeldSpec) -> int:
    """The opening value of new melds: the sum of their :func:`meld_value`."""
    return sum(meld_value(meld, spec) for meld in melds)


def places_by_tiles_left(tiles_left: Sequence[int], winner: int | None) -> list[int]:
    """Stein ranking: the winner first, the others by tiles left, fewer is better; ties share."""
    keys = [(0 if i == winner else 1, n) for i, n in enumerate(tiles_left)]
    order = sorted(keys)
    return [order.index(k) + 1 for k in keys]


def _points_by_place(
    tiles_left: Sequence[int],
    winner: int | None,
    values: Sequence[float],
    first_round_out: str,
    first_round: bool,
) -> list[float]:
    """Place k (1 = best: the winner, then fewest tiles left) earns ``values[k - 1]``; players
    tied on tiles share the average of their places' values. When the winner went out in the
    very first round of turns, ``first_round_out`` decides: ``split`` the winner gets the first
    place's value and the others share the rest equally, ``equal`` everybody gets the same,
    ``normal`` as usual (RULES.md "Preset stein", option ``first_round_out``)."""
    n = len(tiles_left)
    total = sum(values)
    if first_round and winner is not None and n > 1:
        if first_round_out == "equal":
            return [total / n] * n
        if first_round_out == "split":
            rest = (total - values[0]) / (n - 1)
            return [float(values[0]) if i == winner else rest for i in range(n)]
    keys = [(0 if i == winner else 1, t) for i, t in enumerate(tiles_left)]
    order = sorted(keys)
    points = []
    for key in keys:
        first = order.index(key)  # 0-based first place of the tie block
        size = order.count(key)
        points.append(sum(values[first : first + size]) / size)
    return points


def stein_place_values(n: int) -> list[int]:
    """Stein MP by place: rank k of n gets n+1-k (4/3/2/1, 3/2/1; RULES.md "Preset stein")."""
    return [n + 1 - k for k in range(1, n + 1)]


def stein_plus_place_values(n: int, winner: bool) -> list[int]:
    """Stein Plus SMP by place, for any number of players (RULES.md "Preset stein_plus"): an
    empty hand earns 4, then by fewest tiles left 3, 2, 1 and 0 below that. With no winner
    (a game ended early or stalled) nobody has the empty hand: the places earn 3, 2, 1, 0."""
    ladder = [4, 3, 2, 1] if winner else [3, 2, 1]
    return [ladder[k] if k < len(ladder) else 0 for k in range(n)]


def stein_match_points(
    tiles_left: Sequence[int],
    winner: int | None,
    *,
    first_round_out: str = "normal",
    first_round: bool = False,
) -> list[float]:
    """Match points of one Stein game: rank k of n gets n+1-k; players tied on tiles share the
    average of their places' MP (RULES.md "Preset stein"); ``first_round_out`` as in
    :func:`_points_by_place`."""
    values = stein_place_values(len(tiles_left))
    return _points_by_place(tiles_left, winner, values, first_round_out, first_round)


def stein_plus_match_points(
    tiles_left: Sequence[int],
    winner: int | None,
    claims: Sequence[int],
    *,
    first_round_out: str = "normal",
    first_round: bool = False,
) -> list[float]:
    """Stein Plus: game MP (SMP: empty hand 4, then 3, 2, 1 by fewest tiles left, for any
    number of players, :func:`stein_plus_place_values`) plus one claim MP (CMP) per claim still
    standing at the end (RULES.md "Preset stein_plus")."""
    values = stein_plus_place_values(len(tiles_left), winner is not None)
    smp = _points_by_place(tiles_left, winner, values, first_round_out, first_round)
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
    """The points of a finished tile game by its ``rules.scoring`` (what ``rummy score`` prints):
    ``rack_points`` (Rummikub) or ``places`` (Stein MP; with ``rules.claims`` Stein Plus)."""
    if rules.scoring == "rack_points":
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


def tile_ranks(
    rules: RuleSet,
    points: Sequence[float],
    lefts: Sequence[Sequence[Face]],
    winner: int | None,
) -> list[int]:
    """The ranks of a finished tile game: by points (``rack_points``) or by place (the winner,
    then fewest tiles left)."""
    if rules.scoring == "rack_points":
        return competition_ranks(points)
    return places_by_tiles_left([len(left) for left in lefts], winner)


def tile_details(rules: RuleSet, lefts: Sequence[Sequence[Face]]) -> dict[str, Any]:
    """What a finished tile game's result adds per scoring: ``rack_values`` for ``rack_points``."""
    if rules.scoring == "rack_points":
        return {"rack_values": [rack_value(left, rules.joker_penalty) for left in lefts]}
    return {}
