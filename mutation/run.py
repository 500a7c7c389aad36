"""Mutation testing of the rules engine (issue 13): ``make mutation`` runs this.

    python mutation/run.py [TARGET ...] [--work DIR] [--recheck] [--report]

Targets (all by default): ``melds`` (every function of engine/melds.py), ``scoring`` (every function
of engine/scoring.py), ``tiles`` and ``cards`` (only the rule checks, module functions of engine/tile/
and engine/card/, listed in :data:`TARGETS`; the run geometry of cards is in engine/melds.py). mutmut 3 mutates a snapshot of the sources copied into a
work directory (``mutation/work/TARGET``, git-ignored; ``--work DIR`` runs the targets together
there), so the repository itself is never touched and edits made while a run is under way do not
disturb it. Each mutant runs only the tests, out of the fast rule tests (:data:`TESTS`,
:data:`TESTS_FOR`), that execute the mutated function. ``--recheck`` keeps the snapshot and runs the
mutants not killed again with the current tests. The script ends with a table per target: mutants
total / killed / survived / timeout / no tests / not checked / other and the share killed, and lists
every mutant not killed (``cd mutation/work/TARGET && mutmut show NAME``). mutation/SURVIVORS.md has
the last figures and why each survivor is equivalent.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The fast tests that judge the rules; the slow solver, AI and property suites stay out.
TESTS = [
    "tests/engine/test_melds.py",
    "tests/engine/test_melds_mutants.py",
    "tests/engine/test_scoring_mutants.py",
    "tests/engine/test_rule_checks_mutants.py",
    "tests/engine/test_stein.py",
    "tests/engine/test_stein_plus.py",
    "tests/engine/test_rummikub.py",
    "tests/engine/test_cards_romme.py",
    "tests/engine/test_cards_rummy.py",
    "tests/engine/test_notation.py",
    "tests/engine/test_tile_rules.py",
    "tests/engine/test_card_rules.py",
    "tests/rummy_tools/test_cli_turn.py",
]
# Targets whose functions every game test runs get the tests aimed at them, so a mutant does not
# run hundreds of game tests (engine/melds.py is read by every command of every game).
TESTS_FOR = {
    "melds": [
        "tests/engine/test_melds.py",
        "tests/engine/test_melds_mutants.py",
        "tests/engine/test_notation.py",
    ],
    "scoring": [
        "tests/engine/test_scoring_mutants.py",
        "tests/engine/test_stein.py",
        "tests/engine/test_stein_plus.py",
        "tests/engine/test_rummikub.py",
        "tests/engine/test_tile_rules.py",
    ],
}


def tests_of(targets: list[str]) -> list[str]:
    chosen = [t for target in targets for t in TESTS_FOR.get(target, TESTS)]
    return [t for t in dict.fromkeys(chosen) if (ROOT / t).exists()]


# Too slow to run for every mutant (seconds each); the other tests cover the same rules.
SLOW = ["tests/engine/test_card_rules.py::test_every_hint_typed_back_is_accepted"]

# target -> (files, mutant-name patterns). mutmut names a mutant of function f in engine/x/y.py
# "engine.x.y.x_f__mutmut_N" and of method C.m "engine.x.y.xǁCǁm__mutmut_N". The tile and card rule
# checks are module functions of engine/tile/ and engine/card/ since issue 15.


def _functions(module: str, names: tuple[str, ...]) -> list[str]:
    return [f"{module}.x_{name}__mutmut_*" for name in names]


TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "melds": (["engine/melds.py"], ["engine.melds.*"]),
    "scoring": (["engine/scoring.py"], ["engine.scoring.*"]),
    "tiles": (
        [
            "engine/tile/ending.py",
            "engine/tile/jokers.py",
            "engine/tile/turn.py",
            "engine/tile/claims.py",
            "engine/tile/moves.py",
        ],
        [
            # the end-of-turn check (valid melds, claims, opening), the end, the last discard
            *_functions("engine.tile.ending", ("check_turn", "finish", "done", "discard")),
            *_functions("engine.tile.ending", ("take_off_table",)),
            # table jokers: stay in their meld, keep their meaning; Rummikub: freed into a new meld
            *_functions("engine.tile.jokers", ("joker_faults", "freed_faults")),
            *_functions(
                "engine.tile.turn",
                (
                    "opening_value",
                    "may_touch_table",
                    "touch",
                    "draws_needed",
                    "draws_complete",
                    "require_draws",
                ),
            ),
            *_functions("engine.tile.claims", ("keep_claim", "formed_this_turn", "claim")),
            *_functions("engine.tile.moves", ("swap", "take")),
        ],
    ),
    "cards": (
        [
            "engine/cards.py",
            "engine/card/scoring.py",
            "engine/card/parse.py",
            "engine/card/variants.py",
            "engine/card/moves.py",
            "engine/card/table.py",
            "engine/card/turn.py",
        ],
        [
            *_functions(
                "engine.card.scoring",
                (
                    "romme_card_penalty",
                    "romme_hand_penalty",
                    "rummy_card_points",
                    "romme_penalties",
                    "rummy_points",
                    "strike_points",
                ),
            ),
            *_functions("engine.card.parse", ("has_jokers", "refuse_jokers")),
            "engine.cards.xǁCardGameǁempty_hand_ok__mutmut_*",
            *_functions("engine.card.variants", ("draw_count", "declared_group")),
            *_functions("engine.card.moves", ("build_meld", "check_empty_hand", "discard")),
            *_functions(
                "engine.card.table", ("extended", "stands_for", "joker_meanings", "swap_position")
            ),
            *_functions("engine.card.turn", ("check_turn_end",)),
        ],
    ),
}

STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    36: "timeout",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    5: "no tests",
    33: "no tests",
    None: "not checked",
}


def setup_cfg(files: list[str], tests: list[str], deselect: list[str]) -> str:
    lines = ["[mutmut]", "source_paths = engine", "only_mutate ="]
    lines += [f"    {f}" for f in files]
    lines += ["pytest_add_cli_args_test_selection ="]
    lines += [f"    {t}" for t in tests]
    lines += ["pytest_add_cli_args =", "    -p", "    mutation_plugin"]
    lines += [f"    --deselect={t}" for t in deselect]
    lines += ["also_copy =", "    mutation_plugin.py"]
    lines += [
        # the clean run must not fill engine.melds' lru_cache in the process mutants fork from
        "process_isolation = forkserver",
        "forkserver_warmup = collect",
        "timeout_constant = 5.0",
        "use_git_change_detection = false",
        "",
    ]
    return "\n".join(lines)


def prepare(work: Path, files: list[str], tests: list[str]) -> None:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "out")
    for name in ("engine", "tests", "benchmarks"):
        shutil.copytree(ROOT / name, work / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")
    configure(work, files, tests)


# engine.melds caches readings (lru_cache): a test that finds them cached never calls the mutated
# function, so mutmut would not count it among the tests of that function. This plugin, copied into
# the work dir and loaded with -p, empties the cache before every test.
PLUGIN = """import pytest


@pytest.fixture(autouse=True)
def _fresh_meld_cache():
    from engine import melds

    melds._readings.cache_clear()
    yield
"""


def configure(work: Path, files: list[str], tests: list[str]) -> None:
    """Write the work dir's mutmut config (setup.cfg) for these files and tests."""
    (work / "mutation_plugin.py").write_text(PLUGIN, encoding="utf-8")
    # Tests that fail on the unmutated snapshot (work in progress elsewhere) cannot judge mutants.
    deselect = [f"--deselect={t}" for t in SLOW]
    clean = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "mutation_plugin", *deselect, *tests],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    # "FAILED path::test[params] - why": deselect the test with all its parameters
    failing = sorted(
        {
            line.split()[1].split("[")[0]
            for line in clean.stdout.splitlines()
            if line.startswith(("FAILED ", "ERROR "))
        }
    )
    for name in failing:
        print(f"deselected, fails without mutation: {name}")
    (work / "setup.cfg").write_text(setup_cfg(files, tests, SLOW + failing), encoding="utf-8")


def exit_codes(work: Path) -> dict[Path, dict[str, int | None]]:
    out = {}
    for meta in (work / "mutants").rglob("*.meta"):
        out[meta] = json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {})
    return out


def restore_verdicts(work: Path, previous: dict[Path, dict[str, int | None]]) -> None:
    """mutmut forgets every verdict when its pytest arguments change (a recheck deselects other
    failing tests): give the mutants not run again their earlier verdict back."""
    for meta, codes in previous.items():
        data = json.loads(meta.read_text(encoding="utf-8"))
        now = data.get("exit_code_by_key", {})
        for name, code in codes.items():
            if now.get(name) is None and code is not None:
                now[name] = code
        meta.write_text(json.dumps(data, indent=4), encoding="utf-8")


def results(work: Path, patterns: list[str]) -> dict[str, str]:
    """Status of every mutant matching one of the patterns, from mutmut's meta files."""
    out: dict[str, str] = {}
    for meta in (work / "mutants").rglob("*.meta"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        for name, code in data.get("exit_code_by_key", {}).items():
            if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                out[name] = STATUS.get(code, f"other ({code})")
    return out


def matching(names, patterns: list[str]) -> list[str]:
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def refresh_tests(work: Path) -> None:
    """--recheck: the snapshot's sources stay, its tests become the repository's current ones."""
    for name in ("tests", "mutants/tests"):
        if (work / name).exists():
            shutil.rmtree(work / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)


def report(work: Path, targets: list[str]) -> None:
    status = results(work, [p for t in targets for p in TARGETS[t][1]])
    print(f"\nsnapshot {work} (mutants of the sources as copied there)")
    for t in targets:
        for file in TARGETS[t][0]:
            if (work / file).read_bytes() != (ROOT / file).read_bytes():
                print(f"  note: {file} has changed in the repository since the snapshot")
    head = f"{'target':<8} {'file':<18} {'total':>5} {'killed':>6} {'surv.':>5} {'t/o':>4}"
    print(head + f" {'no t.':>5} {'unchk':>5} {'other':>5} {'killed %':>8} {'+t/o %':>7}")
    survivors: list[str] = []
    for t in targets:
        mine = {n: status[n] for n in matching(status, TARGETS[t][1])}
        count = {k: sum(1 for s in mine.values() if s == k) for k in STATUS.values()}
        other = len(mine) - count["killed"] - count["survived"] - count["timeout"]
        other -= count["no tests"] + count["not checked"]
        total = len(mine) or 1
        share = 100 * count["killed"] / total
        share_t = 100 * (count["killed"] + count["timeout"]) / total
        print(
            f"{t:<8} {TARGETS[t][0][0]:<18} {len(mine):>5} {count['killed']:>6} "
            f"{count['survived']:>5} {count['timeout']:>4} {count['no tests']:>5} "
            f"{count['not checked']:>5} {other:>5} "
            f"{share:>7.1f}% {share_t:>6.1f}%"
        )
        survivors += sorted(n for n, s in mine.items() if s not in ("killed", "timeout"))
    if survivors:
        print("\nnot killed (inspect one with: cd WORK && mutmut show NAME):")
        for name in survivors:
            print(f"  {name}: {status[name]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help=f"any of {', '.join(TARGETS)} (default: all)")
    parser.add_argument(
        "--work",
        type=Path,
        help="one work dir for all targets (default: mutation/work/TARGET each)",
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="keep the snapshot, take the current tests, run again only the mutants not killed",
    )
    parser.add_argument("--report", action="store_true", help="only print the last results")
    args = parser.parse_args()
    targets = args.targets or list(TARGETS)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    if args.work:  # all the targets in one work dir
        groups = [(targets, args.work.resolve())]
    else:  # one run per file, each in its own work dir
        groups = [([t], (ROOT / "mutation" / "work" / t).resolve()) for t in targets]
    for group, work in groups:
        if not args.report:
            run(group, work, recheck=args.recheck)
    for group, work in groups:
        report(work, group)
    return 0


def run(targets: list[str], work: Path, *, recheck: bool) -> None:
    files = [f for t in targets for f in TARGETS[t][0]]
    patterns = [p for t in targets for p in TARGETS[t][1]]
    names = patterns
    previous = {}
    if recheck and work.exists():
        status = results(work, patterns)
        names = sorted(n for n, s in status.items() if s not in ("killed", "timeout"))
        print(f"{'+'.join(targets)}: rechecking {len(names)} mutants not killed", flush=True)
        if not names:
            return
        previous = exit_codes(work)
        refresh_tests(work)
        configure(work, files, tests_of(targets))
    else:
        prepare(work, files, tests_of(targets))
    mutmut = Path(sys.executable).parent / "mutmut"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    cmd = [str(mutmut), "run", "--max-children", "1", *names]
    print(f"$ cd {work} && mutmut run --max-children 1 <{len(names)} names>", flush=True)
    with open(work / "mutmut.log", "a", encoding="utf-8") as log:
        done = subprocess.run(cmd, cwd=work, env=env, stdout=log, stderr=log, check=False)
    if done.returncode not in (0, None):
        print(f"mutmut run exited with {done.returncode}: see {work / 'mutmut.log'}")
    if previous:
        restore_verdicts(work, previous)


if __name__ == "__main__":
    sys.exit(main())
