"""Colours, fonts, sizes and PNG output shared by every picture.

The four tile colours (and the four suit colours) are chosen to differ at a glance with normal
vision and with red-green colour vision: the smallest CIEDE2000 difference between any two is at
least 20 for normal vision and for simulated protanopia and deuteranopia (Machado et al. 2009),
where the earlier vermilion and orange were 9 apart for deuteranopia. Every tile colour also has a
second cue (a shape under the numeral, see :data:`TILE_MARKS`), so colour is never the only
signal. ``tests/rendering/test_colours.py`` keeps both.

Pictures are composed in RGB and written as 8-bit palette PNGs with one *fixed* palette
(:func:`palette_image`): the exact named colours plus blends between the pairs that meet at
anti-aliased edges. A fixed palette makes quantising fast (a lookup, not a search for colours),
keeps files small and makes the output byte-for-byte deterministic.

Readability on a phone: Discord shows a picture about 400 px wide on a phone, and numerals must stay
at least 14 px high there, so ``numeral_height * 400 / width >= 14``. The table is
:data:`TABLE_WIDTH` = 1000 px wide with tile numerals :data:`NUMERAL_HEIGHT` = 36 px high (ink
height of the digits): 36 * 400 / 1000 = 14.4 px on a phone.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageFont

RGB = tuple[int, int, int]

# --------------------------------------------------------------------------- sizes

PHONE_WIDTH = 400  # px Discord gives a picture on a phone
MIN_PHONE_NUMERAL = 14  # px a numeral must keep at that width
MIN_PHONE_TEXT = 9  # px a line of the seat panel's text (ascender to descender) keeps there
TABLE_WIDTH = 1000
NUMERAL_HEIGHT = 36  # ink height of the digits on a piece, at full size
MARGIN = 14

PIECE_W = 56  # a tile or a card
PIECE_H = 86
PIECE_GAP = 3  # between pieces of one meld
MELD_GAP = 16  # between melds on a row
ROW_GAP = 14  # between rows of melds
GLOW = 5  # width of the "changed" glow around a piece


def phone_numeral_height(numeral_height: float, width: float) -> float:
    """How high a numeral appears when the picture is shown :data:`PHONE_WIDTH` px wide."""
    return numeral_height * PHONE_WIDTH / width


# --------------------------------------------------------------------------- colours

FELT = (24, 86, 66)  # the table
FELT_DARK = (15, 60, 46)  # header and section strips
FELT_LINE = (48, 118, 94)
TEXT = (244, 244, 240)
TEXT_MUTED = (170, 204, 190)
TEXT_DARK = (12, 36, 28)
SHADOW = (4, 26, 20)

TILE_FACE = (250, 245, 230)  # cream
TILE_EDGE = (214, 203, 174)  # the tile's lower edge
CHANGED_FACE = (255, 238, 170)  # a piece changed by the last turn
HIGHLIGHT = (255, 196, 0)  # glow around changed pieces, marker of the current seat
CLAIM = (86, 180, 233)  # Stein Plus claim frame (Okabe-Ito sky blue)
BADGE = (10, 44, 34)  # meld number label
BADGE_TEXT = (244, 244, 240)

# Tile colours in engine order B R Y K: blue, a deep red, a golden yellow, black. Red is dark and
# yellow light, so red-green colour vision still tells them apart by lightness and hue.
TILE_INKS: tuple[RGB, ...] = ((0, 100, 200), (170, 30, 20), (210, 140, 0), (30, 30, 30))
JOKER_INK = (153, 51, 153)  # reddish purple, unlike any tile colour
# Second cue per tile colour, drawn under the numeral: B circle, R triangle, Y diamond, K square.
TILE_MARKS = ("circle", "triangle", "diamond", "square")

CARD_FACE = (255, 255, 255)
CARD_EDGE = (178, 178, 178)
CARD_BACK = (40, 72, 140)
CARD_BACK_LINE = (86, 120, 190)
# Suits in engine order S H D C. Four colours: black, the tiles' red, blue, and a bluish green
# light enough to stay apart from the red with red-green colour vision.
SUIT_INKS_FOUR: tuple[RGB, ...] = ((30, 30, 30), (170, 30, 20), (0, 100, 200), (0, 150, 130))
SUIT_INKS_TWO: tuple[RGB, ...] = ((30, 30, 30), (170, 30, 20), (170, 30, 20), (30, 30, 30))

WOOD = (122, 78, 44)  # the private rack
WOOD_LIGHT = (156, 104, 62)
WOOD_DARK = (84, 52, 28)

PANEL = (20, 72, 56)  # seat boxes
PANEL_CURRENT = (44, 96, 74)
GOOD = (120, 214, 170)  # "opened", rating up
BAD = (255, 140, 96)  # rating down
LADDER_BG = (20, 36, 48)
LADDER_ROW = (34, 58, 74)
LADDER_ROW_ALT = (27, 47, 61)
CHART_LINE = (86, 180, 233)
GRID = (60, 84, 100)

NAMED_COLOURS: tuple[RGB, ...] = (
    FELT,
    FELT_DARK,
    FELT_LINE,
    TEXT,
    TEXT_MUTED,
    TEXT_DARK,
    SHADOW,
    TILE_FACE,
    TILE_EDGE,
    CHANGED_FACE,
    HIGHLIGHT,
    CLAIM,
    BADGE,
    BADGE_TEXT,
    *TILE_INKS,
    JOKER_INK,
    CARD_FACE,
    CARD_EDGE,
    CARD_BACK,
    CARD_BACK_LINE,
    *SUIT_INKS_FOUR,
    WOOD,
    WOOD_LIGHT,
    WOOD_DARK,
    PANEL,
    PANEL_CURRENT,
    GOOD,
    BAD,
    LADDER_BG,
    LADDER_ROW,
    LADDER_ROW_ALT,
    CHART_LINE,
    GRID,
    (0, 0, 0),
    (255, 255, 255),
)

# Pairs that meet at anti-aliased edges; the palette holds blends between them.
_INKS = (*TILE_INKS, JOKER_INK, TEXT_DARK, SUIT_INKS_FOUR[3])
_BLEND_PAIRS: tuple[tuple[RGB, RGB], ...] = (
    *((ink, TILE_FACE) for ink in _INKS),
    *((ink, CHANGED_FACE) for ink in _INKS),
    *((ink, CARD_FACE) for ink in _INKS),
    (TILE_FACE, FELT),
    (TILE_EDGE, FELT),
    (TILE_FACE, TILE_EDGE),
    (CARD_EDGE, FELT),
    (CARD_FACE, CARD_EDGE),
    (SHADOW, FELT),
    (SHADOW, WOOD),
    (HIGHLIGHT, FELT),
    (HIGHLIGHT, WOOD),
    (HIGHLIGHT, CHANGED_FACE),
    (TEXT, FELT),
    (TEXT, FELT_DARK),
    (TEXT, PANEL),
    (TEXT, PANEL_CURRENT),
    (TEXT_MUTED, PANEL),
    (TEXT_MUTED, FELT_DARK),
    (BADGE_TEXT, BADGE),
    (BADGE, FELT),
    (CLAIM, FELT),
    (TEXT_DARK, CLAIM),
    (TILE_FACE, WOOD),
    (WOOD_LIGHT, WOOD),
    (WOOD_DARK, WOOD),
    (TEXT, WOOD_DARK),
    (GOOD, PANEL),
    (BAD, PANEL),
    (TEXT, LADDER_ROW),
    (TEXT, LADDER_ROW_ALT),
    (TEXT, LADDER_BG),
    (GOOD, LADDER_ROW),
    (BAD, LADDER_ROW),
    (CHART_LINE, LADDER_BG),
    (CARD_BACK_LINE, CARD_BACK),
)
_BLEND_STEPS = (0.2, 0.4, 0.6, 0.8)


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def palette_colours() -> list[RGB]:
    """The fixed palette: named colours first, then blends, then greys; at most 256."""
    colours: list[RGB] = []
    seen: set[RGB] = set()

    def add(colour: RGB) -> None:
        # Pillow looks colours up in 6-bit buckets: keep entries apart so named ones stay exact.
        near = any(max(abs(a - b) for a, b in zip(colour, c, strict=True)) <= 5 for c in seen)
        if not near and len(colours) < 256:
            seen.add(colour)
            colours.append(colour)

    for colour in NAMED_COLOURS:
        add(colour)
    for a, b in _BLEND_PAIRS:
        for t in _BLEND_STEPS:
            add(_blend(a, b, t))
    for level in range(0, 256, 16):
        add((level, level, level))
    return colours


@lru_cache(maxsize=1)
def palette_image() -> Image.Image:
    """A 1x1 "P" image carrying the fixed palette, for ``Image.quantize(palette=...)``."""
    colours = palette_colours()
    colours += [colours[0]] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette([v for colour in colours for v in colour])
    return image


PNG_COMPRESS_LEVEL = 3  # zlib level: 3 is ~2x faster than 6 for ~20% more bytes (table ~70 KB)


def to_png(image: Image.Image) -> bytes:
    """Encode an RGB picture as a palette PNG with the fixed palette; no metadata, so the same
    picture always gives the same bytes."""
    indexed = image.convert("RGB").quantize(palette=palette_image(), dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


# --------------------------------------------------------------------------- fonts

FONT_DIR = Path(__file__).resolve().parent.parent / "data" / "fonts"
BOLD = "DejaVuSans-Bold.ttf"
CONDENSED = "DejaVuSansCondensed-Bold.ttf"


@lru_cache(maxsize=64)
def font(size: int, name: str = BOLD) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The shipped font at ``size`` px; Pillow's built-in scalable font when the file is missing."""
    path = FONT_DIR / name
    if path.is_file():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=16)
def numeral_font_size(height: int, name: str = CONDENSED) -> int:
    """The smallest font size whose digits are at least ``height`` px high (ink)."""
    size = height
    while digit_height(size, name) < height:
        size += 1
    return size


def digit_height(size: int, name: str = CONDENSED) -> int:
    """Ink height of the digits at a font size."""
    box = font(size, name).getbbox("0123456789")
    return int(box[3] - box[1])


NUMERAL_TRACKING = -2  # px between the digits of a two-digit numeral (tighter, like real tiles)


def text_width(text: str, size: int, name: str = BOLD) -> int:
    """Advance width of a text in px."""
    return round(font(size, name).getlength(text))


def fit_text(text: str, size: int, width: int, name: str = BOLD) -> str:
    """The text, shortened with an ellipsis when it is wider than ``width`` px."""
    if text_width(text, size, name) <= width:
        return text
    while text and text_width(text + "…", size, name) > width:
        text = text[:-1]
    return text + "…"
