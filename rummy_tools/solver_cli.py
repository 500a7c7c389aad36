"""The ``rummy solve`` sub-command: the exact solver from the command line (engine.solver).

``rummy solve --rules PRESET --table "MELDS" --hand "PIECES" [--opened] [--mode count|value]
[--json]`` prints the best play; ``rummy solve --batch FILE.jsonl [--json]`` solves one JSON
object per line (keys ``rules``, ``table``, ``hand``, ``opened``, ``mode``) and writes one result
line each. Bad notation prints the engine's error and exits 1; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from engine.errors import RummyError
from engine.pieces import format_faces, format_melds, parse_faces, parse_melds
from engine.rules import preset
from engine.solver import solve
from i18n import error_dict, error_text


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``solve`` to the `rummy` parser."""
    parser = sub.add_parser(
        "solve",
        help="the best play of a rack into a table (exact solver)",
        description="Find the play that places the most rack pieces (or the most points).",
    )
    parser.add_argument("--rules", help="preset: stein, stein_plus, rummikub")
    parser.add_argument("--table", default="", help='table melds, e.g. "R5 R6 R7 | B9 Y9 K9"')
    parser.add_argument("--hand", help='rack pieces, e.g. "R8 B9 J"')
    parser.add_argument("--opened", action="store_true", help="the player has opened")
    parser.add_argument("--mode", choices=["count", "value"], default="count")
    parser.add_argument("--batch", metavar="FILE.jsonl", help="one JSON position per line")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run, parser=parser)


def solve_position(
    rules_name: str, table_text: str, hand_text: str, opened: bool, mode: str
) -> dict[str, Any]:
    """Parse one position, solve it, and return the result as a JSON-ready dict."""
    rules = preset(rules_name)
    table = parse_melds(table_text, rules.family)
    hand = parse_faces(hand_text, rules.family)
    start = time.perf_counter()
    solution = solve(table, hand, rules, opened=opened, mode=mode)  # type: ignore[arg-type]
    ms = (time.perf_counter() - start) * 1000
    return {
        "count": solution.count,
        "value": solution.value,
        "placed": [str(f) for f in solution.placed],
        "table": [[str(f) for f in meld] for meld in solution.table],
        "ms": round(ms, 3),
    }


def _summary(result: dict[str, Any]) -> str:
    if not result["count"]:
        return f"No play places a piece. ({result['ms']} ms)"
    placed = " ".join(result["placed"])
    melds = "\n".join(f"  {n}: {' '.join(m)}" for n, m in enumerate(result["table"], 1))
    return (
        f"Place {result['count']} pieces ({result['value']} points): {placed}\n"
        f"Table:\n{melds}\n({result['ms']} ms)"
    )


def _batch(path: str, as_json: bool) -> int:
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        print(f"rummy solve: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    status = 0
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("a line must hold a JSON object")
                mode = data.get("mode", "count")
                if mode not in ("count", "value"):
                    raise ValueError(f"mode must be count or value, not {mode!r}")
                result = solve_position(
                    str(data["rules"]),
                    str(data.get("table", "")),
                    str(data["hand"]),
                    bool(data.get("opened", False)),
                    mode,
                )
            except RummyError as exc:
                result = {"line": number, "error": error_dict(exc)}
                status = 1
            except (ValueError, KeyError) as exc:
                why = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
                result = {"line": number, "error": {"code": "batch.line", "message": why}}
                status = 1
            if as_json:
                print(json.dumps(result, ensure_ascii=False))
            elif "error" in result:
                print(f"{number}: {result['error']['message']}")
            else:
                print(f"{number}: " + _summary(result).replace("\n", "\n   "))
    return status


def run(args: argparse.Namespace) -> int:
    if args.batch:
        return _batch(args.batch, args.json)
    if not args.rules or args.hand is None:
        args.parser.print_usage(sys.stderr)
        print("rummy solve: --rules and --hand are required (or --batch FILE)", file=sys.stderr)
        return 2
    try:
        result = solve_position(args.rules, args.table, args.hand, args.opened, args.mode)
    except RummyError as exc:
        print(error_text(exc, "en"), file=sys.stderr)
        if args.json:
            print(json.dumps({"error": error_dict(exc)}, ensure_ascii=False))
        return 1
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(_summary(result))
    return 0


__all__ = ["format_faces", "format_melds", "register", "run", "solve_position"]
