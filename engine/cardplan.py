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
from typing import TYPE_CHECKING, Any, Literal

from .card.scoring import card_penalty, romme_hand_penalty
from .card.table import swap_position
from .melds import MeldSpec, first_positions, rank_at, readings, span_ok
from .pieces import Face, format_faces
from .scoring import meld_value

if TYPE_CHECKING:
    from .cards import CardGame

Objective = Literal["count", "value"]
Keep = Literal["discard", "any"]
Fits = Callable[[int, Sequence[Face]], bool]

__all__ = [
    "CardHint",
    "CardPlan",
    "best_card_plan",
    "candidate_card_melds",
    "card_hint",
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


# ---------------------------------------------------------------------- the hint of a card game

SWAP_LIMIT = 4
"""Joker swaps tried per hint (each costs a plan search): a table rarely offers more."""


@dataclass(frozen=True, slots=True)
class CardHint:
    """One accepted hint: the ``command`` to type (a whole message, tried on a copy of the game),
    the cards ``left`` in hand after it, and its ``words`` as data: the params of the hint
    event (catalogue key ``hint.card.*``, ``command`` among them; the sentence ends with
    ``": " + command``)."""

    command: str
    left: int
    words: dict[str, Any]


Why = list[dict[str, Any]]
"""A hint's reason as parts (``hint.card.why.*`` keys), worded one after the other."""


def _hint(command: str, left: int, key: str, **params: Any) -> CardHint:
    return CardHint(command, left, {"key": f"hint.card.{key}", **params, "command": command})


def card_hint(game: CardGame, seat: int) -> CardHint:
    """The ``hint`` of a card game (RULES.md ``romme`` / ``rummy`` "A turn"), for the state the
    turn is in:

    - a knocker (Rommé variant a) first melds the knocked card;
    - before drawing: ``knock`` when variant e allows announcing, else ``pick CARD`` when the top
      discard lets more cards be played than without it, else ``draw``;
    - after drawing: colour Rommé (``done``, variant f) when it ends the game; else the best
      meld-and-lay-off plan (:func:`plan_for_turn`: Rommé's opening minimum, lay-offs before the
      opening only in a Hand-Rommé, a discard kept where the game needs one) from the turn as it
      is, after ``reset`` and after each joker swap, then the discard (the card with the fewest
      partners in the hand, the highest penalty among those).

    Every candidate is run on a copy of the game and only an accepted one is offered; the one
    leaving the fewest cards in hand wins (ties: fewer commands)."""
    t = game.turn
    if t["knock_due"]:
        return _knock_hint(game, seat)
    if not t["drawn"]:
        return _draw_hint(game, seat)
    options: list[tuple[int, int, int, list[str], Why, int]] = []
    history = t["history"]
    on_table = sum(len(m[0]) for m in history[0]["table"]) if history else 0
    on_table = on_table if history else sum(len(m.ids) for m in game.table)
    colour = _colour_hint(game, seat)
    if colour is not None:
        options.append(colour)
    starts: list[tuple[list[str], CardGame]] = [([], game)]
    if t["history"]:
        reset = _accepted(game, seat, "reset")
        if reset is not None:
            starts.append((["reset"], reset))
    for prefix, start in list(starts):
        for swap in _swaps(start, seat)[:SWAP_LIMIT]:
            after = _accepted(start, seat, "; ".join([*prefix, swap]))
            if after is not None:
                starts.append(([*prefix, swap], after))
    for prefix, start in starts:
        for commands, why in _plans(start, seat):
            text = "; ".join([*prefix, *commands])
            after = _accepted(game, seat, text)
            if after is None:
                continue
            if prefix and prefix[0] == "reset":
                why = [{"key": "hint.card.why.reset"}, *why]
            left = after.faces(after.racks[seat])
            value = romme_hand_penalty(left)
            played = sum(len(m.ids) for m in after.table) - on_table
            size = len(prefix) + len(commands)
            options.append((len(left), value, size, [text], why, played))
    if not options:  # not reached while the turn can always be ended by a discard
        return _hint("reset", len(game.racks[seat]), "reset_first")
    left, _, _, (text,), why, played = min(options, key=lambda o: o[:3])
    if played > 0:
        head = {"key": "hint.card.head.played", "count": played}
    else:
        head = {"key": "hint.card.head.nothing"}
    return _hint(text, left, "play", head=head, why={"items": why, "sep": ""})


def _accepted(game: CardGame, seat: int, text: str) -> CardGame | None:
    """The game after ``text``, or None when the engine refuses it (tried on a copy)."""
    return game.tried(seat, text)


def _undiscardable(game: CardGame) -> Face | None:
    picked = game.turn["picked"]
    return game.deck[picked] if picked is not None else None


def _plan(game: CardGame, seat: int) -> CardPlan | None:
    """The best plan from the turn as it is (see :func:`plan_for_turn`), with what this turn
    already laid: in Rommé before an opening, a lay-off or swap this turn leaves only a
    Hand-Rommé; melds already laid count towards the minimum."""
    t = game.turn
    rules = game.rules
    hand = game.faces(game.racks[seat])
    common = dict(
        fits=lambda i, cards: game.fits(i + 1, cards),
        penalty=card_penalty(game.rules),
        undiscardable=_undiscardable(game),
    )
    keep: Keep = "any" if game.empty_hand_ok else "discard"
    table = game.table_faces()
    spec = rules.meld_spec
    if not rules.must_open or t["opened_at_start"]:
        return best_card_plan(hand, table, spec, lay_off=True, keep=keep, **common)
    hand_romme = best_card_plan(
        hand, table, spec, lay_off=True, keep=keep, must_empty=True, **common
    )
    if hand_romme is not None or t["table_used"]:
        return hand_romme
    rest = max(0, rules.opening_minimum - t["opening_value"]) if t["melded"] else None
    minimum = rules.opening_minimum if rest is None else rest
    return best_card_plan(hand, table, spec, lay_off=False, minimum=minimum, **common)


def _plans(game: CardGame, seat: int) -> list[tuple[list[str], Why]]:
    """Candidate rests of the turn from this state: the plan and its discard, and the plain
    discard (commands, reason)."""
    out = []
    plan = _plan(game, seat)
    hand = game.faces(game.racks[seat])
    if plan is not None:
        commands = plan.commands()
        lead = _opening_words(game, plan)
        if not plan.left:
            out.append((commands, [*lead, {"key": "hint.card.why.go_out"}]))
        else:
            card, why = _discard_choice(game, list(plan.left))
            out.append(([*commands, f"discard {card}"], [*lead, why]))
    if hand:
        card, why = _discard_choice(game, hand)
        out.append(([f"discard {card}"], [why]))
    return out


def _opening_words(game: CardGame, plan: CardPlan) -> Why:
    """What the plan means for Rommé's opening (RULES.md ``romme`` "Opening", "Hand-Rommé")."""
    t = game.turn
    if not game.rules.must_open or t["opened_at_start"] or not (plan.melds or plan.layoffs):
        return []
    if len(plan.left) <= 1:
        return [{"key": "hint.card.why.hand_romme"}]
    value = plan.meld_value + (t["opening_value"] if t["melded"] else 0)
    minimum = game.rules.opening_minimum
    return [{"key": "hint.card.why.opens", "value": value, "minimum": minimum}]


def _discard_choice(game: CardGame, left: list[Face]) -> tuple[Face, dict[str, Any]]:
    """The card to discard from ``left`` and why: never the card just picked (unless a second
    copy), never a joker while another card is left; the fewest partners (cards of the hand
    that could share a meld with it), then the highest penalty."""
    banned = _undiscardable(game)
    choices = list(left)
    if banned is not None and choices.count(banned) == 1 and len(choices) > 1:
        choices.remove(banned)
    if any(not f.is_joker for f in choices):
        choices = [f for f in choices if not f.is_joker]
    penalty = card_penalty(game.rules)
    mode = game.rules.run_mode
    scored = sorted(set(choices), key=lambda c: (_partners(c, left, mode), -penalty(c), c))
    card = scored[0]
    if len(left) == 1:
        return card, {"key": "hint.card.why.last_card"}
    partners = _partners(card, left, mode)
    key = "no_partner" if partners == 0 else "fewest_partners"
    return card, {"key": f"hint.card.why.{key}", "card": str(card), "count": penalty(card)}


def _partners(card: Face, hand: Sequence[Face], mode: str) -> int:
    """How many other cards of the hand could share a meld with ``card``: jokers, the same rank
    in another suit, the same suit within two ranks (round the corner where runs wrap)."""
    if card.is_joker:
        return 99
    others = list(hand)
    others.remove(card)
    count = 0
    for f in others:
        if f.is_joker or (f.rank == card.rank and f.suit != card.suit):
            count += 1
        elif f.suit == card.suit and f.rank != card.rank:
            d = abs(f.rank - card.rank)
            if mode != "linear":
                d = min(d, 13 - d)
            count += d <= 2
    return count


def _swaps(game: CardGame, seat: int) -> list[str]:
    """``swap N CARD`` commands the engine may accept: a hand card that frees a table joker
    (Rommé; before an opening only useful in a Hand-Rommé, which the trial decides)."""
    if not game.deck.jokers():
        return []
    out = []
    spec = game.rules.meld_spec
    hand = sorted(set(game.faces(game.racks[seat])))
    for number, meld in enumerate(game.table, 1):
        if not any(game.deck[i].is_joker for i in meld.ids):
            continue
        for card in hand:
            if not card.is_joker and swap_position(game.deck, meld, card, spec) is not None:
                out.append(f"swap {number} {card}")
    return out


def _colour_hint(game: CardGame, seat: int) -> tuple[int, int, int, list[str], Why, int] | None:
    """Variant f: ``done`` with 10 cards of one suit ends the game (the player scores 0)."""
    if not (game.rules.romme_variants and game.rules.variant_colour_romme):
        return None
    suits = Counter(f.suit for f in game.faces(game.racks[seat]) if not f.is_joker)
    if not suits or max(suits.values()) < 10 or _accepted(game, seat, "done") is None:
        return None
    return (0, 0, 1, ["done"], [{"key": "hint.card.why.colour"}], 0)


def _knock_hint(game: CardGame, seat: int) -> CardHint:
    """Variant a: the knocker's first command melds the knocked card with hand cards."""
    card = game.deck[game.knocks[seat]["open"]]
    hand = game.faces(game.racks[seat])
    melds = [m for m in candidate_card_melds(hand, game.rules.meld_spec) if card in m]
    for meld in sorted(melds, key=lambda m: (-len(m), m)):
        text = f"meld {format_faces(meld)}"
        if _accepted(game, seat, text) is not None:
            return _hint(text, len(hand) - len(meld), "knocked", card=str(card))
    # not reached: a knock is allowed only when the card makes a meld
    return _hint("draw", len(hand), "meld_first", card=str(card))


def _draw_hint(game: CardGame, seat: int) -> CardHint:
    """Before drawing: announce (variant e) when allowed, else pick the top discard when it
    lets more cards be played this turn than the hand alone, else draw from the talon."""
    hand = game.faces(game.racks[seat])
    if _accepted(game, seat, "knock") is not None:
        return _hint("knock", len(hand), "announce")
    draw_ok = _accepted(game, seat, "draw") is not None
    if game.discards:
        top = game.deck[game.discards[-1]]
        pick = f"pick {top}"
        after_pick = _accepted(game, seat, pick)
        if after_pick is not None:
            with_top = _plan(after_pick, seat)
            without = _plan(_drawn_without_card(game), seat)
            gain = (with_top.removed if with_top else 0) - (without.removed if without else 0)
            if gain > 0 or not draw_ok:
                why: dict[str, Any] = {"key": "hint.card.pick.gain", "top": str(top), "count": gain}
                if gain <= 0:
                    why = {"key": "hint.card.pick.talon_empty"}
                return _hint(pick, len(hand) + 1, "pick", why=why)
    if not game.discards or draw_ok:
        return _hint("draw", len(hand) + 1, "draw.no_help" if game.discards else "draw.talon")
    return _hint("draw", len(hand), "draw")


def _drawn_without_card(game: CardGame) -> CardGame:
    """The game as if the mover had drawn nothing new (to weigh the top discard)."""
    probe = game.copy()
    probe.turn["drawn"] = True
    probe.turn["from_talon"] = True
    return probe
