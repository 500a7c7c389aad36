"""Contract: one accepted command is ONE transaction with all its effects (the log row, the
game's seq/status/deadline/snapshot, its result rows and league rows) - all or nothing - and a
game's ``seq`` runs 1, 2, 3... without gaps or repeats, however many writes are in flight."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.store import KvRow, ResultRow, Store, StoreConflict
from tests.store_contract.factories import StoreFactory
from tests.store_contract.helpers import T0, game, started, write


async def test_append_command_is_one_transaction_with_its_effects(store: Store):
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


async def test_finishing_write_stores_results_and_ladder_rows(store: Store):
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


async def test_a_failed_finishing_write_leaves_nothing(store: Store, factory: StoreFactory):
    await started(store)
    rows = (ResultRow("g1", 0, "alice", 1.0, 1, True, "out", T0),) * 2  # duplicate seat
    kv = (KvRow("ladder", "guild:rummikub", {"games": 1}),)
    with pytest.raises(StoreConflict):  # a StoreError, never a driver's error
        await store.append_command(write(1, status="finished", results=rows, kv=kv))
    loaded = await store.load_game("g1")
    assert (loaded.status, loaded.seq, loaded.snapshot_json) == ("playing", 0, '{"deal":1}')
    assert await store.commands("g1") == [] and await store.results("g1") == []
    assert await store.kv_get("ladder", "guild:rummikub") is None  # the league row neither
    assert [factory.count_rows(t) for t in ("commands", "results", "kv")] == [0, 0, 0]


async def test_results_still_need_their_game(store: Store):
    await started(store, "g1")
    rows = (ResultRow("ghost", 0, "alice", 1.0, 1, True, "out", T0),)
    with pytest.raises(StoreConflict):
        await store.append_command(write(1, status="finished", results=rows))
    assert (await store.load_game("g1")).seq == 0


@pytest.mark.parametrize("seq", [2, 4])
async def test_a_repeated_or_skipped_seq_is_refused(store: Store, seq: int):
    await started(store)
    await store.append_command(write(1))
    await store.append_command(write(2))
    with pytest.raises(StoreConflict):
        await store.append_command(write(seq, text="again"))
    assert [c.text for c in await store.commands("g1")] == ["cmd 1", "cmd 2"]
    assert (await store.load_game("g1")).seq == 2


async def test_a_command_for_a_game_not_playing_is_refused(store: Store):
    await store.create_game(game())  # still in the lobby
    with pytest.raises(StoreConflict):
        await store.append_command(write(1))
    assert await store.commands("g1") == []


async def test_group_commit_isolates_a_bad_write(store: Store):
    for k in range(20):
        await started(store, f"g{k}")
    good = [store.append_command(write(1, f"g{k}")) for k in range(20)]
    bad = store.append_command(write(5, "g3"))
    results = await asyncio.gather(*good, bad, return_exceptions=True)
    assert all(r is None for r in results[:20])
    assert isinstance(results[20], StoreConflict)
    for k in range(20):
        assert (await store.load_game(f"g{k}")).seq == 1


async def test_a_batch_of_many_games_is_written_row_for_row(store: Store):
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


async def test_two_commands_of_one_game_in_one_batch_go_in_order(store: Store):
    await started(store)
    await store.append_command(write(1))
    await asyncio.gather(store.append_command(write(2)), store.append_command(write(3)))
    assert [c.seq for c in await store.commands("g1")] == [1, 2, 3]
    assert (await store.load_game("g1")).seq == 3


async def test_seq_has_no_gaps_with_many_writers_in_flight(store: Store):
    """Eight games, each written by several tasks racing for the same next seq: exactly one
    write per seq is accepted, the rest are StoreConflicts, and every log is 1..n."""
    games = [f"g{k}" for k in range(8)]
    for game_id in games:
        await started(store, game_id)
    rng = random.Random(15)
    accepted = {game_id: 0 for game_id in games}

    async def writer(game_id: str, name: str) -> None:
        for _ in range(12):
            seq = (await store.load_game(game_id)).seq + 1
            try:
                await store.append_command(write(seq, game_id, text=f"{name} {seq}"))
            except StoreConflict:
                pass
            else:
                accepted[game_id] += 1
            await asyncio.sleep(rng.random() / 1000)

    await asyncio.gather(*(writer(g, f"w{n}") for g in games for n in range(3)))
    for game_id in games:
        log = await store.commands(game_id)
        assert [c.seq for c in log] == list(range(1, len(log) + 1))
        assert len(log) == accepted[game_id] == (await store.load_game(game_id)).seq
        assert len(log) >= 12


async def test_a_cancelled_caller_does_not_cancel_its_write(store: Store):
    """Once append_command is called the write is committed (or fails) whatever the caller
    does; a cancelled caller reloads the game to learn which."""
    await started(store)
    task = asyncio.ensure_future(store.append_command(write(1)))
    await asyncio.sleep(0)  # the write is queued
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if (await store.load_game("g1")).seq == 1:
            break
        await asyncio.sleep(0.01)
    assert [c.seq for c in await store.commands("g1")] == [1]
