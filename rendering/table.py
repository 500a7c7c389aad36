"""The table picture: everything a :class:`~engine.game.PublicView` shows, as one PNG.

From top to bottom: a title strip (game, turn, pool or stock), one box per seat (name, pieces,
opened, score; the seat whose turn it is framed in gold with a ``▶``), the result when the game is
over, the melds, and the discards. Tile melds flow in rows, each with its number (what players
type) on a label beside it; card melds are grouped in front of their owners. Pieces changed by the
last turn glow gold; a Stein Plus claim is a sky-blue frame with the claimer's name on a tab.

:func:`layout_table` computes every rectangle first (tests check them), :func:`render_table`
draws the layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.game import MeldView, PublicView, SeatView
from engine.pieces import Face
from engine.rules import preset

from . import sprites
from . import style as s
from .layout import PieceBox, Placement, Rect, all_rects, flow, row_count
from .rack import draw_rack, layout_rack
from .text import Labels, draw_text, number

TITLE_H = 64
SEAT_H = 126
SEAT_GAP = 12
SECTION_H = 40  # a strip naming a section (owner of card melds, discards)
RESULT_H = 48
TAG_H = 30  # claim name tab above a row
FRAME_PAD = 6  # claim frame around a meld
LABEL_PAD = 6  # around the meld number
LABEL_MAX_W = 52  # widest meld number ink
NAME_SIZE = 28
SMALL_SIZE = 21
TITLE_SIZE = 30
# The seat panel's words are read on a phone too: Discord shows the picture about
# s.PHONE_WIDTH px wide, and a line of text must keep at least s.MIN_PHONE_TEXT px there.
SEAT_NAME_SIZE = 30
SEAT_TEXT_SIZE = 24


@dataclass(slots=True)
class MeldBox:
    """A meld as laid out: its number label, its pieces, and (claims) frames and name tab."""

    number: int
    label: Rect
    pieces: list[PieceBox]
    owner: int | None = None
    claim: int | None = None
    frames: list[Rect] = field(default_factory=list)  # one per row the meld spans
    tag: Rect | None = None  # the claimer's name tab


@dataclass(slots=True)
class SeatBox:
    seat: int
    rect: Rect
    current: bool
    marker: Rect | None  # the ▶ before the current player's name


@dataclass(slots=True)
class Section:
    title: str
    rect: Rect


@dataclass(slots=True)
class TableLayout:
    """Every rectangle of a table picture. ``numeral_height`` is the ink height of the piece
    numerals and meld numbers, for the phone readability rule."""

    width: int
    height: int
    family: str
    numeral_height: int
    title: Rect
    seats: list[SeatBox]
    melds: list[MeldBox]
    sections: list[Section]
    discards: list[PieceBox]
    stock: Rect | None = None  # card games: the stock (back of a card) beside the top discard
    result: Rect | None = None
    empty: Rect | None = None  # "no melds yet" message

    def rects(self) -> list[Rect]:
        """All rectangles of the layout, for bounds checks."""
        return list(all_rects(self.title, self.seats, self.melds, self.sections, self.discards))

    def meld(self, number: int) -> MeldBox:
        return next(m for m in self.melds if m.number == number)

    def seat(self, seat: int) -> SeatBox:
        return next(b for b in self.seats if b.seat == seat)


# --------------------------------------------------------------------------- layout


@lru_cache(maxsize=256)
def label_mask(number: int) -> Image.Image:
    """The meld number's ink: the same numerals as on the pieces."""
    return sprites.numeral_mask(str(number), 1, LABEL_MAX_W)


def label_width(number: int) -> int:
    return max(40, label_mask(number).width + 2 * LABEL_PAD)


def _seat_rects(count: int, top: int, width: int) -> list[Rect]:
    if count == 0:
        return []
    # a panel's words stay phone-legible (SEAT_TEXT_SIZE): four seats take two rows of two
    cols = count if count <= 3 else 2 if count == 4 else 3
    box_w = (width - 2 * s.MARGIN - (cols - 1) * SEAT_GAP) // cols
    rects = []
    for i in range(count):
        row, col = divmod(i, cols)
        x = s.MARGIN + col * (box_w + SEAT_GAP)
        y = top + row * (SEAT_H + SEAT_GAP)
        rects.append(Rect(x, y, x + box_w, y + SEAT_H))
    return rects


def _layout_seats(view: PublicView, top: int, width: int) -> list[SeatBox]:
    boxes = []
    playing = view.status == "playing"
    for seat, rect in zip(view.seats, _seat_rects(len(view.seats), top, width), strict=True):
        current = playing and seat.seat == view.current
        marker = None
        if current:
            marker = Rect(rect.x0 + 12, rect.y0 + 16, rect.x0 + 36, rect.y0 + 46)
        boxes.append(SeatBox(seat.seat, rect, current, marker))
    return boxes


def _row_tops(placements: list[Placement], tagged_rows: set[int], top: int) -> list[int]:
    """The y of every row; rows carrying a claim tab get room for it above."""
    tops, y = [], top
    for row in range(row_count(placements)):
        if row in tagged_rows:
            y += TAG_H
        tops.append(y)
        y += s.PIECE_H + s.ROW_GAP + 2 * FRAME_PAD
    return tops


def _layout_melds(
    melds: list[MeldView], top: int, width: int, seat_names: dict[int, str]
) -> tuple[list[MeldBox], int]:
    """Flow melds into rows starting at ``top``; returns the boxes and the y below them."""
    if not melds:
        return [], top
    x0, x1 = s.MARGIN + FRAME_PAD, width - s.MARGIN - FRAME_PAD
    placements = flow(
        [len(m.pieces) for m in melds], [label_width(m.number) for m in melds], x0, x1
    )
    tagged = {p.rows()[0] for m, p in zip(melds, placements, strict=True) if m.claim is not None}
    tops = _row_tops(placements, tagged, top + FRAME_PAD)
    boxes = [
        _meld_box(meld, placement, tops, seat_names)
        for meld, placement in zip(melds, placements, strict=True)
    ]
    bottom = tops[-1] + s.PIECE_H + FRAME_PAD + s.ROW_GAP
    return boxes, bottom


def _meld_box(
    meld: MeldView, placement: Placement, tops: list[int], seat_names: dict[int, str]
) -> MeldBox:
    assert placement.label is not None
    row, x = placement.label
    label_rect = Rect(x, tops[row], x + label_width(meld.number), tops[row] + s.PIECE_H)
    changed = set(meld.changed)
    pieces = [
        PieceBox(Rect(px, tops[r], px + s.PIECE_W, tops[r] + s.PIECE_H), face, i in changed)
        for i, (face, (r, px)) in enumerate(zip(meld.pieces, placement.pieces, strict=True))
    ]
    box = MeldBox(meld.number, label_rect, pieces, meld.owner, meld.claim)
    if meld.claim is not None:
        box.frames = _frames(label_rect, pieces)
        name = seat_names.get(meld.claim, f"#{meld.claim + 1}")
        tag_w = min(260, s.text_width(name, SMALL_SIZE) + 24)
        first = box.frames[0]
        box.tag = Rect(first.x0, first.y0 - TAG_H + 4, first.x0 + tag_w, first.y0 + 4)
    return box


def _frames(label_rect: Rect, pieces: list[PieceBox]) -> list[Rect]:
    """One frame per row the meld spans, around its label and pieces in that row."""
    by_row: dict[int, Rect] = {label_rect.y0: label_rect}
    for piece in pieces:
        y = piece.rect.y0
        by_row[y] = by_row[y].union(piece.rect) if y in by_row else piece.rect
    return [by_row[y].grow(FRAME_PAD) for y in sorted(by_row)]


def _layout_pieces(faces: list[str], top: int, width: int) -> tuple[list[PieceBox], int]:
    """A flow of loose pieces (the discards) without labels."""
    if not faces:
        return [], top
    x0, x1 = s.MARGIN + FRAME_PAD, width - s.MARGIN - FRAME_PAD
    placement = flow([len(faces)], [0], x0, x1)[0]
    step = s.PIECE_H + s.ROW_GAP
    boxes = [
        PieceBox(Rect(x, top + r * step, x + s.PIECE_W, top + r * step + s.PIECE_H), face)
        for face, (r, x) in zip(faces, placement.pieces, strict=True)
    ]
    return boxes, top + row_count([placement]) * step


def _card_sections(view: PublicView) -> list[tuple[str, list[MeldView]]]:
    """Card melds grouped by the seat they lie in front of (seat order; unowned last)."""
    names = {seat.seat: seat.name for seat in view.seats}
    owners = sorted({m.owner for m in view.melds if m.owner is not None})
    sections = [
        (names.get(o, f"#{o + 1}"), [m for m in view.melds if m.owner == o]) for o in owners
    ]
    loose = [m for m in view.melds if m.owner is None]
    if loose:
        sections.append(("", loose))
    return sections


def layout_table(
    view: PublicView,
    *,
    width: int = s.TABLE_WIDTH,
    labels: Labels,
) -> TableLayout:
    """Compute where everything of the table picture goes (``labels``: the section titles)."""
    title = Rect(0, 0, width, TITLE_H)
    seats = _layout_seats(view, TITLE_H + 16, width)
    y = max(b.rect.y1 for b in seats) + 16 if seats else TITLE_H + 16
    result = None
    if view.status == "finished":
        result = Rect(s.MARGIN, y, width - s.MARGIN, y + RESULT_H)
        y = result.y1 + 12
    names = {seat.seat: seat.name for seat in view.seats}
    sections: list[Section] = []
    melds: list[MeldBox] = []
    empty = None
    if not view.melds:
        empty = Rect(s.MARGIN, y, width - s.MARGIN, y + 56)
        y = empty.y1 + 8
    elif view.family == "card":
        for title_text, group in _card_sections(view):
            section = Rect(s.MARGIN, y, width - s.MARGIN, y + SECTION_H)
            sections.append(Section(title_text or labels.table, section))
            boxes, y = _layout_melds(group, section.y1 + 6, width, names)
            melds += boxes
    else:
        melds, y = _layout_melds(view.melds, y, width, names)
    discards: list[PieceBox] = []
    stock = None
    if view.family == "card":
        section = Rect(s.MARGIN, y, width - s.MARGIN, y + SECTION_H)
        sections.append(Section(f"{labels.stock} · {labels.discard}", section))
        top = section.y1 + 12
        x = s.MARGIN + FRAME_PAD
        stock = Rect(x, top, x + s.PIECE_W, top + s.PIECE_H)
        if view.discards:
            dx = stock.x1 + 40
            discards = [PieceBox(Rect(dx, top, dx + s.PIECE_W, top + s.PIECE_H), view.discards[-1])]
        y = stock.y1 + 44
    elif view.discards:
        section = Rect(s.MARGIN, y, width - s.MARGIN, y + SECTION_H)
        sections.append(Section(labels.discards, section))
        discards, y = _layout_pieces(list(view.discards), section.y1 + 12, width)
    return TableLayout(
        width=width,
        height=y + 8,
        family=view.family,
        numeral_height=min(label_mask(8).height, sprites.numeral_mask("8").height),
        title=title,
        seats=seats,
        melds=melds,
        sections=sections,
        discards=discards,
        stock=stock,
        result=result,
        empty=empty,
    )


# --------------------------------------------------------------------------- drawing


def _preset_name(view: PublicView, labels: Labels) -> str:
    """The game's name in the reader's language (the labels), else its rule set's name."""
    worded = labels.presets.get(view.preset)
    if worded:
        return worded
    try:
        return preset(view.preset).name
    except Exception:  # an unknown preset still gets a picture
        return view.preset


def _draw_title(canvas: Image.Image, layout: TableLayout, view: PublicView, labels: Labels) -> None:
    draw = ImageDraw.Draw(canvas)
    r = layout.title
    draw.rectangle((r.x0, r.y0, r.x1 - 1, r.y1 - 1), fill=s.FELT_DARK)
    cy = r.centre[1]
    name = _preset_name(view, labels)
    draw_text(draw, (s.MARGIN, cy), name, TITLE_SIZE, s.TEXT, anchor="lm")
    turn = labels.word("turn", n=view.turn_no)
    x = s.MARGIN + s.text_width(name, TITLE_SIZE) + 18
    draw_text(draw, (x, cy), turn, SMALL_SIZE + 3, s.TEXT_MUTED, anchor="lm")
    word = labels.stock if view.family == "card" else labels.pool
    count = str(view.pool)
    right = r.x1 - s.MARGIN
    draw_text(draw, (right, cy), count, TITLE_SIZE + 4, s.TEXT, anchor="rm")
    right -= s.text_width(count, TITLE_SIZE + 4) + 10
    sprites.paste_box(canvas, right - 24, cy - 16, 24, 32, 4, fill=s.TILE_FACE)
    if view.family == "card":
        sprites.paste_box(
            canvas, right - 24, cy - 16, 24, 32, 4, fill=s.CARD_BACK, outline=s.TEXT, width=2
        )
    draw_text(draw, (right - 34, cy), word, SMALL_SIZE + 3, s.TEXT_MUTED, anchor="rm")


def _pieces_word(seat: SeatView, family: str, labels: Labels) -> str:
    noun = "card" if family == "card" else "tile"
    return labels.word(noun) if seat.pieces == 1 else labels.word(noun + "s", n=seat.pieces)


def _draw_seat(
    canvas: Image.Image,
    box: SeatBox,
    seat: SeatView,
    family: str,
    winner: bool,
    labels: Labels,
    over: bool = False,
) -> None:
    r = box.rect
    fill = s.PANEL_CURRENT if box.current else s.PANEL
    outline, width = (s.HIGHLIGHT, 4) if box.current else (s.FELT_LINE, 2)
    sprites.paste_box(
        canvas, r.x0, r.y0, r.width, r.height, 12, fill=fill, outline=outline, width=width
    )
    draw = ImageDraw.Draw(canvas)
    x = r.x0 + 14
    if box.marker is not None:
        m = box.marker
        draw.polygon([(m.x0, m.y0), (m.x1, m.centre[1]), (m.x0, m.y1 - 1)], fill=s.HIGHLIGHT)
        x = m.x1 + 8
    line1, line2, line3 = r.y0 + 31, r.y0 + 70, r.y0 + 103
    name = ("★ " if winner else "") + seat.name
    name = s.fit_text(name, SEAT_NAME_SIZE, r.x1 - 14 - x)
    draw_text(draw, (x, line1), name, SEAT_NAME_SIZE, s.TEXT, anchor="lm")
    pieces = _pieces_word(seat, family, labels)
    room = r.width - 28
    if seat.is_bot:  # the computer tag on the second line, where there is room for it
        tag_w = s.text_width(labels.bot, SEAT_TEXT_SIZE) + 14
        tx = r.x1 - 14 - tag_w
        sprites.paste_box(canvas, tx, line2 - 16, tag_w, 32, 7, fill=s.TEXT_MUTED)
        draw_text(draw, (tx + tag_w // 2, line2), labels.bot, SEAT_TEXT_SIZE, s.PANEL, anchor="mm")
        room -= tag_w + 10
    pieces = s.fit_text(pieces, SEAT_TEXT_SIZE, room)
    draw_text(draw, (r.x0 + 14, line2), pieces, SEAT_TEXT_SIZE, s.TEXT, anchor="lm")
    if over:  # the game's points, once there are any; while it runs, whether they opened
        words, colour = labels.word("score", n=number(seat.score)), s.TEXT
    else:
        words = labels.opened if seat.opened else labels.not_opened
        colour = s.GOOD if seat.opened else s.TEXT_MUTED
    words = s.fit_text(words, SEAT_TEXT_SIZE, r.width - 28)
    draw_text(draw, (r.x0 + 14, line3), words, SEAT_TEXT_SIZE, colour, anchor="lm")


def _draw_label(canvas: Image.Image, rect: Rect, number_: int) -> None:
    sprites.paste_box(
        canvas,
        rect.x0,
        rect.y0,
        rect.width,
        rect.height,
        10,
        fill=s.BADGE,
        outline=s.FELT_LINE,
        width=2,
    )
    mask = label_mask(number_)
    cx, cy = rect.centre
    canvas.paste(s.BADGE_TEXT, (cx - mask.width // 2, cy - mask.height // 2), mask)


def _draw_meld(canvas: Image.Image, box: MeldBox, family: str, names: dict[int, str]) -> None:
    """Label, pieces, then the claim frame and tab on top (so shadows never dim the frame)."""
    _draw_label(canvas, box.label, box.number)
    _draw_pieces(canvas, box.pieces, family)
    for frame in box.frames:
        sprites.paste_box(
            canvas, frame.x0, frame.y0, frame.width, frame.height, 14, outline=s.CLAIM, width=3
        )
    if box.tag is not None and box.claim is not None:
        t = box.tag
        sprites.paste_box(canvas, t.x0, t.y0, t.width, t.height, 8, fill=s.CLAIM)
        name = s.fit_text(names.get(box.claim, f"#{box.claim + 1}"), SMALL_SIZE, t.width - 20)
        draw = ImageDraw.Draw(canvas)
        draw_text(draw, (t.x0 + 12, t.centre[1]), name, SMALL_SIZE, s.TEXT_DARK, anchor="lm")


def _draw_pieces(canvas: Image.Image, pieces: list[PieceBox], family: str) -> None:
    for piece in pieces:
        sprite = sprites.piece_sprite(piece.face, family, piece.changed)
        sprites.paste_sprite(canvas, sprite, piece.rect.x0, piece.rect.y0)


def _draw_section(canvas: Image.Image, section: Section) -> None:
    r = section.rect
    draw = ImageDraw.Draw(canvas)
    draw.line((r.x0, r.y1 - 2, r.x1 - 1, r.y1 - 2), fill=s.FELT_LINE, width=2)
    draw_text(draw, (r.x0 + 2, r.y1 - 10), section.title, SMALL_SIZE + 1, s.TEXT_MUTED, anchor="ls")


def _draw_stock(canvas: Image.Image, layout: TableLayout, view: PublicView, labels: Labels) -> None:
    if layout.stock is None:
        return
    r = layout.stock
    sprites.paste_sprite(canvas, sprites.back_sprite("card"), r.x0, r.y0)
    draw = ImageDraw.Draw(canvas)
    cx, cy = r.centre
    sprites.paste_box(canvas, cx - 26, cy - 20, 52, 40, 10, fill=s.FELT_DARK)
    draw_text(draw, (cx, cy), str(view.pool), 26, s.TEXT, anchor="mm")
    draw_text(draw, (cx, r.y1 + 20), labels.stock, SMALL_SIZE - 3, s.TEXT_MUTED, anchor="mm")
    if layout.discards:
        d = layout.discards[0].rect
        draw_text(
            draw,
            (d.centre[0], d.y1 + 20),
            labels.discard,
            SMALL_SIZE - 3,
            s.TEXT_MUTED,
            anchor="mm",
        )
    else:
        x = r.x1 + 40
        draw_text(draw, (x, r.centre[1]), labels.none, SMALL_SIZE, s.TEXT_MUTED, anchor="lm")


def _draw_result(
    canvas: Image.Image, layout: TableLayout, view: PublicView, labels: Labels
) -> None:
    if layout.result is None:
        return
    r = layout.result
    sprites.paste_box(
        canvas, r.x0, r.y0, r.width, r.height, 12, fill=s.FELT_DARK, outline=s.HIGHLIGHT, width=2
    )
    text = labels.over
    winner = view.result.winner if view.result else None
    names = {seat.seat: seat.name for seat in view.seats}
    if winner is not None:
        text += " · " + labels.word("wins", name=names.get(winner, f"#{winner + 1}"))
    text = s.fit_text(text, NAME_SIZE - 2, r.width - 28)
    draw_text(
        ImageDraw.Draw(canvas),
        (r.x0 + 14, r.centre[1]),
        text,
        NAME_SIZE - 2,
        s.HIGHLIGHT,
        anchor="lm",
    )


def draw_table(view: PublicView, layout: TableLayout, labels: Labels) -> Image.Image:
    """Draw a computed layout into a new RGB image."""
    canvas = Image.new("RGB", (layout.width, layout.height), s.FELT)
    _draw_title(canvas, layout, view, labels)
    winner = view.result.winner if view.result else None
    seats = {seat.seat: seat for seat in view.seats}
    for box in layout.seats:
        over = view.result is not None
        _draw_seat(canvas, box, seats[box.seat], view.family, box.seat == winner, labels, over)
    _draw_result(canvas, layout, view, labels)
    for section in layout.sections:
        _draw_section(canvas, section)
    if layout.empty is not None:
        r = layout.empty
        draw = ImageDraw.Draw(canvas)
        draw_text(
            draw,
            (r.centre[0], r.centre[1]),
            labels.empty,
            SMALL_SIZE + 3,
            s.TEXT_MUTED,
            anchor="mm",
        )
    names = {seat.seat: seat.name for seat in view.seats}
    for box in layout.melds:
        _draw_meld(canvas, box, view.family, names)
    _draw_pieces(canvas, layout.discards, view.family)
    _draw_stock(canvas, layout, view, labels)
    return canvas


def render_table(
    view: PublicView,
    *,
    width: int = s.TABLE_WIDTH,
    labels: Labels,
) -> bytes:
    """The table picture of a public view, as PNG bytes (deterministic). ``labels``: the words
    in the reader's language."""
    layout = layout_table(view, width=width, labels=labels)
    return s.to_png(draw_table(view, layout, labels))


def render_table_with_rack(
    view: PublicView,
    rack: Sequence[Face | str],
    *,
    sort: str = "colour",
    new: Iterable[int] = (),
    labels: Labels,
) -> bytes:
    """The table picture with a rack drawn beneath it, in one PNG (the CLI's ``--hand``)."""
    table = draw_table(view, layout_table(view, labels=labels), labels)
    rack_layout = layout_rack(
        rack,
        sort=sort,  # type: ignore[arg-type]
        new=new,
        family=view.family,
        min_width=table.width,
    )
    rack_image = draw_rack(rack_layout, labels)
    canvas = Image.new("RGB", (table.width, table.height + rack_image.height), s.WOOD)
    canvas.paste(table, (0, 0))
    canvas.paste(rack_image, (0, table.height))
    return s.to_png(canvas)
