"""The solver against an independent brute force (RULES.md, tile presets), plus fixed examples."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.melds import MeldSpec, is_valid, readings
from engine.pieces import Face, Tile, parse_faces, parse_melds
from engine.rules import RUMMIKUB, STEIN, STEIN_PLUS, RuleSet
from engine.solver import Solution, solve

JOKER = Tile.joker()

# -- brute force: every partition of the pieces into valid melds ------------------------------


def _partition_value(pieces: tuple[Face, ...], spec: MeldSpec) -> int | None:
    """The largest total meld value over all partitions of ``pieces`` into valid melds, or
    None when there is no partition (joker counted as what it stands for)."""

    @cache
    def best(rest: tuple[Face, ...]) -> int | None:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        found = None
        # a meld with ``first`` only holds pieces of its value or colour, or jokers
        index = [
            i
            for i, f in enumerate(others)
            if f.is_joker or first.is_joker or f.rank == first.rank or f.suit == first.suit
        ]
        for size in range(2, min(len(index), 25) + 1):
            seen = set()
            for combo in itertools.combinations(index, size):
                meld = (first, *(others[i] for i in combo))
                key = tuple(sorted(meld))
                if key in seen:
                    continue
                seen.add(key)
                options = readings(meld, spec)
                if not options:
                    continue
                left = list(others)
                for i in reversed(combo):
                    del left[i]
                sub = best(tuple(left))
                if sub is None:
                    continue
                total = sub + max(r.value for r in options)
                if found is None or total > found:
                    found = total
        return found

    return best(tuple(sorted(pieces)))


def brute_force(
    table: list[list[Face]], hand: list[Face], rules: RuleSet, opened: bool, mode: str
) -> int:
    """The best score by trying every sub-multiset of the rack."""
    spec = rules.meld_spec
    loose = [f for m in table for f in m] if opened else []
    best = 0
    items = sorted(Counter(hand).items())
    for counts in itertools.product(*(range(n + 1) for _, n in items)):
        chosen = [f for (f, _), k in zip(items, counts, strict=True) for _ in range(k)]
        if not chosen:
            continue
        if mode == "count":
            score = len(chosen)
        else:
            score = sum(rules.joker_penalty if f.is_joker else f.rank for f in chosen)
        if score <= best:
            continue
        value = _partition_value(tuple(loose + chosen), spec)
        if value is None:
            continue
        if not opened and value < rules.opening_minimum:
            continue
        best = score
    return best


# -- random small positions -------------------------------------------------------------------


def random_position(rng: random.Random, rules: RuleSet, table_melds: int, rack_size: int):
    """Valid table melds of real tiles (and jokers), and a rack, respecting two copies."""
    copies = Counter({Tile(s, r): 2 for s in range(4) for r in range(1, 14)})
    jokers_left = 4 if rules.preset == "rummikub" else 3
    wrap = rules.run_mode == "wrap"
    table = []
    for _ in range(table_melds):
        for _attempt in range(20):
            if rng.random() < 0.5:
                rank = rng.randint(1, 13)
                suits = rng.sample(range(4), rng.randint(3, 4))
                meld = [Tile(s, rank) for s in suits]
            else:
                suit = rng.randrange(4)
                length = rng.randint(3, 5)
                start = rng.randint(1, 13 if wrap else 14 - length)
                meld = [Tile(suit, (start - 1 + i) % 13 + 1) for i in range(length)]
            if jokers_left and rng.random() < 0.3:
                meld[rng.randrange(len(meld))] = JOKER
            need = Counter(f for f in meld if not f.is_joker)
            if all(copies[f] >= n for f, n in need.items()) and is_valid(meld, rules.meld_spec):
                copies -= need
                jokers_left -= sum(f.is_joker for f in meld)
                table.append(meld)
                break
    pool = list(copies.elements()) + [JOKER] * jokers_left
    hand = rng.sample(pool, rack_size)
    return table, hand


def check_solution(table, hand, rules, solution: Solution, opened: bool, fixed=()):
    spec = rules.meld_spec
    for meld in solution.table:
        assert is_valid(meld, spec), meld
    before = Counter(f for m in table for f in m)
    after = Counter(f for m in solution.table for f in m)
    assert after == before + Counter(solution.placed)
    assert not Counter(solution.placed) - Counter(hand)
    assert solution.count == len(solution.placed)
    for i in fixed:
        assert table[i] in solution.table
    if not opened:
        for meld in table:
            assert meld in solution.table
        if solution.count and rules.opening_minimum:
            new = list(solution.table)
            for meld in table:
                new.remove(meld)
            assert sum(readings(m, spec)[0].value for m in new) >= rules.opening_minimum or any(
                sum(max(r.value for r in readings(m, spec)) for m in new) >= 30 for _ in [0]
            )


PRESETS = {"stein": STEIN, "stein_plus": STEIN_PLUS, "rummikub": RUMMIKUB}
# the brute force treats every joker as free to move: compare Rummikub without the no-split rule
FREE_JOKERS = {
    "stein": STEIN,
    "stein_plus": STEIN_PLUS,
    "rummikub": RUMMIKUB.with_options(joker_meld_no_split=False),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 10**9),
    melds=st.integers(0, 2),
    rack=st.integers(1, 6),
    opened=st.booleans(),
    mode=st.sampled_from(["count", "value"]),
)
def test_solver_matches_brute_force(preset, seed, melds, rack, opened, mode):
    rules = FREE_JOKERS[preset]
    table, hand = random_position(random.Random(seed), rules, melds, rack)
    solution = solve(table, hand, rules, opened=opened, mode=mode)
    check_solution(table, hand, rules, solution, opened)
    score = solution.count if mode == "count" else solution.value
    assert score == brute_force(table, hand, rules, opened, mode)


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9))
def test_solver_valid_on_larger_positions(preset, seed):
    rules = PRESETS[preset]
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(3, 6), rng.randint(5, 10))
    fixed = {i for i in range(len(table)) if rng.random() < 0.2}
    solution = solve(table, hand, rules, opened=True, fixed=fixed)
    check_solution(table, hand, rules, solution, True, fixed)
    # keeping melds fixed can only cost: the free solve places at least as many
    assert solve(table, hand, rules, opened=True).count >= solution.count


# -- examples ---------------------------------------------------------------------------------


def faces(text: str) -> list[Face]:
    return parse_faces(text)


def test_extends_and_rearranges_rummikub():
    table = parse_melds("R1 R2 R3 | B5 B6 B7 | Y9 K9 B9")
    solution = solve(table, faces("R4 B8 R9 K2 K3 J"), RUMMIKUB, opened=True)
    assert solution.count == 6
    assert solution.changed_melds == 3
    check_solution(table, faces("R4 B8 R9 K2 K3 J"), RUMMIKUB, solution, True)


def test_unchanged_melds_are_kept_when_nothing_needs_them():
    table = parse_melds("R1 R2 R3 | B5 B6 B7 | Y9 K9 B9")
    solution = solve(table, faces("K11 K12 K13"), RUMMIKUB, opened=True)
    assert solution.count == 3
    assert solution.changed_melds == 0
    assert solution.table[:3] == table


def test_rummikub_opening_needs_30_from_the_rack():
    table = parse_melds("R1 R2 R3")
    low = solve(table, faces("K2 K3 K4 B9"), RUMMIKUB, opened=False)
    assert low.count == 0 and low.table == table
    high = solve(table, faces("K9 K10 K11 B9 R4"), RUMMIKUB, opened=False)
    assert high.count == 3 and high.value == 30
    assert high.table[0] == table[0]


def test_rummikub_opening_joker_counts_what_it_stands_for():
    # J K12 K13 is worth 11 + 12 + 13 = 36
    solution = solve([], faces("J K12 K13 B1"), RUMMIKUB, opened=False)
    assert solution.count == 3
    assert Counter(solution.placed) == Counter(faces("J K12 K13"))


def test_stein_opening_needs_one_meld_and_leaves_the_table():
    table = parse_melds("R5 R6 R7")
    assert solve(table, faces("R8 B1 B2"), STEIN, opened=False).count == 0
    solution = solve(table, faces("R8 B1 B2 B3"), STEIN, opened=False)
    assert solution.count == 3 and table[0] in solution.table


def test_stein_wraps_round_the_corner():
    table = parse_melds("R12 R13 R1")
    solution = solve(table, faces("R2 R11 B1 B2"), STEIN, opened=True)
    assert solution.count == 2
    assert solution.table == [faces("R11 R12 R13 R1 R2")]


def test_stein_run_twice_round_the_cycle():
    hand = [Tile(1, r) for r in range(1, 14)] * 2
    solution = solve([], hand, STEIN, opened=True)
    assert solution.count == 26
    check_solution([], hand, STEIN, solution, True)


def test_fixed_claims_stay_untouched():
    table = parse_melds("R5 B5 Y5 K5 | R7 R8 R9")
    hand = faces("R6 R4")
    free = solve(table, hand, STEIN_PLUS, opened=True)
    assert free.count == 2
    held = solve(table, hand, STEIN_PLUS, opened=True, fixed={0})
    assert held.count == 1 and table[0] in held.table


def test_must_place_exactly_these():
    table = parse_melds("R5 R6 R7")
    hand = faces("R8 R4 B1")
    solution = solve(table, hand, RUMMIKUB, opened=True, must_place=faces("R8"))
    assert solution.placed == faces("R8")
    assert solution.table == [faces("R5 R6 R7 R8")]
    impossible = solve(table, hand, RUMMIKUB, opened=True, must_place=faces("B1"))
    assert impossible.count == 0 and impossible.table == table


def test_rummikub_joker_meld_is_not_split():
    # R3 R4 J R6 R7 may not be split to free R5's place; keeping it extendable is allowed
    table = parse_melds("R3 R4 J R6 R7")
    locked = solve(table, faces("R8 R2"), RUMMIKUB, opened=True)
    assert locked.count == 2
    assert locked.table == [faces("R2 R3 R4 J R6 R7 R8")]
    # splitting would be needed to use B5 Y5 with the joker as K5: not allowed
    assert solve(table, faces("B5 Y5"), RUMMIKUB, opened=True).count == 0
    free = RUMMIKUB.with_options(joker_meld_no_split=False)
    assert solve(table, faces("B5 Y5 R5"), free, opened=True).count == 3


def test_rummikub_joker_freed_by_its_tile_must_stay_on_table():
    table = parse_melds("R3 J R5")
    solution = solve(table, faces("R4 B9 Y9"), RUMMIKUB, opened=True)
    # R4 frees the joker, which joins B9 Y9
    assert solution.count == 3
    check_solution(table, faces("R4 B9 Y9"), RUMMIKUB, solution, True)
    assert Counter(f for m in solution.table for f in m)[JOKER] == 1


def test_group_with_joker_gains_a_fourth_colour():
    table = parse_melds("R5 B5 J")
    solution = solve(table, faces("Y5"), RUMMIKUB, opened=True)
    assert solution.count == 1
    assert sorted(solution.table[0]) == sorted(faces("R5 B5 J Y5"))


def test_value_mode_prefers_points():
    # count: three low tiles; value: the 13s
    table = parse_melds("B13 Y13 K13")
    hand = faces("R13 K1 K2 K3")
    assert solve(table, hand, RUMMIKUB, opened=True).count == 4
    value = solve(table, hand, RUMMIKUB, opened=True, mode="value")
    assert value.value == 19


def test_no_move():
    table = parse_melds("R1 R2 R3")
    solution = solve(table, faces("B7 K11"), RUMMIKUB, opened=True)
    assert solution == Solution(0, 0, [], table, 0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_everything_placeable(preset):
    rules = PRESETS[preset]
    hand = faces("R1 R2 R3 B4 Y4 K4 J")
    solution = solve([], hand, rules, opened=True)
    assert solution.count == 7
    check_solution([], hand, rules, solution, True)


# -- the C searches against the pure-Python reference programme ----------------------------------


def _solve_with(searcher, rebuilder, monkeypatch, *args, **kwargs):
    import engine.solver as solver_module

    with monkeypatch.context() as m:
        m.setattr(solver_module, "_run_dp", searcher)
        m.setattr(solver_module, "_rebuild", rebuilder)
        return solve(*args, **kwargs)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 10**9),
    opened=st.booleans(),
    mode=st.sampled_from(["count", "value"]),
    free=st.booleans(),
    limit=st.sampled_from([0, 50, 4000]),
)
def test_c_searches_match_the_python_reference(
    monkeypatch, preset, seed, opened, mode, free, limit
):
    """engine._dp (depth first, then the layered pass when ``DFS_LIMIT`` runs out: a limit of 0
    or 50 forces the hand-over) finds the optimum of the pure-Python programme."""
    import engine.solver as solver_module

    rules = (FREE_JOKERS if free else PRESETS)[preset]
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(2, 5), rng.randint(4, 9))
    monkeypatch.setattr(solver_module, "DFS_LIMIT", limit)
    ours = solve(table, hand, rules, opened=opened, mode=mode)
    check_solution(table, hand, rules, ours, opened)
    reference = _solve_with(
        solver_module._reference_search,
        solver_module._rebuild_reference,
        monkeypatch,
        table,
        hand,
        rules,
        opened=opened,
        mode=mode,
    )
    assert (ours.count, ours.value)[mode == "value"] == (reference.count, reference.value)[
        mode == "value"
    ]


def test_c_passes_reach_the_reference_optimum_on_every_subproblem(monkeypatch):
    """On every subproblem of a position with jokers, a locked run and two copies, both C
    searches (depth first, layered) reach the Python programme's optimum with valid melds of
    the same pieces."""
    import engine.solver as solver_module

    rules = RUMMIKUB
    table = parse_melds("R3 J R5 R6, B7 K7 Y7, K1 K2 K3 K4, Y9 Y10 Y11")
    hand = faces("R7 R8 B8 Y8 K8 Y12 J K5")
    captured = []
    run = solver_module._run_dp

    def capture(problem, target, first=False):
        captured.append((problem, target))
        return run(problem, target, first)

    monkeypatch.setattr(solver_module, "_run_dp", capture)
    solve(table, hand, rules, opened=True)
    assert captured
    for problem, target in captured:
        args = solver_module._dp_arguments(problem)
        reference = solver_module._run_dp_reference(problem, target)
        layered = solver_module._layers(args, target)
        status, _spent, score, *played = solver_module._dp_call(
            solver_module._dp.search, args, target, False, -1
        )
        assert (reference is None) == (layered is None) == (status == 0)
        if reference is None:
            continue
        assert layered[0] == score == reference[0]
        melds, placed = solver_module._rebuild_reference(problem, reference[1])
        for found in (layered[1], solver_module._Played(*played)):
            c_melds, c_placed = solver_module._rebuild(problem, found)
            assert all(is_valid(m, rules.meld_spec) for m in c_melds)
            table_pieces = Counter(f for m in melds for f in m) - Counter(placed)
            assert Counter(f for m in c_melds for f in m) == table_pieces + Counter(c_placed)
            assert len(c_placed) == len(placed)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 13)).map(lambda cv: cv[0] * 16 + cv[1]),
        min_size=1,
        max_size=14,
    ),
    st.sampled_from(["group", "run", "any"]),
    st.sampled_from(["rummikub", "stein"]),
)
def test_plain_meld_facts_match_the_readings(codes, shape, name):
    """The shortcut for melds without jokers (linear and wrap-around runs) says what the
    readings say."""
    import engine.solver as solver_module

    if shape == "group":
        codes = [c // 16 * 16 + codes[0] % 16 for c in codes]
    elif shape == "run" and name == "stein":  # wrapping round 13 -> 1 where it goes past
        codes = [codes[0] // 16 * 16 + (codes[0] % 16 + i - 1) % 13 + 1 for i in range(len(codes))]
    elif shape == "run":
        codes = codes[:13]
        start = min(codes[0] % 16, 14 - len(codes))
        codes = [codes[0] // 16 * 16 + start + i for i in range(len(codes))][::-1]
    spec = PRESETS[name].meld_spec
    meld = tuple(codes)
    assert solver_module._plain_meld_info(meld, spec) == solver_module._read_meld_info(meld, spec)


def _apply_trial_case(args: tuple, cases: bytes, pos: int) -> tuple[tuple | None, int]:
    """One case of ``engine._dp.trials`` applied by hand to the problem ``args`` (see dp_trials
    in engine/_dp.c): the search arguments it stands for (None when a piece is missing) and
    where the next case starts. With wrap-around runs the case brings its own order hints, and
    the search makes the case's guesses itself, as it does for every wrap problem."""
    n, jokers, add, drop = cases[pos : pos + 4]
    cells = cases[pos + 4 : pos + 4 + n]
    hints = args[13]
    end = pos + 4 + n
    if args[8]:  # wrap
        hints, end = cases[end : end + 60], end + 60
    need, starts, ends = bytearray(args[0]), bytearray(args[11]), bytearray(args[12])
    ok = jokers <= args[5]
    for cell in cells:
        ok = ok and need[cell] > 0
        if ok:
            need[cell] -= 1
    if add != 255:
        need[add] += 1
    blocks, kept, at, number = args[14], bytearray(), 0, 0
    while at < len(blocks):
        size = 4 + blocks[at + 3]
        if number == drop:
            starts[blocks[at] * 15 + blocks[at + 1]] -= 1
            ends[blocks[at] * 15 + blocks[at + 2]] -= 1
        else:
            kept += blocks[at : at + size]
        at, number = at + size, number + 1
    if not ok:
        return None, end
    changed = list(args)
    changed[0], changed[11], changed[12], changed[13], changed[14] = (
        bytes(need),
        bytes(starts),
        bytes(ends),
        bytes(hints),
        bytes(kept),
    )
    changed[4] -= jokers
    changed[5] -= jokers
    return tuple(changed), end


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**9),
    free=st.booleans(),
    mode=st.sampled_from(["count", "value"]),
    name=st.sampled_from(["rummikub", "stein"]),
)
def test_c_trials_answer_as_one_search_per_case(monkeypatch, seed, free, mode, name):
    """``engine._dp.trials`` (the tie-break trials in one call) answers with the first case whose
    partition question ``engine._dp.search`` answers on its own, and with that case's play
    (Stein too: each case with its own cut, guesses and order hints)."""
    import engine.solver as solver_module
    from engine import _dp

    rules = (FREE_JOKERS if free and name == "rummikub" else PRESETS)[name]
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(3, 6), rng.randint(4, 9))
    calls = []
    trials = _dp.trials

    def capture(*args):
        calls.append(args)
        return trials(*args)

    monkeypatch.setattr(solver_module._dp, "trials", capture)
    solve(table, hand, rules, opened=True, mode=mode)
    for args in calls:
        problem, (target, budget, limit, cases) = args[:15], args[15:]
        status, states, score, melds, placed, used, case = trials(*args)
        pos, number, expected, spent = 0, 0, None, 0
        while pos < len(cases) and expected is None:
            changed, pos = _apply_trial_case(problem, cases, pos)
            if changed is not None:
                alone = _dp.search(*changed, target, budget, True, limit)
                spent += alone[1]
                if alone[3] is not None:
                    expected = (number, alone)
            number += 1
        if expected is None:
            assert (status, case, states) == (0, -1, spent)
        else:
            assert (status, case, states) == (1, expected[0], spent)
            assert (score, melds, placed, used) == tuple(expected[1][2:])


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(st.integers(0, 2), min_size=104, max_size=104),
    jokers=st.integers(0, 4),
)
def test_wrap_guesses_as_bytes_match_the_guess_list(cells, jokers):
    """The guesses of crossing runs built a block at a time for engine._dp are the reference
    list (:func:`_wrap_cut`) in the same order."""
    from array import array

    import engine.solver as solver_module

    need = [[0, *cells[c * 13 : c * 13 + 13], 0] for c in range(4)]
    opt = [[0, *(min(1, x) for x in cells[52 + c * 13 : 52 + c * 13 + 13]), 0] for c in range(4)]
    cut, guesses = solver_module._wrap_cut(need, opt, jokers)
    assert solver_module._wrap_guesses(need, opt, jokers) == (
        cut,
        array("H", [code for guess in guesses for code in guess]).tobytes(),
    )


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(sorted(FREE_JOKERS)),
    seed=st.integers(0, 10**9),
    mode=st.sampled_from(["count", "value"]),
)
def test_jokers_stay_keeps_every_joker_meld_whole(preset, seed, mode):
    """With ``jokers_stay`` every table meld holding a joker ends inside one meld of the new
    table (kept, a run extended, a group completed), the table stays valid and conserves the
    pieces, and the play is never better than the one with jokers free."""
    rules = FREE_JOKERS[preset]
    rng = random.Random(seed)
    table, hand = random_position(rng, rules, rng.randint(2, 5), rng.randint(4, 9))
    kept = solve(table, hand, rules, opened=True, mode=mode, jokers_stay=True)
    check_solution(table, hand, rules, kept, True)
    for meld in table:
        if any(f.is_joker for f in meld):
            assert any(not Counter(meld) - Counter(new) for new in kept.table), meld
    free = solve(table, hand, rules, opened=True, mode=mode)
    assert (kept.count, kept.value)[mode == "value"] <= (free.count, free.value)[mode == "value"]


@pytest.mark.parametrize("name", ["stein", "rummikub"])
def test_hints_less_one_meld_are_the_hints_of_the_others(name):
    """The tie-break trials' order hints (``_Hints.without``) are :func:`_hints` of the table
    melds less the one each trial keeps."""
    import engine.solver as solver_module

    rules = PRESETS[name]
    spec = rules.meld_spec
    rng = random.Random(7)
    for _ in range(30):
        table, _hand = random_position(rng, rules, rng.randint(2, 9), 3)
        infos = [solver_module._meld_info(solver_module._codes(m), spec) for m in table]
        hints = solver_module._Hints(infos)
        assert hints.without(None) == solver_module._hints(infos)
        for k, info in enumerate(infos):
            others = infos[:k] + infos[k + 1 :]
            assert hints.without(info) == solver_module._hints(others)
