"""Contract: one owner per database. A writable store holds the owner lease; a second owner is
refused while it is held; a store whose lease another process took can never write again
(:class:`StoreOwnerLost`, nothing written, reads still work); a read-only store reads without
the lease and refuses every write (``code="readonly"``)."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import KvRow, PlayerRecord, Store, StoreError, StoreLocked, StoreOwnerLost
from tests.store_contract.factories import StoreFactory
from tests.store_contract.helpers import SEATS, T0, game, started, write


async def test_a_second_owner_is_refused_while_the_first_holds_the_lease(
    store: Store, factory: StoreFactory
):
    assert store.owned and store.owner_token
    with pytest.raises(StoreLocked) as caught:
        await factory.open()
    assert caught.value.holder is not None and caught.value.holder.token == store.owner_token
    await store.close()
    second = await factory.open()  # a clean close gave the lease back
    try:
        assert second.previous_owner is not None
        assert second.previous_owner.released is not None
        assert second.owner_token != caught.value.holder.token
    finally:
        await second.close()


async def test_a_stolen_lease_stops_every_write(store: Store, factory: StoreFactory):
    await store.create_game(game("lobby"))
    await started(store, "g1")
    factory.steal_lease("thief")
    attempts = {
        "append": lambda: store.append_command(write(1)),
        "create": lambda: store.create_game(game("new")),
        "player": lambda: store.upsert_player(PlayerRecord("p", "P")),
        "kv": lambda: store.kv_put([KvRow("ns", "k", 1)]),
        "status": lambda: store.set_status("lobby", "cancelled", at=T0),
        "timer": lambda: store.set_timer("g1", deadline=1.0, reminder_sent=True),
        "meta": lambda: store.update_meta("g1", {"x": 1}, at=T0),
        "lobby": lambda: store.update_lobby("lobby", SEATS, at=T0),
        "start": lambda: store.start_game(
            "lobby", seats=SEATS, seed=1, snapshot_json="{}", deadline=None, at=T0
        ),
        "quarantine": lambda: store.quarantine("g1", "why", at=T0),
    }
    for name, attempt in attempts.items():
        with pytest.raises(StoreOwnerLost) as caught:
            await attempt()
        assert caught.value.code == "lost", name
    assert not store.owned
    assert "no longer owns" in str(caught.value)
    # reads still work; nothing was written
    assert (await store.load_game("g1")).seq == 0
    assert await store.commands("g1") == [] and await store.game_ids() == ["g1", "lobby"]
    assert factory.count_rows("kv") == 0
    assert factory.count_rows("players") == 0
    await store.close()
    reader = await factory.reader()
    try:  # closing gave nothing back: the lease is the thief's
        holder = await reader.owner()
        assert (holder.token, holder.released) == ("thief", None)
    finally:
        await reader.close()


async def test_a_lease_stolen_inside_a_group_commit_fails_the_whole_batch(
    store: Store, factory: StoreFactory
):
    for i in range(20):
        await started(store, f"g{i}")
    factory.steal_lease("thief")
    outcomes = await asyncio.gather(
        *(store.append_command(write(1, f"g{i}")) for i in range(20)), return_exceptions=True
    )
    assert all(isinstance(o, StoreOwnerLost) for o in outcomes)
    assert factory.count_rows("commands") == 0


async def test_a_read_only_store_reads_a_live_database_without_the_lease(
    store: Store, factory: StoreFactory
):
    await started(store, "g1")
    reader = await factory.reader()
    try:
        assert reader.owner_token is None and not reader.owned
        assert (await reader.owner()).token == store.owner_token
        async with reader.snapshot() as snap:
            assert (await snap.load_game("g1")).status == "playing"
        for attempt in (
            lambda: reader.kv_put([KvRow("a", "b", 1)]),
            lambda: reader.set_status("g1", "cancelled", at=T0),
            lambda: reader.append_command(write(1)),
            lambda: reader.create_game(game("new")),
            lambda: reader.upsert_player(PlayerRecord("p", "P")),
            lambda: reader.quarantine("g1", "why", at=T0),
        ):
            with pytest.raises(StoreError) as caught:
                await attempt()
            assert caught.value.code == "readonly"
        await store.append_command(write(1))  # the owner is not disturbed
        assert (await reader.load_game("g1")).seq == 1
    finally:
        await reader.close()
    assert factory.count_rows("kv") == factory.count_rows("players") == 0
