"""The exact solver: the best play of rack pieces into the table (RULES.md, every tile preset).

:func:`solve` answers "which rack pieces can I place, and how must the table look afterwards?"
exactly: no other legal rearrangement places more pieces (mode ``count``) or more face value
(mode ``value``). It serves the ``hint`` and ``place`` commands and the ``rummy solve`` tool.

The model (what "legal" means here)
------------------------------------
* The result is a list of melds, each valid by :func:`engine.melds.is_valid` under the rule set's
  :class:`~engine.melds.MeldSpec` (RULES.md "Common ground": groups of 3-4 different colours,
  runs of one colour; Stein: runs wrap 12-13-1-2 and are at most 26 long; Rummikub: 1 is low,
  13 high). Every table piece stays on the table ("Tiles on the table stay on the table"); some
  rack pieces are added. Melds in ``fixed`` (e.g. other players' Stein Plus claims) stay exactly
  as they are.
* Before opening the table is untouched: the rack alone forms new melds. Rummikub: worth at least
  ``opening_minimum`` (30) together, a joker counting the value it stands for; Stein: at least one
  meld of 3 (any placement is one). When no opening exists the answer places nothing.
* Jokers stand anywhere a meld allows: a table joker may end in any meld. The engine is
  stricter (docs/DECISIONS.md "Table jokers stay in their meld"); ``jokers_stay=True`` solves
  with every valid table meld holding a joker treated like a Rummikub locked meld below (kept,
  extended, never freed), which ``place`` and ``hint`` use when the free answer moves a joker.
* Rummikub ``joker_meld_no_split`` (RULES.md: "a meld containing a joker may not be split"): a
  valid table meld holding a joker is either **kept** - a run keeps its pieces in order as one
  block that may be extended at both ends (by pieces or by whole runs joined to it); a group stays
  as it is or gains one real piece of a missing colour - or, when it holds exactly one joker,
  **freed**: a rack tile the joker stands for replaces it, the meld then holds no joker and may be
  rearranged freely, and the freed joker must be used on the table (``joker_freed_to_hand`` off:
  "the freed joker may not go to the rack"). Simplification: we do not demand that the freed
  joker's new meld also holds a rack tile. A meld with two jokers is only kept.
* Stein's take-with-joker and joker-to-hand are not generated: both swap a hand piece for a table
  piece, so they never lower the number of pieces left in hand, and the ``count`` optimum is
  unaffected (in ``value`` mode they are simply not considered).
* Value: a tile is worth its face value; a placed joker is worth ``rules.joker_penalty`` (what it
  would cost on the rack: 30 in Rummikub, 1 in Stein).
* Ties (same count or value): the solver keeps table melds unchanged where it can, greedily and
  with the placed pieces fixed: meld by meld in table order, a meld is kept when the other
  pieces still make valid melds (inclusion-maximal for those pieces, not always the minimum
  number of changed melds; the treatment of the other locked joker melds stays as the best
  play chose it). A trial the search cannot settle within ``TRIAL_LIMIT`` states
  counts as "this meld changes"; the play stays optimal either way.

The algorithm
-------------
A dynamic programme over the values 1..13 (van Rijn, Takes, Vis: "The complexity of Rummikub
problems", 2015), processed cell by cell (value, colour). The state holds, per colour, how many
runs are in progress with length 1, 2 and 3-or-more (jokers can make more than two runs of one
colour overlap, so the count is not capped at the number of copies), the jokers used so far, the
group pieces collected at the current value (their number and the largest count of one colour),
and before a Rummikub opening the points laid so far (capped at the minimum). A run may only start
on a real piece (with leading jokers in front), so no meld consists of jokers only. At the end of
each value the collected group pieces plus some jokers must split into groups: ``k`` groups of
distinct colours exist exactly when every colour count is at most ``k``, ``k`` is at most the
number of real pieces, and ``3k <= pieces + jokers <= 4k`` (deal the pieces round-robin).
Every table piece must be used, rack pieces may be. States are packed into one 128-bit key.

The search runs in C (``engine/_dp.c``, built with the package), in two exact forms over the
same states: first depth first with branch and bound (the options placing most rack pieces and
fewest jokers first; a memo keeps, per state, an upper bound of what it can still add; a state
that cannot beat the best play found so far is dropped; when the best play reaches the upper
bound the search stops; a state dominated by a twin that cannot beat the best play is dropped
too). Most positions are settled within ``DFS_LIMIT`` states; otherwise the layered pass (all
states of one cell at a time, with back pointers) takes over from above, going on first with
the depth-first search it follows (the memo stays between the two calls), and a state is dropped
when a twin that differs only in the colour just decided has runs at least as long and jokers to
spare (it can do everything the dropped one can). The tie-break trials run in the same C call
one after the other (``engine._dp.trials``). The pure-Python programme :func:`_run_dp_reference`
is kept as the reference the tests compare both against.

Exact speed-ups: (1) the target is searched from above - first "every placeable rack piece",
then lower in growing steps; a run with target T drops every state that cannot reach T even by
taking all remaining rack pieces, and when it finds a play it is the true optimum. (2) Rack tiles
that no meld can hold (no group partner, no run window even with all jokers) are dropped first.
(3) Canonical jokers (linear runs, after opening): a joker is laid only where a meld needs it -
inside a run's gap, to bring a run or a group up to three, and before a run only at values
12-13 (elsewhere a needed leading joker can move to the run's end). Every other joker only adds
to a meld with room (a group of three, a run's end), so it is added at the end; when no meld has
room the position is solved again with jokers anywhere. A long run that just took a joker is
"waiting": it may not end on that joker. States that used more jokers for no more score are
dropped (each unused joker is worth the same at the end). (4) Look-ahead (C only): an option is
dropped when the runs that must go on (a run of one or two needs the next values) and the groups
of the current value that must fill up need more jokers than are left - it has no valid end.

Wrap-around runs (Stein) form a cycle: the values are processed from a cut where the fewest runs
can cross, each possible set of crossing runs (per colour: how many, with which length before the
cut) is guessed and carried in the state, and the runs open at the end must cover the guessed
ones (each at least as long; extra ones long enough to end), as the dominance above requires.
``engine._dp`` makes the guesses itself (:func:`_wrap_guesses` shows them) and leaves out those
whose crossing runs need more jokers than there are, counting the pieces missing at the five
cells such runs pass for sure (see ``guess_jokers`` there): such a guess has no valid end, and
every guess is searched on its own, so nothing else changes. A tie-break trial, whose "no"
may come from its state limit, answers as the search over every guess does. The search
proper (not a trial) also bounds a state by the memo of the same state under a guess that its
own guess covers (every valid end for the one is one for the other): exact pruning, the same
first best play. Under a budget (as ``hint``, ``place`` and the computer players solve) it
also searches, once it has a play, a relaxation of all guesses at once (the runs open at the
end of a colour need only cover that colour's crossing runs in some guess): its bounds hold
for every guess, so they prune the rest of the search (and end it when the relaxation has no
better play); exact pruning again, and its states count against the budget.
Runs longer than ``max_run`` never block a solution: they are split in two.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from . import _dp
from .errors import RummyError
from .melds import MeldSpec, readings
from .pieces import Face, Tile
from .rules import RuleSet

Mode = Literal["count", "value"]

__all__ = ["Solution", "SolverBudgetExceeded", "solve", "states_spent"]


@dataclass(frozen=True, slots=True)
class Solution:
    """The best play: ``placed`` rack pieces, and the whole new ``table`` (every meld valid, every
    old table piece kept, fixed melds unchanged). ``count`` is ``len(placed)``; ``value`` their
    face value (a joker counts ``rules.joker_penalty``); ``changed_melds`` how many table melds do
    not appear unchanged in the new table."""

    count: int
    value: int
    placed: list[Face] = field(default_factory=list)
    table: list[list[Face]] = field(default_factory=list)
    changed_melds: int = 0


# ---------------------------------------------------------------------------------------------
# Packed state: per colour 9 bits (n1 | n2 << 3 | n3 << 6: runs in progress of length 1, 2, 3+),
# then jokers used, group pieces so far at this value (G), the largest count of one colour among
# them (M), opening points (capped), and in wrap mode the guessed crossing runs.

_BITS = 12
_U = 48
_G = 52
_M = 56
_OV = 59
_GUESS = 66
_GM_MASK = (15 << _G) | (7 << _M)
_CODE = 4095
_OPEN_ENDS = 63 | 7 << 9  # runs of length 1 or 2, or waiting after a joker: may not end


def _code(n1: int, n2: int, n3: int, gap: int = 0) -> int:
    return n1 | n2 << 3 | n3 << 6 | gap << 9


@cache
def _cell_options(
    code: int,
    need: int,
    opt: int,
    free: int,
    lead_max: int,
    force: bool,
    starts: int,
    ends: int,
    canon: bool,
) -> tuple[tuple, ...]:
    """Every way to treat one cell (colour c, value v) from a colour state ``code``.

    ``need`` real pieces (c, v) must be used, ``opt`` more may be; ``free`` jokers are left;
    ``lead_max`` is how many leading jokers a run starting here may have; ``force`` makes every
    run in progress continue (first cell of a wrap pass); ``starts``/``ends`` count locked blocks
    (kept joker runs) that begin/end here. ``canon``: jokers only where a meld needs them (see
    :func:`_run_dp`). Returns tuples ``(new_code, rack_used, to_groups, jokers, lead_triangle,
    detail)``; ``detail`` is what the reconstruction replays."""
    n1, n2, n3, gap = code & 7, (code >> 3) & 7, (code >> 6) & 7, code >> 9
    out: dict[tuple, tuple] = {}
    # locked blocks starting here absorb a run in progress or start fresh (leading jokers allowed)
    for a1 in range(min(n1, starts) + 1):
        for a2 in range(min(n2, starts - a1) + 1):
            for a3 in range(min(n3, starts - a1 - a2) + 1):
                fresh = starts - a1 - a2 - a3
                m1, m2, m3 = n1 - a1, n2 - a2, n3 - a3
                for lb in range(min(free, fresh * lead_max) + 1):
                    _slot_options(
                        out,
                        m1,
                        m2,
                        m3,
                        gap,
                        need,
                        opt,
                        free - lb,
                        lead_max,
                        force,
                        ends,
                        lb,
                        (a1, a2, a3, lb),
                        canon,
                    )
    return tuple(out.values())


def _slot_options(
    out, n1, n2, n3, gap, need, opt, free, lead_max, force, ends, used0, blocks, canon
):
    short = n1 + n2
    for xo in range(opt + 1):
        real = need + xo
        for g in range(real + 1):
            rr = real - g
            for k3 in range(n3 if force else 0, n3 + 1):
                long_ = k3 + gap  # long runs going on (waiting ones must)
                cont = short + long_
                for y12 in range(min(short, free) + 1):
                    for y3 in range(min(long_, free - y12) + 1):
                        yc = y12 + y3
                        s = rr - cont + yc
                        if s < 0:
                            continue
                        left = free - yc
                        if canon:
                            n3_kept, gap_new = long_ - y3, y3
                        else:
                            n3_kept, gap_new = long_, 0
                        for s1 in range(s + 1 if lead_max >= 1 else 1):
                            if s1 > left:
                                break
                            for s2 in range(s - s1 + 1 if lead_max >= 2 else 1):
                                lead = s1 + 2 * s2
                                if lead > left:
                                    break
                                s0 = s - s1 - s2
                                extra_max = 0
                                if s2 and not canon:
                                    extra_max = min(left - lead, s2 * (lead_max - 2))
                                for extra in range(extra_max + 1):
                                    # spread extra leading jokers evenly (most opening points)
                                    tri = s1
                                    if s2:
                                        base, more = divmod(extra, s2)
                                        for i in range(s2):
                                            ln = 2 + base + (1 if i < more else 0)
                                            tri += ln * (ln + 1) // 2
                                    y = used0 + yc + lead + extra
                                    new = _code(s0, n1 + s1, n2 + n3_kept + s2 + ends, gap_new)
                                    key = (new, xo, g, y, tri)
                                    if key not in out:
                                        out[key] = (
                                            *key,
                                            (blocks, k3, y12, y3, s0, s1, s2, extra),
                                        )


@cache
def _group_jokers(pieces: int, most: int, free: int, canon: bool) -> tuple[int, ...]:
    """Joker counts ``j <= free`` with which ``pieces`` real pieces (at most ``most`` of one
    colour) split exactly into groups of 3-4 distinct colours (``canon``: only the jokers that
    some number of groups needs to reach three pieces each)."""
    if pieces == 0:
        return (0,)
    found = []
    for j in range(free + 1):
        for k in range(max(most, 1), pieces + 1):
            if 3 * k <= pieces + j <= 4 * k and (not canon or j == max(0, 3 * k - pieces)):
                found.append(j)
                break
    return tuple(found)


def _groups_of(reals: list[Face], jokers: int, joker: Face) -> list[list[Face]]:
    """Deal group pieces of one value into valid groups (round-robin by colour, then jokers)."""
    pieces = sorted(reals)
    total = len(pieces) + jokers
    most = max(Counter(f.suit for f in pieces).values())
    k = next(k for k in range(max(most, 1), len(pieces) + 1) if 3 * k <= total <= 4 * k)
    groups: list[list[Face]] = [[] for _ in range(k)]
    for i, f in enumerate(pieces):
        groups[i % k].append(f)
    for _ in range(jokers):
        min(groups, key=len).append(joker)
    return groups


# ---------------------------------------------------------------------------------------------
# The core problem: loose pieces that must be used, rack pieces that may be, locked blocks.


@dataclass(slots=True)
class _Block:
    """A kept joker run (Rummikub, no split): its pieces in order from value ``start``."""

    colour: int
    start: int
    pieces: list[Face]

    @property
    def end(self) -> int:
        return self.start + len(self.pieces) - 1


class SolverBudgetExceeded(Exception):
    """The search needed more DP states than the caller's ``budget`` allowed (the answer is
    unknown, not wrong): callers fall back to a simpler move or tell the player."""


_budget = threading.local()


def _spend(states: int) -> None:
    """Count DP states against the budget of the running :func:`solve` call."""
    left = getattr(_budget, "left", None)
    if left is None:
        return
    left -= states
    _budget.left = left
    if left < 0:
        raise SolverBudgetExceeded


@dataclass(slots=True)
class _Problem:
    need: list[list[int]]  # [colour][value] pieces that must be used
    opt: list[list[int]]  # [colour][value] rack pieces that may be used
    weight: list[int]  # weight of a rack tile by value (1, or its value)
    jokers_need: int
    jokers_opt: int
    joker_weight: int
    wrap: bool
    open_min: int
    blocks: list[_Block]
    face: type[Face]
    canonical: bool = True  # jokers only where needed, the rest added afterwards
    hints: bytes = bytes(60)  # how the table's own melds use each cell (orders the search)
    _usable: list[int] | None = None

    def usable_cells(self) -> list[int]:
        """The rack pieces some meld could hold (:func:`_placeable`) on 60 cells, computed
        once."""
        if self._usable is None:
            need, opt = self.need, self.opt
            self._usable = _placeable_cells(
                need[0] + need[1] + need[2] + need[3],
                opt[0] + opt[1] + opt[2] + opt[3],
                self.jokers_need + self.jokers_opt,
                self.wrap,
                self.blocks,
            )
        return self._usable

    def usable(self) -> list[list[int]]:
        """:meth:`usable_cells` per colour and value."""
        cells = self.usable_cells()
        return [cells[0:15], cells[15:30], cells[30:45], cells[45:60]]

    @property
    def canon(self) -> bool:
        return self.canonical and not self.wrap and not self.open_min


@dataclass(slots=True, eq=False)
class _Slot:
    pieces: list[Face]
    busy_until: int = 0  # a locked block in it ends at this value
    guess: int = -1  # wrap: the length category of the guessed crossing run it continues
    waiting: bool = False  # canonical jokers: a long run ended on a joker, a real must follow


def _placeable(need, opt, jokers, wrap, blocks=()) -> list[list[int]]:
    """Drop rack tiles that no meld can hold at all (a sound filter: it only removes pieces
    without any group or run around them); ``need``/``opt`` per colour and value."""
    cells = _placeable_cells(
        need[0] + need[1] + need[2] + need[3],
        opt[0] + opt[1] + opt[2] + opt[3],
        jokers,
        wrap,
        blocks,
    )
    return [cells[0:15], cells[15:30], cells[30:45], cells[45:60]]


def _placeable_cells(
    need: list[int], opt: list[int], jokers: int, wrap: bool, blocks: Sequence[_Block] = ()
) -> list[int]:
    """:func:`_placeable` on 60 cells (colour * 15 + value)."""
    out = opt[:]
    if jokers >= 2 or not any(opt):  # a piece and two jokers make a meld
        return out
    have = [a + b for a, b in zip(need, opt, strict=True)]
    for b in blocks:
        for v in range(b.start, b.end + 1):
            have[b.colour * 15 + v] += 1
    for cell, n in enumerate(opt):
        if not n:
            continue
        c, v = divmod(cell, 15)
        partners = (have[v] > 0) + (have[15 + v] > 0) + (have[30 + v] > 0) + (have[45 + v] > 0)
        if partners - 1 + jokers >= 2:  # a group
            continue
        row = c * 15
        for s in range(v - 2, v + 1):  # a run through it: three values, the gaps jokers
            window = [s, s + 1, s + 2]
            if wrap:
                window = [(x - 1) % 13 + 1 for x in window]
            elif s < 1 or s + 2 > 13:
                continue
            if sum(1 for x in window if x != v and not have[row + x]) <= jokers:
                break
        else:
            out[cell] = 0
    return out


DFS_LIMIT = 20000
"""States the depth-first search may visit before the layered pass takes over."""

WRAP_DFS_LIMIT = 500_000
"""The same for wrap-around runs (Stein), where the layered pass is much slower (no canonical
jokers, a guess per set of crossing runs)."""

TRIAL_LIMIT = 1500
"""States one tie-break trial (keep one more table meld unchanged) may cost; a trial that
needs more is counted as "this meld changes" (the play stays optimal, only less tidy)."""


def _run_dp(p: _Problem, target: int, first: bool = False) -> tuple[int, _Played] | None:
    """The best score (weighted rack pieces and rack jokers placed) of at least ``target`` and
    the play that reaches it, or None when none does (or no valid table exists). ``first``:
    ``target`` is known to be the most there is, so the first play reaching it will do (a
    tie-break trial: at most :data:`TRIAL_LIMIT` states, then None).

    Two exact searches over the states of :func:`_run_dp_reference`, both in ``engine._dp``:
    first depth first (the options placing most rack pieces first; a memo keeps an upper bound
    of what each state can still add; every state that cannot beat the best play so far is
    dropped), which settles most positions in a few thousand states. When it needs more than
    :data:`DFS_LIMIT`, the layered pass (value by value, with dominance between states) takes
    over from above, starting from the best play the first search found."""
    args = _dp_arguments(p)
    limit = TRIAL_LIMIT if first else WRAP_DFS_LIMIT if p.wrap else DFS_LIMIT
    status, _spent, score, melds, placed, used = _dp_call(_dp.search, args, target, first, limit)
    if status == 1:
        return score, _Played(melds, placed, used)
    if status == 0:
        return None
    found = (score, _Played(melds, placed, used)) if melds is not None else None
    low = target if found is None else found[0] + 1
    if first:  # a tie-break trial the search cannot settle quickly: the meld changes
        return found
    goal, step = _upper_bound(p), 1
    while True:
        goal = max(goal, low)
        better = _layers(args, goal)
        if better is not None or goal <= low:
            return better or found
        goal -= step
        step *= 2


def _layers(args: tuple, target: int) -> tuple[int, _Played] | None:
    """The layered pass (``engine._dp.run``): the best score of at least ``target``."""
    status, _spent, score, melds, placed, used = _dp_call(_dp.run, args, target)
    return (score, _Played(melds, placed, used)) if status == 1 else None


def _dp_call(function, args: tuple, target: int, *more):
    """Call ``function`` of ``engine._dp`` under the running budget (raises
    :class:`SolverBudgetExceeded` when it runs out)."""
    left = getattr(_budget, "left", None)
    budget = -1 if left is None else max(left, 0)
    result = function(*args, target, budget, *more)
    status, spent = result[0], result[1]
    _spend(spent if status != 2 else (left or 0) + 1)
    return result


_LINEAR_VALUES = bytes(range(1, 14))
_NO_GUESS = bytes(8)


def _dp_arguments(p: _Problem) -> tuple:
    """The problem as ``engine._dp`` takes it (see the comment at the top of engine/_dp.c)."""
    jokers = p.jokers_need + p.jokers_opt
    opt = p.usable_cells()
    # wrap mode: no guesses given, engine._dp makes them (and the order of the values) itself,
    # as :func:`_wrap_guesses` shows them
    guesses = b"" if p.wrap else _NO_GUESS
    starts = bytearray(60)
    ends = bytearray(60)
    blocks = bytearray()
    for b in p.blocks:
        starts[b.colour * 15 + b.start] += 1
        ends[b.colour * 15 + b.end] += 1
        blocks += bytes((b.colour, b.start, b.end, len(b.pieces)))
        blocks += bytes(_codes(b.pieces))
    need = p.need
    return (
        bytes(need[0] + need[1] + need[2] + need[3]),
        bytes(opt),
        bytes(p.weight),
        p.joker_weight,
        jokers,
        p.jokers_need,
        p.open_min,
        int(p.canon),
        int(p.wrap),
        _LINEAR_VALUES,
        guesses,
        bytes(starts),
        bytes(ends),
        p.hints,
        bytes(blocks),
    )


_JOKER_CODE = 255


@dataclass(frozen=True, slots=True)
class _Played:
    """What ``engine._dp`` built: melds and placed rack pieces as piece codes (colour * 16 +
    value, 255 a joker) and the jokers laid."""

    melds: list[list[int]]
    placed: list[int]
    jokers_used: int


@cache
def _face_table(face: type[Face]) -> tuple[Face, ...]:
    """Piece code -> face."""
    table: list[Face] = [face.joker()] * 256
    for colour in range(4):
        for value in range(1, 14):
            table[colour * 16 + value] = face(colour, value)
    return tuple(table)


def _rebuild(p: _Problem, played: _Played) -> tuple[list[list[Face]], list[Face]] | None:
    """The new melds and the rack pieces used, from what ``engine._dp`` built (see
    :func:`_rebuild_reference`); None when the jokers left over (canonical model) find no room."""
    rebuilt = _rebuild_codes(p, played)
    if rebuilt is None:
        return None
    faces = _face_table(p.face)
    melds, placed = rebuilt
    return [[faces[c] for c in meld] for meld in melds], [faces[c] for c in placed]


def _rebuild_codes(p: _Problem, played: _Played) -> tuple[list[tuple[int, ...]], list[int]] | None:
    """:func:`_rebuild` in piece codes."""
    return _finish(p, [tuple(m) for m in played.melds], list(played.placed), played.jokers_used)


def _finish(p: _Problem, melds: list[tuple[int, ...]], placed: list[int], joker_used: int):
    """Add the jokers no meld needed (canonical model) and the rack jokers to ``placed`` (piece
    codes); None when a spare joker finds no room."""
    jokers = p.jokers_need + p.jokers_opt
    if p.canon:
        spec = MeldSpec("wrap" if p.wrap else "linear", 26 if p.wrap else 13)
        for _ in range(jokers - joker_used):
            if not _add_joker(melds, spec):
                return None
        joker_used = jokers
    placed.extend([_JOKER_CODE] * (joker_used - p.jokers_need))
    return melds, placed


def _run_dp_reference(p: _Problem, target: int) -> tuple[int, list] | None:
    """The pure-Python dynamic programme that ``engine._dp`` translates: the best score
    (weighted rack pieces and rack jokers placed) and the decisions per step, or None when no
    state reaches ``target`` (or no valid table exists)."""
    jokers = p.jokers_need + p.jokers_opt
    opt = _placeable(p.need, p.opt, jokers, p.wrap, p.blocks)
    values = list(range(1, 14))
    guesses: list[tuple[int, ...]] = [(0, 0, 0, 0)]
    if p.wrap:
        cut, guesses = _wrap_cut(p.need, opt, jokers)
        values = values[cut:] + values[:cut]
    starts = {(b.colour, b.start): 0 for b in p.blocks}
    ends = {(b.colour, b.end): 0 for b in p.blocks}
    for b in p.blocks:
        starts[b.colour, b.start] += 1
        ends[b.colour, b.end] += 1
    steps = [(v, c) for v in values for c in range(4)]
    # upper bound on what is still to gain after each step (for pruning)
    rest = [0] * (len(steps) + 1)
    for i in range(len(steps) - 1, -1, -1):
        v, c = steps[i]
        rest[i] = rest[i + 1] + opt[c][v] * p.weight[v]
    jw = p.joker_weight
    open_min = p.open_min
    canon = p.canon
    # scores count every joker laid; the table's own jokers are taken off at the end
    target += p.jokers_need * jw
    layer: dict[int, tuple] = {}
    for gi, guess in enumerate(guesses):
        key = gi << _GUESS
        for c, code in enumerate(guess):
            key |= code << (_BITS * c)
        layer[key] = (0, None, None)
    history: list[dict[int, tuple]] = [layer]
    first_value = values[0]
    for i, (v, c) in enumerate(steps):
        sh = _BITS * c
        need, o = p.need[c][v], opt[c][v]
        w = p.weight[v]
        lead = 13 if p.wrap else v - 1
        if canon and v < 12:
            # a needed leading joker can sit at the run's end instead, unless the run ends at 13
            lead = 0
        force = p.wrap and v == first_value
        bs, be = starts.get((c, v), 0), ends.get((c, v), 0)
        bound = target - rest[i + 1]
        nxt: dict[int, tuple] = {}
        get = nxt.get
        for key, val in layer.items():
            score = val[0]
            if score + (jokers - ((key >> _U) & 15)) * jw + rest[i] < target:
                continue
            code = (key >> sh) & _CODE
            used = (key >> _U) & 15
            options = _cell_options(code, need, o, jokers - used, lead, force, bs, be, canon)
            if not options:
                continue
            most = (key >> _M) & 7
            base = key - (code << sh)
            ov = (key >> _OV) & 127
            for opt_ in options:
                new, xo, g, y, tri = opt_[0], opt_[1], opt_[2], opt_[3], opt_[4]
                ns = score + xo * w + y * jw
                if ns + (jokers - used - y) * jw < bound:
                    continue
                nk = base + (new << sh) + (y << _U) + (g << _G)
                if g > most:
                    nk += (g - most) << _M
                if open_min:
                    add = min(open_min, ov + v * (need + xo + y) - tri) - ov
                    nk += add << _OV
                old = get(nk)
                if old is None or ns > old[0]:
                    nxt[nk] = (ns, key, opt_)
        layer = _pareto_jokers(nxt, jw) if canon and jokers else nxt
        _spend(len(layer))
        history.append(layer)
        if c == 3:
            # close the groups of value v
            nxt = {}
            get = nxt.get
            for key, val in layer.items():
                pieces = (key >> _G) & 15
                most = (key >> _M) & 7
                used = (key >> _U) & 15
                score = val[0]
                base = key & ~_GM_MASK
                ov = (key >> _OV) & 127
                for j in _group_jokers(pieces, most, jokers - used, canon):
                    ns = score + j * jw
                    nk = base + (j << _U)
                    if open_min and j:
                        nk += (min(open_min, ov + v * j) - ov) << _OV
                    old = get(nk)
                    if old is None or ns > old[0]:
                        nxt[nk] = (ns, key, j)
            layer = _pareto_jokers(nxt, jw) if canon and jokers else nxt
            history.append(layer)
        if not layer:
            return None
    best_key, best = None, None
    for key, val in layer.items():
        used = (key >> _U) & 15
        if used < p.jokers_need and not canon:
            continue
        if open_min and ((key >> _OV) & 127) < open_min:
            continue
        codes = [(key >> (_BITS * c)) & _CODE for c in range(4)]
        if p.wrap:
            guess = guesses[key >> _GUESS]
            if any(
                code & 63 != g & 63 or code >> 6 < g >> 6
                for code, g in zip(codes, guess, strict=True)
            ):
                continue
        elif any(code & _OPEN_ENDS for code in codes):
            continue
        score = val[0]
        if canon:
            score += (jokers - used) * jw  # the jokers not needed go where there is room
        if score >= target and (best is None or score > best):
            best, best_key = score, key
    if best_key is None:
        return None
    decisions = []
    key = best_key
    for layer in reversed(history[1:]):
        _, prev, decision = layer[key]
        decisions.append((key, decision))
        key = prev
    decisions.reverse()
    return best - p.jokers_need * jw, [key, *decisions]


_U_MASK = 15 << _U


def _pareto_jokers(layer: dict[int, tuple], jw: int) -> dict[int, tuple]:
    """Drop states beaten by a twin that used fewer jokers and scores as much without them.

    In the canonical joker model every joker not used yet is added at the end where there is
    room and scores then, so a state that used fewer jokers for at least the same score of
    tiles can do everything the other can (exact dominance)."""
    best: dict[int, list[tuple[int, int, int]]] = {}
    for key, val in layer.items():
        used = (key >> _U) & 15
        best.setdefault(key & ~_U_MASK, []).append((used, val[0] - used * jw, key))
    if len(best) == len(layer):
        return layer
    out = {}
    for entries in best.values():
        if len(entries) == 1:
            key = entries[0][2]
            out[key] = layer[key]
            continue
        entries.sort()
        top = None
        for _used, eff, key in entries:
            if top is None or eff > top:
                top = eff
                out[key] = layer[key]
    return out


def _upper_bound(p: _Problem) -> int:
    """Every placeable rack piece placed: no play scores more."""
    opt = p.usable()
    tiles = sum(opt[c][v] * p.weight[v] for c in range(4) for v in range(1, 14))
    return tiles + p.jokers_opt * p.joker_weight


def _reference_search(p: _Problem, target: int, first: bool = False) -> tuple[int, list] | None:
    """:func:`_run_dp_reference` with the target lowered step by step from the upper bound: a
    run with target T prunes every state that cannot reach T and, when it succeeds, returns the
    true optimum (no state that could beat it was pruned). Steps grow geometrically. (The
    tests' stand-in for :func:`_run_dp`.)"""
    if first:
        return _run_dp_reference(p, target)
    top = _upper_bound(p)
    if top < target:
        return None
    step = 1
    goal = top
    while True:
        result = _run_dp_reference(p, max(goal, target))
        if result is not None or goal <= target:
            return result
        goal -= step
        step *= 2


def _wrap_plan(need, opt, jokers) -> tuple[int, list[list[tuple[int, list[int]]]]]:
    """Where to cut the cycle of values (the pass starts at value ``cut + 1``), and per colour
    the codes of the runs that may cross the cut (by length before it), grouped by the jokers
    they need beyond the real pieces at the cut, cheapest first."""
    best = None
    for cut in range(13):
        before = cut if cut else 13  # value just before the cut
        after = cut + 1
        per_colour = []
        for c in range(4):
            a = need[c][before] + opt[c][before]
            b = need[c][after] + opt[c][after]
            total = sum(need[c][1:14]) + sum(opt[c][1:14])
            limit = min(min(a, b) + jokers, total, 7)
            per_colour.append((min(a, b), limit))
        count = 1
        for _, limit in per_colour:
            count *= (limit + 1) * (limit + 2) * (limit + 3) // 6
        if best is None or count < best[0]:
            best = (count, cut, per_colour)
    _, cut, per_colour = best
    per_cost: list[list[tuple[int, list[int]]]] = []
    for real, limit in per_colour:
        by_cost: dict[int, list[int]] = {}
        for n1 in range(limit + 1):
            for n2 in range(limit + 1 - n1):
                for n3 in range(limit + 1 - n1 - n2):
                    cost = max(0, n1 + n2 + n3 - real)
                    by_cost.setdefault(cost, []).append(_code(n1, n2, n3))
        per_cost.append(sorted(by_cost.items()))
    return cut, per_cost


def _wrap_cut(need, opt, jokers) -> tuple[int, list[tuple[int, ...]]]:
    """The cut of :func:`_wrap_plan` and every guess of the runs crossing it (per colour the
    code of crossing runs): every combination that needs at most ``jokers`` jokers."""
    cut, per_cost = _wrap_plan(need, opt, jokers)
    guesses: list[tuple[int, ...]] = []
    prefix: list[int] = []

    def extend(colour: int, spent: int) -> None:
        for cost, codes in per_cost[colour]:
            if spent + cost > jokers:
                break
            if colour == 3:
                guesses.extend((*prefix, code) for code in codes)
                continue
            for code in codes:
                prefix.append(code)
                extend(colour + 1, spent + cost)
                prefix.pop()

    extend(0, 0)
    return cut, guesses


def _wrap_guesses(need, opt, jokers) -> tuple[int, bytes]:
    """:func:`_wrap_cut` as ``engine._dp`` makes it for itself (``engine._dp.wrap_guesses``):
    the cut and the guesses as native uint16, four per guess, in the same order (Stein
    positions can have tens of thousands of guesses; the tests compare the two)."""
    flat = bytes(need[0] + need[1] + need[2] + need[3])
    return _dp.wrap_guesses(flat, bytes(opt[0] + opt[1] + opt[2] + opt[3]), jokers)


def _rebuild_reference(p: _Problem, trace: list) -> tuple[list[list[Face]], list[Face]] | None:
    """Replay the decisions of :func:`_run_dp_reference`: the new melds (of the problem's
    pieces) and the rack pieces used; None when the jokers left over (canonical model) find no
    room."""
    face = p.face
    canon = p.canon
    joker = face.joker()
    jokers = p.jokers_need + p.jokers_opt
    start_key = trace[0]
    guess_index = start_key >> _GUESS
    guesses = [(0, 0, 0, 0)]
    values = list(range(1, 14))
    if p.wrap:
        opt = p.usable()
        cut, guesses = _wrap_cut(p.need, opt, jokers)
        values = values[cut:] + values[:cut]
    melds: list[list[Face]] = []
    placed: list[Face] = []
    active: list[list[_Slot]] = [[] for _ in range(4)]
    heads: list[list[_Slot]] = [[] for _ in range(4)]  # wrap: guessed slots, by guess index
    for c, code in enumerate(guesses[guess_index]):
        n1, n2, n3 = code & 7, (code >> 3) & 7, code >> 6
        for length, count in ((1, n1), (2, n2), (3, n3)):
            for _ in range(count):
                slot = _Slot([], guess=length)
                active[c].append(slot)
                heads[c].append(slot)

    def cat(slot: _Slot) -> int:
        n = len(slot.pieces) + (slot.guess if slot.guess > 0 else 0)
        return min(n, 3)

    finished: list[list[_Slot]] = [[] for _ in range(4)]
    group_pieces: list[Face] = []
    joker_used = 0
    step = 1
    blocks_at = {}
    for b in p.blocks:
        blocks_at.setdefault((b.colour, b.start), []).append(b)
    for v in values:
        for c in range(4):
            _, opt_ = trace[step]
            step += 1
            _, xo, g, y, _tri, detail = opt_
            (a1, a2, a3, lb), k3, y12, y3, s0, s1, s2, extra = detail
            joker_used += y
            real = p.need[c][v] + xo
            placed.extend([face(c, v)] * xo)
            free_slots = [s for s in active[c] if s.busy_until < v]
            by_cat: dict[int, list[_Slot]] = {1: [], 2: [], 3: [], 4: []}
            for s in free_slots:
                by_cat[4 if s.waiting else cat(s)].append(s)
            # locked blocks starting here
            blocks = blocks_at.get((c, v), [])
            absorbed = by_cat[1][:a1] + by_cat[2][:a2] + by_cat[3][:a3]
            by_cat[1], by_cat[2], by_cat[3] = by_cat[1][a1:], by_cat[2][a2:], by_cat[3][a3:]
            leads = lb
            for k, b in enumerate(blocks):
                if k < len(absorbed):
                    slot = absorbed[k]
                else:
                    room = v - 1 if not p.wrap else 13
                    n = min(leads, room)
                    leads -= n
                    slot = _Slot([joker] * n)
                    active[c].append(slot)
                slot.pieces.extend(b.pieces)
                slot.busy_until = b.end
            # runs in progress: lengths 1, 2 and waiting ones continue; k3 of the long ones too
            stop = by_cat[3][k3:]
            short = by_cat[1] + by_cat[2]
            long_ = by_cat[3][:k3] + by_cat[4]
            for s in stop:
                active[c].remove(s)
                finished[c].append(s)
            reals = real - g
            group_pieces.extend([face(c, v)] * g)
            for k, s in enumerate(short):
                if k < len(short) - y12:
                    s.pieces.append(face(c, v))
                    reals -= 1
                else:
                    s.pieces.append(joker)
            for k, s in enumerate(long_):
                if k < len(long_) - y3:
                    s.pieces.append(face(c, v))
                    s.waiting = False
                    reals -= 1
                else:
                    s.pieces.append(joker)
                    s.waiting = canon
            base, more = divmod(extra, s2) if s2 else (0, 0)
            for k in range(s0 + s1 + s2):
                if k < s0:
                    lead = 0
                elif k < s0 + s1:
                    lead = 1
                else:
                    lead = 2 + base + (1 if k - s0 - s1 < more else 0)
                active[c].append(_Slot([joker] * lead + [face(c, v)]))
                reals -= 1
            assert reals == 0
        _, j = trace[step]
        step += 1
        joker_used += j
        if group_pieces or j:
            melds.extend(_groups_of(group_pieces, j, joker))
        group_pieces = []
    # runs open at the end: in wrap mode some continue into the guessed crossing runs
    for c in range(4):
        slots = finished[c] + active[c]
        succ: dict[int, _Slot] = {}
        has_pred: set[int] = set()
        ends = sorted(active[c], key=lambda s: s.guess > 0)  # prefer real starts as predecessors
        for head in heads[c]:
            pred = next(s for s in ends if id(s) not in succ and cat(s) == head.guess)
            succ[id(pred)] = head
            has_pred.add(id(head))
        seen: set[int] = set()
        for first in [s for s in slots if id(s) not in has_pred] + slots:
            if id(first) in seen:
                continue
            pieces: list[Face] = []
            cur: _Slot | None = first
            while cur is not None and id(cur) not in seen:
                seen.add(id(cur))
                pieces.extend(cur.pieces)
                cur = succ.get(id(cur))
            melds.extend(_split_long(pieces, p))
    done = _finish(p, [_codes(m) for m in melds], list(_codes(placed)), joker_used)
    if done is None:
        return None
    faces = _face_table(face)
    return [[faces[c] for c in m] for m in done[0]], [faces[c] for c in done[1]]


def _add_joker(melds: list[tuple[int, ...]], spec: MeldSpec) -> bool:
    """Put a joker no meld needs where there is room: a group of three, or a run's end."""
    for k, meld in enumerate(melds):
        for candidate in ((*meld, _JOKER_CODE), (_JOKER_CODE, *meld)):
            if _meld_info(candidate, spec).valid:
                melds[k] = candidate
                return True
    return False


def _split_long(pieces: list[Face], p: _Problem) -> list[list[Face]]:
    limit = 26 if p.wrap else 13
    out = []
    while len(pieces) > limit:
        cut = limit if len(pieces) - limit >= 3 else len(pieces) - 3
        out.append(pieces[:cut])
        pieces = pieces[cut:]
    out.append(pieces)
    return out


# ---------------------------------------------------------------------------------------------
# The public entry point. From here on pieces travel as codes (colour * 16 + value, 255 a
# joker, as engine._dp takes them) and tallies as 60 cells (colour * 15 + value): hashing and
# counting ints costs a fraction of doing it on faces, and a solve does a lot of both.


def _weights(rules: RuleSet, mode: Mode) -> tuple[list[int], int]:
    if mode == "value":
        return list(range(15)), rules.joker_penalty
    return [1] * 15, 1


def _piece_value(face: Face, rules: RuleSet) -> int:
    return rules.joker_penalty if face.is_joker else face.rank


def _piece_code(face: Face) -> int:
    return _JOKER_CODE if face.suit < 0 else face.suit * 16 + face.rank


def _codes(meld: Iterable[Face]) -> tuple[int, ...]:
    return tuple([_JOKER_CODE if f.suit < 0 else f.suit * 16 + f.rank for f in meld])


def _cell(code: int) -> int:
    return (code >> 4) * 15 + (code & 15)


@dataclass(frozen=True, slots=True)
class _MeldInfo:
    """What the solver needs to know about one table meld (see :func:`_meld_info`)."""

    valid: bool
    key: tuple  # "the same meld": its pieces, and what they stand for in its reading
    jokers: int
    cells: tuple[int, ...]  # the cells of its real pieces (with repeats)
    hint: tuple[tuple[int, int], ...]  # how it uses cells, for the search's order (see _dp.c)
    run: tuple[int, int, tuple[int, ...]] | None  # a linear run: colour, start, codes in order
    missing: tuple[int, ...]  # a group with room: the pieces of the colours it lacks
    frees: tuple[int, ...]  # exactly one joker: the pieces that joker can stand for


_KNOWN_MELDS: dict[MeldSpec, dict[tuple[int, ...], _MeldInfo]] = {}
_KNOWN_LIMIT = 1 << 15


def _known_melds(spec: MeldSpec) -> dict[tuple[int, ...], _MeldInfo]:
    """The meld facts computed so far under ``spec`` (looked up by the piece codes alone: a
    tuple of ints hashes much faster than the spec)."""
    known = _KNOWN_MELDS.get(spec)
    if known is None:
        known = _KNOWN_MELDS.setdefault(spec, {})
    return known


def _meld_info(
    codes: tuple[int, ...], spec: MeldSpec, known: dict[tuple[int, ...], _MeldInfo] | None = None
) -> _MeldInfo:
    """The facts about a meld (given as piece codes) the solver uses, computed once per meld
    (``known``: :func:`_known_melds` of ``spec``, when the caller has it)."""
    if known is None:
        known = _known_melds(spec)
    info = known.get(codes)
    if info is None:
        if len(known) >= _KNOWN_LIMIT:
            known.clear()
        info = known[codes] = _compute_meld_info(codes, spec)
    return info


def _plain_meld_info(codes: tuple[int, ...], spec: MeldSpec) -> _MeldInfo:
    """:func:`_compute_meld_info` of a meld without jokers (most table melds), without
    building its readings: a group is one value in distinct colours, a run one colour in
    consecutive values (RULES.md "Common ground"; wrap-around runs: :func:`_plain_wrap_run`)."""
    ordered = tuple(sorted(codes))
    cells = tuple(_cell(c) for c in codes)
    n = len(codes)
    values = {c & 15 for c in codes}
    colours = {c >> 4 for c in codes}
    invalid = _MeldInfo(False, (ordered, ()), 0, cells, (), None, (), ())
    if n < spec.min_size:
        return invalid
    key = (ordered, ordered)
    if len(values) == 1 and len(colours) == n and n <= spec.max_group:
        value = ordered[0] & 15
        missing = (
            tuple(s * 16 + value for s in range(4) if s not in colours)
            if n < spec.max_group
            else ()
        )
        hint = tuple((cell, 1) for cell in cells)
        return _MeldInfo(True, key, 0, cells, hint, None, missing, ())
    first, last = ordered[0], ordered[-1]
    if spec.run_mode == "wrap":
        return _plain_wrap_run(codes, ordered, cells, colours, values, spec) or invalid
    if len(colours) == 1 and len(values) == n and last - first == n - 1 and n <= spec.max_run:
        hint: tuple[tuple[int, int], ...] = ((_cell(first), 16),)
        if (last & 15) < 13:
            hint += ((_cell(last) + 1, 4),)
        return _MeldInfo(True, key, 0, cells, hint, (first >> 4, first & 15, ordered), (), ())
    return invalid


def _plain_wrap_run(codes, ordered, cells, colours, values, spec) -> _MeldInfo | None:
    """:func:`_plain_meld_info` of a meld without jokers that is no group, under wrap-around
    runs (RULES.md, Stein: runs wrap 12-13-1-2): a run of fewer than 13 distinct values has
    one reading, from the value whose predecessor is missing; repeated values or a run once
    round the cycle go to :func:`_read_meld_info`; None: invalid."""
    n = len(codes)
    if len(colours) != 1:
        return None
    if len(values) != n or n >= 13:
        return _read_meld_info(codes, spec)
    starts = [v for v in values if (v + 11) % 13 + 1 not in values]
    if len(starts) != 1:  # not one block of consecutive values
        return None
    start = starts[0]
    colour = ordered[0] >> 4
    after = (start + n - 1) % 13 + 1  # the value just after the run's last one
    hint = ((colour * 15 + start, 16), (colour * 15 + after, 4))
    return _MeldInfo(True, (ordered, ordered), 0, cells, hint, None, (), ())


def _compute_meld_info(codes: tuple[int, ...], spec: MeldSpec) -> _MeldInfo:
    """See :func:`_meld_info`.

    ``hint``: the cells it uses and how (``engine._dp`` orders its options by them, so the play
    closest to the table is tried first): group pieces (1), a run's first value (16), the value
    just after a run's end (4)."""
    if _JOKER_CODE not in codes:
        return _plain_meld_info(codes, spec)
    return _read_meld_info(codes, spec)


def _read_meld_info(codes: tuple[int, ...], spec: MeldSpec) -> _MeldInfo:
    """:func:`_compute_meld_info` from the meld's readings (:func:`engine.melds.readings`)."""
    faces = _face_table(Tile)
    meld = tuple(faces[c] for c in codes)
    found = readings(meld, spec)
    cells = tuple(_cell(c) for c in codes if c != _JOKER_CODE)
    jokers = len(codes) - len(cells)
    if not found:
        return _MeldInfo(False, (tuple(sorted(codes)), ()), jokers, cells, (), None, (), ())
    reading = found[0]
    key = (tuple(sorted(codes)), tuple(sorted(_piece_code(f) for f in reading.stands_for)))
    first, last = reading.stands_for[0], reading.stands_for[-1]
    run = None
    missing: tuple[int, ...] = ()
    if reading.kind == "group":
        hint = tuple((cell, 1) for cell in cells)
        if len(codes) < spec.max_group:
            present = {c >> 4 for c in codes if c != _JOKER_CODE}
            missing = tuple(s * 16 + first.rank for s in range(4) if s not in present)
    else:
        after = last.rank % 13 + 1 if spec.run_mode == "wrap" else last.rank + 1
        hint = ((first.suit * 15 + first.rank, 16),)
        if after <= 13:
            hint += ((last.suit * 15 + after, 4),)
        if spec.run_mode == "linear":
            run = (first.suit, first.rank, _codes(reading.faces))
    frees: tuple[int, ...] = ()
    if jokers == 1:
        if reading.kind == "run":
            meanings = set(reading.joker_meanings())
        else:
            meanings = {m for r in found for m in r.joker_meanings()}
        frees = tuple(sorted(_piece_code(f) for f in meanings))
    return _MeldInfo(True, key, jokers, cells, hint, run, missing, frees)


def _hints(infos: Iterable[_MeldInfo]) -> bytes:
    """Per cell, how the given table melds use it (each kind capped at 3): ``engine._dp``
    tries the options closest to the table first (never changes the answer)."""
    hints = [0] * 60
    for info in infos:
        for cell, unit in info.hint:
            if (hints[cell] // unit) & 3 != 3:
                hints[cell] += unit
    return bytes(hints)


_HINT_KIND = {1: 0, 4: 1, 16: 2}


class _Hints:
    """:func:`_hints` of some melds, and of them less one (each kind is a count capped at 3:
    only the cells of the one left out change)."""

    def __init__(self, infos: Iterable[_MeldInfo]) -> None:
        infos = list(infos)
        counts = [0] * 256  # cell * 4 + kind (1, 4, 16 -> 0, 1, 2)
        for info in infos:
            for cell, unit in info.hint:
                counts[cell * 4 + _HINT_KIND[unit]] += 1
        self.counts = counts
        self.all = _hints(infos)

    def _cell(self, cell: int) -> int:
        counts = self.counts
        base = cell * 4
        return min(counts[base], 3) + 4 * min(counts[base + 1], 3) + 16 * min(counts[base + 2], 3)

    def without(self, info: _MeldInfo | None) -> bytes:
        """The hints with one meld (``info``, None: none) left out."""
        if info is None or not info.hint:
            return self.all
        counts = self.counts
        for cell, unit in info.hint:
            counts[cell * 4 + _HINT_KIND[unit]] -= 1
        out = bytearray(self.all)
        for cell, _unit in info.hint:
            out[cell] = self._cell(cell)
        for cell, unit in info.hint:
            counts[cell * 4 + _HINT_KIND[unit]] += 1
        return bytes(out)


def _grid(cells: list[int]) -> list[list[int]]:
    return [cells[0:15], cells[15:30], cells[30:45], cells[45:60]]


@dataclass(slots=True)
class _Context:
    """One solve: the table as codes and meld facts, and what every search of it shares."""

    table: list[list[Face]]
    codes: list[tuple[int, ...]]
    infos: list[_MeldInfo]
    rules: RuleSet
    spec: MeldSpec
    face: type[Face]
    weight: list[int]
    joker_weight: int
    open_min: int
    known: dict[tuple[int, ...], _MeldInfo]  # _known_melds(spec)
    pieces: set[tuple[int, ...]] = field(default_factory=set)  # each table meld's sorted codes
    jokers_stay: bool = False  # table jokers stay in their melds (see solve)
    keys: dict[tuple[int, ...], tuple | None] = field(default_factory=dict)  # key() so far

    def key(self, meld: tuple[int, ...]) -> tuple | None:
        """What "the same meld" means (:attr:`_MeldInfo.key`), or None when no table meld has
        these pieces (most new melds: their facts are then never worked out)."""
        keys = self.keys
        if meld in keys:
            return keys[meld]
        key = None
        if tuple(sorted(meld)) in self.pieces:
            key = _meld_info(meld, self.spec, self.known).key
        keys[meld] = key
        return key

    def worth(self, code: int) -> int:
        return self.joker_weight if code == _JOKER_CODE else self.weight[code & 15]


@dataclass(slots=True)
class _Setup:
    """One treatment of the table before the search: the pieces that must be used, the rack
    pieces that may be, the rack pieces already placed, and what the treatment of each locked
    joker meld did (Rummikub, no split; see :func:`_choices`)."""

    need: list[int]  # 60 cells
    jokers_need: int
    opt: list[int]  # 60 cells
    jokers_opt: int
    placed: list[int]  # rack pieces placed whatever the search does (codes)
    loose: list[int]  # table melds whose pieces are in ``need``
    kept: list[int]  # table melds kept exactly (fixed, or locked and left alone)
    blocks: dict[int, _Block] = field(default_factory=dict)  # locked runs kept as blocks
    extended: dict[int, int] = field(default_factory=dict)  # locked groups: meld -> added piece

    def copy(self) -> _Setup:
        return _Setup(
            self.need[:],
            self.jokers_need,
            self.opt[:],
            self.jokers_opt,
            self.placed[:],
            self.loose[:],
            self.kept[:],
            dict(self.blocks),
            dict(self.extended),
        )

    def new_melds(self, ctx: _Context, melds: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The extended locked groups (first), then ``melds``."""
        extended = [(*ctx.codes[i], piece) for i, piece in self.extended.items()]
        return extended + melds

    def problem(self, ctx: _Context) -> _Problem:
        return _Problem(
            _grid(self.need),
            _grid(self.opt),
            ctx.weight,
            self.jokers_need,
            self.jokers_opt,
            ctx.joker_weight,
            ctx.spec.run_mode == "wrap",
            ctx.open_min,
            list(self.blocks.values()),
            ctx.face,
            hints=_hints(ctx.infos[i] for i in self.loose),
        )


@dataclass(slots=True)
class _Found:
    score: int
    melds: list[tuple[int, ...]]  # new melds (besides the kept ones), as piece codes
    kept: list[int]  # table melds kept exactly (fixed, or locked and left alone)
    placed: list[int]  # piece codes
    setup: _Setup  # the same play as a partition question: every placed piece is needed


_Choice = tuple[str, int, int, bool]
"""How one locked joker meld is treated: (kind, meld, piece code, from the rack)."""


def _choices(
    index: int, info: _MeldInfo, rack: list[int], pool: list[int], frees: bool = True
) -> list[_Choice]:
    """The treatments of a table meld holding a joker under ``joker_meld_no_split`` (see the
    module docstring): kept (a run as an extendable block), extended by one missing colour (a
    group), or freed by a rack tile it stands for (one joker only; not when ``frees`` is off).
    ``rack``/``pool``: cell tallies of the rack pieces and of the loose table pieces."""
    choices: list[_Choice] = [("block" if info.run else "keep", index, 0, False)]
    for piece in info.missing:
        if rack[_cell(piece)]:
            choices.append(("extend", index, piece, True))
        if pool[_cell(piece)]:
            choices.append(("extend", index, piece, False))
    for piece in info.frees if frees else ():
        if rack[_cell(piece)]:
            choices.append(("free", index, piece, True))
    return choices


def _tally(codes: Iterable[int]) -> tuple[list[int], int]:
    cells = [0] * 60
    jokers = 0
    for code in codes:
        if code == _JOKER_CODE:
            jokers += 1
        else:
            cells[(code >> 4) * 15 + (code & 15)] += 1
    return cells, jokers


def _untally(cells: list[int], jokers: int) -> list[int]:
    codes = [(cell // 15) * 16 + cell % 15 for cell, n in enumerate(cells) for _ in range(n)]
    return codes + [_JOKER_CODE] * jokers


def _best(
    ctx: _Context, hand: list[int], keep: set[int], must: list[int] | None, target: int
) -> _Found | None:
    """The best play of ``hand`` (piece codes) with the melds in ``keep`` left alone, scoring
    at least ``target``; ``must``: exactly these rack pieces are placed."""
    infos = ctx.infos
    free = [i for i in range(len(infos)) if i not in keep]
    locked: list[int] = []
    if ctx.rules.joker_meld_no_split or ctx.jokers_stay:
        locked = [i for i in free if infos[i].jokers and infos[i].valid]
    loose = [i for i in free if i not in locked] if locked else free
    need = [0] * 60
    jokers_need = 0
    for i in loose:
        for cell in infos[i].cells:
            need[cell] += 1
        jokers_need += infos[i].jokers
    rack, rack_jokers = _tally(hand if must is None else must)
    choice_lists = [_choices(i, infos[i], rack, need, not ctx.jokers_stay) for i in locked]
    # every treatment with the most it could score (every placeable rack piece placed), the
    # most promising first: a good play found early lets the search drop the others quickly
    setups: list[tuple[int, _Setup, _Problem, int]] = []
    for config in itertools.product(*choice_lists):
        setup = _Setup(need[:], jokers_need, rack[:], rack_jokers, [], loose, sorted(keep))
        if not _treat(ctx, setup, config):
            continue
        if must is not None:  # the rest of the named pieces must be used: they are needed
            setup.placed += _untally(setup.opt, setup.jokers_opt)
            setup.need = [a + b for a, b in zip(setup.need, setup.opt, strict=True)]
            setup.jokers_need += setup.jokers_opt
            setup.opt = [0] * 60
            setup.jokers_opt = 0
        constant = sum(ctx.worth(code) for code in setup.placed)
        problem = setup.problem(ctx)
        setups.append((_upper_bound(problem) + constant, setup, problem, constant))
    if len(setups) > 1:
        setups.sort(key=lambda entry: (-entry[0], -len(entry[1].kept)))
    best: _Found | None = None
    for most, setup, problem, constant in setups:
        if most < target or (
            best is not None
            and (most < best.score or (most == best.score and len(setup.kept) <= len(best.kept)))
        ):
            continue  # cannot beat the best play (a tie wins only by keeping more melds)
        goal = target if best is None else max(target, best.score)
        found = _search(ctx, setup, goal, False, constant, problem)
        if found is not None and (
            best is None
            or found.score > best.score
            or (found.score == best.score and len(found.kept) > len(best.kept))
        ):
            best = found
    return best


def _treat(ctx: _Context, setup: _Setup, config: Sequence[_Choice]) -> bool:
    """Apply one treatment of the locked joker melds to ``setup``; False when it needs a
    piece that is not there."""
    faces = _face_table(ctx.face)
    for kind, i, piece, from_rack in config:
        info = ctx.infos[i]
        if kind == "keep":
            setup.kept.append(i)
            continue
        if kind == "block":
            assert info.run is not None
            colour, start, codes = info.run
            setup.blocks[i] = _Block(colour, start, [faces[c] for c in codes])
            continue
        cell = _cell(piece)
        source = setup.opt if from_rack else setup.need
        if not source[cell]:
            return False
        source[cell] -= 1
        if from_rack:
            setup.placed.append(piece)
        if kind == "extend":
            setup.extended[i] = piece
        else:  # free: the meld's real tiles, the freeing tile and the joker become loose
            for c in info.cells:
                setup.need[c] += 1
            setup.need[cell] += 1
            setup.jokers_need += 1
            setup.loose = [*setup.loose, i]
    return True


def _search(
    ctx: _Context,
    setup: _Setup,
    goal: int,
    first: bool,
    constant: int | None = None,
    problem: _Problem | None = None,
) -> _Found | None:
    """The search on one setup, scoring at least ``goal`` (``first``: a tie-break trial, see
    :func:`_run_dp`; ``constant``: the score of ``setup.placed``, and ``problem``: the setup's
    problem, when known)."""
    if constant is None:
        constant = sum(ctx.worth(code) for code in setup.placed)
    if problem is None:
        problem = setup.problem(ctx)
    while True:
        result = _run_dp(problem, goal - constant, first)
        if result is None:
            return None
        score, played = result
        rebuilt = _rebuild_codes(problem, played)
        if rebuilt is not None or not problem.canon:
            break
        problem.canonical = False  # no room for the spare jokers: solve with jokers anywhere
    assert rebuilt is not None
    melds, placed = rebuilt
    # as a partition question: the pieces the search placed are needed from now on
    partition = setup.copy()
    if placed:
        extra, extra_jokers = _tally(placed)
        partition.need = [a + b for a, b in zip(partition.need, extra, strict=True)]
        partition.jokers_need += extra_jokers
        partition.placed += placed
    partition.opt = [0] * 60
    partition.jokers_opt = 0
    return _Found(
        score + constant,
        setup.new_melds(ctx, melds),
        list(setup.kept),
        placed + setup.placed,
        partition,
    )


def _keeping(
    ctx: _Context, setup: _Setup, index: int
) -> tuple[tuple[int, ...], int, int | None, bool] | None:
    """What keeping table meld ``index`` exactly changes in a partition ``setup``: the needed
    cells and jokers that leave the problem (its pieces), a needed cell put back (the piece
    that extended it, a locked group), whether its locked block goes (a locked run); None when
    it cannot be kept (a piece of it extends a joker group). A freed meld is loose: its
    freeing tile stays needed, it is placed elsewhere."""
    info = ctx.infos[index]
    if index in setup.blocks:
        return (), 0, None, True
    if index in setup.extended:
        return (), 0, _cell(setup.extended[index]), False
    if index in setup.loose and all(setup.need[cell] for cell in info.cells):
        return info.cells, info.jokers, None, False
    return None


def _keep_exactly(ctx: _Context, setup: _Setup, index: int) -> bool:
    """Change a partition ``setup`` so that table meld ``index`` stays exactly as it was (see
    :func:`_keeping`); False when it cannot."""
    change = _keeping(ctx, setup, index)
    if change is None:
        return False
    cells, jokers, back, drop = change
    if drop:
        del setup.blocks[index]
    if back is not None:
        del setup.extended[index]
        setup.need[back] += 1
    if index in setup.loose:
        for cell in cells:
            setup.need[cell] -= 1
        setup.jokers_need -= jokers
        setup.loose = [i for i in setup.loose if i != index]
    setup.kept.append(index)
    return True


def _settle(ctx: _Context, found: _Found) -> _Found:
    """The same play with every table meld that came out unchanged counted as kept (and left
    out of its partition question), so that no tie-break trial can move it again."""
    first = len(found.setup.extended)  # the extended joker groups come first
    kept = set(found.kept)
    where: dict[tuple, list[int]] = {}
    for i, info in enumerate(ctx.infos):
        if i not in kept and info.valid:
            where.setdefault(info.key, []).append(i)
    setup = found.setup.copy()
    melds = found.melds[:first]
    for meld in found.melds[first:]:
        key = ctx.key(meld)
        same = where.get(key) if key is not None else None
        if same and _keep_exactly(ctx, setup, same[0]):
            same.pop(0)
            continue
        melds.append(meld)
    return _Found(found.score, melds, setup.kept[:], found.placed, setup)


def _trial(ctx: _Context, found: _Found, index: int) -> _Found | None:
    """The tie-break trial "keep table meld ``index`` exactly": the same placed pieces and the
    same treatment of the other joker melds, the rest a partition question (None when it has
    no answer within :data:`TRIAL_LIMIT` states)."""
    setup = found.setup.copy()
    if not _keep_exactly(ctx, setup, index):
        return None
    trial = _search(ctx, setup, found.score, True, found.score)
    if trial is None:
        return None
    trial.placed = found.placed  # the same pieces (the trial counted them as needed)
    return _settle(ctx, trial)


def _unchanged(ctx: _Context, found: _Found) -> set[int]:
    """Indexes of table melds that appear unchanged in the result."""
    kept = set(found.kept)
    spare = Counter(ctx.key(m) for m in found.melds)
    for i, info in enumerate(ctx.infos):
        if i not in kept and spare[info.key]:
            spare[info.key] -= 1
            kept.add(i)
    return kept


def _mask(codes: Iterable[int]) -> int:
    """A meld's pieces as bits (the k-th copy of piece code c is bit 4c + k), so that the
    pieces two melds share are ``(a & b).bit_count()``."""
    mask = 0
    for code in codes:
        bit = 1 << (code << 2)
        while mask & bit:
            bit <<= 1
        mask |= bit
    return mask


def _arrange_table(ctx: _Context, found: _Found) -> list[list[Face]]:
    """The new table in a natural order: unchanged melds where they were, each changed meld's
    successor at its place (the old meld sharing most pieces with it), brand-new melds last."""
    table = ctx.table
    faces = _face_table(ctx.face)
    kept = set(found.kept)
    spare: dict[tuple | None, list[int]] = {}  # key -> indexes into found.melds
    for k, meld in enumerate(found.melds):
        spare.setdefault(ctx.key(meld), []).append(k)
    unchanged: dict[int, list[Face]] = {}
    used: set[int] = set()
    for i, meld in enumerate(table):
        if i in kept:
            unchanged[i] = list(meld)
            continue
        same = spare.get(ctx.infos[i].key)
        if same:
            used.add(same.pop())
            unchanged[i] = list(meld)
    changed = [(i, _mask(ctx.codes[i])) for i in range(len(table)) if i not in unchanged]
    home: dict[int, list[list[Face]]] = {}
    brand_new: list[list[Face]] = []
    for k, meld in enumerate(found.melds):
        if k in used:
            continue
        mask = _mask(meld)
        best, most = -1, 0
        for i, old in changed:  # the most shared pieces, the first such meld on a tie
            shared = (mask & old).bit_count()
            if shared > most:
                best, most = i, shared
        new = [faces[c] for c in meld]
        if best < 0:
            brand_new.append(new)
        else:
            home.setdefault(best, []).append(new)
    out: list[list[Face]] = []
    for i in range(len(table)):
        if i in unchanged:
            out.append(unchanged[i])
        out.extend(home.get(i, []))
    return out + brand_new


def solve(
    table: Sequence[Sequence[Face]],
    hand: Sequence[Face],
    rules: RuleSet,
    *,
    opened: bool,
    mode: Mode = "count",
    fixed: Iterable[int] = frozenset(),
    must_place: Sequence[Face] | None = None,
    budget: int | None = None,
    prefer_unchanged: bool = True,
    jokers_stay: bool = False,
) -> Solution:
    """The best play of ``hand`` pieces into ``table`` (see :func:`_solve_exact`). With a
    ``budget`` (DP states), a search that would need more raises :class:`SolverBudgetExceeded`
    instead of running on: the bot and the computer players use it to stay responsive.
    ``prefer_unchanged=False`` skips the tie-break (any optimal play, fewer solver passes).
    ``jokers_stay``: every valid table meld holding a joker is kept whole, a run only extended
    at its ends, a group only completed (docs/DECISIONS.md "Table jokers stay in their meld":
    the engine's ``place`` and ``hint`` fall back to this when the best play moves a table
    joker away from its meld, which the model above allows)."""
    key = (
        tuple(_codes(m) for m in table),
        _codes(hand),
        rules,
        opened,
        mode,
        frozenset(fixed),
        None if must_place is None else _codes(must_place),
        prefer_unchanged,
        jokers_stay,
    )
    with _recent_lock:
        known = _recent.get(key)
        if known is not None:
            _recent.move_to_end(key)
            return _copy_solution(known)
    previous = getattr(_budget, "left", None)
    _budget.left = budget
    try:
        solution = _solve_exact(
            table,
            hand,
            rules,
            opened=opened,
            mode=mode,
            fixed=fixed,
            must_place=must_place,
            prefer_unchanged=prefer_unchanged,
            jokers_stay=jokers_stay,
        )
    finally:
        if budget is not None:
            left = _budget.left
            used = budget + 1 if left is None or left < 0 else budget - left
            _budget.spent = getattr(_budget, "spent", 0) + used
        _budget.left = previous
    with _recent_lock:
        _recent[key] = _copy_solution(solution)
        if must_place is None and solution.count:
            # the same table answers "place exactly these pieces" (the typed form of a hint)
            placed = _codes(solution.placed)
            _recent[(*key[:6], placed, *key[7:])] = _copy_solution(solution)
        while len(_recent) > _RECENT_SIZE:
            _recent.popitem(last=False)
    return solution


def states_spent() -> int:
    """DP states spent so far in this thread by :func:`solve` calls with a ``budget`` (a
    remembered answer costs none; one that ran out counts ``budget + 1``): callers that run many
    solves share one budget by it."""
    return getattr(_budget, "spent", 0)


_RECENT_SIZE = 64
"""Solutions kept for repeated questions (a computer player tries ``place`` on a copy of the
game and then plays it; ``hint`` is often followed by the ``place`` it suggested)."""
_recent: OrderedDict[tuple, Solution] = OrderedDict()
_recent_lock = threading.Lock()


def _trial_case(ctx: _Context, setup: _Setup, index: int) -> bytes | None:
    """The trial "keep table meld ``index`` exactly" (:func:`_keeping`) as ``engine._dp.trials``
    takes it: the number of cells to take out of the needed pieces, the jokers to take out, a
    cell to put back (255: none), the locked block to drop (its position among the blocks, 255:
    none), then the cells; None when it cannot be kept."""
    change = _keeping(ctx, setup, index)
    if change is None:
        return None
    cells, jokers, back, drop = change
    block = list(setup.blocks).index(index) if drop else 255
    return bytes((len(cells), jokers, 255 if back is None else back, block, *cells))


def _keep_more(ctx: _Context, found: _Found, unchanged: set[int]) -> _Found:
    """The tie-break: with the placed pieces fixed, keep one more table meld unchanged while
    the rest still makes valid melds, meld by meld in table order (inclusion-maximal: no
    single further meld can be kept). With the pieces fixed, each trial is a partition
    question; ``engine._dp.trials`` runs them in order until one succeeds (with wrap-around
    runs it makes each trial's cut of the cycle and guessed crossing runs itself, as a search
    of that trial alone would, and each trial carries the order hints of its own table)."""
    found = _settle(ctx, found)
    order = [i for i, info in enumerate(ctx.infos) if i not in unchanged and info.valid]
    wrap = ctx.spec.run_mode == "wrap"
    while order:
        setup = found.setup
        cases = bytearray()
        tried = []
        hints = _Hints(ctx.infos[j] for j in setup.loose) if wrap else None
        loose = set(setup.loose)
        for i in order:
            case = _trial_case(ctx, setup, i)
            if case is not None:
                cases += case
                if hints is not None:
                    cases += hints.without(ctx.infos[i] if i in loose else None)
                tried.append(i)
        if not tried:
            break
        args = _dp_arguments(setup.problem(ctx))
        status, _spent, _score, melds, placed, used, k = _dp_call(
            _dp.trials, args, 0, TRIAL_LIMIT, bytes(cases)
        )
        if status != 1:
            break
        index = tried[k]
        trial = _kept_play(ctx, found, index, _Played(melds, placed, used))
        if trial is not None:
            found = trial
            unchanged = _unchanged(ctx, found)
        order = [j for j in order[order.index(index) + 1 :] if j not in unchanged]
    return found


def _kept_play(ctx: _Context, found: _Found, index: int, played: _Played) -> _Found | None:
    """The play a successful trial of :func:`_keep_more` found, settled."""
    setup = found.setup.copy()
    _keep_exactly(ctx, setup, index)
    rebuilt = _rebuild_codes(setup.problem(ctx), played)
    if rebuilt is None:  # no room for a spare joker: the trial again with jokers anywhere
        return _trial(ctx, found, index)
    melds, _placed = rebuilt
    return _settle(
        ctx, _Found(found.score, setup.new_melds(ctx, melds), setup.kept[:], found.placed, setup)
    )


def forget_recent() -> None:
    """Forget the remembered solutions (benchmarks time every solve afresh)."""
    with _recent_lock:
        _recent.clear()


def _copy_solution(solution: Solution) -> Solution:
    return Solution(
        solution.count,
        solution.value,
        list(solution.placed),
        [list(m) for m in solution.table],
        solution.changed_melds,
    )


def _solve_exact(
    table: Sequence[Sequence[Face]],
    hand: Sequence[Face],
    rules: RuleSet,
    *,
    opened: bool,
    mode: Mode = "count",
    fixed: Iterable[int] = frozenset(),
    must_place: Sequence[Face] | None = None,
    prefer_unchanged: bool = True,
    jokers_stay: bool = False,
) -> Solution:
    """The best play of ``hand`` pieces into ``table`` under ``rules`` (see the module docstring
    for the exact model; ``jokers_stay``: see :func:`solve`).

    ``mode="count"`` places the most pieces, ``"value"`` the most face value; ties keep the most
    table melds unchanged. ``fixed``: indexes of table melds that must stay as they are (Stein
    Plus claims of other players). ``opened=False``: the table is untouched and the rack alone must
    meet the opening rule (RULES.md: Rummikub 30 points, Stein one meld of 3); nothing is placed
    when it cannot. ``must_place``: exactly these rack pieces are placed (the ``place`` command);
    when that is impossible the solution places nothing (``count == 0``).
    """
    if mode not in ("count", "value"):
        raise ValueError(f"mode must be 'count' or 'value', not {mode!r}")
    if rules.family != "tile" or rules.run_mode not in ("linear", "wrap"):
        raise RummyError("solver.tiles_only", preset=rules.preset)
    table_list = [list(m) for m in table]
    spec = rules.meld_spec
    hand_codes = list(_codes(hand))
    must = list(_codes(must_place)) if must_place is not None else None
    if must is not None:
        left = Counter(hand_codes)
        for piece, code in zip(must_place or (), must, strict=True):
            if not left[code]:
                raise RummyError("piece.not_in_rack", piece=str(piece))
            left[code] -= 1
    keep = {i for i in fixed if 0 <= i < len(table_list)}
    # melds that are not valid (a working table mid-turn) are never kept as they are
    open_min = 0
    if not opened:
        keep = set(range(len(table_list)))
        open_min = rules.opening_minimum
    nothing = Solution(0, 0, [], [list(m) for m in table_list], 0)
    if must is not None and not must:
        return nothing
    weight, joker_weight = _weights(rules, mode)
    face_type: type[Face] = next(
        (type(f) for f in itertools.chain(hand, *table_list) if not f.is_joker), Tile
    )
    table_codes = [_codes(m) for m in table_list]
    known = _known_melds(spec)
    infos = [_meld_info(m, spec, known) for m in table_codes]
    ctx = _Context(
        table_list,
        table_codes,
        infos,
        rules,
        spec,
        face_type,
        weight,
        joker_weight,
        open_min,
        known,
        {info.key[0] for info in infos},
        jokers_stay,
    )
    found = _best(ctx, hand_codes, keep, must, 0)
    if found is None or (must is None and not found.placed):
        return nothing
    if must is not None and Counter(found.placed) != Counter(must):
        return nothing
    # ties: keep more table melds unchanged, one at a time (inclusion-maximal), the placed
    # pieces fixed: each trial is a pure partition question, quick to settle
    unchanged = _unchanged(ctx, found)
    if prefer_unchanged:
        found = _keep_more(ctx, found, unchanged)
        unchanged = _unchanged(ctx, found)
    new_table = _arrange_table(ctx, found)
    faces = _face_table(face_type)
    placed = [faces[c] for c in sorted(found.placed)]  # jokers (255) last
    value = sum(_piece_value(f, rules) for f in placed)
    changed = sum(1 for i in range(len(table_list)) if i not in keep and i not in unchanged)
    return Solution(len(placed), value, placed, new_table, changed)
