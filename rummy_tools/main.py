"""The ``rummy`` tool: every sub-command of :mod:`rummy_tools` in one command line.

Each module registers its own sub-commands (``register(subparsers)``; each sub-parser sets
``func=handler(args) -> int``); this module only assembles them.
"""

from __future__ import annotations

import argparse
import sys

from . import ai_cli, cards_cli, engine_cli, render_cli, solver_cli

# in this order in ``rummy --help``
SECTIONS = (engine_cli, cards_cli, solver_cli, ai_cli, render_cli)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummy", description="Rummy rules engine tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SECTIONS:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
