"""One owner per database (issue 14): the owner lease, stale writers, quarantine and the version
1 -> 2 migration, on real SQLite files and, where the attack needs them, real processes (a second
process, a killed one, a stopped one). The guarantees every store keeps (guarded writes, stolen
leases, read-only stores, the snapshot) are in the contract suite, tests/store_contract/."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from bot.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    SqliteStore,
    StoreError,
    StoreLocked,
    open_store,
)
from bot.store.schema import MIGRATIONS
from tests.bot.store_helpers import SEATS, T0, game, write

ROOT = Path(__file__).resolve().parents[2]


async def started(store: SqliteStore, game_id: str = "g1") -> None:
    await store.create_game(game(game_id))
    await store.start_game(
        game_id, seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=T0 + 120, at=T0
    )


def raw(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """A plain sqlite3 connection of the test's own (another writer, as a second process is)."""
    with closing(sqlite3.connect(path, timeout=10)) as db:
        rows = db.execute(sql, params).fetchall()
        db.commit()
        return rows


# ---------------------------------------------------------------------------- a holder process

HOLDER = r"""
import asyncio, sys
from bot.store import CommandWrite, KvRow, SqliteStore, StoreError

async def main(path, lease):
    store = SqliteStore(path, lease_seconds=lease)
    await store.open()
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    attempts = {
        "set_status": lambda: store.set_status("g1", "cancelled", at=1.0, expect=None),
        "set_timer": lambda: store.set_timer("g2", deadline=5.0, reminder_sent=True),
        "append": lambda: store.append_command(CommandWrite("g2", 1, 0, "draw", 2.0)),
        "kv_put": lambda: store.kv_put([KvRow("stale", "k", 1)]),
        "update_meta": lambda: store.update_meta("g1", {"stale": True}, at=3.0),
    }
    found = []
    for name, attempt in attempts.items():
        try:
            await attempt()
            found.append(name + ":ok")
        except StoreError as exc:
            found.append(name + ":" + exc.code)
    print(" ".join(found), flush=True)
    await store.close()

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def start_holder(path: Path, lease: float = 30.0) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(lease)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ready", (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc


def finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = proc.communicate("go\n", timeout=60)
    return out, err


async def prepared(path: Path) -> None:
    store = SqliteStore(path)
    await store.open()
    await store.create_game(game("g1"))
    await started(store, "g2")
    await store.close()


async def test_a_second_process_is_refused_naming_the_holder(tmp_path: Path):
    path = tmp_path / "rummy.sqlite3"
    await prepared(path)
    holder = start_holder(path)
    try:
        second = SqliteStore(path)
        with pytest.raises(StoreLocked) as caught:
            await second.open()
        message = str(caught.value)
        assert f"process {holder.pid} on host" in message and "since" in message
        assert "\n" not in message and "stop that process" in message
        assert caught.value.holder is not None and caught.value.holder.pid == holder.pid
        assert not second.owned
        # the real CLI: one line, exit 4, no hang
        proc = subprocess.run(
            [sys.executable, "-m", "bot.cli", "soak", "--games", "1", "--db", str(path)],
            capture_output=True,
            text=True,
            timeout=90,
            env=child_env(),
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 4, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and f"in use by process {holder.pid}" in lines[0]
        # verify-db reads the live database without the lease (a report, not "in use")
        check = subprocess.run(
            [sys.executable, "-m", "bot.cli", "verify-db", "--db", str(path), "--json"],
            capture_output=True,
            text=True,
            timeout=90,
            env=child_env(),
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )
        assert check.returncode in (0, 1), check.stderr  # 1: the test's fake snapshot
        assert json.loads(check.stdout)["games"] == 2
        # a read-only reader is not refused and takes nothing
        reader = SqliteStore(path, readonly=True)
        await reader.open()
        assert (await reader.owner()).pid == holder.pid
        assert await reader.game_ids() == ["g1", "g2"]
        await reader.close()
    finally:
        out, _ = finish(holder)
    assert "set_status:ok" in out  # the holder itself could write all along
    assert holder.returncode == 0


RACER = r"""
import asyncio, sys, time
from bot.store import SqliteStore, StoreError

async def main(path, start):
    time.sleep(max(0.0, start - time.time()))  # all racers open at the same moment
    store = SqliteStore(path)
    try:
        await store.open()
    except StoreError as exc:
        print("refused", exc.code, flush=True)
        return
    print("owner", flush=True)
    await asyncio.sleep(2.0)  # hold it while the others try
    await store.close()

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


@pytest.mark.parametrize("start_from", ["no file", "version 1"])
def test_processes_racing_to_open_a_database_get_one_owner(tmp_path: Path, start_from: str):
    """Creating it, or migrating it: either happens once, and one racer owns the result."""
    path = tmp_path / "new" / "rummy.sqlite3"
    if start_from == "version 1":
        path.parent.mkdir()
        with closing(sqlite3.connect(path)) as db:
            db.executescript(MIGRATIONS[0])
            db.execute("PRAGMA user_version = 1")
            db.commit()
    start = time.time() + 1.5
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(path), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for _ in range(4)
    ]
    outcomes = sorted(racer.communicate(timeout=90)[0].strip() for racer in racers)
    assert outcomes == ["owner", "refused locked", "refused locked", "refused locked"], [
        r.stderr for r in racers
    ]
    assert raw(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert raw(path, "SELECT count(*) FROM owner") == [(1,)]


async def test_a_killed_holder_is_taken_over_even_as_a_zombie(tmp_path: Path):
    path = tmp_path / "rummy.sqlite3"
    await prepared(path)
    holder = start_holder(path)
    holder.kill()
    # not reaped yet: the pid still exists as a zombie, which holds nothing
    for _ in range(200):
        if (
            Path(f"/proc/{holder.pid}/stat").exists()
            and " Z " in Path(f"/proc/{holder.pid}/stat").read_text().split(")", 1)[1][:3]
        ):
            break
        time.sleep(0.01)
    store = SqliteStore(path)
    await store.open()
    try:
        assert store.owned
        previous = store.previous_owner
        assert previous is not None and previous.pid == holder.pid
        assert previous.released is None  # it died holding the lease
        assert (await store.owner()).pid == os.getpid()
        await store.set_status("g1", "cancelled", at=T0 + 1)
    finally:
        await store.close()
        holder.wait(timeout=30)


async def test_a_stopped_holder_loses_the_lease_and_can_never_write_again(tmp_path: Path):
    path = tmp_path / "rummy.sqlite3"
    await prepared(path)
    lease = 2.0
    holder = start_holder(path, lease=lease)
    holder.send_signal(signal.SIGSTOP)  # right after "ready": long before its first heartbeat
    try:
        with pytest.raises(StoreLocked):  # stopped, but its heartbeat is still fresh
            await SqliteStore(path, lease_seconds=lease).open()
        await asyncio.sleep(lease + 0.6)
        store = SqliteStore(path, lease_seconds=lease)
        await store.open()  # the heartbeat expired: taken over
        assert store.previous_owner.pid == holder.pid
        await store.append_command(write(1, "g2"))
        holder.send_signal(signal.SIGCONT)
        out, err = finish(holder)
        # every write of the stale process is refused, whatever it tried
        assert out.split()[-5:] == [
            "set_status:lost",
            "set_timer:lost",
            "append:lost",
            "kv_put:lost",
            "update_meta:lost",
        ], err
        # ... and nothing of it reached the database
        g1 = await store.load_game("g1")
        assert (g1.status, g1.meta) == ("lobby", {})
        g2 = await store.load_game("g2")
        assert (g2.seq, g2.deadline) == (1, T0 + 1 + 120)
        assert [c.text for c in await store.commands("g2")] == ["cmd 1"]
        assert await store.kv_items("stale") == []
        assert (await store.owner()).token == store.owner_token  # its close released nothing
        await store.close()
    finally:
        if holder.poll() is None:
            holder.send_signal(signal.SIGCONT)
            holder.kill()
            holder.wait()


async def test_lease_rows_written_by_hand(tmp_path: Path):
    """Who counts as a live holder: a reused pid, another host, another boot, an old heartbeat."""
    path = tmp_path / "rummy.sqlite3"
    first = SqliteStore(path)
    await first.open()
    mine = await first.owner()
    await first.close()
    assert raw(path, "SELECT released FROM owner")[0][0] is not None

    def holder(**columns) -> None:
        values = {
            "token": "other",
            "pid": mine.pid,
            "host": mine.host,
            "boot": mine.boot,
            "started": mine.started,
            "since": time.time() - 60,
            "heartbeat": time.time(),
            "released": None,
        }
        values.update(columns)
        sets = ", ".join(f"{k} = ?" for k in values)
        raw(path, f"UPDATE owner SET {sets}", tuple(values.values()))

    async def outcome() -> str:
        store = SqliteStore(path)
        try:
            await store.open()
        except StoreLocked as exc:
            return "locked: " + str(exc)
        await store.close()
        return "taken"

    holder()  # this very process, through another store object
    assert (await outcome()).startswith("locked: ") and "this very process" in await outcome()
    if mine.started is not None:  # a reused pid: same number, another start time
        holder(started=mine.started + 1)
        assert await outcome() == "taken"
    holder(host="elsewhere", pid=1)  # another machine with a fresh heartbeat
    assert "process 1 on host elsewhere" in await outcome()
    holder(host="elsewhere", pid=1, heartbeat=time.time() - 31)  # ... silent too long
    assert await outcome() == "taken"
    holder(host="elsewhere", pid=1, heartbeat=time.time() + 3600)  # stamped by a clock an hour on
    assert await outcome() == "taken"
    if mine.boot is not None:
        holder(boot="a-boot-before-the-last-reboot")
        assert await outcome() == "taken"
    holder(released=time.time())  # closed cleanly
    assert await outcome() == "taken"
    holder(pid=2**22 + 12345)  # no such process on this machine
    assert await outcome() == "taken"


async def test_open_can_wait_for_a_lease_that_is_about_to_expire(tmp_path: Path):
    """A holder that died on another machine (say a replaced container) holds the lease until
    its heartbeat is ``lease_seconds`` old; ``lease_wait`` waits that out instead of failing."""
    path = tmp_path / "rummy.sqlite3"
    first = SqliteStore(path)
    await first.open()
    await first.close()
    lease = 1.5
    raw(
        path,
        "UPDATE owner SET token = 'gone', pid = 1, host = 'old-container', released = NULL, "
        "heartbeat = ?",
        (time.time(),),
    )
    with pytest.raises(StoreLocked):
        await SqliteStore(path, lease_seconds=lease).open()
    waited = time.monotonic()
    store = SqliteStore(path, lease_seconds=lease, lease_wait=10)
    await store.open()
    assert 0.5 < time.monotonic() - waited < 5
    assert store.previous_owner.host == "old-container"
    await store.close()


def test_lease_options_in_the_database_url():
    store = open_store("sqlite:///data/x.sqlite3?lease_wait=45&lease_seconds=20&synchronous=normal")
    assert (store.lease_wait, store.lease_seconds, store.synchronous) == (45.0, 20.0, "NORMAL")
    for bad in ("sqlite:///x.db?lease_wait=soon", "sqlite:///x.db?leese_wait=4"):
        with pytest.raises(StoreError):
            open_store(bad)


async def test_the_heartbeat_renews_and_close_releases(tmp_path: Path):
    path = tmp_path / "rummy.sqlite3"
    store = SqliteStore(path, lease_seconds=0.3)
    await store.open()
    taken = await store.owner()
    await asyncio.sleep(0.45)
    renewed = await store.owner()
    assert renewed.token == taken.token and renewed.heartbeat > taken.heartbeat
    assert renewed.released is None
    await store.close()
    (released,) = raw(path, "SELECT released, heartbeat FROM owner")
    assert released[0] is not None and released[0] == released[1]
    again = SqliteStore(path)
    await again.open()
    assert again.previous_owner.token == taken.token
    assert again.previous_owner.released == released[0]  # when the last run ended
    await again.close()


# ---------------------------------------------------------------------------- a store of its own
# (guarded writes, the snapshot, read-only stores, stolen leases, quarantine: tests/store_contract/)


@pytest.fixture
async def store(tmp_path: Path):
    s = SqliteStore(tmp_path / "rummy.sqlite3")
    await s.open()
    yield s
    await s.close()


# ---------------------------------------------------------------------------- quarantine, bad rows


async def test_a_row_that_does_not_parse_never_fails_the_whole_load(store: SqliteStore):
    for name in ("a", "b", "c", "d"):
        await store.create_game(game(name))
    raw(Path(store.path), "UPDATE games SET seats = '[{\"oops\"' WHERE id = 'b'")
    raw(Path(store.path), "UPDATE games SET meta = '[1, 2]' WHERE id = 'c'")
    raw(Path(store.path), "UPDATE games SET seats = '[7]' WHERE id = 'd'")
    bad: list[tuple[str, str]] = []
    good = await store.load_unfinished_games(on_bad=lambda g, why: bad.append((g, why)))
    assert [g.id for g in good] == ["a"]
    assert [g for g, _ in bad] == ["b", "c", "d"]
    assert "seats" in bad[0][1] and "meta" in bad[1][1]
    assert [g for g, _ in await store.unreadable_games()] == ["b", "c", "d"]
    with pytest.raises(StoreError) as caught:
        await store.load_game("b")
    assert caught.value.code == "damaged" and "game b" in str(caught.value)
    await store.quarantine("b", "seats do not parse", at=T0)  # works on an unreadable row
    assert [g for g, _ in await store.unreadable_games()] == ["c", "d"]


# ---------------------------------------------------------------------------- migration


async def test_a_version_1_database_is_migrated_with_its_data(tmp_path: Path):
    path = tmp_path / "v1.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version = 1")
        db.execute(
            "INSERT INTO games (id, preset, rules_json, seed, status, created_at, updated_at, "
            "host_id, last_activity, seq) VALUES ('old', 'rummikub', '{}', 3, 'finished', 1, 2, "
            "'h', 2, 1)"
        )
        db.execute("INSERT INTO commands VALUES ('old', 1, 0, 'done', 2)")
        db.execute("INSERT INTO results VALUES ('old', 0, 'h', 5, 1, 1, 'out', 2, '{}')")
        db.execute("INSERT INTO kv VALUES ('ladder_result', 'old', '{\"x\": 1}')")
        db.commit()
    store = SqliteStore(path)
    await store.open()
    assert await store.schema_version() == SCHEMA_VERSION == 3
    old = await store.load_game("old")
    assert (old.status, old.seq, old.seed) == ("finished", 1, 3)
    assert [c.text for c in await store.commands("old")] == ["done"]
    assert (await store.results("old"))[0].points == 5
    assert await store.kv_get("ladder_result", "old") == {"x": 1}
    await store.create_game(game("new"))
    await store.quarantine("new", "test", at=T0)
    await store.close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("DELETE FROM commands")
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert {"games_status", "games_channel", "results_player"} <= indexes


def schema_of(path: Path) -> list[tuple[str, str, str]]:
    """Every table, index and trigger with its columns / SQL words, whitespace aside."""
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
    return [
        (kind, name, " ".join((sql or "").replace("games_v2", "games").split()))
        for kind, name, sql in rows
    ]


async def test_every_start_ends_at_the_same_schema(tmp_path: Path):
    """A new file, a version 0 file (SQLite, no tables yet) and a version 1 file migrated by
    the numbered .sql files all end with the same tables, indexes and triggers."""
    fresh, zero, one = (tmp_path / f"{name}.sqlite3" for name in ("fresh", "zero", "one"))
    with closing(sqlite3.connect(zero)) as db:
        db.execute("VACUUM")  # a valid SQLite file of one empty page: user_version 0
    assert zero.stat().st_size > 0
    with closing(sqlite3.connect(one)) as db:
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version = 1")
        db.commit()
    for path in (fresh, zero, one):
        store = SqliteStore(path)
        await store.open()
        assert await store.schema_version() == SCHEMA_VERSION
        await store.close()
        assert raw(path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert schema_of(zero) == schema_of(fresh)
    # the rebuilt games table keeps its name and columns, not the words of its CREATE
    assert [(k, n) for k, n, _ in schema_of(one)] == [(k, n) for k, n, _ in schema_of(fresh)]
    assert raw(one, "PRAGMA table_info(games)") == raw(fresh, "PRAGMA table_info(games)")


def test_the_migrations_are_numbered_files():
    from bot.store.schema import MIGRATION_FILES, statements

    assert MIGRATION_FILES == (
        "0001_initial.sql",
        "0002_owner_quarantine.sql",
        "0003_shard_leases.sql",
    )
    assert len(MIGRATIONS) == SCHEMA_VERSION
    for script in MIGRATIONS:
        assert list(statements(script))  # every file holds statements, none left incomplete
    with pytest.raises(ValueError, match="incomplete"):
        list(statements("CREATE TABLE x (a INTEGER"))
