"""Two stores (two processes' worth of pools) over ONE PostgreSQL database: read-modify-writes
of key/value rows (KvHook, the league's shared state) never lose an update, whether they run
as their own transaction (kv_update) or inside command writes' group commits."""

from __future__ import annotations

import asyncio

from bot.store import CommandWrite, KvHook, KvRead, KvRow, open_store
from tests.store_contract.helpers import SEATS, T0, game


def bump(rows: list[KvRow]) -> list[KvRow]:
    count = rows[0].value["n"] if rows else 0
    return [KvRow("ladder", "guild:1", {"n": count + 1})]


HOOK = KvHook(reads=(KvRead("ladder", "guild:"),), compute=bump)


async def test_concurrent_kv_updates_of_two_stores_lose_nothing(pg_url: str):
    a = open_store(pg_url, shard_count=2)
    b = open_store(pg_url, shard_count=2)
    await a.open()
    await b.open()
    try:
        await asyncio.gather(*(s.kv_update(HOOK) for _ in range(25) for s in (a, b)))
        assert await a.kv_get("ladder", "guild:1") == {"n": 50}
    finally:
        await a.close()
        await b.close()


async def test_hooks_in_group_commits_of_two_stores_lose_nothing(pg_url: str):
    a = open_store(pg_url, shard_count=2)
    b = open_store(pg_url, shard_count=2)
    await a.open()
    await b.open()
    try:
        await a.acquire_shards([0], now=T0, lease_seconds=3600)
        await b.acquire_shards([1], now=T0, lease_seconds=3600)
        # game g<k> has guild (k << 22) + 1: shard k % 2, written by a (even) or b (odd)
        games = [f"g{k}" for k in range(20)]
        for k, game_id in enumerate(games):
            owner = a if k % 2 == 0 else b
            await owner.create_game(game(game_id, guild_id=str((k << 22) + 1)))
            await owner.start_game(
                game_id, seats=SEATS, seed=7, snapshot_json="{}", deadline=None, at=T0
            )

        def finishing(game_id: str) -> CommandWrite:
            return CommandWrite(game_id, 1, 0, "!end", T0 + 1, status="finished", kv_hooks=(HOOK,))

        await asyncio.gather(
            *(
                (a if k % 2 == 0 else b).append_command(finishing(game_id))
                for k, game_id in enumerate(games)
            )
        )
        assert await b.kv_get("ladder", "guild:1") == {"n": 20}
        assert {(await a.load_game(g)).status for g in games} == {"finished"}
    finally:
        await a.close()
        await b.close()
