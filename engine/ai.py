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
- ``strong``: the solver plus strategy (see :func:`_strong_tile_turn` and :func:`_strong_card_discard`).
  Tile games: it *hoards*. Everything laid on the table helps the other players (the medium
  players rearrange the whole table with the exact solver) and brings nobody closer to winning
  unless the rack empties, so after the smallest legal opening (Rummikub: the fewest tiles
  worth 30, without the joker when possible; Stein: one meld) it lays nothing until it can lay
  the whole rack in one turn (the rack's own melds plus the rest fitted into the table), and
  meanwhile draws (Rummikub; once the pool is empty it lays what it can) or discards the least
  useful piece outside its own melds (Stein). In Stein it also counts what has been seen
  (discards, table, own rack) to tell live tiles from dead ones, draws from the pool first and
  then picks from the discard stock when a tile completes or extends a combination (source
  text 000, "Aufnehmen"), discards dead tiles and doubles whose twin is on the table
  ("Ablegen"), and in Stein Plus lays and claims its groups of four (a claim helps nobody
  else). Card games (:mod:`engine.card.strong`): it *holds* as well, for the same reason
  (whatever lies on the table is laid off on by everyone): it lays nothing until the whole hand
  goes in one turn (classic Rummy: going rummy; Rommé: a Hand-Rommé, which needs no 40-point
  opening and doubles the others' penalties), keeps every card the best plan would use, takes
  the top discard when the plan then uses one card more, and discards the card least worth
  keeping by the live (unseen) cards that could complete it, avoiding cards the others could use.

A turn may take several calls: a player that has to draw first returns only the draw (the cards
or tiles drawn are not known before), and is asked again for the rest of the turn, exactly as the
game service and ``rummy simulate`` do (they call :func:`choose_move` while the seat is to move).
Moves are deterministic for a state: randomness comes from ``random.Random`` seeded with the
game seed, the turn number and the seat, unless ``rng`` is given. The computer players see only
what the seat may see: its own rack, the table, the discards and the number of pieces elsewhere.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

from .autoplay import accepts, checked_tile_turn, disjoint_melds, random_tile_turn
from .card.scoring import card_penalty
from .card.strong import holds, meld_windows, strong_card_play, wants_top
from .cardplan import CardPlan, candidate_card_melds, plan_for_turn
from .errors import RummyError
from .melds import MeldSpec, readings, spec_of
from .pieces import Face, format_faces, parse_faces
from .scoring import meld_value, opening_value
from .solver import SolverBudgetExceeded, solve
from .tile.legal import plain_place

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


def _solve(
    game, seat: int, mode: str = "count", hand: Sequence[Face] | None = None, *, whole=False
):
    """The solver's best play for the seat on its working table (others' claims fixed), or
    None when nothing can be placed; raises :class:`_TooHard` beyond :data:`AI_BUDGET`."""
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
            fixed=game.fixed_melds(seat),
            must_place=rack if whole else None,
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
    usable = [f for f in rack if not (game.rules.draw_first and f.is_joker)]
    melds = disjoint_melds(usable, spec)
    value = opening_value(melds, spec)
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
                if claim not in (None, seat) or not _may_extend(meld, f, spec):
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


def _may_extend(meld: Sequence[Face], face: Face, spec) -> bool:
    """A necessary condition for ``meld`` plus the real ``face`` to read as a meld: a group's
    real pieces share its value in other colours (room left for one more), a run's share its
    colour (1..13: other values, all within one stretch as long as the run)."""
    real = [f for f in meld if not f.is_joker]
    if not real:
        return True
    if (
        len(meld) < spec.max_group
        and all(f.rank == face.rank for f in real)
        and all(f.suit != face.suit for f in real)
    ):
        return True
    if not all(f.suit == face.suit for f in real):
        return False
    if spec.run_mode != "linear":
        return True
    ranks = [f.rank for f in real] + [face.rank]
    return len(set(ranks)) == len(ranks) and max(ranks) - min(ranks) <= len(meld)


def _best_solution(game, seat: int):
    """The most tiles the seat can place now, by the solver. Rummikub: the whole rack. Stein:
    the rack without its joker (see :func:`_joker_play` for the joker); only an opening that
    needs the joker uses it (an opening is solved on the rack alone, which is fast)."""
    if not game.rules.draw_first:
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
    spec = spec_of(game.rules)
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
    spec = spec_of(game.rules)
    place_text = f"place {format_faces(solution.placed)}"
    place = ([place_text], new)
    used: set[int] = set()
    adds: list[tuple[int, list[Face]]] = []
    result = [list(m) for m in old]
    counts = [Counter(m) for m in new]
    for k, meld in enumerate(old):
        have = Counter(meld)
        match = next(
            (
                j
                for j, cand in enumerate(counts)
                if j not in used
                and len(new[j]) >= len(meld)
                and all(cand[f] >= n for f, n in have.items())  # the meld's pieces are in it
            ),
            None,
        )
        if match is None:
            return _checked(game, seat, place)
        used.add(match)
        extra = list((counts[match] - have).elements())
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
    re-solves with the pieces fixed (its table may differ from ours) and refuses a table that
    moves a table joker away from its meld, which the solver does not model: the play is
    probed (``probe``: the move of this call then checks only the commands after it), and the
    table it really leaves is returned."""
    if not game.rules.help_allowed:
        raise _TooHard
    with plain_place():  # the old ``place`` only: the players' games stay as they were
        probe = game.probe(seat, place[0][0])
    if probe is None:
        raise _TooHard
    return place[0], [list(m) for m in probe.table_faces(working=True)]


def _accepted(game, seat: int, parts: list[str]) -> bool:
    """Does the engine accept ``parts`` (one message) from ``seat`` now? (Probed: when it
    starts with the ``place`` this move probed already, only the rest is run.)"""
    return accepts(game, seat, "; ".join(parts))


def _turn_started(game) -> bool:
    """Has the seat already changed the table this turn (an earlier call of ours)?"""
    t = game.turn
    return bool(t.played or t.taken) or game.table_changed()


def _tile_move(game, seat: int, level: str, rng: random.Random) -> str:
    """The level's move, tried on a copy: where the engine refuses it (a rule the planning does
    not model, e.g. a joker's fixed meaning), the accepted part of it ends the turn instead
    (:func:`engine.autoplay.checked_tile_turn`), so a computer player's message is never refused."""
    if game.rules.draw_first and not game.draws_complete():
        return _stein_draws(game, seat, level, rng)
    if _turn_started(game):
        try:
            game.check_turn(seat)
        except RummyError:
            parts = ["reset", *_tile_plan(game, seat, level, rng, fresh=True)]
        else:
            parts = _finish_tile_turn(game, seat, level, rng)
    else:
        parts = _tile_plan(game, seat, level, rng, fresh=False)
    text = "; ".join(parts)
    if level == "easy" or _accepted(game, seat, parts):  # the easy turn is checked already
        return text
    return checked_tile_turn(game, seat, parts, rng)


def _tile_plan(game, seat: int, level: str, rng: random.Random, *, fresh: bool) -> list[str]:
    """The play of a turn whose draws are done, from the start-of-turn table (``fresh``: the
    working table is reset first, so plan on the committed table)."""
    if fresh:
        work = game.copy()
        work.reset_turn()
        game = work
    if level == "easy":
        text = random_tile_turn(game, seat, rng)
        return [text]
    if level == "strong":
        return _strong_tile_turn(game, seat, rng)
    rack = game.faces(game.turn.rack)
    out, _table, left, deferred = _greedy_play(game, seat, rack)
    if not game.rules.draw_first:
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
    if game.rules.draw_first and game.opened[seat]:
        more, rest = _joker_play(table, left, spec_of(game.rules))
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
    if game.rules.draw_first and game.opened[seat] and level != "easy":
        table = [list(m) for m in game.table_faces(working=True)]
        more, rest = _joker_play(table, rack, spec_of(game.rules))
        if len(rest) <= 1:
            out, rack = out + more, rest
    if not game.rules.draw_first or not rack:
        return [*out, "done"]
    if level == "strong":
        return [*out, f"discard {_hoard_discard(game, seat, rack, rng)}"]
    return [*out, f"discard {_discard_by_partners(rack, rng)}"]


def _claims(game, seat: int) -> list[str]:
    """``claim N`` for every unclaimed group of exactly four on the working table holding a tile
    the seat laid this turn (RULES.md Stein Plus: one CMP per claim standing at the end)."""
    spec = spec_of(game.rules)
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
    jokers = sum(c for f, c in rack.items() if f.is_joker)
    others = rack.copy()
    others[face] -= 1

    def chance(cell: Face) -> float:
        if others[cell] > 0:
            return 1.0
        return 0.15 * unseen[cell]

    windows = meld_windows(face, wrap)
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
    spec = spec_of(game.rules)
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
    """Strong play once the draws are done: hoard, and go out in one turn.

    Whatever a player lays helps the others (the medium players rearrange the whole table with
    the exact solver) and brings the player no closer to winning unless the rack empties, so the
    strong player lays as little as it can until it can go out at once: Rummikub
    :func:`_strong_rummikub_play`, Stein :func:`_strong_stein_play`."""
    rack = game.faces(game.turn.rack)
    if not game.rules.draw_first:
        try:
            return _strong_rummikub_play(game, seat, rack)
        except _TooHard:
            out = _simple_play(game, seat, rack)[0]
            return [*out, "done"] if out else ["draw"]
    return _strong_stein_play(game, seat, rack, rng)


def _strong_rummikub_play(game, seat: int, rack: list[Face]) -> list[str]:
    """Strong Rummikub: open with the fewest tiles that reach 30 (without a joker when the
    rack allows), then draw every turn until the whole rack can be laid in one turn; only once
    the pool is empty (drawing is a pass) it lays what it can, as the greedy player does.

    Going out is found in two ways: the rack's own melds (:func:`_self_sufficient`) laid as new
    melds and every other tile fitted into the table by the solver (a small search even for a
    large rack), or the solver on the whole rack (within :data:`AI_BUDGET`)."""
    if not game.opened[seat]:
        return _strong_opening(game, seat, rack)
    out = _going_out(game, seat, rack)
    if out is not None:
        return [*out, "done"]
    if game.pool:
        return ["draw"]
    full = _solve_or_none(game, seat, None)
    out = _commands_or_none(game, seat, full) if full is not None else None
    if out is None:
        out = _simple_play(game, seat, rack)[0]
    return [*out, "done"] if out else ["draw"]


def _going_out(game, seat: int, rack: list[Face]) -> list[str] | None:
    """Commands that lay the whole rack (Rummikub), or None."""
    melds = _self_sufficient(rack, game.rules)
    junk = _minus(rack, [f for m in melds for f in m])
    lay = ["meld " + " | ".join(format_faces(m) for m in melds)] if melds else []
    if not junk:
        return lay
    fit = _solve_or_none(game, seat, junk, whole=True)
    if fit is not None and fit.count == len(junk):
        out = _commands_or_none(game, seat, fit)
        if out is not None:
            return [*out, *lay]
    full = _solve_or_none(game, seat, None, whole=True)
    if full is not None and full.count == len(rack):
        return _commands_or_none(game, seat, full)
    return None


def _solve_or_none(game, seat: int, hand: Sequence[Face] | None, *, whole=False):
    """:func:`_solve`, None beyond the budget (``whole``: all of the pieces or nothing)."""
    try:
        return _solve(game, seat, hand=hand, whole=whole)
    except _TooHard:
        return None


def _commands_or_none(game, seat: int, solution) -> list[str] | None:
    """The solution as commands (:func:`_placement_commands`), None when they cannot be typed
    (the engine's joker rule refuses the ``place``)."""
    try:
        return _placement_commands(game, seat, solution)[0]
    except _TooHard:
        return None


def _strong_opening(game, seat: int, rack: list[Face]) -> list[str]:
    """Rummikub's opening: the solver's best opening, without the joker when the rack can open
    without it, cut down to the fewest tiles that reach the minimum (:func:`_minimal_melds`)."""
    solution = _solve(game, seat)
    if solution is None or solution.count == 0:
        return ["draw"]
    if solution.count == len(rack):
        return [*_placement_commands(game, seat, solution)[0], "done"]
    if any(f.is_joker for f in solution.placed):
        plain = _solve(game, seat, hand=[f for f in rack if not f.is_joker])
        if plain is not None and plain.count > 0:
            solution = plain
    melds = _new_melds(game, solution)
    chosen = _minimal_melds(melds, game.rules)
    text = "meld " + " | ".join(format_faces(m) for m in chosen or [])
    if chosen is not None and len(chosen) < len(melds):
        try:  # a joker's value depends on its reading: let the engine count the points
            game.copy().apply(seat, text)
            return [text, "done"]
        except RummyError:
            pass
    return [*_placement_commands(game, seat, solution)[0], "done"]


def _new_melds(game, solution) -> list[list[Face]]:
    """The melds of a solution's table that are not on the working table (an opening's melds)."""
    old = Counter(tuple(m) for m in game.table_faces(working=True))
    new = []
    for m in solution.table:
        if old[tuple(m)]:
            old[tuple(m)] -= 1
        else:
            new.append(list(m))
    return new


def _minimal_melds(melds: list[list[Face]], rules) -> list[list[Face]] | None:
    """The subset of ``melds`` with the fewest pieces worth at least the opening minimum (ties:
    fewer jokers, more value); None when no subset reaches it."""
    spec = rules.meld_spec
    values = [meld_value(m, spec) for m in melds]
    best = None
    for r in range(1, len(melds) + 1):
        for combo in itertools.combinations(range(len(melds)), r):
            value = sum(values[i] for i in combo)
            if value < rules.opening_minimum:
                continue
            jokers = sum(1 for i in combo for f in melds[i] if f.is_joker)
            key = (sum(len(melds[i]) for i in combo), jokers, -value)
            if best is None or key < best[0]:
                best = (key, combo)
    return None if best is None else [melds[i] for i in best[1]]


def _strong_stein_play(game, seat: int, rack: list[Face], rng: random.Random) -> list[str]:
    """Strong Stein: go out when it can (the greedy play or the rack's own melds plus the rest
    fitted into the table leave at most the discard); before the opening lay only the smallest
    meld of the greedy opening; after it lay nothing, keep the rack's melds and discard the
    least useful other piece (:func:`_strong_discard`)."""
    spec = spec_of(game.rules)
    if game.opened[seat]:
        out = _stein_going_out(game, seat, rack)
        if out is not None:
            return out
    out, table, left, deferred = _greedy_play(game, seat, rack)
    if deferred:
        return out
    if not left:
        return [*out, "done"]
    if len(left) <= 1:
        if out and game.rules.claims and any(_is_group_of_four(m, spec) for m in table):
            return out  # claims and the discard in the next call, on the new table numbering
        return [*out, f"discard {left[0]}"]
    if not game.opened[seat] and out and out[0].startswith("meld") and len(out) == 1:
        opening = [parse_faces(t, "tile") for t in out[0].removeprefix("meld ").split(" | ")]
        first = min(opening, key=lambda m: (any(f.is_joker for f in m), len(m)))
        out, left = [f"meld {format_faces(first)}"], _minus(rack, first)
        if game.rules.claims and _is_group_of_four(first, spec):
            return out  # the claim and the discard in the next call
    elif game.opened[seat]:
        out, left = [], list(rack)
        if game.rules.claims:  # a claimed group helps nobody else: lay it and claim it
            real = [f for f in rack if not f.is_joker]
            fours = [m for m in _self_sufficient(real, game.rules) if _is_group_of_four(m, spec)]
            if fours:
                return ["meld " + " | ".join(format_faces(m) for m in fours)]
    return [*out, f"discard {_hoard_discard(game, seat, left, rng)}"]


def _hoard_discard(game, seat: int, pieces: Sequence[Face], rng: random.Random) -> Face:
    """The strong Stein discard: the least useful piece (:func:`_strong_discard`) outside the
    melds the pieces make on their own (those are kept for going out)."""
    real = [f for f in pieces if not f.is_joker]
    junk = _minus(real, [f for m in _self_sufficient(real, game.rules) for f in m])
    return _strong_discard(game, seat, junk or real or list(pieces), rng)


def _stein_going_out(game, seat: int, rack: list[Face]) -> list[str] | None:
    """Stein: commands that leave at most one piece (discarded), laying the rack's own melds
    as new melds and fitting the other pieces into the table (the joker by
    :func:`_joker_play`); None when that does not empty the hand."""
    spec = spec_of(game.rules)
    real = [f for f in rack if not f.is_joker]
    jokers = [f for f in rack if f.is_joker]
    melds = _self_sufficient(real, game.rules)
    junk = _minus(real, [f for m in melds for f in m])
    lay = ["meld " + " | ".join(format_faces(m) for m in melds)] if melds else []
    out: list[str] = []
    table = [list(m) for m in game.table_faces(working=True)]
    left = junk + jokers
    if junk:
        fit = _solve_or_none(game, seat, junk)
        if fit is not None and fit.count:
            try:
                out, table = _placement_commands(game, seat, fit)
            except _TooHard:
                return None
            left = _minus(junk, fit.placed) + jokers
    more, rest = _joker_play(table + [list(m) for m in melds], left, spec)
    if len(rest) > 1 or (more and more[0].startswith("add") and out and out[0].startswith("place")):
        return None
    play = [*out, *lay, *more]
    if game.rules.claims and any(_is_group_of_four(m, spec) for m in melds):
        return play  # claims and the discard in the next call
    return [*play, f"discard {rest[0]}"] if rest else [*play, "done"]


def _self_sufficient(rack: Sequence[Face], rules) -> list[list[Face]]:
    """The melds of the most tiles the rack can meld on its own (solver, empty table)."""
    if len(rack) < 3:
        return []
    try:
        alone = solve([], list(rack), rules, opened=True, budget=AI_BUDGET)
    except SolverBudgetExceeded:
        return []
    return [list(m) for m in alone.table]


def _is_group_of_four(meld: Sequence[Face], spec) -> bool:
    found = readings(meld, spec)
    return len(meld) == 4 and bool(found) and found[0].kind == "group"


# ================================================================================ card games


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
    card = game.deck[game.knocks[seat]["open"]]
    hand = game.faces(game.racks[seat])
    for meld in candidate_card_melds(hand, spec_of(game.rules)):
        if card in meld:
            return f"meld {format_faces(meld)}"
    return "draw"


def _card_plan(game, seat: int, level: str) -> CardPlan:
    picked = game.turn["picked"]
    return plan_for_turn(
        game.faces(game.racks[seat]),
        game.table_faces(),
        spec_of(game.rules),
        must_open=game.rules.must_open,
        opened=game.turn["opened_at_start"],
        minimum=game.rules.opening_minimum,
        empty_hand_ok=game.empty_hand_ok,
        fits=lambda i, cards: game.fits(i + 1, cards),
        penalty=card_penalty(game.rules),
        undiscardable=game.deck[picked] if picked is not None else None,
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
    if level == "strong" and holds(game, seat):
        return "pick" if wants_top(game, seat) else "draw"
    hand = game.faces(game.racks[seat])
    if top.is_joker:
        return "pick"
    if _completes_cards(hand, top, game.rules.run_mode):
        return "pick"
    opened = game.opened[seat] or not game.rules.must_open
    if opened and any(game.fits(i + 1, [top]) for i in range(len(game.table))):
        return "pick"
    return "draw"


def _completes_cards(hand: Sequence[Face], card: Face, mode: str) -> bool:
    """Does ``card`` make a meld of three with two hand cards?"""
    spec = MeldSpec(mode, 13, 3, 4, "face")
    near = [f for f in hand if f.is_joker or f.rank == card.rank or f.suit == card.suit]
    return any(card in m for m in candidate_card_melds([*near, card], spec))


def _card_play(game, seat: int, level: str, rng: random.Random) -> list[str]:
    if level == "strong" and holds(game, seat):
        return strong_card_play(game, seat, rng)
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
    if level != "easy":  # medium, and strong past its hold limit
        card = _card_discard_by_partners(game, choices, left, rng)
    else:
        card = rng.choice(choices)
    del hand
    return [*out, f"discard {card}"]


def _easy_card_plan(game, seat: int, rng: random.Random) -> CardPlan:
    """Easy: lay one random meld when the rules allow it now, no lay-offs."""
    hand = game.faces(game.racks[seat])
    melds = candidate_card_melds(hand, spec_of(game.rules))
    picked = game.turn["picked"]
    banned = game.deck[picked] if picked is not None else None
    rng.shuffle(melds)
    for meld in melds:
        left = _minus(hand, meld)
        if not left and not game.empty_hand_ok:
            continue
        if left and all(f == banned for f in left) and left.count(banned) == 1:
            continue
        value = meld_value(meld, spec_of(game.rules))
        needs = game.rules.must_open and not game.turn["opened_at_start"]
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
    penalty = card_penalty(game.rules)
    mode = game.rules.run_mode
    scored = [(_card_usefulness(c, hand, mode), -penalty(c), rng.random(), c) for c in set(choices)]
    return min(scored)[3]
