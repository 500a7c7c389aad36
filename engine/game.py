"""What every game (tile or card) offers the layers above: events, results, the public view.

The service, the pictures and the tools talk to a game only through this surface:

- ``Game.new(rules, players, seed)`` deals; ``state.apply(seat, text)`` runs one message of
  commands atomically (all accepted, or a :class:`~engine.errors.RummyError` and nothing changed)
  and returns :class:`Event` values; ``state.timeout()`` runs the preset's time-out action;
- ``state.to_json()`` / ``Game.from_json(text)`` are byte-stable;
- ``state.public_view()`` is everything anybody may see; ``state.rack(seat)`` one player's pieces;
- ``state.result`` is set once the game is over.

Use :func:`new_game` / :func:`load_game` to get the right class for a rule set.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

Status = Literal["playing", "finished"]
EndReason = Literal["out", "stalemate", "ended", "abandoned", "draw", "colour", "announced"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``private`` events are for ``seat`` only (they name hidden
    pieces); all others may be shown to everyone."""

    kind: str
    seat: int | None
    text: str
    text_de: str
    private: bool = False
    pieces: tuple[str, ...] = ()

    def message(self, lang: str = "en") -> str:
        return self.text_de if lang.lower().startswith("de") else self.text


@dataclass(slots=True)
class Result:
    """How a finished game scored. ``points`` per seat are what the preset scores: MP for the
    Stein presets (SMP + CMP for Plus), signed points for Rummikub, penalty points for Rommé
    (positive = bad), winner-takes-all points for classic Rummy. ``ranks`` 1 = best, ties share."""

    reason: EndReason
    winner: int | None
    points: list[float]
    ranks: list[int]
    left: list[list[str]]  # pieces left per seat
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        return cls(**data)


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
        return asdict(self)


def canonical_json(data: Any) -> str:
    """The byte-stable JSON used for every saved state."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class PieceGame:
    """What the tile and the card game share: piece ids resolved through ``deck``, the
    byte-stable JSON form, the committed pieces for conservation checks, and adopting a worked-on
    copy (``_STATE`` names the attributes a move may change), which makes ``apply`` atomic."""

    _STATE: ClassVar[tuple[str, ...]] = ()
    deck: Any
    pool: list[int]
    discards: list[int]
    racks: list[list[int]]
    table: list[Any]  # melds with ``ids``

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        raise NotImplementedError

    def to_json(self) -> str:
        """The byte-stable saved state (:func:`canonical_json`)."""
        return canonical_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Any:
        return cls.from_dict(json.loads(text))

    def faces(self, ids: Any) -> list[Any]:
        return [self.deck[i] for i in ids]

    def tried(self, seat: int, text: str) -> Any:
        """A copy of the game after ``seat`` typed ``text``, or None when the engine refuses it
        (the game itself never changes): how help and computer players check a move first."""
        from .errors import RummyError

        probe = self.copy()  # type: ignore[attr-defined]
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

    def _adopt(self, other: Any) -> None:
        for name in self._STATE:
            setattr(self, name, getattr(other, name))


def new_game(rules, players: list[str], seed: int):
    """Deal a new game of any preset."""
    return game_class(rules).new(rules, players, seed)


def load_game(text: str):
    """Load a saved game of any preset from its JSON."""
    from .rules import RuleSet

    rules = RuleSet.from_dict(json.loads(text)["rules"])
    return game_class(rules).from_json(text)


def game_class(rules):
    if rules.family == "tile":
        from .tiles import TileGame

        return TileGame
    from .cards import CardGame

    return CardGame
