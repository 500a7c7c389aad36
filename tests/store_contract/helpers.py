"""Record builders of the contract suite (the store tests' own, tests/bot/store_helpers.py)."""

from __future__ import annotations

from bot.store import Store
from tests.bot.store_helpers import SEATS, T0, game, write

__all__ = ["SEATS", "T0", "game", "started", "write"]


async def started(store: Store, game_id: str = "g1") -> None:
    """A game of alice and a computer player, dealt (snapshot 0) with a turn deadline."""
    await store.create_game(game(game_id))
    await store.start_game(
        game_id, seats=SEATS, seed=7, snapshot_json='{"deal":1}', deadline=T0 + 120, at=T0
    )
