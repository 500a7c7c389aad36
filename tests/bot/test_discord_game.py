"""A whole game through Discord: ``/rummy new`` to the ladder update, with the real client.

Stein-Rummy with Anna (host), a strong computer player and Bernd. The deal is fixed with the
adapter's ``game_overrides`` seed; the people's moves are what the service's own strong computer
player would type for them, sent with the Draw button and ``/play`` - the real flow.
"""

from __future__ import annotations

from pathlib import Path

from bot.service.players import computer_player
from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import (
    answer_of,
    current_state,
    latest_with_buttons,
    make_bot,
    public_messages,
    slash,
)
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

SEED = 4  # ten moves by people with this deal


async def test_full_game_to_ladder(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "game.sqlite3", pictures=True, seed=SEED)
    async with running(bot):
        _, said = await slash(
            fake,
            OWNER_ID,
            CHANNEL_ID,
            "rummy",
            [subcommand("config", option("ladder_channel", CHANNEL_ID, 7))],
        )
        assert f"<#{CHANNEL_ID}>" in said
        _, said = await slash(
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
                    option("level", "strong"),
                )
            ],
        )
        [thread] = fake.threads_in(CHANNEL_ID)
        assert said == f"Your table is open: <#{thread.id}>"
        lobby = fake.messages_in(CHANNEL_ID, include_ephemeral=False)[-1]
        assert thread.id == lobby.id  # the thread hangs under the lobby message
        # Bernd joins from the lobby channel; the third seat fills the table and it starts.
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "rummy", [subcommand("join")])
        assert said == f"The game has started: <#{thread.id}>"
        [game_id] = bot.service.live_game_ids()

        # racks went by DM, naming the game and linking its thread
        for user in (OWNER_ID, PLAYER_ID):
            [dm] = fake.dms_to(user)
            assert game_id in dm.content and f"/{thread.id}" in dm.content
            assert dm.attachments and dm.attachments[0]["filename"] == "rack.png"
        prompt = latest_with_buttons(fake, thread.id)
        assert f"<@{OWNER_ID}>" in prompt.content
        assert prompt.attachments[0]["filename"] == "table.png"
        # the thread's table picture is drawn in the guild's language (the test guild is German)
        german = await bot.service.render_table(game_id, "de")
        assert prompt.file("table.png") == german != await bot.service.render_table(game_id, "en")
        assert sorted(prompt.custom_ids()) == sorted(
            f"rummy:{a}:{game_id}" for a in ("draw", "done", "reset", "rack")
        )

        player = computer_player("strong")
        people = {str(OWNER_ID): OWNER_ID, str(PLAYER_ID): PLAYER_ID}
        moves = 0
        for _ in range(60):
            await bot.service.wait_idle()
            record, state = await current_state(bot, game_id)
            if record.status != "playing":
                break
            seat = state.current
            user = people[record.seats[seat].player_id]
            text = player.choose(state, seat)
            if text.startswith("draw; "):
                message = latest_with_buttons(fake, thread.id)
                click = await fake.click(user, thread.id, message.id, f"rummy:draw:{game_id}")
                said = await answer_of(fake, click)
                assert "drew" in said, said
                text = text.removeprefix("draw; ")
            _, said = await slash(fake, user, thread.id, "play", [option("text", text)])
            after, _ = await current_state(bot, game_id)
            assert after.seq > record.seq, said  # accepted and committed
            moves += 1
        else:
            raise AssertionError("the game did not finish")
        await bot.service.wait_idle()
        assert moves >= 5

        # the finished game reached the ladder: thread and ladder channel both got the update
        update = await fake.wait_for_message(
            lambda m: m.channel_id == CHANNEL_ID and m.content.startswith("Neuer Ranglistenstand")
        )
        assert game_id in update.content and "Anna" in update.content
        assert any(
            m.content.startswith("Neuer Ranglistenstand") for m in fake.messages_in(thread.id)
        )
        results = await bot.store.kv_items("ladder_result")
        assert [r.key for r in results] == [game_id]
        assert results[0].value["guild_id"] == str(GUILD_ID)
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "ladder", [option("preset", "stein")])
        assert "Anna" in said and "Bernd" in said and "Computer 1" in said
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "stats")
        assert "stein: 1 games" in said

        # no public message ever showed a rack
        racks = [m.content for u in (OWNER_ID, PLAYER_ID) for m in fake.dms_to(u)]
        assert len(racks) > 4
        shown = [line.split(": ", 1)[1] for dm in racks for line in dm.splitlines()[1:2]]
        for message in public_messages(fake):
            assert "Your rack" not in message.content and "Deine Steine" not in message.content
            assert all(a["filename"] != "rack.png" for a in message.attachments)
            for pieces in shown:
                if len(pieces.split()) > 2:
                    assert pieces not in message.content
    assert fake.unknown_routes == []
