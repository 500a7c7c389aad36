"""The `rummy` tool: engine, solver and picture commands in one command line.

Each layer registers its own sub-commands (``engine.cli.register``, ``rendering.cli.register``);
this module only assembles them, so the engine never imports the pictures.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# modules that provide register(subparsers); each sub-parser sets func=handler(args) -> int
SECTIONS = ("engine.cli", "engine.cards_cli", "engine.solver_cli", "engine.ai_cli", "rendering.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rummy", description="Rummy rules engine tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SECTIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
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
