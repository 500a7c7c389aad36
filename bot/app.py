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
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from discord.ext import commands

DEFAULT_DATABASE_URL = "sqlite:///data/rummy.sqlite3"

log = logging.getLogger(__name__)


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines of a .env file (comments, blank lines and ``export`` skipped)."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key] = value
    return values


def parse_shard_ids(text: str) -> tuple[int, ...] | None:
    """``"0,1,2"`` or ``"0-3"`` (or a mix) -> shard ids; empty -> None (all shards)."""
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            low, high = part.split("-", 1)
            ids.extend(range(int(low), int(high) + 1))
        else:
            ids.append(int(part))
    return tuple(ids) or None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot process needs to know."""

    discord_token: str = ""
    database_url: str = DEFAULT_DATABASE_URL
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None

    @classmethod
    def from_env(
        cls, env_file: str | Path | None = ".env", environ: Mapping[str, str] | None = None
    ) -> Settings:
        """Settings from ``.env`` overlaid with the (non-empty) environment variables."""
        merged = read_env_file(Path(env_file)) if env_file else {}
        source = os.environ if environ is None else environ
        merged.update({k: v for k, v in source.items() if v != ""})
        return cls.from_mapping(merged)

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> Settings:
        guild = values.get("DEV_GUILD_ID", "").strip()
        count = values.get("SHARD_COUNT", "").strip()
        ids = parse_shard_ids(values.get("SHARD_IDS", ""))
        if ids is not None and not count:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (the total number of shards)")
        return cls(
            discord_token=values.get("DISCORD_TOKEN", "").strip(),
            database_url=values.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL,
            log_level=values.get("LOG_LEVEL", "").strip() or "INFO",
            dev_guild_id=int(guild) if guild else None,
            shard_count=int(count) if count else None,
            shard_ids=ids,
        )

    @classmethod
    def coerce(cls, other: Any) -> Settings:
        """Accept this class or any object with the same attribute names (bot.cli's)."""
        if isinstance(other, cls):
            return other
        guild = getattr(other, "dev_guild_id", None)
        return cls(
            discord_token=getattr(other, "discord_token", "") or "",
            database_url=getattr(other, "database_url", "") or DEFAULT_DATABASE_URL,
            log_level=getattr(other, "log_level", "") or "INFO",
            dev_guild_id=int(guild) if guild not in (None, "") else None,
            shard_count=getattr(other, "shard_count", None),
            shard_ids=getattr(other, "shard_ids", None),
        )


def create_bot(settings: Settings | Any, **service_options: Any) -> commands.Bot:
    """The bot, ready for ``start(token)``; ``service_options`` (``service_config``, ``clock``,
    ``players``) go to the game service."""
    from .discord.client import RummyBot

    return RummyBot(Settings.coerce(settings), **service_options)


def main(settings: Settings | Any | None = None) -> int:
    """Run the bot until it is stopped (Ctrl-C). Returns a process exit code."""
    settings = Settings.coerce(settings) if settings is not None else Settings.from_env()
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
