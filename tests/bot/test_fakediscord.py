"""End-to-end tests of the fake Discord harness with the real discord.py client.

A tiny ``commands.Bot`` with a ``/rummy`` command group and a persistent view logs in against
:class:`~tests.bot.fakediscord.FakeDiscord` on loopback; the tests drive it like people would and
assert on what the fake recorded.
"""

from __future__ import annotations

import asyncio
import io

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.bot.conftest import (
    BOT_ID,
    CHANNEL_ID,
    CLOSED_DM_ID,
    GUILD_ID,
    OWNER_ID,
    PLAYER_ID,
    build_fake,
)
from tests.bot.fakediscord import (
    EPHEMERAL,
    FakeDiscord,
    RecordedRequest,
    option,
    running,
    subcommand,
)

# A real 1x1 PNG, so the upload is something a client would plausibly send.
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)
VARIANTS = ["rummikub", "romme", "stein", "stein_plus"]


class JoinView(discord.ui.View):
    """The persistent "join game" button: survives restarts because of its fixed custom_id."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", style=discord.ButtonStyle.primary, custom_id="rummy:join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        bot = interaction.client
        assert isinstance(bot, ProbeBot)
        bot.joined.append(interaction.user.id)
        await interaction.response.send_message(
            f"{interaction.user.display_name} joined (bot #{bot.instance})", ephemeral=True
        )


class RenameModal(discord.ui.Modal, title="Rename the game"):
    """A one-field modal, to prove modal round trips work."""

    name = discord.ui.TextInput(label="New name", custom_id="rummy:name", max_length=40)

    def __init__(self) -> None:
        super().__init__(custom_id="rummy:rename")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"Renamed to {self.name.value}")


class RummyCommands(app_commands.Group):
    """``/rummy ...``: one sub-command per harness feature under test."""

    def __init__(self) -> None:
        super().__init__(name="rummy", description="Play rummy")

    @app_commands.command(description="Check the bot answers")
    async def ping(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, ProbeBot)
        bot.locales.append((interaction.locale, interaction.guild_locale))
        await interaction.response.send_message(
            f"pong ({interaction.locale.value})", ephemeral=True
        )

    @app_commands.command(description="Show the table picture")
    async def table(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0)  # rendering would happen here
        picture = discord.File(io.BytesIO(PNG), filename="table.png")
        await interaction.followup.send("Current table", file=picture)

    @app_commands.command(description="Open a game thread")
    async def open(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("A new game starts here")
        message = await interaction.original_response()
        thread = await message.create_thread(name="Rummy game 1")
        await thread.send("Welcome to the game")

    @app_commands.command(description="Deal a rack to a player")
    @app_commands.describe(player="Who gets the rack")
    async def deal(self, interaction: discord.Interaction, player: discord.Member) -> None:
        bot = interaction.client
        assert isinstance(bot, ProbeBot)
        try:
            await player.send("Your rack: R5 R6 R7 B9")
        except discord.Forbidden as exc:
            bot.dm_errors.append(exc)
            await interaction.response.send_message("Could not DM you", ephemeral=True)
        else:
            await interaction.response.send_message(f"Dealt to {player.mention}", ephemeral=True)

    @app_commands.command(description="Post the join button")
    async def lobby(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Who plays?", view=JoinView())

    @app_commands.command(description="Show your rack privately")
    async def rack(self, interaction: discord.Interaction) -> None:
        picture = discord.File(io.BytesIO(PNG), filename="rack.png")
        await interaction.response.send_message("Your rack", file=picture, ephemeral=True)

    @app_commands.command(description="Post, edit and delete messages")
    async def tidy(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Working...")
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        status = await channel.send("Turn 1")
        await status.edit(content="Turn 2")
        scratch = await channel.send("scratch")
        await scratch.delete()
        await interaction.edit_original_response(content="Done")

    @app_commands.command(description="Rename the game")
    async def rename(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(RenameModal())

    @app_commands.command(description="Start a game")
    @app_commands.describe(variant="Rule set")
    async def start(self, interaction: discord.Interaction, variant: str) -> None:
        await interaction.response.send_message(f"Starting {variant}")

    @start.autocomplete("variant")
    async def variant_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=v, value=v) for v in VARIANTS if v.startswith(current)]


async def draw(ctx: commands.Context) -> None:
    """``@RummyBot draw``: a text command, as players type moves."""
    await ctx.send(f"{ctx.author.display_name} draws a tile")


class ProbeBot(commands.Bot):
    """A minimal bot recording what its handlers saw."""

    def __init__(self, instance: int = 1) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.instance = instance
        self.locales: list[tuple[discord.Locale, discord.Locale | None]] = []
        self.dm_errors: list[discord.Forbidden] = []
        self.joined: list[int] = []
        self.synced: list[app_commands.AppCommand] = []
        self.add_command(commands.Command(draw, name="draw"))

    async def setup_hook(self) -> None:
        self.add_view(JoinView())
        self.tree.add_command(RummyCommands())
        guild = discord.Object(GUILD_ID)
        self.tree.copy_global_to(guild=guild)
        self.synced = await self.tree.sync(guild=guild)
        await self.tree.sync()  # global too, so the command also works in DMs


def callback_for(fake: FakeDiscord, interaction_id: int) -> RecordedRequest | None:
    """The recorded interaction callback request, or None."""
    return next(
        (
            r
            for r in fake.interaction_responses(interaction_id)
            if r.route and "callback" in r.route
        ),
        None,
    )


async def test_login_ready_and_command_sync(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        assert bot.user is not None and bot.user.id == BOT_ID
        assert bot.application_id == BOT_ID
        guild = bot.get_guild(GUILD_ID)
        assert guild is not None and guild.name == "Rummy Club"
        assert guild.preferred_locale is discord.Locale.german
        assert guild.owner_id == OWNER_ID
        assert guild.me is not None and guild.me.id == BOT_ID
        channel = guild.get_channel(CHANNEL_ID)
        assert isinstance(channel, discord.TextChannel) and channel.name == "rummy"
        assert channel.permissions_for(guild.me).send_messages

        synced = fake_discord.synced_commands(GUILD_ID)
        assert [c["name"] for c in synced] == ["rummy"]
        subs = {o["name"] for o in synced[0]["options"]}
        assert subs == {"ping", "table", "open", "deal", "lobby", "rack", "tidy", "rename", "start"}
        assert synced[0]["guild_id"] == str(GUILD_ID)
        [global_command] = fake_discord.synced_commands()
        assert "guild_id" not in global_command and global_command["name"] == "rummy"
        assert global_command["id"] != synced[0]["id"]
        assert [c.name for c in bot.synced] == ["rummy"]
        assert bot.synced[0].id == int(synced[0]["id"])
        put = await fake_discord.wait_for(lambda r: r.method == "PUT" and "commands" in r.path)
        assert put.path == f"/applications/{BOT_ID}/guilds/{GUILD_ID}/commands"

        identify = next(p for p in fake_discord.gateway_received if p["op"] == 2)
        assert identify["d"]["intents"] == discord.Intents.default().value
        assert identify["d"]["token"] == "fake-bot-token"
    assert bot.is_closed()
    assert fake_discord.unknown_routes == []


async def test_slash_reply_is_ephemeral_and_locale_reaches_bot(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        german = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("ping")], locale="de"
        )
        reply = await fake_discord.wait_for_response(german)
        assert reply.json["type"] == 4
        assert reply.json["data"]["flags"] == EPHEMERAL
        assert reply.json["data"]["content"] == "pong (de)"

        english = await fake_discord.slash(
            OWNER_ID,
            GUILD_ID,
            CHANNEL_ID,
            "rummy",
            [subcommand("ping")],
            locale="en-US",
            guild_locale="en-GB",
        )
        await fake_discord.wait_for_response(english)

        assert bot.locales[:2] == [
            (discord.Locale.german, discord.Locale.german),
            (discord.Locale.american_english, discord.Locale.british_english),
        ]
        dm = await fake_discord.slash(
            PLAYER_ID, None, None, "rummy", [subcommand("ping")], locale="fr"
        )
        dm_reply = await fake_discord.wait_for_response(dm)
        assert dm_reply.json["data"]["content"] == "pong (fr)"
        assert bot.locales[-1] == (discord.Locale.french, None)
        assert "guild_id" not in dm.payload["data"]  # the global command was used
        assert dm.payload["user"]["id"] == str(PLAYER_ID)

        original = fake_discord.original_message(german)
        assert original is not None and original.ephemeral
        assert original.data["interaction_metadata"]["user"]["id"] == str(PLAYER_ID)
        # Ephemeral replies are not public channel messages.
        assert fake_discord.messages_in(CHANNEL_ID, include_ephemeral=False) == []


async def test_defer_then_followup_with_png(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        sent = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("table")]
        )
        followup = await fake_discord.wait_for(
            lambda r: r.method == "POST" and r.path.startswith(f"/webhooks/{BOT_ID}/")
        )
        assert callback_for(fake_discord, sent.id).json["type"] == 5
        assert followup.token == sent.token
        assert followup.status == 200
        assert [f.filename for f in followup.files] == ["table.png"]
        assert followup.files[0].data == PNG
        assert followup.json["attachments"][0]["filename"] == "table.png"

        # The follow-up replaced the "thinking" message, as on Discord.
        [message] = fake_discord.messages_in(CHANNEL_ID)
        assert message.id == fake_discord.original_message(sent).id
        assert message.content == "Current table"
        assert message.flags == 0
        assert message.file("table.png") == PNG
        assert message.attachments[0]["size"] == len(PNG)
        assert message.attachments[0]["content_type"] == "image/png"

        # The attachment URL serves the uploaded bytes.
        async with (
            aiohttp.ClientSession() as session,
            session.get(message.attachments[0]["url"]) as resp,
        ):
            assert await resp.read() == PNG


async def test_ephemeral_reply_with_file_uses_multipart_callback(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        sent = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("rack")]
        )
        reply = await fake_discord.wait_for_response(sent)
    assert reply.json["type"] == 4
    assert reply.json["data"]["flags"] == EPHEMERAL
    assert [(f.field, f.filename, f.data) for f in reply.files] == [("files[0]", "rack.png", PNG)]
    message = fake_discord.original_message(sent)
    assert message is not None and message.ephemeral
    assert message.attachments[0]["ephemeral"] is True
    assert message.file("rack.png") == PNG


async def test_edit_and_delete_messages(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        sent = await fake_discord.slash(
            OWNER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("tidy")]
        )
        await fake_discord.wait_for(lambda r: r.method == "PATCH" and r.path.endswith("/@original"))
    routes = [f"{r.method} {r.route}" for r in fake_discord.requests if r.route and r.ok][-6:]
    assert routes == [
        "POST /interactions/{interaction_id}/{token}/callback",
        "POST /channels/{channel_id}/messages",
        "PATCH /channels/{channel_id}/messages/{message_id}",
        "POST /channels/{channel_id}/messages",
        "DELETE /channels/{channel_id}/messages/{message_id}",
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
    ]
    contents = [m.content for m in fake_discord.messages_in(CHANNEL_ID)]
    assert contents == ["Done", "Turn 2"]
    [_, status] = fake_discord.messages_in(CHANNEL_ID)
    assert status.data["edited_timestamp"] is not None
    assert fake_discord.original_message(sent).content == "Done"


async def test_thread_from_interaction_message(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        sent = await fake_discord.slash(
            OWNER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("open")]
        )
        await fake_discord.wait_for_message(lambda m: m.content == "Welcome to the game")

        [thread] = fake_discord.threads_in(CHANNEL_ID)
        start = fake_discord.original_message(sent)
        assert start is not None and not start.ephemeral
        assert thread.id == start.id  # Discord gives a message thread the message's id
        assert thread.name == "Rummy game 1"
        assert [m.content for m in fake_discord.messages_in(thread.id)] == ["Welcome to the game"]
        assert bot.get_channel(thread.id) is not None  # THREAD_CREATE reached the cache
        assert isinstance(bot.get_channel(thread.id), discord.Thread)


async def test_dm_success_and_closed_dms(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        ok = await fake_discord.slash(
            OWNER_ID,
            GUILD_ID,
            CHANNEL_ID,
            "rummy",
            [subcommand("deal", option("player", PLAYER_ID, 6))],
        )
        assert (await fake_discord.wait_for_response(ok)).json["data"]["content"] == (
            f"Dealt to <@{PLAYER_ID}>"
        )
        assert [m.content for m in fake_discord.dms_to(PLAYER_ID)] == ["Your rack: R5 R6 R7 B9"]

        closed = await fake_discord.slash(
            OWNER_ID,
            GUILD_ID,
            CHANNEL_ID,
            "rummy",
            [subcommand("deal", option("player", CLOSED_DM_ID, 6))],
        )
        reply = await fake_discord.wait_for_response(closed)
        assert reply.json["data"]["content"] == "Could not DM you"
        [error] = bot.dm_errors
        assert isinstance(error, discord.Forbidden)
        assert error.status == 403
        assert error.code == 50007
        assert fake_discord.dms_to(CLOSED_DM_ID) == []
        refused = [r for r in fake_discord.requests if r.status == 403]
        assert len(refused) == 1 and refused[0].response["code"] == 50007


async def test_autocomplete_returns_bot_choices(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        choices = await fake_discord.autocomplete(
            PLAYER_ID,
            GUILD_ID,
            CHANNEL_ID,
            "rummy",
            [subcommand("start", option("variant", "st", focused=True))],
            locale="de",
        )
    assert [c["value"] for c in choices] == ["stein", "stein_plus"]


async def test_persistent_view_survives_restart(fake_discord: FakeDiscord) -> None:
    first = ProbeBot(instance=1)
    async with running(first):
        lobby = await fake_discord.slash(
            OWNER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("lobby")]
        )
        await fake_discord.wait_for_response(lobby)
    assert first.is_closed()
    message = fake_discord.original_message(lobby)
    assert message is not None and message.custom_ids() == ["rummy:join"]

    second = ProbeBot(instance=2)
    async with running(second):
        click = await fake_discord.click(
            PLAYER_ID, CHANNEL_ID, message.id, "rummy:join", locale="de"
        )
        reply = await fake_discord.wait_for_response(click)
    assert reply.json["type"] == 4
    assert reply.json["data"]["content"] == "Bernd joined (bot #2)"
    assert reply.json["data"]["flags"] == EPHEMERAL
    assert second.joined == [PLAYER_ID]
    assert first.joined == []


async def test_modal_round_trip(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        opened = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("rename")]
        )
        modal = await fake_discord.wait_for_response(opened)
        assert modal.json["type"] == 9
        assert modal.json["data"]["custom_id"] == "rummy:rename"
        submitted = await fake_discord.submit_modal(
            PLAYER_ID, CHANNEL_ID, "rummy:rename", {"rummy:name": "Friday game"}
        )
        reply = await fake_discord.wait_for_response(submitted)
    assert reply.json["data"]["content"] == "Renamed to Friday game"
    assert [m.content for m in fake_discord.messages_in(CHANNEL_ID)] == ["Renamed to Friday game"]


async def test_fake_enforces_discord_rules(fake_discord: FakeDiscord) -> None:
    """Double acknowledgement, unsynced commands and unknown routes fail loudly."""
    bot = ProbeBot()
    async with running(bot):
        sent = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("ping")]
        )
        await fake_discord.wait_for_response(sent)
        channel = bot.get_channel(CHANNEL_ID)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x" * 2001)
        assert too_long.value.code == 50035
        with pytest.raises(LookupError):
            await fake_discord.slash(PLAYER_ID, GUILD_ID, CHANNEL_ID, "nosuchcommand")
        with pytest.raises(discord.NotFound):
            await bot.http.request(discord.http.Route("GET", "/nothing/here"))
    assert fake_discord.unknown_routes == ["GET /nothing/here"]
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{fake_discord.api_base}/gateway") as resp,
    ):
        assert resp.headers["Content-Type"] == "application/json"  # no charset suffix
        assert (await resp.json())["url"].startswith("ws://127.0.0.1:")
    late = await fake_discord.wait_for(lambda r: r.path.endswith("/callback"))
    assert late.status == 200


async def test_gateway_reconnect_resumes_session(fake_discord: FakeDiscord) -> None:
    bot = ProbeBot()
    async with running(bot):
        await fake_discord.request_reconnect()
        await fake_discord.wait_until(
            lambda: True if any(p["op"] == 6 for p in fake_discord.gateway_received) else None
        )
        await fake_discord.wait_for_gateway()
        sent = await fake_discord.slash(
            PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("ping")]
        )
        await fake_discord.wait_for_response(sent)
    identify = next(p for p in fake_discord.gateway_received if p["op"] == 2)
    resume = next(p for p in fake_discord.gateway_received if p["op"] == 6)
    assert resume["d"]["session_id"].startswith("fake-session-")
    assert [p["op"] for p in fake_discord.gateway_received].count(2) == 1
    assert identify["d"]["token"] == resume["d"]["token"]
    assert len(fake_discord.gateway_connections) == 2


async def test_members_intent_gets_members_and_chunks(fake_discord: FakeDiscord) -> None:
    """With GUILD_MEMBERS the client chunks the guild over the gateway (op 8)."""
    intents = discord.Intents.default()
    intents.members = True
    client = discord.Client(intents=intents)
    async with running(client):
        guild = client.get_guild(GUILD_ID)
        assert guild is not None and guild.chunked
        member = guild.get_member(CLOSED_DM_ID)
        assert member is not None and member.name == "carla"
        assert guild.get_member(OWNER_ID) == guild.owner
    [request] = [p for p in fake_discord.gateway_received if p["op"] == 8]
    assert int(request["d"]["guild_id"]) == GUILD_ID


async def test_user_messages_follow_intents(fake_discord: FakeDiscord) -> None:
    """Without MESSAGE_CONTENT the bot sees guild text only when mentioned (DMs always)."""
    bot = ProbeBot()
    seen: list[str] = []

    async def on_message(message: discord.Message) -> None:
        if message.author.id != BOT_ID:
            seen.append(message.content)

    bot.add_listener(on_message)
    async with running(bot):
        await fake_discord.user_message(PLAYER_ID, CHANNEL_ID, "meld R5 R6 R7")
        await fake_discord.user_message(PLAYER_ID, CHANNEL_ID, f"<@{BOT_ID}> draw")
        await fake_discord.user_message(PLAYER_ID, None, "done")
        reply = await fake_discord.wait_for_message(lambda m: m.author_id == BOT_ID)
        await fake_discord.wait_until(lambda: True if len(seen) == 3 else None)
    assert seen == ["", f"<@{BOT_ID}> draw", "done"]
    assert reply.content == "Bernd draws a tile" and reply.channel_id == CHANNEL_ID


@pytest.mark.parametrize("compression", [True, False])
async def test_transport_compression_and_cleanup(compression: bool) -> None:
    """discord.py asks for zlib-stream: the fake sends compressed binary frames, or plain text
    frames when told not to; the client copes with both. Nothing is left running afterwards."""
    fake = build_fake()
    fake.transport_compression = compression
    async with fake:
        with fake.patched():
            bot = ProbeBot()
            async with running(bot):
                assert bot.get_guild(GUILD_ID) is not None
                sent = await fake.slash(
                    PLAYER_ID, GUILD_ID, CHANNEL_ID, "rummy", [subcommand("ping")]
                )
                await fake.wait_for_response(sent)
    [connection] = fake.gateway_connections
    assert connection["query"] == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
    assert connection["zlib_stream"] is compression
    assert discord.http.Route.BASE == "https://discord.com/api/v10"
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "wss://gateway.discord.gg/"
    await asyncio.sleep(0)
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert pending == []


def _layout(text: str, *, picture: str | None = "table.png", button: bool = True):
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(discord.ui.TextDisplay(text))
    if picture:
        gallery = discord.ui.MediaGallery()
        gallery.add_item(media=f"attachment://{picture}")
        view.add_item(gallery)
    if button:
        row = discord.ui.ActionRow()
        row.add_item(discord.ui.Button(label="Go", custom_id="probe:go"))
        view.add_item(row)
    return view


async def test_components_v2_posts_edits_and_notifications(fake_discord: FakeDiscord) -> None:
    """Components v2 (IS_COMPONENTS_V2): what Discord refuses, edits that keep or replace the
    picture, mentions honouring allowed_mentions, and who a new message notified."""
    fake = fake_discord
    bot = ProbeBot()
    async with running(bot):
        channel = bot.get_channel(CHANNEL_ID)
        assert isinstance(channel, discord.TextChannel)
        ping = discord.AllowedMentions(users=True)
        sent = await channel.send(
            view=_layout(f"<@{PLAYER_ID}>, go"),
            file=discord.File(io.BytesIO(PNG), filename="table.png"),
            allowed_mentions=ping,
        )
        stored = fake.messages[sent.id]
        assert stored.is_v2 and stored.content == "" and stored.text == f"<@{PLAYER_ID}>, go"
        assert stored.media_urls() == ["attachment://table.png"]
        assert stored.notified == (PLAYER_ID,) and stored.custom_ids() == ["probe:go"]
        # content beside components v2, a picture that is not attached, v2 parts without the flag
        bad: list[dict] = [
            {"content": "hi", "flags": 1 << 15, "components": [{"type": 10, "content": "x"}]},
            {"flags": 1 << 15, "components": [_layout("x").to_components()[1]]},
            {"components": [{"type": 10, "content": "no flag"}]},
            {"flags": 1 << 15, "components": [{"type": 2, "label": "top", "custom_id": "a"}]},
            {"flags": 1 << 15, "components": [{"type": 10, "content": "x" * 4001}]},
            {"flags": 1 << 15, "components": [{"type": 10, "content": "x"}] * 41},
        ]
        for payload in bad:
            with pytest.raises(discord.HTTPException) as refused:
                await bot.http.request(
                    discord.http.Route("POST", "/channels/{c}/messages", c=CHANNEL_ID), json=payload
                )
            assert refused.value.code == 50035, payload
        # an edit without files keeps the picture; a new file replaces it; no ping on edits
        await sent.edit(view=_layout(f"<@{OWNER_ID}> later", button=False))
        assert stored.file("table.png") == PNG and stored.custom_ids() == []
        assert stored.notified == (PLAYER_ID,) and len(stored.edited) == 1
        bigger = PNG + b"\x00"
        await sent.edit(
            view=_layout("new picture"),
            attachments=[discord.File(io.BytesIO(bigger), filename="table.png")],
        )
        assert stored.file("table.png") == bigger and len(stored.attachments) == 1
        # the flag cannot go, and a picture must be one of the message's files
        with pytest.raises(discord.HTTPException):
            await sent.edit(content="plain again", view=None)
        with pytest.raises(discord.HTTPException):
            await sent.edit(view=_layout("gone", picture="other.png"))
        # a mention that allowed_mentions forbids pings nobody; a silent DM notifies nobody
        quiet = await channel.send(
            view=_layout(f"<@{PLAYER_ID}>", picture=None),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        assert fake.messages[quiet.id].notified == ()
        user = await bot.fetch_user(PLAYER_ID)
        loud = await user.send("rack")
        silent = await user.send("rack again", silent=True)
        assert fake.messages[loud.id].notified == (PLAYER_ID,)
        assert fake.messages[silent.id].notified == ()
