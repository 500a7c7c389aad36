"""Errors of a card game worded for cards (RULES.md ``romme`` / ``rummy``): the shared stable
codes keep their params, the sentence speaks of cards, suits and ranks (Karten, Farben) - the
catalogue's ``error.card.<code>`` where one exists (:class:`CardRummyError`), the corner rule of
this game, and a run gap that mentions jokers only where the game has them (:func:`card_error`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from ..errors import RummyError
from ..melds import first_positions, rank_at, span_ok
from ..pieces import Card, Face, parse_faces
from ..rules import RuleSet
from .parse import has_jokers


def reason(key: str, **params: Any) -> dict[str, Any]:
    """The ``why`` param of an error: the reason as data (catalogue key ``why.<name>``)."""
    return {"why": {"key": key, **params}}


# shared reasons that a card game words otherwise (cards have no Stein "discard N PIECE")
_CARD_KEYS = {"why.usage.discard": "why.usage.discard.card"}


def _card_keys(value: Any) -> Any:
    """A nested reason with the card game's keys where it words one otherwise."""
    if isinstance(value, dict):
        out = {k: _card_keys(v) for k, v in value.items()}
        if "key" in out:
            out["key"] = _CARD_KEYS.get(out["key"], out["key"])
        return out
    return value


def card_verbs(rules: RuleSet) -> str:
    """The command words of this card game, for ``parse.command`` (no tile verbs)."""
    verbs = ["draw", "pick", "meld", "add"]
    if has_jokers(rules):
        verbs.append("swap")
    verbs += ["hint", "undo", "reset", "discard", "done"]
    if rules.romme_variants and (rules.variant_knocking or rules.variant_announce_ten):
        verbs.append("knock")
    return ", ".join(verbs)


class CardRummyError(RummyError):
    """A :class:`RummyError` raised in a card game: the same stable code and params, the
    sentence worded for cards (the catalogue's ``error.card.<code>`` where there is one)."""

    wording: ClassVar[str | None] = "card"


def card_error(exc: RummyError, rules: RuleSet) -> RummyError:
    """``exc`` as a card game says it: meld errors speak of cards and suits, the corner rule is
    the one of this game (RULES.md: Rummy's aces are low only; Rommé variant c: Q-K-A and A-2-3
    but no K-A-2), a run gap mentions jokers only where the game has them."""
    if type(exc) is not RummyError:
        return exc
    params = {k: _card_keys(v) for k, v in exc.params.items()}
    if exc.code == "parse.command":
        params["verbs"] = card_verbs(rules)
    if exc.code == "meld.run_wrap":
        mode = rules.run_mode if rules.run_mode in ("linear", "ace_high") else "linear"
        params["corner"] = {"key": f"why.corner.{mode}"}
    if exc.code == "meld.run_gap":
        gap = _gap_of(str(params.get("pieces", "")), rules)
        if gap is not None:
            params["gap"] = str(gap)
        params["fill"] = {"key": "why.run_gap.jokers"} if has_jokers(rules) else ""
    return CardRummyError(exc.code, **params)


def run_gap(faces: Sequence[Face], mode: str) -> Face | None:
    """The first missing card of the shortest stretch of positions in which these cards of one
    suit would be a run (RULES.md ``romme``: round the corner with ``wrap``, the ace high after
    the king or low with ``ace_high``; ``rummy``: aces low only), e.g. K-2-3 misses the ace
    where runs wrap. None when they are not one suit or no stretch holds them."""
    real = [f for f in faces if not f.is_joker]
    if not real or len({f.suit for f in real}) != 1:
        return None
    ranks = Counter(f.rank for f in real)
    starts = first_positions(mode)
    best: tuple[int, int] | None = None  # (missing, start)
    for start in starts:
        for length in range(1, len(starts) + 1):
            if not span_ok(mode, start, length, 14):
                break
            span = Counter(rank_at(mode, start + i) for i in range(length))
            if all(span[r] >= c for r, c in ranks.items()):
                missing = length - sum(ranks.values())
                if best is None or missing < best[0]:
                    best = (missing, start)
                break
    if best is None or best[0] <= 0:
        return None
    start = best[1]
    for i in range(14):
        rank = rank_at(mode, start + i)
        if ranks[rank] == 0:
            return Card(real[0].suit, rank)
        ranks[rank] -= 1
    return None


def _gap_of(pieces: str, rules: RuleSet) -> Face | None:
    """:func:`run_gap` of a meld as an error prints it (``(5S 6S 8S)`` or ``5S 6S 8S``)."""
    try:
        faces = parse_faces(pieces.strip("()"), "card")
    except RummyError:
        return None
    return run_gap(faces, rules.run_mode)
