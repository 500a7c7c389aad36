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
Rummikub swap). In Rummikub a play that starts with a move outside the solver's
model or that it misses (a ``swap``; a meld with two jokers freed by one, a rack joker
completing a locked group) is bounded by the free answer after that move (:func:`_pre_moves`;
one solve per move the engine accepts). :func:`legal_play` takes the free answer when the
engine accepts it, else the answer with joker melds kept whole (``jokers_stay``) when it reaches
the bound - the answers ``place`` and ``hint`` always gave. Only when the bound is higher does
it search further, within one budget (:class:`_Spend`: at most :data:`SEARCH_SOLVES` solves of
together within ``HELP_BUDGET`` DP states):

* each joker that a rule ties is given its **fate**, the whole meld it ends in: for a held
  joker its meld as it lies, or a valid meld of it and a real tile of its start meld (meaning
  kept where the rules fix it); for a Rummikub joker freed this turn, a new meld of it and at
  least one rack tile. The fates are laid as fixed melds and the solver places the rest; fates
  that the free answer itself lays come first;
* the same after each ``swap`` the engine accepts (the freed joker then has its fate), and in
  Rummikub after a rack joker completes a locked joker group (``add N J``).

Every candidate is checked by the engine itself (``adopt_solution`` and the end-of-turn check
``check_turn`` on a copy) before it counts; the best accepted one wins, and the search stops as
soon as one reaches the bound. ``exact`` says whether the search was complete.
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

FATE_RUN_LONGEST = 6
"""The longest run generated as a tied joker's fate."""
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

    def __init__(self) -> None:
        self.start = states_spent()
        self.solves = SEARCH_SOLVES
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
    return solve(
        kw.get("table", g.table_faces(working=True)),
        kw.get("hand", g.faces(g.turn.rack)),
        g.rules,
        opened=g.opened[seat],
        mode=mode,
        fixed=kw.get("fixed", fixed_melds(g, seat)),
        must_place=must,
        budget=budget,
        jokers_stay=jokers_stay,
    )


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
    _remember(g, seat, must, mode, whole_turn, found)
    return found


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
    spend = _Spend()
    worth = _score(rules, g.faces(g.turn.rack), mode)
    first = _State(g, seat, must, mode, whole_turn, spend, "", 0)
    first.quick()
    best = LegalPlay(first.best, True, first.refused, (), first.best_score)
    bound = first.bound
    pre = list(_pre_moves(g, seat, must)) if g.opened[seat] else []
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
            before = (st.before,) if st.before else ()
            best = LegalPlay(st.best, True, st.refused, before, st.offset + st.best_score)

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
    # is left out)
    runs = [(st, st.fates()) for st in states if st.free is not None]
    while runs and best.score < bound and spend.solves > 0:
        for st, run in list(runs):
            if st.offset + st.bound <= best.score or next(run, None) is None:
                runs.remove((st, run))
                continue
            better(st)
            if best.score >= bound:
                break
    if runs and best.score < bound:
        spend.exact = False  # fates left untried
    exact = best.score >= bound or spend.exact
    return replace(best, exact=exact, bound=bound)


class _State:
    """One state of the search (the working table, or after a move ``before`` that took
    ``offset`` from the rack): its free answer (the bound here) and its best accepted play."""

    def __init__(self, g, seat, must, mode, whole_turn, spend, before: str, offset: int) -> None:
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
            if self.before and not must and not self.refuses([], []):
                # the move alone is the play (a rack joker completing a locked group)
                self.best = Solution(0, 0, [], g.table_faces(working=True), 0)
            return
        self.free, self.bound = free, _score(g.rules, free.placed, mode)
        if accepts(g, seat, free.table, free.placed, self.whole_turn) is None:
            self.best, self.best_score = free, self.bound
            return
        self.refused = True
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
        fates = _tied_fates(g, seat, self.free)
        if not fates:
            return
        table = g.table_faces(working=True)
        hand = g.faces(g.turn.rack)
        fixed = fixed_melds(g, seat)
        for combo in _combos(fates, table, hand, fixed, self.free.placed):
            if self.best_score >= self.bound or spend.solves <= 0:
                return
            try:
                found = _with_fates(g, seat, combo, table, hand, self.must, fixed, self.mode, spend)
            except SolverBudgetExceeded:
                spend.exact = False
                found = None
            score = _score(g.rules, found.placed, self.mode) if found is not None else 0
            if (
                found is not None
                and score > self.best_score
                and accepts(g, seat, found.table, found.placed, self.whole_turn) is None
            ):
                self.best, self.best_score = found, score
            yield True


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
    """(command, state after it, the pieces to place then) for each ``swap`` the engine accepts and, in Rummikub, each rack joker
    completing a locked joker group. With ``must``: only moves made of named pieces, and the
    freed joker is then placed too (Stein: also kept in the hand)."""
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
    hinted: bool = False  # the free answer lays this meld


def _tied_fates(g: TurnContext, seat: int, free: Solution) -> list[list[_Fate]]:
    """Per joker a rule ties (see the module docstring), the fates it may have."""
    rules = g.rules
    spec = rules.meld_spec
    where = {i: k for k, m in enumerate(g.turn.table) for i in m.ids}
    fixed = fixed_melds(g, seat)
    out: list[list[_Fate]] = []
    table_faces = g.table_faces(working=True)
    locked = set(fixed)
    if rules.joker_meld_no_split:
        locked |= {where[j] for j in held_jokers(g) if j in where}
    free_table = Counter(f for k, m in enumerate(table_faces) if k not in locked for f in m)
    rack = Counter(g.faces(g.turn.rack))
    hinted = {tuple(sorted(map(str, m))) for m in free.table if any(f.is_joker for f in m)}

    def mark(fate: _Fate) -> _Fate:
        return replace(fate, hinted=tuple(sorted(map(str, fate.meld))) in hinted)

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
            if rack[Tile.joker()] and len(table_faces[k]) < spec.max_run:
                # its meld as it lies, one rack joker longer (the kept answer does not add one)
                longer = (*table_faces[k], Tile.joker())
                if readings(longer, spec):
                    options.append(_Fate(longer, tuple(table_faces[k]), (Tile.joker(),)))
            for meld in _melds_with_joker(pool, rack, spec, strict, set(home)):
                reals = Counter(f for f in meld if not f.is_joker)
                if not reals & home:
                    continue
                joker_face = tuple(f for f in meld if f.is_joker)
                options.append(mark(_Fate(tuple(meld), joker_face, ())))
            out.append(options)
    if not rules.joker_freed_to_hand:
        freed = [j for j in g.turn.freed if j in g.turn.rack]
        on_table = {i for m in g.turn.table for i in m.ids}
        played = Counter(
            g.deck[i] for i in g.turn.played if i in on_table and not g.deck[i].is_joker
        )
        for _joker in freed:
            options = []
            need = set(rack) | set(played)
            for meld in _melds_with_joker(free_table, rack, spec, None, need):
                options += [mark(f) for f in _rack_sources(meld, rack, played)]
            out.append(options)
    return out


def _melds_with_joker(
    pool: Counter, rack: Counter, spec, strict, need: set[Face]
) -> list[tuple[Face, ...]]:
    """Valid melds of one joker and real pieces available in ``pool`` or ``rack``, holding a
    piece of ``need`` (runs of at most :data:`FATE_RUN_LONGEST`); ``strict``: the joker's
    meaning must stay this one. A run's joker stands for the place it is laid at (its value
    lies inside 1..13, or round the corner where runs wrap), so runs need no reading."""
    have = {f for f, n in (pool + rack).items() if n > 0 and not f.is_joker}
    joker = Tile.joker()
    wrap = spec.run_mode == "wrap"
    out: list[tuple[Face, ...]] = []
    for value in range(1, 14):
        if strict is not None and strict != ("group", value):
            continue
        colours = [c for c in range(4) if Tile(c, value) in have]
        for size in (2, 3):
            for chosen in itertools.combinations(colours, size):
                reals = [Tile(c, value) for c in chosen]
                if need.isdisjoint(reals):
                    continue
                meld = (*reals, joker)
                found = positional_reading(meld, spec)
                if found is not None and found.kind == "group":
                    out.append(meld)
    if strict is not None and strict[0] == "group":
        return out
    for colour in range(4):
        for start in range(1, 14 if wrap else 12):
            for length in range(3, FATE_RUN_LONGEST + 1):
                if not wrap and start + length - 1 > 13:
                    break
                faces = [Tile(colour, (start - 1 + i) % 13 + 1) for i in range(length)]
                missing = [k for k, f in enumerate(faces) if f not in have]
                if len(missing) > 1:
                    continue
                places = missing or range(length)
                for place in places:
                    if strict is not None and strict != ("run", faces[place]):
                        continue
                    reals = faces[:place] + faces[place + 1 :]
                    if need.isdisjoint(reals):
                        continue
                    out.append((*faces[:place], joker, *faces[place + 1 :]))
    return out


def _rack_sources(meld, rack: Counter, played: Counter) -> list[_Fate]:
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


def _combos(fates: list[list[_Fate]], table, hand, fixed, placed):
    """Choices of one fate per tied joker whose pieces exist together (at most
    :data:`FATE_COMBOS`), the free answer's own melds first, then most rack pieces that the
    free answer places (``placed``), then fewest moved jokers. A fate's pieces not named by it come from the table where they can (a
    table piece must be used anyway; the rack copy stays free), else from the rack."""
    pool = Counter(f for k, m in enumerate(table) if k not in fixed for f in m)
    rack = Counter(hand)
    wanted = Counter(placed)
    chosen: list[tuple[int, int, int, list[_Fate]]] = []
    # the free answer's melds and the kept ones first, so the cut below keeps them
    fates = [
        sorted(options, key=lambda f: (not f.hinted, f.keep < 0, len(f.meld)))[:FATE_OPTIONS]
        for options in fates
    ]

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
        return _Fate(fate.meld, tuple(t.elements()), tuple(r.elements()), hinted=fate.hinted)

    def walk(i: int, picked: list[_Fate], used_table: Counter, used_rack: Counter, keeps: set):
        if len(chosen) >= FATE_COMBOS * 3:
            return
        if i == len(fates):
            moved = sum(1 for f in picked if f.keep < 0)
            if moved:
                unhinted = sum(1 for f in picked if f.keep < 0 and not f.hinted)
                overlap = (sum((Counter(f.rack) for f in picked), Counter()) & wanted).total()
                chosen.append((unhinted, -overlap, moved, list(picked)))
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
    chosen.sort(key=lambda entry: entry[:3])
    for *_, picked in chosen[:FATE_COMBOS]:
        yield picked


def _with_fates(g: TurnContext, seat: int, combo, table, hand, must, fixed, mode: Mode, spend):
    """The best play with these fates laid as fixed melds, or None (a solve is charged to
    ``spend`` only when one runs; none when its solves are spent)."""
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
    """The melds with their loose pieces (outside ``fixed``) laid anew into valid melds and no
    rack piece (the solver placing exactly those pieces into the fixed melds alone), or None."""
    spec = g.rules.meld_spec
    if all(readings(m, spec) for k, m in enumerate(melds) if k not in fixed):
        return Solution(0, 0, [], [list(m) for m in melds], 0)
    kept = [list(m) for k, m in enumerate(melds) if k in fixed]
    loose = [f for k, m in enumerate(melds) if k not in fixed for f in m]
    found = _kept_solve(
        g, seat, loose, mode, spend, table=kept, hand=loose, fixed=set(range(len(kept)))
    )
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
    "FATE_RUN_LONGEST",
    "SEARCH_SOLVES",
    "LegalPlay",
    "accepts",
    "describe",
    "legal_play",
    "may_move_first",
    "place_is_plain",
    "plain_place",
]
