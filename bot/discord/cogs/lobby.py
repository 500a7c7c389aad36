"""``/rummy``: new, join, leave, start, abort, rules, status, config."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from i18n import lang_of, t

from ...service.games import variants

if TYPE_CHECKING:
    from ..client import RummyBot

#: The games, from the registry (names from the catalogue; values are the preset names).
PRESETS = [app_commands.Choice(name=t(v.name_key), value=v.name) for v in variants()]
LEVELS = [
    app_commands.Choice(name=_("easy"), value="easy"),
    app_commands.Choice(name=_("medium"), value="medium"),
    app_commands.Choice(name=_("strong"), value="strong"),
]


class LobbyCog(commands.Cog):
    """Opening, joining, starting and ending tables."""

    rummy = app_commands.Group(name=_("rummy"), description=_("Play rummy on this server"))

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    @rummy.command(name=_("new"), description=_("Open a new table (a thread) for a game"))
    @app_commands.rename(
        preset=_("preset"),
        players=_("players"),
        bots=_("bots"),
        level=_("level"),
        turn_time=_("turn_time"),
        help_=_("help"),
    )
    @app_commands.describe(
        preset=_("Which game"),
        players=_("Seats at the table (starts when full)"),
        bots=_("Computer players to seat"),
        level=_("Computer level"),
        turn_time=_("Seconds per turn (0: no limit)"),
        help_=_("Allow hints and the solver"),
    )
    @app_commands.choices(preset=PRESETS, level=LEVELS)
    async def new(
        self,
        interaction: discord.Interaction,
        preset: str,
        players: app_commands.Range[int, 2, 6] | None = None,
        bots: app_commands.Range[int, 0, 5] = 0,
        level: str = "medium",
        turn_time: app_commands.Range[int, 0, 172800] | None = None,
        help_: bool | None = None,
    ) -> None:
        await self.bot.actions.new_game(
            interaction,
            preset,
            players=players,
            bots=bots,
            level=level,
            turn_time=turn_time,
            help_allowed=help_,
        )

    @rummy.command(name=_("join"), description=_("Take a seat at the open table"))
    async def join(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.lobby_op(interaction, "join")

    @rummy.command(name=_("leave"), description=_("Leave the table before the game starts"))
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.lobby_op(interaction, "leave")

    @rummy.command(name=_("start"), description=_("Deal and start the game (host)"))
    async def start(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.lobby_op(interaction, "start")

    @rummy.command(name=_("abort"), description=_("Abort the game (host or Manage Server)"))
    async def abort(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.abort(interaction)

    @rummy.command(name=_("rules"), description=_("Show the rules of a game"))
    @app_commands.rename(preset=_("preset"))
    @app_commands.describe(preset=_("Which game"))
    @app_commands.choices(preset=PRESETS)
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        await self.bot.actions.rules(interaction, preset)

    @rummy.command(name=_("status"), description=_("Show the state of this game"))
    async def status(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.status(interaction)

    @rummy.command(name=_("config"), description=_("Server defaults for new games (Manage Server)"))
    @app_commands.rename(
        default_preset=_("default_preset"),
        turn_time=_("turn_time"),
        help_=_("help"),
        ladder_channel=_("ladder_channel"),
    )
    @app_commands.describe(
        default_preset=_("Default game for /rummy new"),
        turn_time=_("Default seconds per turn (0: none)"),
        help_=_("Hints allowed by default"),
        ladder_channel=_("Where ladder updates are posted"),
    )
    @app_commands.choices(default_preset=PRESETS)
    async def config(
        self,
        interaction: discord.Interaction,
        default_preset: str | None = None,
        turn_time: app_commands.Range[int, 0, 172800] | None = None,
        help_: bool | None = None,
        ladder_channel: discord.TextChannel | None = None,
    ) -> None:
        actions = self.bot.actions
        await actions.defer(interaction)
        lang = lang_of(interaction.locale)
        if interaction.guild is None:
            await actions.answer(interaction, t("discord.guild_only", lang))
            return
        perms = interaction.permissions
        if not (perms and perms.manage_guild):
            await actions.answer(interaction, t("discord.manage_server_only", lang))
            return
        config = await self.bot.league.set_guild_config(
            interaction.guild.id,
            preset=default_preset,
            turn_time=turn_time,
            help=help_,
            ladder_channel=ladder_channel.id if ladder_channel else None,
        )
        none = t("discord.none", lang)
        help_text = {True: t("discord.on", lang), False: t("discord.off", lang)}.get(
            config.get("help"), none
        )
        channel = config.get("ladder_channel")
        await actions.answer(
            interaction,
            t(
                "discord.config_saved",
                lang,
                preset=config.get("preset") or none,
                turn_time=config.get("turn_time") or none,
                help=help_text,
                channel=f"<#{channel}>" if channel else none,
            ),
        )
