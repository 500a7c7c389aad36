"""Ladder standings and rating history pictures."""

from __future__ import annotations

from rendering import LadderRow, render_history, render_ladder
from rendering import style as s
from rendering.ladder import HISTORY_H, HISTORY_W, layout_ladder
from tests.rendering.words import EN

ROWS = [
    LadderRow("Anna", 12, 7, 54.5, 72, 75.7, 18.3, 1.2, 1),
    LadderRow("Benedikt Maximilian von Irgendwo", 10, 4, 40, 60, 66.7, 12.1, -0.8, 2),
    LadderRow("Chiara", 8, 2, 30, 48, 62.5, 9.4, 0.0, 3),
]


def test_ladder_renders_top_rows(png):
    image = png(render_ladder(ROWS * 5, top=10, labels=EN))
    layout = layout_ladder(10)
    assert image.size == (layout.width, layout.height)
    for rect in layout.rows:
        assert rect.inside(layout.width, layout.height)


def test_ladder_is_deterministic():
    assert render_ladder(ROWS, labels=EN) == render_ladder(list(ROWS), labels=EN)


def test_highlighted_player_is_framed(png):
    image = png(render_ladder(ROWS, highlight="Chiara", labels=EN))
    rows = layout_ladder(len(ROWS)).rows
    assert image.getpixel((rows[2].x0 + 1, rows[2].centre[1])) == s.HIGHLIGHT
    assert image.getpixel((rows[0].x0 + 1, rows[0].centre[1])) != s.HIGHLIGHT


def test_rows_from_standing_dicts():
    row = LadderRow.from_dict(
        {
            "player_id": "u1",
            "games": 3,
            "wins": 1,
            "mp": 5,
            "max_mp": 9,
            "percent": 55.6,
            "rating": 2.5,
            "trend": -0.5,
            "position": None,
        }
    )
    assert row.player == "u1" and row.position is None and row.trend == -0.5
    assert render_ladder([row, {"name": "Bo", "games": 1}], labels=EN)[:4] == b"\x89PNG"


def test_history_chart_handles_any_length(png):
    for history in ([], [3.0], [1.0, 1.0], [i * 0.5 - 3 for i in range(80)]):
        data = render_history(history, name="Anna", labels=EN)
        assert png(data).size == (HISTORY_W, HISTORY_H)
        assert data == render_history(list(history), name="Anna", labels=EN)


def test_ladder_numbers_are_readable_on_a_phone():
    layout = layout_ladder(10)
    assert s.phone_numeral_height(layout.numeral_height, layout.width) >= s.MIN_PHONE_NUMERAL
