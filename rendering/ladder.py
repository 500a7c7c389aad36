"""Ladder pictures: the standings table and a player's rating history as a small line chart.

Input is plain data: :class:`LadderRow` (build it directly, or with :meth:`LadderRow.from_dict`
from the league's standing rows) and a list of ratings, oldest first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from . import style as s
from .layout import Rect
from .text import Labels, draw_text, number

LADDER_WIDTH = 680
ROW_H = 54
HEAD_H = 66
COLUMN_H = 40
FONT = 30  # numbers, condensed: digits 24 px high, 24 * 400 / 680 = 14.1 px on a phone
NAME_FONT = 24
SMALL = 16


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One line of the standings. ``percent`` is 0-100; ``trend`` the recent rating change;
    ``position`` None for players not (yet) ranked, shown with a dash."""

    player: str
    games: int
    wins: int
    mp: float
    max_mp: float
    percent: float
    rating: float
    trend: float = 0.0
    position: int | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LadderRow:
        """From a dict with these keys; ``name`` or ``player_id`` stand in for ``player``."""
        player = data.get("player") or data.get("name") or data.get("player_id") or "?"
        return cls(
            player=str(player),
            games=int(data.get("games", 0)),
            wins=int(data.get("wins", 0)),
            mp=float(data.get("mp", 0)),
            max_mp=float(data.get("max_mp", 0)),
            percent=float(data.get("percent", 0)),
            rating=float(data.get("rating", 0)),
            trend=float(data.get("trend", 0)),
            position=data.get("position"),
        )


@dataclass(slots=True)
class LadderLayout:
    width: int
    height: int
    columns: list[tuple[str, Rect, str]]  # (key, header cell, alignment "l"/"r"/"m")
    rows: list[Rect]
    numeral_height: int = 0  # ink height of the numbers, for the phone readability rule


# column key, share of the fixed width (px), alignment
_COLUMNS: tuple[tuple[str, int, str], ...] = (
    ("rank", 40, "m"),
    ("player", 0, "l"),  # takes the rest
    ("games", 68, "r"),
    ("mp", 97, "r"),
    ("percent", 97, "r"),
    ("rating", 97, "r"),
    ("trend", 99, "r"),
)


def layout_ladder(count: int, width: int = LADDER_WIDTH) -> LadderLayout:
    """Columns and rows of a standings picture with ``count`` lines."""
    inner = width - 2 * s.MARGIN
    fixed = sum(w for _, w, _ in _COLUMNS)
    x = s.MARGIN
    columns = []
    for key, w, align in _COLUMNS:
        w = w or inner - fixed
        columns.append((key, Rect(x, HEAD_H, x + w, HEAD_H + COLUMN_H), align))
        x += w
    top = HEAD_H + COLUMN_H
    rows = [
        Rect(s.MARGIN, top + i * ROW_H, width - s.MARGIN, top + (i + 1) * ROW_H)
        for i in range(count)
    ]
    height = (rows[-1].y1 if rows else top) + s.MARGIN
    return LadderLayout(width, height, columns, rows, s.digit_height(FONT, s.CONDENSED))


def _cell_text(key: str, row: LadderRow) -> str:
    if key == "rank":
        return str(row.position) if row.position is not None else "–"
    if key == "player":
        return row.player
    if key == "games":
        return str(row.games)
    if key == "mp":
        return number(row.mp)
    if key == "percent":
        return f"{row.percent:.1f}"
    if key == "rating":
        return f"{row.rating:.1f}"
    if row.trend > 0:
        return f"▲{row.trend:.1f}"
    if row.trend < 0:
        return f"▼{-row.trend:.1f}"
    return "–"


def _cell_colour(key: str, row: LadderRow) -> s.RGB:
    if key == "trend":
        return s.GOOD if row.trend > 0 else s.BAD if row.trend < 0 else s.TEXT_MUTED
    if row.position is None:
        return s.TEXT_MUTED
    return s.TEXT


def _draw_cell(
    draw: ImageDraw.ImageDraw,
    cell: Rect,
    align: str,
    text: str,
    size: int,
    fill: s.RGB,
    name: str = s.BOLD,
) -> None:
    cy = cell.centre[1]
    pad = 6
    text = s.fit_text(text, size, cell.width - 2 * pad, name)
    if align == "l":
        draw_text(draw, (cell.x0 + pad, cy), text, size, fill, anchor="lm", name=name)
    elif align == "r":
        draw_text(draw, (cell.x1 - pad, cy), text, size, fill, anchor="rm", name=name)
    else:
        draw_text(draw, (cell.centre[0], cy), text, size, fill, anchor="mm", name=name)


def render_ladder(
    rows: Sequence[LadderRow | Mapping[str, Any]],
    *,
    top: int = 10,
    title: str | None = None,
    highlight: str | None = None,
    labels: Labels,
) -> bytes:
    """The top ``top`` standings as PNG bytes; the row of player ``highlight`` is framed
    (``labels``: the title and column heads in the reader's language)."""
    lines = [r if isinstance(r, LadderRow) else LadderRow.from_dict(r) for r in rows][:top]
    layout = layout_ladder(len(lines))
    canvas = Image.new("RGB", (layout.width, layout.height), s.LADDER_BG)
    draw = ImageDraw.Draw(canvas)
    draw_text(
        draw,
        (s.MARGIN + 10, HEAD_H // 2 + 4),
        title or labels.ladder,
        34,
        s.TEXT,
        anchor="lm",
    )
    for key, cell, align in layout.columns:
        _draw_cell(
            draw, cell, align, labels.word(key) if key != "trend" else "", SMALL, s.TEXT_MUTED
        )
    for i, (row, rect) in enumerate(zip(lines, layout.rows, strict=True)):
        fill = s.LADDER_ROW if i % 2 == 0 else s.LADDER_ROW_ALT
        draw.rectangle((rect.x0, rect.y0, rect.x1 - 1, rect.y1 - 1), fill=fill)
        if highlight is not None and row.player == highlight:
            draw.rectangle(
                (rect.x0, rect.y0, rect.x1 - 1, rect.y1 - 1), outline=s.HIGHLIGHT, width=3
            )
        for key, head, align in layout.columns:
            cell = Rect(head.x0, rect.y0, head.x1, rect.y1)
            size, name = (NAME_FONT, s.BOLD) if key == "player" else (FONT, s.CONDENSED)
            text = _cell_text(key, row)
            _draw_cell(draw, cell, align, text, size, _cell_colour(key, row), name)
    return s.to_png(canvas)


# --------------------------------------------------------------------------- rating history

HISTORY_W, HISTORY_H = LADDER_WIDTH, 340
_SS = 2  # the chart is drawn at twice the size and scaled down for smooth lines


def _chart_range(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.1
    return low - pad, high + pad


def render_history(
    history: Sequence[float],
    *,
    name: str = "",
    labels: Labels,
    width: int = HISTORY_W,
) -> bytes:
    """A player's ratings (oldest first) as a small line chart, PNG bytes."""
    values = [float(v) for v in history] or [0.0]
    w, h = width * _SS, HISTORY_H * _SS
    canvas = Image.new("RGB", (w, h), s.LADDER_BG)
    draw = ImageDraw.Draw(canvas)
    heading = labels.history + (f" · {name}" if name else "")
    draw_text(
        draw,
        (s.MARGIN * _SS, 34 * _SS),
        s.fit_text(heading, 28 * _SS, w - 260 * _SS),
        28 * _SS,
        s.TEXT,
        anchor="lm",
    )
    draw_text(
        draw,
        (w - s.MARGIN * _SS, 34 * _SS),
        f"{values[-1]:.1f}",
        30 * _SS,
        s.CHART_LINE,
        anchor="rm",
    )
    plot = Rect(104 * _SS, 84 * _SS, w - s.MARGIN * _SS - 10 * _SS, h - 30 * _SS)
    low, high = _chart_range(values)

    def y_of(v: float) -> float:
        return plot.y1 - (v - low) / (high - low) * plot.height

    for v in (low + (high - low) * k / 2 for k in range(3)):
        y = y_of(v)
        draw.line((plot.x0, y, plot.x1, y), fill=s.GRID, width=_SS)
        xy = (plot.x0 - 12 * _SS, y)
        draw_text(draw, xy, f"{v:.1f}", FONT * _SS, s.TEXT_MUTED, anchor="rm", name=s.CONDENSED)
    n = len(values)
    xs = [plot.x0 + (plot.width * i / (n - 1) if n > 1 else plot.width / 2) for i in range(n)]
    points = [(x, y_of(v)) for x, v in zip(xs, values, strict=True)]
    if n > 1:
        draw.line(points, fill=s.CHART_LINE, width=4 * _SS, joint="curve")
    r = 5 * _SS
    for x, y in points if n <= 40 else points[-1:]:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=s.CHART_LINE)
    small = canvas.resize((width, HISTORY_H), Image.Resampling.BOX)
    return s.to_png(small)
