"""Melds on a card table (RULES.md ``romme`` / ``rummy``): :class:`TableMeld` and what its
geometry says - the table order of a run, what every position stands for, which card frees a
joker, where laid-off cards go. Runs are read by position (:mod:`engine.melds` run geometry)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..melds import MeldSpec, rank_at, readings, run_start, span_ok
from ..pieces import Card, Deck, Face, sort_key


@dataclass(slots=True)
class TableMeld:
    """A meld on the table: ids in table order, the seat it lies in front of (Rommé; None in
    Rummy, where melds belong to nobody), its kind, and variant b's declared joker cards
    (position -> face)."""

    ids: list[int]
    owner: int | None
    kind: str
    declared: dict[int, Face] = field(default_factory=dict)

    def copy(self) -> TableMeld:
        return TableMeld(list(self.ids), self.owner, self.kind, dict(self.declared))

    def to_list(self) -> list[Any]:
        decl = {str(k): str(v) for k, v in sorted(self.declared.items())}
        return [list(self.ids), self.owner, self.kind, decl]

    @classmethod
    def from_list(cls, data: list[Any]) -> TableMeld:
        decl = {int(k): Card.parse(v) for k, v in data[3].items()}
        return cls(list(data[0]), data[1], data[2], decl)


def _faces(deck: Deck, ids: list[int]) -> list[Face]:
    return [deck[i] for i in ids]


def arrange(deck: Deck, meld: TableMeld, spec: MeldSpec) -> None:
    """Put a freshly validated meld's ids in table order (runs as analyse reads them)."""
    faces = _faces(deck, meld.ids)
    if meld.kind == "run" and run_start(faces, spec.run_mode, spec.max_run) is None:
        reading = next(r for r in readings(faces, spec) if r.kind == "run")
        left = list(meld.ids)
        ordered = []
        for face in reading.faces:
            pick = next(i for i in left if deck[i] == face)
            left.remove(pick)
            ordered.append(pick)
        meld.ids = ordered


def stands_for(deck: Deck, meld: TableMeld, spec: MeldSpec) -> list[Face | None]:
    """What every position stands for; None for an undeclared group joker (any missing
    suit)."""
    faces = _faces(deck, meld.ids)
    if meld.kind == "run":
        start = run_start(faces, spec.run_mode, spec.max_run)
        assert start is not None
        suit = next(f.suit for f in faces if not f.is_joker)
        return [Card(suit, rank_at(spec.run_mode, start + i)) for i in range(len(faces))]
    out: list[Face | None] = []
    for pos, f in enumerate(faces):
        out.append(meld.declared.get(pos) if f.is_joker else f)
    return out


def joker_meanings(deck: Deck, meld: TableMeld, spec: MeldSpec) -> list[Face]:
    """The cards that free a joker of this meld: its place in a run, its declared card
    (variant b), or in a group any missing suit."""
    faces = _faces(deck, meld.ids)
    stands = stands_for(deck, meld, spec)
    out = [s for s, f in zip(stands, faces, strict=True) if f.is_joker and s is not None]
    if any(s is None for s in stands):
        rank = next(f.rank for f in faces if not f.is_joker)
        present = {f.suit for f in faces if not f.is_joker} | {d.suit for d in out}
        out += [Card(s, rank) for s in range(4) if s not in present]
    return sorted(set(out), key=sort_key)


def swap_position(deck: Deck, meld: TableMeld, card: Face, spec: MeldSpec) -> int | None:
    """The position of the joker that ``card`` frees in this meld, or None."""
    faces = _faces(deck, meld.ids)
    stands = stands_for(deck, meld, spec)
    jokers = [p for p, f in enumerate(faces) if f.is_joker]
    exact = next((p for p in jokers if stands[p] == card), None)
    if exact is not None or card.is_joker:
        return exact
    if card in joker_meanings(deck, meld, spec):
        return next((p for p in jokers if stands[p] is None), None)
    return None


def extended(deck: Deck, meld: TableMeld, new_ids: list[int], spec: MeldSpec) -> list[int] | None:
    """The meld's ids with these cards laid off (runs at either end, jokers keeping their
    places; groups up to 4 different suits), or None when they do not fit."""
    new_faces = _faces(deck, new_ids)
    if meld.kind == "group":
        faces = _faces(deck, meld.ids) + new_faces
        real = [f for f in faces if not f.is_joker]
        suits = [f.suit for f in real] + [d.suit for d in meld.declared.values()]
        if (
            len(faces) > spec.max_group
            or len({f.rank for f in real}) != 1
            or len(set(suits)) != len(suits)
            or not readings(faces, spec)
        ):
            return None
        return meld.ids + new_ids
    faces = _faces(deck, meld.ids)
    mode = spec.run_mode
    start = run_start(faces, mode, spec.max_run)
    if start is None:
        return None
    suit = next(f.suit for f in faces if not f.is_joker)
    length, k = len(faces), len(new_ids)
    for low in range(k + 1):  # cards at the low end; jokers go high first
        first = start - low
        if not span_ok(mode, first, length + k, spec.max_run):
            continue
        slots = [first + j for j in range(low)] + [start + length + j for j in range(k - low)]
        placed: list[int | None] = [None] * k
        ok = True
        for i, f in zip(new_ids, new_faces, strict=True):
            if f.is_joker:
                continue
            spot = next(
                (
                    s
                    for s in range(k)
                    if placed[s] is None and f.suit == suit and rank_at(mode, slots[s]) == f.rank
                ),
                None,
            )
            if spot is None:
                ok = False
                break
            placed[spot] = i
        if not ok:
            continue
        jokers = [i for i, f in zip(new_ids, new_faces, strict=True) if f.is_joker]
        for s in range(k):
            if placed[s] is None:
                placed[s] = jokers.pop()
        ids = [p for p in placed[:low] if p is not None]
        return ids + meld.ids + [p for p in placed[low:] if p is not None]
    return None
