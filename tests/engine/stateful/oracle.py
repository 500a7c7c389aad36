"""An independent reading of the rules (RULES.md), for the stateful tests.

Nothing here calls the engine's meld code: melds are read from the game's JSON (piece ids) and
the deck's faces, positionally - a run is read in table order, so every joker stands for the
value of the place it sits in (RULES.md "Common ground": a joker's meaning is fixed by where it
sits); a group joker stands for one of the missing colours. The checks raise
:class:`Violation` with a sentence that names the broken rule.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

JOKER = -1


class Violation(AssertionError):
    """A rule of RULES.md (or an engine contract) is broken."""


def fail(what: str) -> None:
    raise Violation(what)


# --------------------------------------------------------------------------- pieces


def face_of(deck, i: int) -> tuple[int, int]:
    """(suit, rank) of piece ``i``; suit -1 is a joker."""
    f = deck[i]
    return (f.suit, f.rank)


def is_joker(deck, i: int) -> bool:
    return deck[i].suit == JOKER


def expected_deck(rules, players: int) -> Counter:
    """The pieces RULES.md gives the preset (with the rule set's joker options)."""
    faces: Counter = Counter()
    copies = 1 if rules.game == "rummy" else 2
    for _ in range(copies):
        for s in range(4):
            for r in range(1, 14):
                faces[(s, r)] += 1
    if rules.game == "stein":
        jokers = rules.jokers_per_player * players + rules.pool_jokers
    elif rules.game == "rummy":
        jokers = 0  # classic Rummy has no jokers (RULES.md)
    else:
        jokers = rules.pool_jokers
    if jokers:
        faces[(JOKER, 0)] = jokers
    return faces


# --------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class Read:
    kind: str  # "group" / "run"
    stands: tuple[tuple[int, int] | None, ...]  # per position; None: a group joker
    missing: tuple[int, ...] = ()  # group: the colours a joker may stand for
    rank: int = 0  # group: its rank


def _pos_rank(mode: str, p: int) -> int:
    if mode == "wrap":
        return (p - 1) % 13 + 1
    return 1 if p == 14 else p


def read_run(faces: list[tuple[int, int]], mode: str, max_run: int) -> Read | None:
    """The run these faces make *in this order*, or None."""
    n = len(faces)
    real = [(k, f) for k, f in enumerate(faces) if f[0] != JOKER]
    if n < 3 or not real or n > max_run or len({f[0] for _, f in real}) != 1:
        return None
    suit = real[0][1][0]
    if mode == "wrap":
        if n > 26:
            return None
        starts = range(1, 14)
    else:
        top = 14 if mode == "ace_high" else 13
        if n > top:
            return None
        starts = range(1, top - n + 2)
    for s in starts:
        if all(_pos_rank(mode, s + k) == f[1] for k, f in real):
            return Read("run", tuple((suit, _pos_rank(mode, s + k)) for k in range(n)))
    return None


def read_group(faces: list[tuple[int, int]]) -> Read | None:
    real = [f for f in faces if f[0] != JOKER]
    if not 3 <= len(faces) <= 4 or not real:
        return None
    if len({f[1] for f in real}) != 1 or len({f[0] for f in real}) != len(real):
        return None
    rank = real[0][1]
    missing = tuple(s for s in range(4) if s not in {f[0] for f in real})
    stands = tuple(None if f[0] == JOKER else f for f in faces)
    return Read("group", stands, missing, rank)


def read_meld(faces: list[tuple[int, int]], mode: str, max_run: int) -> list[Read]:
    """Every positional reading (a meld of one real tile and jokers may be both)."""
    out = []
    run = read_run(faces, mode, max_run)
    if run:
        out.append(run)
    group = read_group(faces)
    if group:
        out.append(group)
    return out


def spec_of(rules) -> tuple[str, int]:
    return rules.run_mode, rules.max_run


def meld_value(read: Read, values: str) -> int:
    """Points of a meld: tiles face value; Rommé ace 11 (1 in a run A-2 without a king),
    J/Q/K 10 (RULES.md); a joker counts as what it stands for."""
    if read.kind == "group":
        ranks = [read.rank] * len(read.stands)
    else:
        ranks = [s[1] for s in read.stands if s is not None]
    if values == "face":
        return sum(ranks)
    total = 0
    for k, r in enumerate(ranks):
        if r == 1:
            low = read.kind == "run" and k + 1 < len(ranks) and ranks[k + 1] == 2
            low = low and 13 not in ranks
            total += 1 if low or values == "rummy" else 11
        else:
            total += 10 if r >= 11 else r
    return total


# --------------------------------------------------------------------------- state from JSON


@dataclass
class View:
    """What the tests read from a state's JSON (never from the engine's own helpers)."""

    data: dict[str, Any]
    family: str

    @classmethod
    def of(cls, game) -> View:
        return cls(json.loads(game.to_json()), game.rules.family)

    @property
    def current(self) -> int:
        return self.data["current"]

    @property
    def status(self) -> str:
        return self.data["status"]

    def committed_table(self) -> list[list[int]]:
        return [list(m[0]) for m in self.data["table"]]

    def claims(self, working: bool = False) -> list[tuple[int | None, list[int]]]:
        table = self.data["turn"]["table"] if working else self.data["table"]
        return [(m[1], list(m[0])) for m in table]

    def working_table(self) -> list[list[int]]:
        if self.family == "tile":
            return [list(m[0]) for m in self.data["turn"]["table"]]
        return self.committed_table()

    def working_rack(self, seat: int) -> list[int]:
        if self.family == "tile" and seat == self.current and self.status == "playing":
            return list(self.data["turn"]["rack"])
        return list(self.data["racks"][seat])

    def committed_ids(self) -> list[int]:
        d = self.data
        ids = list(d["pool"]) + list(d["discards"])
        for r in d["racks"]:
            ids += r
        for m in d["table"]:
            ids += m[0]
        if self.family == "card":
            for k in d["knocks"]:
                if k:
                    ids += k["hidden"]
        return ids

    def working_ids(self) -> list[int]:
        d = self.data
        if self.family != "tile" or self.status != "playing":
            return self.committed_ids()
        ids = list(d["pool"]) + list(d["discards"])
        for seat, r in enumerate(d["racks"]):
            ids += d["turn"]["rack"] if seat == self.current else r
        for m in d["turn"]["table"]:
            ids += m[0]
        return ids


def check_conservation(game, size: int, text: str | None = None) -> View:
    """Every piece exactly once, in the committed state and in the mover's working copy (the
    deck itself is checked against the preset once, when dealt)."""
    view = View(json.loads(text if text is not None else game.to_json()), game.rules.family)
    full = list(range(size))
    for name, ids in (("committed", view.committed_ids()), ("working", view.working_ids())):
        if sorted(ids) != full:
            counts = Counter(ids)
            dup = sorted(i for i, c in counts.items() if c > 1)
            lost = sorted(set(full) - set(ids))
            fail(
                f"{name} state: pieces {[str(game.deck[i]) for i in lost[:6]]} lost, ids "
                f"{dup[:6]} twice"
            )
    return view
