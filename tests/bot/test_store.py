"""The SQLite store on real files: schema, games, the command log, results, key/value data."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.store import (
    SCHEMA_VERSION,
    CommandWrite,
    GameRecord,
    KvRow,
    PlayerRecord,
    ResultRow,
    Seat,
    SqliteStore,
    StoreConflict,
    StoreError,
    open_store,
)

T0 = 1_700_000_000.0


def game(game_id: str = "g1", **changes) -> GameRecord:
    base = dict(
        id=game_id,
        preset="rummikub",
        rules_json='{"preset":"rummikub"}',
        seed=7,
        status="lobby",
        host_id="alice",
        created_at=T0,
        updated_at=T0,
        last_activity=T0,
        seats=(Seat("alice", "Alice"),),
        guild_id="guild",
        channel_id="chan",
    )
    base.update(changes)
    return GameRecord(**base)


SEATS = (Seat("alice", "Alice"), Seat("bot:easy:1", "Computer 1", True, "easy"))


@pytest.fixture
async def store(tmp_path: Path):
    s = SqliteStore(tmp_path / "db" / "rummy.sqlite3")
    await s.open()
    yield s
    await s.close()


async def started(store: SqliteStore, game_id: str = "g1") -> None:
    await store.create_game(game(game_id))
    await store.start_game(
        game_id, seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=T0 + 120, at=T0
    )


def write(seq: int, game_id: str = "g1", **changes) -> CommandWrite:
    base = dict(
        game_id=game_id,
        seq=seq,
        seat=0,
        text=f"cmd {seq}",
        at=T0 + seq,
        deadline=T0 + seq + 120,
        snapshot_json=f'{{"after":{seq}}}',
    )
    base.update(changes)
    return CommandWrite(**base)


async def test_open_creates_schema_in_wal_mode(tmp_path: Path):
    path = tmp_path / "new" / "file.sqlite3"
    store = SqliteStore(path)
    await store.open()
    assert await store.schema_version() == SCHEMA_VERSION
    await store.upsert_player(PlayerRecord("p", "P"))
    assert Path(f"{path}-wal").exists()
    await store.close()
    # opening again runs no migration twice and keeps the data
    again = SqliteStore(path)
    await again.open()
    assert await again.schema_version() == SCHEMA_VERSION
    assert await again.get_player("p") == PlayerRecord("p", "P", "en", False)
    await again.close()


async def test_newer_schema_is_refused(tmp_path: Path):
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store = SqliteStore(path)
    with pytest.raises(StoreError, match="newer"):
        await store.open()
    await store.close()


def test_urls(tmp_path: Path):
    rel = open_store("sqlite:///data/x.sqlite3")
    assert isinstance(rel, SqliteStore) and rel.path == "data/x.sqlite3"
    absolute = open_store(f"sqlite:///{tmp_path}/y.sqlite3")
    assert absolute.path == f"{tmp_path}/y.sqlite3"
    assert open_store("sqlite:///:memory:").path == ":memory:"
    assert open_store("sqlite:///a.db?synchronous=normal").synchronous == "NORMAL"
    for bad in ("postgres://h/db", "data.sqlite3", "sqlite://x.db"):
        with pytest.raises(StoreError):
            open_store(bad)


async def test_players_upsert(store: SqliteStore):
    assert await store.get_player("x") is None
    await store.upsert_player(PlayerRecord("x", "Xaver", "de"))
    await store.upsert_player(PlayerRecord("x", "Xavier", "de-DE"))
    assert await store.get_player("x") == PlayerRecord("x", "Xavier", "de-DE", False)


async def test_game_round_trip_and_duplicate(store: SqliteStore):
    record = game(meta={"note": "hi"})
    await store.create_game(record)
    assert await store.load_game("g1") == record
    with pytest.raises(StoreConflict):
        await store.create_game(record)
    assert await store.load_game("nope") is None


async def test_lobby_then_start(store: SqliteStore):
    await store.create_game(game())
    await store.update_lobby("g1", SEATS, at=T0 + 1)
    assert (await store.load_game("g1")).seats == SEATS
    await store.start_game("g1", seats=SEATS, seed=9, snapshot_json="{}", deadline=None, at=T0 + 2)
    loaded = await store.load_game("g1")
    assert (loaded.status, loaded.seed, loaded.seq, loaded.snapshot_seq) == ("playing", 9, 0, 0)
    with pytest.raises(StoreConflict):
        await store.start_game("g1", seats=SEATS, seed=9, snapshot_json="{}", deadline=None, at=0)
    with pytest.raises(StoreConflict):
        await store.update_lobby("g1", SEATS, at=T0)


async def test_append_command_is_one_transaction_with_its_effects(store: SqliteStore):
    await started(store)
    await store.append_command(write(1))
    loaded = await store.load_game("g1")
    assert (loaded.seq, loaded.snapshot_seq, loaded.snapshot_json) == (1, 1, '{"after":1}')
    assert loaded.deadline == T0 + 121 and loaded.last_activity == T0 + 1
    # without a snapshot the old one stays, and a non-activity command keeps last_activity
    await store.append_command(write(2, snapshot_json=None, activity=False))
    loaded = await store.load_game("g1")
    assert (loaded.seq, loaded.snapshot_seq, loaded.last_activity) == (2, 1, T0 + 1)
    assert [(c.seq, c.text) for c in await store.commands("g1")] == [(1, "cmd 1"), (2, "cmd 2")]
    assert [c.seq for c in await store.commands("g1", after_seq=1)] == [2]


@pytest.mark.parametrize("seq", [2, 4])
async def test_a_repeated_or_skipped_seq_is_refused(store: SqliteStore, seq: int):
    await started(store)
    await store.append_command(write(1))
    await store.append_command(write(2))
    with pytest.raises(StoreConflict):
        await store.append_command(write(seq, text="again"))
    assert [c.text for c in await store.commands("g1")] == ["cmd 1", "cmd 2"]
    assert (await store.load_game("g1")).seq == 2


async def test_group_commit_isolates_a_bad_write(store: SqliteStore):
    for k in range(20):
        await started(store, f"g{k}")
    good = [store.append_command(write(1, f"g{k}")) for k in range(20)]
    bad = store.append_command(write(5, "g3"))
    results = await asyncio.gather(*good, bad, return_exceptions=True)
    assert all(r is None for r in results[:20])
    assert isinstance(results[20], StoreConflict)
    for k in range(20):
        assert (await store.load_game(f"g{k}")).seq == 1


async def test_a_batch_of_many_games_is_written_row_for_row(store: SqliteStore):
    # one multi-row statement per batch: every game still gets exactly its own values
    for k in range(30):
        await started(store, f"g{k}")
    await asyncio.gather(
        *(
            store.append_command(
                write(
                    1,
                    f"g{k}",
                    text=f"t{k}",
                    snapshot_json=None if k % 2 else f"[{k}]",
                    activity=k % 3 != 0,
                    deadline=None if k % 5 == 0 else T0 + k,
                )
            )
            for k in range(30)
        )
    )
    for k in range(30):
        loaded = await store.load_game(f"g{k}")
        assert loaded.seq == 1
        assert loaded.snapshot_seq == (0 if k % 2 else 1)
        assert loaded.snapshot_json == ('{"deal":1}' if k % 2 else f"[{k}]")
        assert loaded.last_activity == (T0 if k % 3 == 0 else T0 + 1)
        assert loaded.deadline == (None if k % 5 == 0 else T0 + k)
        assert [c.text for c in await store.commands(f"g{k}")] == [f"t{k}"]


async def test_two_commands_of_one_game_in_one_batch_go_in_order(store: SqliteStore):
    await started(store)
    await store.append_command(write(1))
    await asyncio.gather(store.append_command(write(2)), store.append_command(write(3)))
    assert [c.seq for c in await store.commands("g1")] == [1, 2, 3]
    assert (await store.load_game("g1")).seq == 3


async def test_finishing_write_stores_results_and_ladder_rows(store: SqliteStore):
    await started(store)
    rows = tuple(
        ResultRow("g1", seat, pid, points, rank, rank == 1, "out", T0 + 1, {"left": []})
        for seat, pid, points, rank in ((0, "alice", 12.0, 1), (1, "bot:easy:1", -12.0, 2))
    )
    kv = (KvRow("ladder", "guild:rummikub", {"games": 1}),)
    await store.append_command(write(1, status="finished", deadline=None, results=rows, kv=kv))
    loaded = await store.load_game("g1")
    assert loaded.status == "finished" and loaded.deadline is None
    assert await store.results("g1") == list(rows)
    assert await store.kv_get("ladder", "guild:rummikub") == {"games": 1}
    assert await store.load_unfinished_games() == []
    # a finished game takes no more commands
    with pytest.raises(StoreConflict):
        await store.append_command(write(2))


async def test_a_failed_finishing_write_leaves_nothing(store: SqliteStore):
    await started(store)
    rows = (ResultRow("g1", 0, "alice", 1.0, 1, True, "out", T0),) * 2  # duplicate seat
    with pytest.raises(StoreConflict):  # a StoreError, never a raw sqlite3 error
        await store.append_command(write(1, status="finished", results=rows))
    loaded = await store.load_game("g1")
    assert (loaded.status, loaded.seq) == ("playing", 0)
    assert await store.commands("g1") == [] and await store.results("g1") == []


async def test_unfinished_games_timer_status_meta(store: SqliteStore):
    await started(store, "a")
    await store.create_game(game("b", created_at=T0 + 5))
    await store.create_game(game("c", created_at=T0 + 6))
    await store.set_status("c", "cancelled", at=T0 + 7)
    assert [g.id for g in await store.load_unfinished_games()] == ["a", "b"]
    assert await store.game_ids("cancelled") == ["c"]
    await store.set_timer("a", deadline=T0 + 999, reminder_sent=True)
    loaded = await store.load_game("a")
    assert (loaded.deadline, loaded.reminder_sent) == (T0 + 999, True)
    await store.update_meta("a", {"rematch": "z"}, at=T0)
    assert (await store.load_game("a")).meta == {"rematch": "z"}


async def test_kv(store: SqliteStore):
    await store.kv_put([KvRow("guild", "1", {"lang": "de"}), KvRow("guild", "2", [1, 2])])
    await store.kv_put([KvRow("guild", "1", {"lang": "en"})])
    assert await store.kv_get("guild", "1") == {"lang": "en"}
    assert await store.kv_get("guild", "3") is None
    assert [r.key for r in await store.kv_items("guild")] == ["1", "2"]


async def test_data_survives_reopen(tmp_path: Path):
    path = tmp_path / "r.sqlite3"
    first = SqliteStore(path)
    await first.open()
    await started(first)
    await first.append_command(write(1))
    await first.close()
    second = open_store(f"sqlite:///{path}")
    await second.open()
    assert [c.text for c in await second.commands("g1")] == ["cmd 1"]
    assert (await second.load_game("g1")).snapshot_json == '{"after":1}'
    await second.close()
