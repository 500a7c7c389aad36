"""The process settings, read from ``.env`` and the environment (no Discord import here).

:meth:`Settings.from_env` reads ``.env`` in the working directory; variables already set in the
environment win. Keys: ``DISCORD_TOKEN``, ``DATABASE_URL`` (``sqlite:///relative/path``,
``sqlite:////absolute/path``, a plain SQLite file path, or
``postgresql://user:password@host:port/database``; default
``sqlite:///data/rummy.sqlite3``), ``LOG_LEVEL``,
``DEV_GUILD_ID`` (sync commands to this guild only, instantly), ``SHARD_COUNT`` and ``SHARD_IDS``
(``0,1`` or ``0-3``: the shards this process runs; see docs/DISCORD.md), ``METRICS_PORT`` (and
``METRICS_HOST``, default ``0.0.0.0``: ``/healthz`` and ``/metrics``; off unless set) and
``LOG_FORMAT`` (``text`` or ``json``; see docs/DEPLOY.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATABASE_URL = "sqlite:///data/rummy.sqlite3"


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


#: the schemes DATABASE_URL may have (bot.store.open_store opens them)
DATABASE_SCHEMES = ("sqlite", "postgresql", "postgres")


def parse_database_url(text: str) -> str:
    """``DATABASE_URL`` as given (empty: the default): a ``sqlite:///`` or ``postgresql://``
    URL, or a plain path (a SQLite file). ValueError with one line for a URL of another kind."""
    url = text.strip() or DEFAULT_DATABASE_URL
    scheme, sep, _ = url.partition("://")
    if sep and scheme.lower() not in DATABASE_SCHEMES:
        raise ValueError(
            f"DATABASE_URL must be sqlite:///path/to/file.sqlite3, "
            f"postgresql://user:password@host:port/database or a SQLite file path, not "
            f"{scheme}://..."
        )
    return url


def parse_metrics_port(text: str) -> int | None:
    """``METRICS_PORT``: a TCP port 1-65535; empty -> None (no operations port)."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"METRICS_PORT must be a port number from 1 to 65535, not {text!r}")
    return int(text)


def parse_log_format(text: str) -> str:
    """``LOG_FORMAT``: ``text`` (the default) or ``json``."""
    fmt = text.strip().lower() or "text"
    if fmt not in ("text", "json"):
        raise ValueError(f"LOG_FORMAT must be text or json, not {text.strip()!r}")
    return fmt


def parse_shard_ids(text: str) -> tuple[int, ...] | None:
    """``"0,1,2"`` or ``"0-3"`` (or a mix) -> shard ids; empty -> None (all shards). Anything
    else is a ValueError with one line naming the part that is wrong."""
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()) or not low.isascii():
            raise ValueError(
                f"SHARD_IDS must be shard numbers or ranges such as 0,1 or 0-3, not {part!r}"
            )
        if dash:
            if int(high) < int(low):
                raise ValueError(f"SHARD_IDS range {part!r} runs backwards (write {high}-{low})")
            ids.extend(range(int(low), int(high) + 1))
        else:
            ids.append(int(part))
    return tuple(ids) or None


def parse_shard_count(text: str, ids: tuple[int, ...] | None) -> int | None:
    """``SHARD_COUNT``: a whole number >= 1 (empty: None, one process for everything); every
    id of ``SHARD_IDS`` must be below it. ValueError with one line otherwise."""
    text = text.strip()
    if not text:
        if ids is not None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (the total number of shards)")
        return None
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise ValueError(f"SHARD_COUNT must be a whole number of 1 or more, not {text!r}")
    count = int(text)
    outside = sorted({i for i in ids or () if i >= count})
    if outside:
        raise ValueError(
            f"SHARD_IDS {', '.join(map(str, outside))} outside 0-{count - 1} (SHARD_COUNT={count})"
        )
    return count


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot process needs to know."""

    discord_token: str = ""
    database_url: str = DEFAULT_DATABASE_URL
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    metrics_port: int | None = None  # METRICS_PORT: /healthz and /metrics (bot.ops); None: off
    metrics_host: str = "0.0.0.0"  # METRICS_HOST: the address the port listens on
    log_format: str = "text"  # LOG_FORMAT: text or json (one JSON object per line)

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
        if guild and not (guild.isascii() and guild.isdigit()):
            raise ValueError(f"DEV_GUILD_ID must be a guild id (digits), not {guild!r}")
        ids = parse_shard_ids(values.get("SHARD_IDS", ""))
        count = parse_shard_count(values.get("SHARD_COUNT", ""), ids)
        return cls(
            discord_token=values.get("DISCORD_TOKEN", "").strip(),
            database_url=parse_database_url(values.get("DATABASE_URL", "")),
            log_level=values.get("LOG_LEVEL", "").strip() or "INFO",
            dev_guild_id=int(guild) if guild else None,
            shard_count=count,
            shard_ids=ids,
            metrics_port=parse_metrics_port(values.get("METRICS_PORT", "")),
            metrics_host=values.get("METRICS_HOST", "").strip() or "0.0.0.0",
            log_format=parse_log_format(values.get("LOG_FORMAT", "")),
        )
