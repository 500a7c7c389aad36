"""Through the service and a real SQLite file: a ``place`` the legal search resolved is stored
written out (the moves it made, then ``place PIECES = TABLE``), so the stored game replays to
what the players saw, and resumes so after a restart, without asking the search (whose answer
may differ in another version of the bot). Both seats are people typing the medium computer
player's moves of a seeded game, until seat to move can type such a ``place``."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig
from bot.service.replay import restore
from bot.service.soak import verify_db
from bot.store import SqliteStore
from engine.ai import choose_move
from engine.errors import RummyError
from engine.tile import help as tile_help

T0 = 1_700_000_000.0


def _no_search(*args, **kwargs):
    raise AssertionError("the replay asked the legal search")


def _written_out_place(state, seat: int) -> str | None:
    """A ``place`` of one to three rack pieces that only the legal search fits, if any."""
    rack = sorted({str(f) for f in state.faces(state.turn.rack)})
    for size in (1, 2, 3):
        for chosen in itertools.combinations(rack, size):
            text = "place " + " ".join(chosen)
            tried = state.copy()
            try:
                tried.apply(seat, text)
            except RummyError:
                continue
            if tried.log_form(text) != text:
                return text
    return None


async def _open(path: Path) -> tuple[SqliteStore, GameService]:
    store = SqliteStore(path)
    await store.open()
    config = ServiceConfig(pictures=False, bot_pause=0.0)
    service = GameService(store, config=config, clock=ManualClock(T0), sink=lambda out: None)
    await service.start(run_timers=False)
    return store, service


async def test_a_place_found_by_the_legal_search_is_stored_as_it_ran(tmp_path: Path):
    path = tmp_path / "place.sqlite3"
    store, service = await _open(path)
    try:
        await service.register_player("alice", "Alice", "en")
        await service.register_player("bob", "Bob", "de")
        game, _ = await service.create_game("alice", "rummikub", seed=1)
        await service.join(game, "bob")
        await service.start_game(game, "alice")
        rng = random.Random(1)
        typed = None
        for _ in range(80):
            live = service.registry.games[game]
            seat = live.state.current
            player = live.seats[seat].player_id
            if live.state.opened[seat]:
                typed = _written_out_place(live.state, seat)
                if typed is not None:
                    break
            text = choose_move(live.state, seat, "medium", rng)
            out = await service.handle(game, player, text)
            assert not [m for m in out if isinstance(m, ErrorReply)], text
        assert typed is not None, "the seeded game reached no such place"
        out = await service.handle(game, player, typed)
        assert not [m for m in out if isinstance(m, ErrorReply)], typed
        live = service.registry.games[game]
        seen = live.state.to_json()
        last = (await store.commands(game))[-1]
        assert last.seq == live.seq and last.text != typed
        assert last.text.split("; ")[-1].startswith("place ") and " = " in last.text
        # a replay of the whole log, and the game's resume, without the legal search
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tile_help, "legal_play", _no_search)
            record = await store.load_game(game)
            assert restore(record, await store.commands(game)).to_json() == seen
    finally:
        await service.stop()
        await store.close()
    report = await verify_db(path)
    assert report["problems"] == [] and report["quarantined"] == []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tile_help, "legal_play", _no_search)
        store, service = await _open(path)
        try:
            assert service.registry.games[game].state.to_json() == seen
        finally:
            await service.stop()
            await store.close()
