"""Help: ``place`` (the exact solver fits named rack pieces into the table) and ``hint``
(engine/hints.py), where the preset allows help."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..commands import Command
from ..errors import RummyError
from ..game import Event
from ..hints import tile_hint
from ..pieces import Face, format_faces
from ..solver import SolverBudgetExceeded, solve
from .claims import fixed_melds
from .jokers import joker_faults
from .turn import (
    HELP_BUDGET,
    Meld,
    TurnContext,
    arrange,
    from_rack,
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
    solution = solve_working(g, seat, must_place)
    if not solution.count:
        return solution, None
    try:
        check_solution(g, solution.table, solution.placed)
        return solution, None
    except RummyError as moved:
        try:
            kept = solve_working(g, seat, must_place, jokers_stay=True)
            if kept.count:
                check_solution(g, kept.table, kept.placed)
        except (SolverBudgetExceeded, RummyError):
            kept = None
        return kept, moved


def place(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """Let the solver fit exactly these rack pieces into the table (where help is on)."""
    if not g.rules.help_allowed:
        raise RummyError("help.not_allowed")

    ids = from_rack(g, c.pieces)  # names the piece when it is not in the rack
    try:
        solution, moved = solve_keeping_jokers(g, seat, c.pieces)
    except SolverBudgetExceeded:
        raise RummyError("place.too_hard", pieces=format_faces(c.pieces)) from None
    if solution is None or solution.count != len(c.pieces):
        if moved is not None:  # every table that holds them moves a table joker
            raise moved
        key = "why.place.one" if len(c.pieces) == 1 else "why.place.many"
        reason = {"key": key, "pieces": format_faces(c.pieces)}
        raise RummyError("place.impossible", reason=reason)
    adopt_solution(g, solution.table, ids)
    return [working_event(g, seat, "place", pieces=format_faces(c.pieces))]


def check_solution(g: TurnContext, melds: Sequence[Sequence[Face]], placed: Sequence[Face]) -> None:
    """Would ``place`` accept this solver table (the working table plus ``placed``)? Raises
    the ``place.impossible`` error when it moves a table joker; no solving is repeated."""
    probe = g.copy()
    adopt_solution(probe, [list(m) for m in melds], from_rack(probe, placed))


def adopt_solution(g: TurnContext, melds: list[list[Face]], placed: list[int]) -> None:
    """Rebuild the working table from solver melds, reusing ids, or raise
    ``place.impossible`` and change nothing.

    A working meld the solver left as it is keeps its very ids and its claim (a claim ends
    only by ``unclaim``: every claim must come back unchanged). Other melds take ids by
    face; the solver treats jokers as interchangeable, so each table joker goes to the new
    meld that shares most real tiles with its meld at the start of the turn. The result must
    keep every joker rule (:func:`~engine.tile.jokers.joker_faults`), as the manual commands do."""
    start = start_jokers(g)
    homes = {
        j: Counter(f for f in g.faces(g.table[index].ids) if not f.is_joker)
        for j, (index, _) in start.items()
    }
    pool = [i for m in g.turn.table for i in m.ids] + list(placed)
    solver = [Counter(faces) for faces in melds]
    chosen: dict[int, Meld] = {}
    # claims first, then every other meld the solver kept exactly
    order = sorted(enumerate(g.turn.table, 1), key=lambda nm: nm[1].claim is None)
    for no, meld in order:
        same = Counter(g.faces(meld.ids))
        k = next((k for k, c in enumerate(solver) if k not in chosen and c == same), None)
        if k is None:
            if meld.claim is not None:
                raise place_refused(RummyError("claim.dissolve_first", meld=no))
            continue
        chosen[k] = meld.copy()
        for i in meld.ids:
            pool.remove(i)
    by_face: dict[Face, list[int]] = {}
    for i in pool:
        by_face.setdefault(g.deck[i], []).append(i)
    new_table = []
    for k, faces in enumerate(melds):
        if k in chosen:
            new_table.append(chosen[k])
            continue
        real = Counter(f for f in faces if not f.is_joker)
        ids = []
        for face in faces:
            matches = by_face[face]
            pick = matches[0]
            if face.is_joker and len(matches) > 1:
                # the first joker whose old meld shares most real tiles with this one
                pick = min(
                    matches,
                    key=lambda i: -sum((real & homes[i]).values()) if i in homes else 1,
                )
            matches.remove(pick)
            ids.append(pick)
        new_table.append(Meld(ids))
    before = g.turn.snapshot()
    g.turn.table = new_table
    for meld in new_table:
        meld.ids = arrange(g, meld.ids)
    play_from_rack(g, placed)
    on_table = {i for m in new_table for i in m.ids}
    faults = [
        f
        for f in joker_faults(g)
        if not f.code.startswith("joker.freed") or f.params.get("joker") in on_table
    ]
    if faults:
        g.turn.restore(before)
        raise place_refused(faults[0])


def place_refused(fault: RummyError) -> RummyError:
    reason = {"key": "why.place.breaks_rule", "fault": nested(fault, rstrip=".")}
    return RummyError("place.impossible", reason=reason)


def hint(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """A private move the engine accepts as typed, for the state of the turn (engine/hints.py)."""
    return tile_hint(g, seat)
