"""Multi-process soak: N service processes with shard ranges over ONE database, SIGKILLed at random
moments and started again; then every game and every acknowledged command is checked.

``python -m benchmarks multisoak [--procs 2] [--shards 4] [--games 400] [--concurrency 100]
[--bot-pause 0.0] [--kills 10] [--pauses 2] [--kill-after 0.3 1.5] [--expect N]
[--steady-games 800] [--steady-concurrency 150] [--steady-pause 0.25]
[--stores sqlite,postgres] [--db URL] [--lease 6] [--preset rummikub] [--seed 1]
[--no-single] [--no-multi] [--no-steady] [--keep DIR]``

The figures of issue 17 come from the defaults (``python -m benchmarks multisoak``), which make,
mode by mode and in each mode every store one after the other (paired in time), for each store
(a fresh SQLite file; a fresh database of a PostgreSQL server this benchmark starts itself with
tests/pg.py, fsync on, unless ``--db`` names one):

1. **single**: ``--games`` computer-only games by ONE process without shards, ``--concurrency``
   at a time, computer players moving without pause (``--bot-pause``: capacity, so latency is
   mostly queueing behind the other games' moves). Its command count is what the same games
   make in the other runs too (games are deterministic per seed).
2. **multi** (the kill run): ``--procs`` worker processes (each a full service + store:
   :func:`bot.soak.run_soak` with a :class:`~bot.store.ShardPlan`), process ``k`` owning an
   equal range of the ``--shards`` shards, together playing the same games (game ``i`` is on
   shard ``i % shards``) with the same load. ``--kills`` times one live process is SIGKILLed
   and started again at once with the same shards (it resumes its games: its old lease is
   free as soon as its process is gone). The kills fit the run by construction: kill ``k``
   comes once the acknowledged commands pass a random point of the ``k``-th of ``--kills``
   equal parts of the first 80 % of the commands expected (``--expect``, by default the
   single run's count, else ``games * 90``), and at least ``--kill-after`` seconds after the
   kill before; a worker that fails by itself is started again (``crashes``, reported).
   ``--pauses`` times, at an odd kill point, a live process that has acknowledged commands is
   paused as well (:class:`Pause`; that point's kill then hits another slot): SIGSTOPped, its replacement started, and once the
   replacement has taken its shards over (their fencing tokens grew: about one ``--lease``
   after the stopped process's last renewal, plus the replacement's start-up and its next
   round) it is SIGCONTed: its writes under the old tokens are refused (a later one would show
   as doubled or missing) and it drops its games and ends (``ended_by_itself``; one still
   waiting to start a game of its shards is killed after 3 leases). When the pause ends its
   replacement is killed and started again (a kill). A pause does not hold the kills up: while it lasts
   the kills go on in the other slots, so they still fall at their points, however long a
   takeover takes, and the run reaches its ``--kills`` on a faster or slower machine alike
   (if the games all finish first, fewer are reported: ``kills`` < 10 fails ``met``). On
   SQLite a process stopped inside a write holds the file's write lock, so nobody takes it
   over (``taken_over`` false after ``5 * lease + 10`` s; it is continued as the holder) and
   every other process's writes wait for it: there, kills and restarts wait while a process
   is stopped, as they did before.
   A pause reports ``takeover_s`` and the acknowledgements the paused process wrote
   while stopped (``acked_while_stopped``: 0, else the measure is wrong) and after its
   SIGCONT (``acked_after_sigcont``), split into those of commands already stored when the
   takeover was seen (``..._stored_at_takeover``: committed while it held its lease, the
   acknowledgement written only after it went on: a batch committed or under way when it was
   stopped) and those of later commands (``..._later``: possible only once it took a lease
   again with a new token, when the replacement's lease ran out while it resumed the games it
   had just taken over; a write under the old token would show as doubled or missing).
   Each process appends every acknowledged command to a file of its own (``game, seq, text,
   latency``; written right after the commit, before anything else is done with it) outside
   the database.
3. **steady**: ``--procs`` sharded processes without kills at a steady load below capacity:
   ``--steady-games`` games, ``--steady-concurrency`` at a time per process, computer players
   thinking ``--steady-pause`` seconds (jittered 0.5-1.5x) per move. This is the run of the
   throughput target: in the kill run a killed process's games wait for its replacement (a
   Python start-up and the resume of its games) at every kill, and with no think pause every
   game always wants to move, so its latency is queueing by construction (with 100 games per
   process each command waits for the other games' moves on the event loop).

After each run, the **check**: ``verify-db`` (every game replays to its stored state, no gaps);
games lost (not finished) or doubled (a game acknowledged by two processes, or one seq
acknowledged twice); acknowledged commands missing from the database (or stored with another
text).

Reported per store and run: commands/s (commands stored / wall time, start-up, kills and
restarts included), ``window_commands_per_s`` (acknowledged commands per second from the
moment 10 % of them were acknowledged to the moment 90 % were: the steady part, without the
start-up and the tail where ever fewer games are left), p50 and p99 latency of the acknowledged commands (from the ack files:
applying the command to its durable commit), the kills (and at which acknowledged count),
crashes, the checks, and CPU seconds: ``workers_cpu_s`` (the worker processes, killed ones
included), ``server_cpu_s`` (the PostgreSQL server: postmaster and backends) and
``commands_per_cpu_s`` (stored commands per CPU second of both: what the store costs whatever
else the machine runs); on PostgreSQL also the server's counters over the run
(``server_transactions``, ``server_wal_syncs``, ... and ``commands_per_transaction``,
``commands_per_wal_sync``, ``wal_bytes_per_command``: how well the group commit batches,
independent of the machine's load). Targets (reported in ``met``, not asserted): 0 lost / doubled / missing
over at least 10 kills (every multi run); two processes over PostgreSQL >= 1,000 commands/s in
total (``window_commands_per_s``) at p99 <= 100 ms (postgres/steady).

``--worker`` is the entry of one worker process (used by this benchmark itself).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import json
import os
import random
import resource
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
#: workers failing by themselves that a run starts again, at most
MAX_CRASHES = 5
#: the runs per store, in this order (with the option that skips each)
MODES = (("single", "no_single"), ("multi", "no_multi"), ("steady", "no_steady"))


# ---------------------------------------------------------------------------- one worker


def _worker(argv: list[str]) -> int:
    from bot.soak import run_soak

    faulthandler.enable()  # a crash (a C extension rebuilt under a running process) is logged

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


# ---------------------------------------------------------------------------- CPU seconds


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children (the workers, killed ones included)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _proc_stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()


def server_cpu(postmaster: int | None) -> float:
    """CPU seconds of a PostgreSQL server so far: the postmaster's own and its ended children's
    (a backend's when its connection closed), plus its live children's (Linux /proc); 0 when
    unknown."""
    if postmaster is None or not Path(f"/proc/{postmaster}").exists():
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    try:
        total = sum(int(x) for x in _proc_stat(postmaster)[11:15])
    except (OSError, ValueError, IndexError):
        return 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = _proc_stat(int(entry))
            if int(fields[1]) == postmaster:
                total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return total / tick


#: the PostgreSQL server's counters a run reports (see :func:`server_counts`)
COUNTERS = ("transactions", "wal_records", "wal_bytes", "wal_writes", "wal_syncs")


async def _counts(url: str) -> dict[str, int]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        # the backends of the run flush their statistics when they end: wait for them
        for _ in range(100):
            others = await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            if not others:
                break
            await asyncio.sleep(0.05)
        await conn.execute("SELECT pg_stat_force_next_flush()")
        commits = await conn.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        )
        wal = list(await conn.fetchrow("SELECT wal_records, wal_bytes FROM pg_stat_wal"))
        if await conn.fetchval(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = 'pg_stat_wal'::regclass "
            "AND attname = 'wal_sync'"
        ):  # up to PostgreSQL 17
            io = await conn.fetchrow("SELECT wal_write, wal_sync FROM pg_stat_wal")
        else:  # PostgreSQL 18 counts WAL writes and flushes in pg_stat_io
            io = await conn.fetchrow(
                "SELECT sum(writes), sum(fsyncs) FROM pg_stat_io "
                "WHERE object = 'wal' AND context = 'normal'"
            )
    finally:
        await conn.close()
    values = (commits, *wal, *io)
    return dict(zip(COUNTERS, (int(x or 0) for x in values), strict=True))


def server_counts(url: str) -> dict[str, int]:
    """A PostgreSQL server's counters now: ``transactions`` committed in the database of
    ``url`` (every statement outside a transaction counts as one), and the server's WAL
    records, bytes, writes and flushes (``wal_syncs``: the fsyncs a commit waits for; one
    flush can make several backends' commits durable). Deterministic proxies of what a
    command costs the server, whatever else the machine runs. Empty for SQLite."""
    if not url.startswith(("postgresql://", "postgres://")):
        return {}
    return asyncio.run(_counts(url))


def per_command(before: dict[str, int], after: dict[str, int], commands: int) -> dict[str, Any]:
    """The counters' growth over a run, and commands per transaction and per WAL flush."""
    if not before or not after:
        return {}
    grown = {name: after[name] - before[name] for name in COUNTERS}
    out: dict[str, Any] = {f"server_{name}": n for name, n in grown.items()}
    out["commands_per_transaction"] = (
        round(commands / grown["transactions"], 2) if grown["transactions"] else 0.0
    )
    out["commands_per_wal_sync"] = (
        round(commands / grown["wal_syncs"], 2) if grown["wal_syncs"] else 0.0
    )
    out["wal_bytes_per_command"] = round(grown["wal_bytes"] / commands) if commands else 0
    return out


def kill_points(expected: int, kills: int, rng: random.Random, share: float = 0.8) -> list[int]:
    """The acknowledged-command counts at which kill 1..``kills`` happen: one at a random
    point of each of ``kills`` equal parts of the first ``share`` of the ``expected``
    commands, so every kill falls inside the run whatever the machine's speed."""
    span = expected * share / max(1, kills)
    return [int(span * (k + rng.uniform(0.2, 0.8))) for k in range(kills)]


def window_rate(samples: list[tuple[float, int]], low: float = 0.1, high: float = 0.9) -> float:
    """Acknowledged commands per second between the moments ``low`` and ``high`` of them were
    acknowledged (the run's steady part: without the start-up, when the games are created,
    and the tail, when ever fewer games are left); 0 with too few samples."""
    if not samples or samples[-1][1] <= 0:
        return 0.0
    total = samples[-1][1]
    first = next((s for s in samples if s[1] >= low * total), None)
    last = next((s for s in samples if s[1] >= high * total), None)
    if first is None or last is None or last[0] <= first[0]:
        return 0.0
    return round((last[1] - first[1]) / (last[0] - first[0]), 1)


class _AckCounter:
    """Counts the complete lines of the ack files as they grow (read incrementally)."""

    def __init__(self) -> None:
        self._seen: dict[Path, tuple[int, int]] = {}  # path -> (bytes read, lines)

    def count(self, paths: list[Path]) -> int:
        total = 0
        for path in paths:
            done, lines = self._seen.get(path, (0, 0))
            try:
                with open(path, "rb") as f:
                    f.seek(done)
                    chunk = f.read()
            except OSError:
                chunk = b""
            end = chunk.rfind(b"\n") + 1
            lines += chunk[:end].count(b"\n")
            self._seen[path] = (done + end, lines)
            total += lines
        return total


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

    def crashed(self) -> bool:
        """Whether its process ended by itself with a failure (not killed by us)."""
        return self.proc is not None and self.proc.poll() not in (None, 0)


def _restart_crashed(workers: list[Worker], shards: int | None, crashes: list[int]) -> None:
    """Start again every worker whose process failed by itself (a supervisor's restart, as
    systemd's Restart=on-failure); their exit codes are reported."""
    for worker in workers:
        if worker.crashed() and len(crashes) < MAX_CRASHES:
            assert worker.proc is not None
            crashes.append(worker.proc.returncode)
            if worker.proc.stdout is not None:
                worker.proc.stdout.close()
            worker.start(shards)


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


def sigcont_acks(
    rows: list[tuple[str, int, str, float]], stored: dict[str, int]
) -> tuple[int, int]:
    """Of the acknowledgements a paused process wrote after its SIGCONT (``rows``), how many
    are of commands stored when its shards were seen taken over (``stored``: game -> its seq
    then; a commit that was under way when it was stopped, or done and not yet acknowledged:
    the takeover waited for it or ended it) and how many are of later commands (possible only
    once it took a lease again, with a new fencing token: a write under its old token would
    also show as doubled or missing)."""
    before = sum(1 for game, seq, _, _ in rows if seq <= stored.get(game, 0))
    return before, len(rows) - before


class Pause:
    """A paused process, stepped by the kill loop without stalling it: SIGSTOP it, start its
    replacement (a supervisor that took it for dead), and once the replacement has taken its
    shards over (their fencing tokens grew: at most one lease after its last renewal, plus the
    replacement's start-up), SIGCONT it: it must write nothing more under its old tokens,
    drop its games and end (one still waiting to start a game of its shards is killed after
    3 leases). The replacement goes on as the slot's process; when the pause is done the kill
    loop kills it and starts the slot again (a kill). ``tokens()`` reads shard -> token;
    ``seqs()`` the stored seq of the victim's games."""

    def __init__(
        self,
        victim: Worker,
        shards: int,
        lease: float,
        *,
        tokens: Any = None,
        seqs: Any = None,
        poll: float = 0.5,
    ) -> None:
        self.victim = victim
        self.lease = lease
        self._tokens = tokens or (lambda: asyncio.run(_tokens(victim.url)))
        self._seqs = seqs or (lambda: {})
        self._poll = poll
        old = victim.proc
        assert old is not None
        self.old = old
        self.old_ack = victim.acks[-1]
        self.before = self._tokens()
        old.send_signal(signal.SIGSTOP)
        self.paused = time.perf_counter()
        self.stopped = len(_read_acks(self.old_ack))
        victim.start(shards)
        self.phase = "stopped"  # -> "continued" -> "done"
        self._next = self.paused + poll
        self.figures: dict[str, Any] = {}

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def step(self) -> None:
        """One look (cheap until the next poll is due): advance the pause if it can."""
        now = time.perf_counter()
        if self.phase == "done" or now < self._next:
            return
        self._next = now + self._poll
        if self.phase == "stopped":
            grown = self._tokens()
            taken = all(grown.get(s, 0) > self.before.get(s, 0) for s in self.victim.ids)
            # on SQLite a process stopped inside a write holds the file's write lock: nobody
            # can take its leases over until it goes on (no server ends its transaction); then
            # the pause is reported not taken over and the process, still the holder, goes on
            if not taken and now - self.paused < self.lease * 5 + 10:
                return
            self.figures = {"taken_over": taken, "takeover_s": round(now - self.paused, 1)}
            self.stored = self._seqs() if taken else {}
            self.still = len(_read_acks(self.old_ack))  # acked while stopped: a measuring fault
            self.old.send_signal(signal.SIGCONT)
            self.phase, self.continued = "continued", now
            return
        ended = self.old.poll() is not None
        if not ended and now - self.continued < self.lease * 3:
            return
        if not ended:
            self.old.kill()
        self.old.communicate()
        rows = _read_acks(self.old_ack)
        late, again = sigcont_acks(rows[self.still :], self.stored)
        self.figures.update(
            {
                "acked_while_stopped": self.still - self.stopped,
                "acked_after_sigcont": len(rows) - self.still,
                "acked_after_sigcont_stored_at_takeover": late,
                "acked_after_sigcont_later": again,
                "ended_by_itself": ended,
            }
        )
        self.phase = "done"

    def finish(self) -> dict[str, Any]:
        """Step until done (the end of a run); the figures."""
        while not self.done:
            time.sleep(0.1)
            self.step()
        return self.figures


async def _seqs(url: str, game_ids: list[str]) -> dict[str, int]:
    """game -> its stored seq (one read snapshot)."""
    from bot.wiring import store_at

    store = store_at(url, readonly=True, create=False)
    await store.open()
    found: dict[str, int] = {}
    try:
        async with store.snapshot() as snap:
            for game_id in game_ids:
                record = await snap.load_game(game_id)
                if record is not None:
                    found[game_id] = record.seq
    finally:
        await store.close()
    return found


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
    load: tuple[int, int, float] | None = None,
    expected: int | None = None,
    postmaster: int | None = None,
) -> dict[str, Any]:
    """One run of ``procs`` workers over ``url`` (``shards`` None: one unsharded process).

    ``load``: (games, concurrency per process, bot pause), by default ``--games``,
    ``--concurrency``, ``--bot-pause``. ``kills`` happen at :func:`kill_points` of
    ``expected`` acknowledged commands (default ``games`` * 90), each at least a random
    ``--kill-after`` after the one before. ``postmaster``: the PostgreSQL server's pid, whose
    CPU seconds are counted with the workers'."""
    games, concurrency, bot_pause = load or (args.games, args.concurrency, args.bot_pause)
    base = [
        "--db",
        url,
        "--games",
        str(games),
        "--concurrency",
        str(concurrency),
        "--lease",
        str(args.lease),
        "--preset",
        args.preset,
        "--seed",
        str(args.seed),
        "--bot-pause",
        str(bot_pause),
    ]
    ranges = _ranges(shards, procs) if shards is not None else [[]]
    workers = [Worker(k, ids, workdir, base) for k, ids in enumerate(ranges)]
    rng = random.Random(args.seed)
    points = kill_points(expected or games * 90, kills, rng)
    counter = _AckCounter()
    counts_before = server_counts(url)
    cpu_before, server_before = _children_cpu(), server_cpu(postmaster)
    started = time.perf_counter()
    for worker in workers:
        worker.start(shards)
    done_kills = 0
    pausing: list[Pause] = []  # every pause started, in order
    kill_at: list[int] = []  # acknowledged commands when each kill happened
    crashes: list[int] = []  # exit codes of workers that failed by themselves (restarted)
    samples: list[tuple[float, int]] = []  # (time, acknowledged commands so far)
    low, high = args.kill_after
    last = time.perf_counter()
    gap = rng.uniform(low, high)
    victim_games = {
        w.slot: [
            soak_game_id(args.seed, i)
            for i in range(games)
            if shards is not None and shard_of(soak_guild_id(i), shards) in w.ids
        ]
        for w in workers
    }

    sqlite = not url.startswith(("postgresql://", "postgres://"))

    def active() -> Pause | None:
        return next((p for p in pausing if not p.done), None)

    def kill(victim: Worker, acked: int) -> None:
        """SIGKILL the slot's process and start it again at once (it resumes its games)."""
        nonlocal done_kills, last, gap
        victim.kill()
        done_kills += 1
        kill_at.append(acked)
        victim.start(shards)
        last, gap = time.perf_counter(), rng.uniform(low, high)

    try:
        # a pause does not hold the kills up: while one slot's process is stopped (or ending
        # after its SIGCONT), the kills go on in the other slots, so the kills fall at their
        # points whatever a takeover takes
        while done_kills < kills:
            time.sleep(0.1)
            current = active()
            # on SQLite a process stopped inside a write holds the file's write lock: every
            # other process's writes and opens wait for it (and fail after the busy timeout),
            # so while one is stopped there the kills and restarts wait, as they always did
            held = sqlite and current is not None and current.phase == "stopped"
            if not held:
                _restart_crashed(workers, shards, crashes)
            acked = counter.count([a for w in workers for a in w.acks])
            if current is not None:
                current.step()
                if current.done:
                    # the replacement is killed at once (a process that lost its shards to
                    # the continued one and got them back has no game task left: a soak
                    # ends when its games' tasks do), and started again: it resumes them
                    kill(current.victim, acked)
                    continue
            alive = [w for w in workers if w.alive()]
            if not alive:
                break  # every game finished before the kills were done: reported
            samples.append((time.perf_counter(), acked))
            if held or acked < points[done_kills] or time.perf_counter() - last < gap:
                continue
            busy = current.victim if current is not None else None
            free = [w for w in alive if w is not busy]
            # a pause needs a process that holds its leases and moves (it has acknowledged)
            moving = [w for w in free if _read_acks(w.acks[-1])]
            wants_pause = shards is not None and len(pausing) < pauses and current is None
            if wants_pause and done_kills % 2 == 1 and moving:
                chosen = rng.choice(moving)
                url_games = victim_games[chosen.slot]
                pausing.append(
                    Pause(
                        chosen,
                        shards,
                        args.lease,
                        seqs=lambda g=url_games: asyncio.run(_seqs(url, g)),
                    )
                )
                last, gap = time.perf_counter(), rng.uniform(low, high)
                continue
            if not free:
                continue
            kill(rng.choice(free), acked)
        current = active()
        if current is not None:  # the kills are done (or the games): the pause ends as above
            current.finish()
            kill(current.victim, counter.count([a for w in workers for a in w.acks]))
        deadline = time.perf_counter() + args.timeout
        while any(w.alive() for w in workers) and time.perf_counter() < deadline:
            time.sleep(0.2)
            _restart_crashed(workers, shards, crashes)
            samples.append(
                (time.perf_counter(), counter.count([a for w in workers for a in w.acks]))
            )
        codes = [w.finish(max(1.0, deadline - time.perf_counter())) for w in workers]
    finally:
        for pause in pausing:
            if pause.old.poll() is None:
                pause.old.send_signal(signal.SIGCONT)
                pause.old.kill()
                pause.old.communicate()
        for worker in workers:
            if worker.alive():
                worker.kill()
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    server = server_cpu(postmaster) - server_before
    counts_after = server_counts(url)
    figures = _check(url, games, args.seed, shards, workers)
    figures["load"] = {"games": games, "concurrency": concurrency, "bot_pause": bot_pause}
    figures["pauses"] = [p.figures for p in pausing]
    figures["kills"] = done_kills
    figures["kills_at_acked"] = kill_at
    figures["exit_codes"] = codes
    figures["crashes"] = crashes
    figures["wall_s"] = round(wall, 1)
    figures["commands_per_s"] = round(figures["stored_commands"] / wall, 1) if wall else 0.0
    figures["window_commands_per_s"] = window_rate(samples)
    figures["workers_cpu_s"] = round(cpu, 1)
    figures["server_cpu_s"] = round(server, 1)
    total = cpu + server
    figures["commands_per_cpu_s"] = round(figures["stored_commands"] / total, 1) if total else 0.0
    figures.update(per_command(counts_before, counts_after, figures["stored_commands"]))
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
        yield server
    finally:
        server.close()


def _postmaster(server: Any) -> int | None:
    """The pid of our server's postmaster (the first line of postmaster.pid)."""
    try:
        pgdata = Path(server.root) / "pgdata"
        return int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError, AttributeError):
        return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks multisoak", description=__doc__)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=100, help="games at a time per process")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument(
        "--kill-after",
        type=float,
        nargs=2,
        default=(0.3, 1.5),
        help="seconds at least between two kills (uniform between the two)",
    )
    parser.add_argument(
        "--expect",
        type=int,
        default=None,
        help="commands the games make (for the kill points); default: the first single run's, "
        "else games * 90",
    )
    parser.add_argument("--bot-pause", type=float, default=0.0)
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL to use instead of our own")
    parser.add_argument("--lease", type=float, default=6.0, help="shard lease seconds")
    parser.add_argument(
        "--pauses", type=int, default=2, help="SIGSTOP attacks past the lease (see Pause)"
    )
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0, help="per worker, at the end")
    parser.add_argument("--no-single", action="store_true", help="skip the single-process runs")
    parser.add_argument("--no-multi", action="store_true", help="skip the runs with kills")
    parser.add_argument("--no-steady", action="store_true", help="skip the steady runs")
    parser.add_argument("--steady-games", type=int, default=800)
    parser.add_argument(
        "--steady-concurrency", type=int, default=150, help="games at a time per process"
    )
    parser.add_argument(
        "--steady-pause", type=float, default=0.25, help="computer players' think seconds"
    )
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
        server = None
        if "postgres" in stores and args.db is None:
            server = stack.enter_context(_postgres())
        postmaster = _postmaster(server) if server is not None else None

        def url_for(store: str, name: str) -> str:
            if store == "sqlite":
                return f"sqlite:///{root / name}.sqlite3"
            if args.db is not None:
                return args.db
            return server.new_database()

        modes = [m for m, off in MODES if not getattr(args, off)]
        expected = args.expect
        # mode by mode, each on every store one after the other: paired in time
        for mode in modes:
            for store in stores:
                workdir = root / f"{store}-{mode}"
                workdir.mkdir()
                url = url_for(store, f"{store}-{mode}")
                pid = postmaster if store == "postgres" else None
                if mode == "single":
                    figures = run_store(
                        url, args, workdir, procs=1, shards=None, kills=0, postmaster=pid
                    )
                    expected = expected or figures["stored_commands"]
                else:
                    sharded = {"procs": args.procs, "shards": args.shards, "postmaster": pid}
                    if mode == "multi":
                        figures = run_store(
                            url,
                            args,
                            workdir,
                            kills=args.kills,
                            pauses=args.pauses,
                            expected=expected,
                            **sharded,
                        )
                    else:
                        steady = (args.steady_games, args.steady_concurrency, args.steady_pause)
                        figures = run_store(url, args, workdir, kills=0, load=steady, **sharded)
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
    # the throughput target on the steady run (two processes, no kills: a killed process's
    # games wait for its replacement, so the kill run's commands/s counts the restarts too)
    pg = results.get("postgres/steady")
    if pg is not None and args.procs == 2:
        met["pg2_commands_per_s"] = pg["window_commands_per_s"] >= TARGETS["pg2_commands_per_s"]
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
