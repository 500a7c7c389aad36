"""The card hint reaches players as the tile hint does: ``hint`` through the game service
(over a real SQLite file) answers the player to move privately, in their language, changes
nothing in the store, and the play form's suggestion is its command."""

from __future__ import annotations

from bot.service import PrivateText, PublicText
from tests.bot.test_service import Harness, errors, h, two_player_game  # noqa: F401


async def test_card_hint_is_private_in_the_players_language_and_stores_nothing(h: Harness):  # noqa: F811
    s = h.service
    game_id = await two_player_game(s, "rummy", seed=3)
    seq = (await h.store.load_game(game_id)).seq
    out = await s.handle(game_id, "alice", "hint")
    assert not errors(out) and not [m for m in out if isinstance(m, PublicText)]
    (private,) = [m for m in out if isinstance(m, PrivateText)]
    assert private.to == "alice" and private.text.startswith(("Draw first", "Take the top"))
    assert (await h.store.load_game(game_id)).seq == seq
    assert not errors(await s.handle(game_id, "alice", "draw"))
    suggestion = await s.suggestion(game_id, "alice", timeout=30)
    out = await s.handle(game_id, "alice", "hint")
    (private,) = [m for m in out if isinstance(m, PrivateText)]
    assert "Type: " in private.text and "discard " in private.text
    assert private.text.rsplit(": ", 1)[-1] == suggestion
    assert not errors(await s.handle(game_id, "alice", suggestion))  # typed back: accepted
    # Bob reads German: his hint (before drawing) is worded in German
    out = await s.handle(game_id, "bob", "hint")
    (private,) = [m for m in out if isinstance(m, PrivateText)]
    assert private.to == "bob" and private.text.startswith(("Nimm", "Zieh"))
