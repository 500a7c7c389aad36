"""``/rummy``: new, join, leave, start, abort, rules, status, config, season start|end|list;
``/rummyadmin``: config and season start|end|list for Manage Server members only.

Discord keeps ``default_member_permissions`` on top-level commands only (a subcommand cannot
carry it), so the admin commands of ``/rummy`` (kept: command names are a contract) check
Manage Server when used, and ``/rummyadmin`` offers the same commands with
``default_permissions(manage_guild=True)``: Discord shows it to admins only. Every game command
is guild-only. The lobby's buttons (:mod:`bot.discord.tables`) are registered here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.league import LeagueError
from i18n import error_text, lang_of, t

from ...service.games import DEFAULT_VARIANT, variants
from ..tables import LobbyButton, RematchButton, tables_of

if TYPE_CHECKING:
    from ..client import RummyBot

#: The games, from the registry (names from the catalogue; values are the preset names).
PRESETS = [app_commands.Choice(name=t(v.name_key), value=v.name) for v in variants()]
LEVELS = [
    app_commands.Choice(name=_("easy"), value="easy"),
    app_commands.Choice(name=_("medium"), value="medium"),
    app_commands.Choice(name=_("strong"), value="strong"),
]


log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
#: How long a shutdown waits for the threads of just-finished games to be closed (seconds).
CLOSE_WAIT = 10.0


def config_options(func: F) -> F:
    """The options of ``config`` (in /rummy and /rummyadmin)."""
    func = app_commands.choices(default_preset=PRESETS)(func)
    func = app_commands.describe(
        default_preset=_("Default game for /rummy new"),
        turn_time=_("Default seconds per turn (0: none)"),
        help_=_("Hints allowed by default"),
        ladder_channel=_("Where ladder updates are posted"),
    )(func)
    return app_commands.rename(
        default_preset=_("default_preset"),
        turn_time=_("turn_time"),
        help_=_("help"),
        ladder_channel=_("ladder_channel"),
    )(func)


def preset_option(func: F) -> F:
    """An optional ``preset`` choice (rules, seasons)."""
    func = app_commands.choices(preset=PRESETS)(func)
    func = app_commands.describe(preset=_("Which game"))(func)
    return app_commands.rename(preset=_("preset"))(func)


def named_season_options(func: F) -> F:
    """``preset`` and the new season's ``name``."""
    func = app_commands.choices(preset=PRESETS)(func)
    func = app_commands.describe(preset=_("Which game"), name=_("Season name"))(func)
    return app_commands.rename(preset=_("preset"), name=_("name"))(func)


class LobbyCog(commands.Cog):
    """Opening, joining, starting and ending tables."""

    rummy = app_commands.Group(
        name=_("rummy"), description=_("Play rummy on this server"), guild_only=True
    )
    season = app_commands.Group(
        name=_("season"), description=_("Ladder seasons (Manage Server)"), parent=rummy
    )
    admin = app_commands.Group(
        name=_("rummyadmin"),
        description=_("Rummy server administration (Manage Server)"),
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    admin_season = app_commands.Group(
        name=_("season"), description=_("Ladder seasons (Manage Server)"), parent=admin
    )

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(LobbyButton, RematchButton)
        # lobby texts are shown by the lobby message (bot.discord.tables), not in the thread
        self.bot.delivery.lobby_hook = tables_of(self.bot).on_lobby_text
        # tables of games that ended just before the last stop are closed after the start
        tables_of(self.bot).resume_when_ready()

    async def cog_unload(self) -> None:
        # threads of games that just ended are closed before the bot disconnects
        try:
            await asyncio.wait_for(tables_of(self.bot).wait_closed(), CLOSE_WAIT)
        except TimeoutError:
            log.warning("some finished games' threads were not closed before the shutdown")

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
        await tables_of(self.bot).new_game(
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
        await tables_of(self.bot).lobby_op(interaction, "join")

    @rummy.command(name=_("leave"), description=_("Leave the table before the game starts"))
    async def leave(self, interaction: discord.Interaction) -> None:
        await tables_of(self.bot).lobby_op(interaction, "leave")

    @rummy.command(name=_("start"), description=_("Deal and start the game (host)"))
    async def start(self, interaction: discord.Interaction) -> None:
        await tables_of(self.bot).lobby_op(interaction, "start")

    @rummy.command(name=_("abort"), description=_("Abort the game (host or Manage Server)"))
    async def abort(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.abort(interaction)

    @rummy.command(name=_("rules"), description=_("Show the rules of a game"))
    @preset_option
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        await self.bot.actions.rules(interaction, preset)

    @rummy.command(name=_("status"), description=_("Show the state of this game"))
    async def status(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.status(interaction)

    @rummy.command(name=_("config"), description=_("Server defaults for new games (Manage Server)"))
    @config_options
    async def config(
        self,
        interaction: discord.Interaction,
        default_preset: str | None = None,
        turn_time: app_commands.Range[int, 0, 172800] | None = None,
        help_: bool | None = None,
        ladder_channel: discord.TextChannel | None = None,
    ) -> None:
        await self._config(interaction, default_preset, turn_time, help_, ladder_channel)

    @admin.command(name=_("config"), description=_("Server defaults for new games (Manage Server)"))
    @config_options
    async def admin_config(
        self,
        interaction: discord.Interaction,
        default_preset: str | None = None,
        turn_time: app_commands.Range[int, 0, 172800] | None = None,
        help_: bool | None = None,
        ladder_channel: discord.TextChannel | None = None,
    ) -> None:
        await self._config(interaction, default_preset, turn_time, help_, ladder_channel)

    async def _admin_only(self, interaction: discord.Interaction, lang: str) -> bool:
        """A guild and Manage Server, or answered why not."""
        actions = self.bot.actions
        if interaction.guild is None:
            await actions.answer(interaction, t("discord.guild_only", lang))
            return False
        perms = interaction.permissions
        if not (perms and perms.manage_guild):
            await actions.answer(interaction, t("discord.manage_server_only", lang))
            return False
        return True

    async def _config(
        self,
        interaction: discord.Interaction,
        default_preset: str | None,
        turn_time: int | None,
        help_: bool | None,
        ladder_channel: discord.TextChannel | None,
    ) -> None:
        actions = self.bot.actions
        await actions.defer(interaction)
        lang = lang_of(interaction.locale)
        if not await self._admin_only(interaction, lang):
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

    # ------------------------------------------------------------------ seasons

    @season.command(name=_("start"), description=_("Start a new season (archives the open one)"))
    @named_season_options
    async def season_start(
        self, interaction: discord.Interaction, preset: str | None = None, name: str = ""
    ) -> None:
        await self._season(interaction, "start", preset, name)

    @season.command(name=_("end"), description=_("End the open season"))
    @preset_option
    async def season_end(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        await self._season(interaction, "end", preset, "")

    @season.command(name=_("list"), description=_("List the seasons"))
    @preset_option
    async def season_list(
        self, interaction: discord.Interaction, preset: str | None = None
    ) -> None:
        await self._season(interaction, "list", preset, "")

    @admin_season.command(
        name=_("start"), description=_("Start a new season (archives the open one)")
    )
    @named_season_options
    async def admin_season_start(
        self, interaction: discord.Interaction, preset: str | None = None, name: str = ""
    ) -> None:
        await self._season(interaction, "start", preset, name)

    @admin_season.command(name=_("end"), description=_("End the open season"))
    @preset_option
    async def admin_season_end(
        self, interaction: discord.Interaction, preset: str | None = None
    ) -> None:
        await self._season(interaction, "end", preset, "")

    @admin_season.command(name=_("list"), description=_("List the seasons"))
    @preset_option
    async def admin_season_list(
        self, interaction: discord.Interaction, preset: str | None = None
    ) -> None:
        await self._season(interaction, "list", preset, "")

    async def _season(
        self, interaction: discord.Interaction, op: str, preset: str | None, name: str
    ) -> None:
        """Start, end or list the ladder seasons of a game (Manage Server), through the league."""
        actions = self.bot.actions
        await actions.defer(interaction)
        lang = lang_of(interaction.locale)
        if not await self._admin_only(interaction, lang):
            return
        guild = str(interaction.guild.id)
        if preset is None:
            preset = (await self.bot.league.guild_config(interaction.guild.id)).get("preset")
        preset = preset or DEFAULT_VARIANT
        league = self.bot.league
        try:
            if op == "start":
                change = await league.core.start_season(guild, preset, name[:60])
                label = f" ({change.started.name})" if change.started.name else ""
                text = t(
                    "discord.lobby.season_started",
                    lang,
                    season=change.started.number,
                    preset=preset,
                    name=label,
                )
            elif op == "end":
                ended = await league.core.end_season(guild, preset)
                text = t("discord.lobby.season_ended", lang, season=ended.number, preset=preset)
            else:
                text = league.seasons_text(await league.core.seasons(guild, preset), preset, lang)
        except LeagueError as exc:
            text = error_text(exc, lang)
        await actions.answer(interaction, text)
