"""The commands of a turn that draw or change the working table: draw, pick, meld, add, move,
split, join, swap, take, undo and reset. Each is a handler ``(g, seat, command) -> events`` over
the worked-on copy of the game (engine/tiles.py runs them)."""

from __future__ import annotations

from ..commands import Command
from ..errors import RummyError
from ..game import Event
from ..melds import (
    analyse,
    explain_invalid,
    joker_meanings,
    positional_reading,
    readings,
    spec_of,
)
from ..pieces import Face, format_faces
from .claims import keep_claim
from .ending import end_turn
from .jokers import refuse_split, stands_for
from .turn import (
    Meld,
    TurnContext,
    arrange,
    draws_complete,
    draws_done_error,
    drop_empty,
    event,
    from_meld,
    from_rack,
    on_table_at_start,
    play_from_rack,
    private_event,
    reset_turn,
    table_changed,
    take_from_pool,
    touch,
    working_event,
)


def draw(g: TurnContext, seat: int, c: Command) -> list[Event]:
    if g.is_stein:
        if draws_complete(g):
            raise draws_done_error(g)
        if not g.pool:
            raise RummyError("turn.pool_empty")
        got = take_from_pool(g, seat, 1)
        g.turn.drawn += 1
        g.turn.history.clear()
        return [
            event(g, "draw", seat, "event.draw.stein"),
            private_event(g, seat, "drew", got, "event.drew.stein"),
        ]
    # Rummikub: drawing ends the turn (a pass when the pool is empty)
    if g.turn.played or table_changed(g):
        raise RummyError("turn.draw_after_play")
    g.last_changed = []
    if not g.pool:
        events = [event(g, "pass", seat)]
        return events + end_turn(g, seat)
    got = take_from_pool(g, seat, 1)
    events = [
        event(g, "draw", seat),
        private_event(g, seat, "drew", got),
    ]
    return events + end_turn(g, seat)


def pick(g: TurnContext, seat: int, c: Command) -> list[Event]:
    if not g.is_stein:
        raise RummyError("turn.not_allowed", command="pick", preset=g.rules.name)
    if g.turn.picked >= g.rules.discard_picks_per_turn:
        raise RummyError("turn.one_pick")
    if draws_complete(g):
        raise draws_done_error(g)
    if not g.discards:
        raise RummyError("turn.discards_empty")
    if not c.pieces:
        index = len(g.discards) - 1
    else:
        face = c.pieces[0]
        matches = [k for k, i in enumerate(g.discards) if g.deck[i] == face]
        if not matches:
            raise RummyError("piece.not_in_discards", piece=str(face))
        index = matches[-1]
        if not g.rules.pick_any_discard and index != len(g.discards) - 1:
            raise RummyError("piece.not_top_discard", top=str(g.deck[g.discards[-1]]))
    piece = g.discards.pop(index)
    g.racks[seat].append(piece)
    g.turn.rack.append(piece)
    g.turn.new.append(piece)
    g.turn.picked += 1
    g.turn.history.clear()
    p = str(g.deck[piece])
    return [event(g, "pick", seat, shown=(p,), piece=p)]


def meld(g: TurnContext, seat: int, c: Command) -> list[Event]:
    laid = []
    for faces in c.melds:
        analyse(list(faces), spec_of(g.rules))  # a new meld must be valid at once
        ids = from_rack(g, faces, prefer=g.turn.freed)
        play_from_rack(g, ids)
        g.turn.table.append(Meld(arrange(g, ids)))
        laid.append(format_faces(g.faces(g.turn.table[-1].ids)))
    return [working_event(g, seat, "meld", melds=" | ".join(laid))]


def add(g: TurnContext, seat: int, c: Command) -> list[Event]:
    number = c.meld or 0
    meld = touch(g, seat, number)
    ids = from_rack(g, c.pieces, prefer=g.turn.freed)
    play_from_rack(g, ids)
    insert(g, number, meld, ids)
    return [working_event(g, seat, "add", meld=number, pieces=format_faces(c.pieces))]


def insert(g: TurnContext, number: int, meld: Meld, ids: list[int]) -> None:
    """Add pieces to a meld. A single tile that duplicates an inner tile of a valid run
    splits the run there (RULES.md example: B2-B6 + B4 gives B2 B3 B4 | B4 B5 B6). A split
    that parts the tiles of a Rummikub joker meld is refused after the command
    (:func:`~engine.tile.jokers.joker_faults`, ``joker.locked_meld``), as for every other command."""
    spec = spec_of(g.rules)
    faces = g.faces(meld.ids)
    found = readings(faces, spec)
    if len(ids) == 1 and found and found[0].kind == "run":
        face = g.deck[ids[0]]
        order = arrange(g, meld.ids)
        stands = found[0].stands_for
        merged = readings([*faces, face], spec)
        if not merged:
            inner = [k for k in range(1, len(order) - 1) if stands[k] == face]
            if inner:
                k = inner[0]
                meld.ids = order[: k + 1]
                g.turn.table.insert(number, Meld([ids[0], *order[k + 1 :]]))
                refuse_split(g, number)
                return
    meld.ids = arrange(g, meld.ids + ids)


def move(g: TurnContext, seat: int, c: Command) -> list[Event]:
    number = c.meld or 0
    source = touch(g, seat, number)
    moving = from_meld(g, source, number, c.pieces)
    for i in moving:
        if g.deck[i].is_joker and on_table_at_start(g, i) and i not in g.turn.freed:
            raise RummyError("joker.cannot_move", meld=number)
    if c.target == "new":
        target = Meld([])
        keep_claim(g, source, number, moving)
        for i in moving:
            source.ids.remove(i)
        g.turn.table.append(target)
        target.ids = arrange(g, moving)
    else:
        target = touch(g, seat, int(c.target or 0))
        if target is source:
            raise RummyError("parse.meld_number", token=str(c.target), count=len(g.turn.table))
        keep_claim(g, source, number, moving)
        for i in moving:
            source.ids.remove(i)
        target.ids = arrange(g, target.ids + moving)
    source.ids = arrange(g, source.ids)
    drop_empty(g)
    dest = (
        {"key": "move.to_new"} if c.target == "new" else {"key": "move.to_meld", "meld": c.target}
    )
    return [working_event(g, seat, "move", meld=number, dest=dest, pieces=format_faces(c.pieces))]


def split(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """Split meld ``number`` before the named piece; each part is laid in its table order
    (a meld the player put together out of order reads as it is, so ``done`` takes it).
    Rummikub ``joker_meld_no_split``: a split that parts the tiles of a joker meld is refused
    after the command (:func:`~engine.tile.jokers.joker_faults`); tiles joined onto a joker meld may leave it."""
    number = c.meld or 0
    meld = touch(g, seat, number)
    at_id = from_meld(g, meld, number, c.pieces)[0]
    k = meld.ids.index(at_id)
    if k == 0:
        raise RummyError(
            "parse.arguments",
            command=str(c),
            why={"key": "why.split.first_piece", "piece": str(c.pieces[0]), "meld": number},
        )
    head, tail = meld.ids[:k], meld.ids[k:]
    meld.ids = arrange(g, head)
    g.turn.table.insert(number, Meld(arrange(g, tail)))
    refuse_split(g, number)
    return [working_event(g, seat, "split", meld=number, piece=str(c.pieces[0]))]


def join(g: TurnContext, seat: int, c: Command) -> list[Event]:
    number, other = c.meld or 0, int(c.target or 0)
    first = touch(g, seat, number)
    second = touch(g, seat, other)
    if first is second:
        raise RummyError("parse.meld_number", token=str(other), count=len(g.turn.table))
    keep_claim(g, second, other, second.ids)
    first.ids = arrange(g, first.ids + second.ids)
    second.ids = []
    drop_empty(g)
    return [working_event(g, seat, "join", meld=number, other=other)]


def swap(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """Free a table joker by the tile(s) it stands for, read by where it sits (RULES.md
    "Common ground": ``R4 R5 J`` is freed by R6 only; a group joker by a missing colour,
    in Stein only by the missing fourth tile)."""
    number = c.meld or 0
    meld = touch(g, seat, number)
    spec = spec_of(g.rules)
    faces = g.faces(meld.ids)
    places = [k for k, f in enumerate(faces) if f.is_joker]
    if not places:
        raise RummyError("joker.not_in_meld", meld=number)
    found = positional_reading(faces, spec)
    if found is None:
        raise RummyError("joker.no_meaning", meld=number)
    stands = stands_for(found)

    def wrong(face: Face) -> RummyError:
        return RummyError(
            "joker.wrong_piece",
            piece=str(face),
            meld=number,
            stands_for=stands,
        )

    new_ids = list(meld.ids)
    freed: list[int] = []
    if found.kind == "run":
        slots = []
        for face in c.pieces:
            k = next((k for k in places if k not in slots and found.stands_for[k] == face), None)
            if face.is_joker or k is None:
                raise wrong(face)
            slots.append(k)
        ids = from_rack(g, c.pieces)
        for k, i in zip(slots, ids, strict=True):
            freed.append(new_ids[k])
            new_ids[k] = i
    else:
        missing = set(joker_meanings(faces, spec))
        for face in c.pieces:
            if face.is_joker or face not in missing:
                raise wrong(face)
            missing.discard(face)
        ids = from_rack(g, c.pieces)
        jokers = [meld.ids[k] for k in places]
        freed = jokers[: len(ids)]  # more tiles than jokers: a group completed to four
        new_ids = [i for i in meld.ids if i not in freed] + ids
        if g.rules.group_joker_needs_fourth and (
            len(new_ids) != 4 or any(g.deck[i].is_joker for i in new_ids)
        ):
            raise RummyError("joker.group_needs_fourth", meld=number)
    new_faces = g.faces(new_ids)
    if positional_reading(new_faces, spec) is None:
        raise explain_invalid(new_faces, spec, number)
    play_from_rack(g, ids)
    meld.ids = arrange(g, new_ids)
    g.turn.rack.extend(freed)
    for joker in freed:  # back in the rack: a joker laid this turn is simply unplayed
        if joker in g.turn.played:
            g.turn.played.remove(joker)
        if on_table_at_start(g, joker) and joker not in g.turn.freed:
            g.turn.freed.append(joker)  # once, also when freed again from a new meld
    return [working_event(g, seat, "swap", meld=number, pieces=format_faces(c.pieces))]


def take(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """Stein: put your joker in place of a table tile and take that tile to the hand."""
    if not g.rules.take_with_joker:
        raise RummyError("turn.not_allowed", command="take", preset=g.rules.name)
    number = c.meld or 0
    meld = touch(g, seat, number)
    face = c.pieces[0]
    if face.is_joker:
        raise RummyError("joker.take_joker")
    target = from_meld(g, meld, number, [face])[0]
    jokers = [i for i in g.turn.rack if g.deck[i].is_joker]
    if not jokers:
        raise RummyError("joker.none_in_hand")
    joker = jokers[0]
    new_ids = [joker if i == target else i for i in meld.ids]  # the joker takes its place
    new_faces = g.faces(new_ids)
    if positional_reading(new_faces, spec_of(g.rules)) is None:
        raise explain_invalid(new_faces, spec_of(g.rules), number)
    meld.ids = new_ids
    g.turn.rack.remove(joker)
    g.turn.played.append(joker)
    g.turn.rack.append(target)
    g.turn.taken.append(target)
    return [working_event(g, seat, "take", meld=number, piece=str(face))]


def undo(g: TurnContext, seat: int, c: Command) -> list[Event]:
    if not g.turn.history:
        raise RummyError("turn.nothing_to_undo")
    g.turn.restore(g.turn.history.pop())
    return [Event("undo", seat, private=True)]


def reset(g: TurnContext, seat: int, c: Command) -> list[Event]:
    reset_turn(g)
    return [Event("reset", seat, private=True)]
