"""Picture timings: ``python -m benchmarks.render`` prints JSON with median ms and PNG bytes.

Targets (issue 5): the full 106-tile table (104 tiles + 2 jokers, all laid out as melds) in at most
40 ms and 250 KB; a 20-piece rack in at most 10 ms. Each case is drawn once to fill the sprite
caches, then timed ``REPEATS`` times with ``time.perf_counter``; the median is reported.
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from collections.abc import Callable

from engine.pieces import parse_faces
from i18n import render_labels
from rendering import Labels, render_ladder, render_rack, render_table
from rendering.ladder import LadderRow, render_history
from rendering.samples import full_table

REPEATS = 30
LABELS = Labels(**render_labels("en"))  # the words a caller passes in (i18n), as the bot does
RACK_20 = parse_faces("R5 R6 R7 B9 Y9 K9 J B1 B2 B3 B4 R12 K12 Y3 Y4 R1 K7 B13 Y13 R9")


def measure(draw: Callable[[], bytes], repeats: int = REPEATS) -> dict[str, float]:
    """Median and spread of ``draw`` in ms, and the size of its PNG."""
    data = draw()  # warm the caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        draw()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 2),
        "min_ms": round(times[0], 2),
        "p90_ms": round(times[int(len(times) * 0.9) - 1], 2),
        "bytes": len(data),
        "kb": round(len(data) / 1024, 1),
    }


def cases() -> dict[str, tuple[Callable[[], bytes], dict[str, float]]]:
    """Name -> (draw, targets)."""
    table_106 = full_table("rummikub", jokers=2)
    assert sum(len(m.pieces) for m in table_106.melds) == 106
    stein_plus = full_table("stein_plus")
    romme = full_table("romme", 6)
    ladder = [
        LadderRow(
            f"Player {i}", 20 - i, 10 - i // 2, 50.0 - i, 80.0, 62.5 - i, 20.0 - i, 0.5 - i % 3
        )
        for i in range(10)
    ]
    return {
        "table_106_tiles": (
            lambda: render_table(table_106, labels=LABELS),
            {"median_ms": 40, "kb": 250},
        ),
        "table_stein_plus_108": (lambda: render_table(stein_plus, labels=LABELS), {}),
        "table_romme_110_cards_6_seats": (lambda: render_table(romme, labels=LABELS), {}),
        "rack_20": (
            lambda: render_rack(RACK_20, sort="run", new={0, 5}, labels=LABELS),
            {"median_ms": 10},
        ),
        "ladder_10": (lambda: render_ladder(ladder, labels=LABELS), {}),
        "history_50": (lambda: render_history([i * 0.3 for i in range(50)], labels=LABELS), {}),
    }


def run(repeats: int = REPEATS) -> dict[str, object]:
    """Measure every case; ``ok`` says whether each met its targets."""
    results: dict[str, object] = {"machine": f"{platform.machine()} {platform.python_version()}"}
    for name, (draw, targets) in cases().items():
        figures = measure(draw, repeats)
        ok = all(figures[key] <= limit for key, limit in targets.items())
        results[name] = {**figures, "targets": targets, "ok": ok}
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
