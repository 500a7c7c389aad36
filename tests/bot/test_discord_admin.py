"""Admins: ``/rummy status`` for a server admin lists the server's games set aside (issue 14: a
game that cannot be loaded or continued is quarantined and listed by an admin status command);
admin commands, guild-only commands, the bot's own permissions and seasons (issue 16, item 7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import discord

from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import make_bot, slash, start_rummikub_with_a_bot
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand, subcommand_group


async def test_admin_sees_games_set_aside_after_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = make_bot(db)
    async with running(bot):
        await start_rummikub_with_a_bot(fake, bot, OWNER_ID, CHANNEL_ID)
        [game_id] = bot.service.live_game_ids()
    # the game's row is damaged while the bot is down: its seats are no longer JSON
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET seats = '[{' WHERE id = ?", (game_id,))
    bot = make_bot(db)
    async with running(bot):
        assert bot.service.live_game_ids() == []
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [subcommand("status")])
        lines = said.split("\n")
        assert lines[0].startswith("There is no game in this channel")
        assert lines[1].startswith("Set aside") and "1 game" in lines[1]
        assert lines[2].startswith(f"- {game_id}: ") and "seats" in lines[2]
        _, said = await slash(
            fake, OWNER_ID, CHANNEL_ID, "rummy", [subcommand("status")], locale="de"
        )
        assert said.split("\n")[1].startswith("Beiseitegelegt")
        # a member without Manage Server sees nothing of it
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "rummy", [subcommand("status")])
        assert "\n" not in said and game_id not in said
        # another guild's admin view does not list it
        assert await bot.service.quarantined_in(str(GUILD_ID + 1)) == {}
        assert game_id in await bot.service.quarantined_in(str(GUILD_ID))


GAME_COMMANDS = {"rummy", "play", "draw", "done", "reset", "undo", "rack", "hint"}
GAME_COMMANDS |= {"ladder", "stats", "tournament", "rummyadmin"}


async def test_admin_commands_and_guild_only_in_the_synced_payloads(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Discord keeps default_member_permissions on top-level commands only: /rummyadmin carries
    Manage Server; every command is guild-only (no DM context)."""
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        synced = {c["name"]: c for c in fake_discord.synced_commands(GUILD_ID)}
        assert set(synced) >= GAME_COMMANDS
        manage_guild = 1 << 5
        admin = synced["rummyadmin"]
        assert int(admin["default_member_permissions"]) == manage_guild
        assert {o["name"] for o in admin["options"]} == {"config", "season"}
        season = next(o for o in admin["options"] if o["name"] == "season")
        assert {o["name"] for o in season["options"]} == {"start", "end", "list"}
        assert admin["name_localizations"]["de"] == "rummyadmin"
        for name in GAME_COMMANDS:
            command = synced[name]
            assert command.get("contexts") == [0] or command.get("dm_permission") is False, name
        # the game commands are for everybody (no default permission)
        assert synced["rummy"]["default_member_permissions"] is None
        rummy = {o["name"]: o for o in synced["rummy"]["options"]}
        assert {o["name"] for o in rummy["season"]["options"]} == {"start", "end", "list"}


async def test_a_missing_bot_permission_is_named(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.guilds[GUILD_ID]
    attach = discord.Permissions(attach_files=True).value
    for role in guild.roles.values():
        role.permissions &= ~attach
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"))
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        assert said == (
            'I cannot open a table here: I lack the permission "Attach Files" in this channel.'
            " Nothing was created."
        )
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new], locale="de")
        assert "„Dateien anhängen“" in said
        assert fake.threads_in(CHANNEL_ID) == [] and bot.service.live_game_ids() == []
        assert await bot.store.load_unfinished_games() == []
        public = [m for m in fake.messages_in(CHANNEL_ID) if not m.flags & (1 << 6)]
        assert public == []


async def test_seasons_for_admins(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):

        def season(op: str, *options):
            return [
                subcommand_group("season", subcommand(op, option("preset", "rummikub"), *options))
            ]

        # not for members without Manage Server; nothing is stored
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "rummy", season("start"))
        assert said.startswith("Only members with the Manage Server permission")
        assert await bot.service.league.seasons(str(GUILD_ID), "rummikub") == []
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", season("list"))
        assert said == "rummikub has no seasons yet; the first game played opens season 1."
        _, said = await slash(
            fake, OWNER_ID, CHANNEL_ID, "rummy", season("start", option("name", "Spring"))
        )
        assert said == "Season 1 of rummikub has started (Spring)."
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummyadmin", season("start"))
        assert said == "Season 2 of rummikub has started."
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", season("end"), locale="de")
        assert said.startswith("Saison 2 von rummikub ist beendet")
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", season("end"))
        assert "no open season" in said
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "rummyadmin", season("list"))
        lines = said.splitlines()
        assert lines[0] == "Seasons of rummikub:"
        assert lines[1].startswith("1. Spring ") and " to " in lines[1]
        assert lines[2].startswith("2. ") and " to " in lines[2]
        stored = await bot.service.league.seasons(str(GUILD_ID), "rummikub")
        assert [(s.number, s.name, s.archived) for s in stored] == [
            (1, "Spring", True),
            (2, "", True),
        ]
