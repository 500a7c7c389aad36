"""The Discord bot's entry points: settings, the app factory and ``main``.

- :meth:`Settings.from_env` reads ``.env`` in the working directory; variables already set in the
  environment win. Keys: ``DISCORD_TOKEN``, ``DATABASE_URL`` (``sqlite:///relative/path`` or
  ``sqlite:////absolute/path``; default ``sqlite:///data/rummy.sqlite3``), ``LOG_LEVEL``,
  ``DEV_GUILD_ID`` (sync commands to this guild only, instantly), ``SHARD_COUNT`` and
  ``SHARD_IDS`` (``0,1`` or ``0-3``: the shards this process runs; see docs/DISCORD.md).
- :func:`create_bot` builds the :class:`~bot.discord.client.RummyBot` (nothing connects yet).
- :func:`main` runs it until stopped; ``rummy-bot`` (bot/cli.py) calls it when a token is set.
"""

from __future__ import annotations

import logging
from typing import Any

from discord.ext import commands

from .settings import DEFAULT_DATABASE_URL, Settings, parse_shard_ids, read_env_file

__all__ = [
    "DEFAULT_DATABASE_URL",
    "Settings",
    "create_bot",
    "main",
    "parse_shard_ids",
    "read_env_file",
]

log = logging.getLogger(__name__)


def create_bot(settings: Settings, **service_options: Any) -> commands.Bot:
    """The bot, ready for ``start(token)``; ``service_options`` (``service_config``, ``clock``,
    ``players``) go to the game service."""
    from .discord.client import RummyBot

    return RummyBot(settings, **service_options)


def main(settings: Settings | None = None) -> int:
    """Run the bot until it is stopped (Ctrl-C). Returns a process exit code."""
    settings = settings if settings is not None else Settings.from_env()
    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger().setLevel(level)
    if not settings.discord_token:
        log.error("DISCORD_TOKEN is not set (environment or .env)")
        return 2
    bot = create_bot(settings)
    bot.run(settings.discord_token, log_handler=None)
    return 0
