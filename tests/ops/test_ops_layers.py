"""The metrics library stays at the edge: the engine, the service, the league, the store and
the wiring import neither prometheus-client nor the operations package (they see only the
Metrics protocol of bot.service.ports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_core_imports_no_metrics_library():
    code = (
        "import sys, engine, bot.service, bot.league, bot.store, bot.wiring, bot.soak\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'prometheus_client'"
        " or m == 'bot.ops' or m.startswith('bot.ops.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
