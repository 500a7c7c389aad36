"""The best meld-and-lay-off plan for a card hand (RULES.md presets ``romme`` and ``rummy``).

Card games do not rearrange the table: a turn removes cards from the hand only by laying new melds
from the hand and by laying cards off on melds already on the table. :func:`best_card_plan`
finds, exactly, the plan that removes the most cards (``objective="count"``, ties broken by the
penalty value removed) or the most penalty value (``objective="value"``, ties by count), under
the turn's constraints:

- ``lay_off``: whether lay-offs are allowed at all (Rommé before the opening: only in a
  Hand-Rommé, see :func:`plan_for_turn`);
- ``minimum``: the melds laid together must be worth at least this much, or none is laid
  (Rommé's 40-point opening; meld values as :func:`engine.melds.analyse` counts them);
- ``keep``: which leftovers are acceptable: ``"discard"`` (at least one card the player may
  discard must stay: Rommé always, Rummy unless going out), ``"any"`` (the hand may be emptied).
  ``undiscardable`` is one card that may not be the discard (the card picked from the discard
  pile this turn); a second copy of it may.

The search: candidate melds are every group (3-4 distinct suits, jokers filling missing suits)
and every run (consecutive positions of one suit, each position a real card or a joker) that the
hand can make. A depth-first search takes the lowest card still undecided and either puts it in
a candidate meld (with cards still free) or leaves it out of the new melds, so every disjoint set
of melds is visited once. For the cards left out, the best lay-off assignment is searched exactly
(each table meld takes one of the card sets it can take, or none), memoised by the leftover
multiset; the engine's own lay-off test (``fits(meld_index, cards)``) decides whether a meld takes a set of
cards; the lay-off search goes meld by meld over the card sets each table meld takes, memoised
by the cards still in hand. A bound (the cards not yet decided) prunes the meld search.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .melds import MeldSpec, first_positions, rank_at, readings, span_ok
from .pieces import Face, format_faces
from .scoring import meld_value

Objective = Literal["count", "value"]
Keep = Literal["discard", "any"]
Fits = Callable[[int, Sequence[Face]], bool]

__all__ = [
    "CardPlan",
    "best_card_plan",
    "candidate_card_melds",
    "plan_for_turn",
]


@dataclass(frozen=True, slots=True)
class CardPlan:
    """New ``melds`` from the hand (in the order to lay them), ``layoffs`` as (table meld index
    0-based, cards), and the cards ``left`` in hand. ``removed`` counts the cards played,
    ``value`` their penalty value, ``meld_value`` what the new melds are worth (opening)."""

    melds: tuple[tuple[Face, ...], ...] = ()
    layoffs: tuple[tuple[int, tuple[Face, ...]], ...] = ()
    left: tuple[Face, ...] = ()
    removed: int = 0
    value: int = 0
    meld_value: int = 0
    notes: dict[str, object] = field(default_factory=dict)

    def commands(self) -> list[str]:
        """The plan as commands: one ``meld`` with every new meld, then one ``add`` per table
        meld (1-based numbers: the table melds keep their numbers, new melds come after)."""
        out = []
        if self.melds:
            out.append("meld " + " | ".join(format_faces(m) for m in self.melds))
        for index, cards in self.layoffs:
            out.append(f"add {index + 1} {format_faces(cards)}")
        return out


def _run_positions(mode: str, max_run: int) -> list[list[int]]:
    """Every run as its list of ranks by position (length 3 .. max_run, at most 13)."""
    out = []
    for start in first_positions(mode):
        for length in range(3, min(max_run, 13) + 1):
            if not span_ok(mode, start, length, max_run):
                break
            out.append([rank_at(mode, start + i) for i in range(length)])
    return out


def candidate_card_melds(hand: Sequence[Face], spec: MeldSpec) -> list[tuple[Face, ...]]:
    """Every valid meld the hand can make (groups and runs, jokers anywhere they fit), each once,
    as faces in table order. Not necessarily disjoint."""
    counts = Counter(hand)
    real = [f for f in counts if not f.is_joker]
    if not real and not counts:
        return []
    face_type = type(next(iter(counts)))
    joker = face_type.joker()
    jokers = counts[joker]
    found: set[tuple[Face, ...]] = set()
    by_rank: dict[int, list[Face]] = {}
    by_suit: dict[int, set[int]] = {}
    for f in real:
        by_rank.setdefault(f.rank, []).append(f)
        by_suit.setdefault(f.suit, set()).add(f.rank)
    for faces in by_rank.values():
        faces = sorted(faces)
        for size in range(1, min(len(faces), spec.max_group) + 1):
            for subset in itertools.combinations(faces, size):
                for j in range(0, jokers + 1):
                    if 3 <= size + j <= spec.max_group:
                        found.add((*subset, *([joker] * j)))
    for suit, ranks in by_suit.items():
        for cells in _run_positions(spec.run_mode, spec.max_run):
            have = [r in ranks for r in cells]
            missing = have.count(False)
            if missing > jokers or not any(have):
                continue
            present = [i for i, h in enumerate(have) if h]
            spare = jokers - missing
            # a joker may also stand where the real card is held (that card may serve elsewhere)
            for k in range(0, min(spare, len(present) - 1) + 1):
                for swap in itertools.combinations(present, k):
                    meld = tuple(
                        face_type(suit, r) if have[i] and i not in swap else joker
                        for i, r in enumerate(cells)
                    )
                    found.add(meld)
    return [m for m in sorted(found) if readings(m, spec)]


@dataclass(slots=True)
class _Best:
    key: tuple[int, int] = (-1, -1)
    melds: tuple[tuple[Face, ...], ...] = ()
    layoffs: tuple[tuple[int, tuple[Face, ...]], ...] = ()
    left: tuple[Face, ...] = ()


def _could_take(meld: Sequence[Face], card: Face) -> bool:
    """A cheap necessary condition for laying ``card`` off on ``meld``."""
    if card.is_joker:
        return True
    real = [f for f in meld if not f.is_joker]
    if not real:
        return True
    if len({f.rank for f in real}) == 1 and len(real) > 1 and len({f.suit for f in real}) > 1:
        return card.rank == real[0].rank  # a group
    return card.suit == real[0].suit  # a run (or a one-card reading)


def best_card_plan(
    hand: Sequence[Face],
    table: Sequence[Sequence[Face]],
    spec: MeldSpec,
    *,
    fits: Fits | None,
    penalty: Callable[[Face], int],
    lay_off: bool = True,
    minimum: int = 0,
    keep: Keep = "discard",
    undiscardable: Face | None = None,
    objective: Objective = "count",
    must_empty: bool = False,
) -> CardPlan | None:
    """The best plan (see the module docstring), or None when no plan meets the constraints
    (only possible with ``must_empty``: the hand must end empty except for the discard).

    ``fits(i, cards)``: may ``cards`` be laid off together on table meld ``i`` (0-based)?
    ``penalty(card)``: what the card costs in hand. ``must_empty``: only plans that leave at
    most the discard (a Hand-Rommé) count."""
    hand = list(hand)
    candidates = candidate_card_melds(hand, spec)
    values = {m: meld_value(m, spec) for m in candidates}
    by_card: dict[Face, list[tuple[Face, ...]]] = {}
    for m in candidates:
        for f in set(m):
            if not f.is_joker:
                by_card.setdefault(f, []).append(m)
    layoff_ok = lay_off and fits is not None and bool(table)
    takers = {}
    if layoff_ok:
        for f in set(hand):
            takers[f] = [i for i, meld in enumerate(table) if _could_take(meld, f)]
    fit_cache: dict[tuple[int, tuple[Face, ...]], bool] = {}

    def fits_cached(i: int, cards: tuple[Face, ...]) -> bool:
        key = (i, cards)
        if key not in fit_cache:
            assert fits is not None
            fit_cache[key] = fits(i, list(cards))
        return fit_cache[key]

    def score(cards: Sequence[Face]) -> tuple[int, int]:
        count, value = len(cards), sum(penalty(f) for f in cards)
        return (count, value) if objective == "count" else (value, count)

    def leftover_ok(left: Sequence[Face]) -> bool:
        if must_empty:
            if keep == "any" and not left:
                return True
            if len(left) != 1:
                return False
        if not left:
            return keep == "any"
        if undiscardable is None:
            return True
        return len(left) > 1 or left[0] != undiscardable

    layoff_memo: dict[tuple[Face, ...], tuple[tuple[int, int], tuple, tuple[Face, ...]] | None] = {}

    def best_layoff(left: tuple[Face, ...]):
        """Best lay-off of these cards (score, layoffs, cards kept), or None if no valid
        leftover exists."""
        if left in layoff_memo:
            return layoff_memo[left]
        result = None
        if not layoff_ok:
            if leftover_ok(left):
                result = ((0, 0), (), left)
            layoff_memo[left] = result
            return result
        # per table meld, every set of these cards it takes (a meld takes few candidates)
        options: list[tuple[int, list[tuple[Face, ...]]]] = []
        for i in range(len(table)):
            relevant = sorted(c for c in left if i in takers.get(c, ()))
            found: set[tuple[Face, ...]] = set()
            for size in range(1, len(relevant) + 1):
                for combo in itertools.combinations(relevant, size):
                    if combo not in found and fits_cached(i, combo):
                        found.add(combo)
            if found:
                options.append((i, sorted(found, key=lambda c: (-len(c), c))))
        memo: dict[tuple[int, tuple[Face, ...]], tuple | None] = {}

        def go(k: int, rest: tuple[Face, ...]):
            """Best (score, layoffs, kept) for melds k.. with these cards still in hand."""
            key = (k, rest)
            if key in memo:
                return memo[key]
            if k == len(options):
                out = (score(()), (), rest) if leftover_ok(rest) else None
                memo[key] = out
                return out
            best_here = go(k + 1, rest)
            i, sets = options[k]
            have = Counter(rest)
            for combo in sets:
                need = Counter(combo)
                if any(have[f] < c for f, c in need.items()):
                    continue
                remaining = tuple(sorted((have - need).elements()))
                sub = go(k + 1, remaining)
                if sub is None:
                    continue
                laid = [*combo, *(f for _, cs in sub[1] for f in cs)]
                total = score(laid)
                if best_here is None or total > best_here[0]:
                    best_here = (total, ((i, combo), *sub[1]), sub[2])
            memo[key] = best_here
            return best_here

        result = go(0, tuple(sorted(left)))
        layoff_memo[left] = result
        return result

    best = _Best()
    counts = Counter(hand)
    joker = type(hand[0]).joker() if hand else None

    def search(order: list[Face], k: int, chosen: list[tuple[Face, ...]], left: list[Face]):
        # bound: everything not yet decided (and every joker left) could still be removed, and
        # so could a card left out of the new melds that some table meld may take (lay-off)
        removed = [f for m in chosen for f in m]
        if best.key >= (0, 0):
            undecided = [f for f in order[k:] if counts[f] > 0 and not f.is_joker]
            layable = [f for f in left if takers.get(f)]
            optimistic = removed + layable + undecided + [joker] * counts[joker]
            if score(optimistic) <= best.key:
                return
        if k == len(order):
            meld_value = sum(values[m] for m in chosen)
            if chosen and meld_value < minimum:
                return
            rest = tuple(sorted(left + [f for f in counts.elements() if f.is_joker]))
            found = best_layoff(rest)
            if found is None:
                return
            _, layoffs, kept = found
            laid = [f for _, cs in layoffs for f in cs]
            total = score(removed + laid)
            if total > best.key:
                best.key = total
                best.melds = tuple(chosen)
                best.layoffs = layoffs
                best.left = kept
            return
        card = order[k]
        if counts[card] <= 0:
            search(order, k + 1, chosen, left)
            return
        for meld in by_card.get(card, []):
            need = Counter(meld)
            if all(counts[f] >= c for f, c in need.items()):
                for f, c in need.items():
                    counts[f] -= c
                chosen.append(meld)
                search(order, k, chosen, left)
                chosen.pop()
                for f, c in need.items():
                    counts[f] += c
        counts[card] -= 1
        left.append(card)
        search(order, k, chosen, left)
        left.pop()
        counts[card] += 1

    order = sorted(f for f in hand if not f.is_joker)
    search(order, 0, [], [])
    if best.key < (0, 0):
        return None
    laid = [f for m in best.melds for f in m] + [f for _, cs in best.layoffs for f in cs]
    return CardPlan(
        melds=best.melds,
        layoffs=best.layoffs,
        left=tuple(best.left),
        removed=len(laid),
        value=sum(penalty(f) for f in laid),
        meld_value=sum(values[m] for m in best.melds),
    )


def plan_for_turn(
    hand: Sequence[Face],
    table: Sequence[Sequence[Face]],
    spec: MeldSpec,
    *,
    must_open: bool,
    opened: bool,
    minimum: int,
    empty_hand_ok: bool,
    fits: Fits | None,
    penalty: Callable[[Face], int],
    undiscardable: Face | None = None,
    objective: Objective = "count",
) -> CardPlan:
    """The best plan for the player to move in a card game, with the turn's rules applied
    (RULES.md, docs/CARDS.md):

    - classic Rummy: melds and lay-offs, no minimum; the hand may be emptied (going out without
      a discard); otherwise a card that may be discarded stays.
    - Rommé after an opening on an earlier turn: melds and lay-offs, no minimum; a discard stays
      (unless variant g lets the hand be emptied).
    - Rommé before opening: either a Hand-Rommé (melds and lay-offs that leave only the
      discard, or nothing with variant g; no minimum), or melds alone worth ``minimum``
      together, or nothing.
    """
    keep: Keep = "any" if empty_hand_ok else "discard"
    common = dict(fits=fits, penalty=penalty, undiscardable=undiscardable, objective=objective)
    if not must_open or opened:
        plan = best_card_plan(hand, table, spec, lay_off=True, minimum=0, keep=keep, **common)
        assert plan is not None
        return plan
    hand_romme = best_card_plan(
        hand, table, spec, lay_off=True, minimum=0, keep=keep, must_empty=True, **common
    )
    if hand_romme is not None:
        return hand_romme
    plan = best_card_plan(
        hand, table, spec, lay_off=False, minimum=minimum, keep="discard", **common
    )
    assert plan is not None
    return plan
