"""Pre-rendered pieces and boxes, drawn once at 3x size and scaled down (smooth edges), then cached.

Every sprite is RGBA and larger than the thing it shows by :data:`~rendering.style.GLOW` px on
each side, room for the drop shadow and the "changed" glow; paste it with
:func:`paste_sprite` at the piece's rectangle.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from engine.pieces import CARD_RANK_TEXT, CARD_SYMBOLS, Face, parse_face

from . import style as s

SCALE = 3  # supersampling factor
PIECE_RADIUS = 9
CARD_RADIUS = 7
EDGE = 6  # height of a tile's lower edge (its thickness)


def _ss(value: float) -> int:
    return round(value * SCALE)


def _face(text: str, family: str) -> Face:
    return parse_face(text, family)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- generic shapes


def _shadow_and_glow(w: int, h: int, radius: int, changed: bool) -> Image.Image:
    """A transparent 3x canvas with the piece's soft shadow (and glow when changed)."""
    pad = s.GLOW
    canvas = Image.new("RGBA", (_ss(w + 2 * pad), _ss(h + 2 * pad)), (0, 0, 0, 0))
    box = (_ss(pad), _ss(pad), _ss(pad + w) - 1, _ss(pad + h) - 1)
    if changed:
        halo = Image.new("RGBA", canvas.size, (*s.HIGHLIGHT, 0))
        mask = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(
            _grow(box, _ss(pad - 1)), _ss(radius + pad), fill=170
        )
        halo.putalpha(mask.filter(ImageFilter.GaussianBlur(_ss(1.5))))
        canvas = Image.alpha_composite(canvas, halo)
        ring = ImageDraw.Draw(canvas)
        ring.rounded_rectangle(_grow(box, _ss(3)), _ss(radius + 3), fill=(*s.HIGHLIGHT, 255))
    else:
        shadow = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(shadow).rounded_rectangle(
            (box[0] + _ss(1), box[1] + _ss(3), box[2] + _ss(2), box[3] + _ss(3)),
            _ss(radius),
            fill=150,
        )
        layer = Image.new("RGBA", canvas.size, (*s.SHADOW, 0))
        layer.putalpha(shadow.filter(ImageFilter.GaussianBlur(_ss(1.5))))
        canvas = Image.alpha_composite(canvas, layer)
    return canvas


def _grow(box: tuple[int, int, int, int], d: int) -> tuple[int, int, int, int]:
    return (box[0] - d, box[1] - d, box[2] + d, box[3] + d)


def _finish(canvas: Image.Image) -> Image.Image:
    w, h = canvas.size
    return canvas.resize((w // SCALE, h // SCALE), Image.Resampling.BOX)


@lru_cache(maxsize=256)
def numeral_mask(text: str, scale: int = 1, max_w: int | None = None) -> Image.Image:
    """The numeral's ink as an "L" mask: digits drawn one by one with tight tracking, squeezed
    horizontally to ``max_w`` if still wider. Its height is the digits' ink height."""
    fnt = s.font(s.numeral_font_size(s.NUMERAL_HEIGHT) * scale, s.CONDENSED)
    boxes = [fnt.getbbox(ch) for ch in text]
    top = min(b[1] for b in boxes)
    bottom = max(b[3] for b in boxes)
    widths = [b[2] - b[0] for b in boxes]
    gap = s.NUMERAL_TRACKING * scale
    total = sum(widths) + gap * (len(text) - 1)
    height = bottom - top
    mask = Image.new("L", (total, height), 0)
    x = 0
    for ch, box, w in zip(text, boxes, widths, strict=True):
        glyph = Image.new("L", (w, height), 0)
        ImageDraw.Draw(glyph).text((-box[0], -top), ch, font=fnt, fill=255)
        region = (x, 0, x + w, height)
        mask.paste(ImageChops.lighter(mask.crop(region), glyph), region[:2])
        x += w + gap
    if max_w is not None and mask.width > max_w:
        mask = mask.resize((max_w, mask.height), Image.Resampling.BOX)
    return mask


def _draw_numeral(
    canvas: Image.Image, text: str, ink: s.RGB, centre_x: int, top: int, max_w: int
) -> None:
    """Draw a numeral (3x canvas) with its ink top at ``top``."""
    mask = numeral_mask(text, SCALE, max_w)
    solid = Image.new("RGBA", mask.size, (*ink, 255))
    canvas.paste(solid, (centre_x - mask.width // 2, top), mask)


def _draw_mark(draw: ImageDraw.ImageDraw, mark: str, cx: int, cy: int, r: int, ink: s.RGB) -> None:
    """The second colour cue: a small filled shape centred at (cx, cy), radius r (3x)."""
    fill = (*ink, 255)
    if mark == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
    elif mark == "triangle":
        draw.polygon([(cx, cy - r - 2), (cx + r + 2, cy + r), (cx - r - 2, cy + r)], fill=fill)
    elif mark == "diamond":
        k = r + 3
        draw.polygon([(cx, cy - k), (cx + k, cy), (cx, cy + k), (cx - k, cy)], fill=fill)
    else:
        k = r - 1
        draw.rectangle((cx - k, cy - k, cx + k, cy + k), fill=fill)


def _draw_joker(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int) -> None:
    """A smiley face (3x canvas) in the joker colour."""
    ink = (*s.JOKER_INK, 255)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink)
    face = (255, 236, 120, 255)
    inner = r - _ss(2.5)
    draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=face)
    eye = max(2, r // 7)
    for ex in (cx - r // 3, cx + r // 3):
        draw.ellipse((ex - eye, cy - r // 3 - eye, ex + eye, cy - r // 3 + eye), fill=ink)
    mouth = r * 6 // 10
    draw.arc(
        (cx - mouth, cy - mouth + r // 8, cx + mouth, cy + mouth + r // 8),
        20,
        160,
        fill=ink,
        width=_ss(2.2),
    )


def _draw_star(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, ink: s.RGB) -> None:
    import math

    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    draw.polygon(points, fill=(*ink, 255))


# --------------------------------------------------------------------------- pieces


@lru_cache(maxsize=512)
def tile_sprite(text: str, changed: bool = False) -> Image.Image:
    """A tile: cream face with a lower edge, coloured numeral, colour mark; joker = smiley."""
    w, h, pad = s.PIECE_W, s.PIECE_H, s.GLOW
    canvas = _shadow_and_glow(w, h, PIECE_RADIUS, changed)
    draw = ImageDraw.Draw(canvas)
    x0, y0, x1, y1 = _ss(pad), _ss(pad), _ss(pad + w) - 1, _ss(pad + h) - 1
    draw.rounded_rectangle((x0, y0, x1, y1), _ss(PIECE_RADIUS), fill=(*s.TILE_EDGE, 255))
    face_colour = s.CHANGED_FACE if changed else s.TILE_FACE
    draw.rounded_rectangle(
        (x0, y0, x1, y1 - _ss(EDGE)), _ss(PIECE_RADIUS), fill=(*face_colour, 255)
    )
    face = _face(text, "tile")
    cx = (x0 + x1) // 2
    if face.is_joker:
        _draw_joker(draw, cx, y0 + _ss(32), _ss(24))
        _draw_star(draw, cx, y1 - _ss(EDGE + 13), _ss(9), s.JOKER_INK)
    else:
        ink = s.TILE_INKS[face.suit]
        _draw_numeral(canvas, str(face.rank), ink, cx, y0 + _ss(12), _ss(w - 8))
        _draw_mark(draw, s.TILE_MARKS[face.suit], cx, y1 - _ss(EDGE + 14), _ss(7), ink)
    return _finish(canvas)


@lru_cache(maxsize=512)
def card_sprite(text: str, changed: bool = False, four_colour: bool = True) -> Image.Image:
    """A card: white face, rank at the top and a large suit symbol below; joker = smiley + star."""
    w, h, pad = s.PIECE_W, s.PIECE_H, s.GLOW
    canvas = _shadow_and_glow(w, h, CARD_RADIUS, changed)
    draw = ImageDraw.Draw(canvas)
    x0, y0, x1, y1 = _ss(pad), _ss(pad), _ss(pad + w) - 1, _ss(pad + h) - 1
    face_colour = s.CHANGED_FACE if changed else s.CARD_FACE
    draw.rounded_rectangle(
        (x0, y0, x1, y1),
        _ss(CARD_RADIUS),
        fill=(*face_colour, 255),
        outline=(*s.CARD_EDGE, 255),
        width=_ss(1),
    )
    face = _face(text, "card")
    cx = (x0 + x1) // 2
    if face.is_joker:
        _draw_joker(draw, cx, y0 + _ss(30), _ss(22))
        _draw_star(draw, cx, y1 - _ss(22), _ss(14), s.JOKER_INK)
        return _finish(canvas)
    inks = s.SUIT_INKS_FOUR if four_colour else s.SUIT_INKS_TWO
    ink = inks[face.suit]
    rank = CARD_RANK_TEXT.get(face.rank, str(face.rank))
    _draw_numeral(canvas, rank, ink, cx, y0 + _ss(9), _ss(w - 8))
    symbol = CARD_SYMBOLS[face.suit]
    fnt = s.font(_ss(38), s.BOLD)
    draw.text((cx, y1 - _ss(22)), symbol, font=fnt, fill=(*ink, 255), anchor="mm")
    return _finish(canvas)


def piece_sprite(text: str, family: str, changed: bool = False, four_colour: bool = True):
    """The sprite for a piece of either family."""
    if family == "card":
        return card_sprite(text, changed, four_colour)
    return tile_sprite(text, changed)


@lru_cache(maxsize=4)
def back_sprite(family: str) -> Image.Image:
    """The back of a piece: the pool (tiles) or the stock (cards)."""
    w, h, pad = s.PIECE_W, s.PIECE_H, s.GLOW
    radius = CARD_RADIUS if family == "card" else PIECE_RADIUS
    canvas = _shadow_and_glow(w, h, radius, False)
    draw = ImageDraw.Draw(canvas)
    box = (_ss(pad), _ss(pad), _ss(pad + w) - 1, _ss(pad + h) - 1)
    if family == "card":
        draw.rounded_rectangle(box, _ss(radius), fill=(*s.CARD_FACE, 255))
        inner = _grow(box, -_ss(4))
        pattern = Image.new("RGBA", canvas.size, (*s.CARD_BACK, 255))
        lines = ImageDraw.Draw(pattern)
        for k in range(-h, w + h, 8):
            start = (inner[0] + _ss(k), inner[1])
            end = (inner[0] + _ss(k + h), inner[3])
            lines.line([start, end], fill=(*s.CARD_BACK_LINE, 255), width=_ss(1))
        mask = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(mask).rounded_rectangle(inner, _ss(radius - 2), fill=255)
        canvas.paste(pattern, (0, 0), mask)
        draw.rounded_rectangle(box, _ss(radius), outline=(*s.CARD_FACE, 255), width=_ss(4))
    else:
        draw.rounded_rectangle(box, _ss(radius), fill=(*s.TILE_EDGE, 255))
        top = (box[0], box[1], box[2], box[3] - _ss(EDGE))
        draw.rounded_rectangle(top, _ss(radius), fill=(*s.TILE_FACE, 255))
        draw.rounded_rectangle(
            _grow(top, -_ss(9)), _ss(5), outline=(*s.FELT_LINE, 255), width=_ss(2)
        )
    return _finish(canvas)


def paste_sprite(canvas: Image.Image, sprite: Image.Image, x: int, y: int) -> None:
    """Paste a piece sprite so that the piece itself lands with its top-left corner at (x, y)."""
    canvas.paste(sprite, (x - s.GLOW, y - s.GLOW), sprite)


# --------------------------------------------------------------------------- boxes


@lru_cache(maxsize=256)
def box_sprite(
    w: int,
    h: int,
    radius: int,
    fill: s.RGB | None,
    outline: s.RGB | None = None,
    width: int = 0,
) -> Image.Image:
    """A smooth rounded box (RGBA, exactly w x h) for labels, frames and panels."""
    canvas = Image.new("RGBA", (_ss(w), _ss(h)), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle(
        (0, 0, _ss(w) - 1, _ss(h) - 1),
        _ss(radius),
        fill=(*fill, 255) if fill else None,
        outline=(*outline, 255) if outline else None,
        width=_ss(width),
    )
    return canvas.resize((w, h), Image.Resampling.BOX)


def paste_box(canvas: Image.Image, x: int, y: int, w: int, h: int, radius: int, **kw) -> None:
    """Paste a :func:`box_sprite` with its top-left corner at (x, y)."""
    sprite = box_sprite(w, h, radius, kw.get("fill"), kw.get("outline"), kw.get("width", 0))
    canvas.paste(sprite, (x, y), sprite)
