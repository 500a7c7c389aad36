"""Run the real bot process path (``bot.app.run``: the operations port, then the Discord login)
against the in-process fake Discord of the tests, and ask its operations port as an operator
would, with curl. Part of docs/DEPLOY.md ("What was tried"); run from the repository root:

    PYTHONPATH=. .venv/bin/python docs/deploy/try_fake_discord.py

Prints the curl answers (the bot's JSON log lines go to stderr); exits 0 when /healthz said 200 while the bot ran and 503 after it
stopped, and /metrics carried the bot's metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from bot.app import Settings, run
from bot.ops.logs import configure_logging
from tests.bot.conftest import GUILD_ID, build_fake
from tests.bot.fakediscord import DEFAULT_TOKEN


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def curl(url: str) -> tuple[str, str]:
    """``curl -s -w '%{http_code}'`` of ``url``: (status, body)."""
    done = subprocess.run(
        ["curl", "-s", "-w", "\n%{http_code}", url], capture_output=True, text=True, check=True
    )
    body, _, status = done.stdout.rpartition("\n")
    return status, body


async def main() -> int:
    fake = build_fake()
    await fake.start()
    port = free_port()
    ok = True
    with tempfile.TemporaryDirectory() as tmp, fake.patched():
        settings = Settings.from_mapping(
            {
                "DISCORD_TOKEN": DEFAULT_TOKEN,
                "DATABASE_URL": f"sqlite:///{Path(tmp) / 'rummy.sqlite3'}",
                "DEV_GUILD_ID": str(GUILD_ID),
                "SHARD_COUNT": "1",  # the fake needs a fixed count (tests/bot/discord_helpers)
                "METRICS_PORT": str(port),
                "METRICS_HOST": "127.0.0.1",
                "LOG_FORMAT": "json",
            }
        )
        configure_logging(settings.log_level, settings.log_format)  # as bot.app.main does
        task = asyncio.create_task(run(settings))
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):  # until the bot is ready (at most 10 s)
            await asyncio.sleep(0.1)
            status, body = await asyncio.to_thread(curl, url + "/healthz")
            if status == "200":
                break
        print(f"$ curl -s {url}/healthz   (bot running)\n{body}   [HTTP {status}]")
        ok &= status == "200"
        status, body = await asyncio.to_thread(curl, url + "/metrics")
        lines = [line for line in body.splitlines() if line.startswith("rummy_")]
        print(f"$ curl -s {url}/metrics | grep ^rummy_   [HTTP {status}]")
        print("\n".join(lines))
        ok &= status == "200" and any(line.startswith("rummy_commands_total") for line in lines)
        # stop the bot as systemd would (its task is cancelled: the client closes)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        code = await asyncio.to_thread(
            subprocess.run,
            ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url + "/healthz"],
            capture_output=True,
            text=True,
        )
        print(f"$ curl -s {url}/healthz   (bot stopped) -> {code.stdout or 'connection refused'}")
    await fake.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
