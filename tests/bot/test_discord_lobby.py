"""Commands, permissions, languages and closed DMs, with the real client on the fake Discord."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import CHANNEL_ID, CLOSED_DM_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import (
    answer_of,
    latest_with_buttons,
    make_bot,
    public_messages,
    slash,
)
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

COMMANDS = {"rummy", "play", "draw", "done", "reset", "undo", "rack", "hint"}
COMMANDS |= {"ladder", "stats", "tournament", "rummyadmin"}  # rummyadmin: new (issue 16)


async def new_game(fake: FakeDiscord, *options) -> int:
    await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [subcommand("new", *options)])
    return fake.threads_in(CHANNEL_ID)[-1].id


async def test_commands_sync_to_dev_guild_with_german_names(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        synced = {c["name"]: c for c in fake_discord.synced_commands(GUILD_ID)}
        assert set(synced) == COMMANDS
        assert fake_discord.synced_commands() == []  # nothing global with DEV_GUILD_ID
        rummy = synced["rummy"]
        subs = {o["name"]: o for o in rummy["options"]}
        assert set(subs) >= {"new", "join", "leave", "start", "abort", "rules", "status", "config"}
        assert set(subs) - {"new", "join", "leave", "start", "abort", "rules", "status"} == {
            "config",
            "season",  # new (issue 16)
        }
        assert subs["new"]["name_localizations"]["de"] == "neu"
        assert subs["new"]["description_localizations"]["de"].startswith("Einen neuen Tisch")
        assert synced["play"]["options"][0]["autocomplete"] is True
        for command in synced.values():
            for name in command.get("name_localizations", {}).values():
                assert name == name.lower() and " " not in name
        intents = next(p for p in fake_discord.gateway_received if p["op"] == 2)["d"]["intents"]
        assert intents & (1 << 15) == 0 and intents & (1 << 1) == 0  # no privileged intent


async def test_german_user_gets_german_texts(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        _, said = await slash(
            fake, PLAYER_ID, CHANNEL_ID, "rummy", [subcommand("status")], locale="de"
        )
        assert said == "In diesem Kanal gibt es kein Spiel. Starte eins mit /rummy new."
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "rummy", [subcommand("status")])
        assert said.startswith("There is no game in this channel")
        thread = await new_game(fake, option("preset", "rummikub"), option("bots", 1))
        _, said = await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("join")], locale="de")
        assert said.startswith("Du sitzt an Tisch")
        _, said = await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("start")], locale="de")
        assert said == "Nur der Gastgeber kann das Spiel starten."
        await slash(fake, OWNER_ID, thread, "rummy", [subcommand("start")])
        # Bernd's rack DM is German; a bad command gets the engine's German reason
        assert any("Deine Bank" in m.content for m in fake.dms_to(PLAYER_ID))
        assert any("Your rack" in m.content for m in fake.dms_to(OWNER_ID))
        _, said = await slash(
            fake, PLAYER_ID, thread, "play", [option("text", "meld R14")], locale="de"
        )
        assert "R14" in said and "1-13" in said
        _, said = await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("rules")], locale="de")
        assert said.startswith("Das 30-Punkte-Legespiel")


async def test_permissions(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        thread = await new_game(fake, option("preset", "rummikub"), option("bots", 1))
        await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("join")])
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [subcommand("start")])
        [game_id] = bot.service.live_game_ids()
        before = (await bot.store.load_game(game_id)).seq
        # carla does not sit at the table
        _, said = await slash(fake, CLOSED_DM_ID, thread, "play", [option("text", "draw")])
        assert said == "You are not seated in this game."
        # only the player to move may change the table, by command or by button
        view = bot.service.view(game_id)
        waiting = PLAYER_ID if view.current == 0 else OWNER_ID
        _, said = await slash(fake, waiting, thread, "draw")
        assert said.startswith("It is not your turn"), said
        message = latest_with_buttons(fake, thread)
        click = await fake.click(waiting, thread, message.id, f"rummy:done:{game_id}")
        assert (await answer_of(fake, click)).startswith("It is not your turn")
        # a non-host without Manage Server cannot abort, nor change the server settings
        _, said = await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("abort")])
        assert said.startswith("Only the host or a member with Manage Server")
        _, said = await slash(fake, PLAYER_ID, CHANNEL_ID, "rummy", [subcommand("config")])
        assert said.startswith("Only members with the Manage Server permission")
        assert (await bot.store.load_game(game_id)).seq == before  # nothing changed
        assert bot.service.status(game_id) == "playing"
        # the host can
        _, said = await slash(fake, OWNER_ID, thread, "rummy", [subcommand("abort")])
        assert said == f"Game {game_id} was aborted."
        assert bot.service.status(game_id) is None
        assert (await bot.store.load_game(game_id)).status == "finished"
        assert await bot.store.kv_items("ladder_result") == []  # aborted: not ranked


async def test_closed_dms_fall_back_to_rack_command(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        thread = await new_game(
            fake, option("preset", "rummikub"), option("players", 3), option("bots", 1)
        )
        _, said = await slash(fake, CLOSED_DM_ID, thread, "rummy", [subcommand("join")])
        assert said.startswith("The game has started")
        [game_id] = bot.service.live_game_ids()
        notice = await fake.wait_for_message(
            lambda m: (
                m.channel_id == thread and f"<@{CLOSED_DM_ID}>" in m.text and "/rack" in m.text
            )
        )
        # said once, on the turn message (an edit: no second message, no ping)
        assert notice.is_v2 and "Direktnachrichten" in notice.text  # the guild speaks German
        assert fake.dms_to(CLOSED_DM_ID) == []
        _, said = await slash(fake, CLOSED_DM_ID, thread, "rack")
        pieces = bot.service.rack(game_id, str(CLOSED_DM_ID))
        assert said == f"Your rack ({len(pieces)}): {' '.join(pieces)}"
        # the game goes on: the first player to move was prompted with the buttons
        lines = latest_with_buttons(fake, thread).text.splitlines()
        assert any(line.startswith("<@") and "/rack" not in line for line in lines)
        rack_text = " ".join(pieces)
        assert all(rack_text not in m.text for m in public_messages(fake))
