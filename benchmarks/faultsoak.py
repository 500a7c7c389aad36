"""Fault soak (issue 14): the bot's service and store attacked from every side, for a bounded time.

``python -m benchmarks.faultsoak [--seconds 180] [--seed 1] [--games 8] [--keep DIR]``
(also ``python -m benchmarks faultsoak --seconds 60``; ``make bench`` runs it with the defaults).

A *soak child* (this module with ``--child``) runs the real :class:`~bot.service.GameService`
over a real SQLite file with the real timer loop, the real worker process for computer players
and the system clock: ``--games`` tables at a time, half of them two simulated people and a
``medium`` computer player with a 30-second turn timer (the people sometimes leave their turn
to the timer), half three ``medium`` computer players. Every commit is appended to an
acknowledgement file; every answer time of a person's command and every timer's delay (when it
fired after its deadline) goes to a metrics file.

The parent runs children one after another until ``--seconds`` are over, and attacks each one
at random moments:

- ``SIGKILL`` of the child after 4-12 s (anywhere: mid-commit, mid-start, mid-think);
- ``SIGSTOP`` of the computer players' worker (the service must notice, kill and replace it);
- disk-full spells: the database lives on a small tmpfs that a filler file fills for 1-3 s
  (root only; without it the spells are skipped and the report says so);
- a second process (``rummy-bot soak``) trying to open the same database: it must be refused.

A last, calm child (no attacks) runs for ``--calm`` seconds (45: longer than a turn timer, so
every game must move) and is stopped with SIGTERM; it compares every live game with the
database (memory == disk) and lists the games that did not move (stuck). Then ``verify-db`` replays everything (read-only, one snapshot).

Reported (goal 0 for the first five): ``lost`` acknowledged commands not in the database as
acknowledged, ``doubled`` commands acknowledged twice, ``stuck`` games that did not move in the
calm run, ``diverged`` games whose memory differed from the database or that verify-db finds
wrong, ``second_open_accepted``; plus ``quarantined`` games, ``longest_command_wait_ms`` (the
longest time any person's command waited for its answer) and ``longest_timer_delay_ms`` (the
longest time a due turn timer waited to fire), each with the attacks under way at the time and
the longest with no attack under way, the counts of attacks and of refused answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# ============================================================================ the soak child

PEOPLE_PAUSE = (0.05, 0.3)  # a person's "typing" before a move
IDLE = 0.15  # chance that a person leaves a turn to the 30-second timer


async def _child(args: argparse.Namespace) -> int:
    from bot.service import ErrorReply, FallbackPlayer, GameService, ServiceConfig
    from bot.service.players import copy_state
    from bot.service.replay import restore
    from bot.store import SqliteStore, StoreError, StoreLocked

    rng = random.Random(f"{args.seed}:{os.getpid()}")
    metrics = open(args.metrics, "a", encoding="utf-8")  # noqa: SIM115
    ack = open(args.ack, "a", encoding="utf-8")  # noqa: SIM115
    best = {"cmd": 0.0, "timer": 0.0}
    counts = {"answered": 0, "refused": 0}

    def note(kind: str, seconds: float) -> None:
        """Every new longest wait, and every wait over 0.1 s, with when it ended."""
        if seconds > best[kind] or seconds > 0.1:
            best[kind] = max(best[kind], seconds)
            metrics.write(json.dumps({kind: seconds, "at": time.time()}) + "\n")
            metrics.flush()

    def measured(due):
        """The service's timers, measuring how late a turn timer fires."""

        async def timed(live, now):
            if live.status == "playing" and live.deadline is not None and now >= live.deadline:
                note("timer", now - live.deadline)
            return await due(live, now)

        return timed

    def on_commit(game_id: str, seq: int, seat, text: str, seconds: float) -> None:
        line = text.replace("\t", " ").replace("\n", "\\n")
        ack.write(f"{game_id}\t{seq}\t{line}\n")
        ack.flush()

    store = SqliteStore(args.db)
    try:
        await store.open()
    except StoreLocked as exc:
        print(f"faultsoak child: {exc}", file=sys.stderr)
        return 4
    except StoreError as exc:
        print(f"faultsoak child: {exc}", file=sys.stderr)
        return 3
    config = ServiceConfig(
        pictures=False,
        bot_pause=0.1,
        tick_seconds=0.2,
        abandon_after=None,
        lobby_expiry=None,
        think_timeout=1.0,
        worker_restart_after=1.0,
    )
    service = GameService(store, config=config, on_commit=on_commit)
    service.timers.due = measured(service.timers.due)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    fallback = FallbackPlayer()
    drivers: dict[str, asyncio.Task[None]] = {}

    async def ask(game_id: str, player: str, text: str) -> list:
        started = time.monotonic()
        out = await service.handle(game_id, player, text)
        note("cmd", time.monotonic() - started)
        refused = [m for m in out if isinstance(m, ErrorReply) and m.code == "service.store"]
        counts["refused" if refused else "answered"] += 1
        return out

    async def drive(game_id: str) -> None:
        """The two people of a game: whoever is to move plays (sometimes only much later)."""
        while not stop.is_set():
            live = service.registry.games.get(game_id)
            if live is None or live.status != "playing" or live.state is None:
                return
            seat = live.state.current
            info = live.seats[seat]
            if info.is_bot:
                await asyncio.sleep(0.05)
                continue
            if rng.random() < IDLE:
                await asyncio.sleep(rng.uniform(20, 45))  # the turn timer may fire first
                continue
            await asyncio.sleep(rng.uniform(*PEOPLE_PAUSE))
            if rng.random() < 0.1:  # the other person types out of turn
                other = live.seats[1 - seat] if seat in (0, 1) else live.seats[0]
                if not other.is_bot:
                    await ask(game_id, other.player_id, "draw")
            live = service.registry.games.get(game_id)
            if live is None or live.state is None or live.state.current != seat:
                continue
            text = fallback.safe_choose(copy_state(live.state), seat) or "draw"
            await ask(game_id, info.player_id, text)

    async def setup(game_id: str) -> None:
        """Bring a table to playing (again after a crash or a refused write)."""
        status = service.status(game_id)
        people = game_id.startswith("fs-p")
        if status is None:
            if game_id in set(await store.game_ids()):
                return
            host = f"{game_id}-a" if people else "fs-host"
            made, _ = await service.create_game(
                host,
                "rummikub",
                {"turn_seconds": 30},
                game_id=game_id,
                seed=rng.randrange(2**31),
                seat_host=people,
            )
            if made is None:
                return
            status = "lobby"
        if status == "lobby":
            host = f"{game_id}-a" if people else "fs-host"
            seats = service.seats(game_id)
            if people and len(seats) < 2:
                await service.register_player(f"{game_id}-b", "Bea", "de")
                await service.join(game_id, f"{game_id}-b")
            while len(service.seats(game_id)) < 3:
                before = len(service.seats(game_id))
                await service.add_bot(game_id, host, "medium")
                if len(service.seats(game_id)) == before:
                    return  # not saved now (disk full): again later
            await service.start_game(game_id, host)

    async def tables() -> None:
        known = [g for g in await store.game_ids() if g.startswith("fs-")]
        index = 1 + max((int(g.rsplit("-", 1)[1]) for g in known), default=-1)
        while not stop.is_set():
            live = service.live_game_ids()
            for game_id in live:
                if service.status(game_id) == "lobby":
                    await setup(game_id)
            while len(service.live_game_ids()) < args.games and not stop.is_set():
                kind = "p" if index % 2 == 0 else "b"
                game_id = f"fs-{kind}-{index:05d}"
                index += 1
                await setup(game_id)
                if service.status(game_id) is None:
                    break  # the store refuses now: try again later
            for game_id in service.live_game_ids():
                task = drivers.get(game_id)
                if game_id.startswith("fs-p") and (task is None or task.done()):
                    drivers[game_id] = asyncio.create_task(drive(game_id))
            await asyncio.sleep(0.5)

    calm_start: dict[str, int] = {}
    report: dict[str, Any] = {}
    try:
        await service.start()
        calm_start = {g: service.registry.games[g].seq for g in service.live_game_ids()}
        feeder = asyncio.create_task(tables())
        await stop.wait()
        feeder.cancel()
        for task in (feeder, *drivers.values()):
            task.cancel()
        for task in (feeder, *drivers.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # memory == disk for every live game, and which games moved
        diverged, stuck = [], []
        for game_id in service.live_game_ids():
            live = service.registry.games[game_id]
            async with live.lock:
                record = await store.load_game(game_id)
                if live.status == "playing":
                    stored = restore(record, await store.commands(game_id, record.snapshot_seq))
                    if stored.to_json() != live.state.to_json() or record.seq != live.seq:
                        diverged.append(game_id)
                    if game_id in calm_start and live.seq == calm_start[game_id]:
                        stuck.append(game_id)
        report = {"diverged": diverged, "stuck": stuck, "counts": counts}
    finally:
        await service.stop()
        await store.close()
    metrics.write(json.dumps({"final": report}) + "\n")
    metrics.close()
    ack.close()
    return 0


# ============================================================================ the parent


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _worker_of(pid: int) -> int | None:
    """The soak child's computer-player worker (a multiprocessing spawn child)."""
    for child in _children_of(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if b"spawn_main" in cmdline:
            return child
    return None


def _mount_tmpfs(path: Path, megabytes: int) -> bool:
    if os.geteuid() != 0:
        return False
    path.mkdir(parents=True, exist_ok=True)
    command = ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)]
    return subprocess.run(command, capture_output=True).returncode == 0


def _fill(directory: Path) -> Path:
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        block = b"\0" * (1 << 20)
        while True:
            try:
                os.write(fd, block)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                if len(block) == 4096:
                    break
                block = b"\0" * 4096
    finally:
        os.close(fd)
    return filler


def _child_command(args: argparse.Namespace, db: Path, work: Path, *, calm: bool) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "benchmarks.faultsoak",
        "--child",
        "--db",
        str(db),
        "--ack",
        str(work / "acks.tsv"),
        "--metrics",
        str(work / "metrics.jsonl"),
        "--seed",
        str(args.seed),
        "--games",
        str(args.games),
    ]
    return [*command, "--calm-child"] if calm else command


def _second_open(db: Path) -> int:
    """Another process tries to open the same database: its exit code (4 = refused)."""
    command = [sys.executable, "-m", "bot.cli", "soak", "--games", "1", "--db", str(db)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1
    return done.returncode


def _read_acks(path: Path) -> list[tuple[str, int, str]]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    out = []
    for line in text.split("\n")[:-1]:  # a line cut by a kill has no newline: not acknowledged
        game_id, seq, command = line.split("\t", 2)
        out.append((game_id, int(seq), command))
    return out


async def _logged(db: Path) -> dict[tuple[str, int], str]:
    from bot.store import SqliteStore

    store = SqliteStore(db, readonly=True, create=False)
    await store.open()
    found: dict[tuple[str, int], str] = {}
    try:
        async with store.snapshot() as snap:
            for game_id in await snap.game_ids():
                for c in await snap.commands(game_id):
                    found[(game_id, c.seq)] = c.text.replace("\t", " ").replace("\n", "\\n")
    finally:
        await store.close()
    return found


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faultsoak", description=__doc__)
    parser.add_argument("--seconds", type=float, default=180.0, help="attack this long")
    parser.add_argument("--calm", type=float, default=45.0, help="the calm run's seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=8, help="tables at a time")
    parser.add_argument("--keep", default=None, help="keep the files in this directory")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--calm-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--ack", help=argparse.SUPPRESS)
    parser.add_argument("--metrics", help=argparse.SUPPRESS)
    return parser


def run(argv: list[str] | None = None, echo: bool = False) -> dict:
    """The fault soak (``argv`` as on the command line); the report."""
    args = _parser().parse_args(argv or [])
    with contextlib.ExitStack() as stack:
        if args.keep:
            work = Path(args.keep)
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="faultsoak-")))
        mount = work / "disk"
        tmpfs = _mount_tmpfs(mount, 64)
        if tmpfs:
            stack.callback(subprocess.run, ["umount", "-l", str(mount)], capture_output=True)
        else:
            mount.mkdir(parents=True, exist_ok=True)
        return _run(args, work, mount, tmpfs, echo)


def _run(args: argparse.Namespace, work: Path, mount: Path, tmpfs: bool, echo: bool) -> dict:
    rng = random.Random(args.seed)
    db = mount / "faultsoak.sqlite3"
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    log = stack_log = open(work / "child.log", "a")  # noqa: SIM115
    attacks = {
        "runs": 0,
        "kills": 0,
        "worker_stops": 0,
        "disk_full_spells": 0 if tmpfs else "skipped (no tmpfs: needs root)",
        "second_open_refused": 0,
        "second_open_accepted": 0,
        "child_start_failures": 0,
    }
    windows: list[tuple[float, float, str]] = []  # (from, to, attack), wall time
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        child = subprocess.Popen(
            _child_command(args, db, work, calm=False),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        attacks["runs"] += 1
        life = rng.uniform(4.0, 12.0)
        born = time.monotonic()
        plan = sorted(
            [
                (rng.uniform(1.5, life), "stop"),
                (rng.uniform(1.5, life), "full"),
                (rng.uniform(1.5, life), "second"),
            ]
        )
        stopped: int | None = None
        first_window = len(windows)
        windows.append((time.time(), time.time() + 3.0, "child start"))
        for at, attack in plan:
            time.sleep(max(0.0, at - (time.monotonic() - born)))
            if child.poll() is not None:
                break
            if attack == "stop":
                stopped = _worker_of(child.pid)
                if stopped is not None:
                    with contextlib.suppress(OSError):
                        os.kill(stopped, signal.SIGSTOP)
                    attacks["worker_stops"] += 1
                    windows.append((time.time(), time.time() + 4.0, "worker stopped"))
            elif attack == "full" and tmpfs:
                begun = time.time()
                filler = _fill(mount)
                time.sleep(rng.uniform(1.0, 3.0))
                filler.unlink()
                attacks["disk_full_spells"] += 1
                windows.append((begun, time.time() + 0.5, "disk full"))
            elif attack == "second":
                begun = time.time()
                code = _second_open(db)
                windows.append((begun, time.time(), "second process"))
                if code == 4:
                    attacks["second_open_refused"] += 1
                elif child.poll() is None:
                    attacks["second_open_accepted"] += 1
        time.sleep(max(0.0, life - (time.monotonic() - born)))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            attacks["kills"] += 1
        else:
            attacks["child_start_failures"] += 1
        child.wait()
        ended = time.time()  # this child's attacks end with it
        windows[first_window:] = [(a, min(b, ended), k) for a, b, k in windows[first_window:]]
        if stopped is not None:  # never leave a stopped orphan behind
            with contextlib.suppress(OSError):
                os.kill(stopped, signal.SIGKILL)
        if echo:
            print(json.dumps({"elapsed_s": round(time.monotonic() - started, 1), **attacks}))
    # the calm run: no attacks, people always move; stopped cleanly
    calm = subprocess.Popen(
        _child_command(args, db, work, calm=True),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    time.sleep(args.calm)
    calm.send_signal(signal.SIGTERM)
    try:
        calm_code = calm.wait(timeout=60)
    except subprocess.TimeoutExpired:
        calm.kill()
        calm_code = "did not stop within 60 s"
    stack_log.close()
    return _report(args, work, db, attacks, windows, calm_code, time.monotonic() - started)


def _report(
    args, work: Path, db: Path, attacks: dict, windows: list, calm_code, elapsed: float
) -> dict:
    from bot.service.soak import verify_db

    longest = {"cmd": 0.0, "timer": 0.0}
    quiet = {"cmd": 0.0, "timer": 0.0}  # the longest with no attack under way
    during: dict[str, list[str]] = {"cmd": [], "timer": []}
    final: dict[str, Any] = {}
    metrics = work / "metrics.jsonl"
    lines = metrics.read_text(encoding="utf-8").split("\n") if metrics.exists() else []
    for line in lines:
        with contextlib.suppress(ValueError):
            item = json.loads(line)
            for key in longest:
                if key in item:
                    seconds, end = float(item[key]), float(item.get("at", 0.0))
                    hit = sorted({k for a, b, k in windows if a <= end and end - seconds <= b})
                    if seconds > longest[key]:
                        longest[key], during[key] = seconds, hit
                    if not hit:
                        quiet[key] = max(quiet[key], seconds)
            if "final" in item:
                final = item["final"]
    report = asyncio.run(verify_db(db))
    acks = _read_acks(work / "acks.tsv")
    keys = [(g, s) for g, s, _ in acks]
    logged = asyncio.run(_logged(db))
    lost = [a for a in acks if logged.get((a[0], a[1])) != a[2]]
    wrong = {p["game"] for p in report["problems"] if p["problem"] != "quarantined"}
    diverged = set(final.get("diverged", [])) | wrong
    return {
        "seconds": round(elapsed, 1),
        "command": "python -m benchmarks.faultsoak "
        + " ".join(
            f"--{k} {v}"
            for k, v in (("seconds", args.seconds), ("seed", args.seed), ("games", args.games))
        ),
        "games": report["games"],
        "acknowledged_commands": len(acks),
        "lost": len(lost),
        "doubled": len(keys) - len(set(keys)),
        "stuck": len(final.get("stuck", [])) if final else "no calm report",
        "diverged": len(diverged),
        "second_open_accepted": attacks["second_open_accepted"],
        "quarantined": len(report["quarantined"]),
        "longest_command_wait_ms": round(longest["cmd"] * 1000, 1),
        "longest_command_wait_during": during["cmd"],
        "longest_command_wait_without_attack_ms": round(quiet["cmd"] * 1000, 1),
        "longest_timer_delay_ms": round(longest["timer"] * 1000, 1),
        "longest_timer_delay_during": during["timer"],
        "longest_timer_delay_without_attack_ms": round(quiet["timer"] * 1000, 1),
        "calm_run_exit": calm_code,
        "calm_answers": final.get("counts"),
        "attacks": attacks,
        "examples": {
            "lost": lost[:3],
            "diverged": sorted(diverged)[:3],
            "quarantined": report["quarantined"][:3],
        },
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--child" in argv:
        return asyncio.run(_child(_parser().parse_args(argv)))
    result = run(argv, echo=True)
    print(json.dumps(result, indent=2))
    zero = ("lost", "doubled", "stuck", "diverged", "second_open_accepted")
    return 0 if all(result[k] == 0 for k in zero) else 1


if __name__ == "__main__":
    sys.exit(main())
