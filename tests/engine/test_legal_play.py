"""``hint`` and ``place`` reach the best play the ENGINE accepts (issue 18), on small positions.

The brute force knows nothing of the solver: from the start of a turn, after each ``swap``
the engine accepts there and after each second ``swap`` after that, it lays every subset of
the rack with every partition of the pieces into melds (claims stay as they are), and asks the
engine's own end-of-turn check (``engine.tile.ending.check_turn``: every meld valid as it lies,
every joker rule) whether the turn could end so. The most rack pieces (value mode: face value,
a joker its rack penalty) over the accepted tables is the optimum. Count: the hint, typed back,
must be accepted and place that many; ``place`` of the optimum's pieces must be accepted too
(with a ``swap`` first where the play needs one). Value: ``legal_play(mode="value")`` must
reach the optimum and its play be accepted. Positions: :func:`positions` - Rummikub, Stein and
Stein Plus (a quarter with another player's claim), one or two table melds (jokers in them),
two to four rack pieces, at most two jokers; :func:`joker_positions` - a joker run of up to
seven pieces, a second table joker, rack tiles the jokers stand for (one or two swaps) and
tiles around the run; and :data:`GAPS`, one position per gap the search once had.

``make test`` runs a fixed number of derandomised examples; ``LEGAL_PLAY_EXAMPLES=2000`` runs that
many random ones (the longer search, not in CI).
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import combinations

from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st

from engine.errors import RummyError
from engine.hints import hint_command, tile_hint
from engine.melds import joker_meanings, positional_reading
from engine.pieces import Face, Tile, format_faces
from engine.rules import preset
from engine.tile.ending import check_turn
from engine.tile.legal import accepts, describe, legal_play
from engine.tile.turn import Meld, arrange, play_from_rack
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


# -- the brute force ----------------------------------------------------------------------------


def _valid_blocks(g: TileGame, ids: list[int]):
    """Every partition of ``ids`` into melds valid as the engine lays them (arranged). A
    meld's pieces share a value (group) or a colour (run) with its first piece, or are jokers
    (RULES.md "Common ground"), so only those are tried beside it."""
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
            ordered = arrange(g, block)
            if positional_reading(g.faces(ordered), g.rules.meld_spec) is None:
                continue
            left = [i for i in rest if i not in others]
            for tail in _valid_blocks(g, left):
                yield [ordered, *tail]


def _accepted_tables(state: TileGame, seat: int, mode: str = "count"):
    """(rack pieces placed, the state) for every table the engine accepts from ``state``
    (count mode: one per subset of the rack; value mode: every one)."""
    fixed = [m for m in state.turn.table if m.claim is not None]
    loose = [i for m in state.turn.table if m.claim is None for i in m.ids]
    rack = list(state.turn.rack)
    seen: set[tuple] = set()
    for n in range(len(rack) + 1):
        for chosen in combinations(rack, n):
            sig = tuple(sorted((str(state.deck[i]), i in state.turn.freed) for i in chosen))
            if sig in seen:
                continue
            seen.add(sig)
            for blocks in _valid_blocks(state, loose + list(chosen)):
                probe = state.copy()
                probe.turn.table = [m.copy() for m in fixed] + [Meld(b) for b in blocks]
                play_from_rack(probe, list(chosen))
                try:
                    check_turn(probe, seat)
                except RummyError:
                    continue
                yield list(chosen), probe
                break  # one accepted table per subset is enough (same rack left)


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


def _worth(g: TileGame, faces, mode: str) -> int:
    if mode == "count":
        return len(faces)
    return sum(g.rules.joker_penalty if f.is_joker else f.rank for f in faces)


def brute_force(g: TileGame, seat: int = 0, mode: str = "count") -> tuple[int, list[Face]]:
    """The most rack pieces (``mode="value"``: face value, a joker its rack penalty) any
    accepted end of the turn takes from the rack (a swap's tiles count, a joker it brings to
    the rack counts back), and the faces that leave the rack in one such play (what ``place``
    is asked for; empty when every such play keeps a freed joker). The plays start from
    the turn's start, after one ``swap`` or after two."""
    start = Counter(g.faces(g.turn.rack))
    worth = _worth(g, list(start.elements()), mode)
    best, pieces = 0, []
    states = [("", g)]
    for text, state in _swaps(g, seat):  # one swap, and a second one after it
        states += [(text, state), *((f"{text}; {t}", s) for t, s in _swaps(state, seat))]
    for _text, state in states:
        for _chosen, probe in _accepted_tables(state, seat, mode):
            placed = worth - _worth(g, probe.faces(probe.turn.rack), mode)
            gone = start - Counter(probe.faces(probe.turn.rack))
            whole = _worth(g, list(gone.elements()), mode) == placed
            if placed > best or (placed == best and not pieces and whole):
                best = placed
                pieces = sorted(gone.elements(), key=str) if whole else []
    return best, pieces


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
    return name, table, rack, False


def _game(name, table, rack, claim) -> TileGame:
    rules = preset(name)
    spec = rules.meld_spec
    assume(all(positional_reading(m, spec) is not None for m in table))
    assume(sum(1 for m in table for f in m if f.is_joker) + rack.count(JOKER) <= 2)
    text = " | ".join(format_faces(m) for m in table)
    try:
        g = TileGame.position(rules, text, [format_faces(rack)], opened=[True])
    except RummyError:
        assume(False)
    if claim:
        meld = g.table[0]
        faces = g.faces(meld.ids)
        found = positional_reading(faces, spec)
        assume(len(faces) == 4 and found is not None and found.kind == "group")
        meld.claim = 1
        g.turn.table[0].claim = 1
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


def _check_hint(position) -> None:
    """The hint, typed back, is accepted and places the brute force's most; ``place`` of
    the optimum's pieces is accepted."""
    g = _game(*position)
    best, pieces = brute_force(g)
    (event,) = tile_hint(g, 0)
    command = hint_command(event)
    assert g.tried(0, command) is not None, command  # typed back, it is accepted
    assert _placed_by(g, command) == best, (command, _shown(g), best)
    if pieces:
        assert g.tried(0, f"place {format_faces(pieces)}") is not None, pieces


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


def _check_value(position) -> None:
    g = _game(*position)
    best, _pieces = brute_force(g, mode="value")
    play = legal_play(g, 0, mode="value")
    assert play.score == best, (describe(play), _shown(g), best)
    if play.solution is None:
        return
    state = g.tried(0, "; ".join(play.before)) if play.before else g
    assert state is not None
    assert accepts(state, 0, play.solution.table, play.solution.placed) is None


#: positions the search once missed, one per gap it closed, and one only the exchange of a joker
#: finds within the budget (the brute force's best in brackets)
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
