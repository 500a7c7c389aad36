"""Record ``old_events.json``: seeded computer games of every preset with, for each command, the
events it gave (English and German sentences), the hint and a few refused commands on a copy
(their error sentences). Recorded once by the version before the redesign (issue 15, commit
1dba080), where the engine still wrote its own sentences; ``test_events.py`` replays the same
commands and asserts that i18n words every event and error exactly as before.

Run (only to re-record on purpose, in a checkout of the old version):
``.venv/bin/python -m tests.i18n.record_events``
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
CASES = [
    ("stein", 3, 1),
    ("stein_plus", 3, 2),
    ("rummikub", 3, 3),
    ("romme", 3, 4),
    ("rummy", 2, 5),
]
TURNS = 60
PROBES = [
    "hint",
    "meld R1 R2",
    "add 99 R5",
    "discard",
    "frobnicate",
    "draw; draw; draw",
    "swap 1 R5",
]


def _events(events) -> list[dict]:
    return [
        {
            "kind": e.kind,
            "seat": e.seat,
            "private": e.private,
            "en": e.message("en"),
            "de": e.message("de"),
        }
        for e in events
    ]


def record() -> list[dict]:
    from engine.ai import choose_move
    from engine.errors import RummyError
    from engine.game import new_game
    from engine.rules import preset as rules_of

    games = []
    for name, players, seed in CASES:
        game = new_game(rules_of(name), [f"P{k}" for k in range(players)], seed)
        steps = []
        for turn in range(TURNS):
            if game.status != "playing":
                break
            seat = game.current
            probes = []
            for probe in PROBES if turn % 2 == 0 else ():
                try:
                    probes.append(
                        {"text": probe, "events": _events(game.copy().apply(seat, probe))}
                    )
                except RummyError as err:
                    probes.append(
                        {
                            "text": probe,
                            "code": err.code,
                            "en": err.message("en"),
                            "de": err.message("de"),
                        }
                    )
            text = choose_move(game, seat, level="medium")
            try:
                step = {"seat": seat, "text": text, "events": _events(game.apply(seat, text))}
            except RummyError as err:
                step = {
                    "seat": seat,
                    "text": text,
                    "code": err.code,
                    "en": err.message("en"),
                    "de": err.message("de"),
                }
                step["timeout"] = _events(game.timeout())
            step["probes"] = probes
            steps.append(step)
        games.append({"preset": name, "players": players, "seed": seed, "steps": steps})
    return games


if __name__ == "__main__":
    data = record()
    (HERE / "old_events.json").write_text(
        json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
