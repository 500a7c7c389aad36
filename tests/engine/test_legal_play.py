"""``hint`` and ``place`` reach the best play the ENGINE accepts (issue 18), on small positions.

The brute force knows nothing of the solver: from the turn as it is, and after each chain of
up to three ``swap`` commands the engine accepts there, it lays every subset of the rack with
every partition of the pieces into melds (claims stay as they are; a meld that would hold a
table joker without a real tile of its start meld is not tried), and asks the engine's own
end-of-turn check (``engine.tile.ending.check_turn``: every meld valid as it lies, every joker
rule) whether the turn could end so. The most rack pieces (value mode: face value, a joker its
rack penalty) over the accepted tables is the optimum; after earlier moves in the turn the hint
may also ``reset``, so it must leave the fewest pieces of both. Count: the hint, typed back, must
be accepted and reach it; ``place`` of the optimum's pieces must be accepted too. Value:
``legal_play(mode="value")`` must reach the optimum and its play be accepted. Positions:
:func:`positions` - Rummikub, Stein and Stein Plus (a quarter with another player's claim), one
or two table melds (jokers in them), two to four rack pieces, at most two jokers;
:func:`joker_positions` - a joker run of up to seven pieces, a second table joker, rack tiles the
jokers stand for and tiles around the run; :func:`tied_positions` - two jokers in one table meld
(tied), up to four table jokers, three swaps in a row; :func:`turn_positions` - any of those
after three to five earlier commands of the turn; and :data:`GAPS`, one position per gap the
search once had. :func:`test_the_generators_make_the_cases_they_exist_for` fails when the
generators stop making their cases.

``make test`` runs a fixed number of derandomised examples (a third of them on the bigger
positions; the file runs in about 30 s); the long search, not in CI:
``LEGAL_PLAY_EXAMPLES=2000 .venv/bin/python -m pytest tests/engine/test_legal_play.py`` (random
examples; ``--hypothesis-seed=N`` for a sweep of seeds).
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import combinations

from hypothesis import HealthCheck, Phase, assume, event, example, given, settings
from hypothesis import strategies as st

from engine.errors import RummyError
from engine.hints import hint_command, tile_hint
from engine.melds import joker_meanings, positional_reading
from engine.pieces import Face, Tile, format_faces
from engine.rules import preset
from engine.tile.ending import check_turn
from engine.tile.legal import accepts, describe, legal_play
from engine.tile.turn import Meld, arrange, held_jokers, play_from_rack
from engine.tiles import TileGame

JOKER = Tile.joker()
EXAMPLES = int(os.environ.get("LEGAL_PLAY_EXAMPLES", "30"))
RANDOM = "LEGAL_PLAY_EXAMPLES" in os.environ

#: the brute-force comparisons' Hypothesis settings (derandomised in CI; LEGAL_PLAY_EXAMPLES)
BRUTE_FORCE = settings(
    max_examples=EXAMPLES,
    derandomize=not RANDOM,
    phases=(Phase.explicit, Phase.generate) if RANDOM else tuple(Phase),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
#: the same for the bigger positions (two tied jokers, earlier moves): a third of the examples
#: in CI (their brute force costs more), all of them with LEGAL_PLAY_EXAMPLES
BRUTE_FORCE_BIG = settings(BRUTE_FORCE, max_examples=EXAMPLES if RANDOM else max(1, EXAMPLES // 3))


# -- the brute force ----------------------------------------------------------------------------


def _valid_blocks(g: TileGame, ids: list[int], ties: dict | None = None):
    """Every partition of ``ids`` into melds valid as the engine lays them (arranged). A
    meld's pieces share a value (group) or a colour (run) with its first piece, or are jokers
    (RULES.md "Common ground"), so only those are tried beside it; a meld holding a table
    joker not freed this turn also holds a real tile of its start meld (Rummikub: every
    piece of it left there), or the engine's end-of-turn check refuses it
    (``joker.left_meld``, ``joker.locked_meld``), so no other is tried."""
    if ties is None:
        ties = _ties(g)
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    head = g.deck[first]
    near = [
        i
        for i in rest
        if head.is_joker
        or g.deck[i].is_joker
        or g.deck[i].rank == head.rank
        or g.deck[i].suit == head.suit
    ]
    for size in range(2, len(near) + 1):
        for others in combinations(near, size):
            block = [first, *others]
            inside = set(block)
            if any(j in inside and not need(inside) for j, need in ties.items()):
                continue
            ordered = arrange(g, block)
            if positional_reading(g.faces(ordered), g.rules.meld_spec) is None:
                continue
            left = [i for i in rest if i not in others]
            for tail in _valid_blocks(g, left, ties):
                yield [ordered, *tail]


def _ties(g: TileGame) -> dict:
    """Per table joker not freed this turn, what a meld holding it must hold: a real tile of
    its start meld, and under ``joker_meld_no_split`` every piece of it not freed."""
    out = {}
    for joker, (index, _meaning) in held_jokers(g).items():
        home = [i for i in g.table[index].ids if i not in g.turn.freed]
        reals = {i for i in home if not g.deck[i].is_joker}
        whole = set(home) if g.rules.joker_meld_no_split else set()
        out[joker] = lambda inside, reals=reals, whole=whole: (
            bool(inside & reals) and whole <= inside
        )
    return out


def _subsets(state: TileGame) -> list[list[int]]:
    """The subsets of the rack, one per set of faces (a freed joker told apart)."""
    rack = list(state.turn.rack)
    seen: set[tuple] = set()
    out = []
    for n in range(len(rack) + 1):
        for chosen in combinations(rack, n):
            sig = tuple(sorted((str(state.deck[i]), i in state.turn.freed) for i in chosen))
            if sig not in seen:
                seen.add(sig)
                out.append(list(chosen))
    return out


def _accepted(state: TileGame, seat: int, chosen: list[int]) -> TileGame | None:
    """A table the engine accepts at the end of the turn that lays the working table's
    pieces (claims as they lie) and ``chosen`` from the rack, or None."""
    fixed = [m for m in state.turn.table if m.claim is not None]
    loose = [i for m in state.turn.table if m.claim is None for i in m.ids]
    for blocks in _valid_blocks(state, loose + chosen):
        probe = state.copy()
        probe.turn.table = [m.copy() for m in fixed] + [Meld(b) for b in blocks]
        play_from_rack(probe, chosen)
        try:
            check_turn(probe, seat)
        except RummyError:
            continue
        return probe
    return None


def _swaps(g: TileGame, seat: int):
    """Every ``swap`` the engine accepts in this state (one or two rack tiles)."""
    rack = sorted({str(f) for f in g.faces(g.turn.rack) if not f.is_joker})
    for number, meld in enumerate(g.turn.table, 1):
        if not any(g.deck[i].is_joker for i in meld.ids):
            continue
        for k in (1, 2):
            for pieces in combinations(rack, k):
                text = f"swap {number} {' '.join(pieces)}"
                after = g.tried(seat, text)
                if after is not None:
                    yield text, after


SWAP_DEPTH = 3
"""Swaps in a row the brute force makes before the play (one per table joker at most here)."""


def _swap_states(g: TileGame, seat: int) -> list[tuple[str, TileGame]]:
    """The turn as it is, and every state after one swap the engine accepts, two, up to
    :data:`SWAP_DEPTH` (each state once)."""
    states = [("", g)]
    frontier = states[:]
    seen = {_state_of(g)}
    for _ in range(SWAP_DEPTH):
        step = []
        for text, state in frontier:
            for swap, after in _swaps(state, seat):
                key = _state_of(after)
                if key not in seen:
                    seen.add(key)
                    step.append((f"{text}; {swap}" if text else swap, after))
        states += step
        frontier = step
    return states


def _state_of(g: TileGame) -> tuple:
    t = g.turn
    return (tuple(tuple(m.ids) for m in t.table), tuple(sorted(t.rack)), tuple(sorted(t.freed)))


def _worth(g: TileGame, faces, mode: str) -> int:
    if mode == "count":
        return len(faces)
    return sum(g.rules.joker_penalty if f.is_joker else f.rank for f in faces)


def brute_force(g: TileGame, seat: int = 0, mode: str = "count") -> tuple[int | None, list[Face]]:
    """The most rack pieces (``mode="value"``: face value, a joker its rack penalty) any
    accepted end of the turn takes from the rack as it is (a swap's tiles count, a joker it
    brings to the rack counts back), and the faces that leave the rack in one such play (what
    ``place`` is asked for; empty when every such play keeps a freed joker). The plays start
    from the working table, after no ``swap`` or up to :data:`SWAP_DEPTH` in a row; a subset
    of the rack that cannot beat the best found is not laid. None when no end is accepted
    (the turn's earlier moves left a table nothing mends)."""
    start = Counter(g.faces(g.turn.rack))
    worth = _worth(g, list(start.elements()), mode)
    best: int | None = None
    pieces: list[Face] = []

    for _text, state in _swap_states(g, seat):
        rack = Counter(state.faces(state.turn.rack))
        laid = []  # (worth placed, every piece gone counts, the pieces gone, the subset)
        for chosen in _subsets(state):
            left = rack - Counter(state.faces(chosen))
            placed = worth - _worth(g, list(left.elements()), mode)
            gone = sorted((start - left).elements(), key=str)
            laid.append((placed, _worth(g, gone, mode) == placed, gone, chosen))
        laid.sort(key=lambda entry: -entry[0])  # the most first: the rest is rarely laid
        for placed, whole, gone, chosen in laid:
            improves = best is None or placed > best or (placed == best and not pieces and whole)
            if improves and _accepted(state, seat, chosen) is not None:
                best = placed
                pieces = gone if whole else []
    return best, pieces


def least_left(g: TileGame, seat: int = 0) -> int:
    """The fewest rack pieces any accepted end of the turn leaves, from the working table or
    (the turn changed) after ``reset``: what a hint must reach."""
    found = []
    best, _pieces = brute_force(g, seat)
    if best is not None:
        found.append(len(g.turn.rack) - best)
    start = g.tried(seat, "reset") if _moves_made(g) else None
    if start is not None:
        from_start, _pieces = brute_force(start, seat)
        if from_start is not None:
            found.append(len(start.turn.rack) - from_start)
    assert found, _shown(g)
    return min(found)


def _moves_made(g: TileGame) -> bool:
    t = g.turn
    return bool(t.played or t.freed or t.taken) or g.table_faces() != g.table_faces(working=True)


# -- positions ----------------------------------------------------------------------------------


@st.composite
def positions(draw):
    name = draw(st.sampled_from(["stein", "stein_plus", "rummikub"]))
    rules = preset(name)
    wrap = rules.meld_spec.run_mode == "wrap"
    base = draw(st.integers(1, 13 if wrap else 9))
    values = [(base - 1 + k) % 13 + 1 for k in range(5)] if wrap else list(range(base, base + 5))

    def meld():
        if draw(st.booleans()):
            v = draw(st.sampled_from(values))
            colours = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
            faces = [Tile(c, v) for c in colours]
        else:
            c = draw(st.integers(0, 2))
            length = draw(st.integers(3, 4))
            at = draw(st.integers(0, len(values) - length))
            faces = [Tile(c, v) for v in values[at : at + length]]
        if draw(st.integers(0, 2)):
            faces[draw(st.integers(0, len(faces) - 1))] = JOKER
        return faces

    table = [meld() for _ in range(draw(st.integers(1, 2)))]
    rack_size = draw(st.integers(2, 4))
    rack = [
        JOKER
        if draw(st.integers(0, 9)) == 0
        else Tile(draw(st.integers(0, 2)), draw(st.sampled_from(values)))
        for _ in range(rack_size)
    ]
    claim = name == "stein_plus" and draw(st.integers(0, 3)) == 0
    assume(_jokers(table, rack) <= 2)
    return name, table, rack, claim


@st.composite
def joker_positions(draw):
    """Positions for the joker rules the legal search covers beyond the plain ones: a joker
    run of three to seven pieces (its final meld may grow past six), a second table joker in
    a group (two tied jokers; a rack joker may be a meld's second joker), rack tiles the table
    jokers stand for (one swap or two before the play) and tiles around the joker run (the
    table rearranged around a joker's final meld)."""
    name = draw(st.sampled_from(["stein", "stein_plus", "rummikub"]))
    rules = preset(name)
    spec = rules.meld_spec
    wrap = spec.run_mode == "wrap"
    base = draw(st.integers(1, 13 if wrap else 7))
    values = [(base - 1 + k) % 13 + 1 for k in range(7)]
    colour = draw(st.integers(0, 1))
    length = draw(st.integers(3, 7))
    at = draw(st.integers(0, 7 - length))
    run = [Tile(colour, v) for v in values[at : at + length]]
    run[draw(st.integers(0, length - 1))] = JOKER
    table = [run]
    if draw(st.booleans()):
        v = draw(st.sampled_from(values))
        colours = draw(st.lists(st.integers(0, 3), min_size=3, max_size=3, unique=True))
        group = [Tile(c, v) for c in colours]
        if draw(st.booleans()):
            group[draw(st.integers(0, 2))] = JOKER
        table.append(group)
    meant = sorted({f for m in table for f in joker_meanings(m, spec)}, key=str)
    rack = []
    for _ in range(draw(st.integers(2, 4))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            rack.append(JOKER)
        elif kind <= 3 and meant:
            rack.append(draw(st.sampled_from(meant)))
        else:
            rack.append(Tile(draw(st.integers(0, 2)), draw(st.sampled_from(values))))
    assume(_jokers(table, rack) <= 2)
    return name, table, rack, False


@st.composite
def tied_positions(draw):
    """Positions with two jokers in one table meld, their meanings tied to each other
    (RULES.md "Common ground": fixed by where they sit - a run's two places, a group's
    missing colours), and a second meld that may hold a third table joker; the rack holds
    tiles the jokers stand for (up to three swaps in a row before the play), maybe a joker,
    and tiles around the melds."""
    name = draw(st.sampled_from(["stein", "stein_plus", "rummikub"]))
    spec = preset(name).meld_spec
    wrap = spec.run_mode == "wrap"
    base = draw(st.integers(1, 13 if wrap else 7))
    values = [(base - 1 + k) % 13 + 1 for k in range(7)]
    if draw(st.booleans()):  # a run with two jokers
        colour = draw(st.integers(0, 1))
        length = draw(st.integers(3, 6))
        at = draw(st.integers(0, 7 - length))
        tied = [Tile(colour, v) for v in values[at : at + length]]
    else:  # a group with two jokers
        value = draw(st.sampled_from(values))
        colours = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
        tied = [Tile(c, value) for c in colours]
    places = draw(st.lists(st.integers(0, len(tied) - 1), min_size=2, max_size=2, unique=True))
    for k in places:
        tied[k] = JOKER
    table = [tied]
    for second in (draw(st.sampled_from([2, 1, 0])), draw(st.sampled_from([2, 0]))):
        # none, a meld, a meld with a joker (a third meld: a joker in it, now and then)
        if not second:
            continue
        if draw(st.booleans()):
            value = draw(st.sampled_from(values))
            colours = draw(st.lists(st.integers(0, 3), min_size=3, max_size=3, unique=True))
            other = [Tile(c, value) for c in colours]
        else:
            colour = draw(st.integers(0, 2))
            at = draw(st.integers(0, 4))
            other = [Tile(colour, v) for v in values[at : at + 3]]
        if second == 2:
            other[draw(st.integers(0, 2))] = JOKER
        table.append(other)
    assume(all(positional_reading(m, spec) is not None for m in table))
    meant = sorted({f for m in table for f in joker_meanings(m, spec)}, key=str)
    size = draw(st.sampled_from([3, 4, 5, 2]))
    # mostly a tile for each joker meld (a swap each: three in a row), then the rest
    rack = [
        draw(st.sampled_from(sorted(joker_meanings(m, spec), key=str)))
        for m in table
        if JOKER in m and draw(st.sampled_from([True, True, True, False]))
    ][:size]
    while len(rack) < size:
        kind = draw(st.integers(0, 9))
        if kind == 0:
            rack.append(JOKER)
        elif kind <= 2:
            rack.append(draw(st.sampled_from(meant)))
        else:
            rack.append(Tile(draw(st.integers(0, 2)), draw(st.sampled_from(values))))
    assume(_jokers(table, rack) <= 4)
    return name, table, rack, False


def _commands(g: TileGame) -> list[str]:
    """The commands a player might type now (many refused): ``meld`` of three rack pieces,
    ``add``, ``move`` (to another meld or a new one), ``split``, ``join``, ``swap`` and
    (Stein) ``take``."""
    spec = g.rules.meld_spec
    rack = sorted({str(f) for f in g.faces(g.turn.rack)})
    out = [f"meld {' '.join(c)}" for c in combinations(sorted(map(str, g.faces(g.turn.rack))), 3)]
    melds = [g.faces(m.ids) for m in g.turn.table]
    for number, faces in enumerate(melds, 1):
        shown = sorted({str(f) for f in faces})
        out += [f"add {number} {piece}" for piece in rack]
        out += [f"move {number} {piece} > new" for piece in shown]
        out += [f"split {number} {piece}" for piece in shown]
        for other in range(1, len(melds) + 1):
            if other != number:
                out += [f"move {number} {piece} > {other}" for piece in shown]
                out.append(f"join {number} {other}")
        if JOKER in faces and positional_reading(faces, spec) is not None:
            meant = {str(f) for f in joker_meanings(faces, spec)}
            out += [f"swap {number} {piece}" for piece in rack if piece in meant]
        if g.rules.take_with_joker and JOKER in g.faces(g.turn.rack):
            out += [f"take {number} {piece}" for piece in shown if piece != "J"]
    return sorted(set(out))


@st.composite
def turn_positions(draw):
    """A position of the other generators after three to five commands the engine accepts
    earlier in the same turn (pieces laid, moved, split, joined, jokers swapped or taken; the
    table may be left invalid): the play must start from the turn as it is, or after
    ``reset``."""
    base = draw(st.one_of(positions(), joker_positions(), tied_positions()))
    g = _game(*base)
    wanted = draw(st.integers(3, 5))
    moves: list[str] = []
    for _ in range(3 * wanted):
        if len(moves) >= wanted:
            break
        text = draw(st.sampled_from(_commands(g)))
        after = g.tried(0, text)
        if after is not None:
            moves.append(text)
            g = after
    assume(len(moves) >= 3)
    return (*base[:4], tuple(moves))


def _jokers(table, rack) -> int:
    return sum(1 for m in table for f in m if f.is_joker) + rack.count(JOKER)


def _game(name, table, rack, claim, moves=()) -> TileGame:
    """The position as a game, seat 0 to move and opened, ``moves`` made in its turn."""
    rules = preset(name)
    spec = rules.meld_spec
    assume(all(positional_reading(m, spec) is not None for m in table))
    text = " | ".join(format_faces(m) for m in table)
    players = 4 if _jokers(table, rack) > 3 else None  # Stein: a joker per player
    try:
        g = TileGame.position(rules, text, [format_faces(rack)], opened=[True], players=players)
    except RummyError:
        assume(False)
    if claim:
        meld = g.table[0]
        faces = g.faces(meld.ids)
        found = positional_reading(faces, spec)
        assume(len(faces) == 4 and found is not None and found.kind == "group")
        meld.claim = 1
        g.turn.table[0].claim = 1
    for command in moves:
        g.apply(0, command)
    return g


def _shown(g: TileGame) -> str:
    """The position as typed: the table's melds, then the rack."""
    table = " | ".join(format_faces(m) for m in g.table_faces(working=True))
    return f"{table} / {format_faces(g.faces(g.turn.rack))}"


def _placed_by(g: TileGame, command: str) -> int:
    """Rack pieces the hint's play places (its commands without the end of the turn)."""
    play = command.split("; ")[:-1]
    if not play:
        return 0
    after = g.tried(0, "; ".join(play))
    assert after is not None, command
    return len(g.turn.rack) - len(after.turn.rack)


@BRUTE_FORCE
@given(positions())
def test_hint_and_place_reach_the_best_play_the_engine_accepts(position):
    _check_hint(position)


def _check_hint(position, strict: bool = True) -> None:
    """The hint, typed back, is accepted and leaves the brute force's fewest pieces on the
    rack (after the turn's earlier moves: from the turn as it is or after ``reset``); the
    legal search from the turn as it is places the brute force's most there; ``place`` of
    the optimum's pieces is accepted. Not ``strict``: an answer that says it is not exact
    ("good move") may fall short (three tied jokers, see engine/tile/legal.py), and is
    counted (``event``)."""
    g = _game(*position)
    best, pieces = brute_force(g)
    least = least_left(g) if _moves_made(g) else len(g.turn.rack) - (best or 0)
    (found,) = tile_hint(g, 0)
    command = hint_command(found)
    inexact = bool(found.params["inexact"])
    assert g.tried(0, command) is not None, command  # typed back, it is accepted
    left = _left_by(g, command)
    if left != least and not strict and inexact:
        event("hint short of the maximum, said so")
        return
    assert left == least, (command, _shown(g), least, inexact)
    if best is not None and _moves_made(g):
        play = legal_play(g, 0)
        if play.score != best and not strict and not play.exact:
            event("legal search short of the maximum, said so")
            return
        assert play.score == best, (describe(play), _shown(g), best, play.exact)
    if pieces:
        assert g.tried(0, f"place {format_faces(pieces)}") is not None, pieces


def _left_by(g: TileGame, command: str) -> int:
    """Rack pieces left after the hint's play (its commands without the end of the turn)."""
    play = command.split("; ")[:-1]
    if not play:
        return len(g.turn.rack)
    after = g.tried(0, "; ".join(play))
    assert after is not None, command
    return len(after.turn.rack)


def test_swap_then_a_new_meld_with_the_freed_joker():
    """Rummikub: ``swap`` frees the joker, which goes into a new meld with two rack tiles (the
    solver alone places one tile; the engine accepts three)."""
    g = TileGame.position(preset("rummikub"), "R4 J R6", ["R5 B9 K9"], opened=[True])
    best, pieces = brute_force(g)
    assert best == 3 and g.tried(0, f"place {format_faces(pieces)}") is not None
    (event,) = tile_hint(g, 0)
    command = hint_command(event)
    assert command.startswith("swap 1 R5") and _placed_by(g, command) == 3, command


@BRUTE_FORCE
@given(positions())
def test_the_legal_search_reaches_the_most_value_the_engine_accepts(position):
    """Value mode (a joker counts its rack penalty): legal_play's score is the brute force's
    maximum, and its play, made on a copy, is accepted at the end of the turn."""
    _check_value(position)


def _check_value(position, strict: bool = True) -> None:
    g = _game(*position)
    best, _pieces = brute_force(g, mode="value")
    play = legal_play(g, 0, mode="value")
    if best is None:  # no end of the turn is accepted from here
        assert play.solution is None, describe(play)
        return
    if play.score != best and not strict and not play.exact:
        event("legal search short of the maximum, said so")
        return
    assert play.score == best, (describe(play), _shown(g), best, play.exact)
    if play.solution is None:
        return
    state = g.tried(0, "; ".join(play.before)) if play.before else g
    assert state is not None
    assert accepts(state, 0, play.solution.table, play.solution.placed) is None


#: positions the search once missed, one per gap it closed, and one only the exchange of a joker
#: finds within the budget (the brute force's best in brackets; a fifth item: the turn's
#: earlier commands)
GAPS = [
    # a swap, then the freed joker beside the tile the swap laid [1]
    ("rummikub", [[JOKER, *(Tile(0, v) for v in range(6, 10))]], [Tile(0, 5), Tile(0, 5)], False),
    # two tied jokers, the run's joker keeps a piece of its run, the group's a rack tile [2]
    (
        "stein",
        [
            [Tile(1, 2), JOKER, *(Tile(1, v) for v in range(4, 9))],
            [Tile(2, 5), JOKER, Tile(0, 5)],
        ],
        [Tile(3, 5), Tile(2, 8), Tile(2, 8), Tile(3, 5)],
        False,
    ),
    # the joker changes places with the tile it stands for [2]
    (
        "stein",
        [[JOKER, Tile(1, 11), Tile(1, 12), Tile(1, 13), Tile(1, 1), Tile(1, 2)]],
        [Tile(0, 1), Tile(2, 1)],
        False,
    ),
    # two jokers beside a tile read as a group: one changes places with the run's B4 (found
    # only by the exchange) [2]
    (
        "stein",
        [[JOKER, *(Tile(0, v) for v in range(1, 6))], [Tile(1, 4), Tile(2, 4), Tile(3, 4)]],
        [Tile(2, 4), JOKER],
        False,
    ),
    # value mode, another player's claim on the table: the swap alone is the play, its joker
    # kept in the hand [12]
    (
        "stein_plus",
        [
            [Tile(1, 10), JOKER, Tile(3, 10), Tile(2, 10)],
            [JOKER, Tile(3, 13), Tile(2, 13), Tile(0, 13)],
        ],
        [Tile(1, 10), Tile(1, 13), Tile(2, 9)],
        True,
    ),
    # the table's own pieces rearranged around the freed joker's new meld [1]
    (
        "rummikub",
        [
            [*(Tile(1, v) for v in range(1, 4)), JOKER, *(Tile(1, v) for v in range(5, 8))],
            [Tile(0, 2), Tile(2, 2), Tile(1, 2)],
        ],
        [Tile(1, 4), Tile(2, 2)],
        False,
    ),
    # two tied group jokers stay in one meld, the group's B1 goes to the run (R1 K1 J J) [3]
    (
        "stein",
        [[JOKER, JOKER, Tile(0, 1), Tile(3, 1)], [Tile(0, 1), JOKER, Tile(0, 3)]],
        [Tile(1, 1), Tile(0, 2), Tile(0, 2)],
        False,
    ),
    # after earlier moves: a joker and a tile laid beside joker melds this turn leave them
    # again (J J B4 B5 B6 | J R3 R4 | B2 B3 B4 | R2 J R4) [1]
    (
        "rummikub",
        [
            [JOKER, JOKER, Tile(0, 4), Tile(0, 5)],
            [Tile(0, 2), Tile(0, 3), Tile(0, 4)],
            [Tile(1, 2), JOKER, Tile(1, 4)],
        ],
        [Tile(1, 3), JOKER, Tile(1, 4), Tile(0, 6)],
        False,
        ("add 1 J", "add 3 B6", "add 3 R3"),
    ),
    # after earlier moves: a swap's tile inside the joker run, the tile laid at its end this
    # turn goes with the freed joker (B9 J B11) [2]
    (
        "rummikub",
        [[Tile(0, 5), Tile(0, 6), JOKER, Tile(0, 8), JOKER, Tile(0, 10)]],
        [Tile(2, 5), Tile(0, 9), Tile(0, 11), Tile(0, 9), Tile(2, 5)],
        False,
        ("add 1 B11", "move 1 B11 > new", "join 1 2"),
    ),
    # after earlier moves: two joker melds joined into one with tiles laid beside them; each
    # start meld goes to the solver as its own part (was: nothing, "best move") [1]
    (
        "rummikub",
        [[JOKER, JOKER, Tile(2, 8), Tile(0, 8)], [Tile(0, 7), JOKER, Tile(2, 7)]],
        [Tile(3, 8), Tile(1, 8), JOKER, Tile(1, 12)],
        False,
        ("add 1 K8", "join 1 2", "add 1 R8"),
    ),
    # after earlier moves: the start meld's pieces spread over two melds, gathered again for
    # the solver (value 4: swap 1 B4 and the freed joker beside Y3 K3) [4]
    (
        "rummikub",
        [
            [JOKER, JOKER, Tile(0, 5), Tile(0, 6), Tile(0, 7)],
            [JOKER, Tile(0, 3), Tile(2, 3)],
            [Tile(3, 3), JOKER, Tile(0, 3)],
        ],
        [Tile(0, 4), Tile(3, 3), Tile(2, 3)],
        False,
        ("add 1 Y3", "add 2 K3", "move 1 Y3 > 3"),
    ),
    # after earlier moves (Stein ``take``): a meld whose joker was laid this turn is the
    # player's own, its R6 leaves it for R5 R6 R7 (was: K6 alone, "best move") [2]
    (
        "stein",
        [[Tile(1, 5), JOKER, Tile(2, 5), Tile(3, 5)], [Tile(2, 6), Tile(1, 6), Tile(3, 6)]],
        [Tile(1, 7), JOKER],
        False,
        ("take 2 K6", "move 2 R6 > new", "join 2 3"),
    ),
    # a locked group of one tile and two jokers the solver reads as a run (B12 J J: R11-R13);
    # it is completed as a group [1]
    (
        "rummikub",
        [[Tile(0, 12), JOKER, JOKER], [JOKER, Tile(2, 11), Tile(2, 12)]],
        [Tile(2, 12)],
        False,
    ),
    # after a swap the held joker keeps its meaning: J R6 R7 is no part of J R5 R6 R7 (the
    # joker meant R4); swap 1 R5, then B9 Y9 and the freed joker [3]
    (
        "rummikub",
        [[JOKER, JOKER, Tile(1, 6), Tile(1, 7)], [Tile(2, 6), JOKER, Tile(2, 8)]],
        [Tile(1, 5), Tile(0, 9), Tile(2, 9), Tile(0, 4)],
        False,
    ),
    # Stein ``place`` of pieces that need two swaps first (swap 2 Y6; swap 3 B5; place R7 Y6
    # J J) [4]
    (
        "stein",
        [
            [Tile(1, 6), JOKER, JOKER, Tile(3, 6)],
            [Tile(2, 5), JOKER, Tile(2, 7)],
            [Tile(0, 3), Tile(0, 4), JOKER],
        ],
        [Tile(2, 6), Tile(2, 6), Tile(0, 5), Tile(1, 7)],
        False,
    ),
    # two swaps, then both freed jokers beside the tile the first swap laid: B1 J J, the
    # second joker standing for the B2 that lies in B2 B3 B4 [2]
    (
        "rummikub",
        [[JOKER, Tile(0, 2), Tile(0, 3), Tile(0, 4)], [JOKER, Tile(0, 6), Tile(1, 6)]],
        [Tile(0, 1), Tile(2, 6)],
        False,
    ),
    # after earlier moves, Stein ``place`` that only a play after which the turn can end
    # lays [3]
    (
        "stein",
        [[JOKER, *(Tile(0, v) for v in range(9, 13)), JOKER], [Tile(0, 8), Tile(1, 8), JOKER]],
        [Tile(1, 8), Tile(0, 11), JOKER, Tile(0, 12), Tile(0, 8)],
        False,
        ("add 2 B12", "split 2 B12", "add 2 J", "move 3 B12 > new", "move 1 B9 > new"),
    ),
]


def _gap_examples(test):
    for position in reversed(GAPS):
        test = example(position)(test)
    return test


@BRUTE_FORCE
@given(joker_positions())
@_gap_examples
def test_hint_reaches_the_best_play_around_table_jokers(position):
    """As above, on :func:`joker_positions` (long joker runs, two jokers, one or two swaps,
    the table rearranged around a joker's meld)."""
    _check_hint(position)


@BRUTE_FORCE
@given(joker_positions())
@_gap_examples
def test_the_legal_search_reaches_the_most_value_around_table_jokers(position):
    test_the_legal_search_reaches_the_most_value_the_engine_accepts.hypothesis.inner_test(position)


@BRUTE_FORCE_BIG
@given(tied_positions())
def test_hint_reaches_the_best_play_around_two_tied_jokers(position):
    """As above, on :func:`tied_positions` (two jokers in one table meld, up to three table
    jokers and three swaps in a row)."""
    _check_hint(position, strict=False)


@BRUTE_FORCE_BIG
@given(tied_positions())
def test_the_legal_search_reaches_the_most_value_around_two_tied_jokers(position):
    _check_value(position, strict=False)


@BRUTE_FORCE_BIG
@given(turn_positions())
def test_hint_reaches_the_best_play_after_earlier_moves(position):
    """As above, after three to five earlier commands of the turn (:func:`turn_positions`):
    the hint from the turn as it is or after ``reset``, the legal search from the turn as
    it is."""
    _check_hint(position, strict=False)


@BRUTE_FORCE_BIG
@given(turn_positions())
def test_the_legal_search_reaches_the_most_value_after_earlier_moves(position):
    _check_value(position, strict=False)


def _tied_meld(g: TileGame) -> bool:
    """Does a table meld hold two jokers at the start of the turn?"""
    return any(sum(1 for f in m if f.is_joker) >= 2 for m in g.table_faces())


def _swap_depth(g: TileGame) -> int:
    """The most swaps in a row that reach a state no fewer swaps reach (up to
    :data:`SWAP_DEPTH`)."""
    return max(len([t for t in text.split("; ") if t]) for text, _ in _swap_states(g, 0))


def test_the_generators_make_the_cases_they_exist_for():
    """The generators make what they are for, often (over 150 derandomised draws each): a
    table meld with two tied jokers in most of :func:`tied_positions`, three swaps in a row
    in some, and three or more earlier commands in every :func:`turn_positions` example."""
    seen: Counter = Counter()
    draws = settings(
        max_examples=150,
        derandomize=True,
        phases=(Phase.generate,),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )

    @draws
    @given(tied_positions())
    def tied(position):
        g = _game(*position)
        seen["tied"] += 1
        seen["tied meld"] += _tied_meld(g)
        seen[f"{_swap_depth(g)} swaps"] += 1

    @draws
    @given(turn_positions())
    def moved(position):
        g = _game(*position)
        seen["turn"] += 1
        seen["three moves"] += len(position[4]) >= 3
        seen["changed"] += _moves_made(g)
        seen["tied meld after moves"] += _tied_meld(g)

    tied()
    moved()
    assert seen["tied meld"] >= 0.9 * seen["tied"], seen
    assert seen["3 swaps"] >= 0.05 * seen["tied"], seen
    assert seen["three moves"] == seen["turn"], seen
    assert seen["tied meld after moves"] >= 0.1 * seen["turn"], seen
