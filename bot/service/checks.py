"""Checks of what reaches the service from outside: ids, names, texts and rule options.

Each check raises the typed :class:`~bot.service.errors.ServiceError` (``input.invalid``,
``options.invalid``) before anything is stored, so the store only ever sees text it can write.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from engine.rules import RuleSet

from .errors import ServiceError

MAX_ID_LENGTH = 200

WHAT = frozenset({"game", "player", "host", "name", "text", "level", "preset"})
"""What a checked text is (worded by the catalogue's ``service.what.<what>``)."""


def is_text(value: Any, *, limit: int | None = MAX_ID_LENGTH) -> bool:
    """A string that the store can write (UTF-8: no lone surrogates), within ``limit``."""
    if not isinstance(value, str) or (limit is not None and len(value) > limit):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(value: Any, what: str, *, limit: int | None = MAX_ID_LENGTH) -> None:
    """Raise the typed ``input.invalid`` error unless ``value`` is writable text."""
    if not is_text(value, limit=limit):
        raise ServiceError("input.invalid", what={"key": f"service.what.{what}"})


def clean_name(name: Any, fallback: str) -> str:
    """A display name the store can write: lone surrogates become U+FFFD, at most 100 chars."""
    if not isinstance(name, str) or not name.strip():
        return fallback
    if not is_text(name, limit=None):
        name = name.encode("utf-8", "replace").decode("utf-8")
    return name[:100]


def check_options(rules: RuleSet, options: dict[str, Any]) -> None:
    """Each option's value must have its field's type (``turn_seconds`` an integer or None,
    flags booleans...); the rule set checks the ranges."""
    if not isinstance(options, dict):
        raise ServiceError(
            "options.invalid",
            option="options",
            value="that",
            expected={"key": "service.expected.mapping"},
        )
    hints = _rule_hints()
    for key, value in options.items():
        if not isinstance(key, str):
            raise ServiceError(
                "options.invalid",
                option=repr(key)[:40],
                value=repr(value)[:40],
                expected={"key": "service.expected.option_name"},
            )
        hint = hints.get(key)
        if hint is None:
            continue  # an unknown name: the rule set's own error names it
        if not _fits(value, hint):
            raise ServiceError(
                "options.invalid", option=key, value=repr(value)[:40], expected=_describe(hint)
            )


_HINTS: dict[str, Any] | None = None


def _rule_hints() -> dict[str, Any]:
    global _HINTS
    if _HINTS is None:
        try:
            _HINTS = typing.get_type_hints(RuleSet)
        except Exception:  # an annotation we cannot resolve: only the rule set checks then
            _HINTS = {}
    return _HINTS


def _fits(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return is_text(value, limit=1000)
    if origin is not None:
        base = origin
    elif isinstance(hint, type):
        base = hint
    else:
        return True  # a Literal or similar: the rule set checks the value
    if base is typing.Literal:
        return value in typing.get_args(hint)
    if base in (tuple, list):
        return isinstance(value, tuple | list)
    return isinstance(value, base) if isinstance(base, type) else True


def _describe(hint: Any) -> dict[str, str] | str:
    """What a value of that type is: a catalogue key (a nested param), else the type itself."""
    text = str(hint).replace("typing.", "").replace("NoneType", "None")
    if "int" in text and "None" in text:
        return {"key": "service.expected.whole_number_or_none"}
    if text == "int" or text == "<class 'int'>":
        return {"key": "service.expected.whole_number"}
    if text == "<class 'bool'>":
        return {"key": "service.expected.true_or_false"}
    return text
