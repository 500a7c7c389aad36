"""One codec for record types, and the one canonical JSON.

:func:`to_data` turns a dataclass value (frozen record types above all) into JSON data and
:func:`from_data` reads it back, both driven by the field annotations, so a record type needs no
hand-written ``to_dict``/``from_dict`` pair:

- nested dataclasses become dicts of their fields, in declaration order;
- ``tuple[X, ...]``, ``tuple[X, Y]`` and ``list[X]`` become lists (and tuples again when read);
- ``dict[str, X]`` stays a dict; ``X | None`` keeps None; enums are stored by value;
- ``int``, ``float``, ``str``, ``bool``, ``Literal[...]`` and ``Any`` pass as they are (tuples inside
  ``Any`` become lists, as JSON would make them; an int stays an int where a float is declared, so
  a value read back prints the same bytes).

:func:`from_data` fills missing keys with the field's default and refuses unknown keys
(``TypeError``), as ``cls(**data)`` does. :func:`canonical_json` is the byte-stable JSON of every
saved state, result and league row.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from functools import cache
from typing import Any, Self, TypeVar, Union, get_args, get_origin

__all__ = ["Record", "canonical_json", "from_data", "to_data"]

T = TypeVar("T")


class Record:
    """Base of a record type: ``to_dict``/``from_dict`` by this codec (no hand-written pair).
    Subclasses are dataclasses; the base adds no field and no instance dict."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return to_data(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return from_data(cls, data)


def canonical_json(data: Any) -> str:
    """The byte-stable JSON used for every saved state: sorted keys, no spaces, UTF-8 text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def to_data(value: Any) -> Any:
    """JSON data for a dataclass value (or any value made of the types the module names)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    return value


def from_data(cls: type[T], data: Any) -> T:
    """The value of type ``cls`` (a dataclass, or an annotation such as ``tuple[int, ...]``) that
    :func:`to_data` turned into ``data``."""
    return _read(cls, data)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _read(tp: Any, data: Any) -> Any:
    if tp is Any or tp is object:
        return data
    origin = get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        others = [a for a in args if a is not type(None)]
        if len(others) == 1:
            return _read(others[0], data)
        for option in others:  # a real union: the first type that reads the data
            try:
                return _read(option, data)
            except (TypeError, ValueError, KeyError):
                continue
        raise TypeError(f"{data!r} is none of {tp}")
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise ValueError(f"{data!r} is not one of {get_args(tp)}")
        return data
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_read(args[0], v) for v in data)
        if args and len(args) != len(data):
            raise ValueError(f"{data!r} does not have {len(args)} items")
        return tuple(_read(a, v) for a, v in zip(args, data, strict=False)) if args else tuple(data)
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return [_read(item, v) for v in data]
    if origin is dict:
        key, item = get_args(tp) or (Any, Any)
        return {_read(key, k): _read(item, v) for k, v in data.items()}
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            return _read_record(tp, data)
        if issubclass(tp, enum.Enum):
            return tp(data)
        if tp is tuple:
            return tuple(data)
    return data


def _read_record(cls: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__} wants a dict, not {type(data).__name__}")
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    values = {}
    for f in dataclasses.fields(cls):
        if f.init and f.name in data:
            values[f.name] = _read(hints[f.name], data[f.name])
    return cls(**values)
