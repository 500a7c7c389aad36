"""Tournaments through ``/tournament``, and the app's settings."""

from __future__ import annotations

from pathlib import Path

from bot.app import Settings, parse_shard_ids
from tests.bot.conftest import CHANNEL_ID, CLOSED_DM_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand


async def test_tournament_round_and_standings(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [subcommand("standings")])
        assert said.startswith("There is no tournament")
        _, said = await slash(
            fake, OWNER_ID, CHANNEL_ID, "tournament", [subcommand("create", option("name", "Cup"))]
        )
        assert said.startswith("Tournament Cup (stein) is open")
        for user in (OWNER_ID, PLAYER_ID, CLOSED_DM_ID):
            _, said = await slash(fake, user, CHANNEL_ID, "tournament", [subcommand("join")])
            assert "registered" in said
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "tournament", [subcommand("round")])
        assert said.startswith("Only the organiser")
        # the tables play offline here (entered with /tournament record); bot games: below
        offline = subcommand("round", option("bot_games", False))
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [offline])
        # posted for everyone in the guild's language (German)
        assert said.startswith("Runde 1:") and f"<@{CLOSED_DM_ID}>" in said
        record = subcommand(
            "record", option("table", 1), option("tiles_left", "0 3 5"), option("winner", 1)
        )
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [record])
        assert said == "Table 1: game entered (record)."
        bad = subcommand("director", option("action", "award"), option("table", 1))
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [bad])
        assert "not a list of numbers" in said
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "tournament", [subcommand("standings")])
        lines = said.splitlines()
        assert lines[0] == "Standings of Cup:"
        assert lines[1].startswith("1. Anna: 3/3 MP (100.0%)")
        assert len(lines) == 4


def test_settings_from_env(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "# comment\nDISCORD_TOKEN='from-file'\nDATABASE_URL=sqlite:///x.sqlite3\n"
        "DEV_GUILD_ID=42\nSHARD_COUNT=4\nSHARD_IDS=0-1\n",
        encoding="utf-8",
    )
    settings = Settings.from_env(env, environ={"DISCORD_TOKEN": "from-env", "LOG_LEVEL": ""})
    assert settings.discord_token == "from-env"  # the environment wins
    assert settings.database_url == "sqlite:///x.sqlite3"
    assert settings.log_level == "INFO"
    assert settings.dev_guild_id == 42
    assert (settings.shard_count, settings.shard_ids) == (4, (0, 1))
    defaults = Settings.from_env(tmp_path / "missing", environ={})
    assert defaults.database_url == "sqlite:///data/rummy.sqlite3"
    assert defaults.dev_guild_id is None and defaults.shard_ids is None
    assert parse_shard_ids("0, 2-3") == (0, 2, 3)


def test_cli_and_app_share_one_settings_type() -> None:
    from bot import app, cli

    assert cli.Settings is app.Settings
