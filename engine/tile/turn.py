"""The turn context of a tile game: the table melds and the working copy of a turn
(:class:`Turn`), and the helpers every command handler shares, as functions over the game's
worked-on copy (``g``): finding pieces in the rack and on the table, the rules for touching a
meld, table order, the draws of Stein, and the events a command gives."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from .. import scoring
from ..errors import RummyError
from ..game import Event, Result
from ..melds import (
    Meaning,
    Reading,
    meaning_at,
    positional_reading,
    readings,
    spec_of,
)
from ..pieces import Deck, Face, format_faces
from ..rules import RuleSet


@dataclass(slots=True)
class Meld:
    """A meld on the table: piece ids in table order, and the claiming seat (Stein Plus)."""

    ids: list[int]
    claim: int | None = None

    def copy(self) -> Meld:
        return Meld(list(self.ids), self.claim)

    def to_list(self) -> list[Any]:
        return [list(self.ids), self.claim]  # a copy: a snapshot must not share the live list

    @classmethod
    def from_list(cls, data: list[Any]) -> Meld:
        return cls(list(data[0]), data[1])


@dataclass(slots=True)
class Turn:
    """The working copy of one player's turn (DESIGN.md "Engine vocabulary")."""

    table: list[Meld]
    rack: list[int]
    drawn: int = 0  # tiles taken from the pool this turn
    picked: int = 0  # tiles taken from the discard stock this turn
    played: list[int] = field(default_factory=list)  # rack -> table this turn
    freed: list[int] = field(default_factory=list)  # table jokers freed this turn (swap)
    taken: list[int] = field(default_factory=list)  # table -> hand with a joker (Stein)
    new: list[int] = field(default_factory=list)  # drawn this turn (rack highlights)
    history: list[dict[str, Any]] = field(default_factory=list)  # for undo

    def snapshot(self, with_history: bool = False) -> dict[str, Any]:
        """Every field of the turn as plain copies (the history only when asked), so ``undo``
        restores exactly what was: a field added to :class:`Turn` is captured without more code."""
        snap: dict[str, Any] = {}
        for name in _TURN_FIELDS:
            if name == "history" and not with_history:
                continue
            value = getattr(self, name)
            if name == "table":
                value = [m.to_list() for m in value]
            elif isinstance(value, list):
                value = list(value)  # ids, or history entries (never changed once stored)
            snap[name] = value
        return snap

    def restore(self, snap: dict[str, Any]) -> None:
        """Set every field captured in ``snap`` (older snapshots may lack some: those stay)."""
        for name in _TURN_FIELDS:
            if name not in snap:
                continue
            value = snap[name]
            if name == "table":
                value = [Meld.from_list(m) for m in value]
            elif isinstance(value, list):
                value = list(value)
            setattr(self, name, value)

    def copy(self) -> Turn:
        """An independent copy: as :meth:`restore` of a :meth:`snapshot` with the history,
        without the snapshot in between."""
        values = []
        for name in _TURN_FIELDS:  # every field is an __init__ argument, in this order
            value = getattr(self, name)
            if name == "table":
                value = [Meld(list(m.ids), m.claim) for m in value]
            elif isinstance(value, list):
                value = list(value)  # ids, or history entries (never changed once stored)
            values.append(value)
        return Turn(*values)

    def to_dict(self) -> dict[str, Any]:
        return self.snapshot(with_history=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        turn = cls([], [])
        turn.restore(data)
        return turn


_TURN_FIELDS = tuple(f.name for f in fields(Turn))


class TurnContext(Protocol):
    """The turn context every handler works on: the worked-on copy of a tile game
    (:class:`engine.tiles.TileGame`, which runs the handlers). Declared here so that the handler
    modules need nothing of engine.tiles, not even for types."""

    rules: RuleSet
    players: list[str]
    deck: Deck
    pool: list[int]
    discards: list[int]
    racks: list[list[int]]
    table: list[Meld]
    opened: list[bool]
    current: int
    start_player: int
    turn_no: int
    round_no: int
    status: str
    result: Result | None
    quiet: int
    last_changed: list[int]
    turn: Turn

    @property
    def is_stein(self) -> bool: ...

    def faces(self, ids: Any) -> list[Face]: ...

    def table_faces(self, working: bool = False) -> list[list[Face]]: ...

    def copy(self) -> Any: ...


UNDOABLE = frozenset(
    ("meld", "add", "move", "split", "join", "swap", "take", "claim", "unclaim", "place", "reset")
)
"""Commands that ``undo`` takes back, each to exactly the turn before it. Draws are not (the
player has seen the tile); ``hint`` changes nothing; ``done`` / ``discard`` end the turn."""

HELP_BUDGET = 400_000  # DP states for `hint` and `place`: a few tenths of a second here


def nested(error: RummyError, *, rstrip: str = "") -> dict[str, Any]:
    """An error as a nested i18n param of another error (its sentence inside a sentence);
    ``rstrip`` drops that sentence's final stop."""
    data: dict[str, Any] = {"key": f"error.{error.code}", **error.params}
    if rstrip:
        data["rstrip"] = rstrip
    return data


def tiles(n: int) -> dict[str, Any]:
    """``1 tile``, ``2 tiles`` (``1 Stein``, ``2 Steine``), as a nested i18n param."""
    return {"key": "why.tiles", "count": n}


def draws_needed(g: TurnContext) -> int:
    """Stein: two draws, at most one from the discard stock, fewer when the stocks run dry."""
    if not g.is_stein:
        return 0
    t = g.turn
    done = t.drawn + t.picked
    left = g.rules.draws_per_turn - done
    possible = len(g.pool) + min(g.rules.discard_picks_per_turn - t.picked, len(g.discards))
    return done + max(0, min(left, possible))


def draws_complete(g: TurnContext) -> bool:
    return not g.is_stein or g.turn.drawn + g.turn.picked >= draws_needed(g)


def require_draws(g: TurnContext) -> None:
    if not draws_complete(g):
        raise RummyError(
            "turn.draw_first",
            drawn=g.turn.drawn + g.turn.picked,
            need=draws_needed(g),  # fewer when the stocks cannot give two
        )


def draws_done_error(g: TurnContext) -> RummyError:
    n = g.turn.drawn + g.turn.picked
    return RummyError("turn.draws_done", tiles=tiles(n))


def take_from_pool(g: TurnContext, seat: int, count: int) -> list[int]:
    got = [g.pool.pop() for _ in range(min(count, len(g.pool)))]
    g.racks[seat].extend(got)
    g.turn.rack.extend(got)
    g.turn.new.extend(got)
    return got


def from_rack(g: TurnContext, faces: Sequence[Face], prefer: Sequence[int] = ()) -> list[int]:
    """Rack ids for these faces (each id once); freed jokers are used first."""
    deck = g.deck.faces
    by_face: dict[Face, list[int]] = {}  # the rack's ids of each face, in rack order
    for i in g.turn.rack:
        by_face.setdefault(deck[i], []).append(i)
    chosen = []
    for face in faces:
        candidates = by_face.get(face)
        if not candidates:
            raise RummyError("piece.not_in_rack", piece=str(face))
        preferred = [i for i in candidates if i in prefer]
        pick = preferred[0] if preferred else candidates[0]
        candidates.remove(pick)
        chosen.append(pick)
    return chosen


def play_from_rack(g: TurnContext, ids: Sequence[int]) -> None:
    """Move these rack pieces to the table side of the turn (played this turn)."""
    for i in ids:
        g.turn.rack.remove(i)
        g.turn.played.append(i)


def meld_at(g: TurnContext, number: int | None) -> Meld:
    assert number is not None
    if not 1 <= number <= len(g.turn.table):
        raise RummyError("meld.no_such", meld=number, count=len(g.turn.table))
    return g.turn.table[number - 1]


def from_meld(g: TurnContext, meld: Meld, number: int, faces: Sequence[Face]) -> list[int]:
    left = list(meld.ids)
    chosen = []
    for face in faces:
        candidates = [i for i in left if g.deck[i] == face]
        if not candidates:
            raise RummyError("piece.not_in_meld", piece=str(face), meld=number)
        left.remove(candidates[-1])
        chosen.append(candidates[-1])
    return chosen


def on_table_at_start(g: TurnContext, piece: int) -> bool:
    return any(piece in m.ids for m in g.table)


def touch(g: TurnContext, seat: int, number: int) -> Meld:
    """The rules for touching meld ``number``: opening lock and claims."""
    meld = meld_at(g, number)
    if meld.claim is not None and meld.claim != seat:
        raise RummyError("claim.not_yours", meld=number, owner=g.players[meld.claim])
    if not may_touch_table(g, seat) and any(on_table_at_start(g, i) for i in meld.ids):
        raise RummyError("opening.table_locked", meld=number)
    return meld


def may_touch_table(g: TurnContext, seat: int) -> bool:
    if g.opened[seat]:
        return True
    if g.rules.opening_may_add_after_minimum and g.rules.opening_minimum:
        return opening_value(g) >= g.rules.opening_minimum
    return False


def start_jokers(g: TurnContext) -> dict[int, tuple[int, Meaning | None]]:
    """Every joker on the table at the start of the turn: the index of its meld there and
    what it stands for, read by position (None when that meld is not valid as it lies).
    Kept for the committed table it was read from (that list is replaced, never changed,
    when a turn is committed); the rule checks ask after every command."""
    memo = g.__dict__.get("_start_jokers_memo")
    if memo is not None and memo[0] is g.table and memo[1] == g.turn_no:
        return dict(memo[2])
    found: dict[int, tuple[int, Meaning | None]] = {}
    for index, meld in enumerate(g.table):
        faces = g.faces(meld.ids)
        if not any(f.is_joker for f in faces):
            continue
        reading = positional_reading(faces, spec_of(g.rules))
        for k, i in enumerate(meld.ids):
            if faces[k].is_joker:
                found[i] = (index, meaning_at(reading, k) if reading else None)
    g.__dict__["_start_jokers_memo"] = (g.table, g.turn_no, found)
    return dict(found)


def carry_start_jokers(g: TurnContext, twin: TurnContext) -> None:
    """Give a copy of ``g`` (same committed table, copied) what :func:`start_jokers` found
    for ``g``: the copy's committed table is equal, and only ever replaced too."""
    memo = g.__dict__.get("_start_jokers_memo")
    if memo is not None and memo[0] is g.table and memo[1] == g.turn_no:
        twin.__dict__["_start_jokers_memo"] = (twin.table, twin.turn_no, memo[2])


def held_jokers(g: TurnContext) -> dict[int, tuple[int, Meaning | None]]:
    """The table jokers not freed this turn: they stay in their melds (RULES.md; DECISIONS)."""
    return {i: v for i, v in start_jokers(g).items() if i not in g.turn.freed}


def arrange(
    g: TurnContext,
    ids: list[int],
    held: dict[int, tuple[int, Meaning | None]] | None = None,
) -> list[int]:
    """Put a meld's ids in table order when it reads as a valid meld; else keep them. Of
    the readings, the first that keeps most table jokers meaning what they meant at the
    start of the turn (the given order first, when it reads). ``held``: the
    :func:`held_jokers` of ``g``, when the caller has them."""
    if held is None:
        held = held_jokers(g)
    mine = {i: m for i, (_, m) in held.items() if i in ids}
    spec = spec_of(g.rules)
    key = (spec, tuple(ids), tuple(sorted(mine.items(), key=lambda im: im[0])))
    memo = _arranged(g.deck)
    found = memo.get(key)
    if found is None:
        found = _arrange(g, ids, spec, mine)
        if len(memo) >= _ARRANGED_MAX:
            memo.clear()
        memo[key] = found
    return list(found)


def _arrange(
    g: TurnContext, ids: list[int], spec: Any, held: dict[int, Meaning | None]
) -> tuple[int, ...]:
    found = readings(g.faces(ids), spec)
    if not found:
        return tuple(ids)
    best, best_kept = ids, -1
    for reading in found:
        ordered, kept = order(g, ids, reading, held)
        if kept > best_kept:
            best, best_kept = ordered, kept
        if not held:
            break
    return tuple(best)


_ARRANGED: dict[int, tuple[Deck, dict[tuple[Any, ...], tuple[int, ...]]]] = {}
"""What :func:`arrange` found per deck (by id, the deck kept so that its id stays its own),
by spec, ids and the held jokers among them and what they mean: a function of those alone."""
_ARRANGED_MAX = 1 << 10


_ARRANGED_BY_FACES: dict[tuple[Any, ...], dict[tuple[Any, ...], tuple[int, ...]]] = {}
"""The same memos by the decks' faces: every game of a preset has an equal deck (its own object),
and arrange's answers depend on the faces alone, so equal decks share one memo (many games at
once would otherwise each rebuild theirs through the 16 decks kept by id)."""


def _arranged(deck: Deck) -> dict[tuple[Any, ...], tuple[int, ...]]:
    entry = _ARRANGED.get(id(deck))
    if entry is None or entry[0] is not deck:
        memo = _ARRANGED_BY_FACES.get(deck.faces)
        if memo is None:
            if len(_ARRANGED_BY_FACES) >= 16:
                _ARRANGED_BY_FACES.clear()
            memo = _ARRANGED_BY_FACES[deck.faces] = {}
        if len(_ARRANGED) >= 16:
            _ARRANGED.clear()
        entry = _ARRANGED[id(deck)] = (deck, memo)
    return entry[1]


def order(
    g: TurnContext, ids: list[int], reading: Reading, held: dict[int, Meaning | None]
) -> tuple[list[int], int]:
    """The ids in the order of ``reading``, each joker place given a table joker that meant
    that place at the start of the turn where there is one; and how many such jokers."""
    reals = [i for i in ids if not g.deck[i].is_joker]
    jokers = [i for i in ids if g.deck[i].is_joker]
    ordered, kept = [], 0
    for k, face in enumerate(reading.faces):
        if face.is_joker:
            want = meaning_at(reading, k)
            spare = next((j for j in jokers if j not in held), jokers[0])
            pick = next((j for j in jokers if j in held and held[j] == want), spare)
            kept += pick in held and held[pick] == want
            jokers.remove(pick)
        else:
            pick = next(i for i in reals if g.deck[i] == face)
            reals.remove(pick)
        ordered.append(pick)
    return ordered, kept


def table_changed(g: TurnContext) -> bool:
    return [m.ids for m in g.turn.table] != [m.ids for m in g.table] or [
        m.claim for m in g.turn.table
    ] != [m.claim for m in g.table]


def drop_empty(g: TurnContext) -> None:
    g.turn.table = [m for m in g.turn.table if m.ids]


def reset_turn(g: TurnContext) -> None:
    t = g.turn
    t.table = [m.copy() for m in g.table]
    t.rack = list(g.racks[g.current])
    t.played, t.freed, t.taken, t.history = [], [], [], []


def opening_value(g: TurnContext) -> int:
    """Value of the melds laid from the rack alone this turn (RULES.md opening)."""
    played = set(g.turn.played)
    laid = [g.faces(m.ids) for m in g.turn.table if m.ids and all(i in played for i in m.ids)]
    return scoring.opening_value(laid, spec_of(g.rules))


def event(
    g: TurnContext,
    kind: str,
    seat: int | None,
    key: str = "",
    *,
    private: bool = False,
    shown: tuple[str, ...] = (),
    **params: Any,
) -> Event:
    """An event as data: its ``player`` (the seat's name) and params; ``key`` when the kind is
    worded differently in this case (i18n ``event.<kind>`` otherwise); ``shown`` are the
    pieces it names (``Event.pieces``)."""
    if seat is not None:
        params["player"] = g.players[seat]
    if key:
        params["key"] = key
    return Event(kind, seat, params, private, shown)


def private_event(g: TurnContext, seat: int, kind: str, ids: list[int], key: str = "") -> Event:
    """A private event naming hidden pieces (``pieces``)."""
    p = format_faces(g.faces(ids))
    return event(g, kind, seat, key, private=True, shown=tuple(p.split()), pieces=p)


def working_event(g: TurnContext, seat: int, kind: str, **params: Any) -> Event:
    """What the mover did to the working table (private until the turn is committed)."""
    return event(g, kind, seat, private=True, **params)
