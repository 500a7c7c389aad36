"""League: ``/ladder``, ``/stats`` and ``/tournament`` (Stein-Rummy tournaments).

The numbers come from the league (:class:`bot.league.League`, reached as ``service.league``:
ladder recomputed from stored results; tournaments read, changed and stored by the league itself);
this cog only reads options, calls it and formats.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.league import LeagueError
from i18n import error_text, lang_of, t

from ...service.games import DEFAULT_TOURNAMENT_VARIANT, DEFAULT_VARIANT, tournament_variants
from ...service.tournament_tables import computer_id
from ..tables import missing_permission_text
from ..tournament_games import tournament_tables_of
from .lobby import LEVELS, PRESETS

if TYPE_CHECKING:
    from ..client import RummyBot

log = logging.getLogger(__name__)

TOURNAMENT_PRESETS = [c for c in PRESETS if c.value in tournament_variants()]
DIRECTOR = [
    app_commands.Choice(name=_("end early (tiles left)"), value="end_early"),
    app_commands.Choice(name=_("award MP"), value="award"),
    app_commands.Choice(name=_("neutralise"), value="neutralise"),
]


def numbers(text: str) -> list[float] | None:
    try:
        return [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        return None


class LeagueCog(commands.Cog):
    """Ladder, statistics and tournaments."""

    tournament = app_commands.Group(
        name=_("tournament"), description=_("Stein-Rummy tournaments"), guild_only=True
    )

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # tournament tables whose next game was not opened before a restart (after login)
        tournament_tables_of(self.bot).resume_when_ready()

    # ------------------------------------------------------------------ ladder, stats

    @app_commands.command(name=_("ladder"), description=_("Show the ladder"))
    @app_commands.guild_only()
    @app_commands.rename(preset=_("preset"), season=_("season"))
    @app_commands.describe(preset=_("Which game"), season=_("Season number (default: current)"))
    @app_commands.choices(preset=PRESETS)
    async def ladder(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        season: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        actions = self.bot.actions
        await actions.defer(interaction)
        lang = lang_of(interaction.locale)
        if interaction.guild is None:
            await actions.answer(interaction, t("discord.guild_only", lang))
            return
        config = await self.bot.league.guild_config(interaction.guild.id)
        preset = preset or config.get("preset") or DEFAULT_VARIANT
        text, png = await self.bot.league.ladder_message(interaction.guild.id, preset, season, lang)
        await actions.answer(interaction, text, files=[("ladder.png", png)] if png else [])

    @app_commands.command(name=_("stats"), description=_("A player's ladder statistics"))
    @app_commands.guild_only()
    @app_commands.rename(user=_("user"))
    @app_commands.describe(user=_("Whose statistics"))
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        actions = self.bot.actions
        await actions.defer(interaction)
        lang = lang_of(interaction.locale)
        if interaction.guild is None:
            await actions.answer(interaction, t("discord.guild_only", lang))
            return
        who = user or interaction.user
        pid = str(who.id)
        lines = [t("discord.stats_head", lang, name=who.display_name)]
        for choice in PRESETS:
            ladder = await self.bot.league.ladder(interaction.guild.id, choice.value, None)
            row = next((r for r in ladder.rows if r.player_id == pid), None)
            if row is not None:
                lines.append(
                    t(
                        "discord.stats_line",
                        lang,
                        preset=choice.value,
                        games=row.games,
                        wins=row.wins,
                        percent=row.percent,
                        rating=row.rating,
                        position=row.position or "-",
                    )
                )
        if len(lines) == 1:
            lines = [t("discord.stats_none", lang, name=who.display_name)]
        await actions.answer(interaction, "\n".join(lines))

    # ------------------------------------------------------------------ tournaments

    async def _load(self, interaction: discord.Interaction, *, organiser: bool):
        """(tournament id, name, organiser, state) or None after answering why not."""
        lang = lang_of(interaction.locale)
        data = await self.bot.league.tournament(interaction.guild.id)
        if data is None:
            await self.bot.actions.answer(interaction, t("discord.tournament_none", lang))
            return None
        perms = interaction.permissions
        if organiser and data[2] != str(interaction.user.id) and not perms.manage_guild:
            await self.bot.actions.answer(interaction, t("discord.tournament_organiser_only", lang))
            return None
        return data

    async def _say(self, interaction, text, *, public=False):
        """The answer; ``public`` news also go to the channel."""
        if public and interaction.channel is not None:
            try:
                await interaction.channel.send(text[:2000])
            except discord.HTTPException as exc:
                log.warning("posting the tournament news failed: %s", exc)
        await self.bot.actions.answer(interaction, text)

    @tournament.command(name=_("create"), description=_("Create a tournament (you organise it)"))
    @app_commands.rename(name=_("name"), preset=_("preset"))
    @app_commands.describe(name=_("Tournament name"), preset=_("Which game"))
    @app_commands.choices(preset=TOURNAMENT_PRESETS)
    async def create(
        self, interaction: discord.Interaction, name: str, preset: str = DEFAULT_TOURNAMENT_VARIANT
    ) -> None:
        await self.bot.actions.defer(interaction)
        lang = lang_of(interaction.locale)
        perms = interaction.permissions
        existing = await self.bot.league.tournament(interaction.guild.id)
        mine = existing is None or existing[2] == str(interaction.user.id)
        if not mine and not perms.manage_guild:
            await self.bot.actions.answer(interaction, t("discord.tournament_organiser_only", lang))
            return
        # a tournament of the same name is started afresh (it keeps its creation time)
        await self.bot.league.core.create_tournament(
            str(interaction.guild.id),
            name[:60],
            preset=preset,
            name=name[:60],
            organiser=str(interaction.user.id),
            replace=True,
        )
        text = t("discord.tournament_created", lang, name=name[:60], preset=preset)
        await self._say(interaction, text, public=True)

    @tournament.command(name=_("join"), description=_("Register for the tournament"))
    async def join(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.defer(interaction)
        lang = lang_of(interaction.locale)
        data = await self._load(interaction, organiser=False)
        if data is None:
            return
        tournament_id = data[0]
        try:
            state = await self.bot.league.core.register_player(
                str(interaction.guild.id), tournament_id, str(interaction.user.id)
            )
        except LeagueError as exc:
            await self.bot.actions.answer(interaction, error_text(exc, lang))
            return
        await self.bot.service.register_player(
            str(interaction.user.id), interaction.user.display_name, lang
        )
        text = t(
            "discord.tournament_joined",
            lang,
            name=interaction.user.display_name,
            count=len(state.players),
        )
        await self._say(interaction, text)

    @tournament.command(name=_("round"), description=_("Seat the next round (organiser)"))
    @app_commands.rename(bot_games=_("bot_games"), computers=_("computers"), level=_("level"))
    @app_commands.describe(
        bot_games=_("Play each table as a bot game in its own thread"),
        computers=_("Computer players for empty seats (organiser: play the tables as bot games)"),
        level=_("Computer level"),
    )
    @app_commands.choices(level=LEVELS)
    async def round_(
        self,
        interaction: discord.Interaction,
        bot_games: bool = True,
        computers: app_commands.Range[int, 0, 12] = 0,
        level: str = "medium",
    ) -> None:
        await self.bot.actions.defer(interaction)
        lang = lang_of(interaction.guild_locale or interaction.locale)
        mine = lang_of(interaction.locale)
        data = await self._load(interaction, organiser=True)
        if data is None:
            return
        if bot_games:
            refusal = missing_permission_text(interaction.app_permissions, mine)
            if refusal is not None:
                await self.bot.actions.answer(interaction, refusal)
                return
        guild, tournament_id = str(interaction.guild.id), data[0]
        games = tournament_tables_of(self.bot)
        try:
            if computers and not data[3].started:
                known = sum(1 for p in data[3].players if p.startswith("bot:"))
                for number in range(known + 1, known + computers + 1):
                    player = computer_id(level, number)
                    await self.bot.league.core.register_player(guild, tournament_id, player)
            state = await self.bot.league.core.start_round(guild, tournament_id)
        except LeagueError as exc:
            await self.bot.actions.answer(interaction, error_text(exc, mine))
            return
        current = state.rounds[-1]
        lines = [t("discord.tournament_round", lang, round=len(state.rounds))]
        for table in current.tables:
            people = ", ".join([await games.mention(p) for p in table.seats])
            lines.append(t("discord.tournament_table", lang, table=table.number, players=people))
        if bot_games and interaction.channel is not None:
            opened = await games.open_round(
                guild, tournament_id, interaction.channel.id, str(interaction.user.id)
            )
            lines.append(
                t("discord.lobby.tournament_games", lang, round=current.number, count=len(opened))
            )
            for table, number, thread in opened:
                lines.append(
                    t(
                        "discord.lobby.tournament_game_line",
                        lang,
                        table=table,
                        number=number,
                        thread=thread,
                    )
                )
        await self._say(interaction, "\n".join(lines), public=True)

    @tournament.command(name=_("standings"), description=_("Show the tournament standings"))
    async def standings_(self, interaction: discord.Interaction) -> None:
        await self.bot.actions.defer(interaction)
        lang = lang_of(interaction.locale)
        data = await self._load(interaction, organiser=False)
        if data is None:
            return
        tournament_id, name = data[0], data[1]
        lines = [t("discord.tournament_standings", lang, name=name)]
        for row in await self.bot.league.core.standings(str(interaction.guild.id), tournament_id):
            lines.append(
                t(
                    "discord.tournament_row",
                    lang,
                    position=row.position,
                    player=await self.bot.league.name(row.player_id),
                    mp=row.mp,
                    max_mp=row.max_mp,
                    percent=row.percent,
                    games=row.games,
                )
            )
        await self.bot.actions.answer(interaction, "\n".join(lines))

    @tournament.command(name=_("record"), description=_("Enter a finished table game (organiser)"))
    @app_commands.rename(table=_("table"), tiles_left=_("tiles_left"), winner=_("winner"))
    @app_commands.describe(
        table=_("Table number"),
        tiles_left=_("Tiles left per seat, e.g. 0 3 5"),
        winner=_("Seat of the winner (1-based; 0: none)"),
    )
    async def record(
        self,
        interaction: discord.Interaction,
        table: app_commands.Range[int, 1, 100],
        tiles_left: str,
        winner: app_commands.Range[int, 0, 4] = 0,
    ) -> None:
        await self._director(interaction, "record", table, tiles_left, winner)

    @tournament.command(
        name=_("director"), description=_("Director action on a table game (organiser)")
    )
    @app_commands.rename(action=_("action"), table=_("table"), values=_("values"))
    @app_commands.describe(
        action=_("What to do"),
        table=_("Table number"),
        values=_("Numbers per seat (tiles left or MP)"),
    )
    @app_commands.choices(action=DIRECTOR)
    async def director(
        self,
        interaction: discord.Interaction,
        action: str,
        table: app_commands.Range[int, 1, 100],
        values: str = "",
    ) -> None:
        await self._director(interaction, action, table, values, 0)

    async def _director(self, interaction, action, table, values, winner) -> None:
        await self.bot.actions.defer(interaction)
        lang = lang_of(interaction.locale)
        data = await self._load(interaction, organiser=True)
        if data is None:
            return
        guild, tournament_id = str(interaction.guild.id), data[0]
        try:
            busy = await tournament_tables_of(self.bot).tables.running_game(
                guild, tournament_id, table
            )
        except LeagueError:
            busy = None  # no such table: the league's own answer follows
        if busy is not None:
            info = await self.bot.games.fetch(self.bot.service, busy)
            where = f"<#{info.thread_id}>" if info and info.thread_id else busy
            text = t("discord.lobby.tournament_table_busy", lang, table=table, thread=where)
            await self.bot.actions.answer(interaction, text)
            return
        figures = numbers(values)
        if figures is None or (action != "neutralise" and not figures):
            await self.bot.actions.answer(
                interaction, t("discord.tournament_bad_numbers", lang, text=values)
            )
            return
        league = self.bot.league.core
        try:
            if action == "record":
                lefts = [int(v) for v in figures]
                await league.record_game(
                    guild, tournament_id, table, lefts, winner - 1 if winner else None
                )
            elif action == "end_early":
                await league.end_game_early(guild, tournament_id, table, [int(v) for v in figures])
            elif action == "award":
                await league.award_game(guild, tournament_id, table, figures)
            else:
                await league.neutralise_game(guild, tournament_id, table)
        except LeagueError as exc:
            await self.bot.actions.answer(interaction, error_text(exc, lang))
            return
        text = t("discord.tournament_recorded", lang, table=table, kind=action)
        await self._say(interaction, text)
