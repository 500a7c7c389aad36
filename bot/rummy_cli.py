"""The ``rummy`` entry point (``[project.scripts]`` and ``python -m bot.rummy_cli``).

A published contract kept as it was (the golden tests run ``python -m bot.rummy_cli simulate``);
the tool itself is :mod:`rummy_tools.main`.
"""

from __future__ import annotations

import sys

from rummy_tools.main import build_parser, main

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
