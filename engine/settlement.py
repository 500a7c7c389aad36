"""Rommé settlement: every pair of players settles the difference of their penalty totals.

RULES.md, preset ``romme``, "Settlement": after a sitting each pair of players settles the
difference of their penalty totals; a player's balance is the sum over all pairs. Seed 001,
"6. Abrechnung", prints the worked example that :func:`settle` reproduces exactly::

    penalties  A 80   B 220   C 0   D 350
    balances   A +330 B -230  C +650 D -750

Only the standard library is used, so the store, the bot and the renderer can all import this.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

CODES = frozenset(
    {
        "settlement.length_mismatch",
        "settlement.too_few_players",
        "settlement.duplicate_name",
        "settlement.negative_penalty",
    }
)


class SettlementError(ValueError):
    """A rejected settlement input: a stable ``code`` and its ``params`` (data). The sentence is
    made at the edge, ``i18n.error_text(exc, lang)`` (catalogue key ``error.<code>``); the class
    stays on the standard library (see the module docstring), so it does not derive from
    ``engine.errors.CodedError``, but it has the same two attributes."""

    def __init__(self, code: str, **params: Any) -> None:
        if code not in CODES:
            raise KeyError(f"unknown settlement error code {code!r}")
        self.code = code
        self.params = params
        super().__init__(f"{code} " + ", ".join(f"{k}={v!r}" for k, v in params.items()))

    def __reduce__(self):
        return (_rebuild, (self.code, self.params))


def _rebuild(code: str, params: dict[str, Any]) -> SettlementError:
    return SettlementError(code, **params)


@dataclass(frozen=True)
class PairSettlement:
    """One pair's account: ``a_gets`` is positive when ``a`` receives, negative when ``a`` pays."""

    a: str
    b: str
    a_gets: int

    @property
    def b_gets(self) -> int:
        return -self.a_gets

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "a_gets": self.a_gets}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairSettlement:
        return cls(a=data["a"], b=data["b"], a_gets=int(data["a_gets"]))


@dataclass(frozen=True)
class Settlement:
    """The pairwise accounts of a sitting, pairs in seat order (A,B),(A,C),...,(C,D)."""

    names: tuple[str, ...]
    penalties: tuple[int, ...]
    pairs: tuple[PairSettlement, ...]

    @property
    def balances(self) -> dict[str, int]:
        """Each player's balance: the sum of what they get over all their pairs (sums to 0)."""
        balance = dict.fromkeys(self.names, 0)
        for pair in self.pairs:
            balance[pair.a] += pair.a_gets
            balance[pair.b] -= pair.a_gets
        return balance

    def to_dict(self) -> dict[str, Any]:
        """``{"pairs": [{"a", "b", "a_gets"}, ...], "balances": {name: balance}}``."""
        return {
            "pairs": [pair.to_dict() for pair in self.pairs],
            "balances": self.balances,
        }


def pair_difference(penalty_a: int, penalty_b: int) -> int:
    """What ``a`` gets from ``b``: the lower penalty gets the difference from the higher."""
    return penalty_b - penalty_a


def settle(names: list[str], penalties: list[int]) -> Settlement:
    """Settle a Rommé sitting pairwise (RULES.md ``romme`` "Settlement"; seed 001 "Abrechnung")."""
    if len(names) != len(penalties):
        raise SettlementError(
            "settlement.length_mismatch", names=len(names), penalties=len(penalties)
        )
    if len(names) < 2:
        raise SettlementError("settlement.too_few_players", count=len(names))
    seen: set[str] = set()
    for name, penalty in zip(names, penalties, strict=True):
        if name in seen:
            raise SettlementError("settlement.duplicate_name", name=name)
        seen.add(name)
        if penalty < 0:
            raise SettlementError("settlement.negative_penalty", name=name, penalty=penalty)
    totals = [int(p) for p in penalties]
    pairs = tuple(
        PairSettlement(a=names[i], b=names[j], a_gets=pair_difference(totals[i], totals[j]))
        for i, j in combinations(range(len(names)), 2)
    )
    return Settlement(names=tuple(names), penalties=tuple(totals), pairs=pairs)
