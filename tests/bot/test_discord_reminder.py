"""The turn reminder reaches the game's thread worded from the service's data (its i18n key),
naming the player by mention, in the guild's language."""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import latest_with_buttons, make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

START = 1_700_000_000.0


async def test_reminder_mentions_the_player_to_move(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    clock = ManualClock(START)
    bot = make_bot(tmp_path / "reminder.sqlite3", clock=clock, seed=4)
    async with running(bot):
        new = subcommand(
            "new",
            option("preset", "stein"),
            option("players", 3),
            option("bots", 1),
            option("turn_time", 60),
        )
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [thread] = fake.threads_in(CHANNEL_ID)
        await slash(fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")])
        prompt = latest_with_buttons(fake, thread.id)
        assert f"<@{OWNER_ID}>" in prompt.content  # Anna moves first
        clock.advance(46)  # 14 of 60 seconds left: past the reminder (a quarter of the turn)
        reminder = await fake.wait_for_message(
            lambda m: m.channel_id == thread.id and "Sekunden" in m.content
        )
        # the test guild speaks German; the player is mentioned where the service names them
        assert reminder.content == f"<@{OWNER_ID}>, noch 14 Sekunden für deinen Zug."
        assert reminder.id > prompt.id
