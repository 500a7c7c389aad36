"""Contract: writes without a command (status, turn timer, meta, lobby) change a game only in
the status and at the ``seq`` they expect; otherwise :class:`StoreConflict` and nothing changes.
No such game: ``code="missing"`` (not a conflict)."""

from __future__ import annotations

import pytest

from bot.store import Store, StoreConflict, StoreError
from tests.store_contract.helpers import SEATS, T0, game, started, write


async def test_set_status_checks_status_and_seq(store: Store):
    await store.create_game(game("lobby"))
    await started(store, "g1")
    await store.append_command(write(1))
    with pytest.raises(StoreConflict, match="is playing at seq 1, not lobby"):
        await store.set_status("g1", "cancelled", at=T0, expect="lobby")  # a stale lobby expiry
    with pytest.raises(StoreConflict, match="at seq 0"):
        await store.set_status("g1", "cancelled", at=T0, seq=0)
    assert (await store.load_game("g1")).status == "playing"
    await store.set_status("g1", "cancelled", at=T0, expect="playing", seq=1)
    # a game that ended can no longer change by default
    with pytest.raises(StoreConflict, match="cancelled"):
        await store.set_status("g1", "playing", at=T0)
    with pytest.raises(StoreError) as missing:
        await store.set_status("nope", "cancelled", at=T0)
    assert missing.value.code == "missing" and not isinstance(missing.value, StoreConflict)
    await store.set_status("lobby", "cancelled", at=T0 + 5, expect=("lobby",))
    assert (await store.load_game("lobby")).status == "cancelled"


async def test_deadline_writes_are_guarded_by_seq_and_status(store: Store):
    await started(store, "g1")
    await store.append_command(write(1))
    with pytest.raises(StoreConflict):  # a stale reminder of the turn before
        await store.set_timer("g1", deadline=T0 + 5, reminder_sent=True, seq=0)
    assert (await store.load_game("g1")).deadline == T0 + 1 + 120
    await store.set_timer("g1", deadline=T0 + 500, reminder_sent=True, seq=1)
    loaded = await store.load_game("g1")
    assert (loaded.deadline, loaded.reminder_sent) == (T0 + 500, True)
    await store.create_game(game("lobby"))
    with pytest.raises(StoreConflict):  # only a playing game has a turn deadline
        await store.set_timer("lobby", deadline=T0, reminder_sent=False)
    with pytest.raises(StoreConflict):
        await store.update_meta("g1", {"x": 1}, at=T0, expect="lobby")
    await store.update_meta("g1", {"x": 1}, at=T0, expect="playing", seq=1)
    assert (await store.load_game("g1")).meta == {"x": 1}


async def test_lobby_writes_need_the_lobby(store: Store):
    await store.create_game(game())
    with pytest.raises(StoreConflict):  # one id, one game
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
    assert (await store.load_game("g1")).seed == 9
