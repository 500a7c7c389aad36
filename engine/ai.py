"""Computer players: :func:`choose_move` gives the command text for the seat to move.

Three levels for all five presets (tile games: ``stein``, ``stein_plus``, ``rummikub``; card
games: ``romme``, ``rummy``):

- ``easy``: lays random legal melds when it can (``engine.autoplay``), else draws and discards
  at random.
- ``medium``: greedy. Tile games: the exact solver's best play every turn (most tiles placed,
  ``engine.solver.solve``), before opening the best opening; Stein draws two tiles from the pool
  and discards the tile with the fewest partners in the rack; Rummikub draws when nothing can be
  placed. Card games: the exact best plan of melds and lay-offs (``engine.cardplan``), the top
  discard only when it makes a meld with the hand, and a discard with the fewest partners.
- ``strong``: the solver plus strategy (see :func:`_strong_tile_turn` and :func:`_strong_card_discard`):
  it counts what has been seen (discards, table, own rack) to tell live tiles from dead ones,
  draws from the pool first and then picks from the discard stock when a tile completes or
  extends a combination (source text 000, "Aufnehmen"), keeps flexible tiles and jokers, discards
  dead tiles and doubles whose twin is on the table ("Ablegen"), claims the groups of four it
  lays (Stein Plus), and in card games discards what the others cannot use.

A turn may take several calls: a player that has to draw first returns only the draw (the cards
or tiles drawn are not known before), and is asked again for the rest of the turn, exactly as the
game service and ``rummy simulate`` do (they call :func:`choose_move` while the seat is to move).
Moves are deterministic for a state: randomness comes from ``random.Random`` seeded with the
game seed, the turn number and the seat, unless ``rng`` is given. The computer players see only
what the seat may see: its own rack, the table, the discards and the number of pieces elsewhere.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .autoplay import disjoint_melds, random_tile_turn
from .cardplan import CardPlan, plan_for_turn
from .errors import RummyError
from .melds import readings
from .pieces import Face, format_faces, parse_faces

LEVELS = ("easy", "medium", "strong")

__all__ = ["LEVELS", "choose_move"]


def choose_move(state, seat: int, level: str = "medium", rng: random.Random | None = None) -> str:
    """The command text for ``seat`` (the seat to move) at ``level`` (see the module docstring).

    The text is one message of commands joined by ``;``; applied with ``state.apply(seat, text)``
    it is accepted. When the turn is not over afterwards (the seat had to draw first), ask again.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if state.status != "playing":
        raise RummyError("game.over")
    if seat != state.current:
        raise RummyError("turn.not_yours", player=state.players[state.current])
    if rng is None:
        rng = random.Random(f"{state.seed}:{state.turn_no}:{seat}:{level}")
    if state.rules.family == "tile":
        return _tile_move(state, seat, level, rng)
    return _card_move(state, seat, level, rng)


# ================================================================================ tile games


AI_BUDGET = 400_000
"""DP states one solver call of a computer player may use (as the engine's ``place`` / ``hint``
help, ``engine.tiles.HELP_BUDGET``): beyond it the player makes a simple move instead."""


class _TooHard(Exception):
    """The exact play is out of the budget (or cannot be typed): make a simple move."""


def _solve(game, seat: int, mode: str = "count", hand: Sequence[Face] | None = None):
    """The solver's best play for the seat on its working table (others' claims fixed), or
    None when nothing can be placed; raises :class:`_TooHard` beyond :data:`AI_BUDGET`."""
    from .solver import SolverBudgetExceeded, solve

    rack = game.faces(game.turn.rack) if hand is None else list(hand)
    if not rack or not _may_place_any(game, seat, rack):
        return None
    try:
        return solve(
            game.table_faces(working=True),
            rack,
            game.rules,
            opened=game.opened[seat],
            mode=mode,  # type: ignore[arg-type]
            fixed=game._fixed_melds(seat),
            budget=AI_BUDGET,
        )
    except SolverBudgetExceeded:
        raise _TooHard from None


def _simple_play(game, seat: int, rack: Sequence[Face]):
    """A plain legal play without rearranging (the fallback when the exact play is out of
    reach): melds from the rack (largest first, meeting the opening rule), then, once opened,
    single tiles laid off on table melds the seat may touch. Stein keeps its joker, as the
    greedy play does. Returns commands, the working table after them and the pieces left."""
    rules = game.rules
    spec = rules.meld_spec
    table = [list(m) for m in game.table_faces(working=True)]
    usable = [f for f in rack if not (game.is_stein and f.is_joker)]
    melds = disjoint_melds(usable, spec)
    value = sum(readings(m, spec)[0].value for m in melds)
    if rules.opening_minimum and not game.opened[seat] and value < rules.opening_minimum:
        melds = []
    left = list(rack)
    for m in melds:
        left = _minus(left, m)
    out: list[str] = []
    if game.opened[seat]:
        for f in list(left):
            if f.is_joker:
                continue
            for k, meld in enumerate(table):
                claim = game.turn.table[k].claim
                if claim not in (None, seat):
                    continue
                if readings([*meld, f], spec):
                    out.append(f"add {k + 1} {f}")
                    meld.append(f)
                    left.remove(f)
                    break
    if melds:
        out.append("meld " + " | ".join(format_faces(m) for m in melds))
        table += [list(m) for m in melds]
    return out, table, left


def _best_solution(game, seat: int):
    """The most tiles the seat can place now, by the solver. Rummikub: the whole rack. Stein:
    the rack without its joker (see :func:`_joker_play` for the joker); only an opening that
    needs the joker uses it (an opening is solved on the rack alone, which is fast)."""
    if not game.is_stein:
        return _solve(game, seat)
    rack = game.faces(game.turn.rack)
    real = [f for f in rack if not f.is_joker]
    plain = _solve(game, seat, hand=real)
    if len(real) == len(rack) or game.opened[seat] or (plain is not None and plain.count):
        return plain
    return _solve(game, seat)


def _joker_play(table: list[list[Face]], left: list[Face], spec) -> tuple[list[str], list[Face]]:
    """Stein: what to do with a joker still in hand after the solver's play (RULES.md: a
    joker counts one tile at the end and the last tile may be discarded, so it is kept until it
    lets the player go out): meld it with two left-over tiles that make a meld with it, or, when one
    tile would be left besides it, lay it off on a table meld (the other tile is then
    discarded and the player is out). Returns the commands and what stays in hand."""
    jokers = [f for f in left if f.is_joker]
    real = [f for f in left if not f.is_joker]
    if not jokers:
        return [], left
    joker = jokers[0]
    for a in range(len(real)):
        for b in range(a + 1, len(real)):
            meld = [real[a], real[b], joker]
            if readings(meld, spec):
                rest = [f for k, f in enumerate(real) if k not in (a, b)] + jokers[1:]
                return [f"meld {format_faces(meld)}"], rest
    if len(real) <= 1:
        for no, meld in enumerate(table, 1):
            if len(meld) < 4 and readings([*meld, joker], spec):
                return [f"add {no} {joker}"], real + jokers[1:]
    return [], left


def _may_place_any(game, seat: int, rack: Sequence[Face]) -> bool:
    """A cheap necessary condition for the solver to place something: some rack tile has two
    partners (rack tiles, table tiles once opened, or jokers) that could make a meld with it."""
    spec = game.rules.meld_spec
    pieces = list(rack)
    if game.opened[seat]:
        pieces += [f for m in game.table_faces(working=True) for f in m]
    jokers = sum(1 for f in pieces if f.is_joker)
    real = {f for f in pieces if not f.is_joker}
    for f in rack:
        if f.is_joker:
            if len(real) >= 1 and len(pieces) >= 3:
                return True
            continue
        colours = {g.suit for g in real if g.rank == f.rank and g.suit != f.suit}
        if len(colours) + jokers >= 2:
            return True
        for start in range(f.rank - 2, f.rank + 1):
            window = [start, start + 1, start + 2]
            if spec.run_mode == "wrap":
                window = [(x - 1) % 13 + 1 for x in window]
            elif window[0] < 1 or window[2] > 13:
                continue
            missing = sum(1 for r in window if r != f.rank and type(f)(f.suit, r) not in real)
            if missing <= jokers:
                return True
    return False


def _minus(pieces: Sequence[Face], taken: Sequence[Face]) -> list[Face]:
    left = list(pieces)
    for f in taken:
        left.remove(f)
    return left


def _placement_commands(game, seat: int, solution) -> tuple[list[str], list[list[Face]]]:
    """The solver's play as commands, and the working table they leave (as numbered then):
    ``add`` / ``meld`` when the new table is the old one plus new melds and tiles added to old
    melds (cheap for the engine to check), else ``place`` (the engine re-solves and lays the
    solver's table)."""
    old = [list(m) for m in game.table_faces(working=True)]
    new = [list(m) for m in solution.table]
    spec = game.rules.meld_spec
    place_text = f"place {format_faces(solution.placed)}"
    place = ([place_text], new)
    used: set[int] = set()
    adds: list[tuple[int, list[Face]]] = []
    result = [list(m) for m in old]
    for k, meld in enumerate(old):
        have = Counter(meld)
        match = next(
            (
                j
                for j, cand in enumerate(new)
                if j not in used and len(cand) >= len(meld) and not have - Counter(cand)
            ),
            None,
        )
        if match is None:
            return _checked(game, seat, place)
        used.add(match)
        extra = list((Counter(new[match]) - have).elements())
        if extra:
            if not readings(meld + extra, spec) or game.turn.table[k].claim not in (None, seat):
                return _checked(game, seat, place)
            adds.append((k + 1, extra))
            result[k] = meld + extra
    fresh = [m for j, m in enumerate(new) if j not in used]
    if any(not readings(m, spec) for m in fresh):
        return _checked(game, seat, place)
    out = [f"add {k} {format_faces(extra)}" for k, extra in adds]
    if fresh:
        out.append("meld " + " | ".join(format_faces(m) for m in fresh))
    return out, result + fresh


def _checked(game, seat: int, place: tuple[list[str], list[list[Face]]]):
    """A ``place`` play where the engine offers it (the host may switch help off). The engine
    re-solves with the pieces fixed, within the same budget our search kept to."""
    if not game.rules.help_allowed:
        raise _TooHard
    try:  # the engine also keeps table jokers in their melds, which the solver does not model
        game.check_solution(place[1], parse_faces(place[0][0].removeprefix("place "), "tile"))
    except RummyError:
        raise _TooHard from None
    return place


def _turn_started(game) -> bool:
    """Has the seat already changed the table this turn (an earlier call of ours)?"""
    t = game.turn
    return bool(t.played or t.taken) or game._table_changed()


def _tile_move(game, seat: int, level: str, rng: random.Random) -> str:
    if game.is_stein and not game.draws_complete():
        return _stein_draws(game, seat, level, rng)
    if _turn_started(game):
        try:
            game.check_turn(seat)
        except RummyError:
            return "; ".join(["reset", *_tile_plan(game, seat, level, rng, fresh=True)])
        return "; ".join(_finish_tile_turn(game, seat, level, rng))
    return "; ".join(_tile_plan(game, seat, level, rng, fresh=False))


def _tile_plan(game, seat: int, level: str, rng: random.Random, *, fresh: bool) -> list[str]:
    """The play of a turn whose draws are done, from the start-of-turn table (``fresh``: the
    working table is reset first, so plan on the committed table)."""
    if fresh:
        work = game.copy()
        work._reset_turn()
        game = work
    if level == "easy":
        text = random_tile_turn(game, seat, rng)
        return [text]
    if level == "strong":
        return _strong_tile_turn(game, seat, rng)
    rack = game.faces(game.turn.rack)
    out, _table, left, deferred = _greedy_play(game, seat, rack)
    if not game.is_stein:
        return [*out, "done"] if out else ["draw"]
    if deferred:
        return out
    if not left:
        return [*out, "done"]
    return [*out, f"discard {_discard_by_partners(left, rng)}"]


def _greedy_play(game, seat: int, rack: list[Face]):
    """The solver's best play as commands, the working table after it, the pieces left, and
    whether the turn must be finished in a further call (Stein: a joker to lay off after a
    ``place``). Stein adds the joker's play (:func:`_joker_play`). Out of budget:
    :func:`_simple_play`."""
    try:
        solution = _best_solution(game, seat)
        if solution is None or solution.count == 0:
            out: list[str] = []
            table = [list(m) for m in game.table_faces(working=True)]
            left = list(rack)
        else:
            out, table = _placement_commands(game, seat, solution)
            left = _minus(rack, solution.placed)
    except _TooHard:
        out, table, left = _simple_play(game, seat, rack)
    deferred = False
    if game.is_stein and game.opened[seat]:
        more, rest = _joker_play(table, left, game.rules.meld_spec)
        if len(rest) <= 1:  # the joker goes out only to end the game
            if more and more[0].startswith("add") and out and out[0].startswith("place"):
                # the engine's ``place`` may lay the table out differently from our solve:
                # number the joker's meld on the real working table, in the next call
                deferred = True
            else:
                out, left = out + more, rest
    return out, table, left, deferred


def _finish_tile_turn(game, seat: int, level: str, rng: random.Random) -> list[str]:
    """End a turn whose table play is made: claims (Stein Plus, strong), then discard / done."""
    out = []
    if game.rules.claims and level == "strong":
        out += _claims(game, seat)
    rack = game.faces(game.turn.rack)
    if game.is_stein and game.opened[seat] and level != "easy":
        table = [list(m) for m in game.table_faces(working=True)]
        more, rest = _joker_play(table, rack, game.rules.meld_spec)
        if len(rest) <= 1:
            out, rack = out + more, rest
    if not game.is_stein or not rack:
        return [*out, "done"]
    if level == "strong":
        return [*out, f"discard {_strong_discard(game, seat, rack, rng)}"]
    return [*out, f"discard {_discard_by_partners(rack, rng)}"]


def _claims(game, seat: int) -> list[str]:
    """``claim N`` for every unclaimed group of exactly four on the working table holding a tile
    the seat laid this turn (RULES.md Stein Plus: one CMP per claim standing at the end)."""
    spec = game.rules.meld_spec
    played = set(game.turn.played)
    out = []
    for no, meld in enumerate(game.turn.table, 1):
        if meld.claim is not None or len(meld.ids) != 4 or not played & set(meld.ids):
            continue
        found = readings(game.faces(meld.ids), spec)
        if found and found[0].kind == "group":
            out.append(f"claim {no}")
    return out


# ------------------------------------------------------------------ tile heuristics


def _neighbours(face: Face, wrap: bool) -> list[tuple[int, int]]:
    """(suit, rank) cells that make a run with ``face``: one and two steps either side."""
    out = []
    for d in (-2, -1, 1, 2):
        r = face.rank + d
        if wrap:
            r = (r - 1) % 13 + 1
        elif not 1 <= r <= 13:
            continue
        out.append((face.suit, r))
    return out


def _partner_count(face: Face, others: Counter, wrap: bool) -> float:
    """How many other rack pieces could share a meld with ``face`` (jokers count double)."""
    if face.is_joker:
        return 99.0
    score = 0.0
    for s in range(4):
        if s != face.suit and others[type(face)(s, face.rank)]:
            score += 1
    for s, r in _neighbours(face, wrap):
        if others[type(face)(s, r)]:
            score += 1
    jokers = sum(c for f, c in others.items() if f.is_joker)
    return score + 2 * jokers


def _discard_by_partners(rack: Sequence[Face], rng: random.Random) -> Face:
    """Medium's discard: the piece with the fewest partners in the rack (never a joker while
    something else is left); ties at random."""
    counts = Counter(rack)
    real = [f for f in rack if not f.is_joker] or list(rack)
    wrap = True
    scored = []
    for f in sorted(set(real)):
        others = counts.copy()
        others[f] -= 1
        scored.append((_partner_count(f, others, wrap), f))
    low = min(s for s, _ in scored)
    return rng.choice([f for s, f in scored if s == low])


def _unseen(game, seat: int) -> Counter:
    """Tiles the seat has not seen: the whole deck minus the table, the discards and its rack
    (what the others hold or the pool holds)."""
    counts = Counter(game.deck.faces)
    for m in game.table_faces(working=True):
        counts.subtract(m)
    counts.subtract(game.faces(game.discards))
    counts.subtract(game.faces(game.turn.rack))
    return +counts


def _keep_value(face: Face, rack: Counter, unseen: Counter, wrap: bool) -> float:
    """How much a rack piece is worth keeping: every three-piece meld it could join, weighted by
    how many of the missing pieces are in the rack (certain) or unseen (possible). A piece
    whose melds are all dead (the missing pieces are on the table or discarded) scores 0; the
    second copy of a face adds little (source text 000, "Ablegen": dead tiles and doubles)."""
    if face.is_joker:
        return 100.0
    kind = type(face)
    jokers = sum(c for f, c in rack.items() if f.is_joker)
    others = rack.copy()
    others[face] -= 1

    def chance(cell: Face) -> float:
        if others[cell] > 0:
            return 1.0
        return 0.15 * unseen[cell]

    windows: list[list[Face]] = []
    colours = [kind(s, face.rank) for s in range(4) if s != face.suit]
    for a, b in ((0, 1), (0, 2), (1, 2)):
        windows.append([colours[a], colours[b]])
    for start in (face.rank - 2, face.rank - 1, face.rank):
        cells = [start + i for i in range(3)]
        if wrap:
            cells = [(c - 1) % 13 + 1 for c in cells]
        elif cells[0] < 1 or cells[2] > 13:
            continue
        windows.append([kind(face.suit, c) for c in cells if c != face.rank])
    score = 0.0
    for pair in windows:
        p = [chance(c) for c in pair]
        best = p[0] * p[1]
        if jokers:
            best = max(best, max(p) * 0.9)
        score += best
    if others[face] > 0:
        score *= 0.5
    return score


def _strong_discard(game, seat: int, rack: Sequence[Face], rng: random.Random) -> Face:
    """Strong's discard: the piece least worth keeping (see :func:`_keep_value`)."""
    counts = Counter(rack)
    unseen = _unseen(game, seat)
    wrap = game.rules.run_mode == "wrap"
    real = [f for f in rack if not f.is_joker] or list(rack)
    scored = sorted((_keep_value(f, counts, unseen, wrap), rng.random(), f) for f in set(real))
    return scored[0][2]


def _completes(rack: Sequence[Face], tile: Face, wrap: bool) -> bool:
    """Does ``tile`` make a meld of three with two rack pieces (a joker may be one of them)?"""
    counts = Counter(rack)
    jokers = counts[type(tile).joker()]
    kind = type(tile)
    colours = sum(1 for s in range(4) if s != tile.suit and counts[kind(s, tile.rank)])
    if colours + min(jokers, 1) >= 2:
        return True
    for start in (tile.rank - 2, tile.rank - 1, tile.rank):
        cells = [start + i for i in range(3)]
        if wrap:
            cells = [(c - 1) % 13 + 1 for c in cells]
        elif cells[0] < 1 or cells[2] > 13:
            continue
        have = sum(1 for c in cells if c != tile.rank and counts[kind(tile.suit, c)])
        if have + min(jokers, 1) >= 2:
            return True
    return False


def _fits_table(game, seat: int, tile: Face) -> bool:
    """Can ``tile`` be laid off on a table meld the seat may touch (no rearranging)?"""
    spec = game.rules.meld_spec
    for meld in game.turn.table:
        if meld.claim is not None and meld.claim != seat:
            continue
        if readings([*game.faces(meld.ids), tile], spec):
            return True
    return False


def _stein_draws(game, seat: int, level: str, rng: random.Random) -> str:
    """Stein's two draws (at most one from the discard stock). Medium and easy draw both from
    the pool (easy sometimes takes the top discard); strong draws one from the pool first and
    then takes a discard that completes a combination or fits the table, as source text 000
    recommends ("Aufnehmen"), else draws again."""
    t = game.turn
    need = game.draws_needed() - t.drawn - t.picked
    picks_left = game.rules.discard_picks_per_turn - t.picked
    pool = len(game.pool)
    if level == "strong":
        if t.drawn + t.picked == 0 and pool:
            return "draw"
        if picks_left > 0 and game.discards:
            tile = _best_pick(game, seat, rng, must=pool == 0)
            if tile is not None:
                return f"pick {tile}"
        return "draw" if pool else f"pick {game.deck[game.discards[-1]]}"
    out = []
    if level == "easy" and picks_left > 0 and game.discards and rng.random() < 0.3:
        out.append(f"pick {game.deck[game.discards[-1]]}")
        need -= 1
        picks_left -= 1
    while need > 0 and pool > 0:
        out.append("draw")
        pool -= 1
        need -= 1
    if need > 0 and picks_left > 0 and game.discards:
        rack = game.faces(game.turn.rack)
        choice = max(
            sorted(set(game.faces(game.discards))),
            key=lambda f: (_partner_count(f, Counter(rack), True), rng.random()),
        )
        out.append(f"pick {choice}")
    return "; ".join(out)


def _best_pick(game, seat: int, rng: random.Random, *, must: bool) -> Face | None:
    """The discard-stock tile worth taking: one that completes a combination in the rack or fits
    a table meld (once opened); with ``must`` (the pool is empty) the most useful one anyway."""
    rack = game.faces(game.turn.rack)
    wrap = game.rules.run_mode == "wrap"
    unseen = _unseen(game, seat)
    best, best_key = None, None
    for tile in sorted(set(game.faces(game.discards))):
        if tile.is_joker:
            key = (3, 0.0)
        else:
            completes = _completes(rack, tile, wrap)
            fits = game.opened[seat] and _fits_table(game, seat, tile)
            counts = Counter(rack)
            counts[tile] += 1
            key = (2 if completes else 1 if fits else 0, _keep_value(tile, counts, unseen, wrap))
        if best_key is None or key > best_key:
            best, best_key = tile, key
    if best_key is None:
        return None
    if best_key[0] > 0 or must:
        return best
    return None


def _strong_tile_turn(game, seat: int, rng: random.Random) -> list[str]:
    """Strong play once the draws are done.

    Rummikub: :func:`_strong_rummikub_play` (hold back self-sufficient melds). Stein: the greedy play (the joker kept unless it
    earns a tile), then claims (Stein Plus, in a second call on the new table numbering) and the
    strong discard (:func:`_strong_discard`)."""
    rack = game.faces(game.turn.rack)
    if not game.is_stein:
        try:
            return _strong_rummikub_play(game, seat, rack)
        except _TooHard:
            out = _simple_play(game, seat, rack)[0]
            return [*out, "done"] if out else ["draw"]
    out, table, left, deferred = _greedy_play(game, seat, rack)
    if deferred:
        return out
    if not left:
        return [*out, "done"]
    if out and game.rules.claims and any(_is_group_of_four(m, game.rules.meld_spec) for m in table):
        return out  # claims and the discard in the next call, on the new table numbering
    return [*out, f"discard {_strong_discard(game, seat, left, rng)}"]


def _strong_rummikub_play(game, seat: int, rack: list[Face]) -> list[str]:
    """Strong Rummikub after its opening: hold back self-sufficient melds.

    Melds the rack can make on its own stay on the rack as long as the rest of the rack still
    places at least one tile (so the player never draws because of holding back): they can
    be laid in the turn that goes out, and until then they give the other players nothing to
    lay off on or rearrange with. The greedy play (most tiles) is made when it empties the
    rack, before the opening, or when holding back would mean drawing."""
    from .solver import solve

    solution = _solve(game, seat)
    if solution is None or solution.count == 0:
        return ["draw"]
    if not game.opened[seat] or solution.count == len(rack):
        return [*_placement_commands(game, seat, solution)[0], "done"]
    held = _self_sufficient(rack, game.rules, solve)
    if held:
        rest = _minus(rack, held)
        reduced = _solve(game, seat, hand=rest) if rest else None
        if reduced is not None and reduced.count > 0:
            solution = reduced
    return [*_placement_commands(game, seat, solution)[0], "done"]


def _self_sufficient(rack: Sequence[Face], rules, solve) -> list[Face]:
    """The rack pieces of the most tiles the rack can meld on its own (solver, empty table)."""
    from .solver import SolverBudgetExceeded

    try:
        alone = solve([], list(rack), rules, opened=True, budget=AI_BUDGET)
    except SolverBudgetExceeded:
        return []
    return list(alone.placed)


def _is_group_of_four(meld: Sequence[Face], spec) -> bool:
    found = readings(meld, spec)
    return len(meld) == 4 and bool(found) and found[0].kind == "group"


# ================================================================================ card games


def _card_penalty(game):
    from .cards import romme_card_penalty, rummy_card_points

    if game.rules.game == "rummy":
        return rummy_card_points
    double = game.rules.variant_joker_double
    return lambda f: romme_card_penalty(f, joker_double=double)


def _card_move(game, seat: int, level: str, rng: random.Random) -> str:
    turn = game.turn
    if turn["knock_due"]:
        return _knock_meld(game, seat)
    if not turn["drawn"]:
        return _card_draw(game, seat, level, rng)
    out = []
    if turn["history"]:
        out.append("reset")
        work = game.copy()
        work.apply(seat, "reset")
        game = work
    return "; ".join(out + _card_play(game, seat, level, rng))


def _knock_meld(game, seat: int) -> str:
    """Variant a: a knocker's first command is a meld with the knocked card (never reached by
    our players, which do not knock; kept so a resumed human knock can still be finished)."""
    from .cardplan import candidate_card_melds

    card = game.deck[game.knocks[seat]["open"]]
    hand = game.faces(game.racks[seat])
    for meld in candidate_card_melds(hand, game.rules.meld_spec):
        if card in meld:
            return f"meld {format_faces(meld)}"
    return "draw"


def _card_plan(game, seat: int, level: str) -> CardPlan:
    picked = game.turn["picked"]
    objective = "value" if level == "strong" and game.rules.game == "romme" else "count"
    return plan_for_turn(
        game.faces(game.racks[seat]),
        game.table_faces(),
        game.rules.meld_spec,
        game=game.rules.game,
        opened=game.turn["opened_at_start"],
        minimum=game.rules.opening_minimum,
        empty_hand_ok=game.empty_hand_ok,
        fits=lambda i, cards: game.fits(i + 1, cards),
        penalty=_card_penalty(game),
        undiscardable=game.deck[picked] if picked is not None else None,
        objective=objective,  # type: ignore[arg-type]
    )


def _card_draw(game, seat: int, level: str, rng: random.Random) -> str:
    """Take the top discard when it makes a meld with the hand (or, once opened, lays off);
    easy takes it at random. Otherwise draw from the talon."""
    if not game.discards:
        return "draw"
    top = game.deck[game.discards[-1]]
    if level == "easy":
        return "pick" if rng.random() < 0.2 or not game.pool else "draw"
    if not game.pool:
        return "pick"
    hand = game.faces(game.racks[seat])
    if top.is_joker:
        return "pick"
    if _completes_cards(hand, top, game.rules.run_mode):
        return "pick"
    opened = game.opened[seat] or game.rules.game == "rummy"
    if opened and any(game.fits(i + 1, [top]) for i in range(len(game.table))):
        return "pick"
    return "draw"


def _completes_cards(hand: Sequence[Face], card: Face, mode: str) -> bool:
    """Does ``card`` make a meld of three with two hand cards?"""
    from .cardplan import candidate_card_melds
    from .melds import MeldSpec

    spec = MeldSpec(mode, 13, 3, 4, "face")
    near = [f for f in hand if f.is_joker or f.rank == card.rank or f.suit == card.suit]
    return any(card in m for m in candidate_card_melds([*near, card], spec))


def _card_play(game, seat: int, level: str, rng: random.Random) -> list[str]:
    hand = game.faces(game.racks[seat])
    easy = level == "easy"
    plan = _easy_card_plan(game, seat, rng) if easy else _card_plan(game, seat, level)
    out = plan.commands()
    left = list(plan.left)
    if not left:
        return [*out, "done"] if out else ["done"]
    picked = game.turn["picked"]
    banned = game.deck[picked] if picked is not None else None
    choices = list(left)
    if banned is not None and banned in choices and choices.count(banned) == 1:
        choices.remove(banned)
    if level == "strong":
        card = _strong_card_discard(game, seat, choices, left, rng)
    elif level == "medium":
        card = _card_discard_by_partners(game, choices, left, rng)
    else:
        card = rng.choice(choices)
    del hand
    return [*out, f"discard {card}"]


def _easy_card_plan(game, seat: int, rng: random.Random) -> CardPlan:
    """Easy: lay one random meld when the rules allow it now, no lay-offs."""
    from .cardplan import candidate_card_melds

    hand = game.faces(game.racks[seat])
    melds = candidate_card_melds(hand, game.rules.meld_spec)
    picked = game.turn["picked"]
    banned = game.deck[picked] if picked is not None else None
    rng.shuffle(melds)
    for meld in melds:
        left = _minus(hand, meld)
        if not left and not game.empty_hand_ok:
            continue
        if left and all(f == banned for f in left) and left.count(banned) == 1:
            continue
        value = readings(meld, game.rules.meld_spec)[0].value
        needs = game.rules.game == "romme" and not game.turn["opened_at_start"]
        if needs and value < game.rules.opening_minimum and left:
            continue
        return CardPlan(melds=(tuple(meld),), left=tuple(left), removed=len(meld))
    return CardPlan(left=tuple(hand))


def _card_usefulness(card: Face, hand: Sequence[Face], mode: str) -> float:
    """How many hand cards could share a meld with ``card`` (same rank, or same suit within
    two ranks, wrapping where runs wrap)."""
    if card.is_joker:
        return 99.0
    others = list(hand)
    others.remove(card)
    score = 0.0
    for f in others:
        if f.is_joker:
            score += 2
        elif f.rank == card.rank and f.suit != card.suit:
            score += 1
        elif f.suit == card.suit:
            d = abs(f.rank - card.rank)
            if mode != "linear":
                d = min(d, 13 - d)
            if 1 <= d <= 2:
                score += 1.0 if d == 1 else 0.7
    return score


def _card_discard_by_partners(game, choices, hand, rng) -> Face:
    """Medium's discard: the card with the fewest partners; ties: the highest penalty."""
    penalty = _card_penalty(game)
    mode = game.rules.run_mode
    scored = [(_card_usefulness(c, hand, mode), -penalty(c), rng.random(), c) for c in set(choices)]
    return min(scored)[3]


def _strong_card_discard(game, seat: int, choices, hand, rng) -> Face:
    """Strong's discard: a card the hand cannot use (its melds dead: the cards it needs are on
    the table or discarded), high penalty first, and never one the next player could lay off on
    the table at once."""
    penalty = _card_penalty(game)
    mode = game.rules.run_mode
    seen = Counter(f for m in game.table_faces() for f in m)
    seen.update(game.faces(game.discards))
    total = Counter(game.deck.faces)
    scored = []
    for c in set(choices):
        if c.is_joker:
            scored.append((999.0, 0, 0.0, c))
            continue
        use = _card_usefulness(c, hand, mode)
        live = 0
        for s in range(4):
            f = type(c)(s, c.rank)
            if s != c.suit:
                live += total[f] - seen[f]
        helps = any(game.fits(i + 1, [c]) for i in range(len(game.table)))
        scored.append((use + 0.05 * live + (3.0 if helps else 0.0), -penalty(c), rng.random(), c))
    return min(scored)[3]
