"""League data for the Discord adapter: the ladder, seasons, guild settings, tournaments.

The league itself is :class:`bot.league.League`, opened by the wiring and handed to the service
(ladder results written by its result hook inside the very transaction that finishes a game,
seasons, voids, Rommé sittings, Rummy matches, tournaments); the adapter reaches it as
``service.league`` and only adds what Discord needs on top: guild settings (the service's adapter
data, namespace ``guild_config``), display names, and posting the standings.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from i18n import t

from .games import GameInfo
from .tables import tables_of
from .tournament_games import tournament_tables_of

if TYPE_CHECKING:
    from bot.league import Ladder, League, Season, Tournament

    from ..service.outgoing import GameOver
    from .client import RummyBot

log = logging.getLogger(__name__)

CONFIG = "guild_config"


class LeagueData:
    """Ladder, seasons, guild settings and tournaments, through the service and its league."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    @property
    def core(self) -> League:
        league = self.bot.service.league if self.bot.service is not None else None
        if league is None:
            raise RuntimeError("the league is opened by the wiring in setup_hook")
        return league

    # ------------------------------------------------------------------ results, ladder

    async def season_of(self, guild_id: str, preset: str) -> int:
        """The open season's number (1 while none was started), as stored now."""
        return await self.core.season_number(str(guild_id), preset)

    async def ladder(self, guild_id: int | str, preset: str, season: int | None) -> Ladder:
        return await self.core.ladder(str(guild_id), preset, season)

    async def name(self, player_id: str) -> str:
        if player_id.startswith("bot:"):  # a tournament's computer player, bot:<level>:<n>
            return t("discord.lobby.computer_name", "en", number=player_id.rsplit(":", 1)[-1])
        user = self.bot.get_user(int(player_id)) if player_id.isdigit() else None
        if user is not None:
            return user.display_name
        record = await self.bot.service.person(player_id)
        return record.name if record else player_id

    async def ladder_message(
        self, guild_id: int | str, preset: str, season: int | None, lang: str, *, top: int = 10
    ) -> tuple[str, bytes | None]:
        """The standings as text, plus a picture when the renderer is available."""
        season = season or await self.season_of(str(guild_id), preset)
        ladder = await self.ladder(guild_id, preset, season)
        title = t("discord.ladder_title", lang, preset=preset, season=season)
        if not ladder.rows:
            return t("discord.ladder_empty", lang, preset=preset, season=season), None
        lines = [f"**{title}**"]
        rows = []
        for row in ladder.rows[:top]:
            name = await self.name(row.player_id)
            pos = row.position if row.position is not None else "-"
            lines.append(
                t(
                    "discord.ladder_row",
                    lang,
                    position=pos,
                    name=name,
                    games=row.games,
                    wins=row.wins,
                    mp=row.mp,
                    percent=row.percent,
                    rating=row.rating,
                )
            )
            rows.append({**row.to_dict(), "player": name})
        png = None
        try:
            png = await self.bot.service.render_ladder(rows, title=title, lang=lang)
        except Exception:
            log.warning("ladder picture not available", exc_info=True)
        return "\n".join(lines), png

    async def after_game(
        self,
        info: GameInfo,
        over: GameOver,
        lang: str,
        summary: discord.Message | None = None,
    ) -> None:
        """After a finished game: the new standings go into the thread's ``summary`` message (an
        edit: the end of a game posts one message, not two) and the ladder channel, then close
        the table (:meth:`bot.discord.tables.Tables.game_over`: lobby message with
        the result and a Rematch button; the thread renamed, archived and locked once the
        game's last message is posted) and, for a tournament game, open the table's next game."""
        tables_of(self.bot).game_over(info, over)
        tournament_tables_of(self.bot).game_over(info)
        if info.guild_id is None:
            return
        season = await self.core.result_season(info.game_id)
        if season is None:
            return
        text, png = await self.ladder_message(info.guild_id, info.preset, season, lang)
        text = f"{t('discord.ladder_update', lang, game=info.game_id)}\n{text}"
        targets = [info.thread_id or info.channel_id]
        channel_id = (await self.guild_config(info.guild_id)).get("ladder_channel")
        if channel_id and int(channel_id) not in targets:
            targets.append(int(channel_id))
        for target_id in targets:
            channel = await self.bot.delivery.channel(target_id)
            if channel is None:
                continue
            files = [discord.File(io.BytesIO(png), filename="ladder.png")] if png else []
            try:
                if summary is not None and summary.channel.id == target_id:
                    content = f"{summary.content}\n\n{text}"[:2000]
                    await summary.edit(content=content, attachments=files)
                else:
                    await channel.send(text[:2000], files=files)
            except discord.HTTPException as exc:
                log.warning("posting the ladder in %s failed: %s", target_id, exc)

    def seasons_text(self, seasons: list[Season], preset: str, lang: str) -> str:
        """The seasons of a game, oldest first, one line each."""
        if not seasons:
            return t("discord.lobby.season_none", lang, preset=preset)
        lines = [t("discord.lobby.season_list_head", lang, preset=preset)]
        for season in seasons:
            name = f" {season.name}" if season.name else ""
            start = season.started_at[:10]
            if season.ended_at is None:
                key, end = "discord.lobby.season_row_open", ""
            else:
                key, end = "discord.lobby.season_row_ended", season.ended_at[:10]
            lines.append(t(key, lang, season=season.number, name=name, start=start, end=end))
        return "\n".join(lines)

    # ------------------------------------------------------------------ guild settings

    async def guild_config(self, guild_id: int) -> dict[str, Any]:
        """The guild's settings as stored now (no per-process copy: every process sharing
        the database reads the same settings)."""
        stored = await self.bot.service.adapter_data(CONFIG, str(guild_id))
        return dict(stored or {})

    async def set_guild_config(self, guild_id: int, **changes: Any) -> dict[str, Any]:
        """Change some settings (None: unchanged) in one read-modify-write transaction."""
        given = {k: v for k, v in changes.items() if v is not None}
        return await self.bot.service.update_adapter_data(
            CONFIG, str(guild_id), lambda stored: {**(stored or {}), **given}
        )

    # ------------------------------------------------------------------ tournaments

    async def tournament(self, guild_id: int) -> tuple[str, str, str, Tournament] | None:
        """(tournament id, name, organiser id, state) of the guild's newest tournament, or None."""
        found = await self.core.tournaments(str(guild_id))
        if not found:
            return None
        info = max(found, key=lambda i: (i.created_at, i.tournament_id))
        return info.tournament_id, info.name, info.organiser, info.state
