"""The best play the engine accepts: the exact solver (engine/solver.py) held to every joker rule.

The solver's model lets a table joker end in any meld (Rummikub: a locked joker meld is kept,
extended or freed, and a freed joker goes anywhere). The engine is stricter (RULES.md "Common
ground", "Preset rummikub"; docs/DECISIONS.md "Table jokers stay in their meld"):

* a table joker that is not freed ends the turn in a meld with a real tile of the meld it lay in
  at the start of the turn; a group joker stays a joker of its value in a group; where freed
  jokers may not go to the rack (Rummikub) a table joker keeps its meaning;
* Rummikub: the tiles of a joker meld stay together (``joker_meld_no_split``), and a joker freed
  with ``swap`` lies at the end in a new meld with a tile from the rack;
* claims stay exactly as they are (``fixed_melds``).

The solver's free answer is an **upper bound** on every legal play that makes no move first: a
split or a joker kept in its meld is only one more arrangement there, and so is a Stein swap
(its jokers are free there; in value mode a joker freed to the hand is bounded like a
Rummikub swap). In Rummikub a play that starts with moves outside the solver's model or that
it misses (a ``swap``, or two; a meld with two jokers freed by one, a rack joker completing a
locked group) is bounded by the free answer after those moves (:func:`_pre_moves`; one solve
per state the engine accepts). :func:`legal_play` takes the free answer when the engine
accepts it; else (Stein) the free answer with a misplaced joker exchanged for a tile it stands
for or moved to the end of another meld (:func:`_exchanges`, no solve); else the answer with
joker melds kept whole (``jokers_stay``) when it reaches the bound - the answers ``place``
and ``hint`` always gave. Only when the bound is higher does it search further, within one
budget (:class:`_Spend`: at most :data:`SEARCH_SOLVES` solves of together within
``HELP_BUDGET`` DP states):

* each joker that a rule ties is given its **fate**, the meld it ends in: for a held joker its
  meld as it lies, or the **core** of a valid meld of it and a real tile of its start meld
  (meaning kept where the rules fix it; :func:`_melds_with_joker` says why cores are enough,
  however long the final meld, a rack joker in it included); for a Rummikub joker freed this
  turn, a core with a tile from the rack or played from it. The fates are laid, kept whole
  (a group may be completed, a linear run lengthened at its ends) and the solver places the
  rest; combinations that break no table meld and that use the pieces the free answer
  places come first;
* the same after each move, or two, that the engine accepts.

Every candidate is checked by the engine itself (``adopt_solution`` and the end-of-turn check
``check_turn`` on a copy) before it counts; the best accepted one wins, and the search stops as
soon as one reaches the bound. ``exact`` says whether the search was complete: a budget spent,
or fates or combinations cut (:data:`FATE_OPTIONS`, :data:`FATE_COMBOS`), make it inexact.
Two tied jokers may share a final meld (:func:`_pair`: a fate of the first holding both, the
second ``joined``). The solver is given the working table with the pieces laid this turn beside
a joker meld, and melds whose jokers were laid this turn, as loose pieces (:func:`_solver_table`;
Rummikub: each start meld holding a held joker as its part, however the turn's moves joined or
spread its pieces, :func:`_locked_table`; the fates are laid on the same table,
:func:`_fate_table`). A locked group of one tile and two jokers that the solver would read as a
run is solved as the group the engine reads (:func:`_solve_groups`). A ``place`` of named
pieces may spend :data:`PLACE_SOLVES`. Not exact unless the bound is reached: a start meld
given no part, a fate's play the engine refuses (the search cannot rule out a better one), and
what is not generated: three tied jokers in one meld, or two and a rack joker; a third move
before the play; Stein's ``take`` (a hand joker for a table tile: never more pieces placed).
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from ..errors import RummyError
from ..melds import joker_meanings, positional_reading, readings
from ..pieces import Face, Tile, format_faces
from ..scoring import rack_value
from ..solver import Mode, Solution, SolverBudgetExceeded, solve, states_spent
from .claims import fixed_melds
from .turn import HELP_BUDGET, TurnContext, held_jokers

SEARCH_SOLVES = 30
"""Solves one :func:`legal_play` may run beyond the free and the kept answer (each costs Python
time too: laying the fates, checking the answer on a copy)."""

PLACE_SOLVES = 60
"""The same for a ``place`` of named pieces (fewer plays to search, each state's pieces fixed,
and the player asked for exactly these: a play that needs two swaps first is found)."""

EXCHANGES = 24
"""Exchanges of a joker and a piece it stands for made on a refused free answer (Stein, where
a held joker's start meld tells on faces alone whether an exchange can be accepted)."""
EXCHANGE_CHECKS = 3
"""Of those, how many the engine checks (no solve, but a check on a copy of a big table costs
as much as one)."""
FATE_GROW = 2
"""Where runs wrap (Stein), how far a core is lengthened at each end into a fate (the solver
keeps a wrapping joker run exactly as laid; a longer piece at an end would be a meld of its
own: see :func:`_melds_with_joker`)."""
FATE_OPTIONS = 40
"""Fates kept per tied joker (the free answer's melds, its meld as it lies, then the shortest)."""
FATE_COMBOS = 120
"""Fate combinations generated per state (tried best first, within :data:`SEARCH_SOLVES`)."""

_local = threading.local()


@contextmanager
def plain_place() -> Iterator[None]:
    """Within it, ``place`` does exactly what it did before this search existed (the computer
    players' probe, so that seeded games stay the same)."""
    before = getattr(_local, "plain", False)
    _local.plain = True
    try:
        yield
    finally:
        _local.plain = before


def place_is_plain() -> bool:
    return getattr(_local, "plain", False)


@dataclass(frozen=True, slots=True)
class LegalPlay:
    """The best accepted play found: ``before`` (commands made first: a ``swap``, or ``add``
    of a rack joker to a locked group), then ``solution`` on the state after them (None:
    nothing accepted places a piece); ``score``: rack pieces (or value) the whole play takes
    from the rack; ``exact``: the search was complete; ``kept``: the solver's free answer
    broke a joker rule, so the play keeps table jokers where the rules hold them."""

    solution: Solution | None
    exact: bool
    kept: bool = False
    before: tuple[str, ...] = ()
    score: int = 0
    bound: int = 0


class _Spend:
    """What one :func:`legal_play` may still spend: ``HELP_BUDGET`` DP states over all its
    solves (``engine.solver.states_spent``) and at most :data:`SEARCH_SOLVES` solves beyond
    the first two."""

    def __init__(self, solves: int = SEARCH_SOLVES) -> None:
        self.start = states_spent()
        self.solves = solves
        self.exact = True

    def left(self) -> int:
        return HELP_BUDGET - (states_spent() - self.start)

    def take(self) -> bool:
        if self.solves <= 0 or self.left() <= 0:
            self.solves = 0
            self.exact = False
            return False
        self.solves -= 1
        return True


def _score(rules, faces: Sequence[Face], mode: Mode) -> int:
    return len(faces) if mode == "count" else rack_value(faces, rules.joker_penalty)


def _solve(g: TurnContext, seat: int, must, *, mode: Mode, jokers_stay: bool, budget: int, **kw):
    table, fixed = _solver_table(g, seat) if "table" not in kw else (kw["table"], kw["fixed"])
    hand = kw.get("hand", g.faces(g.turn.rack))
    spec = g.rules.meld_spec
    if g.rules.joker_meld_no_split and g.opened[seat]:
        groups = [k for k, m in enumerate(table) if k not in fixed and _group_read_as_run(m, spec)]
        if groups:
            return _solve_groups(
                g, seat, must, mode, jokers_stay, budget, table, fixed, hand, groups[0]
            )
    return solve(
        table,
        hand,
        g.rules,
        opened=g.opened[seat],
        mode=mode,
        fixed=fixed,
        must_place=must,
        budget=budget,
        jokers_stay=jokers_stay,
    )


def _group_read_as_run(meld: Sequence[Face], spec) -> bool:
    """A joker meld of one real tile that the engine reads by position as a group (``R12 J
    J``: a run from R12 would pass 13) and the solver, taking the first of its readings, as a
    run (R11 R12 R13): it would lengthen it and never complete it as a group."""
    if sum(1 for f in meld if not f.is_joker) != 1:
        return False
    here = positional_reading(meld, spec)
    if here is None or here.kind != "group":
        return False
    found = readings(meld, spec)
    return bool(found) and found[0].kind != "group"


def _solve_groups(g, seat, must, mode, jokers_stay, budget, table, fixed, hand, k) -> Solution:
    """:func:`_solve` with locked meld ``k`` read as the group the engine reads (see
    :func:`_group_read_as_run`): one solve with it kept exactly as it lies, and one per piece
    of a colour it lacks - from the rack, or from a table meld without a joker - with the
    group completed by it (RULES.md "Preset rummikub": a locked group stays as it is or gains
    a tile; with two jokers it is never freed). The best of them (ties: the meld kept)."""
    spec = g.rules.meld_spec
    meld = list(table[k])
    real = next(f for f in meld if not f.is_joker)
    missing = [Tile(c, real.rank) for c in range(4) if c != real.suit]
    held = {*fixed, k}
    variants: list[tuple[list[list[Face]], set[int], list[Face], list[Face] | None, Face | None]]
    variants = [(table, held, hand, must, None)]
    if len(meld) < spec.max_group:
        rack = Counter(hand)
        for piece in missing:
            grown = [*meld, piece]
            if positional_reading(grown, spec) is None:
                continue
            if rack[piece] and (must is None or piece in must):
                rest_hand = list((rack - Counter([piece])).elements())
                rest_must = (
                    None if must is None else list((Counter(must) - Counter([piece])).elements())
                )
                changed = [list(m) for m in table]
                changed[k] = grown
                variants.append((changed, held, rest_hand, rest_must, piece))
            holder = next(
                (
                    n
                    for n, m in enumerate(table)
                    if n != k and n not in fixed and piece in m and not any(f.is_joker for f in m)
                ),
                None,
            )
            if holder is not None:
                changed = [list(m) for m in table]
                changed[k] = grown
                changed[holder].remove(piece)
                kept = held
                if not changed[holder]:  # a single piece taken: its place goes
                    del changed[holder]
                    kept = {n - (n > holder) for n in held}
                variants.append((changed, kept, hand, must, None))
    best: Solution | None = None
    spent = states_spent()
    for variant_table, variant_fixed, variant_hand, variant_must, piece in variants:
        found = solve(
            variant_table,
            variant_hand,
            g.rules,
            opened=True,
            mode=mode,
            fixed=variant_fixed,
            must_place=variant_must,
            budget=max(1, budget - (states_spent() - spent)),
            jokers_stay=jokers_stay,
        )
        if piece is not None:
            placed = [piece, *found.placed]
            found = Solution(
                len(placed),
                rack_value(placed, g.rules.joker_penalty),
                placed,
                found.table,
                found.changed_melds,
            )
        if best is not None and must is not None and found.count != len(must):
            continue
        if best is None or _score(g.rules, found.placed, mode) > _score(g.rules, best.placed, mode):
            best = found
    assert best is not None
    return best


def _solver_table(g: TurnContext, seat: int) -> tuple[list[list[Face]], set[int]]:
    """The working table as the solver gets it, and its fixed melds (see :func:`_table_for`)."""
    table, kept, _faithful = _table_for(g, seat)
    return table, kept


def _table_for(g: TurnContext, seat: int) -> tuple[list[list[Face]], set[int], bool]:
    """The working table as the solver gets it, its fixed melds, and whether the solver with
    table jokers kept (``jokers_stay``) sees every held joker's meld as the engine holds it.

    Rummikub (``joker_meld_no_split``, :func:`_locked_table`): each start meld holding a held
    joker goes as its pieces that must stay together, the rest of the working table's joker
    melds one by one. Elsewhere a meld holding a held joker and pieces laid beside its start
    meld earlier in the turn goes as the stretch of it from the first to the last piece of
    the start meld (when that is a valid meld; else the start meld's pieces alone, a group)
    and the rest one by one. So does a meld whose jokers were all laid from the rack this
    turn (the player's own pieces, free)."""
    if g.rules.joker_meld_no_split:
        return _locked_table(g, seat)
    held = held_jokers(g)
    spec = g.rules.meld_spec
    fixed = fixed_melds(g, seat)
    at_start = {tuple(m.ids) for m in g.table}
    table: list[list[Face]] = []
    kept: set[int] = set()
    for k, meld in enumerate(g.turn.table):
        homes = {held[i][0] for i in meld.ids if i in held}
        rest: list[int] = []
        if k in fixed:
            kept.add(len(table))
        elif len(homes) == 1:
            start = {i for i in g.table[min(homes)].ids if i not in g.turn.freed}
            at = [n for n, i in enumerate(meld.ids) if i in start]
            window = meld.ids[at[0] : at[-1] + 1] if at else []
            own = [i for i in meld.ids if i in start]  # a group: its start pieces alone
            for part in (window, own):
                if at and len(part) < len(meld.ids) and positional_reading(g.faces(part), spec):
                    table.append(g.faces(part))  # the start meld's stretch (a swap's tile in it)
                    rest = [i for i in meld.ids if i not in part]
                    break
        elif (
            not homes
            and any(g.deck[i].is_joker for i in meld.ids)
            and tuple(meld.ids) not in at_start
        ):
            rest = list(meld.ids)
        if rest:
            table += [[g.deck[i]] for i in rest]
        else:
            table.append(g.faces(meld.ids))
    return table, kept, True


def _locked_table(g: TurnContext, seat: int) -> tuple[list[list[Face]], set[int], bool]:
    """:func:`_table_for` under ``joker_meld_no_split`` (RULES.md "Preset rummikub": the tiles
    of a joker meld stay together). Per start meld holding a held joker, its part: where its
    pieces (the jokers freed from it left out) lie in one working meld, those pieces alone (a
    group: what was laid beside them, a swap's tile too, may leave), else the stretch of that
    meld from their first to their last (a run: a swap's tile in it stays), else that
    stretch with up to two neighbours at each end (``R3 J`` of ``R3 J R5 J`` after a swap: not
    ``faithful``, the neighbours might have gone elsewhere; nor is a stretch holding a swap's
    tile where a free joker could take its place: ``B3 J J B6 B7 | B5 J J``); where the turn's moves spread them over
    several melds, the pieces alone in their start order. A part must be a valid meld holding
    no piece of another part; the pieces of the working melds that give a part, and of the
    joker melds laid this turn, go one by one (free), every other meld as it lies. Not
    ``faithful`` when a start meld has no such part (its pieces then go as they lie: the
    solver's free answer is still a bound, its kept answer is not the best)."""
    held = held_jokers(g)
    fixed = fixed_melds(g, seat)
    turn_table = g.turn.table
    where = {i: k for k, m in enumerate(turn_table) for i in m.ids}
    home_pieces = {
        index: [i for i in g.table[index].ids if i not in g.turn.freed]
        for index in sorted({index for index, _meaning in held.values()})
    }
    owner = {i: index for index, pieces in home_pieces.items() for i in pieces}
    parts: dict[int, list[int]] = {}  # working meld -> the parts laid from it, in order
    spare = any(g.deck[i].is_joker for i in g.turn.rack) or any(
        g.deck[i].is_joker and i not in held for m in turn_table for i in m.ids
    )  # a joker no rule holds where it lies
    taken: set[int] = set()
    faithful = True
    for index, pieces in home_pieces.items():
        inside = set(pieces)
        melds = {where[i] for i in pieces if i in where}
        if len(melds) == 1 and not melds & fixed:
            (k,) = melds
            ids = turn_table[k].ids
            at = [n for n, i in enumerate(ids) if i in inside]
            options = [[i for i in ids if i in inside], ids[at[0] : at[-1] + 1]]
            grown = sorted(
                ((a, b) for a in range(3) for b in range(3) if a + b),
                key=lambda ab: (sum(ab), ab[1]),
            )  # too short alone (R3 J after a swap of J J's R5): with its neighbours
            options += [ids[max(0, at[0] - a) : at[-1] + 1 + b] for a, b in grown]
        else:
            k = min(melds) if melds else -1
            options = [pieces] if melds and not melds & fixed else []
        for n, part in enumerate(options):
            if taken & set(part) or any(owner.get(i, index) != index for i in part):
                continue
            if not _keeps_meanings(g, part, held):
                continue
            parts.setdefault(k, []).append(part)
            taken |= set(part)
            faithful = faithful and n < 2  # a neighbour kept with it: the best may differ
            if n and set(part) - inside and spare:
                faithful = False  # a joker might take a swap's tile's place, the tile go
            break
        else:
            faithful = False
    at_start = {tuple(m.ids) for m in g.table}
    table: list[list[Face]] = []
    kept: set[int] = set()
    for k, meld in enumerate(turn_table):
        if k in fixed:
            kept.add(len(table))
            table.append(g.faces(meld.ids))
            continue
        table += [g.faces(part) for part in parts.get(k, [])]
        if any(i in taken for i in meld.ids):
            table += [[g.deck[i]] for i in meld.ids if i not in taken]
        elif any(g.deck[i].is_joker for i in meld.ids) and (
            tuple(meld.ids) not in at_start or not any(i in held for i in meld.ids)
        ):
            if any(i in held for i in meld.ids):
                table.append(g.faces(meld.ids))  # a start meld without its part (not faithful)
            else:
                table += [[g.deck[i]] for i in meld.ids]  # jokers laid this turn: free
        else:
            table.append(g.faces(meld.ids))
    return table, kept, faithful


def _kept_solve(g: TurnContext, seat: int, must, mode: Mode, spend, **kw) -> Solution | None:
    """One solve with the table jokers kept in their melds, charged to ``spend`` (None when its
    solves are spent); ``kw``: the ``table``, ``hand`` and ``fixed`` melds to solve instead."""
    if not spend.take():
        return None
    return _solve(g, seat, must, mode=mode, jokers_stay=True, budget=spend.left(), **kw)


def accepts(
    g: TurnContext,
    seat: int,
    table: Sequence[Sequence[Face]],
    placed: Sequence[Face],
    whole_turn: bool = True,
) -> RummyError | None:
    """Would the engine end the turn with this table (the working table's pieces plus
    ``placed`` from the rack)? The error that refuses it, or None. Without ``whole_turn``:
    would ``place`` lay it (the turn may go on: a freed joker still in the rack)."""
    from .ending import check_turn
    from .help import adopt_solution
    from .turn import from_rack

    probe = g.copy()
    try:
        ids = from_rack(probe, placed, prefer=probe.turn.freed)
        adopt_solution(probe, [list(m) for m in table], ids, retry=True)
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
    mode: Mode = "count",
    whole_turn: bool = True,
) -> LegalPlay:
    """The play of the most rack pieces (or value; exactly ``must_place`` when given) that the
    engine accepts, from the working table as it is (see the module docstring). Raises
    ``SolverBudgetExceeded`` when even the free answer is beyond the help budget."""
    must = list(must_place) if must_place is not None else None
    known = _remembered(g, seat, must, mode, whole_turn)
    if known is not None:
        return known
    found = _legal_play(g, seat, must, mode, whole_turn)
    if not whole_turn and (found.solution is None or not _ends_turn(g, seat, found)):
        # a play after which the turn can end, when one places as much (a hint's ``place``;
        # the search for it may also find one where the search without it found none)
        whole = _legal_play(g, seat, must, mode, True)
        if whole.solution is not None and (found.solution is None or whole.score >= found.score):
            found = whole
    _remember(g, seat, must, mode, whole_turn, found)
    return found


def _ends_turn(g: TurnContext, seat: int, play: LegalPlay) -> bool:
    """Could the turn end right after ``play``?"""
    state = g.tried(seat, "; ".join(play.before)) if play.before else g  # type: ignore[attr-defined]
    solution = play.solution
    return (
        state is not None
        and solution is not None
        and accepts(state, seat, solution.table, solution.placed) is None
    )


_RECENT: OrderedDict[tuple, LegalPlay] = OrderedDict()
_RECENT_SIZE = 16
_recent_lock = threading.Lock()


def _state_key(g: TurnContext, seat: int, mode: Mode) -> tuple:
    """Everything a play of this turn depends on: the start and working tables (faces, ids,
    claims), the rack, what was played, freed or taken, the opening."""
    t = g.turn
    return (
        g.rules,
        tuple(format_faces(g.faces(m.ids)) for m in g.table),
        tuple(format_faces(m) for m in g.table_faces(working=True)),
        format_faces(g.faces(t.rack)),
        seat,
        mode,
        g.opened[seat],
        tuple(tuple(m.ids) for m in g.table),
        tuple((tuple(m.ids), m.claim) for m in t.table),
        tuple(t.rack),
        tuple(t.played),
        tuple(t.freed),
        tuple(t.taken),
    )


def _remembered(g, seat, must, mode, whole_turn) -> LegalPlay | None:
    """The answer to this very question on this very state, asked before (a hint checks the
    command it offers twice); the key holds everything the search depends on, so the answer
    is the one a fresh search gives (a replayed ``place`` lays the same table)."""
    key = (_state_key(g, seat, mode), None if must is None else tuple(must), whole_turn)
    with _recent_lock:
        found = _RECENT.get(key)
        if found is not None:
            _RECENT.move_to_end(key)
        return found


def _remember(g, seat, must, mode, whole_turn, found: LegalPlay) -> None:
    key = (_state_key(g, seat, mode), None if must is None else tuple(must), whole_turn)
    with _recent_lock:
        _RECENT[key] = found
        while len(_RECENT) > _RECENT_SIZE:
            _RECENT.popitem(last=False)


def _legal_play(g, seat, must, mode, whole_turn) -> LegalPlay:
    rules = g.rules
    spend = _Spend(SEARCH_SOLVES if must is None else PLACE_SOLVES)
    worth = _score(rules, g.faces(g.turn.rack), mode)
    first = _State(g, seat, must, mode, whole_turn, spend, (), 0)
    first.quick()
    best = LegalPlay(first.best, True, first.refused, (), first.best_score)
    bound = first.bound
    pre = list(_pre_moves(g, seat, must)) if g.opened[seat] else []
    if any(len(before) > 1 and may_move_first(state, seat) for before, state, _ in pre):
        spend.exact = False  # a third move is not generated
    # (Stein in value mode: a joker freed to the hand may be worth less than the tile)
    bounded = not rules.joker_freed_to_hand or mode == "value"
    for _text, state, state_must in pre if bounded else ():
        try:  # each move's own bound (see the module docstring)
            free = _solve(
                state, seat, state_must, mode=mode, jokers_stay=False, budget=spend.left()
            )
        except SolverBudgetExceeded:
            spend.exact = False
            continue
        offset = worth - _score(rules, state.faces(state.turn.rack), mode)
        bound = max(bound, offset + _score(rules, free.placed, mode))
    if best.score >= bound:
        return replace(best, bound=bound)
    states = [first]
    for text, state, state_must in pre:
        offset = worth - _score(rules, state.faces(state.turn.rack), mode)
        states.append(_State(state, seat, state_must, mode, whole_turn, spend, text, offset))

    def better(st: _State) -> None:
        nonlocal best
        if st.best is not None and st.offset + st.best_score > best.score:
            best = LegalPlay(st.best, True, st.refused, st.before, st.offset + st.best_score)

    # the cheap answers of every state first (a swap often makes the free answer legal),
    # then the fates of the tied jokers, state by state
    for st in states[1:]:
        if best.score >= bound or not spend.take():
            break
        try:
            st.quick()
        except SolverBudgetExceeded:
            spend.exact = False
            continue
        better(st)
    # the fates, one solve per state in turn (a state whose bound cannot beat the best found
    # is left out), the states that may reach the most first (a state's moves and its own
    # bound: a ``place`` whose pieces need two swaps first, among states that keep a joker)
    runs = [(st, st.fates()) for st in states if st.free is not None]
    while runs and best.score < bound and spend.solves > 0:
        top = max(st.offset + st.bound for st, _run in runs)
        for st, run in list(runs):
            if st.offset + st.bound < top:
                continue
            if st.offset + st.bound <= best.score or next(run, None) is None:
                runs.remove((st, run))
                continue
            better(st)
            if best.score >= bound:
                break
    if runs and best.score < bound:
        spend.exact = False  # fates left untried
    if best.score < bound and any(_two_kinds(st.g, seat) for st in states):
        spend.exact = False  # the solver may read a locked joker meld as the other kind
    if best.score < bound and not all(_table_for(st.g, seat)[2] for st in states):
        spend.exact = False  # a start meld's pieces the solver cannot be given kept together
    exact = best.score >= bound or spend.exact
    return replace(best, exact=exact, bound=bound)


class _State:
    """One state of the search (the working table, or after the moves ``before`` that took
    ``offset`` from the rack): its free answer (the bound here) and its best accepted play."""

    def __init__(
        self, g, seat, must, mode, whole_turn, spend, before: tuple[str, ...], offset: int
    ) -> None:
        self.g, self.seat, self.must, self.mode = g, seat, must, mode
        self.whole_turn, self.spend, self.before, self.offset = whole_turn, spend, before, offset
        self.free: Solution | None = None
        self.bound = 0
        self.best: Solution | None = None
        self.best_score = 0
        self.refused = False

    def _ok(self, found: Solution) -> bool:
        must = self.must
        return bool(found.count) and (must is None or found.count == len(must))

    def refuses(self, table, placed) -> RummyError | None:
        return accepts(self.g, self.seat, table, placed, self.whole_turn)

    def quick(self) -> None:
        """The free answer, and when the engine refuses it the one with joker melds kept."""
        g, seat, must, mode = self.g, self.seat, self.must, self.mode
        free = _solve(g, seat, must, mode=mode, jokers_stay=False, budget=self.spend.left())
        if not self._ok(free):
            table = g.table_faces(working=True)
            if self.before and not must and not self.refuses(table, []):
                # the move alone is the play (a rack joker completing a locked group; a Stein
                # swap, the joker kept in the hand)
                self.best = Solution(0, 0, [], table, 0)
            return
        self.free, self.bound = free, _score(g.rules, free.placed, mode)
        homes, locked = _homes(g) if self.whole_turn else [], _locked(g)
        if (
            _plausible(homes, free.table, locked)
            and accepts(g, seat, free.table, free.placed, self.whole_turn) is None
        ):
            self.best, self.best_score = free, self.bound
            return
        self.refused = True
        claimed = [Counter(g.faces(g.turn.table[k].ids)) for k in fixed_melds(g, seat)]
        tables = _exchanges(free.table, g.rules.meld_spec, claimed) if _homes(g) else []
        plausible = [t for t in tables if _plausible(homes, t, locked)][:EXCHANGE_CHECKS]
        for table in plausible:
            if accepts(g, seat, table, free.placed, self.whole_turn) is None:
                self.best, self.best_score = replace(free, table=table), self.bound
                return
        try:
            kept = _solve(g, seat, must, mode=mode, jokers_stay=True, budget=self.spend.left())
        except SolverBudgetExceeded:
            self.spend.exact = False
            return
        if self._ok(kept) and accepts(g, seat, kept.table, kept.placed, self.whole_turn) is None:
            self.best, self.best_score = kept, _score(g.rules, kept.placed, mode)

    def fates(self) -> Iterator[bool]:
        """Search the fates of the tied jokers, one solve per step, until the bound is
        reached or the budget ends."""
        g, seat, spend = self.g, self.seat, self.spend
        if self.free is None or self.best_score >= self.bound or not g.opened[seat]:
            return
        table, fixed, frozen, loose = _fate_table(g, seat)
        fates = _tied_fates(g, seat, self.free, table, fixed | frozen)
        if not fates:
            return
        tied = Counter(f.joined for options in fates for f in options)
        if len(fates) > 2 or (len(fates) == 2 and not tied[True]):
            spend.exact = False  # three tied jokers in one meld are not generated
        elif len(fates) == 2 and _spare_jokers(g) > 0:
            spend.exact = False  # nor two tied jokers and a rack joker in one meld
        hand = g.faces(g.turn.rack)
        spec = g.rules.meld_spec
        combos = _combos(fates, table, hand, fixed, self.free.placed, spec, spend, frozen)
        for combo in combos:
            if self.best_score >= self.bound or spend.solves <= 0:
                return
            try:
                found = _with_fates(
                    g, seat, combo, table, hand, self.must, fixed, self.mode, spend, frozen, loose
                )
            except SolverBudgetExceeded:
                spend.exact = False
                found = None
            score = _score(g.rules, found.placed, self.mode) if found is not None else 0
            if found is not None and score > self.best_score:
                if accepts(g, seat, found.table, found.placed, self.whole_turn) is None:
                    self.best, self.best_score = found, score
                else:  # laid to keep the joker rules, and refused: the search cannot tell
                    spend.exact = False  # (the pieces' ids, a reading) that nothing beats it
            yield True


def _fate_table(g: TurnContext, seat: int):
    """The table the fates are laid on: its melds, the fixed ones, the ``frozen`` ones no fate
    takes a piece from, and the ``loose`` ones the solver gets piece by piece. Rummikub: the
    solver's table (:func:`_locked_table`: each held joker's start meld as its part, frozen;
    the pieces laid beside it and the joker melds laid this turn one by one). Elsewhere the
    working table (a held joker's fate ``keep`` names its meld there), a meld whose jokers
    were all laid this turn (from the hand, or by ``take``) loose: the player's own pieces."""
    if g.rules.joker_meld_no_split:
        table, fixed = _solver_table(g, seat)
        frozen = {
            k
            for k, m in enumerate(table)
            if k not in fixed and len(m) > 1 and any(f.is_joker for f in m)
        }
        return table, fixed, frozen, set()
    held = held_jokers(g)
    at_start = {tuple(m.ids) for m in g.table}
    fixed = fixed_melds(g, seat)
    loose = {
        k
        for k, m in enumerate(g.turn.table)
        if k not in fixed
        and tuple(m.ids) not in at_start
        and any(g.deck[i].is_joker for i in m.ids)
        and not any(i in held for i in m.ids)
    }
    return g.table_faces(working=True), fixed, set(), loose


def _keeps_meanings(g: TurnContext, part: list[int], held) -> bool:
    """Is ``part`` a valid meld as it lies in which each held joker means what it meant at the
    start of the turn (a run's joker the same tile, a group's joker a joker of its value)?"""
    found = positional_reading(g.faces(part), g.rules.meld_spec)
    if found is None:
        return False
    for n, i in enumerate(part):
        meaning = held[i][1] if i in held else None
        if meaning is None:
            continue
        kind, what = meaning
        if found.kind != kind:
            return False
        if kind == "run" and found.stands_for[n] != what:
            return False
        if kind == "group" and found.stands_for[n].rank != what:
            return False
    return True


def _two_kinds(g: TurnContext, seat: int) -> bool:
    """Rummikub: does the solver read a locked joker meld of its table otherwise than the
    engine does by position, in a way :func:`_solve` does not mend (it mends one group the
    solver reads as a run, ``R12 J J``: :func:`_group_read_as_run`)? The search is then not
    exact: the solver may lengthen the meld as the other kind and miss what the engine's
    reading takes."""
    if not g.rules.joker_meld_no_split:
        return False
    table, fixed = _solver_table(g, seat)
    spec = g.rules.meld_spec
    groups = 0
    for k, meld in enumerate(table):
        if k in fixed or not any(f.is_joker for f in meld):
            continue
        here = positional_reading(meld, spec)
        if here is None:
            continue
        if _group_read_as_run(meld, spec):
            groups += 1
            continue
        first = readings(meld, spec)[0]
        if first.kind != here.kind or (here.kind == "run" and first.stands_for != here.stands_for):
            return True
    return groups > 1


def _spare_jokers(g: TurnContext) -> int:
    """Rack jokers that no rule ties (Rummikub: the jokers freed this turn are tied)."""
    freed = set(g.turn.freed)
    return sum(1 for i in g.turn.rack if g.deck[i].is_joker and i not in freed)


def _homes(g: TurnContext) -> list[tuple[set[Face], bool]]:
    """Per table joker a rule holds in its meld (not where freed jokers may not go to the
    rack: Rummikub's lie in locked melds), the real faces of its start meld, and whether it
    must stay a group's joker (RULES.md: a group joker is freed only by the missing tile)."""
    if not g.rules.joker_freed_to_hand:
        return []
    return [
        (
            {f for f in g.faces(g.table[index].ids) if not f.is_joker},
            bool(meaning and meaning[0] == "group"),
        )
        for index, meaning in held_jokers(g).values()
    ]


def _locked(g: TurnContext) -> list[Counter]:
    """Rummikub ``joker_meld_no_split``: per start meld holding a held joker, the faces of its
    pieces that must stay together (all but the jokers freed from it)."""
    if not g.rules.joker_meld_no_split:
        return []
    indices = sorted({index for index, _meaning in held_jokers(g).values()})
    return [
        Counter(g.deck[i] for i in g.table[index].ids if i not in g.turn.freed) for index in indices
    ]


def _plausible(
    homes: list[tuple[set[Face], bool]],
    table: Sequence[Sequence[Face]],
    locked: Sequence[Counter] = (),
) -> bool:
    """Could the jokers of ``table`` be told apart so that each held one lies beside a face of
    its start meld (a group's joker among pieces of one value), and does a meld hold each
    locked meld's faces (joker rules :func:`accepts` checks, on faces alone)? A table that
    cannot is refused without asking the engine."""
    melds = [Counter(m) for m in table]
    if any(all(need - m for m in melds) for need in locked):
        return False
    slots = [
        (set(m), len({f.rank for f in m if not f.is_joker}) == 1)
        for m in table
        for f in m
        if f.is_joker
    ]
    if len(homes) > len(slots):
        return False
    return any(
        all(
            home & slots[k][0] and (slots[k][1] or not group)
            for (home, group), k in zip(homes, chosen, strict=True)
        )
        for chosen in itertools.permutations(range(len(slots)), len(homes))
    )


def _exchanges(
    table: list[list[Face]], spec, claimed: Sequence[Counter] = (), depth: int = 2
) -> list[list[list[Face]]]:
    """The table with a joker and a real piece it stands for changing places (the joker
    where the piece lay, the piece where the joker lay; both melds valid as they lie; a joker
    beside pieces of one value may stand for a missing colour even where its meld reads as a
    run), or
    with a joker at the end of a meld moved to an end of another, and with two such changes: the same pieces on the table, so a table the free answer lays
    with a misplaced joker may become one the engine accepts (a joker moved back beside the
    tiles of its start meld) without a solve. At most :data:`EXCHANGES`."""
    out: list[list[list[Face]]] = []
    joker = Tile.joker()
    frozen = {k for k, m in enumerate(table) if Counter(m) in claimed}  # claims stay as laid

    def exchanged(
        melds: list[list[Face]], left: int, a: int, here: list[Face], b: int, there: list[Face]
    ) -> None:
        """Keep the table with melds ``a`` and ``b`` changed, and walk on from it."""
        changed = [list(m) for m in melds]
        changed[a], changed[b] = here, there
        out.append(changed)
        if left > 1:
            walk(changed, left - 1)

    def walk(melds: list[list[Face]], left: int) -> None:
        for a, meld in enumerate(melds):
            if len(out) >= EXCHANGES:
                return
            if a in frozen:
                continue
            found = positional_reading(meld, spec) if joker in meld else None
            if found is None:
                continue
            for k, face in enumerate(meld):
                if not face.is_joker:
                    continue
                meant = [] if found.kind == "group" else [found.stands_for[k]]
                reals = [f for f in meld if not f.is_joker]
                if len({f.rank for f in reals}) == 1 and len(meld) <= 4:
                    # read as a group too (``R5 J J``: a joker may stand for Y5)
                    present = {f.suit for f in reals}
                    meant += [Tile(c, reals[0].rank) for c in range(4) if c not in present]
                for b, other in enumerate(melds):
                    if b == a or b in frozen:
                        continue
                    for i, piece in enumerate(other):
                        if piece not in meant or len(out) >= EXCHANGES:
                            continue
                        here = [*meld[:k], piece, *meld[k + 1 :]]
                        there = [*other[:i], joker, *other[i + 1 :]]
                        if positional_reading(here, spec) is None:
                            continue
                        if positional_reading(there, spec) is None:
                            continue
                        exchanged(melds, left, a, here, b, there)
                if k not in (0, len(meld) - 1):
                    continue
                rest = [*meld[:k], *meld[k + 1 :]]
                if positional_reading(rest, spec) is None:
                    continue
                for b, other in enumerate(melds):  # a joker at an end moved to another meld
                    if b == a or b in frozen or len(out) >= EXCHANGES:
                        continue
                    for there in ([*other, joker], [joker, *other]):
                        if positional_reading(there, spec) is None:
                            continue
                        exchanged(melds, left, a, rest, b, there)
                        break

    walk([list(m) for m in table], depth)
    return out


# ------------------------------------------------------------------------------- moves first


def may_move_first(g: TurnContext, seat: int) -> bool:
    """Could a move before the play place more than the solver's bound (Rummikub: a table joker
    whose meaning the rack holds, or a locked group of three with a joker and a joker in the
    rack; Stein's free jokers make every swap one more arrangement)? Cheap: no move is tried."""
    if not g.opened[seat] or g.rules.joker_freed_to_hand:
        return False
    spec = g.rules.meld_spec
    rack = set(g.faces(g.turn.rack))
    for meld in g.turn.table:
        faces = g.faces(meld.ids)
        if not any(f.is_joker for f in faces) or meld.claim not in (None, seat):
            continue
        if rack & set(joker_meanings(faces, spec)):
            return True
        if g.rules.joker_meld_no_split and len(faces) == 3 and Tile.joker() in rack:
            return True
    return False


def _pre_moves(g: TurnContext, seat: int, must: list[Face] | None):
    """(commands, state after them, the pieces to place then) for each move the engine accepts
    before the play - a ``swap``, and in Rummikub a rack joker completing a locked joker group -
    and for each second such move after it (two swaps: RULES.md lets a player free every
    joker whose tiles they hold; a third is not generated, and :func:`legal_play` then says
    its answer is not exact). With ``must``: only moves made of named pieces, and a freed
    joker is then placed too (Stein: also kept in the hand)."""
    seen: set[tuple] = set()
    for text, state, state_must in _one_moves(g, seat, must):
        key = (
            frozenset([text]),
            None if state_must is None else tuple(sorted(state_must, key=str)),
        )
        if key not in seen:
            seen.add(key)
            yield (text,), state, state_must
        for second, after, after_must in _one_moves(state, seat, state_must):
            rest = None if after_must is None else tuple(sorted(after_must, key=str))
            key = (frozenset([text, second]), rest)
            if key not in seen:
                seen.add(key)
                yield (text, second), after, after_must


def _one_moves(g: TurnContext, seat: int, must: list[Face] | None):
    """The single moves of :func:`_pre_moves`."""
    spec = g.rules.meld_spec
    rack_faces = g.faces(g.turn.rack)
    allowed = Counter(rack_faces if must is None else must)
    real = sorted({f for f in allowed if not f.is_joker}, key=str)
    locked = g.rules.joker_meld_no_split
    for number, meld in enumerate(g.turn.table, 1):
        if meld.claim is not None and meld.claim != seat:
            continue
        faces = g.faces(meld.ids)
        jokers = sum(1 for f in faces if f.is_joker)
        found = readings(faces, spec)
        if not jokers or not found:
            continue
        fits = [f for f in real if f in joker_meanings(faces, spec)]
        commands = [(f"swap {number} {f}", (f,)) for f in fits]
        commands += [(f"swap {number} {a} {b}", (a, b)) for a, b in itertools.combinations(fits, 2)]
        is_group = found[0].kind == "group"
        if locked and is_group and len(faces) == 3 and allowed[Tile.joker()]:
            commands.append((f"add {number} J", (Tile.joker(),)))
        for text, used in commands:
            state = g.tried(seat, text)  # type: ignore[attr-defined]
            if state is None:
                continue
            gained = Counter(state.faces(state.turn.rack)) - (Counter(rack_faces) - Counter(used))
            if must is None:
                yield text, state, None
                continue
            rest = list((Counter(must) - Counter(used)).elements())
            yield text, state, [*rest, *gained.elements()]
            if g.rules.joker_freed_to_hand and gained:
                yield text, state, rest


# ------------------------------------------------------------------------------- fates


@dataclass(frozen=True, slots=True)
class _Fate:
    """A tied joker's end: ``meld`` (faces, its joker included), the table faces it takes,
    the rack faces it takes (the joker too when it is in the rack), or ``keep``: the joker's
    working meld stays exactly as it is (``index``)."""

    meld: tuple[Face, ...]
    table: tuple[Face, ...]
    rack: tuple[Face, ...]
    keep: int = -1
    home: int = -1  # a moved held joker: the meld it lies in (its joker is taken from there)
    hinted: bool = False  # the free answer lays this meld
    partner: int = -1  # a meld of two tied jokers: the other one's index (its fate: joined)
    joined: bool = False  # this joker lies in the meld of tied joker ``partner``


def _tied_fates(
    g: TurnContext, seat: int, free: Solution, table_faces, frozen: set[int]
) -> list[list[_Fate]]:
    """Per joker a rule ties (see the module docstring), the fates it may have, on the table
    of :func:`_fate_table` (``frozen``: its fixed and frozen melds, whose pieces no fate takes)."""
    rules = g.rules
    spec = rules.meld_spec
    where = {i: k for k, m in enumerate(g.turn.table) for i in m.ids}
    fixed = fixed_melds(g, seat)
    out: list[list[_Fate]] = []
    locked = set(frozen)
    free_table = Counter(f for k, m in enumerate(table_faces) if k not in locked for f in m)
    rack = Counter(g.faces(g.turn.rack))
    hinted = [Counter(m) for m in free.table if any(f.is_joker for f in m)]

    hinted_sets = [set(m) for m in hinted]
    pairing: list[tuple] = []  # per joker of ``out``: what pairs it with another

    def mark(fate: _Fate) -> _Fate:
        faces = set(fate.meld)
        if not any(faces <= m for m in hinted_sets):
            return fate
        meld = Counter(fate.meld)
        return replace(fate, hinted=any(not meld - m for m in hinted))

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
            spare = rack[Tile.joker()]
            for meld in _melds_with_joker(pool, rack, spec, strict, set(home), spare):
                joker_face = (Tile.joker(),)
                rack_jokers = (Tile.joker(),) * (sum(1 for f in meld if f.is_joker) - 1)
                options.append(mark(_Fate(tuple(meld), joker_face, rack_jokers, home=k)))
            out.append(options)
            pairing.append(("held", set(home), strict, pool))
    if not rules.joker_freed_to_hand:
        freed = [j for j in g.turn.freed if j in g.turn.rack]
        on_table = {i for m in g.turn.table for i in m.ids}
        played = Counter(
            g.deck[i] for i in g.turn.played if i in on_table and not g.deck[i].is_joker
        )
        for _joker in freed:
            options = []
            need = set(rack) | set(played)
            spare = rack[Tile.joker()] - 1  # the freed joker itself is in the rack
            melds = _melds_with_joker(free_table, rack, spec, None, need, spare)
            if spare > 0:  # two jokers beside one tile, the second standing for a piece
                joker = Tile.joker()  # that is there too (B1 J J beside B2 B3 B4)
                have = {f for f in need if not f.is_joker and (rack[f] or free_table[f])}
                for face in sorted(have, key=str):
                    for meld in ((face, joker, joker), (joker, face, joker), (joker, joker, face)):
                        if positional_reading(meld, spec) is not None and meld not in melds:
                            melds.append(meld)
            for meld in melds:
                options += [mark(f) for f in _rack_sources(meld, rack, played)]
            out.append(options)
            pairing.append(("freed",))
    _pair(out, pairing, rack, spec, mark)
    return out


def _pair(out: list[list[_Fate]], pairing: list[tuple], rack: Counter, spec, mark) -> None:
    """Two tied jokers in one meld: for each pair, fates of the first whose meld holds both
    (``partner``: the second's fate is then ``joined``). Held jokers (Stein): the melds of
    :func:`_pair_melds`; jokers freed this turn (Rummikub): the fates of the first with two
    jokers from the rack (:func:`_rack_sources`), the second being the other one."""
    joker = Tile.joker()
    for i, j in itertools.combinations(range(len(out)), 2):
        if pairing[i][0] != pairing[j][0]:
            continue
        if pairing[i][0] == "freed":
            joint = [
                replace(f, partner=j)
                for f in out[i]
                if f.keep < 0 and sum(1 for x in f.meld if x.is_joker) == 2
            ]
        else:
            _, home_i, strict_i, pool = pairing[i]
            _, home_j, strict_j, _ = pairing[j]
            pool = pool.copy()
            pool[joker] -= 1  # the second joker is in the meld too
            joint = [
                mark(_Fate(meld, (joker, joker), (), partner=j))
                for meld in _pair_melds(pool, rack, spec, (home_i, home_j), (strict_i, strict_j))
            ]
        if joint:
            out[i] += joint
            out[j].append(_Fate((), (), (), partner=i, joined=True))


def _pair_melds(pool: Counter, rack: Counter, spec, homes, stricts) -> list[tuple[Face, ...]]:
    """The cores of a final meld holding two tied jokers (and no other joker), each beside a
    real piece of its start meld (``homes``), a group joker's meaning kept (``stricts``): a
    group of their value with a piece of each home, or the run spanning both jokers and the
    nearest piece of each home (three pieces at least; where runs wrap, lengthened by up to
    :data:`FATE_GROW` at each end, as :func:`_melds_with_joker` says why). The solve keeps
    the core whole and lengthens or completes it."""
    joker = Tile.joker()
    have = Counter({f: n for f, n in (pool + rack).items() if n > 0 and not f.is_joker})
    found: dict[tuple[Face, ...], None] = {}
    groups = {s[1] for s in stricts if s is not None and s[0] == "group"}
    if len(groups) > 1:
        return []
    home_i, home_j = homes
    for value in range(1, 14):
        if groups and value not in groups:
            continue
        faces = [Tile(c, value) for c in range(4) if have[Tile(c, value)]]
        for size in (1, 2):
            for reals in itertools.combinations(faces, size):
                if home_i.isdisjoint(reals) or home_j.isdisjoint(reals):
                    continue
                meld = (*reals, joker, joker)
                reading = positional_reading(meld, spec)
                if reading is not None and reading.kind == "group":
                    found.setdefault(meld, None)
    if groups:
        return list(found)
    wrap = spec.run_mode == "wrap"
    grow = FATE_GROW if wrap else 0
    longest = spec.max_run
    for piece in sorted(home_i & set(have), key=str):
        colour, base = piece.suit, piece.rank

        def face(o: int, colour: int = colour, base: int = base) -> Face:
            return Tile(colour, (base - 1 + o) % 13 + 1)

        for lo in range(0, -longest, -1):
            if not wrap and base + lo < 1:
                break
            for hi in range(max(lo + 2, 0), lo + min(longest, 13)):
                if not wrap and base + hi > 13:
                    break
                span = range(lo, hi + 1)
                missing = [o for o in span if not have[face(o)]]
                if len(missing) > 2:
                    break
                for a, b in itertools.combinations(span, 2):
                    if any(o not in (a, b) for o in missing) or 0 in (a, b):
                        continue
                    reals = [o for o in span if o not in (a, b)]
                    near_j = [o for o in reals if face(o) in home_j]
                    if not near_j:
                        continue
                    ends = {a, b, 0, *near_j}
                    if lo not in ends or hi not in ends:
                        continue  # not a core: an end piece is no joker and no home piece
                    for left, right in itertools.product(range(grow + 1), repeat=2):
                        first, last = lo - left, hi + right
                        if last - first + 1 > min(longest, 13):
                            continue
                        if any(
                            not have[face(o)] for o in (*range(first, lo), *range(hi + 1, last + 1))
                        ):
                            continue
                        meld = tuple(
                            joker if o in (a, b) else face(o) for o in range(first, last + 1)
                        )
                        reading = positional_reading(meld, spec)
                        if reading is not None and reading.kind == "run":
                            found.setdefault(meld, None)
    return list(found)


def _melds_with_joker(
    pool: Counter, rack: Counter, spec, strict, need: set[Face], spare: int
) -> list[tuple[Face, ...]]:
    """The melds a tied joker's fate may be: valid melds of the joker and real pieces
    available in ``pool`` or ``rack`` (``spare`` rack jokers: one may stand in for one of
    them, in a run only inside the core), holding a piece of ``need``. Each is a **core** - a group of three, or the run from
    the joker to that piece (one more piece at either end when they lie side by side) - and
    where runs wrap (Stein) the core lengthened by up to :data:`FATE_GROW` pieces at each end;
    ``strict``: the joker's meaning must stay this one.

    Complete for every final meld of the joker (RULES.md "Common ground": a meld is a group
    or a run, a joker's meaning is fixed by where it sits), for one tied joker per meld: the
    final meld holds the joker and a piece of ``need``, so the core between them (the nearest
    such piece). The solve after the fates are laid keeps each fate whole and completes a
    group (``jokers_stay``); where runs do not wrap it also lengthens a run at both ends, with
    rack or table pieces, however long it becomes. Where they wrap the solver keeps a joker
    run as laid, and a final run that reaches three or more pieces beyond the core at one end
    is no better than the core plus the rest up to two pieces there, with those three or more
    laid as a run of their own (valid: at most one joker among at least two real pieces; the
    same pieces leave the rack)."""
    joker = Tile.joker()
    have = Counter({f: n for f, n in (pool + rack).items() if n > 0 and not f.is_joker})
    wrap = spec.run_mode == "wrap"
    found: dict[tuple[Face, ...], None] = {}

    def lay(meld: list[Face], kind: str) -> None:
        reading = positional_reading(meld, spec)
        if reading is not None and reading.kind == kind:
            found.setdefault(tuple(meld), None)

    for value in range(1, 14):
        if strict is not None and strict != ("group", value):
            continue
        faces = [Tile(c, value) for c in range(4) if have[Tile(c, value)]]
        for a, b in itertools.combinations(faces, 2):
            if not need.isdisjoint((a, b)):
                lay([a, b, joker], "group")
        for a in faces if spare > 0 else ():
            if a in need:
                lay([a, joker, joker], "group")
    if strict is not None and strict[0] == "group":
        return list(found)
    longest = spec.max_run
    grow = FATE_GROW if wrap else 0
    extra = min(1, spare)
    for piece in sorted(need & set(have), key=str):
        colour, base = piece.suit, piece.rank
        face_at = {o: Tile(colour, (base - 1 + o) % 13 + 1) for o in range(-26, 27)}
        count = {o: have[face] for o, face in face_at.items()}
        places = []  # the joker's places, from the piece, while the pieces between exist
        for step in (1, -1):
            gaps = 0
            for at in range(step, step * longest, step):
                gaps += at != step and not count[at - step]
                if gaps > extra:
                    break
                places.append(at)
        for at in places:
            low, high = min(0, at), max(0, at)
            spans = [(low, high)] if high - low >= 2 else [(low - 1, high), (low, high + 1)]
            for (first, last), left, right in itertools.product(
                spans, range(grow + 1), range(grow + 1)
            ):
                start, end = first - left, last + right
                if end - start + 1 > longest:
                    continue
                if not wrap and (base + start < 1 or base + end > 13):
                    continue
                offsets = [o for o in range(start, end + 1) if o != at]
                if end - start + 1 <= 13:
                    short = [o for o in offsets if not count[o]]
                else:  # twice round: a face may be needed twice
                    uses = Counter((o - start) % 13 for o in offsets)
                    short = [o for o in offsets if uses[(o - start) % 13] > count[o]]
                if len(short) > (extra if not left and not right else 0):
                    continue  # a rack joker stands in only inside the core
                if strict is not None and strict != ("run", face_at[at]):
                    continue
                meld = [
                    joker if o == at or o in short else face_at[o] for o in range(start, end + 1)
                ]
                if short:
                    lay(meld, "run")  # two jokers: read as the engine reads them
                else:
                    found.setdefault(tuple(meld), None)
    return list(found)


def _rack_sources(meld, rack: Counter, played: Counter) -> list[_Fate]:
    """The fates of a freed (rack) joker in ``meld``: each with at least one rack tile - one
    from the rack, or one played from it this turn and lying on the table - the others sourced
    when the fates are combined (a second joker in the meld is a rack joker)."""
    out = []
    reals = [f for f in meld if not f.is_joker]
    jokers = (Tile.joker(),) * sum(1 for f in meld if f.is_joker)
    for chosen in sorted(set(reals), key=str):
        if rack[chosen]:
            out.append(_Fate(tuple(meld), (), (*jokers, chosen)))
        if played[chosen]:
            out.append(_Fate(tuple(meld), (chosen,), jokers))
    return out


def _laid(combo, table, fixed, frozen=()):
    """The table after the moved fates take their table pieces (from melds outside ``fixed``
    and the kept ones), the new melds, and the rack pieces they take; None when a piece is
    missing."""
    melds = [list(m) for m in table]
    keep = {f.keep for f in combo if f.keep >= 0}
    removable = [
        k for k in range(len(melds)) if k not in fixed and k not in keep and k not in frozen
    ]
    taken_rack: Counter = Counter()
    new: list[list[Face]] = []
    for fate in combo:
        if fate.keep >= 0 or fate.joined:
            continue
        order = removable
        if fate.home in removable:  # a held joker leaves its own meld
            order = [fate.home, *(k for k in removable if k != fate.home)]
        for face in fate.table:
            k = next((k for k in (order if face.is_joker else removable) if face in melds[k]), None)
            if k is None:
                return None
            melds[k].remove(face)
        taken_rack += Counter(fate.rack)
        new.append(list(fate.meld))
    return melds, new, taken_rack, keep


def _broken(combo, table, fixed, spec, holding=None) -> int:
    """How many table melds the moved fates leave as pieces that are no meld as they lie (the
    rest of the turn must mend each of them: such combinations are tried later). The pieces
    are taken as :func:`_laid` takes them."""
    keep = {f.keep for f in combo if f.keep >= 0}
    changed: dict[int, list[Face]] = {}
    for fate in combo:
        if fate.keep >= 0 or fate.joined:
            continue
        for face in fate.table:
            for k in holding[face] if holding is not None else range(len(table)):
                if k in fixed or k in keep:
                    continue
                now = changed.get(k, table[k])
                if face in now:
                    now = list(now)
                    now.remove(face)
                    changed[k] = now
                    break
            else:
                return len(table) + 1
    return sum(1 for m in changed.values() if m and not readings(m, spec))


def _combos(fates: list[list[_Fate]], table, hand, fixed, placed, spec, spend, frozen=()):
    """Choices of one fate per tied joker whose pieces exist together (at most
    :data:`FATE_COMBOS`; a cut marks ``spend`` not exact), those taking most rack pieces
    that the free answer places (``placed``) first, then those breaking fewest table melds,
    then those within the free answer's melds, then fewest moved jokers. A fate's pieces not named by it come from
    the table where they can (a table piece must be used anyway; the rack copy stays free),
    else from the rack."""
    pool = Counter(f for k, m in enumerate(table) if k not in fixed and k not in frozen for f in m)
    rack = Counter(hand)
    wanted = Counter(placed)
    unmoved = set(fixed) | set(frozen)
    holding: dict[Face, list[int]] = {}  # the melds holding each face, in table order
    for k, meld in enumerate(table):
        for face in dict.fromkeys(meld):
            holding.setdefault(face, []).append(k)
    chosen: list[tuple[int, int, int, int, list[_Fate]]] = []
    if any(len(options) > FATE_OPTIONS for options in fates):
        spend.exact = False  # fates left out
    fates = [options[:FATE_OPTIONS] for options in _fates_sorted(fates)]

    def source(fate: _Fate, used_table: Counter, used_rack: Counter) -> _Fate | None:
        named = Counter(fate.table)
        named.update(fate.rack)
        t, r = Counter(fate.table), Counter(fate.rack)
        for face in fate.meld:
            if face.is_joker:
                continue
            if named[face] > 0:
                named[face] -= 1
            elif pool[face] - used_table[face] - t[face] > 0:
                t[face] += 1
            else:
                r[face] += 1
        if any(used_table[f] + n > pool[f] for f, n in t.items()):
            return None
        if any(used_rack[f] + n > rack[f] for f, n in r.items()):
            return None
        return replace(fate, table=tuple(t.elements()), rack=tuple(r.elements()))

    def walk(i: int, picked: list[_Fate], used_table: Counter, used_rack: Counter, keeps: set):
        if len(chosen) >= FATE_COMBOS * 3:
            spend.exact = False
            return
        if i == len(fates):
            moved = sum(1 for f in picked if f.keep < 0 and not f.joined)
            if moved:
                unhinted = sum(1 for f in picked if f.keep < 0 and not f.joined and not f.hinted)
                overlap = (sum((Counter(f.rack) for f in picked), Counter()) & wanted).total()
                broken = _broken(picked, table, unmoved, spec, holding)
                chosen.append((-overlap, broken, unhinted, moved, list(picked)))
            return
        joint = next((p for p, f in enumerate(picked) if f.partner == i and not f.joined), None)
        for fate in fates[i]:
            if fate.joined or joint is not None:  # in the meld of a tied joker picked before
                if fate.joined and joint == fate.partner:
                    picked.append(fate)
                    walk(i + 1, picked, used_table, used_rack, keeps)
                    picked.pop()
                continue
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
    chosen.sort(key=lambda entry: entry[:4])
    if len(chosen) > FATE_COMBOS:
        spend.exact = False
    for *_, picked in chosen[:FATE_COMBOS]:
        yield picked


def _fates_sorted(fates: list[list[_Fate]]) -> list[list[_Fate]]:
    """Each joker's fates, the free answer's melds first, then its meld as it lies, then the
    shortest."""
    return [sorted(o, key=lambda f: (not f.hinted, f.keep < 0, len(f.meld))) for o in fates]


def _with_fates(
    g: TurnContext,
    seat: int,
    combo,
    table,
    hand,
    must,
    fixed,
    mode: Mode,
    spend,
    frozen=(),
    loose=(),
):
    """The best play with these fates laid (each kept whole, a run lengthened only at its
    ends, a group only completed: ``jokers_stay``), or None (a solve is charged to ``spend``
    only when one runs; none when its solves are spent)."""
    laid = _laid(combo, table, fixed, frozen)
    if laid is None:
        return None
    melds, new, taken_rack, _keep = laid
    rest_hand = list((Counter(hand) - taken_rack).elements())
    rest_must = None
    if must is not None:
        if taken_rack - Counter(must):
            return None
        rest_must = list((Counter(must) - taken_rack).elements())
    kept_melds = [(k, m) for k, m in enumerate(melds) if m and k not in loose]
    index = {k: n for n, (k, _) in enumerate(kept_melds)}
    singles = [[f] for k, m in enumerate(melds) if k in loose for f in m]  # the player's own
    rest = [m for _, m in kept_melds] + singles + new
    rest_fixed = {index[k] for k in fixed if k in index}
    spec = g.rules.meld_spec
    solution = None
    if rest_must != [] and rest_hand:
        solution = _kept_solve(
            g, seat, rest_must, mode, spend, table=rest, hand=rest_hand, fixed=rest_fixed
        )
        if solution is None:
            return None
    if solution is None or not solution.count:
        # no rack piece joins the rest: the table's own pieces must make valid melds
        solution = _arranged(g, seat, rest, rest_fixed, mode, spend)
        if solution is None:
            return None
    if not all(readings(m, spec) for m in solution.table):
        return None
    if rest_must is not None and solution.count != len(rest_must):
        return None
    placed = sorted([*solution.placed, *taken_rack.elements()], key=lambda f: (f.is_joker, str(f)))
    if not placed:
        return None
    value = rack_value(placed, g.rules.joker_penalty)
    return Solution(len(placed), value, placed, solution.table, solution.changed_melds)


def _arranged(
    g: TurnContext, seat: int, melds, fixed: set[int], mode: Mode, spend
) -> Solution | None:
    """The melds with their loose pieces laid anew into valid melds and no rack piece, or
    None: the solver places exactly those pieces into the fixed melds and the valid melds
    holding a joker (kept whole, a run lengthened at its ends, a group completed: the pieces
    around a joker's final meld may join it)."""
    spec = g.rules.meld_spec
    if all(readings(m, spec) for k, m in enumerate(melds) if k not in fixed):
        return Solution(0, 0, [], [list(m) for m in melds], 0)
    stays = {
        k
        for k, m in enumerate(melds)
        if k in fixed or (any(f.is_joker for f in m) and readings(m, spec))
    }
    kept = [list(m) for k, m in enumerate(melds) if k in stays]
    kept_fixed = {n for n, k in enumerate(sorted(stays)) if k in fixed}
    loose = [f for k, m in enumerate(melds) if k not in stays for f in m]
    found = _kept_solve(g, seat, loose, mode, spend, table=kept, hand=loose, fixed=kept_fixed)
    if found is None or found.count != len(loose):
        return None
    return Solution(0, 0, [], found.table, len(melds) - len(kept))


def describe(play: LegalPlay) -> str:
    """The play as one line (for benchmarks and test messages)."""
    if play.solution is None:
        return "nothing"
    placed = play.solution.placed
    return "; ".join([*play.before, *([f"place {format_faces(placed)}"] if placed else [])])


__all__ = [
    "SEARCH_SOLVES",
    "LegalPlay",
    "accepts",
    "describe",
    "legal_play",
    "may_move_first",
    "place_is_plain",
    "plain_place",
]
