"""The words on the pictures (passed in, already worded) and a helper to draw a line of text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields

from PIL import ImageDraw

from . import style as s


@dataclass(frozen=True, slots=True)
class Labels:
    """The words drawn into the pictures, already in the reader's language: templates that the
    picture fills in (``turn="Turn {n}"``, ``wins="{name} wins"``). The caller words them (the
    i18n catalogue's ``render.*`` keys: ``Labels(**i18n.render_labels(lang))``); rendering knows
    no language."""

    turn: str
    pool: str
    stock: str
    discard: str
    discards: str
    tiles: str
    tile: str
    cards: str
    card: str
    opened: str
    not_opened: str
    score: str
    bot: str
    table: str
    empty: str
    over: str
    wins: str
    claim: str
    rack: str
    ladder: str
    rank: str
    player: str
    games: str
    mp: str
    percent: str
    rating: str
    history: str
    none: str
    presets: Mapping[str, str] = field(default_factory=dict)
    """Each game's name in the reader's language (preset -> name), for the table's title; a
    preset missing here is titled with its rule set's own name."""

    @classmethod
    def of(cls, lookup: Callable[[str], str]) -> Labels:
        """Labels with each template from ``lookup(name)`` (and no game names)."""
        return cls(**{f.name: lookup(f.name) for f in fields(cls) if f.name != "presets"})

    def word(self, label: str, /, **params: object) -> str:
        """The label ``label`` filled in with ``params``."""
        return getattr(self, label).format(**params)


def number(value: float) -> str:
    """A score or rating as shown: whole numbers without decimals, others with one."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.1f}"


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[int, int],
    text: str,
    size: int,
    fill: s.RGB,
    *,
    anchor: str = "la",
    name: str = s.BOLD,
) -> None:
    """Draw one line of text with the shipped font."""
    draw.text(xy, text, font=s.font(size, name), fill=fill, anchor=anchor)
