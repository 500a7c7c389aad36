"""Scoring of the card games (RULES.md ``romme`` and ``rummy``): what a card left in hand costs,
Rommé's penalty points, classic Rummy's winner-takes-all points, and the score of a finished
game (:func:`score_game`). Pure functions of faces and rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..pieces import Face
from ..rules import RuleSet
from ..scoring import competition_ranks


def romme_card_penalty(face: Face, *, joker_double: bool = False) -> int:
    """Penalty of one card left in hand (RULES.md ``romme``): ace 11, J/Q/K 10, 2-10 face value,
    joker 20. With ``joker_double`` (variant h) a joker is weighed 40, the least it adds at the
    count (it doubles the whole hand, see :func:`romme_hand_penalty`); planners use this weight,
    scoring uses :func:`romme_hand_penalty`."""
    if face.is_joker:
        return 40 if joker_double else 20
    if face.rank == 1:
        return 11
    return 10 if face.rank >= 11 else face.rank


def romme_hand_penalty(faces: Sequence[Face], *, joker_double: bool = False) -> int:
    """Penalty of a hand at the count (RULES.md ``romme``): the sum of its cards; with variant h
    (``joker_double``) a hand that still holds a joker counts double as a whole (source text 001:
    "bekommt seine Punkte als Verlust doppelt")."""
    points = sum(romme_card_penalty(f) for f in faces)
    if joker_double and any(f.is_joker for f in faces):
        points *= 2
    return points


def rummy_card_points(face: Face) -> int:
    """Points of one card in classic Rummy (RULES.md ``rummy``): faces 10, ace 1, others face."""
    if face.is_joker:
        return 0
    return 10 if face.rank >= 11 else face.rank


def card_penalty(rules: RuleSet) -> Callable[[Face], int]:
    """What one card in hand costs in this game, for planners and computer players: Rommé's
    penalty (a joker 40 with variant h), classic Rummy's card points."""
    if not penalty_scoring(rules):
        return rummy_card_points
    double = rules.variant_joker_double
    return lambda f: romme_card_penalty(f, joker_double=double)


def penalty_scoring(rules: RuleSet) -> bool:
    """Does the game score penalty points per hand (Rommé), not winner takes all (Rummy)?"""
    return rules.scoring == "penalty"


def romme_penalties(
    lefts: Sequence[Sequence[Face]],
    *,
    hand_romme: bool = False,
    joker_double: bool = False,
    exempt: Iterable[int] = (),
) -> list[int]:
    """Rommé penalty points per seat (positive = bad, RULES.md ``romme``). A Hand-Rommé doubles
    the others' penalties, variant h doubles the hand of whoever still holds a joker (both apply:
    a joker holder after a Hand-Rommé pays four times); ``exempt`` seats (the announcer of
    variant e, the colour-Rommé player of variant f, the winner) score nothing."""
    free = set(exempt)
    out = []
    for seat, faces in enumerate(lefts):
        if seat in free:
            out.append(0)
            continue
        points = romme_hand_penalty(faces, joker_double=joker_double)
        out.append(points * 2 if hand_romme else points)
    return out


def rummy_points(lefts: Sequence[Sequence[Face]], winner: int, *, rummy: bool = False) -> list[int]:
    """Classic Rummy, winner takes all (RULES.md ``rummy``): the winner gets the sum of everybody
    else's hand; going rummy doubles it. Everybody else scores 0."""
    total = sum(
        rummy_card_points(f) for seat, faces in enumerate(lefts) if seat != winner for f in faces
    )
    if rummy:
        total *= 2
    return [total if seat == winner else 0 for seat in range(len(lefts))]


def match_target(rules: RuleSet, n_players: int) -> int | None:
    """Points that win a classic Rummy match: 100 / 150 / 200 for 2 / 3 / 4 players."""
    return dict(rules.match_target_by_players).get(n_players)


def strike_points(hand_romme: bool) -> int:
    """Variant i: the winner strikes 10 (Hand-Rommé 20) points off earlier penalties."""
    return 20 if hand_romme else 10


def score_game(
    rules: RuleSet,
    lefts: Sequence[Sequence[Face]],
    reason: str,
    winner: int | None,
    *,
    special: bool = False,
    announcer: int | None = None,
) -> tuple[list[int], list[int], dict[str, Any]]:
    """Points, ranks (1 = best, ties share) and details of a finished single game (RULES.md):
    a draw or stalemate scores nothing; Rommé scores penalty points (positive = bad; ``special``
    = Hand-Rommé; the winner and the announcer of variant e score 0); classic Rummy gives the
    winner everybody's card points (``special`` = going rummy), nothing without a winner."""
    n = len(lefts)
    details: dict[str, Any] = {}
    penalties = penalty_scoring(rules)
    if reason in ("draw", "stalemate") or (not penalties and winner is None):
        return [0] * n, [1] * n, details
    if penalties:
        exempt = {s for s in (winner, announcer) if s is not None}
        points = romme_penalties(
            lefts,
            hand_romme=special and rules.hand_romme_double,
            joker_double=rules.variant_joker_double,
            exempt=exempt,
        )
        ranks = competition_ranks(points, higher_is_better=False)
        if winner is not None:
            ranks[winner] = 1
        details["hand_romme"] = special
        if announcer is not None:
            details["announcer"] = announcer
        if rules.variant_winner_strikes and winner is not None:
            details["strike"] = {"seat": winner, "points": strike_points(special)}
        return points, ranks, details
    assert winner is not None
    points = rummy_points(lefts, winner, rummy=special and rules.rummy_bonus_double)
    ranks = [1 if s == winner else 2 for s in range(n)]
    details["rummy"] = special
    target = match_target(rules, n)
    if target is not None:
        details["match_target"] = target
    return points, ranks, details
