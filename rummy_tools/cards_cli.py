"""Card-game parts of the ``rummy`` tool: ``rummy settle`` and the card halves of ``validate``,
``turn`` and ``score`` (called from :mod:`rummy_tools.engine_cli`).

- ``rummy settle --names A,B,C,D --penalties 80,220,0,350 [--json]``
  -> ``{"pairs": [{"a": "A", "b": "B", "a_gets": 140}, ...], "balances": {"A": 330, ...}}``
  (RULES.md ``romme`` "Settlement"; seed 001 "6. Abrechnung").
- :func:`card_validate`, :func:`card_turn`, :func:`card_score`: plain dicts / lists, a contract.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from engine.cards import (
    CardGame,
    card_error,
    card_reading,
    parse_card_commands,
    refuse_jokers,
    romme_penalties,
    rummy_points,
)
from engine.errors import RummyError
from engine.hints import hint_command
from engine.pieces import Face
from engine.rules import RuleSet
from engine.settlement import SettlementError, settle
from i18n import error_dict, error_text, event_text


def card_validate(rules: RuleSet, text: str, lang: str = "en") -> dict[str, Any]:
    """One card meld: ``{"valid", "kind", "value", "reason"}`` (value as Rommé's opening counts
    it, or Rummy's card points). Jokers are refused where the game has none (classic Rummy);
    reasons speak of cards, in ``lang``."""
    try:
        reading = card_reading(rules, text)
    except RummyError as exc:
        return {"valid": False, "kind": None, "value": None, "reason": error_text(exc, lang)}
    return {"valid": True, "kind": reading.kind, "value": reading.value, "reason": None}


def card_turn(
    rules: RuleSet,
    table_text: str,
    hand_text: str,
    opened: bool,
    commands_text: str,
    lang: str = "en",
    *,
    discards: str = "",
    pool: str = "",
    before_draws: bool = False,
) -> dict[str, Any]:
    """Play one turn from a position: the hand is the mover's hand after drawing, unless the
    commands start with ``draw``/``pick`` or ``before_draws`` is set. ``discards`` is the discard
    pile (bottom to top) and ``pool`` the talon (top last); both empty by default.
    ``{"ok", "table": [[card, ...], ...], "hand": [card, ...], "error": {"code", "message"}|None}``
    with the message in ``lang``. The turn must end (discard, or going out), except when the
    message ends with ``hint``: then ``ok`` with the table and hand as they stand, ``"hint"``
    (the sentence) and ``"command"`` (what to type, accepted by the engine)."""
    try:
        try:
            commands = parse_card_commands(commands_text)
        except RummyError as exc:
            raise card_error(exc, rules) from exc
        game = CardGame.position(
            rules,
            table_text,
            [hand_text],
            opened=[opened],
            discards=discards,
            pool=pool,
            drawn=not before_draws and commands[0].verb not in ("draw", "pick"),
        )
        events = game.apply(0, commands_text)
        hint = next((e for e in reversed(events) if e.kind == "hint"), None)
        if game.current == 0 and game.status == "playing" and commands[-1].verb != "hint":
            raise RummyError("turn.unfinished", finish={"key": "why.finish.discard_card"})
    except RummyError as exc:
        return {"ok": False, "table": None, "hand": None, "error": error_dict(exc, lang)}
    out: dict[str, Any] = {
        "ok": True,
        "table": [[str(f) for f in meld] for meld in game.table_faces()],
        "hand": [str(f) for f in game.rack(0)],
        "error": None,
    }
    if hint is not None and commands[-1].verb == "hint":
        out["hint"] = event_text(hint, lang)
        out["command"] = hint_command(hint)
    return out


def card_score(
    rules: RuleSet, lefts: Sequence[Sequence[Face]], rummy_bonus: bool
) -> list[int | float]:
    """Score a finished card game from the cards left per seat.

    Rommé: signed points, ``-penalty`` per seat (0 for the seat that went out), so a higher
    number is better as in the other presets; ``rummy_bonus`` means Hand-Rommé (doubles).
    Classic Rummy: the one seat with an empty hand gets the others' card points (doubled when
    ``rummy_bonus``: went rummy), everybody else 0. A joker left is refused where the game
    has none (classic Rummy)."""
    refuse_jokers(rules, [f for left in lefts for f in left])
    if rules.scoring == "penalty":
        penalties = romme_penalties(
            lefts,
            hand_romme=rummy_bonus and rules.hand_romme_double,
            joker_double=rules.variant_joker_double,
        )
        return [-p if p else 0 for p in penalties]
    winners = [seat for seat, left in enumerate(lefts) if not left]
    if len(winners) != 1:
        raise RummyError("cards.score_winner", count=len(winners))
    return list(rummy_points(lefts, winners[0], rummy=rummy_bonus and rules.rummy_bonus_double))


# ---------------------------------------------------------------------- rummy settle


def cmd_settle(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.names.split(",") if n.strip()]
    try:
        penalties = [int(p) for p in args.penalties.split(",")]
    except ValueError:
        print("rummy settle: --penalties takes whole numbers, e.g. 80,220,0,350", file=sys.stderr)
        return 2
    try:
        result = settle(names, penalties)
    except SettlementError as exc:
        print(f"rummy settle: {error_text(exc, args.lang)}", file=sys.stderr)
        return 2
    data = result.to_dict()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    for pair in data["pairs"]:
        a, b, amount = pair["a"], pair["b"], pair["a_gets"]
        if amount > 0:
            print(f"{a} gets {amount} from {b}")
        elif amount < 0:
            print(f"{b} gets {-amount} from {a}")
        else:
            print(f"{a} and {b} are even")
    print("balances: " + ", ".join(f"{k} {v:+d}" for k, v in data["balances"].items()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the card sub-commands to the ``rummy`` parser."""
    p = sub.add_parser("settle", help="settle a Rommé sitting pairwise")
    p.add_argument("--names", required=True, help="comma-separated names, e.g. A,B,C,D")
    p.add_argument("--penalties", required=True, help="penalty totals, e.g. 80,220,0,350")
    p.add_argument("--json", action="store_true", help="print JSON (a contract)")
    p.add_argument("--lang", default="en", choices=["en", "de"], help="language of messages")
    p.set_defaults(func=cmd_settle)
