"""Help: ``place`` (the exact solver fits named rack pieces into the table) and ``hint``
(engine/hints.py), where the preset allows help."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from ..commands import Command, parse_command
from ..errors import RummyError
from ..game import Event
from ..hints import tile_hint
from ..melds import explain_invalid, is_valid
from ..pieces import Face, Tile, format_faces
from ..solver import SolverBudgetExceeded, solve
from .claims import fixed_melds
from .jokers import joker_faults
from .legal import legal_play, place_is_plain
from .turn import (
    HELP_BUDGET,
    Meld,
    TurnContext,
    arrange,
    from_rack,
    held_jokers,
    nested,
    play_from_rack,
    start_jokers,
    working_event,
)


def solve_working(
    g: TurnContext, seat: int, must_place: Sequence[Face] | None, *, jokers_stay: bool = False
):
    """The exact solver on the working table, within :data:`HELP_BUDGET` DP states
    (raises ``SolverBudgetExceeded`` beyond it, so a player never waits long).
    ``jokers_stay``: table melds holding a joker are only kept or extended (the retry when
    the best play would move a table joker away from its meld)."""
    return solve(
        g.table_faces(working=True),
        g.faces(g.turn.rack),
        g.rules,
        opened=g.opened[seat],
        mode="count",
        fixed=fixed_melds(g, seat),
        must_place=list(must_place) if must_place is not None else None,
        budget=HELP_BUDGET,
        jokers_stay=jokers_stay,
    )


def solve_keeping_jokers(g: TurnContext, seat: int, must_place: Sequence[Face] | None):
    """:func:`solve_working`, and when its table would move a table joker out of its meld
    (:func:`check_solution`) the best play that keeps every joker meld whole instead.
    Returns the play (None: none such within the budget) and the error that refused the
    first one (None when it was accepted)."""
    solution, moved, _ = _solve_checked(g, seat, must_place, None)
    return solution, moved


def _solve_checked(
    g: TurnContext, seat: int, must_place: Sequence[Face] | None, ids: list[int] | None
):
    """:func:`solve_keeping_jokers`, and whether the play it returns is laid on the working
    table already: the check lays it, and where that is exactly what ``place`` lays (the rack
    pieces ``ids``, in that order) it stays laid."""
    solution = solve_working(g, seat, must_place)
    if not solution.count:
        return solution, None, False
    try:
        return solution, None, _check_laid(g, solution.table, solution.placed, ids)
    except RummyError as moved:
        try:
            kept = solve_working(g, seat, must_place, jokers_stay=True)
            laid = bool(kept.count) and _check_laid(g, kept.table, kept.placed, ids)
        except (SolverBudgetExceeded, RummyError):
            kept, laid = None, False
        return kept, moved, laid


def place(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """Let the solver fit exactly these rack pieces into the table (where help is on).

    First the answer ``place`` always gave (old logs replay it exactly); only when that
    refuses, the best play the engine accepts (:func:`engine.tile.legal.legal_play`), with a
    ``swap`` first where the pieces fit only after one - not inside
    :func:`~engine.tile.legal.plain_place` (the computer players' probe)."""
    if not g.rules.help_allowed:
        raise RummyError("help.not_allowed")

    if c.melds:
        return place_as_written(g, seat, c)
    ids = from_rack(g, c.pieces)  # names the piece when it is not in the rack
    try:
        solution, moved, laid = _solve_checked(g, seat, c.pieces, ids)
    except SolverBudgetExceeded:
        raise RummyError("place.too_hard", pieces=format_faces(c.pieces)) from None
    if solution is None or solution.count != len(c.pieces):
        if moved is not None:  # every table that holds them moves a table joker
            refused = moved
        else:
            key = "why.place.one" if len(c.pieces) == 1 else "why.place.many"
            reason = {"key": key, "pieces": format_faces(c.pieces)}
            refused = RummyError("place.impossible", reason=reason)
    else:
        try:
            if not laid:
                adopt_solution(g, solution.table, ids)
            return [working_event(g, seat, "place", pieces=format_faces(c.pieces))]
        except RummyError as fault:
            refused = fault
    if place_is_plain():
        raise refused
    written = legal_place(g, seat, c.pieces)
    if written is None:
        raise refused
    raise PlaceWrittenOut(written)


class PlaceWrittenOut(Exception):
    """Not a refusal: ``place`` found its pieces a home only by the legal search. The game runs
    ``commands`` instead (the moves first, then ``place PIECES = TABLE``), each as if typed, and
    the command log keeps them (:meth:`engine.game.PieceGame.log_form`): a replay then never
    depends on the search, whose answers may change from one version to the next."""

    def __init__(self, commands: list[Command]) -> None:
        super().__init__(commands)
        self.commands = commands


def legal_place(g: TurnContext, seat: int, pieces: Sequence[Face]) -> list[Command] | None:
    """``place`` by the legal search, written out: the moves it makes first (a ``swap``; a rack
    joker added to a locked group), then ``place PIECES = TABLE`` with the solver's table;
    None when no accepted play places exactly these pieces. Nothing is changed here."""
    try:
        found = legal_play(g, seat, pieces, whole_turn=False)
    except SolverBudgetExceeded:
        return None
    if found.solution is None:
        return None
    table = tuple(tuple(meld) for meld in found.solution.table)
    laid = Command("place", pieces=tuple(found.solution.placed), melds=table)
    return [*(parse_command(text) for text in found.before), laid]


def place_as_written(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """``place PIECES = TABLE``: lay exactly these rack pieces so that the working table is
    TABLE (the form the command log keeps of a place the legal search resolved, its melds as the
    solver gave them). TABLE must hold every working table piece and these, each meld a valid
    meld in some order; it is laid as ``place`` lays a solver table (:func:`adopt_solution`:
    each meld arranged, table jokers placed), keeping every joker rule."""
    ids = from_rack(g, c.pieces, prefer=_gained(g, seat))
    have = Counter(f for meld in g.table_faces(working=True) for f in meld) + Counter(c.pieces)
    if Counter(f for meld in c.melds for f in meld) != have:
        reason = {"key": "why.place.not_this_table", "pieces": format_faces(c.pieces)}
        raise RummyError("place.impossible", reason=reason)
    spec = g.rules.meld_spec
    for no, meld in enumerate(c.melds, 1):
        if not is_valid(meld, spec):  # in any order: the melds are laid as place lays them
            raise explain_invalid(meld, spec, no)
    adopt_solution(g, [list(meld) for meld in c.melds], ids, retry=True)
    return [working_event(g, seat, "place", pieces=format_faces(c.pieces))]


def _gained(g: TurnContext, seat: int) -> list[int]:
    """The rack pieces gained this turn (a swap's freed joker first), which a written-out place
    lays before equal pieces of the rack (a freed joker must be played)."""
    committed = set(g.racks[seat])
    return [*(i for i in g.turn.rack if i not in committed), *g.turn.freed]


def check_solution(g: TurnContext, melds: Sequence[Sequence[Face]], placed: Sequence[Face]) -> None:
    """Would ``place`` accept this solver table (the working table plus ``placed``)? Raises
    the ``place.impossible`` error when it moves a table joker; no solving is repeated, and
    the working table is left as it was."""
    _check_laid(g, melds, placed, None)


def _check_laid(
    g: TurnContext,
    melds: Sequence[Sequence[Face]],
    placed: Sequence[Face],
    ids: list[int] | None,
) -> bool:
    """:func:`check_solution`, laying the table on the working turn to see; it stays laid
    (True) when the rack pieces it took are ``ids`` in that order, else the turn is restored."""
    before = g.turn.snapshot()
    taken = from_rack(g, placed)
    adopt_solution(g, [list(m) for m in melds], taken)  # unchanged when it raises
    if taken == ids:
        return True
    g.turn.restore(before)
    return False


def adopt_solution(
    g: TurnContext, melds: list[list[Face]], placed: list[int], *, retry: bool = False
) -> None:
    """Rebuild the working table from solver melds, reusing ids, or raise
    ``place.impossible`` and change nothing.

    A working meld the solver left as it is keeps its very ids and its claim (a claim ends
    only by ``unclaim``: every claim must come back unchanged). Other melds take ids by
    face; the solver treats jokers as interchangeable, so each table joker goes to the new
    meld that shares most real tiles with its meld at the start of the turn, and a real tile
    of equal face is taken from such a joker's old meld. The result must keep every joker
    rule (:func:`~engine.tile.jokers.joker_faults`), as the manual commands do. That first
    assignment is the one ``place`` always made; with ``retry`` (the legal search,
    engine/tile/legal.py), when it breaks a rule, other orders of the jokers and of equal tiles
    are tried (at most :data:`ADOPT_ATTEMPTS`), also with kept melds giving up their ids."""
    start = start_jokers(g)
    homes = {
        j: Counter(f for f in g.faces(g.table[index].ids) if not f.is_joker)
        for j, (index, _) in start.items()
    }
    start_home = {i: index for index, meld in enumerate(g.table) for i in meld.ids}
    played = set(placed) | set(g.turn.played)
    before = g.turn.snapshot()

    def ids_for(keep_all: bool) -> _Ids:
        chosen, by_face = _kept_exactly(g, melds, placed, keep_all)
        return _Ids(g, melds, chosen, by_face, homes, start_home, played)

    def faults_of(table: list[Meld]) -> list[RummyError]:
        """Lay ``table``: it stays laid (no faults), or the turn is as before (its faults)."""
        faults = _lay(g, table, placed)
        if faults:
            g.turn.restore(before)
        return faults

    first_faults: list[RummyError] | None = None
    attempts = ADOPT_ATTEMPTS
    # first every working meld the solver kept exactly keeps its ids; then (when a joker rule
    # is broken) only the claims, so that tiles of equal face may change places
    for keep_all in (True, False):
        ids = ids_for(keep_all)
        if keep_all:  # the plain assignment first (the one place always made)
            faults = faults_of(ids.plain())
            if not faults:
                return
            first_faults = faults
            if not retry:  # the one assignment place always made
                raise place_refused(faults[0])
        doubles = sorted(
            {f for f, found in ids.by_face.items() if len(found) > 1 and not f.is_joker}, key=str
        )
        slots = sum(1 for k, m in enumerate(melds) if k not in ids.chosen for f in m if f.is_joker)
        jokers = ids.by_face.get(Tile.joker(), [])
        plans: list[list[int] | None] = [None]
        plans += [list(p) for p in itertools.islice(itertools.permutations(jokers, slots), 120)]
        for size in range(len(doubles) + 1):
            for flips in itertools.combinations(doubles, size):
                for plan in plans:
                    if attempts <= 0:
                        break
                    attempts -= 1
                    faults = faults_of(ids.assign(plan, set(flips)))
                    if not faults:
                        return
                    if first_faults is None:
                        first_faults = faults
                if attempts <= 0 or (size == 0 and not doubles):
                    break
        if not keep_all or attempts <= 0:
            break
    # last: a meld of held jokers keeps one tile of their start meld for each of them, and
    # leaves the others to the melds after it (Stein R1 J J B1 + B1 R1: B1 R1 J | B1 R1 J)
    for keep_all in (True, False):
        if not faults_of(ids_for(keep_all).assign(None, spread=True)):
            return
    assert first_faults
    raise place_refused(first_faults[0])


def _kept_exactly(
    g: TurnContext, melds: list[list[Face]], placed: list[int], keep_all: bool
) -> tuple[dict[int, Meld], dict[Face, list[int]]]:
    """The solver melds that keep a working meld's ids and claim (claims always - only
    ``unclaim`` ends one - and with ``keep_all`` every meld the solver left exactly as it
    was), and the other piece ids by face."""
    pool = [i for m in g.turn.table for i in m.ids] + list(placed)
    deck = g.deck
    solver: dict[
        tuple[tuple[int, int], ...], list[int]
    ] = {}  # melds by their faces (sorted), in order
    for k, faces in enumerate(melds):
        solver.setdefault(_same_faces(faces), []).append(k)
    chosen: dict[int, Meld] = {}
    used: set[int] = set()
    order = sorted(enumerate(g.turn.table, 1), key=lambda nm: nm[1].claim is None)
    for no, meld in order:
        if meld.claim is None and not keep_all:
            continue
        same = solver.get(_same_faces([deck[i] for i in meld.ids]))
        if not same:  # the first solver meld of the same pieces not chosen yet
            if meld.claim is not None:
                raise place_refused(RummyError("claim.dissolve_first", meld=no))
            continue
        chosen[same.pop(0)] = meld.copy()
        used.update(meld.ids)
    by_face: dict[Face, list[int]] = {}
    for i in pool:
        if i not in used:
            by_face.setdefault(deck[i], []).append(i)
    return chosen, by_face


def _same_faces(faces: Sequence[Face]) -> tuple[tuple[int, int], ...]:
    """The pieces of a meld as a sorted key: equal for melds of the same faces in any order."""
    return tuple(sorted((f.suit, f.rank) for f in faces))


ADOPT_ATTEMPTS = 30
"""Id assignments :func:`adopt_solution` tries before it refuses the solver's table: the
solver treats equal faces (and all jokers) as the same piece, the joker rules do not."""


def _lay(g: TurnContext, table: list[Meld], placed: list[int]) -> list[RummyError]:
    """Lay ``table`` as the working table (played: ``placed``); the joker faults it has."""
    g.turn.table = table
    held = held_jokers(g)  # the same for every meld: the committed table and the freed jokers
    for meld in g.turn.table:
        meld.ids = arrange(g, meld.ids, held)
    play_from_rack(g, placed)
    on_table = {i for m in g.turn.table for i in m.ids}
    return [
        f
        for f in joker_faults(g)
        if not f.code.startswith("joker.freed") or f.params.get("joker") in on_table
    ]


class _Ids:
    """Which piece id goes where when solver melds (faces) become the working table."""

    def __init__(self, g, melds, chosen, by_face, homes, start_home, played) -> None:
        self.g, self.melds, self.chosen = g, melds, chosen
        self.by_face, self.homes, self.start_home, self.played = by_face, homes, start_home, played
        self.held = held_jokers(g)
        self.tied = {index for index, _ in self.held.values()}  # start melds of held jokers

    def plain(self) -> list[Meld]:
        """The melds with ids in meld order: each joker the one whose old meld shares most
        real tiles with the new meld, each real tile the first of its face."""
        by_face = {f: list(ids) for f, ids in self.by_face.items()}
        out = []
        for k, faces in enumerate(self.melds):
            if k in self.chosen:
                out.append(self.chosen[k])
                continue
            real: Counter | None = None  # the meld's real tiles, counted when a joker needs them
            ids = []
            for face in faces:
                matches = by_face[face]
                pick = matches[0]
                if face.is_joker and len(matches) > 1:
                    if real is None:
                        real = Counter(f for f in faces if not f.is_joker)
                    here, homes = real, self.homes
                    pick = min(
                        matches,
                        key=lambda i: -sum((here & homes[i]).values()) if i in homes else 1,
                    )
                matches.remove(pick)
                ids.append(pick)
            out.append(Meld(ids))
        return out

    def fit(self, joker: int, real: Counter, played_here: bool) -> float:
        """How well ``joker`` fits a meld of these real tiles (lower is better)."""
        if joker in self.held:
            return -sum((real & self.homes[joker]).values())
        if joker in self.g.turn.freed:
            return -0.75 if played_here else 0
        return -0.5

    def assign(
        self, plan: list[int] | None, flips: set[Face] = frozenset(), spread: bool = False
    ) -> list[Meld]:
        """The melds with ids: the jokers in ``plan`` order (one per joker place, in meld
        order), or (None) each the held joker whose old meld shares most real tiles with the
        new meld, else a free one, a freed Rummikub joker where a rack tile is; then each real
        tile, where there is a choice, from the old meld of such a joker (a freed joker's meld:
        a tile played from the rack, RULES.md "Jokers"); for faces in ``flips`` the last
        suitable id instead of the first. With ``spread`` a meld takes from a held joker's old
        meld only one real tile for each such joker in it."""
        g, melds, held = self.g, self.melds, self.held
        by_face = {f: list(ids) for f, ids in self.by_face.items()}
        plan_left = list(plan) if plan is not None else None
        slot_of: dict[tuple[int, int], int] = {}
        if plan_left is not None:
            for k, faces in enumerate(melds):
                if k in self.chosen:
                    continue
                for n, f in enumerate(faces):
                    if f.is_joker:
                        slot_of[k, n] = plan_left.pop(0)
        new_table: list[Meld | None] = [None] * len(melds)
        # melds with jokers first, so that a table joker gets real tiles of its own old meld
        for k in sorted(range(len(melds)), key=lambda k: not any(f.is_joker for f in melds[k])):
            if k in self.chosen:
                new_table[k] = self.chosen[k]
                continue
            faces = melds[k]
            real = Counter(f for f in faces if not f.is_joker)
            played_here = any(i in self.played for f in real for i in by_face.get(f, ()))
            picked: dict[int, int] = {}
            # the old melds of the held jokers here, and (for ``spread``) how many more of
            # their tiles this meld wants
            homes_here: Counter = Counter()
            freed_here = False
            for n in sorted(range(len(faces)), key=lambda n: not faces[n].is_joker):
                face = faces[n]
                matches = by_face[face]
                if face in flips:
                    matches.reverse()
                pick = matches[0]
                if (k, n) in slot_of:
                    pick = slot_of[k, n]
                elif face.is_joker and len(matches) > 1:
                    pick = min(matches, key=lambda i: self.fit(i, real, played_here))
                elif not face.is_joker and len(matches) > 1:
                    if freed_here:
                        pick = next((i for i in matches if i in self.played), pick)
                    elif homes_here and (not spread or +homes_here):
                        wants = +homes_here if spread else homes_here
                        pick = next((i for i in matches if self.start_home.get(i) in wants), pick)
                    else:  # not a tile some table joker needs in its own meld
                        pick = next(
                            (i for i in matches if self.start_home.get(i) not in self.tied),
                            pick,
                        )
                if face.is_joker and pick in held:
                    homes_here[held[pick][0]] += 1
                elif face.is_joker and pick in g.turn.freed:
                    freed_here = True
                elif not face.is_joker and self.start_home.get(pick) in homes_here:
                    homes_here[self.start_home[pick]] -= 1
                matches.remove(pick)
                if face in flips:
                    matches.reverse()
                picked[n] = pick
            new_table[k] = Meld([picked[n] for n in range(len(faces))])
        return [m for m in new_table if m is not None]


def place_refused(fault: RummyError) -> RummyError:
    reason = {"key": "why.place.breaks_rule", "fault": nested(fault, rstrip=".")}
    return RummyError("place.impossible", reason=reason)


def hint(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """A private move the engine accepts as typed, for the state of the turn (engine/hints.py)."""
    return tile_hint(g, seat)
