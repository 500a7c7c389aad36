"""Contract: a game can be set aside (quarantined) whatever its row holds: it is no longer
loaded as unfinished, takes no commands, is listed with its reason (per guild too), and can be
put back in the status it had."""

from __future__ import annotations

import pytest

from bot.store import Store, StoreConflict
from tests.store_contract.helpers import T0, game, started, write


async def test_quarantine_sets_a_game_aside_and_back(store: Store):
    await started(store, "g1")
    await store.create_game(game("g2", created_at=T0 + 1))
    await store.quarantine("g1", "snapshot has current=7 for 2 seats", at=T0 + 9)
    assert [g.id for g in await store.load_unfinished_games()] == ["g2"]
    assert await store.quarantined() == [("g1", "snapshot has current=7 for 2 seats", T0 + 9)]
    loaded = await store.load_game("g1")
    assert (loaded.status, loaded.deadline) == ("quarantined", None)
    assert await store.game_ids("quarantined") == ["g1"]
    with pytest.raises(StoreConflict):  # a quarantined game takes no commands
        await store.append_command(write(1))
    await store.release_quarantine("g1", at=T0 + 10)
    assert (await store.load_game("g1")).status == "playing"
    assert await store.quarantined() == []
    with pytest.raises(StoreConflict):
        await store.release_quarantine("g1", at=T0 + 11)


async def test_quarantined_games_of_one_guild(store: Store):
    await store.create_game(game("here", guild_id="guild-1"))
    await store.create_game(game("there", guild_id="guild-2", created_at=T0 + 1))
    await store.quarantine("here", "why 1", at=T0 + 5)
    await store.quarantine("there", "why 2", at=T0 + 6)
    assert await store.quarantined("guild-1") == [("here", "why 1", T0 + 5)]
    assert [g for g, _, _ in await store.quarantined()] == ["here", "there"]
    await store.release_quarantine("here", at=T0 + 7)
    assert (await store.load_game("here")).status == "lobby"  # the status it had
    assert await store.quarantined("guild-1") == []
