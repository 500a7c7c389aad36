"""Bad database files (issue 14): every one is refused at open with ONE line saying what is wrong
and what to do, the file is left exactly as it was, no connection thread is left behind, and the
real ``rummy-bot`` processes print that line and exit 3 instead of hanging."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from bot.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    GameRecord,
    Seat,
    SqliteStore,
    StoreError,
)
from tests.bot.store_helpers import tmpfs

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000.0


def game(game_id: str) -> GameRecord:
    return GameRecord(
        id=game_id,
        preset="rummikub",
        rules_json='{"preset":"rummikub","padding":"' + "x" * 2000 + '"}',
        seed=7,
        status="lobby",
        host_id="alice",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=(Seat("alice", "Alice"),),
    )


def good_database(path: Path, games: int = 60) -> None:
    async def build() -> None:
        store = SqliteStore(path)
        await store.open()
        for i in range(games):
            await store.create_game(game(f"g{i:03d}"))
        await store.close()

    # in a thread of its own: the makers also run inside the async tests' event loop
    worker = threading.Thread(target=lambda: asyncio.run(build()))
    worker.start()
    worker.join()
    assert not Path(f"{path}-wal").exists()  # a clean close merged the WAL


# ---------------------------------------------------------------------------- the bad files
# each maker writes the bad file at path; the code the store must answer with


def make_random(path: Path) -> None:
    path.write_bytes(random.Random(14).randbytes(8192))


def make_damaged_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(15).randbytes(4080))


def make_truncated(path: Path) -> None:
    good_database(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


CRASHING_WRITER = """
import asyncio, os, signal, sys
from bot.store import GameRecord, SqliteStore

async def main():
    store = SqliteStore(sys.argv[1])
    await store.open()
    for i in range(5):
        await store.create_game(GameRecord(f"new{i}", "rummikub", "{}", 1, "lobby", "h", 0, 0, 0))
    os.kill(os.getpid(), signal.SIGKILL)  # dies with its last commits only in the -wal file

asyncio.run(main())
"""


def make_truncated_after_a_crash(path: Path) -> None:
    good_database(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(path)], env=env, timeout=60)
    assert Path(f"{path}-wal").stat().st_size > 0
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def make_future(path: Path) -> None:
    good_database(path, games=2)
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
        db.commit()


def make_foreign_tables(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.execute("INSERT INTO invoices (total) VALUES (12.5)")
        db.commit()


def make_foreign_application(path: Path) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA application_id = 1234567")
        db.execute("PRAGMA user_version = 1")
        db.execute("CREATE TABLE games (id TEXT)")
        db.commit()


def make_missing_table(path: Path) -> None:
    good_database(path, games=2)
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TABLE kv")
        db.commit()


def make_zero_bytes(path: Path) -> None:
    path.write_bytes(b"")


def make_read_only(path: Path) -> None:
    good_database(path, games=2)
    path.chmod(0o444)


def make_directory(path: Path) -> None:
    path.mkdir()


BAD_FILES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    # name: (maker, code, words the one line must contain)
    "random bytes": (make_random, "corrupt", "not a SQLite database"),
    "damaged header": (make_damaged_header, "corrupt", "damaged"),
    "truncated": (make_truncated, "corrupt", "truncated"),
    "truncated after a crash": (make_truncated_after_a_crash, "corrupt", "damaged"),
    "future user_version": (make_future, "future", "newer than this program"),
    "foreign tables": (make_foreign_tables, "foreign", "another program"),
    "foreign application_id": (make_foreign_application, "foreign", "another program"),
    "missing table": (make_missing_table, "damaged", "missing"),
    "0-byte file": (make_zero_bytes, "empty", "empty file (0 bytes)"),
    "read-only file": (make_read_only, "readonly", "read-only"),
    "directory": (make_directory, "foreign", "not a regular file"),
}


def snapshot_of(path: Path) -> dict[str, bytes | None]:
    """The bytes of the file and its -wal/-journal companions (None: absent or empty, as a
    reader may leave an empty -wal behind). The -shm file is
    left out: it is SQLite's shared-memory index, which every reader writes to."""
    files = {}
    for suffix in ("", "-wal", "-journal"):
        p = Path(f"{path}{suffix}")
        files[suffix] = (p.read_bytes() if p.is_file() else b"") or None  # empty = absent
    return files


def worker_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
async def test_a_bad_file_is_refused_in_one_line_and_left_alone(tmp_path: Path, name: str):
    maker, code, words = BAD_FILES[name]
    path = tmp_path / "rummy.sqlite3"
    maker(path)
    before = snapshot_of(path) if path.is_file() else None
    threads = worker_threads()
    store = SqliteStore(path)
    with pytest.raises(StoreError) as caught:
        await store.open()
    error = caught.value
    assert error.code == code, str(error)
    message = str(error)
    assert words in message and "\n" not in message
    assert str(path) in message
    if code in ("corrupt", "damaged", "empty"):
        assert "restore a backup" in message and "verify-db" in message
    assert not store.owned
    await asyncio.sleep(0.05)  # let a stopping thread finish
    assert worker_threads() <= threads, "a failed open left a thread running"
    if before is not None:
        assert snapshot_of(path) == before, "a refused file was changed"
    await store.close()  # closing a store that never opened is harmless


async def test_a_zero_byte_file_is_taken_only_when_asked(tmp_path: Path):
    path = tmp_path / "empty.sqlite3"
    path.write_bytes(b"")
    store = SqliteStore(path, init_empty=True)
    await store.open()
    await store.create_game(game("g1"))
    await store.close()
    again = SqliteStore(path)  # no longer empty: a normal database now
    await again.open()
    assert await again.game_ids() == ["g1"]
    await again.close()


async def test_a_missing_file_is_created_unless_create_is_false(tmp_path: Path):
    path = tmp_path / "deep" / "new.sqlite3"
    with pytest.raises(StoreError) as caught:
        await SqliteStore(path, create=False).open()
    assert caught.value.code == "missing" and not path.exists()
    with pytest.raises(StoreError) as caught:
        await SqliteStore(path, readonly=True).open()
    assert caught.value.code == "missing" and not path.exists()
    store = SqliteStore(path)
    await store.open()
    await store.close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_read_only_file_can_still_be_read_read_only(tmp_path: Path):
    path = tmp_path / "ro.sqlite3"
    make_read_only(path)
    before = snapshot_of(path)
    store = SqliteStore(path, readonly=True)
    await store.open()
    assert await store.game_ids() == ["g000", "g001"]
    async with store.snapshot() as snap:
        assert (await snap.load_game("g001")).host_id == "alice"
    with pytest.raises(StoreError) as caught:
        await store.create_game(game("new"))
    assert caught.value.code == "readonly"
    await store.close()
    assert snapshot_of(path) == before


@pytest.fixture
def read_only_mount(tmp_path: Path):
    """A real read-only file system (a tmpfs remounted read-only); root only."""
    with tmpfs(tmp_path / "media", "4m") as mount:
        yield mount


async def test_a_database_on_read_only_media(read_only_mount: Path):
    path = read_only_mount / "rummy.sqlite3"
    good_database(path, games=3)
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_mount)], check=True)
    writer = SqliteStore(path)
    with pytest.raises(StoreError) as caught:
        await writer.open()
    assert caught.value.code == "readonly" and "read-only" in str(caught.value)
    reader = SqliteStore(path, readonly=True)  # verify-db can still read it
    await reader.open()
    async with reader.snapshot() as snap:
        assert await snap.game_ids() == ["g000", "g001", "g002"]
    await reader.close()


# ---------------------------------------------------------------------------- real processes


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,  # a process that hangs fails the test instead of the suite
        stdin=subprocess.DEVNULL,
    )


def assert_one_line(proc: subprocess.CompletedProcess[str], path: Path, words: str) -> None:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("rummy-bot: ") and str(path) in lines[0] and words in lines[0]
    assert "Traceback" not in proc.stderr


CLI_FILES = [
    "random bytes",
    "truncated",
    "truncated after a crash",
    "future user_version",
    "foreign tables",
    "0-byte file",
]


@pytest.mark.parametrize("name", CLI_FILES)
def test_soak_and_verify_db_exit_with_one_line(tmp_path: Path, name: str):
    maker, _code, words = BAD_FILES[name]
    path = tmp_path / "bad.sqlite3"
    maker(path)
    before = snapshot_of(path)
    for command in (["soak", "--games", "1", "--db", str(path)], ["verify-db", "--db", str(path)]):
        proc = run_cli(*command, cwd=tmp_path)
        assert proc.returncode == 3, (command, proc.returncode, proc.stderr)
        assert_one_line(proc, path, words)
        assert proc.stdout == ""
    assert snapshot_of(path) == before


def test_the_console_exits_with_one_line(tmp_path: Path):
    path = tmp_path / "bad.sqlite3"
    make_random(path)
    proc = run_cli("--console", "--no-pictures", "--db", f"sqlite:///{path}", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert_one_line(proc, path, "not a SQLite database")


def test_soak_refuses_a_zero_byte_file_unless_told_to_init_it(tmp_path: Path):
    path = tmp_path / "zero.sqlite3"
    path.write_bytes(b"")
    refused = run_cli("soak", "--games", "1", "--db", str(path), cwd=tmp_path)
    assert refused.returncode == 3 and path.stat().st_size == 0
    assert_one_line(refused, path, "--init-empty")
    made = run_cli(
        "soak", "--games", "1", "--db", str(path), "--init-empty", "--json", cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    assert '"games_finished": 1' in made.stdout


def test_a_connection_left_open_by_a_bug_does_not_hang_the_cli(tmp_path: Path):
    """The CLI's safety net: a store connection's thread still running at the end is given a
    moment, then the process exits anyway (one line, exit 3) instead of hanging for ever."""
    script = (
        "import asyncio\n"
        "from bot import cli\n"
        "from bot.store import SqliteStore\n"
        "kept = []\n"
        "async def leak():\n"
        "    store = SqliteStore(':memory:')\n"
        "    await store.open()  # never closed: its thread runs\n"
        "    kept.append(store)\n"
        "asyncio.run(leak())\n"
        "cli._leave_no_database_thread(0, wait=0.5)\n"
        "print('not reached')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr.strip() == (
        "rummy-bot: a database connection was left open; exiting without waiting for it"
    )
