"""Contract: what was committed is there after a reopen (a restart resumes every game where
its last command left it), and a read snapshot sees ONE state while the owner writes on."""

from __future__ import annotations

from bot.store import KvRow, PlayerRecord, Store
from tests.store_contract.factories import StoreFactory
from tests.store_contract.helpers import T0, game, started, write


async def test_a_reopened_store_resumes_every_game(factory: StoreFactory):
    first = await factory.open()
    await started(first, "playing")
    for seq in (1, 2, 3):
        # a snapshot every other command: resuming replays the commands after the last one
        await first.append_command(
            write(seq, "playing", snapshot_json=f"[{seq}]" if seq < 3 else None)
        )
    await first.create_game(game("lobby", created_at=T0 + 1))
    await started(first, "done")
    await first.append_command(write(1, "done", status="finished", deadline=None))
    await first.update_meta("playing", {"rematch_of": "x"}, at=T0)
    await first.kv_put([KvRow("guild", "1", {"lang": "de"})])
    await first.upsert_player(PlayerRecord("alice", "Alice", "de"))
    await first.close()
    second = await factory.open()
    try:
        unfinished = {g.id: g for g in await second.load_unfinished_games()}
        assert sorted(unfinished) == ["lobby", "playing"]
        playing = unfinished["playing"]
        assert (playing.seq, playing.snapshot_seq, playing.snapshot_json) == (3, 2, "[2]")
        assert playing.meta == {"rematch_of": "x"} and playing.deadline == T0 + 3 + 120
        replay = await second.commands("playing", after_seq=playing.snapshot_seq)
        assert [(c.seq, c.text) for c in replay] == [(3, "cmd 3")]
        assert unfinished["lobby"] == game("lobby", created_at=T0 + 1)
        assert (await second.load_game("done")).status == "finished"
        assert await second.kv_get("guild", "1") == {"lang": "de"}
        assert await second.get_player("alice") == PlayerRecord("alice", "Alice", "de")
        await second.append_command(write(4, "playing"))  # and it goes on from there
        assert (await second.load_game("playing")).seq == 4
    finally:
        await second.close()


async def test_a_snapshot_is_one_consistent_state_while_the_owner_writes(store: Store):
    await started(store, "g1")
    await store.append_command(write(1))
    async with store.snapshot() as snap:
        before = await snap.load_game("g1")
        for seq in (2, 3, 4):  # the owner goes on writing while the snapshot reads
            await store.append_command(write(seq))
        await store.create_game(game("later"))
        commands = await snap.commands("g1")
        assert before.seq == 1 and [c.seq for c in commands] == [1]  # no false gap
        assert await snap.game_ids() == ["g1"]
        assert len(await snap.load_unfinished_games()) == 1
    async with store.snapshot() as snap:
        assert (await snap.load_game("g1")).seq == 4
        assert [c.seq for c in await snap.commands("g1")] == [1, 2, 3, 4]
