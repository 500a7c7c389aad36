"""``/rummy status`` for a server admin lists the server's games set aside (issue 14: a game that
cannot be loaded or continued is quarantined and listed by an admin status command)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import make_bot, slash, start_rummikub_with_a_bot
from tests.bot.fakediscord import FakeDiscord, running, subcommand


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
