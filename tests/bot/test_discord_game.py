"""A whole game through Discord: ``/rummy new`` to the ladder update, with the real client.

Stein-Rummy with Anna (host), a strong computer player and Bernd. The deal is fixed with the
adapter's ``game_overrides`` seed; the people's moves are what the service's own strong computer
player would type for them, sent with the Draw button and ``/play`` - the real flow.

One game message per turn (components v2): while the game runs exactly one message in the thread
carries the buttons, each turn adds at most one thread message, and each person gets one rack DM
per game, replaced (one notification) only when their turn starts.
"""

from __future__ import annotations

from pathlib import Path

from bot.service.players import computer_player
from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID, PLAYER_ID
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
        assert prompt.is_v2 and prompt.content == ""  # components v2: words in text displays
        assert f"<@{OWNER_ID}>" in prompt.text
        assert prompt.notified == (OWNER_ID,)  # the mover is pinged, nobody else
        assert prompt.attachments[0]["filename"] == "table.png"
        assert prompt.media_urls() == ["attachment://table.png"]
        # the thread's table picture is drawn in the guild's language (the test guild is German)
        german = await bot.service.render_table(game_id, "de")
        assert prompt.file("table.png") == german != await bot.service.render_table(game_id, "en")
        assert {f"rummy:{a}:{game_id}" for a in ("draw", "done", "reset", "rack")} <= set(
            prompt.custom_ids()
        )
        # Anna's first rack DM came silently (the ping notified her); Bernd's notified him
        assert notifications(fake, OWNER_ID) == [prompt]
        assert [m.id for m in notifications(fake, PLAYER_ID)] == [fake.dms_to(PLAYER_ID)[0].id]
        start = prompt.id - 1

        player = computer_player("strong")
        people = {str(OWNER_ID): OWNER_ID, str(PLAYER_ID): PLAYER_ID}
        moves = 0
        turns = 0
        last_turn = None
        for _ in range(60):
            await bot.service.wait_idle()
            record, state = await current_state(bot, game_id)
            if record.status != "playing":
                break
            # one live game message, the newest; each person holds one rack DM of this game
            [live] = with_buttons(fake, thread.id)
            assert live.id == game_messages(fake, thread.id)[-1].id
            for user in (OWNER_ID, PLAYER_ID):
                assert len(fake.dms_to(user)) == 1
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
            if last_turn != state.turn_no:
                turns += 1
                last_turn = state.turn_no
        else:
            raise AssertionError("the game did not finish")
        await bot.service.wait_idle()
        assert moves >= 5
        record, state = await current_state(bot, game_id)
        # every turn added at most one thread message: the game messages are one per turn
        # started (people's and the computer's), and none keeps its buttons
        passes = state.turn_no
        played = game_messages(fake, thread.id)
        assert len(played) <= passes + 1
        assert with_buttons(fake, thread.id) == []
        since = [m for m in public_messages(fake) if m.channel_id == thread.id and m.id > start]
        assert len(since) - len(played) == 1  # only the summary besides (the ladder: an edit)
        # notifications: at most one per person per turn (the turn message's ping; rack DMs of
        # a turn start are silent, edits notify nobody)
        assert all(len(m.notified) <= 1 for m in played)  # a turn message pings its mover
        # while a turn went on its message was edited (a draw, a new picture), and the rack DMs
        # were edited when the racks changed
        assert all(m.edited for m in played)  # at least: its buttons went
        assert any(len(m.edited) > 1 for m in played)
        assert all(any(m.edited for m in every_dm_to(fake, u)) for u in (OWNER_ID, PLAYER_ID))
        for user in (OWNER_ID, PLAYER_ID):
            pings = [m for m in played if user in m.notified]
            # after Anna's first turn message: only their own turns' pings, plus Bernd's first
            # rack DM (his one notification of the first turn)
            first_dm = [] if user == OWNER_ID else every_dm_to(fake, user)[:1]
            expected = first_dm + [m for m in pings if m.id > prompt.id]
            assert notifications(fake, user, after=prompt.id) == expected
            silent_dms = [m for m in every_dm_to(fake, user) if not m.notified]
            assert len(silent_dms) >= len(pings) - 1  # each turn start: a new, silent rack DM
        # the winner got no empty-rack DM: their one DM says the game is over, without a picture
        winner = record.seats[state.result.winner].player_id
        [last_dm] = fake.dms_to(int(winner))
        assert "is over" in last_dm.content and last_dm.attachments == []
        # the other person's one DM says so too, with what was left
        [other] = [u for u in (OWNER_ID, PLAYER_ID) if str(u) != winner]
        [other_dm] = fake.dms_to(other)
        seat = [s.player_id for s in record.seats].index(str(other))
        left = state.result.left[seat]
        assert other_dm.content.splitlines()[1:] == [f"Your rack ({len(left)}): {' '.join(left)}"]
        assert "is over" in other_dm.content and other_dm.attachments  # the picture stays

        # the finished game reached the ladder: thread and ladder channel both got the update
        update = await fake.wait_for_message(
            lambda m: m.channel_id == CHANNEL_ID and m.content.startswith("Neuer Ranglistenstand")
        )
        assert game_id in update.content and "Anna" in update.content
        ids = {m.id for m in since} - {m.id for m in played}
        [summary] = [m for m in fake.messages_in(thread.id) if m.id in ids]  # holds the ladder
        assert "Neuer Ranglistenstand" in summary.content and summary.attachments
        results = await bot.store.kv_items("ladder_result")
        assert [r.key for r in results] == [game_id]
        assert results[0].value["guild_id"] == str(GUILD_ID)
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "ladder", [option("preset", "stein")])
        assert "Anna" in said and "Bernd" in said and "Computer 1" in said
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "stats")
        assert "stein: 1 games" in said

        # no public message ever showed a rack
        racks = [m.content for u in (OWNER_ID, PLAYER_ID) for m in every_dm_to(fake, u)]
        assert len(racks) > 4
        shown = [line.split(": ", 1)[1] for dm in racks for line in dm.splitlines()[1:2]]
        for message in public_messages(fake):
            assert "Your rack" not in message.text and "Deine Bank" not in message.text
            assert all(a["filename"] != "rack.png" for a in message.attachments)
            for pieces in shown:
                if len(pieces.split()) > 2:
                    assert pieces not in message.text
    assert fake.unknown_routes == []
