"""Run every benchmark module of this package (or those named) and print one JSON object.

``python -m benchmarks`` runs all; ``python -m benchmarks render`` only ``benchmarks/render.py``.
A benchmark module provides ``run() -> dict``; options after the names go to each named module's
``run(argv)`` (``python -m benchmarks faultsoak --seconds 60``).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys

import benchmarks


def module_names() -> list[str]:
    """The benchmark modules found beside this file."""
    found = [m.name for m in pkgutil.iter_modules(benchmarks.__path__)]
    return sorted(name for name in found if not name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    words = list(argv if argv is not None else sys.argv[1:])
    first = next((i for i, w in enumerate(words) if w.startswith("-")), len(words))
    names, options = words[:first] or module_names(), words[first:]
    unknown = [n for n in names if n not in module_names()]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; have {', '.join(module_names())}")
        return 2
    results = {}
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        results[name] = module.run(options) if options else module.run()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
