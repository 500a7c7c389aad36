"""The multi-process soak's own bookkeeping (benchmarks/multisoak.py): where its kills fall,
how it counts acknowledged commands, its CPU seconds and the PostgreSQL server's counters, and
how a pause (SIGSTOP, takeover, SIGCONT) steps on a real stopped process without holding the
kill loop. The soak itself is a benchmark, run by hand (timings never live in tests)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.multisoak import (
    Pause,
    _AckCounter,
    _ranges,
    kill_points,
    per_command,
    server_counts,
    server_cpu,
    sigcont_acks,
    window_rate,
)
from tests.pg import PgServer, pg_server, pg_url  # noqa: F401


def test_kill_points_fall_one_in_each_part_of_the_first_80_percent() -> None:
    points = kill_points(10_000, 10, random.Random(1))
    assert len(points) == 10
    for k, point in enumerate(points):  # part k is 800 commands wide
        assert 800 * k + 160 <= point <= 800 * k + 640
    assert points == sorted(points)
    assert max(points) < 8_000


def test_kill_points_are_the_same_for_the_same_seed() -> None:
    assert kill_points(5_000, 4, random.Random(7)) == kill_points(5_000, 4, random.Random(7))
    assert kill_points(5_000, 0, random.Random(7)) == []


def test_ack_counter_counts_complete_lines_as_files_grow(tmp_path) -> None:
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    counter = _AckCounter()
    assert counter.count([a, b]) == 0  # not written yet
    a.write_text("g\t1\tdraw\t1.0\ng\t2\tdr")  # a killed writer's half line
    assert counter.count([a, b]) == 1
    with open(a, "a") as f:
        f.write("aw\t2.0\n")
    b.write_text("h\t1\tdraw\t1.0\n")
    assert counter.count([a, b]) == 3
    assert counter.count([a, b]) == 3


def test_ranges_split_the_shards_once() -> None:
    assert _ranges(4, 2) == [[0, 1], [2, 3]]
    assert sorted(s for r in _ranges(16, 3) for s in r) == list(range(16))


def test_server_cpu_is_zero_without_a_server_and_counts_a_live_process() -> None:
    assert server_cpu(None) == 0.0
    assert server_cpu(2**22 + 12345) == 0.0  # no such process
    sum(i * i for i in range(200_000))  # some CPU time of this process
    assert server_cpu(os.getpid()) > 0.0


def test_window_rate_leaves_out_the_start_and_the_tail() -> None:
    # 10 s of start-up with nothing, 100 commands/s for 10 s, then a slow tail
    samples = [(t, 0) for t in range(10)]
    samples += [(10 + t, 100 * t) for t in range(1, 11)]
    samples += [(20 + t, 1000 + 10 * t) for t in range(1, 11)]
    assert window_rate(samples) == 100.0
    assert window_rate([]) == 0.0
    assert window_rate([(0.0, 5)]) == 0.0


def test_per_command_gives_the_counters_growth_and_the_commands_per_commit() -> None:
    before = dict.fromkeys(("transactions", "wal_records", "wal_bytes", "wal_writes"), 10)
    after = {"transactions": 60, "wal_records": 510, "wal_bytes": 20_010, "wal_writes": 30}
    before["wal_syncs"], after["wal_syncs"] = 0, 40
    figures = per_command(before, after, 200)
    assert figures["server_transactions"] == 50 and figures["server_wal_syncs"] == 40
    assert figures["commands_per_transaction"] == 4.0
    assert figures["commands_per_wal_sync"] == 5.0
    assert figures["wal_bytes_per_command"] == 100
    assert per_command({}, {}, 200) == {}  # SQLite: no counters


def test_server_counts_are_empty_for_sqlite_and_grow_with_postgresql_commits(
    pg_server: PgServer,  # noqa: F811
    pg_url: str,  # noqa: F811
) -> None:
    assert server_counts("sqlite:////tmp/x.sqlite3") == {}
    before = server_counts(pg_url)
    pg_server.sql(pg_url, "CREATE TABLE t (x INTEGER)")
    for n in range(3):
        pg_server.sql(pg_url, "INSERT INTO t VALUES ($1)", n)
    after = server_counts(pg_url)
    assert after["transactions"] >= before["transactions"] + 4
    assert after["wal_records"] > before["wal_records"]
    assert after["wal_bytes"] > before["wal_bytes"]


def test_sigcont_acks_tell_commands_stored_at_the_takeover_from_later_ones() -> None:
    rows = [("g", 4, "draw", 1.0), ("g", 5, "draw", 1.0), ("g", 6, "pass", 1.0), ("h", 1, "x", 1.0)]
    assert sigcont_acks(rows, {"g": 5}) == (2, 2)  # h not stored at all: later
    assert sigcont_acks([], {"g": 5}) == (0, 0)


# a stand-in worker process: appends its ack lines once it has been continued (SIGCONT), then
# ends, or (with "stay") goes on sleeping; it says it is ready once its handler is in place
SCRIPT = r"""
import signal, sys, time
from pathlib import Path
ack, ready, stay = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "stay"
went_on = []
signal.signal(signal.SIGCONT, lambda *_: went_on.append(1))
ready.write_text("ok")
while not went_on:
    time.sleep(0.01)
with open(ack, "a") as f:
    f.write("g\t5\tdraw\t1.0\ng\t6\tpass\t1.0\n")
while stay:
    time.sleep(0.1)
"""


class StandIn:
    """The part of a Worker a Pause uses: its shards, process, ack files and start()."""

    def __init__(self, tmp: Path, stay: bool) -> None:
        self.url, self.ids, self.acks, self.starts = "sqlite:///unused", [0, 1], [], 0
        self.tmp, self.stay = tmp, stay
        self.proc: subprocess.Popen[str] | None = None
        self.start(None)
        ready = tmp / "ready-0"
        while not ready.exists():
            assert self.proc is not None and self.proc.poll() is None, "the stand-in failed"
            time.sleep(0.01)

    def start(self, shard_count: int | None) -> None:
        del shard_count
        ack = self.tmp / f"ack-{self.starts}.tsv"
        ready = self.tmp / f"ready-{self.starts}"
        self.acks.append(ack)
        mode = "stay" if self.stay else "end"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(ack), str(ready), mode],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.starts += 1


def test_a_pause_stops_the_process_and_continues_it_once_its_shards_are_taken_over(
    tmp_path: Path,
) -> None:
    worker = StandIn(tmp_path, stay=False)
    old = worker.proc
    reads = iter([{0: 1, 1: 1}, {0: 1, 1: 1}, {0: 2, 1: 1}, {0: 2, 1: 2}])
    pause = Pause(worker, 4, 6.0, tokens=lambda: next(reads), seqs=lambda: {"g": 5}, poll=0)
    assert worker.proc is not old and worker.starts == 2  # the replacement
    assert old is not None and old.poll() is None
    pause.step()
    pause.step()  # one shard taken over, not both: still stopped
    assert pause.phase == "stopped"
    pause.step()
    assert pause.phase == "continued"
    figures = pause.finish()
    assert figures["taken_over"] and figures["ended_by_itself"]
    assert figures["acked_while_stopped"] == 0
    assert figures["acked_after_sigcont"] == 2
    assert figures["acked_after_sigcont_stored_at_takeover"] == 1
    assert figures["acked_after_sigcont_later"] == 1
    assert worker.proc is not None
    worker.proc.kill()
    worker.proc.communicate()


def test_a_paused_process_that_does_not_end_after_its_sigcont_is_killed(tmp_path: Path) -> None:
    worker = StandIn(tmp_path, stay=True)
    old = worker.proc
    pause = Pause(worker, 4, 0.01, tokens=lambda: {0: 1, 1: 1}, poll=0)
    pause.step()  # not taken over: continued after 5 leases + 10 s at the latest
    assert pause.phase == "stopped"
    pause.paused -= 60  # as if that time had passed
    figures = pause.finish()
    assert not figures["taken_over"] and not figures["ended_by_itself"]
    assert old is not None and old.returncode is not None
    assert worker.proc is not None
    worker.proc.kill()
    worker.proc.communicate()
