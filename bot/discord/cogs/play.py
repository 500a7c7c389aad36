"""In a game: ``/play``, ``/draw``, ``/done``, ``/reset``, ``/undo``, ``/rack``, ``/hint`` (all
guild-only), the Play button and the answers to its form (:mod:`bot.discord.play_modal`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from ..play_modal import PlayButton, submitted

if TYPE_CHECKING:
    from ..client import RummyBot


class PlayCog(commands.Cog):
    """Each command types the same words a player could type with ``/play``."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(PlayButton)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A submitted Play form (answered here, so forms opened before a restart work too)."""
        await submitted(interaction)

    @app_commands.guild_only()
    @app_commands.command(name=_("play"), description=_("Run commands, e.g. meld R5 R6 R7; done"))
    @app_commands.rename(text=_("text"))
    @app_commands.describe(text=_("Your commands"))
    async def play(self, interaction: discord.Interaction, text: str) -> None:
        await self.bot.actions.command(interaction, text)

    @play.autocomplete("text")
    async def play_pieces(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self.bot.actions.autocomplete_pieces(interaction, current)

    @app_commands.guild_only()
    @app_commands.command(name=_("draw"), description=_("Draw from the pool"))
    async def draw(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.command(interaction, "draw")

    @app_commands.guild_only()
    @app_commands.command(name=_("done"), description=_("End your turn"))
    async def done(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.command(interaction, "done")

    @app_commands.guild_only()
    @app_commands.command(name=_("reset"), description=_("Undo all changes of this turn"))
    async def reset(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.command(interaction, "reset")

    @app_commands.guild_only()
    @app_commands.command(name=_("undo"), description=_("Take back your last change"))
    async def undo(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.command(interaction, "undo")

    @app_commands.guild_only()
    @app_commands.command(name=_("rack"), description=_("Show your rack privately"))
    async def rack(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.rack(interaction)

    @app_commands.guild_only()
    @app_commands.command(name=_("hint"), description=_("The best move, privately"))
    async def hint(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.command(interaction, "hint")
