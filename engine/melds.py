"""Meld validation: groups and runs with jokers (RULES.md, "Common ground").

A meld is judged from its pieces alone. :func:`analyse` returns the meld's reading (kind, the
pieces in table order, what every joker stands for, its value) or raises a ``meld.*`` error that
says exactly what is wrong. Readings are *positional*: when the pieces as given already form a run,
that order is kept (so ``J R5 R6`` puts the joker at R4); otherwise the run is arranged with jokers
filling gaps first, then the high end, then the low end. :func:`positional_reading` reads a meld
exactly as it lies (what a table meld's jokers stand for).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

from .errors import RummyError
from .pieces import Face, format_faces

RunMode = Literal["linear", "ace_high", "wrap"]
Values = Literal["face", "romme", "rummy"]


@dataclass(frozen=True, slots=True)
class MeldSpec:
    """What counts as a meld in a rule set.

    ``run_mode``: ``linear`` 1..13 (Rummikub, classic Rummy); ``ace_high`` 1..13 plus the ace
    after the king, no wrap (Rommé variant c); ``wrap`` round the corner 12-13-1-2 (Stein, Rommé).
    ``max_run``: 13 (26 in Stein: twice round). ``values``: how a meld's points are counted.
    """

    run_mode: RunMode = "linear"
    max_run: int = 13
    min_size: int = 3
    max_group: int = 4
    values: Values = "face"


@dataclass(frozen=True, slots=True)
class Reading:
    """One valid reading of a meld."""

    kind: Literal["group", "run"]
    faces: tuple[Face, ...]  # in table order
    stands_for: tuple[Face, ...]  # the face each position stands for (jokers resolved)
    value: int

    def joker_positions(self) -> list[int]:
        return [i for i, f in enumerate(self.faces) if f.is_joker]

    def joker_meanings(self) -> list[Face]:
        return [self.stands_for[i] for i in self.joker_positions()]


def _error(code: str, faces: Sequence[Face], meld_no: int | None, **params) -> RummyError:
    """A ``meld.*`` error; ``where`` names the meld number as data (``why.meld_where``)."""
    where = "" if meld_no is None else {"key": "why.meld_where", "meld": meld_no}
    shown = f"({format_faces(faces)})" if meld_no is not None else format_faces(faces)
    return RummyError(code, where=where, pieces=shown, **params)


# ---------------------------------------------------------------------- run geometry
# The one implementation of run positions, for tiles and cards (engine.cards, engine.cardplan).
# A run is a stretch of consecutive *positions*; position 1 is the ace (value 1) low, 2..13 the
# values, and position 14 the ace high after the king (``ace_high``, Rommé variant c); with
# ``wrap`` the positions go round the corner (14 is 1 again, 15 is 2, ...).


def _rank_positions(mode: RunMode) -> int:
    return 14 if mode == "ace_high" else 13


def rank_at(mode: str, position: int) -> int:
    """The value (rank) at a run position (see above): ``wrap`` 14 -> 1, 15 -> 2; otherwise
    14 -> the ace (1)."""
    if mode == "wrap":
        return (position - 1) % 13 + 1
    return 1 if position == 14 else position


def first_positions(mode: str) -> range:
    """Every position a run may start at: 1..13, or 1..14 with ``ace_high``."""
    return range(1, 15 if mode == "ace_high" else 14)


def span_ok(mode: str, start: int, length: int, max_run: int) -> bool:
    """May a run of ``length`` cards start at position ``start``? At most ``max_run`` long, at
    most 13 round the corner (``wrap``), else within positions 1..13 (1..14 with ``ace_high``)."""
    if length > max_run:
        return False
    if mode == "wrap":
        return length <= 13
    return start >= 1 and start + length - 1 <= _rank_positions(mode)  # type: ignore[arg-type]


def run_start(faces: Sequence[Face], mode: str, max_run: int) -> int | None:
    """The position of the first piece of a run laid in this order (1 = ace low; 14 = ace high
    in ``ace_high``), or None when the pieces in this order are not a run of at most 13."""
    real = [(i, f) for i, f in enumerate(faces) if not f.is_joker]
    if not real or len({f.suit for _, f in real}) != 1:
        return None
    for start in first_positions(mode):
        if span_ok(mode, start, len(faces), max_run) and all(
            rank_at(mode, start + i) == f.rank for i, f in real
        ):
            return start
    return None


def _run_starts(mode: RunMode, length: int) -> range:
    if mode == "wrap":
        return range(1, 14)
    return range(1, _rank_positions(mode) - length + 2)


def _value_of(kind: str, stands_for: Sequence[Face], values: Values) -> int:
    if values == "face":
        return sum(f.rank for f in stands_for)
    total = 0
    ranks = [f.rank for f in stands_for]
    for i, r in enumerate(ranks):
        if values == "rummy":
            total += 10 if r >= 11 else r
        elif r == 1:
            # Rommé: the ace counts 11, but 1 in a run that starts A-2 without a king.
            low = kind == "run" and i + 1 < len(ranks) and ranks[i + 1] == 2 and 13 not in ranks
            total += 1 if low else 11
        else:
            total += 10 if r >= 11 else r
    return total


def _group_readings(faces: Sequence[Face], spec: MeldSpec) -> list[Reading]:
    real = [f for f in faces if not f.is_joker]
    ranks = {f.rank for f in real}
    suits = [f.suit for f in real]
    if len(ranks) != 1 or len(set(suits)) != len(suits) or len(faces) > spec.max_group:
        return []
    rank = real[0].rank
    face_type = type(real[0])
    missing = [face_type(s, rank) for s in range(4) if s not in suits]
    ordered = sorted(real) + [f for f in faces if f.is_joker]
    n_jokers = len(faces) - len(real)
    if n_jokers > len(missing):
        return []
    stands = tuple(sorted(real)) + tuple(missing[:n_jokers])
    return [Reading("group", tuple(ordered), stands, _value_of("group", stands, spec.values))]


def _run_fits(ranks_needed: Sequence[int], real_ranks: Counter) -> bool:
    need = Counter(ranks_needed)
    return all(need[r] >= c for r, c in real_ranks.items())


def _run_readings(faces: Sequence[Face], spec: MeldSpec) -> list[Reading]:
    real = [f for f in faces if not f.is_joker]
    if len({f.suit for f in real}) != 1 or len(faces) > spec.max_run:
        return []
    if spec.run_mode != "wrap" and len(faces) > _rank_positions(spec.run_mode):
        return []
    suit = real[0].suit
    face_type = type(real[0])
    real_ranks = Counter(f.rank for f in real)
    linear = spec.run_mode == "linear"
    if linear and len(real_ranks) < len(real):
        return []  # a value twice: a run of 1..13 holds every value once
    readings: list[tuple[int, Reading]] = []
    for start in _run_starts(spec.run_mode, len(faces)):
        needed = [rank_at(spec.run_mode, start + i) for i in range(len(faces))]
        if linear:  # values at most once each: the real values must be among the needed
            if not real_ranks.keys() <= set(needed):
                continue
        elif not _run_fits(needed, real_ranks):
            continue
        stands = tuple(face_type(suit, r) for r in needed)
        # Keep the given order when it already reads as this run.
        if all(f.is_joker or f.rank == needed[i] for i, f in enumerate(faces)):
            ordered = tuple(faces)
            preference = -1
        else:
            left = Counter(f.rank for f in real)
            ordered_list: list[Face] = []
            for r in needed:
                if left[r] > 0:
                    left[r] -= 1
                    ordered_list.append(face_type(suit, r))
                else:
                    ordered_list.append(face_type.joker())
            ordered = tuple(ordered_list)
            leading = next(i for i, f in enumerate(ordered) if not f.is_joker)
            preference = leading
        value = _value_of("run", stands, spec.values)
        readings.append((preference, Reading("run", ordered, stands, value)))
    readings.sort(key=lambda pr: pr[0])
    return [r for _, r in readings]


def spec_of(rules: Any) -> MeldSpec:
    """``rules.meld_spec`` (a rule set is a frozen value), made once per rule set object: the
    property makes a new spec each time, and readings are remembered per spec object."""
    entry = _SPEC_OF.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_SPEC_OF) >= 64:
            _SPEC_OF.clear()
        entry = _SPEC_OF[id(rules)] = (rules, rules.meld_spec)
    return entry[1]


_SPEC_OF: dict[int, tuple[Any, MeldSpec]] = {}
"""The spec of each rule set object (by id, the rule set kept so that its id stays its own)."""


def readings(faces: Sequence[Face], spec: MeldSpec) -> list[Reading]:
    """Every valid reading of the pieces, the preferred one first (empty when invalid)."""
    global _LAST_SPEC
    last = _LAST_SPEC  # one tuple, replaced whole: threads never see a spec with another's memo
    if last[0] is spec:  # callers read many melds with one spec object
        memo = last[1]
    else:
        memo = _BY_SPEC.setdefault(spec, {})
        _LAST_SPEC = (spec, memo)
    key = tuple(faces)
    found = memo.get(key)
    if found is None:
        found = tuple(_compute_readings(key, spec))
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[key] = found
    return list(found)


_BY_SPEC: dict[MeldSpec, dict[tuple[Face, ...], tuple[Reading, ...]]] = {}
"""The readings found per spec, by pieces: a meld is a value, its readings never change. The
only memo of readings (a second one behind it held every entry twice and was never hit)."""
_LAST_SPEC: tuple[MeldSpec | None, dict[tuple[Face, ...], tuple[Reading, ...]]] = (None, {})
"""The spec object asked last and its memo (a spec's hash is not free)."""
_MEMO_MAX = 1 << 16


def _compute_readings(faces: Sequence[Face], spec: MeldSpec) -> list[Reading]:
    if len(faces) < spec.min_size or all(f.is_joker for f in faces):
        return []
    real = [f for f in faces if not f.is_joker]
    runs = _run_readings(faces, spec)
    groups = _group_readings(faces, spec)
    # One real piece and jokers could be either: read as a run (R5 J J = R5 R6 R7).
    if len(real) == 1:
        return runs + groups
    return groups + runs


def analyse(faces: Sequence[Face], spec: MeldSpec, meld_no: int | None = None) -> Reading:
    """The preferred reading of a meld, or a ``meld.*`` error naming what is wrong."""
    found = readings(faces, spec)
    if found:
        return found[0]
    raise explain_invalid(faces, spec, meld_no)


def is_valid(faces: Sequence[Face], spec: MeldSpec) -> bool:
    return bool(readings(faces, spec))


def explain_invalid(faces: Sequence[Face], spec: MeldSpec, meld_no: int | None) -> RummyError:
    """Why a meld is not valid, as the most specific error we can name."""
    if len(faces) < spec.min_size:
        return _error("meld.too_short", faces, meld_no)
    real = [f for f in faces if not f.is_joker]
    if not real:
        return _error("meld.only_jokers", faces, meld_no)
    ranks = {f.rank for f in real}
    suits = Counter(f.suit for f in real)
    if len(ranks) == 1 and len(real) > 1:
        if len(faces) > spec.max_group:
            return _error("meld.group_too_long", faces, meld_no)
        dup = next(f for f in real if suits[f.suit] > 1)
        return _error("meld.group_colours", faces, meld_no, dup=str(dup))
    if len(suits) == 1:
        if len(faces) > spec.max_run:
            return _error("meld.run_too_long", faces, meld_no, max=spec.max_run)
        counts = Counter(f.rank for f in real)
        dups = [f for f in real if counts[f.rank] > 1]
        if dups and (spec.run_mode != "wrap" or len(faces) <= 13):
            return _error("meld.run_duplicate", faces, meld_no, dup=str(dups[0]))
        if spec.run_mode != "wrap":
            wrapped = MeldSpec("wrap", spec.max_run, spec.min_size, spec.max_group, spec.values)
            if is_valid(faces, wrapped):
                return _error("meld.run_wrap", faces, meld_no)
        face_type = type(real[0])
        ordered = sorted({f.rank for f in real})
        gap = next(
            (r + 1 for r, nxt in pairwise(ordered) if nxt != r + 1),
            ordered[-1] + 1,
        )
        if spec.run_mode == "wrap":
            gap = _wrap_gap(Counter(f.rank for f in real), spec.max_run) or gap
        gap_face = face_type(real[0].suit, min(gap, 13))
        return _error("meld.run_gap", faces, meld_no, gap=str(gap_face))
    return _error("meld.mixed", faces, meld_no)


def positional_reading(faces: Sequence[Face], spec: MeldSpec) -> Reading | None:
    """The reading of a meld as it lies, or None (RULES.md "Common ground": a joker's meaning is
    fixed by where it sits - in a run the gap it fills or the end it holds, in a group a missing
    colour). A run counts only when every real piece stands at its place in the given order, so
    ``R4 R5 J`` is R4 R5 R6 and ``J R4 R5`` is R3 R4 R5; a group is read in any order."""
    given = tuple(faces)
    for found in readings(given, spec):
        if found.kind == "group" or found.faces == given:
            return found
    return None


def _wrap_gap(real_ranks: Counter, max_run: int) -> int | None:
    """Round the corner (Stein, Rommé): the first missing value of the shortest run round the
    cycle that holds all these real tiles (``K2..K13 K2 K3``: K1; ``K12 K13 K3``: K1)."""
    for length in range(sum(real_ranks.values()), max_run + 1):
        for start in range(1, 14):
            needed = Counter(rank_at("wrap", start + i) for i in range(length))
            if all(needed[r] >= c for r, c in real_ranks.items()):
                left = Counter(real_ranks)
                for i in range(length):
                    r = rank_at("wrap", start + i)
                    if left[r] > 0:
                        left[r] -= 1
                    else:
                        return r
    return None


def joker_meanings(faces: Sequence[Face], spec: MeldSpec) -> set[Face]:
    """What the jokers of this meld stand for, read by position (:func:`positional_reading`):
    in a run the faces at the jokers' places (``R4 R5 J``: R6; wrap-around ``R12 R13 J``: R1),
    in a group every missing colour of its value. Empty when the meld as it lies is not valid."""
    found = positional_reading(faces, spec)
    if found is None:
        return set()
    if found.kind == "group":
        present = {f.suit for f in faces if not f.is_joker}
        face_type, rank = type(found.stands_for[0]), found.stands_for[0].rank
        return {face_type(s, rank) for s in range(4) if s not in present}
    return set(found.joker_meanings())


Meaning = tuple[str, Face | int]
"""What a joker stands for: ``("run", face)`` - that very piece - or ``("group", value)`` - a
missing colour of that value (RULES.md "Common ground")."""


def meaning_at(reading: Reading, k: int) -> Meaning:
    """What place ``k`` of a reading stands for (see :data:`Meaning`)."""
    if reading.kind == "group":
        return ("group", reading.stands_for[k].rank)
    return ("run", reading.stands_for[k])


def meaning_words(meaning: Meaning) -> str | dict[str, object]:
    """A meaning as an error param: ``R5``, or the data of "a 5 of a missing colour"
    (``why.meaning.group``)."""
    kind, what = meaning
    if kind == "run":
        return str(what)
    return {"key": "why.meaning.group", "value": what}
