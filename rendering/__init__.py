"""Pillow pictures of the table, racks and hands, and the ladder. Imports engine, never bot.

Every picture is returned as PNG bytes; the same input always gives the same bytes. The words in
a picture come in already worded, as :class:`Labels` (``Labels(**i18n.render_labels(lang))``).
"""

from .ladder import LadderRow, render_history, render_ladder
from .rack import arrange, layout_rack, render_rack
from .table import layout_table, render_table, render_table_with_rack
from .text import Labels

__all__ = [
    "Labels",
    "LadderRow",
    "arrange",
    "layout_rack",
    "layout_table",
    "render_history",
    "render_ladder",
    "render_rack",
    "render_table",
    "render_table_with_rack",
]
