"""The turn reminder reaches the game's thread worded from the service's data (its i18n key),
naming the player by mention, in that player's language (the line is addressed to them), as an
edit of the turn message: no new message, no second notification in one turn."""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import latest_with_buttons, make_bot, public_messages, slash
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
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new], locale="de")
        [thread] = fake.threads_in(CHANNEL_ID)
        await slash(fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")])
        prompt = latest_with_buttons(fake, thread.id)
        assert f"<@{OWNER_ID}>" in prompt.text  # Anna moves first
        shown = len(public_messages(fake))
        clock.advance(46)  # 14 of 60 seconds left: past the reminder (a quarter of the turn)
        reminder = await fake.wait_for_message(
            lambda m: m.channel_id == thread.id and "Sekunden" in m.text
        )
        # the turn message itself says it, in Anna's language (German), naming her by mention
        assert reminder.id == prompt.id
        assert reminder.text.splitlines()[-1] == f"<@{OWNER_ID}>, noch 14 Sekunden für deinen Zug."
        assert f"rummy:done:{bot.service.live_game_ids()[0]}" in reminder.custom_ids()
        assert len(public_messages(fake)) == shown  # nothing new in the thread
        assert [m for m in fake.messages.values() if OWNER_ID in m.notified] == [prompt]
