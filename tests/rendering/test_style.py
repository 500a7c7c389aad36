"""Palette, fonts and PNG output."""

from __future__ import annotations

from PIL import Image

from rendering import style as s


def test_named_colours_survive_the_palette(png):
    colours = list(dict.fromkeys(s.NAMED_COLOURS))
    image = Image.new("RGB", (len(colours), 1))
    for x, colour in enumerate(colours):
        image.putpixel((x, 0), colour)
    decoded = png(s.to_png(image))
    assert [decoded.getpixel((x, 0)) for x in range(len(colours))] == colours


def test_palette_fits_in_256_colours():
    assert len(s.palette_colours()) <= 256


def test_shipped_fonts_are_used_and_have_the_suit_symbols():
    for name in (s.BOLD, s.CONDENSED):
        assert (s.FONT_DIR / name).is_file()
    assert (s.FONT_DIR / "LICENSE-DejaVu.txt").is_file()
    fnt = s.font(40)
    for symbol in "♠♥♦♣▲▼▶✓○★":
        box = fnt.getbbox(symbol)
        assert box[2] - box[0] > 5, symbol  # a real glyph, not an empty box


def test_fit_text_shortens_long_names():
    text = s.fit_text("Benedikt Maximilian von Irgendwo", 28, 150)
    assert text.endswith("…")
    assert s.text_width(text, 28) <= 150


def test_png_has_no_metadata_chunks():
    data = s.to_png(Image.new("RGB", (10, 10), s.FELT))
    for chunk in (b"tIME", b"tEXt", b"iTXt", b"zTXt"):
        assert chunk not in data


def test_rendering_never_imports_bot_or_discord():
    import ast

    for path in sorted((s.FONT_DIR.parent.parent / "rendering").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in ("bot", "discord"), (path.name, name)
