"""What a service without pictures loads: Pillow and :mod:`rendering` only when a renderer is
built, asyncpg only for a ``postgresql://`` URL (each is megabytes resident in every process
that imports it; the soak and the console's text mode draw nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("PIL", "rendering", "asyncpg", "prometheus_client")


def _loaded_after(code: str) -> dict[str, bool]:
    """Run ``code`` in a fresh interpreter; which of HEAVY it left in sys.modules."""
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json, sys
        print(json.dumps({{name: name in sys.modules for name in {HEAVY!r}}}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_sqlite_service_without_pictures_loads_no_pillow_asyncpg_or_prometheus(tmp_path):
    loaded = _loaded_after(
        f"""
        import asyncio
        from bot.soak import run_soak

        figures = asyncio.run(
            run_soak({str(tmp_path / "soak.sqlite3")!r}, games=1, concurrency=1,
                     think_in_worker=False)
        )
        assert figures["games_finished"] == 1, figures
        """
    )
    assert loaded == dict.fromkeys(HEAVY, False)


def test_renderer_loads_rendering_when_built_and_draws(tmp_path):
    loaded = _loaded_after(
        """
        from bot.wiring import RenderingRenderer

        png = RenderingRenderer().rack([], "en")
        assert png.startswith(b"\\x89PNG"), png[:8]
        """
    )
    assert loaded["PIL"] and loaded["rendering"]
    assert not loaded["asyncpg"]


def test_bot_app_loads_prometheus_only_for_the_metrics_port():
    loaded = _loaded_after("import bot.app")
    assert not loaded["prometheus_client"]
    assert not loaded["asyncpg"] and not loaded["PIL"]
