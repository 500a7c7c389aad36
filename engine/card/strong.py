"""The ``strong`` card player (RULES.md ``romme`` / ``rummy``): hold, count live cards, go out.

Winning a card game means emptying the hand first. Whatever a player lays on the table before
that helps the others (classic Rummy: anyone lays off on any meld; Rommé: once opened, anyone
lays off and swaps the table jokers out) and brings the player no closer to going out: a card
that fits a meld or a lay-off now still fits later, because the table only grows. So the strong
player *holds*: it lays nothing until the whole hand can go in one turn (classic Rummy: going
out, "going rummy" when nothing was laid before; Rommé: a Hand-Rommé, which needs no 40-point
opening and doubles the others' penalties), and meanwhile keeps every card the best plan would
use (melds of the hand, lay-offs on the table) and discards from the rest.

The discard is the card of the rest least worth keeping (:func:`keep_value`): every three-card
meld it could join is weighed by the chance of its missing cards (cards in hand are certain,
unseen cards possible, cards on the table or in the discard pile dead), and a card that the
others could use at once (it fits a table meld) or probably hold partners for weighs more, since
the next player may take it. The top discard is taken when it lets the best plan use one card
more (:func:`wants_top`).

What the player sees is what the seat may see: its hand, the table and the discard pile; the
unseen cards are the deck without those (:func:`unseen_cards`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from ..cardplan import CardPlan, best_card_plan
from ..pieces import Face
from .scoring import card_penalty

__all__ = [
    "choose_discard",
    "holds",
    "keep_value",
    "live_outs",
    "meld_windows",
    "strong_card_play",
    "unseen_cards",
    "wants_top",
]

LIVE = 0.12
"""Weight of one unseen copy of a missing card (a card in hand counts 1)."""

DANGER = 0.5
"""Weight of the chance that the others hold the partners of a discard (they may take it)."""

FITS_TABLE = 4.0
"""Extra weight of a discard that fits a table meld (the next player lays it off at once)."""


HOLD_LIMIT = 15
"""The most cards a strong player holds (the hand after its draw): its hold search grows
exponentially with the hand, and a hand past a deal and two draws means holding has failed (the
Rommé variant where one draws two cards, say); then it plays as medium does."""


def holds(game, seat: int) -> bool:
    """Whether the strong player still holds (its hand within :data:`HOLD_LIMIT`)."""
    return len(game.racks[seat]) <= HOLD_LIMIT


def unseen_cards(game, seat: int) -> Counter:
    """The cards the seat has not seen: the deck without its hand, the table and the discards."""
    counts = Counter(game.deck.faces)
    for meld in game.table_faces():
        counts.subtract(meld)
    counts.subtract(game.faces(game.discards))
    counts.subtract(game.faces(game.racks[seat]))
    return +counts


def _hold_plan(game, seat: int, hand: Sequence[Face]) -> CardPlan | None:
    """The plan that uses the most cards of ``hand`` if everything were allowed now (melds of
    the hand and lay-offs, no minimum): the cards it uses are kept."""
    picked = game.turn["picked"]
    return best_card_plan(
        list(hand),
        game.table_faces(),
        game.rules.meld_spec,
        fits=lambda i, cards: game.fits(i + 1, cards),
        penalty=card_penalty(game.rules),
        lay_off=True,
        minimum=0,
        keep="any" if game.empty_hand_ok else "discard",
        undiscardable=game.deck[picked] if picked is not None else None,
    )


def strong_card_play(game, seat: int, rng: random.Random) -> list[str]:
    """The rest of a strong turn after the draw: go out when the whole hand can go (the plan
    that keeps the most cards leaves at most the discard: classic Rummy going out, a Rommé
    Hand-Rommé, where no minimum applies), else hold everything and discard the card least
    worth keeping among those the plan does not use."""
    hand = game.faces(game.racks[seat])
    hold = _hold_plan(game, seat, hand)
    if hold is not None and len(hold.left) <= 1:
        out = hold.commands()
        return [*out, f"discard {hold.left[0]}"] if hold.left else [*out, "done"]
    rest = list(hold.left) if hold is not None else list(hand)
    picked = game.turn["picked"]
    banned = game.deck[picked] if picked is not None else None
    choices = [f for f in rest if f != banned or hand.count(banned) > 1] or [
        f for f in hand if f != banned
    ]
    return [f"discard {choose_discard(game, seat, choices, hand, rng)}"]


def choose_discard(game, seat: int, choices: Sequence[Face], hand: Sequence[Face], rng) -> Face:
    """The card of ``choices`` least worth keeping (:func:`keep_value`, plus the risk that the
    others use it), never a joker while another card may go; ties: the highest penalty."""
    unseen = unseen_cards(game, seat)
    counts = Counter(hand)
    wrap = game.rules.run_mode == "wrap"
    table = game.table_faces()
    penalty = card_penalty(game.rules)
    real = [f for f in choices if not f.is_joker] or list(choices)
    scored = []
    for card in sorted(set(real)):
        value = keep_value(card, counts, unseen, wrap)
        danger = DANGER * _danger(card, counts, unseen, wrap)
        if any(game.fits(i + 1, [card]) for i in range(len(table))):
            danger += FITS_TABLE
        scored.append((round(value + danger, 6), -penalty(card), rng.random(), card))
    return min(scored)[3]


def meld_windows(card: Face, wrap: bool) -> list[list[Face]]:
    """The other two pieces of every three-piece meld with ``card`` (a card or a tile): groups
    (two other suits or colours) and runs (the three windows of its suit that hold it, round
    the corner where runs wrap)."""
    kind = type(card)
    others = [kind(s, card.rank) for s in range(4) if s != card.suit]
    out = [[others[a], others[b]] for a, b in ((0, 1), (0, 2), (1, 2))]
    for start in (card.rank - 2, card.rank - 1, card.rank):
        cells = [start + i for i in range(3)]
        if wrap:
            cells = [(c - 1) % 13 + 1 for c in cells]
        elif cells[0] < 1 or cells[2] > 13:
            continue
        out.append([kind(card.suit, c) for c in cells if c != card.rank])
    return out


def keep_value(card: Face, hand: Counter, unseen: Counter, wrap: bool) -> float:
    """How much a hand card is worth keeping: every three-card meld it could join, weighted by
    the chance of each missing card (in hand: 1; else :data:`LIVE` per unseen copy; a card on the
    table or discarded: 0); jokers in hand stand in for one missing card."""
    if card.is_joker:
        return 100.0
    jokers = sum(c for f, c in hand.items() if f.is_joker)
    others = hand.copy()
    others[card] -= 1

    def chance(cell: Face) -> float:
        return 1.0 if others[cell] > 0 else LIVE * unseen[cell]

    score = 0.0
    for pair in meld_windows(card, wrap):
        p = [chance(c) for c in pair]
        best = p[0] * p[1]
        if jokers:
            best = max(best, max(p))
        score += best
    return score


def live_outs(card: Face, hand: Counter, unseen: Counter, wrap: bool) -> int:
    """The unseen cards that would make a three-card meld with ``card`` and one other card of
    ``hand`` (each unseen copy counted once)."""
    others = hand.copy()
    others[card] -= 1
    cells: set[Face] = set()
    for pair in meld_windows(card, wrap):
        for a, b in (pair, pair[::-1]):
            if others[a] > 0 and others[b] <= 0:
                cells.add(b)
    return sum(unseen[c] for c in cells)


def _danger(card: Face, hand: Counter, unseen: Counter, wrap: bool) -> float:
    """How likely the others hold two partners of ``card`` (both unseen, none in our hand)."""
    score = 0.0
    for pair in meld_windows(card, wrap):
        if any(hand[c] for c in pair):
            continue
        score += (LIVE * unseen[pair[0]]) * (LIVE * unseen[pair[1]])
    return score


def wants_top(game, seat: int) -> bool:
    """Take the top discard when the hand with it keeps one card more than without it (the best
    plan uses it), or when it is a joker."""
    top = game.deck[game.discards[-1]]
    if top.is_joker:
        return True
    hand = game.faces(game.racks[seat])
    without = _hold_plan(game, seat, hand)
    with_top = _hold_plan(game, seat, [*hand, top])
    used = (len(hand) - len(without.left)) if without is not None else 0
    used_top = (len(hand) + 1 - len(with_top.left)) if with_top is not None else 0
    return used_top > used + 0
