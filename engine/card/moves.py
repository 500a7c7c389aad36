"""The command handlers of a card game (RULES.md ``romme`` / ``rummy`` "A turn"): ``draw``,
``pick``, ``meld``, ``add``, ``swap``, ``hint``, ``undo``, ``reset``, ``discard``, ``done``,
``knock``. Each is ``handler(g, seat, c, declared) -> events`` over the worked-on copy ``g`` of the
game (:meth:`engine.cards.CardGame.apply` runs them and adopts the copy when all are accepted)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..commands import Command
from ..errors import RummyError
from ..game import Event
from ..melds import analyse, readings
from ..pieces import Face, format_faces
from .hint import card_hint
from .parse import Declaration, has_jokers
from .table import TableMeld, arrange, extended, joker_meanings, swap_position
from .turn import check_turn_end, finish, may_reshuffle, next_turn, restore, snapshot, take_talon
from .variants import announce, colour_romme, declared_group, knock
from .words import reason

if TYPE_CHECKING:
    from ..cards import CardGame

Declared = tuple[tuple[Declaration, ...], ...]
Handler = Callable[["CardGame", int, Command, Declared], list[Event]]


# ---------------------------------------------------------------------- small helpers


def from_hand(
    g: CardGame, seat: int, faces: Sequence[Face], prefer: Sequence[int] = ()
) -> list[int]:
    """Hand ids for these faces (each id once), preferring ``prefer`` ids, then the rest."""
    rack = g.racks[seat]
    order = [i for i in prefer if i in rack] + [i for i in rack if i not in prefer]
    taken: list[int] = []
    for face in faces:
        pick = next((i for i in order if i not in taken and g.deck[i] == face), None)
        if pick is None:
            raise RummyError("cards.not_in_hand", card=str(face))
        taken.append(pick)
    return taken


def meld_at(g: CardGame, number: int | None) -> TableMeld:
    if number is None or not 1 <= number <= len(g.table):
        raise RummyError("meld.no_such", meld=number, count=len(g.table))
    return g.table[number - 1]


def require_turn_started(g: CardGame) -> None:
    if g.turn["knock_due"]:
        knocked = g.knocks[g.current]
        raise RummyError("cards.knock_meld_first", card=str(g.deck[knocked["open"]]))
    if not g.turn["drawn"]:
        raise RummyError("cards.draw_first")


def check_empty_hand(g: CardGame) -> None:
    """RULES.md ``romme`` "Going out: the last card is discarded": in Rommé without variant g
    no command may empty the hand (meld, lay-off, ``done``, the end of a message); classic
    Rummy may go out without a discard."""
    if not g.empty_hand_ok:
        raise RummyError("cards.keep_one", **reason("why.romme_last_card"))


def after_message(g: CardGame, seat: int) -> list[Event]:
    """A message may not leave the mover without a legal discard; an emptied hand goes out
    at once where the game allows it (Rummy, Rommé variant g)."""
    if g.status != "playing" or seat != g.current or not g.turn["drawn"]:
        return []
    rack = g.racks[seat]
    if not rack:
        return go_out(g, seat, discarded=None)
    if all(i == g.turn["picked"] for i in rack):
        raise RummyError("cards.keep_one", **reason("why.picked_last", card=str(g.deck[rack[0]])))
    return []


def _table_play(g: CardGame, command: str) -> None:
    """Note a lay-off or swap. Rommé: they need an opening on an earlier turn - or a
    Hand-Rommé - which :func:`~engine.card.turn.check_turn_end` checks when the turn ends;
    Rummy: they count as "laid off before" for going rummy."""
    g.turn["table_used"] = True
    if g.turn["table_command"] is None:
        g.turn["table_command"] = command


# ---------------------------------------------------------------------- drawing


def draw(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    if g.turn["drawn"]:
        raise RummyError("cards.already_drawn")
    if g.turn["knock_due"]:
        require_turn_started(g)
    ids, events = take_talon(g, seat, g.draw_count)
    g.turn.update(drawn=True, from_talon=True, history=[])
    shown = g.faces(ids)
    events.append(g.event("draw", seat, count=len(ids)))
    events.append(
        g.event(
            "drawn",
            seat,
            private=True,
            pieces=tuple(str(f) for f in shown),
            cards=format_faces(shown),
        )
    )
    return events


def pick(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    if g.turn["drawn"]:
        raise RummyError("cards.already_drawn")
    if g.turn["knock_due"]:
        require_turn_started(g)
    if not g.discards:
        raise RummyError("cards.discards_empty")
    top = g.discards[-1]
    if c.pieces and c.pieces[0] != g.deck[top]:
        raise RummyError("cards.pick_wrong", top=str(g.deck[top]), card=str(c.pieces[0]))
    g.discards.pop()
    g.racks[seat].append(top)
    g.turn.update(drawn=True, picked=top, history=[])
    card = str(g.deck[top])
    events = [g.event("pick", seat, pieces=(card,), card=card)]
    if g.draw_count == 2:  # variant j: two talon cards even when taking the discard
        if not g.pool and not may_reshuffle(g):
            return events
        ids, more = take_talon(g, seat, 2)
        shown = format_faces(g.faces(ids))
        events += more
        events.append(g.event("draw", seat, wording="draw_also", count=len(ids)))
        events.append(g.event("drawn", seat, private=True, cards=shown))
    return events


# ---------------------------------------------------------------------- melding


def build_meld(
    g: CardGame, seat: int, ids: list[int], decl: tuple[Declaration, ...], number: int
) -> tuple[TableMeld, int]:
    """Validate a new meld from hand ids; return it (in table order) and its value."""
    faces = g.faces(ids)
    spec = g.rules.meld_spec
    owner = seat if g.rules.melds_owned else None
    if any(d is not None for d in decl):
        return declared_group(g, ids, decl, number, owner)
    reading = analyse(faces, spec, number)
    meld = TableMeld(list(ids), owner, reading.kind)
    arrange(g.deck, meld, spec)
    if reading.kind == "group" and g.rules.variant_declared_joker and len(ids) == 3:
        # variant b: an undeclared joker of a 3-set stands for the first missing suit
        stands = iter(reading.joker_meanings())
        for pos, i in enumerate(meld.ids):
            if g.deck[i].is_joker:
                meld.declared[pos] = next(stands)
    return meld, reading.value


def meld(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    knocked = g.knocks[seat] if g.turn["knock_due"] else None
    if not knocked:
        require_turn_started(g)
    prefer = [knocked["open"]] if knocked else []
    all_ids = from_hand(g, seat, [f for m in c.melds for f in m], prefer)
    new: list[tuple[TableMeld, int]] = []
    at = 0
    for k, faces in enumerate(c.melds):
        ids = all_ids[at : at + len(faces)]
        at += len(faces)
        decl = declared[k] if k < len(declared) else ()
        new.append(build_meld(g, seat, ids, decl, len(g.table) + k + 1))
    if knocked and not any(knocked["open"] in m.ids for m, _ in new):
        raise RummyError("cards.knock_meld_first", card=str(g.deck[knocked["open"]]))
    if not knocked:
        snapshot(g, seat)
    for new_meld, value in new:
        for i in new_meld.ids:
            g.racks[seat].remove(i)
        g.table.append(new_meld)
        if not g.turn["opened_at_start"]:
            g.turn["opening_value"] += value
    g.turn["melded"] = True
    shown = " | ".join(format_faces(g.faces(m.ids)) for m, _ in new)
    first = len(g.table) - len(new) + 1
    numbers = ", ".join(str(n) for n in range(first, len(g.table) + 1))
    pieces = tuple(str(f) for m, _ in new for f in g.faces(m.ids))
    events = [g.event("meld", seat, pieces=pieces, melds=shown, numbers=numbers)]
    if knocked:
        g.racks[seat].extend(knocked["hidden"])
        g.knocks[seat] = None
        g.turn["knock_due"] = False
        events.append(g.event("knock_done", seat))
    return events


def meld_knocked_card(g: CardGame, seat: int) -> list[Event]:
    """Variant a at a time-out: the knocked card is melded with the first two hand cards that
    make a meld with it."""
    knocked = g.knocks[seat]
    card = g.deck[knocked["open"]]
    others = [i for i in g.racks[seat] if i != knocked["open"]]
    for x, a in enumerate(others):
        for b in others[x + 1 :]:
            if readings([card, g.deck[a], g.deck[b]], g.rules.meld_spec):
                c = Command("meld", melds=((card, g.deck[a], g.deck[b]),))
                return meld(g, seat, c, ((None, None, None),))
    raise RummyError("cards.knock_unusable", card=str(card))  # cannot happen: checked on knock


# ---------------------------------------------------------------------- the table


def add(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    require_turn_started(g)
    target = meld_at(g, c.meld)
    ids = from_hand(g, seat, c.pieces)
    new_ids = extended(g.deck, target, ids, g.rules.meld_spec)
    if new_ids is None:
        raise RummyError(
            "cards.layoff",
            cards=format_faces(c.pieces),
            fit={"key": "why.layoff_fit", "count": len(c.pieces)},
            meld=c.meld,
            meld_cards=format_faces(g.faces(target.ids)),
        )
    snapshot(g, seat)
    _table_play(g, str(c))
    for i in ids:
        g.racks[seat].remove(i)
    target.ids = new_ids
    pieces = tuple(str(f) for f in c.pieces)
    return [g.event("add", seat, pieces=pieces, cards=format_faces(c.pieces), meld=c.meld)]


def swap(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    require_turn_started(g)
    if len(c.pieces) != 1:
        raise RummyError("parse.arguments", command="swap", **reason("why.card.one_card"))
    card = c.pieces[0]
    if card.is_joker:
        raise RummyError("joker.take_joker")
    target = meld_at(g, c.meld)
    spec = g.rules.meld_spec
    faces = g.faces(target.ids)
    jokers = [p for p, f in enumerate(faces) if f.is_joker]
    if not jokers:
        raise RummyError("joker.not_in_meld", meld=c.meld)
    (card_id,) = from_hand(g, seat, [card])
    pos = swap_position(g.deck, target, card, spec)
    if pos is None:
        meanings = joker_meanings(g.deck, target, spec)
        raise RummyError(
            "joker.wrong_piece",
            piece=str(card),
            meld=c.meld,
            stands_for=" / ".join(str(f) for f in meanings),
        )
    snapshot(g, seat)
    _table_play(g, str(c))
    joker_id = target.ids[pos]
    target.ids[pos] = card_id
    target.declared.pop(pos, None)
    g.racks[seat].remove(card_id)
    g.racks[seat].append(joker_id)
    return [g.event("swap", seat, pieces=(str(card),), card=str(card), meld=c.meld)]


# ---------------------------------------------------------------------- help, undo, reset


def hint(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    """A private hint for the mover (:func:`engine.card.hint.card_hint`): what to do first
    (draw, pick, meld the knocked card) or the best meld-and-lay-off plan with its discard,
    typed exactly as the engine accepts it. Changes nothing."""
    if not g.rules.help_allowed:
        raise RummyError("help.not_allowed")
    found = card_hint(g, seat)
    return [g.event("hint", seat, wording=None, private=True, **found.words)]


def undo(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    history = g.turn["history"]
    if not history:
        raise RummyError("turn.nothing_to_undo")
    restore(g, seat, history.pop())
    return [g.event("undo", seat, noted=False)]  # last_event stays as before the play


def reset(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    history = g.turn["history"]
    if not history:
        raise RummyError("turn.nothing_to_undo")
    restore(g, seat, history[0])
    g.turn["history"] = []
    return [g.event("reset", seat, noted=False)]  # as undo: as before the turn's first play


# ---------------------------------------------------------------------- ending a turn


def discard(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    require_turn_started(g)
    if c.meld is not None or len(c.pieces) != 1:
        raise RummyError("parse.arguments", command="discard", **reason("why.card.discard_usage"))
    card = c.pieces[0]
    picked = g.turn["picked"]
    rack = g.racks[seat]
    ids = [i for i in rack if g.deck[i] == card]
    if not ids:
        raise RummyError("cards.not_in_hand", card=str(card))
    others = [i for i in ids if i != picked]
    if not others:
        raise RummyError("cards.discard_picked", card=str(card))
    going_out = len(rack) == 1
    check_turn_end(g, seat, going_out)
    rack.remove(others[0])
    g.discards.append(others[0])
    g.top_by = seat
    if going_out:
        return go_out(g, seat, discarded=card)
    if g.turn["melded"] or g.turn["table_used"]:
        g.opened[seat] = True
    events = [g.event("discard", seat, pieces=(str(card),), card=str(card))]
    return events + next_turn(g)


def go_out(g: CardGame, seat: int, discarded: Face | None) -> list[Event]:
    """The hand is empty: the single game is won (RULES.md). Hand-Rommé / going rummy when
    the player had not melded (or laid off) on an earlier turn. Without a discard only where
    the game allows it (:func:`check_empty_hand`)."""
    if discarded is None:
        check_empty_hand(g)
    check_turn_end(g, seat, True)
    special = not g.turn["opened_at_start"]
    g.opened[seat] = True
    player = {"seat": seat}
    if g.rules.scoring == "penalty":
        word = "hand_romme" if special else "romme"
    else:
        word = "going_rummy" if special else "rummy"
    last: str | dict[str, object] = ""
    if discarded is not None:
        last = {"key": "event.card.out_last", "player": player, "card": str(discarded)}
    result = {"key": f"event.card.out.{word}", "player": player}
    events = [g.event("out", seat, last=last, result=result)]
    return events + finish(g, "out", seat, special=special)


def done(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    if not g.racks[seat] and g.turn["drawn"]:
        return go_out(g, seat, discarded=None)
    colour = colour_romme(g, seat)
    if colour is not None:
        return colour
    require_turn_started(g)
    raise RummyError("cards.must_discard")


def knock_command(g: CardGame, seat: int, c: Command, declared: Declared = ()) -> list[Event]:
    """``knock``: from a seat not to move variant a (claim the top discard), from the seat to
    move variant e (announce)."""
    if seat == g.current:
        return announce(g, seat)
    return knock(g, seat)


HANDLERS: dict[str, Handler] = {
    "draw": draw,
    "pick": pick,
    "meld": meld,
    "add": add,
    "swap": swap,
    "discard": discard,
    "done": done,
    "knock": knock_command,
    "undo": undo,
    "reset": reset,
    "hint": hint,
}


def run(g: CardGame, seat: int, c: Command, declared: Declared) -> list[Event]:
    """One command of a message (``turn.not_allowed`` for a verb the game does not know)."""
    handler = HANDLERS.get(c.verb)
    if handler is None or (c.verb == "swap" and not has_jokers(g.rules)):
        raise RummyError("turn.not_allowed", command=c.verb, preset=g.rules.name)
    return handler(g, seat, c, declared)
