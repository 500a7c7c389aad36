"""Pieces and their notation (DESIGN.md, "Notation").

A *face* is what is printed on a piece: a :class:`Tile` (colour + value) or a :class:`Card`
(suit + rank), or a joker of either family. Faces are small frozen values with ``parse`` and
``__str__``. The same face exists several times in a game (two decks), so the game state keeps
*piece ids*: an id indexes the game's :class:`Deck`, a tuple of faces. Commands name faces; the
engine resolves them to ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from .errors import RummyError

Family = Literal["tile", "card"]

JOKER_SUIT = -1

# Tiles: colour letters in display order; aliases accepted on input (DESIGN.md).
TILE_COLOURS = ("B", "R", "Y", "K")
TILE_ALIASES = {"B": 0, "R": 1, "Y": 2, "G": 2, "K": 3, "S": 3}

# Cards: suits in display order, letters and symbols.
CARD_SUITS = ("S", "H", "D", "C")
CARD_SYMBOLS = ("♠", "♥", "♦", "♣")
CARD_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
CARD_ALIASES.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
CARD_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
CARD_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}


def _bad(token: str, why: str) -> RummyError:
    """``parse.piece`` with its reason as data (catalogue key ``why.piece.<why>``)."""
    return RummyError("parse.piece", token=token, why={"key": f"why.piece.{why}"})


@dataclass(frozen=True, slots=True, order=True)
class Face:
    """What a piece shows. ``suit`` is 0-3 (colour or suit), -1 for a joker; ``rank`` 1-13, 0 for
    a joker. Ordering is by suit then rank; jokers sort first, use :func:`sort_key` for display."""

    suit: int
    rank: int

    family: ClassVar[Family]

    @property
    def is_joker(self) -> bool:
        return self.suit == JOKER_SUIT

    @classmethod
    def joker(cls):
        return cls(JOKER_SUIT, 0)


@dataclass(frozen=True, slots=True, order=True)
class Tile(Face):
    """A tile: ``R5``, ``B12``, ``Y7`` (``G7``), ``K1`` (``S1``); joker ``J`` or ``*``."""

    family: ClassVar[Family] = "tile"

    @classmethod
    def parse(cls, token: str) -> Tile:
        text = token.strip()
        if not text:
            raise RummyError("parse.empty")
        upper = text.upper()
        if upper in ("J", "*", "JOKER"):
            return cls.joker()
        letter, digits = upper[0], upper[1:]
        if letter not in TILE_ALIASES:
            raise _bad(token, "tile_colour")
        if not digits.isdigit():
            raise _bad(token, "tile_value_follows")
        value = int(digits)
        if not 1 <= value <= 13:
            raise _bad(token, "tile_value")
        return cls(TILE_ALIASES[letter], value)

    def __str__(self) -> str:
        return "J" if self.is_joker else f"{TILE_COLOURS[self.suit]}{self.rank}"


@dataclass(frozen=True, slots=True, order=True)
class Card(Face):
    """A card: ``10H``, ``QS``, ``A♣``, ``TD`` (ten); joker ``*`` or ``JK``. Prints ``10H``."""

    family: ClassVar[Family] = "card"

    @classmethod
    def parse(cls, token: str) -> Card:
        text = token.strip()
        if not text:
            raise RummyError("parse.empty")
        upper = text.upper()
        if upper in ("*", "JK", "JOKER"):
            return cls.joker()
        suit_text = upper[-1]
        rank_text = upper[:-1]
        if suit_text not in CARD_ALIASES:
            raise _bad(token, "card_suit")
        if rank_text in CARD_RANKS:
            rank = CARD_RANKS[rank_text]
        elif rank_text.isdigit() and 2 <= int(rank_text) <= 10:
            rank = int(rank_text)
        else:
            raise _bad(token, "card_rank")
        return cls(CARD_ALIASES[suit_text], rank)

    def __str__(self) -> str:
        if self.is_joker:
            return "*"
        return f"{CARD_RANK_TEXT.get(self.rank, str(self.rank))}{CARD_SUITS[self.suit]}"


FACE_TYPES: dict[Family, type[Face]] = {"tile": Tile, "card": Card}

_SPLIT_PIECES = re.compile(r"[\s,]+")
_SPLIT_MELDS = re.compile(r"[|;\r\n]")


def parse_face(token: str, family: Family = "tile") -> Face:
    """Parse one piece in the given family's notation."""
    return FACE_TYPES[family].parse(token)


def parse_faces(text: str, family: Family = "tile") -> list[Face]:
    """Parse pieces separated by spaces or commas: ``"R5 R6 J"``."""
    return [parse_face(t, family) for t in _SPLIT_PIECES.split(text.strip()) if t]


def split_melds(text: str) -> list[str]:
    """The text of each meld, as typed: melds are separated by ``|``, ``;`` or new lines, with or
    without spaces (``"R5 R6 R7|B9 Y9 K9"``); blank parts are dropped."""
    return [part for part in _SPLIT_MELDS.split(text) if _SPLIT_PIECES.sub("", part)]


def parse_melds(text: str, family: Family = "tile") -> list[list[Face]]:
    """Parse melds separated by ``|``, ``;`` or new lines: ``"R5 R6 R7 | B9 Y9 K9"``."""
    return [parse_faces(part, family) for part in split_melds(text)]


def format_faces(faces: Iterable[Face]) -> str:
    return " ".join(str(f) for f in faces)


def format_melds(melds: Iterable[Iterable[Face]]) -> str:
    return " | ".join(format_faces(m) for m in melds)


def sort_key(face: Face) -> tuple[int, int, int]:
    """Display order: by colour/suit then value, jokers last."""
    return (1, 0, 0) if face.is_joker else (0, face.suit, face.rank)


def sort_key_value(face: Face) -> tuple[int, int, int]:
    """Display order: by value then colour/suit, jokers last."""
    return (1, 0, 0) if face.is_joker else (0, face.rank, face.suit)


@dataclass(frozen=True, slots=True)
class Deck:
    """All pieces of one game, indexed by piece id. Built from the rule set (see rules.py)."""

    faces: tuple[Face, ...]

    @classmethod
    def build(cls, family: Family, copies: int, jokers: int) -> Deck:
        """``copies`` x 4 suits x 1-13, then ``jokers`` jokers (ids in that order)."""
        face = FACE_TYPES[family]
        faces = [face(s, r) for _ in range(copies) for s in range(4) for r in range(1, 14)]
        faces += [face.joker()] * jokers
        return cls(tuple(faces))

    @property
    def family(self) -> Family:
        return self.faces[0].family

    def __len__(self) -> int:
        return len(self.faces)

    def __getitem__(self, piece_id: int) -> Face:
        return self.faces[piece_id]

    def show(self, ids: Sequence[int]) -> str:
        return format_faces(self.faces[i] for i in ids)

    def jokers(self) -> list[int]:
        return [i for i, f in enumerate(self.faces) if f.is_joker]
