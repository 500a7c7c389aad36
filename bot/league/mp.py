"""Match points (MP) by place: rank k of n gets n+1-k, tied players share the average.

RULES.md, preset ``stein``, "Match points": 4 players 4/3/2/1, 3 players 3/2/1; players tied on
tiles share the average of the MP of their places. The league uses the same place points to make
Rummikub and Rommé games comparable (see ``presets.py``).

Ranks are the engine's :func:`engine.scoring.competition_ranks` (re-exported here for the
league's callers). ``stein_mp`` and ``first_round_out_mp`` check their input and then delegate
the arithmetic to ``engine.scoring.stein_match_points``, so the league and the engine score a
game identically.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.league.errors import LeagueError
from engine.scoring import competition_ranks, stein_match_points

__all__ = ["competition_ranks", "first_round_out_mp", "place_points", "stein_mp"]


def place_points(values: Sequence[float], *, higher_is_better: bool) -> list[float]:
    """Place k of n gets n+1-k points; a tie over places k..k+m-1 shares their average.

    The places are the engine's one ranking (:func:`engine.scoring.competition_ranks`).
    """
    n = len(values)
    points: list[float] = []
    for value, first in zip(
        values, competition_ranks(values, higher_is_better=higher_is_better), strict=True
    ):
        tied = sum(1 for other in values if other == value)
        points.append(sum(n + 1 - k for k in range(first, first + tied)) / tied)
    return points


def stein_mp(tiles_left: Sequence[int], winner: int | None) -> list[float]:
    """Stein-Rummy SMP from tiles left (RULES.md ``stein`` "Match points"; seed 000).

    The winner (the seat that emptied the hand) is first alone; the others rank by tiles left,
    fewer is better, ties averaged. ``winner=None`` scores a game the director ended early
    (seed 000 "Mögliche Turnierregeln b"): everybody ranks by tiles left.
    """
    n = len(tiles_left)
    if n < 2:
        raise LeagueError("mp.too_few_players", min=2, count=n)
    for seat, tiles in enumerate(tiles_left):
        if tiles < 0:
            raise LeagueError("mp.negative", seat=seat, value=tiles)
    if winner is not None:
        if not 0 <= winner < n:
            raise LeagueError("mp.bad_winner", winner=winner, count=n)
        if tiles_left[winner] != 0:
            raise LeagueError("mp.winner_has_tiles", winner=winner, tiles=tiles_left[winner])
    # The winner ranks ahead of everybody, even of another seat that happens to hold 0 tiles.
    return [float(mp) for mp in stein_match_points(list(tiles_left), winner)]


def first_round_out_mp(count: int, winner: int, policy: str) -> list[float]:
    """MP when a player goes out in the very first round of turns (RULES.md ``first_round_out``).

    ``split``: the winner gets full MP (n), the others share the rest equally;
    ``equal``: everybody gets (n+1)/2. (``normal`` is plain :func:`stein_mp`.)
    """
    if count < 2:
        raise LeagueError("mp.too_few_players", min=2, count=count)
    if not 0 <= winner < count:
        raise LeagueError("mp.bad_winner", winner=winner, count=count)
    if policy not in ("split", "equal"):
        raise LeagueError("mp.bad_policy", policy=policy)
    tiles = [0 if seat == winner else 1 for seat in range(count)]
    return [
        float(mp)
        for mp in stein_match_points(tiles, winner, first_round_out=policy, first_round=True)
    ]
