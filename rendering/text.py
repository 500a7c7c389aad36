"""Words on the pictures, in English and German, and a helper to draw a line of text."""

from __future__ import annotations

from PIL import ImageDraw

from . import style as s

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "turn": "Turn {n}",
        "pool": "Pool",
        "stock": "Stock",
        "discard": "Discard",
        "discards": "Discards (oldest first)",
        "tiles": "{n} tiles",
        "tile": "1 tile",
        "cards": "{n} cards",
        "card": "1 card",
        "opened": "✓ opened",
        "not_opened": "○ not opened",
        "score": "Score {n}",
        "bot": "BOT",
        "table": "Table",
        "empty": "No melds on the table yet",
        "over": "Game over",
        "wins": "{name} wins",
        "claim": "{name}",
        "rack": "Your rack",
        "ladder": "Ladder",
        "rank": "#",
        "player": "Player",
        "games": "Games",
        "mp": "MP",
        "percent": "%",
        "rating": "Rating",
        "history": "Rating history",
        "none": "none yet",
    },
    "de": {
        "turn": "Zug {n}",
        "pool": "Vorrat",
        "stock": "Stapel",
        "discard": "Ablage",
        "discards": "Abgelegt (älteste zuerst)",
        "tiles": "{n} Steine",
        "tile": "1 Stein",
        "cards": "{n} Karten",
        "card": "1 Karte",
        "opened": "✓ ausgelegt",
        "not_opened": "○ nicht ausgelegt",
        "score": "Punkte {n}",
        "bot": "BOT",
        "table": "Tisch",
        "empty": "Noch keine Kombinationen auf dem Tisch",
        "over": "Spiel beendet",
        "wins": "{name} gewinnt",
        "claim": "{name}",
        "rack": "Deine Bank",
        "ladder": "Rangliste",
        "rank": "#",
        "player": "Spieler",
        "games": "Spiele",
        "mp": "MP",
        "percent": "%",
        "rating": "Wertung",
        "history": "Wertungsverlauf",
        "none": "noch keine",
    },
}


def label(key: str, lang: str = "en", **params: object) -> str:
    """A word or phrase for the pictures in the player's language (English by default)."""
    table = LABELS["de"] if lang.lower().startswith("de") else LABELS["en"]
    return table[key].format(**params)


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
