"""The one game message of a turn, edited while the turn goes on.

Rummikub, Anna against Bernd: while the mover lays pieces (before ``done``) the turn message's
picture shows their working table (everybody watches, as at a real table); ``reset`` shows the
table as it was; a refused click by the other player changes nothing and says nothing in public;
``done`` posts the next turn's message and the old one keeps its last picture, without buttons.
"""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from bot.service.players import computer_player
from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import (
    answer_of,
    current_state,
    every_dm_to,
    game_messages,
    latest_with_buttons,
    make_bot,
    notifications,
    public_messages,
    slash,
    with_buttons,
)
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

START = 1_700_000_000.0


async def test_turn_message_follows_the_working_table(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    clock = ManualClock(START)
    bot = make_bot(tmp_path / "turn.sqlite3", pictures=True, clock=clock, seed=1)
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"), option("players", 2))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [thread] = fake.threads_in(CHANNEL_ID)
        await slash(fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")])
        [game_id] = bot.service.live_game_ids()
        record, state = await current_state(bot, game_id)
        mover = int(record.seats[state.current].player_id)
        other = PLAYER_ID if mover == OWNER_ID else OWNER_ID
        text = computer_player("strong").choose(state, state.current)
        assert text.startswith("meld ") and text.endswith("; done"), text
        message = latest_with_buttons(fake, thread.id)
        start_picture = message.file("table.png")
        shown = len(public_messages(fake))

        # laying pieces: the same message, edited, shows the working table
        await slash(fake, mover, thread.id, "play", [option("text", text.removesuffix("; done"))])
        edited = fake.messages[message.id]
        working = edited.file("table.png")
        assert working != start_picture and len(edited.edited) == 1
        assert len(public_messages(fake)) == shown and edited.notified == (mover,)
        # the other player's refused click: a short private answer, nothing else
        click = await fake.click(other, thread.id, message.id, f"rummy:done:{game_id}")
        said = await answer_of(fake, click)
        assert said.startswith("It is not your turn"), said
        assert len(edited.edited) == 1 and len(public_messages(fake)) == shown
        # reset: the table as it was
        await slash(fake, mover, thread.id, "play", [option("text", "reset")])
        assert edited.file("table.png") == start_picture and len(edited.edited) == 2
        # the turn's commands again, and done: the next turn gets its own message
        await slash(fake, mover, thread.id, "play", [option("text", text)])
        await fake.wait_until(
            lambda: True if not fake.messages[message.id].custom_ids() else None,
            5,
            "the first turn's message without buttons",
        )
        [live] = with_buttons(fake, thread.id)
        assert live.id != message.id and f"<@{other}>" in live.text
        assert [m.id for m in game_messages(fake, thread.id)] == [message.id, live.id]
        assert len(public_messages(fake)) == shown + 1

        # the other player lets the time run out: the penalty tiles are told in their one rack
        # DM (an edit, no new notification), the next turn message pings the mover again
        dms = every_dm_to(fake, other)
        clock.advance(bot.service.deadline(game_id) - START + 1)
        await fake.wait_until(
            lambda: (
                True
                if len(with_buttons(fake, thread.id)) == 1
                and with_buttons(fake, thread.id)[0].id != live.id
                else None
            ),
            5,
            "the turn after the time-out",
        )
        [dm] = fake.dms_to(other)
        await fake.wait_until(lambda: True if dm.edited else None, 5, "the rack DM's edit")
        assert "You drew" in dm.content, dm.content
        assert every_dm_to(fake, other) == dms
        assert notifications(fake, other, after=live.id) == []
