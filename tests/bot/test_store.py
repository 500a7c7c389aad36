"""The SQLite store on real files: schema, games, the command log, results, key/value data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import (
    SCHEMA_VERSION,
    GameRecord,
    KvRow,
    PlayerRecord,
    SqliteStore,
    StoreConflict,
    StoreError,
    open_store,
)
from tests.bot.store_helpers import SEATS, T0, write
from tests.bot.store_helpers import game as lobby_game


def game(game_id: str = "g1", **changes) -> GameRecord:
    """The helpers' lobby game, in a guild's channel."""
    return lobby_game(game_id, **{"guild_id": "guild", "channel_id": "chan", **changes})


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
    # postgresql:// (and postgres://) URLs open the PostgreSQL store since issue 17
    assert type(open_store("postgres://h/db")).__name__ == "PostgresStore"
    for bad in ("mysql://h/db", "data.sqlite3", "sqlite://x.db"):
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
