"""The one reader of a card-game message (RULES.md ``romme`` / ``rummy``, docs/CARDS.md).

A message is read once: :func:`read_message` gives every command (:func:`engine.commands.parse_commands`
in the card notation) together with variant b's declared jokers (``meld 9C 9H *=9S``: per meld, per
joker, the declared card or None) and, with a rule set, refuses what the game does not know (jokers in
classic Rummy, declarations without variant b, a declaration outside a new meld).
:func:`parse_card_commands` is the same reading without the rule checks (the ``rummy turn`` tool).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..commands import Command, parse_commands
from ..errors import RummyError
from ..pieces import Card, Face
from ..rules import RuleSet

JOKER_TOKENS = ("*", "JK", "JOKER")
_TOKEN_SPLIT = re.compile(r"[\s,|;]+")
_DECLARED = re.compile(r"(?i)(?<![^\s,|;])(\*|JK|JOKER)=([^\s,|;]*)")

Declaration = tuple[str, Face] | None
"""A joker as typed: ``(token, declared face)`` for ``*=9S``, None for a plain joker."""


@dataclass(frozen=True, slots=True)
class CardCommand:
    """One command of a message and, per meld it names (one group for other verbs), per joker,
    its :data:`Declaration`."""

    command: Command
    declared: tuple[tuple[Declaration, ...], ...]


def has_jokers(rules: RuleSet) -> bool:
    """Does the game have jokers at all? Classic Rummy has none (RULES.md ``rummy``); Rommé's
    joker count is an option (0-6)."""
    return rules.pool_jokers + rules.jokers_per_player > 0


def refuse_jokers(rules: RuleSet, faces: Iterable[Face], token: str = "*") -> None:
    """A game without jokers (RULES.md ``rummy``: "no jokers") refuses a joker anywhere: in a
    meld to check, a position, any command (``cards.no_jokers``)."""
    if not has_jokers(rules) and any(f.is_joker for f in faces):
        raise RummyError("cards.no_jokers", token=token, preset=rules.name)


def joker_token(text: str) -> str:
    """The first joker token as typed (``*``, ``JK``, ``joker``, ``*=9S``), for messages."""
    for token in _TOKEN_SPLIT.split(text):
        head = token.split("=", 1)[0].upper()
        if head in JOKER_TOKENS:
            return token
    return "*"


def _marks(text: str, rules: RuleSet) -> list[Declaration]:
    """Every joker token in text order; a joker where the game has none and a declaration
    without variant b are refused."""
    marks: list[Declaration] = []
    for token in _TOKEN_SPLIT.split(text):
        upper = token.upper()
        head = upper.split("=", 1)[0]
        if head not in JOKER_TOKENS:
            continue
        if not has_jokers(rules):
            raise RummyError("cards.no_jokers", token=token, preset=rules.name)
        if upper in JOKER_TOKENS:
            marks.append(None)
        elif "=" in upper:
            if not rules.variant_declared_joker:
                raise RummyError("cards.declare_off", token=token)
            marks.append((token, Card.parse(token.split("=", 1)[1])))
    return marks


def read_message(text: str, rules: RuleSet | None = None) -> list[CardCommand]:
    """The commands of a card message with their declared jokers (see the module docstring)."""
    if rules is None:
        return [CardCommand(c, ()) for c in parse_commands(_DECLARED.sub("*", text), "card")]
    marks = _marks(text, rules)
    commands = parse_commands(_DECLARED.sub("*", text), "card")
    queue = iter(marks)
    out = []
    for c in commands:
        groups = [list(m) for m in c.melds] if c.verb == "meld" else [list(c.pieces)]
        declared: list[tuple[Declaration, ...]] = []
        for faces in groups:
            row: list[Any] = []
            for f in faces:
                if f.is_joker:
                    mark = next(queue, None)
                    if mark and c.verb != "meld":
                        raise RummyError(
                            "cards.declare_bad", token=mark[0], why={"key": "why.declare_new_set"}
                        )
                    row.append(mark)
            declared.append(tuple(row))
        out.append(CardCommand(c, tuple(declared)))
    return out


def parse_card_commands(text: str) -> list[Command]:
    """The commands of a card-game message, variant b's ``*=9S`` read as a joker (the
    declarations themselves are checked when the game reads the message)."""
    return [c.command for c in read_message(text)]
