"""Geometry shared by the pictures: rectangles and the flow of melds into rows.

Layouts are plain values computed before anything is drawn, so tests can check where every meld,
piece, label and marker lands, and that everything stays inside the picture.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from . import style as s


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle in picture pixels; ``x1``/``y1`` are exclusive."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def centre(self) -> tuple[int, int]:
        return ((self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2)

    def grow(self, d: int) -> Rect:
        """The rectangle enlarged by ``d`` px on every side (shrunk when negative)."""
        return Rect(self.x0 - d, self.y0 - d, self.x1 + d, self.y1 + d)

    def union(self, other: Rect) -> Rect:
        return Rect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    def inside(self, width: int, height: int) -> bool:
        """Whether the rectangle lies completely within a picture of that size."""
        return 0 <= self.x0 <= self.x1 <= width and 0 <= self.y0 <= self.y1 <= height

    def shift(self, dx: int, dy: int) -> Rect:
        return Rect(self.x0 + dx, self.y0 + dy, self.x1 + dx, self.y1 + dy)


@dataclass(slots=True)
class PieceBox:
    """One piece as drawn: its rectangle, its notation and whether it is highlighted."""

    rect: Rect
    face: str
    changed: bool = False


@dataclass(slots=True)
class Placement:
    """Where :func:`flow` put one item: its label and its pieces, as (row, x) pairs."""

    label: tuple[int, int] | None
    pieces: list[tuple[int, int]] = field(default_factory=list)

    def rows(self) -> list[int]:
        found = [r for r, _ in self.pieces]
        if self.label is not None:
            found.insert(0, self.label[0])
        return sorted(set(found))


def flow(
    sizes: Sequence[int],
    label_widths: Sequence[int],
    x0: int,
    x1: int,
    *,
    item_gap: int = s.MELD_GAP,
    piece_w: int = s.PIECE_W,
    piece_gap: int = s.PIECE_GAP,
    label_gap: int = 6,
) -> list[Placement]:
    """Lay items (a label followed by ``size`` pieces) left to right into rows from x0 to x1.

    An item that does not fit on the current row starts a new one; an item longer than a whole
    row wraps inside itself, its continuation rows indented past its label. Nothing ever reaches
    beyond ``x1`` (as long as one label and one piece fit between x0 and x1).
    """
    step = piece_w + piece_gap
    placements: list[Placement] = []
    row, x = 0, x0
    for size, label_w in zip(sizes, label_widths, strict=True):
        head = label_w + label_gap if label_w else 0
        width = head + size * step - piece_gap
        if x > x0 and x + width > x1:
            row, x = row + 1, x0
        placement = Placement(label=(row, x) if label_w else None)
        indent = x + head
        x = indent
        for _ in range(size):
            if x + piece_w > x1:
                row, x = row + 1, indent if indent + piece_w <= x1 else x0
            placement.pieces.append((row, x))
            x += step
        x += item_gap - piece_gap
        placements.append(placement)
    return placements


def row_count(placements: Sequence[Placement]) -> int:
    """How many rows the placements use."""
    rows = [r for p in placements for r in p.rows()]
    return max(rows) + 1 if rows else 0


def all_rects(*groups: object) -> Iterator[Rect]:
    """Every :class:`Rect` found in the given values, lists and dataclasses (recursively)."""
    for item in groups:
        if isinstance(item, Rect):
            yield item
        elif isinstance(item, PieceBox):
            yield item.rect
        elif isinstance(item, list | tuple):
            yield from all_rects(*item)
        elif hasattr(item, "__dataclass_fields__"):
            yield from all_rects(*(getattr(item, name) for name in item.__dataclass_fields__))
