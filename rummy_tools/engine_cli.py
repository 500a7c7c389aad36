"""Engine sub-commands of the `rummy` tool: ``validate``, ``turn`` and ``score`` (a contract).

Every sub-command takes ``--lang en|de``: every message, and the text output, in that language.

- ``rummy validate --rules PRESET [--json] "MELD"``
  -> ``{"valid": bool, "kind": "group"|"run"|null, "value": int|null, "reason": str|null}``;
  several melds (separated by ``|``, ``;`` or new lines) add ``"melds"``: one such dict each.
  Exit 0 valid, 1 invalid.
- ``rummy turn --rules PRESET --table "MELDS" --hand "PIECES" [--discards "PIECES"] [--pool "CARDS"]
  [--before-draws] [--opened] [--json] "COMMANDS"`` (commands separated by ``;``, ``|`` or new
  lines, spaces optional)
  -> ``{"ok": bool, "table": [[...]], "hand": [...], "error": {"code", "message"}|null}``, plus
  ``"hint"`` and ``"command"`` when the commands end with ``hint``;
  exit 0 accepted, 1 rejected, 2 usage error.
- ``rummy score --rules PRESET --left "PIECES" ... [--claims 1,0,..] [--first-round] [--json]``
  -> ``{"points": [...]}``
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.cards import card_error
from engine.commands import first_verb, parse_commands
from engine.errors import RummyError
from engine.game import Event
from engine.hints import hint_command
from engine.melds import analyse
from engine.pieces import format_faces, parse_faces, split_melds
from engine.rules import PRESETS, RuleSet, preset
from engine.scoring import score_tile_game
from engine.tiles import TileGame
from i18n import error_dict, error_text, event_text, t

from .cards_cli import card_score, card_turn, card_validate


def number(x: float) -> int | float:
    """Print whole numbers without a decimal point (4 rather than 4.0)."""
    return int(x) if float(x).is_integer() else round(float(x), 4)


def emit(data: dict[str, Any], as_json: bool, text: str) -> None:
    print(json.dumps(data, ensure_ascii=False) if as_json else text)


def _rules(name: str) -> RuleSet:
    try:
        return preset(name)
    except RummyError as exc:
        print(f"rummy: {error_text(exc)}", file=sys.stderr)
        raise SystemExit(2) from exc


# ---------------------------------------------------------------------- validate


def validate_meld(rules: RuleSet, text: str, lang: str = "en") -> dict[str, Any]:
    """One meld: ``{"valid", "kind", "value", "reason", "pieces"}`` (``pieces``: the meld in
    order, as read). Card melds are read with the card game's rules (``card_validate``)."""
    if rules.family == "card":
        data = card_validate(rules, text, lang)
        if data["valid"]:
            data["pieces"] = format_faces(parse_faces(text, "card"))
        return data
    try:
        reading = analyse(parse_faces(text, "tile"), rules.meld_spec)
    except RummyError as exc:
        return {"valid": False, "kind": None, "value": None, "reason": error_text(exc, lang)}
    return {
        "valid": True,
        "kind": reading.kind,
        "value": reading.value,
        "reason": None,
        "pieces": format_faces(reading.faces),
    }


def validate(rules: RuleSet, text: str, lang: str = "en") -> dict[str, Any]:
    """The contract of ``rummy validate --json``: ``{"valid", "kind", "value", "reason"}`` for one
    meld. Several melds (separated by ``|``, ``;`` or new lines) add ``"melds"``, one such dict
    each; then ``valid`` means all are, ``kind`` is null, ``value`` is their sum and ``reason``
    names the first invalid meld by its number."""
    parts = split_melds(text)
    if not parts:
        empty = RummyError("parse.empty")
        if rules.family == "card":
            empty = card_error(empty, rules)
        return {"valid": False, "kind": None, "value": None, "reason": error_text(empty, lang)}
    results = [validate_meld(rules, part, lang) for part in parts]
    if len(results) == 1:
        return results[0]
    bad = next((k for k, r in enumerate(results, 1) if not r["valid"]), None)
    return {
        "valid": bad is None,
        "kind": None,
        "value": sum(r["value"] for r in results) if bad is None else None,
        "reason": None
        if bad is None
        else t("tools.meld_number", lang, number=bad) + results[bad - 1]["reason"],
        "melds": [{k: v for k, v in r.items() if k != "pieces"} for r in results],
    }


def _validate_text(data: dict[str, Any], lang: str) -> str:
    if not data["valid"]:
        return t("tools.invalid", lang) + data["reason"]
    if "melds" in data:
        return t("tools.valid_melds", lang, count=len(data["melds"]), value=data["value"])
    kind = {"key": f"tools.kind.{data['kind']}"}
    return t("tools.valid_meld", lang, kind=kind, value=data["value"], pieces=data["pieces"])


def cmd_validate(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    data = validate(rules, args.meld, args.lang)
    text = _validate_text(data, args.lang)
    data.pop("pieces", None)
    emit(data, args.json, text)
    return 0 if data["valid"] else 1


# ---------------------------------------------------------------------- turn


def cmd_turn(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    lang = args.lang
    if rules.family == "card":
        data = card_turn(
            rules,
            args.table,
            args.hand,
            args.opened,
            args.commands,
            lang,
            discards=args.discards,
            pool=args.pool,
            before_draws=args.before_draws,
        )
    elif args.pool:
        print(
            t("tools.turn.pool_for_cards", lang),
            file=sys.stderr,
        )
        return 2
    else:
        data = tile_turn(
            rules,
            args.table,
            args.hand,
            args.opened,
            args.commands,
            lang,
            args.discards,
            args.before_draws,
        )
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    elif data["ok"]:
        print(t("tools.turn.accepted", lang))
        print(t("tools.turn.table", lang) + " | ".join(" ".join(m) for m in data["table"]))
        print(t("tools.turn.hand", lang) + " ".join(data["hand"]))
        if data.get("hint"):
            print(t("tools.turn.hint", lang) + data["hint"])
    else:
        error = data["error"]
        print(t("tools.turn.rejected", lang) + f"{error['message']} [{error['code']}]")
    return 0 if data["ok"] else 1


def unfinished(rules: RuleSet, lang: str = "en") -> dict[str, str]:
    """The error of a turn that the commands did not end (``turn.unfinished``)."""
    if rules.family == "card":
        finish: Any = {"key": "why.finish.discard_card"}
    elif rules.discard_required:
        finish = {"key": "why.finish.done_or_discard"}
    else:
        finish = "done"
    return error_dict(RummyError("turn.unfinished", finish=finish), lang)


def tile_turn(
    rules: RuleSet,
    table: str,
    hand: str,
    opened: bool,
    commands: str,
    lang: str = "en",
    discards: str = "",
    before_draws: bool = False,
) -> dict[str, Any]:
    """Play one tile turn from a position (the contract of ``rummy turn --json``). The mover has
    made the turn's draws unless the commands begin with ``draw`` or ``pick`` or
    ``before_draws`` is set; ``discards`` is the discard stock, bottom to top (Stein's ``pick``).

    The turn must end, unless the last command is ``hint``: then the answer is accepted with the
    working table and rack, ``"hint"`` (the sentence) and ``"command"`` (what to type)."""
    try:
        game = TileGame.position(
            rules,
            table,
            [hand],
            opened=[opened],
            discards=discards,
            draws_done=not before_draws and first_verb(commands) not in ("draw", "pick"),
        )
        events = game.apply(0, commands)
    except RummyError as exc:
        return {"ok": False, "table": None, "hand": None, "error": error_dict(exc, lang)}
    if game.current == 0 and game.status == "playing":
        hint = _trailing_hint(commands, events)
        if hint is None:
            return {"ok": False, "table": None, "hand": None, "error": unfinished(rules, lang)}
        return {
            "ok": True,
            "table": [[str(f) for f in meld] for meld in game.table_faces(working=True)],
            "hand": [str(f) for f in game.faces(game.rack_ids(0))],
            "error": None,
            "hint": event_text(hint, lang),
            "command": hint_command(hint),
        }
    return {
        "ok": True,
        "table": [[str(f) for f in meld] for meld in game.table_faces()],
        "hand": [str(f) for f in game.faces(game.racks[0])],
        "error": None,
    }


def _trailing_hint(commands: str, events: list[Event]) -> Event | None:
    """The hint event, when the message ends with ``hint``."""
    if parse_commands(commands)[-1].verb != "hint":
        return None
    return next((e for e in reversed(events) if e.kind == "hint"), None)


# ---------------------------------------------------------------------- score


def cmd_score(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    try:
        lefts = [parse_faces(text, rules.family) if text.strip() else [] for text in args.left]
        empties = [k for k, left in enumerate(lefts) if not left]
        if len(empties) > 1:
            raise RummyError(
                "parse.arguments",
                command="score",
                why={"key": "why.score.one_empty_left"},
            )
        winner = empties[0] if empties else None
        if rules.family == "card":
            points = card_score(rules, lefts, args.rummy)
        else:
            claims = [int(x) for x in args.claims.split(",")] if args.claims else None
            if claims is not None and len(claims) != len(lefts):
                raise RummyError(
                    "parse.arguments",
                    command="score",
                    why={"key": "why.score.claims_per_player"},
                )
            points = score_tile_game(
                rules, lefts, winner, claims=claims, first_round=args.first_round
            )
    except RummyError as exc:
        print(f"rummy score: {error_text(exc, args.lang)}", file=sys.stderr)
        return 1
    except ValueError:
        print(
            t("tools.score.claims_numbers", args.lang),
            file=sys.stderr,
        )
        return 2
    data = {"points": [number(p) for p in points]}
    emit(data, args.json, " ".join(str(p) for p in data["points"]))
    return 0


# ---------------------------------------------------------------------- registration


def register(sub: argparse._SubParsersAction) -> None:
    """Add the engine's sub-commands to the `rummy` parser."""
    choices = sorted(PRESETS)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", required=True, choices=choices, help="preset")
        p.add_argument("--json", action="store_true", help="print JSON (a contract)")
        p.add_argument("--lang", default="en", choices=["en", "de"], help="language of messages")

    p = sub.add_parser("validate", help="check one meld")
    common(p)
    p.add_argument("meld", help='pieces, e.g. "R5 R6 J"')
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("turn", help="play one turn from a position")
    common(p)
    p.add_argument("--table", default="", help='melds, e.g. "R5 R6 R7 | B9 Y9 K9"')
    p.add_argument("--hand", required=True, help="the mover's pieces")
    p.add_argument("--opened", action="store_true", help="the mover has already opened")
    p.add_argument("--discards", default="", help="the discard stock / pile, bottom to top")
    p.add_argument("--pool", default="", help="card games: the talon, top card last")
    p.add_argument(
        "--before-draws",
        action="store_true",
        help="the mover has not drawn yet (also when the commands do not begin with a draw)",
    )
    p.add_argument("commands", help='commands separated by ";", "|" or new lines')
    p.set_defaults(func=cmd_turn)

    p = sub.add_parser("score", help="score a finished game")
    common(p)
    p.add_argument("--left", action="append", required=True, help="pieces left, one per player")
    p.add_argument("--claims", help="Stein Plus: claims standing per player, e.g. 1,0,0,2")
    p.add_argument("--first-round", action="store_true", help="the winner went out in round 1")
    p.add_argument("--rummy", action="store_true", help="classic Rummy: went rummy (doubles)")
    p.set_defaults(func=cmd_score)
