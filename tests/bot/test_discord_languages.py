"""Each person's language in one game: Anna speaks English, Bernd German, on an English and on
a German server.

Public words (the turn message's report of what happened, its buttons, the table picture) follow
the server; the line addressed to the player to move follows that player; ephemeral answers,
rack DMs and rack pictures follow the person they are for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import RummyError
from i18n import error_text, t
from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import answer_of, latest_with_buttons, make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

ENGLISH_GUILD = 1_180_000_000_000_000_110
ENGLISH_CHANNEL = 1_180_000_000_000_000_210
LOCALE = {OWNER_ID: "en-US", PLAYER_ID: "de"}
LANG = {OWNER_ID: "en", PLAYER_ID: "de"}


def labels(message, game_id: str) -> dict[str, str]:
    """The game buttons' labels by action."""
    found = {}
    stack = list(message.components)
    while stack:
        comp = stack.pop()
        stack.extend(comp.get("components") or [])
        if comp.get("custom_id", "").endswith(f":{game_id}"):
            found[comp["custom_id"].split(":")[1]] = comp["label"]
    return found


@pytest.mark.parametrize("server", ["de", "en"])
async def test_each_person_reads_their_language(
    fake_discord: FakeDiscord, tmp_path: Path, server: str
) -> None:
    fake = fake_discord
    guild, channel = GUILD_ID, CHANNEL_ID  # the test guild speaks German
    if server == "en":
        guild, channel = ENGLISH_GUILD, ENGLISH_CHANNEL
        fake.add_guild(guild, "Rummy Club EN", owner_id=OWNER_ID, preferred_locale="en-US")
        fake.add_member(guild, PLAYER_ID)
        fake.add_channel(guild, channel, "rummy")
    bot = make_bot(tmp_path / "lang.sqlite3", pictures=True, dev_guild=False, seed=7)
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"), option("players", 2))
        await slash(fake, OWNER_ID, channel, "rummy", [new], locale="en-US", guild=guild)
        [thread] = fake.threads_in(channel)
        _, said = await slash(
            fake, PLAYER_ID, thread.id, "rummy", [subcommand("join")], locale="de", guild=guild
        )
        assert said.startswith("Das Spiel hat begonnen"), said
        [game_id] = bot.service.live_game_ids()

        for _turn in range(2):
            message = latest_with_buttons(fake, thread.id)
            view = bot.service.view(game_id)
            mover = int(bot.service.seats(game_id)[view.current].player_id)
            waiting = OWNER_ID if mover == PLAYER_ID else PLAYER_ID
            # the public part in the server's language: buttons, picture
            assert labels(message, game_id)["draw"] == t("discord.button_draw", server)
            assert labels(message, game_id)["rack"] == t("discord.button_rack", server)
            assert message.file("table.png") == await bot.service.render_table(game_id, server)
            # the line for the mover in the mover's language
            deadline = int(bot.service.deadline(game_id))
            line = t(
                "discord.turn_deadline",
                LANG[mover],
                mention=f"<@{mover}>",
                time=f"<t:{deadline}:R>",
            )
            assert message.text.splitlines()[-1] == line
            # rack DMs in each person's language, the picture drawn in it
            for user in (OWNER_ID, PLAYER_ID):
                pieces = bot.service.rack(game_id, str(user))
                [dm] = fake.dms_to(user)
                rack_line = t(
                    "service.rack", LANG[user], count=len(pieces), pieces=" ".join(pieces)
                )
                assert rack_line in dm.content
                assert dm.file("rack.png") == await bot.service.render_rack(pieces, LANG[user])
            # "My rack" answers privately in the clicker's language, with the picture
            click = await fake.click(
                waiting,
                thread.id,
                message.id,
                f"rummy:rack:{game_id}",
                locale=LOCALE[waiting],
            )
            said = await answer_of(fake, click)
            pieces = bot.service.rack(game_id, str(waiting))
            assert said == t(
                "discord.rack", LANG[waiting], count=len(pieces), pieces=" ".join(pieces)
            )
            picture = fake.original_message(click).file("rack.png")
            assert picture == await bot.service.render_rack(pieces, LANG[waiting])
            # a refusal in the clicker's language, nothing public
            click = await fake.click(
                waiting, thread.id, message.id, f"rummy:done:{game_id}", locale=LOCALE[waiting]
            )
            said = await answer_of(fake, click)
            name = bot.service.seats(game_id)[view.current].name
            refusal = error_text(RummyError("turn.not_yours", player=name), LANG[waiting])
            assert said == refusal, said
            # the mover draws: the next turn message, the mover's DM in their language
            click = await fake.click(
                mover, thread.id, message.id, f"rummy:draw:{game_id}", locale=LOCALE[mover]
            )
            await answer_of(fake, click)
            await fake.wait_until(
                lambda m=message: True if latest_with_buttons(fake, thread.id).id != m.id else None,
                5,
                "the next turn message",
            )
            assert fake.messages[message.id].custom_ids() == []
