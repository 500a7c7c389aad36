"""The game service under attack (issue 14), on real SQLite files.

- a ``handle()`` cancelled at random moments (also during its commit) never leaves memory and
  disk apart, and later moves still save;
- a write refused because someone else wrote the game reloads the game (the player hears
  "could not be saved, nothing changed"); a lost owner lease drops every game;
- a damaged game (malformed seats or meta, a snapshot that does not fit, a duplicated piece, a
  log shorter than ``seq``) is quarantined while every other game plays on, and ``verify-db``
  lists it; an error in the middle of a final move rolls memory back with the database;
- a full disk (a real tiny tmpfs) is answered "could not be saved, nothing changed";
- hostile strings and wrong types at the entry get typed errors in English and German.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig, ServiceError
from bot.service.replay import restore
from bot.service.soak import verify_db, verify_game
from bot.store import CommandWrite, SqliteStore, StoreConflict
from i18n import error_text
from tests.bot.store_helpers import fill, tmpfs

T0 = 1_700_000_000.0


class Harness:
    """A store, a service with a manual clock, and everything the sink received."""

    def __init__(self, path: Path, **config) -> None:
        self.path = path
        self.clock = ManualClock(T0)
        self.config = ServiceConfig(pictures=False, bot_pause=0.0, **config)
        self.sent: list = []
        self.store: SqliteStore | None = None
        self.service: GameService | None = None

    async def open(self, cls: type[GameService] = GameService, **kwargs) -> GameService:
        self.store = SqliteStore(self.path)
        await self.store.open()
        self.service = cls(
            self.store, config=self.config, clock=self.clock, sink=self.sent.extend, **kwargs
        )
        await self.service.start(run_timers=False)
        return self.service

    async def close(self) -> None:
        if self.service is not None:
            await self.service.stop()
        if self.store is not None:
            await self.store.close()
        self.service = self.store = None


@pytest.fixture
async def make(tmp_path: Path):
    """Harnesses on files in tmp_path, closed at the end even when the test fails (an open
    store's thread would keep the test process alive)."""
    made: list[Harness] = []

    def factory(name: str, **config) -> Harness:
        made.append(Harness(tmp_path / name, **config))
        return made[-1]

    yield factory
    for harness in made:
        await harness.close()


@pytest.fixture
async def h(make):
    harness = make("faults.sqlite3")
    await harness.open()
    return harness


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


async def people(service: GameService) -> None:
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "de")


async def two_player_game(service: GameService, seed: int = 1, game_id: str | None = None) -> str:
    await people(service)
    made, _ = await service.create_game("alice", "rummikub", seed=seed, game_id=game_id)
    assert made
    assert not errors(await service.join(made, "bob"))
    assert not errors(await service.start_game(made, "alice"))
    return made


def to_move(service: GameService, game_id: str) -> str:
    live = service.registry.games[game_id]
    return live.seats[live.state.current].player_id


async def assert_memory_is_disk(service: GameService, store: SqliteStore, game_id: str) -> None:
    """The live game is exactly what the database holds (state JSON and seq)."""
    record = await store.load_game(game_id)
    live = service.registry.games.get(game_id)
    if record.status != "playing":
        assert live is None, f"{game_id}: {record.status} on disk, live in memory"
        return
    assert live is not None, f"{game_id}: playing on disk, not in memory"
    stored = restore(record, await store.commands(game_id, after_seq=record.snapshot_seq))
    assert live.seq == record.seq
    assert live.state.to_json() == stored.to_json() == live.json


# ------------------------------------------------------------------------------ cancellation


async def test_random_cancellations_never_leave_memory_and_disk_apart(h: Harness):
    s = h.service
    rng = random.Random(14)
    games = [await two_player_game(s, seed=i, game_id=f"c{i}") for i in range(1, 4)]
    cancelled_after_commit = 0
    for _ in range(200):
        game_id = rng.choice([g for g in games if s.status(g) == "playing"])
        before = (await h.store.load_game(game_id)).seq
        task = asyncio.ensure_future(s.handle(game_id, to_move(s, game_id), "draw"))
        await asyncio.sleep(rng.uniform(0, 0.004))
        task.cancel()
        result = (await asyncio.gather(task, return_exceptions=True))[0]
        after = (await h.store.load_game(game_id)).seq
        if isinstance(result, asyncio.CancelledError) and after == before + 1:
            cancelled_after_commit += 1
        await assert_memory_is_disk(s, h.store, game_id)
    assert cancelled_after_commit > 0  # some cancellations did hit a queued write
    # later moves still save, and every game replays
    for game_id in games:
        if s.status(game_id) == "playing":
            seq = (await h.store.load_game(game_id)).seq
            assert not errors(await s.handle(game_id, to_move(s, game_id), "draw"))
            assert (await h.store.load_game(game_id)).seq == seq + 1
            await assert_memory_is_disk(s, h.store, game_id)
        assert await verify_game(h.store, await h.store.load_game(game_id)) == []


async def test_a_cancelled_commit_acknowledges_only_its_own_log_row(h: Harness):
    """A caller cancelled during its commit reads the outcome back: it acknowledges the write
    only if the log row at its seq is its own (seat, text, time), never a command another
    process logged at that seq meanwhile (a game taken over while this process was paused)."""
    s = h.service
    game_id = await two_player_game(s)
    other = restore(await h.store.load_game(game_id), [])
    seat = other.current
    other.apply(seat, "draw")
    theirs = CommandWrite(game_id, 1, seat, "draw", T0 + 5, snapshot_json=other.to_json())
    ours = CommandWrite(game_id, 1, seat, "draw", T0 + 1, snapshot_json=other.to_json())
    real_append = h.store.append_command

    async def taken_over(write: CommandWrite) -> None:  # ours never lands; theirs does
        await real_append(theirs)
        raise asyncio.CancelledError

    h.store.append_command = taken_over
    try:
        error, cancelled = await s.pipeline._commit(ours)
    finally:
        h.store.append_command = real_append
    assert cancelled and isinstance(error, StoreConflict), error

    # the same read-back acknowledges a write that did land before the caller was cancelled
    other.apply(other.current, "draw")
    landed = CommandWrite(game_id, 2, other.current, "draw", T0 + 6, snapshot_json=other.to_json())

    async def landed_then_cancelled(write: CommandWrite) -> None:
        await real_append(write)
        raise asyncio.CancelledError

    h.store.append_command = landed_then_cancelled
    try:
        assert await s.pipeline._commit(landed) == (None, True)
    finally:
        h.store.append_command = real_append


# ------------------------------------------------------------------------------ races


async def test_a_refused_write_reloads_the_game(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    live = s.registry.games[game_id]
    # someone else writes the game behind the service's back (a stale process, a second bot)
    other = restore(await h.store.load_game(game_id), [])
    seat = other.current
    other.apply(seat, "draw")
    await h.store.append_command(
        CommandWrite(game_id, 1, seat, "draw", T0, snapshot_json=other.to_json())
    )
    player = live.seats[seat].player_id
    (reply,) = errors(await s.handle(game_id, player, "draw"))
    assert reply.code == "service.store" and "nothing changed" in reply.text
    # the stale copy is gone: memory is the database's game, and the next move saves
    await assert_memory_is_disk(s, h.store, game_id)
    assert s.registry.games[game_id].seq == 1
    assert not errors(await s.handle(game_id, to_move(s, game_id), "draw"))
    assert (await h.store.load_game(game_id)).seq == 2
    await assert_memory_is_disk(s, h.store, game_id)


async def test_stale_timers_never_change_a_game(make):
    h = make("stale.sqlite3", lobby_expiry=3600.0)
    s = await h.open()
    game_id = await two_player_game(s)
    lobby, _ = await s.create_game("alice", "rummikub")
    # another process moved the game on and started the lobby's game (here: behind our back)
    other = restore(await h.store.load_game(game_id), [])
    seat = other.current
    other.apply(seat, "draw")
    later = T0 + 100
    await h.store.append_command(
        CommandWrite(
            game_id, 1, seat, "draw", later, deadline=later + 120, snapshot_json=other.to_json()
        )
    )
    edit(h.path, "UPDATE games SET status = 'cancelled' WHERE id = ?", lobby)
    h.clock.advance(3600)  # the stale copy's reminder and the lobby's expiry are due
    out = await s.run_due()
    assert [m for m in out if m.game_id == game_id] == []
    stored = await h.store.load_game(game_id)
    assert stored.deadline == later + 120 and not stored.reminder_sent  # not rewritten
    await assert_memory_is_disk(s, h.store, game_id)  # the stale copy was dropped and reloaded
    assert s.status(lobby) is None  # the cancelled lobby is gone from memory
    assert (await h.store.load_game(lobby)).status == "cancelled"


async def test_a_lost_owner_lease_drops_every_game(h: Harness, caplog):
    s = h.service
    first = await two_player_game(s, seed=1)
    second = await two_player_game(s, seed=2)
    # another process takes the database over (its token in the owner row)
    with sqlite3.connect(h.path) as conn:
        conn.execute("UPDATE owner SET token = 'someone-else'")
    caplog.set_level(logging.ERROR)
    (reply,) = errors(await s.handle(first, to_move(s, first), "draw"))
    assert reply.code == "service.store"
    assert s.live_game_ids() == []
    assert "lost the database" in caplog.text
    assert (await h.store.load_game(second)).seq == 0


# ------------------------------------------------------------------------------ quarantine


def edit(path: Path, sql: str, *params) -> None:
    """Change the database file directly (the damage a bug, a tool or a disk does)."""
    with sqlite3.connect(path) as conn:
        conn.execute(sql, params)


def snapshot_of(path: Path, game_id: str) -> dict:
    with sqlite3.connect(path) as conn:
        (text,) = conn.execute(
            "SELECT snapshot_json FROM games WHERE id = ?", (game_id,)
        ).fetchone()
    return json.loads(text)


def damage_seats(path: Path, game_id: str) -> None:
    edit(path, "UPDATE games SET seats = '[{\"player_id\": ' WHERE id = ?", game_id)


def damage_meta(path: Path, game_id: str) -> None:
    edit(path, "UPDATE games SET meta = '{not json' WHERE id = ?", game_id)


def current_seven(path: Path, game_id: str) -> None:
    snap = snapshot_of(path, game_id)
    snap["current"] = 7
    edit(path, "UPDATE games SET snapshot_json = ? WHERE id = ?", json.dumps(snap), game_id)


def duplicated_tile(path: Path, game_id: str) -> None:
    snap = snapshot_of(path, game_id)
    snap["racks"][0][0] = snap["racks"][1][0]
    edit(path, "UPDATE games SET snapshot_json = ? WHERE id = ?", json.dumps(snap), game_id)


def seq_ahead(path: Path, game_id: str) -> None:
    edit(path, "UPDATE games SET seq = seq + 3 WHERE id = ?", game_id)


def two_seat_snapshot(path: Path, game_id: str) -> None:
    """The game has four seats, its snapshot two (the other game's)."""
    snap = snapshot_of(path, "other")
    edit(path, "UPDATE games SET snapshot_json = ? WHERE id = ?", json.dumps(snap), game_id)


DAMAGE = {
    "seats": (damage_seats, "seats"),
    "meta": (damage_meta, "meta"),
    "current=7": (current_seven, "player to move"),
    "duplicated tile": (duplicated_tile, "duplicated"),
    "seq ahead": (seq_ahead, "the log ends at"),
    "2-seat snapshot": (two_seat_snapshot, "seats"),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
async def test_a_damaged_game_is_quarantined_and_the_others_play_on(make, kind: str, caplog):
    h = make("damage.sqlite3")
    s = await h.open()
    other = await two_player_game(s, seed=3, game_id="other")
    await people(s)
    bad, _ = await s.create_game("alice", "rummikub", seed=4, game_id="bad")
    for _ in range(3 if kind == "2-seat snapshot" else 1):
        await s.add_bot(bad, "alice", "easy")
    assert not errors(await s.start_game(bad, "alice"))
    await s.wait_idle()
    assert not errors(await s.handle(other, to_move(s, other), "draw"))
    await h.close()

    damage, words = DAMAGE[kind]
    damage(h.path, bad)
    caplog.set_level(logging.ERROR)
    s = await h.open()
    assert bad in s.quarantined() and words in s.quarantined()[bad]
    assert f"game {bad} quarantined" in caplog.text
    assert s.status(bad) is None
    (reply,) = errors(await s.handle(bad, "alice", "draw"))
    assert reply.code == "game.quarantined"
    # every other game runs
    assert not errors(await s.handle(other, to_move(s, other), "draw"))
    await assert_memory_is_disk(s, h.store, other)
    await h.close()
    # stored as quarantined, listed by verify-db, which checks the rest without crashing
    report = await verify_db(h.path)
    assert [q["game"] for q in report["quarantined"]] == [bad]
    assert {p["game"] for p in report["problems"]} == {bad}
    assert report["ok"] == report["games"] - 1
    # and the next start still knows it
    s = await h.open()
    assert bad in s.quarantined() and s.status(bad) is None
    await h.close()


class FinalMoveFails(GameService):
    """A service whose result rows cannot be built (as with a snapshot that has fewer seats
    than the game): the error comes in the middle of the final move."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

        def result_rows(live, result, now):
            raise IndexError("list index out of range")

        self.pipeline.result_rows = result_rows


async def test_an_error_in_the_final_move_rolls_memory_back_with_the_database(make, caplog):
    h = make("final.sqlite3")
    s = await h.open(FinalMoveFails)
    game_id = await two_player_game(s)
    other = await two_player_game(s, seed=2)
    before = (await h.store.load_game(game_id)).seq
    caplog.set_level(logging.ERROR)
    out = await s.end_game(game_id, "alice")
    assert errors(out)
    record = await h.store.load_game(game_id)
    assert record.status == "quarantined" and record.seq == before  # nothing half-written
    assert s.status(game_id) is None  # not "finished" in memory while the database plays
    assert "quarantined" in caplog.text and "IndexError" in s.quarantined()[game_id]
    assert not errors(await s.handle(other, to_move(s, other), "draw"))
    await h.close()


# ------------------------------------------------------------------------------ verify-db


async def test_verify_db_on_a_live_database_sees_one_snapshot(make):
    """verify-db while the bot writes (four computer-only games): never a false gap."""
    h = make("live.sqlite3", think_in_worker=False)
    s = await h.open()
    games = []
    for i in range(4):
        game_id, _ = await s.create_game("host", "rummikub", seed=20 + i, seat_host=False)
        for _ in range(3):
            await s.add_bot(game_id, "host", "easy")
        await s.start_game(game_id, "host")
        games.append(game_id)
    reports = []
    while any(s.status(g) == "playing" for g in games) and len(reports) < 40:
        reports.append(await verify_db(h.path))
    assert len(reports) >= 2
    for report in reports:
        assert report["problems"] == [], report["problems"][:3]
        assert report["ok"] == report["games"] == 4


# ------------------------------------------------------------------------------ a full disk


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A real 8 MB file system (tmpfs); root only."""
    with tmpfs(tmp_path / "tiny", "8m") as mount:
        yield mount


async def test_a_full_disk_is_answered_and_nothing_changes(tiny_disk: Path):
    h = Harness(tiny_disk / "rummy.sqlite3")
    s = await h.open()
    try:
        await _full_disk(h, s, tiny_disk)
    finally:
        await h.close()


async def _full_disk(h: Harness, s: GameService, tiny_disk: Path) -> None:
    game_id = await two_player_game(s)
    filler = fill(tiny_disk)
    refused = None
    for _ in range(200):  # the WAL may still have room for a few small writes
        out = await s.handle(game_id, to_move(s, game_id), "draw")
        await assert_memory_is_disk(s, h.store, game_id)
        if errors(out):
            refused = errors(out)[0]
            break
    assert refused is not None and refused.code == "service.store"
    assert "nothing changed" in refused.text
    # the lobby, the players and new games answer too, and never raise
    await s.register_player("dora", "Dora " + "x" * 5000, "de")
    made, out = await s.create_game("dora", "rummikub", game_id="x" * 150)
    assert made is None and errors(out)[0].code == "service.save"
    assert "nichts geändert" in errors(out)[0].text
    filler.unlink()  # space again: the same service goes on
    assert not errors(await s.handle(game_id, to_move(s, game_id), "draw"))
    await assert_memory_is_disk(s, h.store, game_id)


# ------------------------------------------------------------------------------ hostile input


async def test_hostile_strings_and_wrong_types_get_typed_errors(h: Harness):
    s = h.service
    await people(s)
    bad = "g\ud800"
    for call in (
        s.handle(bad, "alice", "draw"),
        s.handle("g", "al\udfffice", "draw"),
        s.join(bad, "alice"),
        s.start_game("g", "\ud800"),
        s.end_game(bad, "alice"),
    ):
        (reply,) = errors(await call)
        assert reply.code == "input.invalid"
    made, out = await s.create_game("\ud800host", "rummikub")
    assert made is None and errors(out)[0].code == "input.invalid"
    made, out = await s.create_game("alice", "rummikub", game_id="id\udc00")
    assert made is None and errors(out)[0].code == "input.invalid"
    for value in ("60", 90.5, [60], True):
        made, out = await s.create_game("bob", "rummikub", {"turn_seconds": value})
        assert made is None
        (reply,) = errors(out)
        assert reply.code in ("options.invalid", "rules.option")
        assert "turn_seconds" in reply.text or "Zugzeit" in reply.text
    made, out = await s.create_game("bob", "rummikub", {"turn_seconds": "60"})
    assert "erwartet eine ganze Zahl oder nichts" in errors(out)[0].text  # Bob reads German
    with pytest.raises(ServiceError) as caught:
        await s.register_player("\ud800", "X")
    assert caught.value.code == "input.invalid"
    assert "kein gültiger Text" in error_text(caught.value, "de")
    # a name with a lone surrogate is cleaned, not refused
    await s.register_player("erin", "Er\ud800in", "en")
    assert (await h.store.get_player("erin")).name == "Er?in"
    game_id = await two_player_game(s)
    (reply,) = errors(await s.handle(game_id, to_move(s, game_id), "meld \udcff"))
    assert reply.code == "input.invalid"
    await assert_memory_is_disk(s, h.store, game_id)
