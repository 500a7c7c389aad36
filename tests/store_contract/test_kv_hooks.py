"""Contract: key/value rows computed INSIDE a transaction (:class:`bot.store.KvHook`): the
league's result rows travel with the command that finishes a game (``CommandWrite.kv_hooks``),
and :meth:`Store.kv_update` is a read-modify-write of its own; both read what is stored at that
moment (the transaction's own earlier writes included) and lose nothing to a concurrent one."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import KvHook, KvRead, KvRow, Store, StoreConflict, StoreError
from tests.store_contract.helpers import started, write


def counter(namespace: str = "count", key: str = "total", by: int = 1) -> KvHook:
    """A hook adding ``by`` to one counter row."""

    def compute(rows: list[KvRow]) -> list[KvRow]:
        found = next((r.value["n"] for r in rows if r.key == key), 0)
        return [KvRow(namespace, key, {"n": found + by})]

    return KvHook((KvRead(namespace, key),), compute)


async def test_kv_update_reads_its_ranges_and_writes_what_it_computes(store: Store):
    await store.kv_put(
        [
            KvRow("season", "g1:rummy:00002", {"n": 2}),
            KvRow("season", "g1:rummy:00001", {"n": 1}),
            KvRow("season", "g1:rummy_x:00001", {"n": 9}),  # another prefix
            KvRow("season", "g2:rummy:00001", {"n": 8}),
            KvRow("match", "g1:rummy:00001", {"n": 7}),  # another namespace
            KvRow("void", "x", {"n": 5}),
        ]
    )
    seen: list[list[tuple[str, str]]] = []

    def compute(rows: list[KvRow]) -> list[KvRow]:
        seen.append([(r.namespace, r.key) for r in rows])
        total = sum(r.value["n"] for r in rows)
        return [KvRow("season", "g1:rummy:00003", {"n": total})]

    reads = (KvRead("void", "x"), KvRead("season", "g1:rummy:"), KvRead("season", "g1:rummy:0"))
    written = await store.kv_update(KvHook(reads, compute))
    # each row once (the two season ranges overlap), ordered by namespace then key
    assert seen == [[("season", "g1:rummy:00001"), ("season", "g1:rummy:00002"), ("void", "x")]]
    assert written == [KvRow("season", "g1:rummy:00003", {"n": 8})]
    assert await store.kv_get("season", "g1:rummy:00003") == {"n": 8}
    # the empty prefix is the whole namespace; a range with nothing in it reads nothing
    everything: list[int] = []
    await store.kv_update(
        KvHook(
            (KvRead("match"), KvRead("nothing", "here")),
            lambda rows: everything.append(len(rows)) or [],
        )
    )
    assert everything == [1]


async def test_kv_update_whose_compute_fails_writes_nothing(store: Store):
    await store.kv_put([KvRow("count", "total", {"n": 1})])

    def compute(rows: list[KvRow]) -> list[KvRow]:
        raise LookupError("the organiser's change does not fit")

    with pytest.raises(LookupError, match="does not fit"):
        await store.kv_update(KvHook((KvRead("count"),), compute))
    assert await store.kv_get("count", "total") == {"n": 1}


async def test_a_finishing_write_runs_its_hook_in_its_transaction(store: Store):
    await started(store)
    await store.kv_put([KvRow("count", "total", {"n": 41})])
    await store.append_command(write(1))
    finish = write(2, status="finished", deadline=None, kv_hooks=(counter(),))
    await store.append_command(finish)
    assert await store.kv_get("count", "total") == {"n": 42}
    assert (await store.load_game("g1")).status == "finished"
    # a refused write (its seq was taken) runs no hook and writes none of its rows
    with pytest.raises(StoreConflict):
        await store.append_command(write(2, kv_hooks=(counter(by=100),)))
    assert await store.kv_get("count", "total") == {"n": 42}


async def test_a_hook_that_fails_fails_its_write_and_nothing_is_stored(store: Store):
    await started(store)

    def compute(rows: list[KvRow]) -> list[KvRow]:
        raise RuntimeError("a league bug")

    broken = KvHook((KvRead("count"),), compute)
    with pytest.raises(StoreError):
        await store.append_command(write(1, status="finished", deadline=None, kv_hooks=(broken,)))
    loaded = await store.load_game("g1")
    assert (loaded.seq, loaded.status) == (0, "playing")
    assert await store.commands("g1") == []


async def test_games_finishing_at_once_each_count(store: Store):
    """Twenty games finish at once (one group commit or several): every hook reads the
    counter as the hooks before it left it, so the total counts each game once."""
    games = [f"g{i}" for i in range(20)]
    for game_id in games:
        await started(store, game_id)
    await asyncio.gather(
        *(
            store.append_command(
                write(1, game_id, status="finished", deadline=None, kv_hooks=(counter(),))
            )
            for game_id in games
        )
    )
    assert await store.kv_get("count", "total") == {"n": 20}


async def test_concurrent_read_modify_writes_lose_nothing(store: Store):
    await asyncio.gather(*(store.kv_update(counter()) for _ in range(30)))
    assert await store.kv_get("count", "total") == {"n": 30}
