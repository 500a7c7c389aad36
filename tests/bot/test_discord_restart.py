"""A restart in the middle of a game: a new bot process on the same SQLite file resumes it, the
buttons posted by the old process still work, and the resumed turn timer reaches Discord."""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import answer_of, latest_with_buttons, make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

START = 1_700_000_000.0


async def test_restart_resumes_game_buttons_and_timer(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    db = tmp_path / "restart.sqlite3"
    first = make_bot(db, clock=ManualClock(START), seed=4)
    async with running(first):
        await slash(
            fake,
            OWNER_ID,
            CHANNEL_ID,
            "rummy",
            [
                subcommand(
                    "new",
                    option("preset", "stein"),
                    option("players", 3),
                    option("bots", 1),
                    option("turn_time", 60),
                )
            ],
        )
        [thread] = fake.threads_in(CHANNEL_ID)
        await slash(fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")])
        [game_id] = first.service.live_game_ids()
        old_message = latest_with_buttons(fake, thread.id)
        assert f"<@{OWNER_ID}>" in old_message.content  # Anna moves first
        click = await fake.click(OWNER_ID, thread.id, old_message.id, f"rummy:draw:{game_id}")
        assert (await answer_of(fake, click)).startswith("You drew")
        seq_before = (await first.store.load_game(game_id)).seq
    assert first.is_closed()

    clock = ManualClock(START)
    second = make_bot(db, clock=clock)
    async with running(second):
        assert second.service.live_game_ids() == [game_id]
        assert second.service.status(game_id) == "playing"
        # the button on the message the first process posted reaches the new process
        click = await fake.click(OWNER_ID, thread.id, old_message.id, f"rummy:draw:{game_id}")
        said = await answer_of(fake, click)
        assert said.startswith("You drew"), said
        assert (await second.store.load_game(game_id)).seq == seq_before + 1
        rack = second.service.rack(game_id, str(OWNER_ID))
        _, said = await slash(
            fake, OWNER_ID, thread.id, "play", [option("text", f"discard {rack[0]}")]
        )
        await second.service.wait_idle()
        # the computer moved (through the service's sink) and Bernd is prompted, by bot two
        prompt = await fake.wait_for_message(
            lambda m: m.channel_id == thread.id and m.content.startswith(f"<@{PLAYER_ID}>")
        )
        assert f"rummy:draw:{game_id}" in prompt.custom_ids()
        # Bernd lets his time run out: the resumed timer acts and its messages reach Discord
        seq = (await second.store.load_game(game_id)).seq
        clock.advance(61)
        await fake.wait_until(
            lambda: True if second.service.view(game_id).current == 0 else None, 5, "time-out"
        )
        await second.service.wait_idle()
        assert (await second.store.load_game(game_id)).seq > seq
        await fake.wait_for_message(
            lambda m: (
                m.channel_id == thread.id
                and m.content.startswith(f"<@{OWNER_ID}>")
                and m.id > prompt.id
            )
        )
