"""Events and errors of real games read exactly as before the redesign: old_events.json holds
seeded games recorded by the version whose engine still wrote its own sentences (see
record_events.py); here the same commands are replayed and i18n words every event (public and
private, hints included) and every refused command, in English and German."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import RummyError
from engine.game import new_game
from engine.rules import preset
from i18n import error_text, event_text

GAMES = json.loads((Path(__file__).parent / "old_events.json").read_text(encoding="utf-8"))


def _check_events(events, recorded, names, where):
    assert [(e.kind, e.seat, e.private) for e in events] == [
        (r["kind"], r["seat"], r["private"]) for r in recorded
    ], where
    for event, old in zip(events, recorded, strict=True):
        assert event_text(event, "en", names) == old["en"], where
        assert event_text(event, "de", names) == old["de"], where


def _check_error(err, old, where):
    assert err.code == old["code"], where
    assert error_text(err, "en") == old["en"], where
    assert error_text(err, "de") == old["de"], where


@pytest.mark.parametrize("case", GAMES, ids=[g["preset"] for g in GAMES])
def test_recorded_games_read_as_before(case):
    names = [f"P{k}" for k in range(case["players"])]
    game = new_game(preset(case["preset"]), names, case["seed"])
    for n, step in enumerate(case["steps"]):
        seat = step["seat"]
        assert game.status == "playing" and game.current == seat, n
        for probe in step["probes"]:
            where = (n, probe["text"])
            try:
                events = game.copy().apply(seat, probe["text"])
            except RummyError as err:
                _check_error(err, probe, where)
            else:
                assert "code" not in probe, where
                _check_events(events, probe["events"], names, where)
        where = (n, step["text"])
        try:
            events = game.apply(seat, step["text"])
        except RummyError as err:
            _check_error(err, step, where)
            _check_events(game.timeout(), step["timeout"], names, where)
        else:
            assert "code" not in step, where
            _check_events(events, step["events"], names, where)
