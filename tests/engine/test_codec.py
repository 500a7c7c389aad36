"""engine.codec: one codec for record types and the one canonical JSON."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from engine.codec import canonical_json, from_data, to_data


class Colour(enum.Enum):
    RED = "R"
    BLUE = "B"


@dataclass(frozen=True)
class Inner:
    n: int
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outer:
    name: str
    inner: Inner
    pairs: tuple[tuple[int, int], ...]
    maybe: Inner | None = None
    colour: Colour = Colour.RED
    by_name: dict[str, Inner] = field(default_factory=dict)
    kind: Literal["a", "b"] = "a"
    rest: list[float] = field(default_factory=list)
    anything: Any = None
    fixed: tuple[int, str] = (0, "")


def sample() -> Outer:
    return Outer(
        name="x",
        inner=Inner(1, ("a", "b")),
        pairs=((2, 10), (3, 7)),
        maybe=Inner(2),
        colour=Colour.BLUE,
        by_name={"k": Inner(3, ("z",))},
        kind="b",
        rest=[1, 2.5],
        anything={"t": [1, 2]},
        fixed=(4, "y"),
    )


def test_round_trip_through_json() -> None:
    value = sample()
    data = json.loads(canonical_json(to_data(value)))
    assert data["pairs"] == [[2, 10], [3, 7]]
    assert data["colour"] == "B"
    assert data["maybe"] == {"n": 2, "tags": []}
    assert from_data(Outer, data) == value


def test_missing_keys_take_defaults_and_none_stays() -> None:
    assert from_data(Outer, {"name": "y", "inner": {"n": 5}, "pairs": []}) == Outer(
        "y", Inner(5), ()
    )
    assert (
        from_data(Outer, {"name": "y", "inner": {"n": 5}, "pairs": [], "maybe": None}).maybe is None
    )


def test_unknown_keys_and_bad_literals_are_refused() -> None:
    with pytest.raises(TypeError):
        from_data(Inner, {"n": 1, "extra": 2})
    with pytest.raises(ValueError):
        from_data(Outer, {"name": "y", "inner": {"n": 5}, "pairs": [], "kind": "c"})


def test_ints_stay_ints_where_floats_are_declared() -> None:
    """A value read back prints the same bytes (byte-stable saved states)."""
    data = to_data(sample())
    assert canonical_json(to_data(from_data(Outer, data))) == canonical_json(data)


def test_canonical_json_is_sorted_compact_and_unicode() -> None:
    assert canonical_json({"b": 1, "a": ["Rommé", 2.0]}) == '{"a":["Rommé",2.0],"b":1}'
