"""The ``hint`` command of the tile games: a move that the engine accepts, typed exactly as shown.

A hint answers for the state the turn is in (RULES.md "A turn"): in Stein-Rummy before the two
draws it names the draws (``draw; draw``, or ``pick`` of a visible discard that makes a meld);
otherwise it names a whole rest of the turn, from the working table as it is, or - when the
player's own changes stand in the way or a fresh start places more - after ``reset``. A play ends
with what the preset requires: ``done`` (Rummikub, or a Stein hand emptied by melding),
``discard PIECE`` (Stein), ``draw`` (Rummikub when nothing fits); in Stein Plus ``claim N``
comes first for each group of four the play forms (one CMP each).

Candidates: the exact solver's best play (:func:`engine.solver.solve`, and with the table jokers
kept in their melds when the free answer moves one), the same after each legal ``swap`` of a
table joker with rack tiles (RULES.md "Jokers": in Rummikub the freed joker then goes into a new
meld with rack tiles), a simple legal turn (:func:`engine.autoplay.random_tile_turn`) and the
plain end of the turn. Every candidate is run on a copy of the game, the end of the turn
included, and only accepted ones are offered; the one leaving the fewest pieces on the rack wins
(ties: more claims, no reset, fewer commands). A play is written as ``meld`` / ``add`` commands where the
table allows, else as ``place PIECES``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING

from .autoplay import candidate_melds, random_tile_turn
from .errors import RummyError
from .game import Event
from .melds import joker_meanings, readings
from .pieces import Face, format_faces
from .solver import Solution, SolverBudgetExceeded, solve
from .tile.legal import legal_play, may_move_first, plain_place
from .tile.turn import HELP_BUDGET

if TYPE_CHECKING:
    from .tiles import TileGame

SOLVE_LIMIT = 10
"""Solves one hint may run (each within ``HELP_BUDGET`` states; most take milliseconds)."""
SWAP_LIMIT = 4
"""Swap commands tried per hint (each costs a solve): a table rarely offers more."""
JOKER_MELD_LIMIT = 3
"""New melds for a joker freed in Rummikub tried per swap, when the solver's own play does not
put it into one (RULES.md: the freed joker must be used in a new meld with rack tiles)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One accepted hint: the play (commands before the end), the end of the turn, the pieces
    left on the rack after the play, and how it was found."""

    play: tuple[str, ...]
    end: str
    left: int
    reset: bool
    placed: tuple[str, ...] = ()  # the pieces the whole command takes from the rack
    kept: bool = False  # the solver's play with the table jokers kept in their melds
    claims: int = 0  # Stein Plus claims it makes

    @property
    def text(self) -> str:
        return "; ".join([*self.play, self.end] if self.end else self.play)

    def key(self) -> tuple[int, int, bool, int]:
        return (self.left, -self.claims, self.reset, len(self.play))


def hint_command(event: Event) -> str:
    """The command a hint event offers, exactly as the player may type it."""
    return event.params["command"]


def tile_hint(game: TileGame, seat: int) -> list[Event]:
    """The private ``hint`` answer for ``seat`` in a tile game (see the module docstring)."""
    if not game.rules.help_allowed:
        raise RummyError("help.not_allowed")
    if seat != game.current:
        raise RummyError("turn.not_yours", player=game.players[game.current])
    if not game.draws_complete():
        return [_draws_first(game, seat)]
    search = _Search(seat)
    states = [(game, False)]
    if _changed(game):
        start = accepted(game, seat, "reset")
        if start is not None:
            states.append((start, True))
    options: list[Option] = []
    with plain_place():  # the answers hint always gave (place as it always was)
        for swaps in (False, True):  # the plain plays of both states before any swap
            for state, reset in states:
                options += _options(state, search, reset=reset, swaps=swaps)
    options.sort(key=Option.key)
    options += _legal_options(game, states, search, options)
    options.sort(key=Option.key)
    for option in options:  # the whole text once more, as the player will type it
        if accepted(game, seat, option.text) is not None:
            return [_event(game, seat, option, search.exact)]
    # not reached while the start of a turn can always be ended; say what is safe
    fallback = Option(("reset",), "", len(game.racks[seat]), reset=True)
    return [_event(game, seat, fallback, exact=False)]


# ------------------------------------------------------------------------------- the answer


def _event(game: TileGame, seat: int, option: Option, exact: bool) -> Event:
    # a reset play counts from the start of the turn, any other from the rack as it is
    more = bool(game.turn.played) and not option.reset
    placed = len(game.racks[seat] if option.reset else game.turn.rack) - option.left
    take_back = {"key": "hint.take_back"} if option.reset else ""
    summary: dict[str, object]
    if placed <= 0 and not exact:
        summary = {"key": "hint.none_found", "take_back": take_back}
    elif placed <= 0:
        if option.reset or not game.turn.played:
            summary = {"key": "hint.no_move", "take_back": take_back}
        else:
            summary = {"key": "hint.no_further"}
    else:
        summary = {
            "key": "hint.best" if exact else "hint.good",
            "kept": {"key": "hint.kept"} if option.kept else "",
            "from_start": {"key": "hint.from_start"} if option.reset else "",
            "tiles": {"key": "hint.more_tiles" if more else "hint.tiles", "count": placed},
        }
    return _hint_event(seat, summary, option.text, exact=exact, pieces=option.placed)


def _hint_event(
    seat: int, summary: dict[str, object], command: str, *, exact: bool, pieces: tuple[str, ...]
) -> Event:
    """The private hint: what it is (``summary``) and the ``command`` to type."""
    params = {
        "key": "hint.tile",
        "inexact": "" if exact else {"key": "hint.inexact"},
        "summary": summary,
        "command": command,
    }
    return Event("hint", seat, params, True, pieces)


def _draws_first(game: TileGame, seat: int) -> Event:
    """Stein before (or between) the two draws (RULES.md: "Drawing is not optional")."""
    t = game.turn
    need = game.draws_needed() - t.drawn - t.picked
    may_pick = t.picked < game.rules.discard_picks_per_turn and bool(game.discards)
    plain = ["draw"] * min(need, len(game.pool))
    if len(plain) < need and may_pick:
        top = game.deck[game.discards[-1]]
        plain.append(f"pick {top}")
    choices: list[tuple[list[str], tuple[Face, str] | None]] = []
    useful = _useful_discard(game, seat) if may_pick else None
    if useful is not None:
        draws = ["draw"] * min(need - 1, len(game.pool))
        choices.append(([f"pick {useful[0]}", *draws], useful))
    choices.append((plain, None))
    for commands, why in choices:
        text = "; ".join(commands)
        after = accepted(game, seat, text)
        if after is None or not after.draws_complete():
            continue
        reason: dict[str, object] | str = ""
        if why is not None:
            key = "hint.pick_makes_meld" if why[1] == "meld" else "hint.pick_fits_table"
            reason = {"key": key, "piece": str(why[0])}
        summary = {"key": "hint.draw_first", "why": reason}
        return _hint_event(seat, summary, text, exact=True, pieces=())
    raise RummyError(  # pragma: no cover - draws_complete() is false only while a draw exists
        "turn.draw_first", drawn=t.drawn + t.picked, need=game.rules.draws_per_turn
    )


def _useful_discard(game: TileGame, seat: int) -> tuple[Face, str] | None:
    """A visible discard worth picking, and why: it makes a meld with the rack which the rack
    alone cannot make (``"meld"``, the longest such meld first), else - once opened - it fits
    a table meld the player may touch (``"table"``). Only the top one when the preset allows
    no other."""
    spec = game.rules.meld_spec
    rack = game.faces(game.turn.rack)
    have = Counter(rack)
    stock = game.discards if game.rules.pick_any_discard else game.discards[-1:]
    faces = sorted({game.deck[i] for i in stock}, key=str)
    best: tuple[int, str, Face] | None = None
    for face in faces:
        for meld in candidate_melds([*rack, face], spec):
            if face in meld and Counter(meld) - have:
                key = (-len(meld), str(face), face)
                if best is None or key[:2] < best[:2]:
                    best = key
    if best is not None:
        return best[2], "meld"
    if not game.opened[seat]:
        return None
    table = [game.faces(m.ids) for m in game.turn.table if m.claim is None or m.claim == seat]
    for face in faces:
        if not face.is_joker and any(readings([*meld, face], spec) for meld in table):
            return face, "table"
    return None


# ------------------------------------------------------------------------------- candidates


def accepted(game: TileGame, seat: int, text: str) -> TileGame | None:
    """A copy of the game after ``text`` typed by ``seat``, or None when the engine refuses it."""
    return game.tried(seat, text)


def _changed(game: TileGame) -> bool:
    """Has the player changed the table or the rack since the turn began (after the draws)?"""
    t = game.turn
    if t.played or t.taken or t.freed or game.table_changed():
        return True
    return sorted(t.rack) != sorted(game.racks[game.current])


class _Search:
    """What one hint may still spend: at most :data:`SOLVE_LIMIT` solves (the plain plays come
    first, swaps after), none after one ran out of its budget (``spent``: the table is too
    involved). ``exact``: every search so far was complete (else the answer says it is not
    exact); an incomplete legal search of one state does not stop the search of the next."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.solves = SOLVE_LIMIT
        self.exact = True
        self.spent = False

    def solve(self, game: TileGame, *, jokers_stay: bool, counted: bool = True) -> Solution | None:
        """``counted=False``: a question asked before (the solver remembers its answer)."""
        if self.spent or (counted and self.solves <= 0):
            return None
        if counted:
            self.solves -= 1
        seat = self.seat
        fixed = {k for k, m in enumerate(game.turn.table) if m.claim not in (None, seat)}
        try:
            return solve(
                game.table_faces(working=True),
                game.faces(game.turn.rack),
                game.rules,
                opened=game.opened[seat],
                mode="count",
                fixed=fixed,
                budget=HELP_BUDGET,
                jokers_stay=jokers_stay,
            )
        except SolverBudgetExceeded:
            self.exact, self.spent = False, True
            return None


def _options(game: TileGame, search: _Search, *, reset: bool, swaps: bool) -> list[Option]:
    """The accepted candidates from this state (``reset``: the state after ``reset``): the
    plain end, the solver's play and a simple turn; or (``swaps``) those after joker swaps."""
    seat = search.seat
    prefix = ("reset",) if reset else ()
    found: list[Option] = []

    def consider(state: TileGame, play: tuple[str, ...], kept: bool = False) -> bool:
        option = _consider(game, state, seat, (*prefix, *play), reset=reset, kept=kept)
        if option is not None:
            found.append(option)
        return option is not None

    if swaps:
        tried = 0
        for swap in _swap_commands(game, seat):
            after = accepted(game, seat, swap) if tried < SWAP_LIMIT else None
            if after is not None:
                tried += 1
                consider(after, (swap,))
                _solver_options(after, search, (swap,), consider)
        return found
    consider(game, ())
    _solver_options(game, search, (), consider)
    if not _changed(game):
        simple = random_tile_turn(game, seat, random.Random(f"{game.seed}:{game.turn_no}"))
        play = simple.split("; ")[:-1]  # its own end (a random discard) is replaced
        state = accepted(game, seat, "; ".join(play)) if play else game
        if state is not None:
            consider(state, tuple(play))
    return found


def _consider(
    game: TileGame, state: TileGame, seat: int, play: tuple[str, ...], *, reset: bool, kept: bool
) -> Option | None:
    """The option of ``play`` (typed from ``game``, reaching ``state``) with the claims it forms
    and an end of the turn the engine accepts; None when the turn cannot end so."""
    claims = _claims(state, seat)
    claimed = accepted(state, seat, "; ".join(claims)) if claims else None
    if claimed is not None:
        state, play = claimed, (*play, *claims)
    end = next((e for e in _ends(state) if accepted(state, seat, e) is not None), None)
    if end is None:
        return None
    left = len(state.turn.rack)
    option = Option(play, end, left, reset, _gone(game, state), kept)
    return replace(option, claims=len(claims) if claimed else 0)


def _legal_options(
    game: TileGame, states: list[tuple[TileGame, bool]], search: _Search, options: list[Option]
) -> list[Option]:
    """The best play the engine accepts (engine/tile/legal.py), for each state whose bound -
    the solver's free answer, already known - places more than the best option found: a swap
    first where the play needs one, then the play as commands. A state whose legal search runs
    out of its budget does not stop the next one (the start of the turn often has the simpler
    table), so a hint after changes never offers less than the hint at the start of the turn."""
    seat = search.seat
    found: list[Option] = []
    for state, reset in states:
        if search.spent:
            break
        best = min((o.left for o in options + found), default=None)
        free = search.solve(state, jokers_stay=False, counted=False)
        if free is None:
            continue
        reached = best is not None and len(state.turn.rack) - free.count >= best
        if reached and not may_move_first(state, seat):
            continue  # the bound is reached already, and no move first could raise it
        try:
            play = legal_play(state, seat)
        except SolverBudgetExceeded:  # this state's table is too involved: try the next one
            search.exact = False
            continue
        search.exact = search.exact and play.exact
        if play.solution is None:
            continue
        after = accepted(state, seat, "; ".join(play.before)) if play.before else state
        if after is None:
            continue
        prefix = ("reset",) if reset else ()
        forms = _as_commands(after, play.solution) if play.solution.count else [()]
        for form in forms:
            typed = (*prefix, *play.before, *form)
            reached = accepted(game, seat, "; ".join(typed))
            if reached is None:
                continue
            option = _consider(game, reached, seat, typed, reset=reset, kept=play.kept)
            if option is not None:
                found.append(option)
                break
    return found


def _claims(game: TileGame, seat: int) -> list[str]:
    """Stein Plus: ``claim N`` for each unclaimed group of four holding a tile laid this turn
    (RULES.md: one CMP per claim standing at the end)."""
    if not game.rules.claims:
        return []
    spec = game.rules.meld_spec
    played = set(game.turn.played)
    out = []
    for number, meld in enumerate(game.turn.table, 1):
        found = readings(game.faces(meld.ids), spec)
        group = len(meld.ids) == 4 and bool(found) and found[0].kind == "group"
        if meld.claim is None and group and played & set(meld.ids):
            out.append(f"claim {number}")
    return out


def _gone(before: TileGame, after: TileGame) -> tuple[str, ...]:
    """The pieces of ``before``'s rack that are no longer in ``after``'s."""
    gone = Counter(before.faces(before.turn.rack)) - Counter(after.faces(after.turn.rack))
    return tuple(format_faces(sorted(gone.elements(), key=str)).split())


def _solver_options(game: TileGame, search: _Search, before: tuple[str, ...], consider) -> None:
    """Offer the solver's best play from this state (as ``meld``/``add`` commands, else as
    ``place``). A joker freed by ``swap`` that the play does not accept (Rummikub: it must go
    into a new meld with rack tiles) is put into such a meld first and the rest solved again."""
    seat = search.seat
    for play, kept in _solver_plays(game, search):
        state = accepted(game, seat, "; ".join(play))
        if state is not None and consider(state, (*before, *play), kept):
            return
    if not game.turn.freed:
        return
    for meld in _freed_joker_melds(game)[:JOKER_MELD_LIMIT]:
        command = f"meld {format_faces(meld)}"
        state = accepted(game, seat, command)
        if state is None:
            continue
        if consider(state, (*before, command)):
            return
        for play, kept in _solver_plays(state, search):
            after = accepted(state, seat, "; ".join(play))
            if after is not None and consider(after, (*before, command, *play), kept):
                return


def _solver_plays(game: TileGame, search: _Search) -> list[tuple[tuple[str, ...], bool]]:
    """The solver's best play as commands: first its free answer, then (when that moves a
    table joker, which the engine refuses) the answer with joker melds kept whole; each as
    explicit commands where possible and as ``place``."""
    free = search.solve(game, jokers_stay=False)
    if free is None or not free.count:
        return []
    plays = [(p, False) for p in _as_commands(game, free)]
    if any(accepted(game, search.seat, "; ".join(p)) for p, _ in plays):
        return plays
    kept = search.solve(game, jokers_stay=True)
    if kept is not None and kept.count:
        plays += [(p, True) for p in _as_commands(game, kept)]
    return plays


def _as_commands(game: TileGame, solution: Solution) -> list[tuple[str, ...]]:
    """The play as ``add N ...`` / ``meld ...`` commands when each working meld survives whole
    (perhaps extended by rack pieces), and as ``place PIECES`` in any case."""
    forms = []
    explicit = _explicit(game.table_faces(working=True), solution)
    if explicit:
        forms.append(explicit)
    forms.append((f"place {format_faces(solution.placed)}",))
    return forms


def _explicit(working: list[list[Face]], solution: Solution) -> tuple[str, ...] | None:
    """``add`` for each working meld that the solution only extends, then one ``meld`` of the
    new melds made of rack pieces alone; None when the solution rearranges the table."""
    target = [Counter(m) for m in solution.table]
    left = Counter(solution.placed)
    open_ = list(range(len(target)))
    adds: list[str] = []
    pending = []
    for k, meld in enumerate(working):
        have = Counter(meld)
        same = next((j for j in open_ if target[j] == have), None)
        if same is not None:
            open_.remove(same)
        else:
            pending.append((k, have))
    for k, have in pending:
        grow = next(
            (j for j in open_ if not have - target[j] and not (target[j] - have) - left), None
        )
        if grow is None:
            return None
        open_.remove(grow)
        extra = target[grow] - have
        left -= extra
        adds.append(f"add {k + 1} {format_faces(sorted(extra.elements(), key=str))}")
    new = []
    for j in open_:
        if target[j] - left:
            return None
        left -= target[j]
        new.append(format_faces(solution.table[j]))
    if left:
        return None
    return (*adds, *([f"meld {' | '.join(new)}"] if new else []))


def _swap_commands(game: TileGame, seat: int) -> list[str]:
    """``swap N PIECES`` for each table joker and the rack tiles it may stand for (one tile, or
    two for a group of three that needs its fourth tile); the engine decides which are legal."""
    if not game.opened[seat]:
        return []
    spec = game.rules.meld_spec
    rack = sorted({f for f in game.faces(game.turn.rack) if not f.is_joker}, key=str)
    commands = []
    for number, meld in enumerate(game.turn.table, 1):
        if meld.claim is not None and meld.claim != seat:
            continue
        faces = game.faces(meld.ids)
        if not any(f.is_joker for f in faces) or not readings(faces, spec):
            continue
        fits = [f for f in rack if f in joker_meanings(faces, spec)]
        commands += [f"swap {number} {f}" for f in fits]
        commands += [f"swap {number} {a} {b}" for a, b in combinations(fits, 2)]
    return commands


def _freed_joker_melds(game: TileGame) -> list[list[Face]]:
    """New melds of a freed joker with rack tiles (RULES.md Rummikub "Jokers"), longest first."""
    spec = game.rules.meld_spec
    rack = game.faces(game.turn.rack)
    melds = [m for m in candidate_melds(rack, spec) if any(f.is_joker for f in m)]
    return sorted(melds, key=lambda m: (-len(m), format_faces(m)))


def _ends(game: TileGame) -> list[str]:
    """The commands that may end the turn from this state, best first (none: it cannot end)."""
    if game.is_stein:
        rack = game.faces(game.turn.rack)
        if rack:
            return [f"discard {_discard_choice(rack, game)}"]
        # an emptied hand: out with done, or with a table tile discarded (RULES.md "End")
        melds = game.table_faces(working=True)
        return ["done"] + [
            f"discard {number} {face}"
            for number, meld in enumerate(melds, 1)
            for face in sorted(set(meld), key=str)
        ]
    if game.turn.played:
        return ["done"]
    return [] if _changed(game) else ["draw"]


def _discard_choice(rack: list[Face], game: TileGame) -> Face:
    """The rack piece least tied to the others (Stein): never a joker while a tile is left, then
    fewest partners (same value in another colour, same colour one or two apart, round the
    corner where runs wrap)."""
    wrap = game.rules.meld_spec.run_mode == "wrap"

    def ties(k: int) -> tuple[int, str]:
        face = rack[k]
        if face.is_joker:
            return (1000, str(face))
        score = 0
        for j, other in enumerate(rack):
            if j == k or other.is_joker:
                score += 2 if other.is_joker else 0
                continue
            if other.rank == face.rank and other.suit != face.suit:
                score += 2
            elif other.suit == face.suit and other.rank != face.rank:
                gap = abs(other.rank - face.rank)
                if wrap:
                    gap = min(gap, 13 - gap)
                score += {1: 3, 2: 1}.get(gap, 0)
        return (score, str(face))

    return rack[min(range(len(rack)), key=ties)]
