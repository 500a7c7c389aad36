"""The best play the engine accepts: the exact solver (engine/solver.py) held to every joker rule.

The solver's model lets a table joker end in any meld (Rummikub: a locked joker meld is kept,
extended or freed, and a freed joker goes anywhere). The engine is stricter (RULES.md "Common
ground", "Preset rummikub"; docs/DECISIONS.md "Table jokers stay in their meld"):

* a table joker that is not freed ends the turn in a meld with a real tile of the meld it lay in
  at the start of the turn; a group joker stays a joker of its value in a group; where freed
  jokers may not go to the rack (Rummikub) a table joker keeps its meaning;
* Rummikub: the tiles of a joker meld stay together (``joker_meld_no_split``), and a joker freed
  with ``swap`` lies at the end in a new meld with a tile from the rack.

:func:`legal_play` finds the best play under those rules as well. The solver's free answer is
an upper bound: when the engine accepts it, it is the answer. Otherwise each joker that a rule
ties is given its **fate**, the whole meld it ends in (``F``): for a held joker its meld as it
lies, or any valid meld of it and a real tile of its start meld (Rummikub without the split
rule: one where it keeps its meaning); for a Rummikub joker freed this turn, any new meld of it
and at least one rack tile. Each ``F`` is laid as a fixed meld and the solver places the rest
freely (with the table's other joker melds kept whole where the preset locks them). Every
candidate is checked by the engine's own end-of-turn check (``check_turn`` on a copy) before it
counts, and the best accepted one wins.

Why a small ``F`` is enough: in a run of any length, the part from the joker to the nearest tile
it must share a meld with, plus up to two pieces on each side, is a valid run whose remainders
(three or more pieces each, or none) are valid runs again; so every legal final table has an
equivalent one (same pieces placed) whose tied jokers lie in melds of at most
``FATE_RUN_LONGEST`` pieces when that distance is at most two. Longer fates, fates holding a
second joker, and swaps made after a joker was moved within its meld are not generated (the
answer is then the best found, still legal; ``exact`` tells whether the search was complete
within :data:`FATE_SOLVES`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import RummyError
from ..melds import positional_reading, readings
from ..pieces import Face, Tile
from ..solver import Solution, SolverBudgetExceeded, solve, states_spent
from .claims import fixed_melds
from .turn import HELP_BUDGET, TurnContext, held_jokers, start_jokers

FATE_SOLVES = 400
"""Solves one :func:`legal_play` may run beyond the first two; all of them together within
``HELP_BUDGET`` DP states (most take a few hundred)."""
FATE_RUN_LONGEST = 7
"""The longest run generated as a tied joker's fate (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class LegalPlay:
    """The best accepted play found: ``solution`` (None: nothing accepted places a piece),
    whether the search was complete (``exact``), and whether the solver's free answer broke a
    joker rule, so that the play keeps table jokers where the rules hold them (``kept``)."""

    solution: Solution | None
    exact: bool
    kept: bool = False


@dataclass(frozen=True, slots=True)
class _Fate:
    """A tied joker's end: ``meld`` (faces, its joker included), the table faces it takes,
    the rack faces it takes (the joker too when it is in the rack), or ``keep``: the joker's
    working meld stays exactly as it is (``index``)."""

    meld: tuple[Face, ...]
    table: tuple[Face, ...]
    rack: tuple[Face, ...]
    keep: int = -1


def _solve(g: TurnContext, seat: int, table, hand, must, fixed, *, jokers_stay: bool):
    return solve(
        table,
        hand,
        g.rules,
        opened=g.opened[seat],
        mode="count",
        fixed=fixed,
        must_place=must,
        budget=HELP_BUDGET,
        jokers_stay=jokers_stay,
        empty_ok=True,
    )


def accepts(
    g: TurnContext,
    seat: int,
    table: Sequence[Sequence[Face]],
    placed: Sequence[Face],
    whole_turn: bool = True,
):
    """Would the engine end the turn with this table (the working table's pieces plus
    ``placed`` from the rack)? The error that refuses it, or None. Without ``whole_turn``:
    would ``place`` lay it (the turn may go on: a freed joker still in the rack, an opening
    not yet complete)."""
    from .ending import check_turn
    from .help import adopt_solution
    from .turn import from_rack

    probe = g.copy()
    try:
        adopt_solution(probe, [list(m) for m in table], from_rack(probe, placed))
        if whole_turn:
            check_turn(probe, seat)
    except RummyError as refused:
        return refused
    return None


def legal_play(
    g: TurnContext,
    seat: int,
    must_place: Sequence[Face] | None = None,
    *,
    whole_turn: bool = True,
) -> LegalPlay:
    """The play of the most rack pieces (exactly ``must_place`` when given) that the engine
    accepts at the end of the turn, from the working table as it is (see the module docstring;
    ``whole_turn=False``: that ``place`` accepts, see :func:`accepts`). Raises
    ``SolverBudgetExceeded`` when even the free answer is beyond the help budget."""
    must = list(must_place) if must_place is not None else None
    table = g.table_faces(working=True)
    hand = g.faces(g.turn.rack)
    fixed = fixed_melds(g, seat)
    free = _solve(g, seat, table, hand, must, fixed, jokers_stay=False)
    if not free.count:
        return LegalPlay(None, True)
    if accepts(g, seat, free.table, free.placed, whole_turn) is None:
        return LegalPlay(free, True)
    best: Solution | None = None
    exact = True
    try:
        kept = _solve(g, seat, table, hand, must, fixed, jokers_stay=True)
        if kept.count and accepts(g, seat, kept.table, kept.placed, whole_turn) is None:
            best = kept
    except SolverBudgetExceeded:
        exact = False
    if best is not None and best.count == free.count:
        return LegalPlay(best, exact, True)
    fates = _tied_fates(g, seat)
    if not fates or not g.opened[seat]:
        return LegalPlay(best, exact, True)
    solves = FATE_SOLVES
    spent = states_spent()
    for combo in _combos(g, fates, table, hand, fixed):
        if best is not None and best.count >= free.count:
            break
        if solves <= 0 or states_spent() - spent > HELP_BUDGET:
            exact = False
            break
        solves -= 1
        try:
            found = _with_fates(g, seat, combo, table, hand, must, fixed)
        except SolverBudgetExceeded:
            exact = False
            continue
        if found is None or (best is not None and found.count <= best.count):
            continue
        if accepts(g, seat, found.table, found.placed, whole_turn) is None:
            best = found
    return LegalPlay(best, exact, True)


# ------------------------------------------------------------------------------- fates


def _tied_fates(g: TurnContext, seat: int) -> list[list[_Fate]]:
    """Per joker a rule ties (see the module docstring), the fates it may have."""
    rules = g.rules
    spec = rules.meld_spec
    where = {i: k for k, m in enumerate(g.turn.table) for i in m.ids}
    fixed = fixed_melds(g, seat)
    out: list[list[_Fate]] = []
    table_faces = g.table_faces(working=True)
    # pieces a fate may take from the table: not from claims, not from a locked joker meld
    locked = set(fixed)
    if rules.joker_meld_no_split:
        held = held_jokers(g)
        locked |= {where[j] for j in held if j in where}
    free_table = Counter(f for k, m in enumerate(table_faces) if k not in locked for f in m)
    rack = Counter(g.faces(g.turn.rack))
    if not rules.joker_meld_no_split:
        for joker, (index, meaning) in held_jokers(g).items():
            k = where.get(joker)
            if k is None or k in fixed:
                continue
            home = Counter(f for f in g.faces(g.table[index].ids) if not f.is_joker)
            strict = meaning if (not rules.joker_freed_to_hand or meaning[0] == "group") else None
            pool = free_table.copy()
            pool[Tile.joker()] -= 1  # the joker itself is in the meld
            options = [_Fate(tuple(table_faces[k]), tuple(table_faces[k]), (), keep=k)]
            for meld in _melds_with_joker(pool, rack, spec, strict):
                reals = Counter(f for f in meld if not f.is_joker)
                if not reals & home:
                    continue
                options.append(_split_sources(meld, pool, rack, table_joker=True))
            out.append(options)
    if not rules.joker_freed_to_hand:
        freed = [j for j in g.turn.freed if j in g.turn.rack]
        on_table = {i for m in g.turn.table for i in m.ids}
        played = Counter(
            g.deck[i] for i in g.turn.played if i in on_table and not g.deck[i].is_joker
        )
        for _joker in freed:
            options = []
            for meld in _melds_with_joker(free_table, rack, spec, None):
                options += _rack_sources(meld, free_table, rack, played)
            out.append(options)
    return out


def _melds_with_joker(pool: Counter, rack: Counter, spec, strict) -> list[tuple[Face, ...]]:
    """Valid melds of one joker and real pieces available in ``pool`` or ``rack`` (runs of at
    most :data:`FATE_RUN_LONGEST`); ``strict``: the joker's meaning must stay this one."""
    have = pool + rack
    joker = Tile.joker()
    wrap = spec.run_mode == "wrap"
    out: list[tuple[Face, ...]] = []
    for value in range(1, 14):
        colours = [c for c in range(4) if have[Tile(c, value)]]
        for size in (2, 3):
            for chosen in itertools.combinations(colours, size):
                meld = (*(Tile(c, value) for c in chosen), joker)
                found = positional_reading(meld, spec)
                if found is None or found.kind != "group":
                    continue
                if strict is not None and strict != ("group", value):
                    continue
                out.append(meld)
    if strict is not None and strict[0] == "group":
        return out
    for colour in range(4):
        for start in range(1, 14 if wrap else 12):
            for length in range(3, FATE_RUN_LONGEST + 1):
                values = [start + i for i in range(length)]
                if wrap:
                    values = [(v - 1) % 13 + 1 for v in values]
                elif values[-1] > 13:
                    break
                for place in range(length):
                    faces = [Tile(colour, v) for v in values]
                    meant = faces[place]
                    if strict is not None and strict != ("run", meant):
                        continue
                    reals = Counter(faces[:place] + faces[place + 1 :])
                    if reals - have:
                        continue
                    meld = (*faces[:place], joker, *faces[place + 1 :])
                    found = positional_reading(meld, spec)
                    if found is None or found.kind != "run":
                        continue
                    out.append(meld)
    return out


def _split_sources(meld, pool: Counter, rack: Counter, *, table_joker: bool) -> _Fate:
    """A fate whose joker lies on the table (``table_joker``) or in the rack; its real pieces
    are sourced when the fates are combined (:func:`_combos`)."""
    joker = tuple(f for f in meld if f.is_joker)
    return _Fate(tuple(meld), joker if table_joker else (), () if table_joker else joker)


def _rack_sources(meld, pool: Counter, rack: Counter, played: Counter) -> list[_Fate]:
    """The fates of a freed (rack) joker in ``meld``: each with at least one rack tile - one
    from the rack, or one played from it this turn and lying on the table - the others sourced
    when the fates are combined."""
    out = []
    reals = [f for f in meld if not f.is_joker]
    joker = Tile.joker()
    for chosen in sorted(set(reals), key=str):
        if rack[chosen]:
            out.append(_Fate(tuple(meld), (), (joker, chosen)))
        elif played[chosen]:
            out.append(_Fate(tuple(meld), (chosen,), (joker,)))
    return out


def _combos(g: TurnContext, fates: list[list[_Fate]], table, hand, fixed):
    """Every choice of one fate per tied joker whose pieces exist together, fewest changed
    fates first (most rack pieces first among equals). A fate's pieces not named by it come
    from the table where they can (a table piece must be used anyway; the rack copy stays
    free), else from the rack."""
    pool = Counter(f for k, m in enumerate(table) if k not in fixed for f in m)
    rack = Counter(hand)
    chosen: list[tuple[int, int, list[_Fate]]] = []

    def source(fate: _Fate, used_table: Counter, used_rack: Counter) -> _Fate | None:
        t, r = Counter(fate.table), Counter(fate.rack)
        rest = Counter(f for f in fate.meld if not f.is_joker) - (t + r)
        for face, n in rest.items():
            spare = pool[face] - used_table[face] - t[face]
            on_table = max(0, min(n, spare))
            t[face] += on_table
            r[face] += n - on_table
        if (used_table + t) - pool or (used_rack + r) - rack:
            return None
        return _Fate(fate.meld, tuple(t.elements()), tuple(r.elements()))

    def walk(i: int, picked: list[_Fate], used_table: Counter, used_rack: Counter, keeps: set):
        if len(chosen) >= 20000:
            return
        if i == len(fates):
            moved = sum(1 for f in picked if f.keep < 0)
            if moved:
                rack_n = sum(len(f.rack) for f in picked)
                chosen.append((moved, -rack_n, list(picked)))
            return
        for fate in fates[i]:
            if fate.keep >= 0:
                if fate.keep in keeps:
                    picked.append(fate)
                    walk(i + 1, picked, used_table, used_rack, keeps)
                    picked.pop()
                    continue
                need_t = Counter(fate.table)
                if need_t + used_table - pool:
                    continue
                picked.append(fate)
                walk(i + 1, picked, used_table + need_t, used_rack, keeps | {fate.keep})
                picked.pop()
                continue
            concrete = source(fate, used_table, used_rack)
            if concrete is None:
                continue
            picked.append(concrete)
            walk(
                i + 1,
                picked,
                used_table + Counter(concrete.table),
                used_rack + Counter(concrete.rack),
                keeps,
            )
            picked.pop()

    walk(0, [], Counter(), Counter(), set())
    chosen.sort(key=lambda entry: (entry[0], entry[1]))
    for _moved, _rack, picked in chosen:
        yield picked


def _with_fates(g: TurnContext, seat: int, combo: list[_Fate], table, hand, must, fixed):
    """The best play with these fates laid as fixed melds, or None."""
    melds = [list(m) for m in table]
    keep = {f.keep for f in combo if f.keep >= 0}
    removable = [k for k in range(len(melds)) if k not in fixed and k not in keep]
    taken_rack: Counter = Counter()
    new: list[list[Face]] = []
    for fate in combo:
        if fate.keep >= 0:
            continue
        for face in fate.table:
            k = next((k for k in removable if face in melds[k]), None)
            if k is None:
                return None
            melds[k].remove(face)
        taken_rack += Counter(fate.rack)
        new.append(list(fate.meld))
    rest_hand = list((Counter(hand) - taken_rack).elements())
    rest_must = None
    if must is not None:
        if taken_rack - Counter(must):
            return None
        rest_must = list((Counter(must) - taken_rack).elements())
    kept_melds = [(k, m) for k, m in enumerate(melds) if m]
    index = {k: n for n, (k, _) in enumerate(kept_melds)}
    rest = [m for _, m in kept_melds] + new
    rest_fixed = {index[k] for k in fixed | keep if k in index}
    rest_fixed |= set(range(len(kept_melds), len(rest)))
    solution = _solve(g, seat, rest, rest_hand, rest_must, rest_fixed, jokers_stay=True)
    if not all(readings(m, g.rules.meld_spec) for m in solution.table):
        return None
    if rest_must is not None and solution.count != len(rest_must):
        return None
    placed = sorted([*solution.placed, *taken_rack.elements()], key=lambda f: (f.is_joker, str(f)))
    if not placed:
        return None
    value = sum(g.rules.joker_penalty if f.is_joker else f.rank for f in placed)
    return Solution(len(placed), value, placed, solution.table, solution.changed_melds)


__all__ = ["FATE_SOLVES", "LegalPlay", "accepts", "legal_play", "start_jokers"]
