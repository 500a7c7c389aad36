"""Picture commands of the `rummy` tool.

``rummy render --rules PRESET --table "R5 R6 R7 | B9 Y9 K9" [--hand "PIECES"] --out table.png``
draws a table (melds numbered from 1 in the order given); with ``--hand`` the rack is drawn beneath
the table in the same picture. ``rummy render [--rules PRESET] --rack "PIECES" --out rack.png``
draws a rack or card hand; without ``--rules`` the notation decides between tiles and cards.

Bad notation prints the engine's error message and exits 1; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import RummyError
from engine.pieces import Face, parse_faces
from engine.rules import preset
from engine.variants import DEFAULT_VARIANT
from i18n import error_text, render_labels
from rendering import Labels
from rendering.rack import SORTS, render_rack
from rendering.samples import view_from_text
from rendering.table import render_table, render_table_with_rack


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``render`` sub-command to the `rummy` parser."""
    parser = sub.add_parser(
        "render",
        help="draw a table or rack picture as PNG",
        description="Draw a table (--table, optionally with --hand beneath) or a rack (--rack).",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--table", metavar="MELDS", help='melds, e.g. "R5 R6 R7 | B9 Y9 K9"')
    what.add_argument("--rack", metavar="PIECES", help='pieces, e.g. "R5 B9 J"')
    parser.add_argument(
        "--rules", metavar="PRESET", help="stein, stein_plus, rummikub, romme, rummy"
    )
    parser.add_argument("--hand", metavar="PIECES", help="with --table: a rack drawn beneath")
    parser.add_argument("--sort", choices=SORTS, default="colour", help="rack order")
    parser.add_argument("--out", required=True, metavar="FILE.png", help="where to write the PNG")
    parser.add_argument("--lang", default="en", help="en or de")
    parser.set_defaults(func=run_render)


def _rack_faces(text: str, rules_name: str | None) -> list[Face]:
    """Rack pieces in the preset's family; without a preset tiles first, then cards."""
    if rules_name:
        return parse_faces(text, preset(rules_name).family)
    try:
        return parse_faces(text, "tile")
    except RummyError as tile_error:
        try:
            return parse_faces(text, "card")
        except RummyError:
            raise tile_error from None


def _picture(args: argparse.Namespace) -> bytes:
    labels = Labels(**render_labels(args.lang))
    if args.rack is not None:
        return render_rack(_rack_faces(args.rack, args.rules), sort=args.sort, labels=labels)
    rules = preset(args.rules or DEFAULT_VARIANT)
    view = view_from_text(rules.preset, args.table, seats=[])
    if args.hand:
        hand = parse_faces(args.hand, rules.family)
        return render_table_with_rack(view, hand, sort=args.sort, labels=labels)
    return render_table(view, labels=labels)


def run_render(args: argparse.Namespace) -> int:
    """Handler of ``rummy render``: 0 written, 1 bad notation or unwritable file, 2 usage."""
    if args.hand and args.rack is not None:
        print("rummy render: --hand goes with --table; use --rack alone", file=sys.stderr)
        return 2
    try:
        data = _picture(args)
    except RummyError as error:
        print(error_text(error, args.lang), file=sys.stderr)
        return 1
    try:
        Path(args.out).write_bytes(data)
    except OSError as error:
        print(f"cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"{args.out}: {len(data)} bytes")
    return 0
