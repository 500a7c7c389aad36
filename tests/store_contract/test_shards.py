"""Contract: per-shard leases with fencing tokens (several processes over one database).

Two store instances on one database stand for two processes. A store opened with
``shard_count=N`` takes no owner lease; it holds the leases of the shards it acquired. A lease is
taken (token 1), renewed (same token), given back, and taken over once it expired (token + 1).
Every write of a game checks, in its own transaction, the lease of the game's shard: a store
that lost it (paused past its lease, then taken over) or never had it is refused with
:class:`StoreFenced` and nothing is written. Lease times come from the caller (``now``), so
expiry needs no waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from bot.store import (
    KvRow,
    PlayerRecord,
    Store,
    StoreConflict,
    StoreFenced,
    StoreLocked,
    shard_of,
)
from tests.store_contract.factories import StoreFactory
from tests.store_contract.helpers import SEATS, T0, game, write

LEASE = 30.0
TIMEOUT = "!timeout"


def guild(shard: int, n: int = 0) -> str:
    """A Discord-like guild id on ``shard`` (of any shard count that divides the numbers)."""
    return str(((1000 * 2 * 3 + shard) << 22) + n)


assert shard_of(guild(0), 2) == 0 and shard_of(guild(1), 2) == 1 and shard_of(guild(1, 7), 2) == 1


@asynccontextmanager
async def opened(factory: StoreFactory, shard_count: int = 2) -> AsyncIterator[Store]:
    store = await factory.open(shard_count=shard_count)
    try:
        yield store
    finally:
        await store.close()


async def started_on(store: Store, game_id: str, shard: int) -> None:
    """A dealt game of a guild on ``shard``, written by ``store`` (which must hold it)."""
    await store.create_game(game(game_id, guild_id=guild(shard)))
    await store.start_game(
        game_id, seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=T0 + 120, at=T0
    )


async def test_a_sharded_store_takes_renews_and_gives_back_its_leases(factory: StoreFactory):
    async with opened(factory) as a, opened(factory) as b:
        assert a.shard_count == 2 and a.owner_token is None  # no whole-database owner lease
        assert await a.acquire_shards([0, 1], now=T0, lease_seconds=LEASE) == {0: 1, 1: 1}
        assert a.held_shards == {0: 1, 1: 1}
        rows = {lease.shard: lease for lease in await a.shard_leases()}
        assert {s: (r.token, r.expires, r.released) for s, r in rows.items()} == {
            0: (1, T0 + LEASE, None),
            1: (1, T0 + LEASE, None),
        }
        assert rows[0].holder == rows[1].holder and rows[0].shard_count == 2
        # renewing keeps the token and moves the expiry
        assert await a.renew_shards(now=T0 + 10, lease_seconds=LEASE) == {0: 1, 1: 1}
        assert {r.expires for r in await b.shard_leases()} == {T0 + 10 + LEASE}
        # a live lease is not taken by another store
        assert await b.acquire_shards([0, 1], now=T0 + 20, lease_seconds=LEASE) == {}
        assert b.held_shards == {}
        # given back: free at once, the next holder's token is higher
        await a.release_shards([1], now=T0 + 21)
        assert a.held_shards == {0: 1}
        assert await b.acquire_shards([0, 1], now=T0 + 22, lease_seconds=LEASE) == {1: 2}
        await a.close()  # closing gives back every lease it holds
        assert await b.acquire_shards([0, 1], now=T0 + 23, lease_seconds=LEASE) == {0: 2, 1: 2}
        holders = {r.holder for r in await b.shard_leases()}
        assert len(holders) == 1 and holders != {rows[0].holder}


async def test_an_expired_lease_is_taken_over_and_its_old_holder_is_fenced(
    factory: StoreFactory,
):
    async with opened(factory) as a, opened(factory) as b:
        await a.acquire_shards([0, 1], now=T0, lease_seconds=LEASE)
        await started_on(a, "g0", 0)
        await a.append_command(write(1, "g0"))
        # a is paused past its lease; b takes both shards over within one lease period
        assert await b.acquire_shards([0, 1], now=T0 + LEASE - 1, lease_seconds=LEASE) == {}
        assert await b.acquire_shards([0, 1], now=T0 + LEASE, lease_seconds=LEASE) == {0: 2, 1: 2}
        commands = factory.count_rows("commands")
        with pytest.raises(StoreFenced) as caught:
            await a.append_command(write(2, "g0"))
        assert caught.value.code == "fenced" and caught.value.shards == {0}
        assert factory.count_rows("commands") == commands  # nothing written
        assert 0 not in a.held_shards
        assert (await b.load_game("g0")).seq == 1
        # a's next renewal finds the rest lost too
        assert await a.renew_shards(now=T0 + LEASE + 1, lease_seconds=LEASE) == {}
        assert a.held_shards == {}
        # the new holder goes on from the stored state
        await b.append_command(write(2, "g0"))
        assert [c.seq for c in await b.commands("g0")] == [1, 2]


async def test_every_game_write_of_a_shard_not_held_is_refused_and_writes_nothing(
    factory: StoreFactory,
):
    async with opened(factory) as a, opened(factory) as b:
        await a.acquire_shards([0], now=T0, lease_seconds=LEASE)
        await b.acquire_shards([1], now=T0, lease_seconds=LEASE)
        await started_on(b, "g1", 1)
        await b.create_game(game("lobby1", guild_id=guild(1, 3)))
        attempts: dict[str, Callable[[], object]] = {
            "create": lambda: a.create_game(game("new", guild_id=guild(1, 9))),
            "lobby": lambda: a.update_lobby("lobby1", SEATS, at=T0),
            "start": lambda: a.start_game(
                "lobby1", seats=SEATS, seed=1, snapshot_json="{}", deadline=None, at=T0
            ),
            "append": lambda: a.append_command(write(1, "g1")),
            "timer": lambda: a.set_timer("g1", deadline=T0 + 1, reminder_sent=True, seq=0),
            "status": lambda: a.set_status("lobby1", "cancelled", at=T0, expect="lobby"),
            "meta": lambda: a.update_meta("g1", {"x": 1}, at=T0),
            "quarantine": lambda: a.quarantine("g1", "why", at=T0),
        }
        for name, attempt in attempts.items():
            with pytest.raises(StoreFenced) as caught:
                await attempt()
            assert caught.value.shards == {1}, name
        assert a.held_shards == {0: 1}  # never held shard 1: shard 0 stays held
        assert await b.game_ids() == ["g1", "lobby1"]
        record = await b.load_game("g1")
        assert (record.seq, record.deadline, record.reminder_sent, record.meta) == (
            0,
            T0 + 120,
            False,
            {},
        )
        assert (await b.load_game("lobby1")).status == "lobby"
        assert await b.quarantined() == [] and factory.count_rows("commands") == 0
        # writes of no game are shared by every process
        await a.upsert_player(PlayerRecord("p", "P"))
        await a.kv_put([KvRow("ns", "k", 1)])
        assert (await b.get_player("p")).name == "P" and await b.kv_get("ns", "k") == 1
        # and the holder's own writes go through
        await b.append_command(write(1, "g1"))
        await b.set_status("lobby1", "cancelled", at=T0, expect="lobby")


async def test_two_stores_over_one_database_never_both_write_one_game(factory: StoreFactory):
    async with opened(factory) as a, opened(factory) as b:
        await a.acquire_shards([0], now=T0, lease_seconds=LEASE)
        await b.acquire_shards([1], now=T0, lease_seconds=LEASE)
        for i in range(4):
            await started_on(a, f"a{i}", 0)
            await started_on(b, f"b{i}", 1)
        # both try every game at once: each write lands only in its shard's holder
        tries = [(store, f"{prefix}{i}") for store in (a, b) for prefix in "ab" for i in range(4)]
        outcomes = await asyncio.gather(
            *(store.append_command(write(1, game_id)) for store, game_id in tries),
            return_exceptions=True,
        )
        for (store, game_id), outcome in zip(tries, outcomes, strict=True):
            own = (store is a) == game_id.startswith("a")
            assert (outcome is None) if own else isinstance(outcome, StoreFenced), game_id
        assert factory.count_rows("commands") == 8
        for i in range(4):
            for prefix in "ab":
                assert [c.seq for c in await a.commands(f"{prefix}{i}")] == [1]


async def test_a_group_commit_with_a_lost_shard_fails_only_that_shards_writes(
    factory: StoreFactory,
):
    async with opened(factory) as a, opened(factory) as b:
        await a.acquire_shards([0, 1], now=T0, lease_seconds=LEASE)
        for i in range(10):
            await started_on(a, f"s0-{i}", 0)
            await started_on(a, f"s1-{i}", 1)
        await a.acquire_shards([0], now=T0 + 25, lease_seconds=LEASE)  # shard 0 renewed only
        assert await b.acquire_shards([1], now=T0 + LEASE + 1, lease_seconds=LEASE) == {1: 2}
        ids = [f"s{s}-{i}" for i in range(10) for s in (0, 1)]
        outcomes = await asyncio.gather(
            *(a.append_command(write(1, game_id)) for game_id in ids), return_exceptions=True
        )
        for game_id, outcome in zip(ids, outcomes, strict=True):
            if game_id.startswith("s0"):
                assert outcome is None, game_id
            else:
                assert isinstance(outcome, StoreFenced), game_id
        assert factory.count_rows("commands") == 10
        assert a.held_shards == {0: 1}


async def test_a_deadline_fires_exactly_once_across_a_takeover(factory: StoreFactory):
    """The deadline of a game is due in both processes' memory; only the holder's time-out is
    written, the fenced one changes nothing, whichever comes first."""
    async with opened(factory) as a, opened(factory) as b:
        await a.acquire_shards([0], now=T0, lease_seconds=LEASE)
        await started_on(a, "g", 0)
        # a is paused (the deadline of T0 + 120 passes meanwhile); b takes the shard over
        await b.acquire_shards([0], now=T0 + 121, lease_seconds=LEASE)
        fired = write(1, "g", text=TIMEOUT, at=T0 + 121, deadline=T0 + 241)
        both = await asyncio.gather(
            a.append_command(fired), b.append_command(fired), return_exceptions=True
        )
        assert isinstance(both[0], StoreFenced) and both[1] is None
        # a's late reminder and its own retry change nothing either
        with pytest.raises(StoreFenced):
            await a.set_timer("g", deadline=T0 + 999, reminder_sent=True, seq=1)
        with pytest.raises(StoreFenced):
            await a.append_command(fired)
        with pytest.raises(StoreConflict):  # and b's own second firing is a conflict
            await b.append_command(fired)
        log = await b.commands("g")
        assert [(c.seq, c.text) for c in log] == [(1, TIMEOUT)]
        record = await b.load_game("g")
        assert (record.deadline, record.reminder_sent) == (T0 + 241, False)


async def test_sharded_and_unsharded_owners_exclude_each_other(factory: StoreFactory):
    now = time.time()  # the whole-database lease lives on the wall clock
    async with opened(factory) as a:
        await a.acquire_shards([0], now=now, lease_seconds=LEASE)
        with pytest.raises(StoreLocked):
            await factory.open()  # one owner for everything: refused while a shard is held
        other = None
        with pytest.raises(StoreLocked):  # another shard count: refused
            other = await factory.open(shard_count=4)
            await other.acquire_shards([1], now=now, lease_seconds=LEASE)
        if other is not None:
            await other.close()
    single = await factory.open()  # every lease given back: the single owner may open
    try:
        late = None
        with pytest.raises(StoreLocked):
            late = await factory.open(shard_count=2)
            await late.acquire_shards([0], now=now, lease_seconds=LEASE)
        if late is not None:
            await late.close()
    finally:
        await single.close()
