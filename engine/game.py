"""What every game (tile or card) offers the layers above: events, results, the public view.

The service, the pictures and the tools talk to a game only through this surface:

- ``Game.new(rules, players, seed)`` deals; ``state.apply(seat, text)`` runs one message of
  commands atomically (all accepted, or a :class:`~engine.errors.RummyError` and nothing changed)
  and returns :class:`Event` values; ``state.log_form(text)`` is what the command log keeps of
  it; ``state.timeout()`` runs the preset's time-out action;
- ``state.to_json()`` / ``Game.from_json(text)`` are byte-stable;
- ``state.public_view()`` is everything anybody may see; ``state.rack(seat)`` one player's pieces;
- ``state.result`` is set once the game is over.

Use :func:`new_game` / :func:`load_game` to get the right class for a rule set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import Any, Literal

from i18n import event_text  # the engine's one import of i18n (see last_event_text)

from .codec import Record, canonical_json, to_data
from .errors import RummyError
from .rules import RuleSet
from .variants import variant

Status = Literal["playing", "finished"]
EndReason = Literal["out", "stalemate", "ended", "abandoned", "draw", "colour", "announced"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as data: ``kind`` and ``params`` (who, which pieces, which
    melds, from where to where), never a sentence. :func:`i18n.event_text` words it for each
    reader: key ``params["key"]`` where a kind is worded differently by case, else
    ``event.<kind>``; ``player`` is the acting seat's name. ``private`` events are for ``seat``
    only (they name hidden pieces); all others may be shown to everyone."""

    kind: str
    seat: int | None
    params: dict[str, Any] = field(default_factory=dict)
    private: bool = False
    pieces: tuple[str, ...] = ()


def last_event_text(event: Event, names: Sequence[str] = ()) -> str:
    """The English sentence of an event, for the one place a game keeps a sentence in its saved
    state (``CardGame.last_event``, pinned by saved games): the engine's only use of i18n."""
    return event_text(event, "en", names)


@dataclass(slots=True)
class Result(Record):
    """How a finished game scored. ``points`` per seat are what the preset scores: MP for the
    Stein presets (SMP + CMP for Plus), signed points for Rummikub, penalty points for Rommé
    (positive = bad), winner-takes-all points for classic Rummy. ``ranks`` 1 = best, ties share."""

    reason: EndReason
    winner: int | None
    points: list[float]
    ranks: list[int]
    left: list[list[str]]  # pieces left per seat
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class MeldView:
    number: int  # what players type (1-based)
    pieces: list[str]
    kind: str | None  # "group" / "run" / None when not (yet) valid
    owner: int | None = None  # card games: the seat it lies in front of
    claim: int | None = None  # Stein Plus: the claiming seat
    changed: list[int] = field(default_factory=list)  # positions changed by the last turn


@dataclass(slots=True)
class SeatView:
    seat: int
    name: str
    pieces: int
    opened: bool
    score: float
    is_bot: bool = False


@dataclass(slots=True)
class PublicView:
    """Everything every player may see; what the table picture draws."""

    preset: str
    family: str
    status: Status
    current: int
    turn_no: int
    melds: list[MeldView]
    seats: list[SeatView]
    pool: int
    discards: list[str]  # bottom to top
    last_event: str = ""
    result: Result | None = None

    def to_dict(self) -> dict[str, Any]:
        return to_data(self)


# ---------------------------------------------------------------------- state fields


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True, slots=True)
class StateCodec:
    """How one state field is saved, loaded and copied (see :func:`state`)."""

    dump: Callable[[Any], Any] = _same
    load: Callable[[Any], Any] = _same
    copy: Callable[[Any], Any] = _same
    missing: Callable[[], Any] | None = None
    saved: bool = True


_PLAIN = StateCodec()


def state(
    *,
    dump: Callable[[Any], Any] | None = None,
    load: Callable[[Any], Any] | None = None,
    copy: Callable[[Any], Any] | None = None,
    missing: Callable[[], Any] | None = None,
    saved: bool = True,
) -> dict[str, StateCodec]:
    """The ``metadata`` of a state field of a game dataclass (:class:`PieceGame`), declared
    once: ``field(metadata=state(...))``. ``dump`` turns the value into JSON data
    (``to_dict``), ``load`` back (``from_dict``), ``copy`` makes an independent copy (``copy``,
    hence ``apply``); None = as is. ``missing`` gives the value when an older save lacks the
    key; ``saved=False`` keeps the field out of the saved form. A field without metadata is
    saved, loaded and copied as is (numbers, strings, None)."""
    return {"state": StateCodec(dump or _same, load or _same, copy or _same, missing, saved)}


def _lists(value: list[list[Any]]) -> list[list[Any]]:
    return [list(x) for x in value]


IDS = state(load=list, copy=list)
"""A list of plain values (piece ids, names, flags): loaded and copied with ``list``."""

ID_LISTS = state(load=_lists, copy=_lists)
"""A list of lists of plain values (racks): each inner list copied."""

TRANSIENT = state(saved=False)
"""Not saved, shared by copies (derived values such as the deck)."""


def or_missing(meta: dict[str, StateCodec], missing: Callable[[], Any]) -> dict[str, StateCodec]:
    """The same field metadata, with the value for older saves that lack the key."""
    return {"state": replace(meta["state"], missing=missing)}


def records(cls: Any, **kw: Any) -> dict[str, StateCodec]:
    """A list of records with ``to_list()`` / ``cls.from_list()`` / ``copy()`` (table melds)."""
    return state(
        dump=lambda value: [item.to_list() for item in value],
        load=lambda data: [cls.from_list(item) for item in data],
        copy=lambda value: [item.copy() for item in value],
        **kw,
    )


def optional_record(cls: Any) -> dict[str, StateCodec]:
    """None or a record with ``to_dict()`` / ``cls.from_dict()``, shared by copies (a result is
    made once and never changed)."""
    return state(
        dump=lambda value: value.to_dict() if value else None,
        load=lambda data: cls.from_dict(data) if data else None,
    )


@cache
def _codecs(cls: type) -> tuple[tuple[str, StateCodec], ...]:
    return tuple((f.name, f.metadata.get("state", _PLAIN)) for f in fields(cls) if f.init)


@cache
def copiers(cls: type) -> tuple[tuple[str, Callable[[Any], Any] | None], ...]:
    """Each state field of a game class and how a copy copies it (None: shared as it is)."""
    return tuple(
        (name, None if codec.copy is _same else codec.copy) for name, codec in _codecs(cls)
    )


class PieceGame:
    """What the tile and the card game share: piece ids resolved through ``deck``, the
    byte-stable JSON form, the committed pieces for conservation checks, and adopting a worked-on
    copy, which makes ``apply`` atomic.

    A game class is a dataclass whose fields are its whole state, declared once (with
    :func:`state` and its shorthands where a field is not saved or copied as is): ``to_dict``,
    ``from_dict``, ``copy`` and adopting a worked-on copy follow from the fields."""

    deck: Any
    pool: list[int]
    discards: list[int]
    racks: list[list[int]]
    table: list[Any]  # melds with ``ids``

    def to_dict(self) -> dict[str, Any]:
        return {
            name: codec.dump(getattr(self, name))
            for name, codec in _codecs(type(self))
            if codec.saved
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        values: dict[str, Any] = {}
        for name, codec in _codecs(cls):
            if not codec.saved:
                continue
            if name in data:
                values[name] = codec.load(data[name])
            elif codec.missing is not None:
                values[name] = codec.missing()
            else:
                raise KeyError(name)
        return cls(**values)

    def copy(self) -> Any:
        """An independent copy (what ``apply`` works on)."""
        return type(self)(
            **{name: codec.copy(getattr(self, name)) for name, codec in _codecs(type(self))}
        )

    def to_json(self) -> str:
        """The byte-stable saved state (:func:`canonical_json`)."""
        return canonical_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Any:
        return cls.from_dict(json.loads(text))

    def log_form(self, text: str) -> str:
        """What the command log keeps of ``text``, the message ``apply`` just ran: here the
        text itself (the tile game writes out a ``place`` that the legal search resolved)."""
        return text

    def faces(self, ids: Any) -> list[Any]:
        faces = self.deck.faces
        return [faces[i] for i in ids]

    def tried(self, seat: int, text: str) -> Any:
        """A copy of the game after ``seat`` typed ``text``, or None when the engine refuses it
        (the game itself never changes): how help and computer players check a move first."""
        probe = self.copy()
        try:
            probe.apply(seat, text)  # type: ignore[attr-defined]
        except RummyError:
            return None
        return probe

    def all_piece_ids(self) -> list[int]:
        """Every committed piece: pool, discards, racks and table."""
        ids = list(self.pool) + list(self.discards)
        for rack in self.racks:
            ids += rack
        for meld in self.table:
            ids += meld.ids
        return ids

    def _same_state(self, other: Any) -> bool:
        """Is every state field equal to ``other``'s (a copy of this game)?"""
        for name, _ in _codecs(type(self)):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not theirs and mine != theirs:
                return False
        return True

    def _adopt(self, other: Any) -> None:
        """Take over every state field of a worked-on copy."""
        for name, _ in _codecs(type(self)):
            setattr(self, name, getattr(other, name))


def new_game(rules: RuleSet, players: list[str], seed: int) -> Any:
    """Deal a new game of any preset."""
    return game_class(rules).new(rules, players, seed)


def load_game(text: str) -> Any:
    """Load a saved game of any preset from its JSON."""
    rules = RuleSet.from_dict(json.loads(text)["rules"])
    return game_class(rules).from_json(text)


def game_class(rules: RuleSet) -> type:
    """The game class of the rules' variant (the registry, engine/variants)."""
    return variant(rules.preset).game_class
