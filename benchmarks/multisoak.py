"""Multi-process soak: N service processes with shard ranges over ONE database, SIGKILLed at random
moments and started again; then every game and every acknowledged command is checked.

``python -m benchmarks multisoak [--procs 2] [--shards 4] [--games 400] [--concurrency 100]
[--kills 10] [--kill-after 1.5 4.0] [--bot-pause 0.0] [--stores sqlite,postgres] [--db URL]
[--lease 30] [--preset rummikub] [--seed 1] [--no-single]``

For each store (a fresh SQLite file; a fresh database of a PostgreSQL server this benchmark starts
itself with tests/pg.py, fsync on, unless ``--db`` names one):

1. **multi**: ``--procs`` worker processes (each a full service + store: :func:`bot.soak.run_soak`
   with a :class:`~bot.store.ShardPlan`), process ``k`` owning an equal range of the ``--shards``
   shards, together playing ``--games`` computer-only games (game ``i`` is on shard ``i % shards``).
   Every ``--kill-after`` seconds (uniform between the two numbers) one live process is SIGKILLed
   and started again at once with the same shards (it resumes its games: its old lease is free
   as soon as its process is gone), until ``--kills`` kills are done; then all play to the end.
   ``--pauses`` of the kills are preceded by a pause: the process is SIGSTOPped, its replacement
   started, and once the replacement has taken its shards over (their fencing tokens grew: at
   most one ``--lease`` after the last renewal, plus its start-up) it is SIGCONTed: its writes are fenced (a later one would show as doubled or missing) and it drops
   its games (``ended_by_itself``: it also ended, having no game left to wait for; one still
   waiting to start a game of its shards is killed after 3 leases).
   Each process appends every acknowledged command to a file of its own (``game, seq, text,
   latency``; written right after the commit, before anything else is done with it) outside the
   database.
2. **check**: ``verify-db`` (every game replays to its stored state, no gaps); games lost (not
   finished) or doubled (a game acknowledged by two processes, or one seq acknowledged twice);
   acknowledged commands missing from the database (or stored with another text).
3. **single**: the same games by ONE process without shards, for comparison (unless
   ``--no-single``).

Reported per store: commands/s (commands stored / wall time, kills and restarts included), p50
and p99 latency of the acknowledged commands (from the ack files), the kills, and the checks.
Targets (reported, not asserted): 0 lost / doubled / missing over at least 10 kills; two
processes over PostgreSQL >= 1,000 commands/s in total at p99 <= 100 ms.

``--worker`` is the entry of one worker process (used by this benchmark itself).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bot.soak import percentile, soak_game_id, soak_guild_id
from bot.store import ShardPlan, shard_of

TARGETS = {"kills": 10, "lost": 0, "doubled": 0, "missing": 0, "pg2_commands_per_s": 1000.0}
TARGET_P99_MS = 100.0


# ---------------------------------------------------------------------------- one worker


def _worker(argv: list[str]) -> int:
    from bot.soak import run_soak

    parser = argparse.ArgumentParser(prog="multisoak --worker")
    parser.add_argument("--db", required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--shard-count", type=int, default=None)
    parser.add_argument("--shard-ids", default=None)
    parser.add_argument("--lease", type=float, default=30.0)
    parser.add_argument("--ack", required=True)
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-pause", type=float, default=0.0)
    args = parser.parse_args(argv)
    plan = None
    if args.shard_count is not None:
        ids = [int(x) for x in args.shard_ids.split(",")]
        plan = ShardPlan.of(args.shard_count, ids, lease_seconds=args.lease)
    figures = asyncio.run(
        run_soak(
            args.db,
            games=args.games,
            concurrency=args.concurrency,
            preset=args.preset,
            seed=args.seed,
            ack_path=args.ack,
            ack_latency=True,
            bot_pause=args.bot_pause,
            shards=plan,
        )
    )
    print(json.dumps(figures), flush=True)
    return 0


# ---------------------------------------------------------------------------- the run


def _ranges(shards: int, procs: int) -> list[list[int]]:
    """Shards 0..shards-1 split into ``procs`` contiguous ranges."""
    return [list(range(k * shards // procs, (k + 1) * shards // procs)) for k in range(procs)]


class Worker:
    """One worker slot: its shards, its current process, an ack file per process started."""

    def __init__(self, slot: int, ids: list[int], workdir: Path, base: list[str]) -> None:
        self.url = base[base.index("--db") + 1]
        self.slot = slot
        self.ids = ids
        self.workdir = workdir
        self.base = base
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0
        self.outputs: list[str] = []
        self.acks: list[Path] = []

    def start(self, shard_count: int | None) -> None:
        ack = self.workdir / f"ack-{self.slot}-{self.starts}.tsv"
        self.acks.append(ack)
        command = [*self.base, "--ack", str(ack)]
        if shard_count is not None:
            command += [
                "--shard-count",
                str(shard_count),
                "--shard-ids",
                ",".join(map(str, self.ids)),
            ]
        with open(ack.with_suffix(".log"), "w") as log:  # the worker's log lines
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.multisoak", "--worker", *command],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        self.starts += 1

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def finish(self, timeout: float) -> int:
        assert self.proc is not None
        out, _ = self.proc.communicate(timeout=timeout)
        self.outputs.append(out)
        return self.proc.returncode


def _read_acks(path: Path) -> list[tuple[str, int, str, float]]:
    """The complete lines of an ack file (a killed writer may leave half a last line)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        parts = line.split("\t")
        if len(parts) != 4:
            continue
        try:
            rows.append((parts[0], int(parts[1]), parts[2], float(parts[3])))
        except ValueError:
            continue
    return rows


async def _stored(url: str, game_ids: list[str]) -> dict[str, Any]:
    """The stored games: status and command log of each (one read snapshot)."""
    from bot.wiring import store_at

    store = store_at(url, readonly=True, create=False)
    await store.open()
    found: dict[str, Any] = {}
    try:
        async with store.snapshot() as snap:
            for game_id in game_ids:
                record = await snap.load_game(game_id)
                if record is None:
                    continue
                commands = await snap.commands(game_id)
                found[game_id] = (record.status, {c.seq: c.text for c in commands})
    finally:
        await store.close()
    return found


def _check(
    url: str, games: int, seed: int, shards: int | None, workers: list[Worker]
) -> dict[str, Any]:
    from bot.service.soak import verify_db

    game_ids = [soak_game_id(seed, i) for i in range(games)]
    report = asyncio.run(verify_db(url))
    stored = asyncio.run(_stored(url, game_ids))
    lost = [g for g in game_ids if g not in stored or stored[g][0] != "finished"]
    owners: dict[str, set[int]] = defaultdict(set)
    acked: dict[tuple[str, int], list[str]] = defaultdict(list)
    latencies: list[float] = []
    wrong_shard = 0
    index_of = {g: i for i, g in enumerate(game_ids)}
    for worker in workers:
        rows = [row for ack in worker.acks for row in _read_acks(ack)]
        for game_id, seq, text, ms in rows:
            owners[game_id].add(worker.slot)
            acked[(game_id, seq)].append(text)
            latencies.append(ms)
            index = index_of.get(game_id)
            if shards is not None and index is not None:
                wrong_shard += shard_of(soak_guild_id(index), shards) not in worker.ids
    doubled = sorted(
        {g for g, slots in owners.items() if len(slots) > 1}
        | {g for (g, _), texts in acked.items() if len(texts) > 1}
    )
    missing = [
        (g, seq)
        for (g, seq), texts in acked.items()
        if g not in stored or stored[g][1].get(seq) != texts[0]
    ]
    return {
        "verify_db_problems": len(report["problems"]),
        "verify_db_games": report["games"],
        "quarantined": len(report["quarantined"]),
        "games_finished": games - len(lost),
        "lost": len(lost),
        "doubled": len(doubled),
        "acked_by_a_non_owner": wrong_shard,
        "acked_commands": sum(len(t) for t in acked.values()),
        "missing": len(missing),
        "stored_commands": sum(len(s[1]) for s in stored.values()),
        "p50_ms": round(percentile(latencies, 50), 3),
        "p99_ms": round(percentile(latencies, 99), 3),
        "examples": {"lost": lost[:3], "doubled": doubled[:3], "missing": missing[:3]},
    }


def _pause(victim: Worker, shards: int, args: argparse.Namespace) -> dict[str, Any]:
    """A paused process: SIGSTOP it, start its replacement (a supervisor that took it for
    dead), wait past its lease (the replacement takes the shards over), SIGCONT it: it must
    write nothing more (fenced), drop its games and end. The replacement goes on as the slot's
    process (the kill that follows hits it)."""
    old = victim.proc
    assert old is not None
    old_ack = victim.acks[-1]
    before = asyncio.run(_tokens(victim.url))
    old.send_signal(signal.SIGSTOP)
    paused = time.perf_counter()
    stopped = len(_read_acks(old_ack))
    victim.start(shards)
    taken = False
    while time.perf_counter() - paused < args.lease * 20:
        time.sleep(0.2)
        now = asyncio.run(_tokens(victim.url))
        if all(now.get(s, 0) > before.get(s, 0) for s in victim.ids):
            taken = True
            break
    took = time.perf_counter() - paused
    old.send_signal(signal.SIGCONT)
    try:
        old.communicate(timeout=args.lease * 3)
        ended = True
    except subprocess.TimeoutExpired:
        old.kill()
        old.communicate()
        ended = False
    # a commit it had under way when stopped may finish on SIGCONT (it held the database's lock
    # or the lease row, so the takeover waited for it); anything later is fenced: a later write
    # would show as doubled or missing in the checks
    after = len(_read_acks(old_ack))
    return {
        "taken_over": taken,
        "takeover_s": round(took, 1),
        "acked_after_sigcont": after - stopped,
        "ended_by_itself": ended,
    }


async def _tokens(url: str) -> dict[int, int]:
    """shard -> fencing token, as stored now."""
    from bot.store import StoreError
    from bot.wiring import store_at

    store = store_at(url, readonly=True, create=False)
    try:
        await store.open()
    except StoreError:  # not made yet
        return {}
    try:
        return {lease.shard: lease.token for lease in await store.shard_leases()}
    finally:
        await store.close()


def run_store(
    url: str,
    args: argparse.Namespace,
    workdir: Path,
    *,
    procs: int,
    shards: int | None,
    kills: int,
    pauses: int = 0,
) -> dict[str, Any]:
    """One run of ``procs`` workers over ``url`` (``shards`` None: one unsharded process)."""
    base = [
        "--db",
        url,
        "--games",
        str(args.games),
        "--concurrency",
        str(args.concurrency),
        "--lease",
        str(args.lease),
        "--preset",
        args.preset,
        "--seed",
        str(args.seed),
        "--bot-pause",
        str(args.bot_pause),
    ]
    ranges = _ranges(shards, procs) if shards is not None else [[]]
    workers = [Worker(k, ids, workdir, base) for k, ids in enumerate(ranges)]
    rng = random.Random(args.seed)
    started = time.perf_counter()
    for worker in workers:
        worker.start(shards)
    done_kills = 0
    fenced: list[dict[str, Any]] = []
    low, high = args.kill_after
    try:
        while done_kills < kills:
            time.sleep(rng.uniform(low, high))
            alive = [w for w in workers if w.alive()]
            if not alive:
                break
            victim = rng.choice(alive)
            # a pause needs a process that holds its leases and moves (it has acknowledged)
            moving = [w for w in alive if _read_acks(w.acks[-1])]
            if shards is not None and len(fenced) < pauses and done_kills % 2 == 1 and moving:
                victim = rng.choice(moving)
                fenced.append(_pause(victim, shards, args))
            victim.kill()
            done_kills += 1
            victim.start(shards)
        codes = [w.finish(args.timeout) for w in workers]
    finally:
        for worker in workers:
            if worker.alive():
                worker.kill()
    wall = time.perf_counter() - started
    figures = _check(url, args.games, args.seed, shards, workers)
    figures["pauses"] = fenced
    figures["kills"] = done_kills
    figures["exit_codes"] = codes
    figures["wall_s"] = round(wall, 1)
    figures["commands_per_s"] = round(figures["stored_commands"] / wall, 1) if wall else 0.0
    return figures


@contextlib.contextmanager
def _postgres():
    """A PostgreSQL server of our own (tests/pg.py), with fsync ON (the test suite's server
    runs without it); yields a function making a fresh database URL."""
    from tests.pg import start_server

    server = start_server()
    try:
        for setting in ("fsync = on", "full_page_writes = on"):
            server.sql(server.base_url, f"ALTER SYSTEM SET {setting}")
        server.sql(server.base_url, "SELECT pg_reload_conf()")
        yield server.new_database
    finally:
        server.close()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks multisoak", description=__doc__)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=100, help="games at a time per process")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--kill-after", type=float, nargs=2, default=(1.5, 4.0))
    parser.add_argument("--bot-pause", type=float, default=0.0)
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL to use instead of our own")
    parser.add_argument("--lease", type=float, default=6.0, help="shard lease seconds")
    parser.add_argument(
        "--pauses", type=int, default=2, help="SIGSTOP attacks past the lease (see _pause)"
    )
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0, help="per worker, at the end")
    parser.add_argument("--no-single", action="store_true", help="skip the single-process runs")
    parser.add_argument("--keep", default=None, help="keep ack files and worker logs here")
    return parser


def run(argv: list[str] | None = None, echo: bool = False) -> dict[str, Any]:
    args = _parser().parse_args(argv or [])
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    results: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="rummy-multisoak-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        root = Path(args.keep or tmp)
        root.mkdir(parents=True, exist_ok=True)
        new_pg = None
        if "postgres" in stores and args.db is None:
            new_pg = stack.enter_context(_postgres())

        def url_for(store: str, name: str) -> str:
            if store == "sqlite":
                return f"sqlite:///{root / name}.sqlite3"
            if args.db is not None:
                return args.db
            return new_pg()

        for store in stores:
            for mode in ("multi", "single"):
                if mode == "single" and args.no_single:
                    continue
                workdir = root / f"{store}-{mode}"
                workdir.mkdir()
                url = url_for(store, f"{store}-{mode}")
                if mode == "multi":
                    figures = run_store(
                        url,
                        args,
                        workdir,
                        procs=args.procs,
                        shards=args.shards,
                        kills=args.kills,
                        pauses=args.pauses,
                    )
                else:
                    figures = run_store(url, args, workdir, procs=1, shards=None, kills=0)
                results[f"{store}/{mode}"] = figures
                if echo:
                    print(json.dumps({f"{store}/{mode}": figures}), flush=True)
    met = {}
    multi = [v for k, v in results.items() if k.endswith("/multi")]
    if multi:
        met["kills"] = all(f["kills"] >= TARGETS["kills"] for f in multi)
        met["lost_doubled_missing"] = all(
            f["lost"] == f["doubled"] == f["missing"] == f["verify_db_problems"] == 0 for f in multi
        )
    pg = results.get("postgres/multi")
    if pg is not None and args.procs == 2:
        met["pg2_commands_per_s"] = pg["commands_per_s"] >= TARGETS["pg2_commands_per_s"]
        met["pg2_p99_ms"] = pg["p99_ms"] <= TARGET_P99_MS
    return {"args": vars(args), "results": results, "met": met}


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["--worker"]:
        return _worker(words[1:])
    result = run(words, echo=True)
    print(json.dumps({"met": result["met"]}))
    return 0 if all(result["met"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
