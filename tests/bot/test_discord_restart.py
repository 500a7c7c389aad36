"""A restart in the middle of a game: a new bot process on the same SQLite file resumes it, the
buttons of every age answer sensibly, and the resumed turn timer reaches Discord.

- the live turn message posted by the old process keeps working, and the new process removes
  its buttons when the turn passes (where it is survives in the service's adapter data);
- a message of the version before (classic buttons on a text message) only points to the live
  message; its "My rack" still answers; a button of another game gets a short answer;
- nothing of that is public, nothing changes;
- a person's language survives the restart: Bernd's turn-start rack DM is German although he
  did not interact with the new process.
"""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from i18n import t
from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import (
    answer_of,
    every_dm_to,
    latest_with_buttons,
    make_bot,
    public_messages,
    slash,
    with_buttons,
)
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

START = 1_700_000_000.0


def classic_buttons(game_id: str, *actions: str) -> list[dict]:
    """An action row as the version before one-message-per-turn posted it."""
    buttons = [
        {"type": 2, "style": 2, "label": action, "custom_id": f"rummy:{action}:{game_id}"}
        for action in actions
    ]
    return [{"type": 1, "components": buttons}]


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
        await slash(fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")], locale="de")
        [game_id] = first.service.live_game_ids()
        old_message = latest_with_buttons(fake, thread.id)
        assert f"<@{OWNER_ID}>" in old_message.text  # Anna moves first
        # buttons of an older version of the bot, and of another game
        legacy = fake.post_as_bot(
            thread.id,
            {
                "content": f"<@{OWNER_ID}>, it is your turn.",
                "components": classic_buttons(game_id, "draw", "rack"),
            },
        )
        other = fake.post_as_bot(
            thread.id, {"content": "an old game", "components": classic_buttons("0ld9ame", "draw")}
        )
        click = await fake.click(OWNER_ID, thread.id, old_message.id, f"rummy:draw:{game_id}")
        assert (await answer_of(fake, click)).startswith("You drew")
        seq_before = (await first.store.load_game(game_id)).seq
    assert first.is_closed()

    clock = ManualClock(START)
    second = make_bot(db, clock=clock)
    async with running(second):
        assert second.service.live_game_ids() == [game_id]
        assert second.service.status(game_id) == "playing"
        # the button on the live message the first process posted reaches the new process
        click = await fake.click(OWNER_ID, thread.id, old_message.id, f"rummy:draw:{game_id}")
        said = await answer_of(fake, click)
        assert said.startswith("You drew"), said
        seq = (await second.store.load_game(game_id)).seq
        assert seq == seq_before + 1
        shown = len(public_messages(fake))

        # the old-style message: a pointer to the live message, nothing run
        click = await fake.click(OWNER_ID, thread.id, legacy.id, f"rummy:draw:{game_id}")
        said = await answer_of(fake, click)
        assert said.startswith("That message is from an earlier turn"), said
        assert f"/{thread.id}/{old_message.id}" in said
        # its My rack still answers, privately
        click = await fake.click(OWNER_ID, thread.id, legacy.id, f"rummy:rack:{game_id}")
        pieces = second.service.rack(game_id, str(OWNER_ID))
        assert await answer_of(fake, click) == f"Your rack ({len(pieces)}): {' '.join(pieces)}"
        # a button of another game: a short answer
        click = await fake.click(PLAYER_ID, thread.id, other.id, "rummy:draw:0ld9ame", locale="de")
        said = await answer_of(fake, click)
        assert "0ld9ame" in said and len(said) < 200, said
        assert (await second.store.load_game(game_id)).seq == seq  # nothing changed
        assert len(public_messages(fake)) == shown  # and nothing was said in public

        _, said = await slash(
            fake, OWNER_ID, thread.id, "play", [option("text", f"discard {pieces[0]}")]
        )
        await second.service.wait_idle()
        # the computer moved (through the service's sink) and Bernd is prompted, by bot two,
        # in his language; the turn message of the first process lost its buttons
        prompt = await fake.wait_for_message(
            lambda m: m.channel_id == thread.id and m.is_v2 and f"<@{PLAYER_ID}>" in m.text
        )
        assert f"rummy:draw:{game_id}" in prompt.custom_ids()
        assert t("discord.turn_deadline", "de", mention=f"<@{PLAYER_ID}>", time="")[:-2] in (
            prompt.text
        )
        await fake.wait_until(
            lambda: True if not fake.messages[old_message.id].custom_ids() else None,
            5,
            "the old turn message without buttons",
        )
        assert [m.id for m in with_buttons(fake, thread.id)] == [legacy.id, other.id, prompt.id]
        # Bernd's turn started: his one rack DM is new, silent (the prompt pinged him), German;
        # the DM the first process sent was deleted by the second (it knew where it was), and
        # no DM ever carried buttons (they would reach shard 0 only)
        [dm] = fake.dms_to(PLAYER_ID)
        [first_dm, *_] = every_dm_to(fake, PLAYER_ID)
        assert first_dm.deleted and first_dm.id < legacy.id < dm.id
        assert all(not m.components for u in (OWNER_ID, PLAYER_ID) for m in every_dm_to(fake, u))
        assert dm.notified == () and prompt.notified == (PLAYER_ID,)
        head = t("discord.rack_dm_turn", "de", game=game_id, preset="stein", thread="")
        assert dm.content.startswith(head.removesuffix(" - "))
        # Bernd lets his time run out: the resumed timer acts and its messages reach Discord
        seq = (await second.store.load_game(game_id)).seq
        dms = len(every_dm_to(fake, PLAYER_ID))
        clock.advance(61)
        await fake.wait_until(
            lambda: True if second.service.view(game_id).current == 0 else None, 5, "time-out"
        )
        await second.service.wait_idle()
        assert (await second.store.load_game(game_id)).seq > seq
        await fake.wait_for_message(
            lambda m: (
                m.channel_id == thread.id
                and m.is_v2
                and f"<@{OWNER_ID}>" in m.text
                and m.id > prompt.id
            )
        )
        await fake.wait_until(
            lambda: True if not fake.messages[prompt.id].custom_ids() else None,
            5,
            "Bernd's turn message without buttons",
        )
        assert len(every_dm_to(fake, PLAYER_ID)) == dms  # no new DM for Bernd
