"""The Discord bot's entry points: settings, the app factory and ``main``.

- :meth:`Settings.from_env` reads ``.env`` in the working directory; variables already set in the
  environment win. Keys: ``DISCORD_TOKEN``, ``DATABASE_URL`` (``sqlite:///relative/path``,
  ``sqlite:////absolute/path`` or ``postgresql://...``; default
  ``sqlite:///data/rummy.sqlite3``), ``LOG_LEVEL``, ``LOG_FORMAT`` (``text`` or ``json``),
  ``DEV_GUILD_ID`` (sync commands to this guild only, instantly), ``SHARD_COUNT`` and
  ``SHARD_IDS`` (``0,1`` or ``0-3``: the shards this process runs; see docs/DISCORD.md),
  ``METRICS_PORT`` / ``METRICS_HOST`` (the operations port; see docs/DEPLOY.md).
- :func:`create_bot` builds the :class:`~bot.discord.client.RummyBot` (nothing connects yet).
- :func:`ops_server` builds the operations server of a bot (``/healthz``, ``/metrics``).
- :func:`main` runs it until stopped; ``rummy-bot`` (bot/cli.py) calls it when a token is set.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.ext import commands

from .ops.health import gateway_check, store_check
from .ops.logs import configure_logging
from .settings import DEFAULT_DATABASE_URL, Settings, parse_shard_ids, read_env_file

if TYPE_CHECKING:
    from .ops.http import OpsServer
    from .ops.metrics import PrometheusMetrics

# The operations server and prometheus-client are imported only when METRICS_PORT is set (the
# bot without it neither counts nor serves metrics, and need not hold the module).

__all__ = [
    "DEFAULT_DATABASE_URL",
    "Settings",
    "create_bot",
    "main",
    "ops_server",
    "parse_shard_ids",
    "read_env_file",
    "run",
]

log = logging.getLogger(__name__)


def create_bot(settings: Settings, **service_options: Any) -> commands.Bot:
    """The bot, ready for ``start(token)``; ``service_options`` (``service_config``, ``clock``,
    ``players``, ``metrics``) go to the game service."""
    from .discord.client import RummyBot

    return RummyBot(settings, **service_options)


def live_games(bot: Any) -> dict[str, int]:
    """The bot's games held in memory, by status (none before the service is up)."""
    service = getattr(bot, "service", None)
    if service is None:
        return {}
    return dict(Counter(service.status(g) or "gone" for g in service.live_game_ids()))


def ops_server(
    bot: Any, metrics: PrometheusMetrics, *, port: int = 0, host: str = "0.0.0.0"
) -> OpsServer:
    """The operations server of ``bot`` (not yet listening): ``/healthz`` is healthy while the
    Discord gateway is connected and the bot's store answers a read; ``/metrics`` exports
    ``metrics`` (which the bot's service and Discord delivery count into) and the live games."""
    from .ops.http import OpsServer

    metrics.watch_live_games(lambda: live_games(bot))
    checks = [gateway_check(bot), store_check(lambda: getattr(bot, "store", None))]
    return OpsServer(metrics, checks, host=host, port=port)


async def run(settings: Settings, **service_options: Any) -> int:
    """Log in and run until the bot is closed, with the operations port when
    ``settings.metrics_port`` is set. Returns a process exit code: 2 when the port cannot be
    used or Discord refuses the token (restarting does not help), 1 when Discord cannot be
    reached (one log line each)."""
    metrics = None
    if settings.metrics_port:
        from .ops.metrics import PrometheusMetrics

        metrics = PrometheusMetrics()
        service_options.setdefault("metrics", metrics)
    bot = create_bot(settings, **service_options)
    async with bot:
        ops = None
        if metrics is not None:
            ops = ops_server(
                bot, metrics, port=settings.metrics_port or 0, host=settings.metrics_host
            )
            from .ops.http import OpsServerError

            try:
                await ops.start()
            except OpsServerError as exc:
                log.error("%s", exc)
                return 2
        try:
            await bot.start(settings.discord_token)
        except discord.LoginFailure as exc:
            log.error("Discord refused the bot token (DISCORD_TOKEN): %s", exc)
            return 2
        except (aiohttp.ClientError, OSError) as exc:
            log.error("Discord cannot be reached: %s", " ".join(str(exc).split()))
            return 1
        finally:
            if ops is not None:
                await ops.stop()
    return 0


def main(settings: Settings | None = None) -> int:
    """Run the bot until it is stopped (Ctrl-C). Returns a process exit code."""
    settings = settings if settings is not None else Settings.from_env()
    configure_logging(settings.log_level, settings.log_format)
    if not settings.discord_token:
        log.error("DISCORD_TOKEN is not set (environment or .env)")
        return 2
    try:
        return asyncio.run(run(settings))
    except KeyboardInterrupt:
        return 0
