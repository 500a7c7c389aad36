"""Shared helpers for the engine tests: positions and short-hands."""

from __future__ import annotations

import pytest

from engine.errors import RummyError
from engine.rules import preset
from engine.tiles import TileGame
from i18n import error_text


def game(name: str, table: str, *hands: str, opened=(True,), **kw) -> TileGame:
    """A position of preset ``name``: table melds, hands from seat 0, seat 0 to move."""
    return TileGame.position(preset(name), table, list(hands), opened=opened, **kw)


def table(g: TileGame, working: bool = False) -> list[str]:
    return [" ".join(str(f) for f in m) for m in g.table_faces(working=working)]


def hand(g: TileGame, seat: int = 0) -> list[str]:
    return sorted(str(f) for f in g.faces(g.rack_ids(seat)))


def rejects(g: TileGame, text: str, code: str, seat: int = 0) -> RummyError:
    """Assert the message is rejected with ``code`` and changes nothing."""
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(seat, text)
    assert info.value.code == code, error_text(info.value)
    assert g.to_json() == before
    return info.value
