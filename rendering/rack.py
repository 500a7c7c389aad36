"""The private rack (tiles) or hand (cards) picture, with the sortings players know from the apps.

Sortings (``sort=``):

- ``"colour"``: by colour/suit, then value; one cluster per colour.
- ``"value"``: by value, then colour/suit.
- ``"run"``: runs first (same colour, consecutive values, longest first), then groups from what is
  left, then the rest by colour.
- ``"group"``: groups first (same value, different colours), then runs, then the rest.
- ``"none"``: as given.

Jokers always come last, in their own cluster. Clusters are separated by a wider gap; every cluster
that is offered as a meld is one the engine (:func:`engine.melds.is_valid`) accepts. Pieces new since
the last turn (``new``: indexes into the given list) glow like changed pieces on the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageDraw

from engine.melds import MeldSpec, is_valid
from engine.pieces import Face, parse_face, sort_key, sort_key_value

from . import sprites
from . import style as s
from .layout import PieceBox, Rect, all_rects, flow, row_count
from .text import Labels, draw_text

Sort = Literal["colour", "color", "value", "run", "group", "none"]
SORTS = ("colour", "value", "run", "group", "none")

HEADER_H = 46
CLUSTER_GAP = 22
LEDGE_H = 14  # the lighter wooden ledge under each row


@dataclass(slots=True)
class RackLayout:
    """Every rectangle of a rack picture; ``order`` maps drawn position -> given index."""

    width: int
    height: int
    family: str
    numeral_height: int
    pieces: list[PieceBox]
    order: list[int]
    clusters: list[list[int]]  # given indexes, cluster by cluster
    ledges: list[Rect]

    def rects(self) -> list[Rect]:
        return list(all_rects(self.pieces, self.ledges))


# --------------------------------------------------------------------------- sorting


def _as_faces(pieces: Iterable[Face | str], family: str) -> list[Face]:
    return [p if isinstance(p, Face) else parse_face(p, family) for p in pieces]  # type: ignore[arg-type]


def _take_run(indexes: list[int], faces: Sequence[Face]) -> list[int] | None:
    """The longest run (same suit, consecutive values, at least 3) among the indexes."""
    best: list[int] | None = None
    for suit in range(4):
        by_rank = {}
        for i in indexes:
            if faces[i].suit == suit:
                by_rank.setdefault(faces[i].rank, i)
        run: list[int] = []
        for rank in range(1, 15):
            if rank in by_rank:
                run.append(by_rank[rank])
                continue
            if len(run) >= 3 and (best is None or len(run) > len(best)):
                best = run
            run = []
    return best


def _take_group(indexes: list[int], faces: Sequence[Face]) -> list[int] | None:
    """The biggest group (same value, different suits, 3 or 4) among the indexes."""
    best: list[int] | None = None
    for rank in range(1, 14):
        by_suit = {}
        for i in indexes:
            if faces[i].rank == rank:
                by_suit.setdefault(faces[i].suit, i)
        group = [by_suit[k] for k in sorted(by_suit)]
        if len(group) >= 3 and (best is None or len(group) > len(best)):
            best = group
    return best


def _collect(indexes: list[int], faces: Sequence[Face], take, spec: MeldSpec) -> list[list[int]]:
    """Repeatedly take melds with ``take`` from ``indexes`` (removing them) while valid."""
    found = []
    while (meld := take(indexes, faces)) and is_valid([faces[i] for i in meld], spec):
        found.append(meld)
        for i in meld:
            indexes.remove(i)
    return found


def arrange(
    pieces: Sequence[Face | str],
    sort: Sort = "colour",
    *,
    family: str = "tile",
    spec: MeldSpec | None = None,
) -> list[list[int]]:
    """Clusters of indexes into ``pieces`` in display order for a sorting (see module doc)."""
    faces = _as_faces(pieces, family)
    spec = spec or MeldSpec()
    jokers = [i for i, f in enumerate(faces) if f.is_joker]
    real = [i for i, f in enumerate(faces) if not f.is_joker]
    by_colour = sorted(real, key=lambda i: (sort_key(faces[i]), i))
    if sort == "none":
        clusters = [list(range(len(faces)))]
        jokers = []
    elif sort == "value":
        clusters = [sorted(real, key=lambda i: (sort_key_value(faces[i]), i))]
    elif sort in ("run", "group"):
        order = (_take_run, _take_group) if sort == "run" else (_take_group, _take_run)
        rest = list(by_colour)
        clusters = _collect(rest, faces, order[0], spec) + _collect(rest, faces, order[1], spec)
        clusters.append(rest)
    elif sort in ("colour", "color"):
        clusters = [[i for i in by_colour if faces[i].suit == suit] for suit in range(4)]
    else:
        raise ValueError(f"unknown sort {sort!r}; choose one of {', '.join(SORTS)}")
    clusters.append(jokers)
    return [c for c in clusters if c]


# --------------------------------------------------------------------------- layout and drawing


def layout_rack(
    pieces: Sequence[Face | str],
    *,
    sort: Sort = "colour",
    new: Iterable[int] = (),
    family: str | None = None,
    spec: MeldSpec | None = None,
    max_width: int = s.TABLE_WIDTH,
    min_width: int = 360,
) -> RackLayout:
    """Where every piece of the rack goes; the picture is as wide as its longest row (at least
    ``min_width``, at most ``max_width``)."""
    family = family or _family_of(pieces)
    clusters = arrange(pieces, sort, family=family, spec=spec)
    x0 = s.MARGIN + s.GLOW
    placements = flow(
        [len(c) for c in clusters], [0] * len(clusters), x0, max_width - x0, item_gap=CLUSTER_GAP
    )
    step = s.PIECE_H + LEDGE_H + 12
    top = HEADER_H
    fresh = set(new)
    boxes, order, ledges = [], [], []
    for cluster, placement in zip(clusters, placements, strict=True):
        for index, (row, x) in zip(cluster, placement.pieces, strict=True):
            y = top + row * step
            rect = Rect(x, y, x + s.PIECE_W, y + s.PIECE_H)
            boxes.append(PieceBox(rect, str(_as_faces([pieces[index]], family)[0]), index in fresh))
            order.append(index)
    right = max((b.rect.x1 for b in boxes), default=x0 + s.PIECE_W)
    width = max(right + x0, min_width)
    for row in range(max(1, row_count(placements))):
        y = top + row * step + s.PIECE_H - 4
        ledges.append(Rect(0, y, width, y + LEDGE_H + 4))
    height = ledges[-1].y1 + 10
    numeral = sprites.numeral_mask("8").height
    return RackLayout(width, height, family, numeral, boxes, order, clusters, ledges)


def _family_of(pieces: Sequence[Face | str]) -> str:
    for piece in pieces:
        if isinstance(piece, Face):
            return piece.family
    return "tile"


def draw_rack(layout: RackLayout, labels: Labels, title: str | None = None) -> Image.Image:
    """Draw a computed rack layout into a new RGB image."""
    canvas = Image.new("RGB", (layout.width, layout.height), s.WOOD)
    draw = ImageDraw.Draw(canvas)
    draw.rectangle((0, 0, layout.width - 1, 5), fill=s.WOOD_LIGHT)
    for ledge in layout.ledges:
        draw.rectangle((ledge.x0, ledge.y0, ledge.x1 - 1, ledge.y1 - 1), fill=s.WOOD_LIGHT)
        draw.line((ledge.x0, ledge.y1 - 1, ledge.x1 - 1, ledge.y1 - 1), fill=s.WOOD_DARK, width=3)
    noun = "card" if layout.family == "card" else "tile"
    count = len(layout.pieces)
    words = labels.word(noun) if count == 1 else labels.word(noun + "s", n=count)
    heading = title if title is not None else f"{labels.rack} · {words}"
    draw_text(draw, (s.MARGIN + s.GLOW, HEADER_H // 2 + 2), heading, 22, s.TEXT, anchor="lm")
    for piece in layout.pieces:
        sprite = sprites.piece_sprite(piece.face, layout.family, piece.changed)
        sprites.paste_sprite(canvas, sprite, piece.rect.x0, piece.rect.y0)
    return canvas


def render_rack(
    pieces: Sequence[Face | str],
    *,
    sort: Sort = "colour",
    new: Iterable[int] = (),
    family: str | None = None,
    spec: MeldSpec | None = None,
    labels: Labels,
    title: str | None = None,
) -> bytes:
    """A player's rack (or card hand) as PNG bytes (deterministic).

    ``pieces`` are faces or notation strings (``family`` says which when all are strings);
    ``new`` are indexes into ``pieces`` drawn with the "changed" glow; ``spec`` (a rule set's
    ``meld_spec``) decides which clusters count as melds for the run/group sortings; ``labels``
    are the words in the reader's language.
    """
    layout = layout_rack(pieces, sort=sort, new=new, family=family, spec=spec)
    return s.to_png(draw_rack(layout, labels, title))
