"""The ``hint`` of a card game (RULES.md ``romme`` / ``rummy`` "A turn"): what to type next, as data
(catalogue keys ``hint.card.*``), found with the exact plan of :mod:`engine.cardplan` and tried on a
copy of the game before it is offered."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..cardplan import CardPlan, Keep, best_card_plan, candidate_card_melds
from ..pieces import Face, format_faces
from .scoring import card_penalty, romme_hand_penalty
from .strong import choose_discard, keep_value, live_outs, strong_card_play, unseen_cards
from .table import swap_position

if TYPE_CHECKING:
    from ..cards import CardGame

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
      meld-and-lay-off plan (:func:`engine.cardplan.plan_for_turn`: Rommé's opening minimum, lay-offs before the
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
    if played > 0 and left > 0:
        why = [*why, *_hold_words(game, seat)]
    if played > 0:
        head = {"key": "hint.card.head.played", "count": played}
    else:
        head = {"key": "hint.card.head.nothing"}
    return _hint(text, left, "play", head=head, why={"items": why, "sep": ""})


def _hold_words(game: CardGame, seat: int) -> Why:
    """The strong player's alternative to laying melds that do not end the game: keep them in
    hand and only discard (:func:`engine.card.strong.strong_card_play`), offered as a tip when
    the engine accepts it. Whatever lies on the table is laid off on by the others; a hand kept
    whole goes out in one turn (Rummy: going rummy; Rommé: a Hand-Rommé without the 40-point
    minimum, the others' penalties double)."""
    if game.turn["history"]:
        return []
    rng = random.Random(f"{game.seed}:{game.turn_no}:{seat}:hint")
    alt = strong_card_play(game, seat, rng)
    if len(alt) != 1 or not alt[0].startswith("discard "):
        return []
    if _accepted(game, seat, alt[0]) is None:
        return []
    key = "hint.card.why.hold_romme" if game.rules.must_open else "hint.card.why.hold"
    return [{"key": key, "alt": alt[0]}]


def _accepted(game: CardGame, seat: int, text: str) -> CardGame | None:
    """The game after ``text``, or None when the engine refuses it (tried on a copy)."""
    return game.tried(seat, text)


def _undiscardable(game: CardGame) -> Face | None:
    picked = game.turn["picked"]
    return game.deck[picked] if picked is not None else None


def _plan(game: CardGame, seat: int) -> CardPlan | None:
    """The best plan from the turn as it is (see :func:`engine.cardplan.plan_for_turn`), with what this turn
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
    """The card to discard from ``left`` and why (the strong player's choice,
    :func:`engine.card.strong.choose_discard`): never the card just picked (unless a second
    copy), never a joker while another card is left; the card least worth keeping by the live
    cards that could still complete a meld with it (unseen cards: not in this hand, on the table
    or in the discard pile), avoiding one the next player could lay off at once; ties: the
    highest penalty. The reason: its partners are all gone (``dead``), it has no partner in the
    hand (``no_partner``), or only so many unseen cards would complete it (``outs``)."""
    banned = _undiscardable(game)
    choices = list(left)
    if banned is not None and choices.count(banned) == 1 and len(choices) > 1:
        choices.remove(banned)
    if any(not f.is_joker for f in choices):
        choices = [f for f in choices if not f.is_joker]
    seat = game.current
    penalty = card_penalty(game.rules)
    rng = random.Random(f"{game.seed}:{game.turn_no}:{seat}:hint")
    card = choose_discard(game, seat, choices, left, rng)
    if len(left) == 1:
        return card, {"key": "hint.card.why.last_card"}
    points = penalty(card)
    unseen = unseen_cards(game, seat)
    wrap = game.rules.run_mode == "wrap"
    hand = Counter(left)
    if keep_value(card, hand, unseen, wrap) == 0:
        points_words = {"key": "hint.card.points", "count": points}
        return card, {"key": "hint.card.why.dead", "card": str(card), "points": points_words}
    if _partners(card, left, game.rules.run_mode) == 0:
        return card, {"key": "hint.card.why.no_partner", "card": str(card), "count": points}
    return card, {
        "key": "hint.card.why.outs",
        "card": str(card),
        "points": {"key": "hint.card.points", "count": points},
        "count": live_outs(card, hand, unseen, wrap),
    }


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
