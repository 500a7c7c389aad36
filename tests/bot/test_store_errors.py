"""Store errors are StoreErrors (issue 14): a full disk (a real tiny tmpfs, and a database file
at its page limit), a database locked by another writer, a closed store and text SQLite cannot
store never let a raw ``sqlite3`` error or ``UnicodeEncodeError`` out of any store method; a
failed write leaves nothing behind, and the store works again once the cause is gone."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path

import pytest

from bot.store import (
    KvRow,
    PlayerRecord,
    ResultRow,
    Seat,
    SqliteStore,
    StoreConflict,
    StoreError,
    StoreInvalid,
)
from tests.bot.store_helpers import SEATS, T0, fill, game, tmpfs, write

BIG = "x" * 300_000  # more than any free space these tests leave


async def started(store: SqliteStore, game_id: str) -> None:
    await store.create_game(game(game_id))
    await store.start_game(
        game_id, seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=T0 + 120, at=T0
    )


def big_writes(store: SqliteStore) -> dict[str, Callable[[], Awaitable[object]]]:
    """One write of every kind, each too big for the space left."""
    return {
        "create_game": lambda: store.create_game(game("huge", rules_json=BIG)),
        "update_lobby": lambda: store.update_lobby("lobby", SEATS, at=T0, rules_json=BIG),
        "start_game": lambda: store.start_game(
            "lobby", seats=SEATS, seed=1, snapshot_json=BIG, deadline=None, at=T0
        ),
        "append_command": lambda: store.append_command(write(1, "g0", snapshot_json=BIG)),
        "upsert_player": lambda: store.upsert_player(PlayerRecord("p", BIG)),
        "update_meta": lambda: store.update_meta("g1", {"big": BIG}, at=T0),
        "kv_put": lambda: store.kv_put([KvRow("ns", "k", BIG)]),
        "quarantine": lambda: store.quarantine("g2", BIG, at=T0),
    }


async def prepared(store: SqliteStore) -> None:
    for i in range(4):
        await started(store, f"g{i}")
    await store.create_game(game("lobby"))


async def assert_nothing_changed(store: SqliteStore) -> None:
    assert await store.game_ids() == ["g0", "g1", "g2", "g3", "lobby"]
    assert (await store.load_game("g0")).seq == 0 and await store.commands("g0") == []
    assert (await store.load_game("lobby")).status == "lobby"
    assert (await store.load_game("g1")).meta == {}
    assert await store.get_player("p") is None and await store.kv_items("ns") == []
    assert await store.quarantined() == []


async def assert_every_big_write_fails_full(store: SqliteStore) -> None:
    for name, attempt in big_writes(store).items():
        with pytest.raises(StoreError) as caught:
            await attempt()
        assert caught.value.code == "full", (name, caught.value)
        assert "full" in str(caught.value) and "\n" not in str(caught.value)
    # the group commit: a batch of many games' writes, every one a StoreError
    outcomes = await asyncio.gather(
        *(store.append_command(write(1, f"g{i}", snapshot_json=BIG)) for i in range(4)),
        return_exceptions=True,
    )
    assert all(isinstance(o, StoreError) and o.code == "full" for o in outcomes), outcomes
    await assert_nothing_changed(store)


async def assert_every_write_works(store: SqliteStore) -> None:
    for name, attempt in big_writes(store).items():
        await attempt()
        assert store.owned, name
    assert (await store.load_game("g0")).seq == 1
    assert (await store.load_game("lobby")).status == "playing"
    assert (await store.get_player("p")).name == BIG


# ---------------------------------------------------------------------------- a full disk


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A real 8 MB file system (tmpfs); root only."""
    with tmpfs(tmp_path / "tiny", "8m") as mount:
        yield mount


async def test_a_full_disk_is_a_store_error_and_nothing_changes(tiny_disk: Path):
    store = SqliteStore(tiny_disk / "rummy.sqlite3")
    await store.open()
    try:
        await prepared(store)
        filler = fill(tiny_disk)
        await assert_every_big_write_fails_full(store)
        filler.unlink()  # space again: the same store goes on
        await assert_every_write_works(store)
    finally:
        await store.close()
    again = SqliteStore(tiny_disk / "rummy.sqlite3")
    await again.open()
    assert (await again.load_game("g0")).seq == 1
    await again.close()


async def test_opening_on_a_full_disk_is_one_line(tiny_disk: Path):
    fill(tiny_disk)
    store = SqliteStore(tiny_disk / "new.sqlite3")
    with pytest.raises(StoreError) as caught:
        await store.open()
    assert caught.value.code in ("full", "io"), caught.value
    assert "\n" not in str(caught.value)
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["filler"]  # no half-made file left


async def test_a_database_file_at_its_page_limit(tmp_path: Path):
    """SQLITE_FULL without root: the connection's max_page_count caps the file where it is."""
    store = SqliteStore(tmp_path / "rummy.sqlite3")
    await store.open()
    try:
        await prepared(store)

        def cap(conn: sqlite3.Connection, pages: int | None = None) -> int:
            if pages is None:
                pages = conn.execute("PRAGMA page_count").fetchone()[0] + 2
            return conn.execute(f"PRAGMA max_page_count = {pages}").fetchone()[0]

        await store._call(cap, "test: cap the file")
        await assert_every_big_write_fails_full(store)
        await store._call(lambda c: cap(c, 1_000_000), "test: lift the cap")
        await assert_every_write_works(store)
    finally:
        await store.close()


# ---------------------------------------------------------------------------- locked


async def test_a_database_locked_by_another_writer(tmp_path: Path):
    path = tmp_path / "rummy.sqlite3"
    store = SqliteStore(path, busy_timeout=0.2)
    await store.open()
    try:
        await prepared(store)
        with closing(sqlite3.connect(path, isolation_level=None)) as other:
            other.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
            for name, attempt in {
                "append": lambda: store.append_command(write(1, "g0")),
                "kv": lambda: store.kv_put([KvRow("ns", "k", 1)]),
                "status": lambda: store.set_status("lobby", "cancelled", at=T0),
            }.items():
                with pytest.raises(StoreError) as caught:
                    await attempt()
                assert caught.value.code == "busy", (name, caught.value)
                assert "locked" in str(caught.value)
            second = SqliteStore(path, busy_timeout=0.2)  # opening waits for it too
            with pytest.raises(StoreError) as caught:
                await second.open()
            assert caught.value.code == "busy"
            other.execute("ROLLBACK")
        await store.append_command(write(1, "g0"))
        assert (await store.load_game("g0")).seq == 1
    finally:
        await store.close()


# ---------------------------------------------------------------------------- closed


async def test_a_closed_store_says_so(tmp_path: Path):
    store = SqliteStore(tmp_path / "rummy.sqlite3")
    await store.open()
    await prepared(store)
    await store.close()
    for attempt in (
        lambda: store.load_game("g0"),
        lambda: store.game_ids(),
        lambda: store.append_command(write(1, "g0")),
        lambda: store.kv_put([KvRow("a", "b", 1)]),
        lambda: store.set_timer("g0", deadline=None, reminder_sent=False),
    ):
        with pytest.raises(StoreError) as caught:
            await attempt()
        assert caught.value.code == "closed"
    await store.close()  # twice is fine


# ---------------------------------------------------------------------------- hostile values

LONE = "\ud83d"  # half of a surrogate pair: Python text, but not encodable


@pytest.fixture
async def store(tmp_path: Path):
    s = SqliteStore(tmp_path / "rummy.sqlite3")
    await s.open()
    await prepared(s)
    yield s
    await s.close()


async def test_lone_surrogates_are_refused_before_any_io(store: SqliteStore):
    attempts = {
        "game id": lambda: store.create_game(game("g" + LONE)),
        "host id": lambda: store.create_game(game("h", host_id="host" + LONE)),
        "seat name": lambda: store.create_game(game("s", seats=(Seat("a", "Ann" + LONE),))),
        "guild id": lambda: store.create_game(game("u", guild_id=LONE)),
        "display name": lambda: store.upsert_player(PlayerRecord("p", "Name" + LONE)),
        "player id": lambda: store.get_player(LONE),
        "load": lambda: store.load_game(LONE),
        "commands": lambda: store.commands(LONE),
        "results": lambda: store.results(LONE),
        "lobby seats": lambda: store.update_lobby("lobby", (Seat(LONE, "x"),), at=T0),
        "command text": lambda: store.append_command(write(1, "g0", text="meld " + LONE)),
        "command game": lambda: store.append_command(write(1, LONE)),
        "kv key": lambda: store.kv_put([KvRow("ns", LONE, 1)]),
        "kv value": lambda: store.kv_put([KvRow("ns", "k", {"name": LONE})]),
        "kv get": lambda: store.kv_get("ns", LONE),
        "meta": lambda: store.update_meta("g1", {"note": LONE}, at=T0),
        "status game": lambda: store.set_status(LONE, "cancelled", at=T0),
        "quarantine": lambda: store.quarantine("g1", "why " + LONE, at=T0),
        "huge seed": lambda: store.create_game(game("big", seed=2**70)),
    }
    for name, attempt in attempts.items():
        with pytest.raises(StoreInvalid) as caught:
            await attempt()
        assert isinstance(caught.value, ValueError), name
        assert caught.value.code == "invalid" and "\n" not in str(caught.value), name
    assert await store.game_ids() == ["g0", "g1", "g2", "g3", "lobby"]
    assert await store.kv_items("ns") == [] and await store.get_player("p") is None
    assert (await store.load_game("g0")).seq == 0


async def test_a_bad_write_in_a_group_commit_fails_alone(store: SqliteStore):
    """A snapshot (or result row) SQLite cannot encode fails its own write, not its batch."""
    result = ResultRow("g2", 0, "alice" + LONE, 1.0, 1, True, "out", T0)
    outcomes = await asyncio.gather(
        store.append_command(write(1, "g0")),
        store.append_command(write(1, "g1", snapshot_json='{"name":"' + LONE + '"}')),
        store.append_command(write(1, "g2", status="finished", results=(result,))),
        store.append_command(write(1, "g3")),
        return_exceptions=True,
    )
    assert outcomes[0] is None and outcomes[3] is None
    assert isinstance(outcomes[1], StoreInvalid) and isinstance(outcomes[2], StoreInvalid)
    assert [(await store.load_game(g)).seq for g in ("g0", "g1", "g2", "g3")] == [1, 0, 0, 1]


async def test_unknown_statuses_are_refused(store: SqliteStore):
    with pytest.raises(StoreInvalid):
        await store.set_status("g1", "won", at=T0)  # type: ignore[arg-type]
    with pytest.raises(StoreInvalid):
        await store.set_status("g1", "quarantined", at=T0)  # quarantine() does that
    with pytest.raises(StoreInvalid):
        await store.set_status("g1", "cancelled", at=T0, expect=("playing", "gone"))  # type: ignore[arg-type]
    with pytest.raises(StoreConflict):  # a duplicate game id is still a conflict
        await store.create_game(game("g1"))
