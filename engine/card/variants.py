"""The Rommé variants that bring their own moves (RULES.md ``romme`` "Variants", a-j; the others
are flags read where they apply): a) knocking for the top discard, b) declaring what a joker of a
new 3-set stands for, e) announcing at 10 points or less, f) colour Rommé, j) two talon cards.
Functions over the worked-on copy of a :class:`~engine.cards.CardGame`."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..errors import RummyError
from ..game import Event
from ..melds import analyse, readings
from ..pieces import CARD_RANK_TEXT, Card, Face, format_faces, sort_key
from .parse import Declaration
from .scoring import romme_card_penalty
from .table import TableMeld
from .turn import check_turn_end, finish, next_turn
from .words import reason

if TYPE_CHECKING:
    from ..cards import CardGame


def draw_count(g: CardGame) -> int:
    """Cards taken from the talon per turn: 2 with Rommé variant j and 2-3 players."""
    if g.rules.romme_variants and g.rules.variant_draw_two and len(g.players) <= 3:
        return 2
    return 1


# ---------------------------------------------------------------------- b) declared jokers


def declared_group(
    g: CardGame, ids: list[int], decl: tuple[Declaration, ...], number: int, owner: int | None
) -> tuple[TableMeld, int]:
    """A new 3-set with a declared joker (``meld 9C 9H *=9S``): the meld and its value."""
    faces = g.faces(ids)
    token = next(d[0] for d in decl if d is not None)

    def bad(key: str, **params: Any) -> RummyError:
        return RummyError("cards.declare_bad", token=token, **reason(key, **params))

    real = [f for f in faces if not f.is_joker]
    if len(faces) != 3:
        raise bad("why.declare_three")
    if not real or len({f.rank for f in real}) != 1 or len({f.suit for f in real}) != len(real):
        raise bad("why.declare_not_set", cards=format_faces(faces))
    rank = real[0].rank
    used = {f.suit for f in real}
    jokers = [pos for pos, f in enumerate(faces) if f.is_joker]
    marks = iter(decl)
    stands: dict[int, Face] = {}
    for pos in jokers:
        mark = next(marks)
        if mark is None:
            continue
        tok, face = mark
        if face.is_joker or face.rank != rank or face.suit in used:
            raise RummyError(
                "cards.declare_bad",
                token=tok,
                **reason("why.declare_rank", rank=CARD_RANK_TEXT.get(rank, str(rank))),
            )
        used.add(face.suit)
        stands[pos] = face
    for pos in jokers:  # undeclared jokers of the same set: first missing suits
        if pos not in stands:
            suit = next(s for s in range(4) if s not in used)
            used.add(suit)
            stands[pos] = Card(suit, rank)
    full = [stands.get(pos, f) for pos, f in enumerate(faces)]
    value = analyse(full, g.rules.meld_spec, number).value
    order = sorted(range(3), key=lambda p: (faces[p].is_joker, faces[p]))
    meld = TableMeld([ids[p] for p in order], owner, "group")
    meld.declared = {k: stands[p] for k, p in enumerate(order) if p in stands}
    return meld, value


# ---------------------------------------------------------------------- a) knocking


def knock(g: CardGame, seat: int) -> list[Event]:
    """Variant a: a seat not to move claims the top discard, face up, plus two talon cards
    face down; the mover's consent is implied once they have drawn from the talon."""
    if not (g.rules.romme_variants and g.rules.variant_knocking):
        raise RummyError("turn.not_allowed", command="knock", preset=g.rules.name)
    t = g.turn
    if not (t["drawn"] and t["picked"] is None and g.discards):
        raise RummyError("cards.knock_when", player=g.name(g.current))
    top = g.discards[-1]
    card = str(g.deck[top])
    if g.top_by == seat:
        raise RummyError("cards.knock_own", card=card)
    if g.knocks[seat]:
        raise RummyError("cards.knock_pending", card=str(g.deck[g.knocks[seat]["open"]]))
    if not g.opened[seat]:
        raise RummyError("cards.knock_not_opened", card=card)
    if not meldable_with_two(g, seat, top):
        raise RummyError("cards.knock_unusable", card=card)
    if len(g.pool) < 2:
        raise RummyError("cards.knock_talon", count=len(g.pool))
    g.discards.pop()
    hidden = [g.pool.pop(), g.pool.pop()]
    g.racks[seat].append(top)
    g.knocks[seat] = {"open": top, "hidden": hidden}
    g.top_by = None
    shown = format_faces(g.faces(hidden))
    return [
        g.event("knock", seat, pieces=(card,), card=card),
        g.event("knock_cards", seat, private=True, cards=shown),
    ]


def meldable_with_two(g: CardGame, seat: int, card_id: int) -> bool:
    """Variant a: does the card make a valid meld with two cards of the hand?"""
    spec = g.rules.meld_spec
    card = g.deck[card_id]
    hand = g.faces(g.racks[seat])
    pairs = {tuple(sorted((a, b), key=sort_key)) for x, a in enumerate(hand) for b in hand[x + 1 :]}
    return any(readings([card, a, b], spec) for a, b in pairs)


# ---------------------------------------------------------------------- e) announcing


def announce(g: CardGame, seat: int) -> list[Event]:
    """Variant e: at the start of the turn, with at most 10 points in hand, announce; everybody
    else plays once more, then the game ends. The announcer does not play again and scores
    nothing."""
    if not (g.rules.romme_variants and g.rules.variant_announce_ten):
        raise RummyError("turn.not_allowed", command="knock", preset=g.rules.name)
    if g.announcer is not None:
        raise RummyError("cards.announce_twice", player=g.name(g.announcer))
    if g.turn["drawn"] or g.turn["knock_due"]:
        raise RummyError("cards.announce_when")
    value = sum(romme_card_penalty(f) for f in g.faces(g.racks[seat]))
    if value > 10:
        raise RummyError("cards.announce_high", value=value)
    g.announcer = seat
    return [g.event("announce", seat, value=value), *next_turn(g)]


# ---------------------------------------------------------------------- f) colour Rommé


def colour_romme(g: CardGame, seat: int) -> list[Event] | None:
    """Variant f: ``done`` with 10+ cards of one suit ends the game; None where the variant is
    off (``done`` then means what it means in the game)."""
    if not (g.rules.romme_variants and g.rules.variant_colour_romme):
        return None
    rack = g.racks[seat]
    longest = max(
        Counter(g.deck[i].suit for i in rack if not g.deck[i].is_joker).values(),
        default=0,
    )
    if longest < 10:
        raise RummyError("cards.colour_short", count=longest)
    check_turn_end(g, seat, False)
    return [g.event("colour", seat, count=longest), *finish(g, "colour", seat)]
