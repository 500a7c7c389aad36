"""Turn the service's :mod:`~bot.service.outgoing` values into Discord messages.

The service commits a move before it returns its messages, so nothing here can corrupt a game:
every Discord failure (rate limit, missing permission, closed DMs, an outage) is caught, logged
and counted, and delivery goes on with the next message.

Where things go:

- public values (:class:`PublicText`, :class:`TablePicture`, :class:`TurnPrompt`,
  :class:`GameOver`) go to the game's thread, in the guild's language. The table picture and the
  turn prompt of one batch travel as ONE message carrying the game buttons; the prompt mentions
  the player to move (``<@id>``);
- :class:`PrivateRack` goes by DM, naming the game and linking its thread. When the player's DMs
  are closed (403 / 50007) the thread says so once per game and points to ``/rack``;
- :class:`PrivateText` and :class:`ErrorReply` for the person who is interacting go into their
  ephemeral reply; for anybody else (a hint after a time-out, say) by DM.

One lock per game keeps a game's messages in order even when a computer player's move (delivered
through the service's sink) follows a person's move immediately.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from i18n import lang_of, t

from ..service.outgoing import (
    ErrorReply,
    GameOver,
    Outgoing,
    PrivateRack,
    PrivateText,
    PublicText,
    TablePicture,
    TurnPrompt,
)
from .games import GameInfo
from .views import game_buttons

if TYPE_CHECKING:
    from .client import RummyBot

log = logging.getLogger(__name__)

LIMIT = 2000
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)
DMS_CLOSED = 50007


def chunks(text: str, limit: int = LIMIT) -> list[str]:
    """Split a long text at line ends into pieces Discord accepts."""
    out: list[str] = []
    current = ""
    for line in text.splitlines() or [""]:
        while len(line) > limit:
            out.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    if current:
        out.append(current)
    return out


@dataclass(slots=True)
class Report:
    """What a delivery produced for the person interacting, and what failed."""

    private: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)
    failures: int = 0
    started: bool = False
    finished: bool = False


class Delivery:
    """Deliver outgoing values of one or more games; never raises for a Discord failure."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot
        self._locks: dict[str, asyncio.Lock] = {}
        self._dm_warned: set[tuple[str, str]] = set()
        self._channels: dict[int, Any] = {}

    def lock(self, game_id: str) -> asyncio.Lock:
        """The per-game delivery lock (hold it around ``service.handle`` + :meth:`deliver`)."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def from_service(self, out: list[Outgoing]) -> None:
        """The service's sink: computer moves, time-outs, reminders, abandonment."""
        by_game: dict[str, list[Outgoing]] = {}
        for item in out:
            by_game.setdefault(item.game_id or "", []).append(item)
        for game_id, items in by_game.items():
            async with self.lock(game_id):
                await self.deliver(items)

    # ------------------------------------------------------------------ main entry

    async def deliver(self, out: Sequence[Outgoing], *, reply_to: str | None = None) -> Report:
        """Deliver ``out``; values meant for ``reply_to`` (the person interacting) come back in
        the report for their ephemeral answer instead."""
        report = Report()
        by_game: dict[str | None, list[Outgoing]] = {}
        for item in out:
            by_game.setdefault(item.game_id, []).append(item)
        for game_id, items in by_game.items():
            try:
                await self._deliver_game(game_id, items, reply_to, report)
            except Exception:
                report.failures += 1
                log.exception("delivering messages of game %s failed", game_id)
        return report

    async def _deliver_game(
        self, game_id: str | None, items: list[Outgoing], reply_to: str | None, report: Report
    ) -> None:
        info = None
        if game_id:
            info = await self.bot.games.fetch(self.bot.service, game_id)
        lang = self.guild_lang(info)
        pending_text: list[str] = []
        picture: TablePicture | None = None
        prompt: TurnPrompt | None = None
        finished = any(isinstance(item, GameOver) for item in items)

        async def flush_text() -> None:
            if pending_text:
                await self.public(info, "\n".join(pending_text), report)
                pending_text.clear()

        async def flush_table() -> None:
            nonlocal picture, prompt
            if picture is None and prompt is None:
                return
            if prompt is None and not finished:
                # a change within a turn: the picture waits for the end of the turn
                picture = None
                return
            await self._table_message(info, picture, prompt, lang, not finished, report)
            picture, prompt = None, None

        for item in items:
            if isinstance(item, PublicText):
                await flush_table()
                if item.kind == "start":
                    report.started = True
                pending_text.append(item.message(lang))
            elif isinstance(item, TablePicture):
                await flush_text()
                await flush_table()
                picture = item
            elif isinstance(item, TurnPrompt):
                await flush_text()
                prompt = item
            elif isinstance(item, GameOver):
                await flush_text()
                await flush_table()
                report.finished = True
                await self.public(info, item.message(lang), report)
                if info is not None:
                    await self.bot.league.after_game(info, item, lang)
            elif isinstance(item, PrivateRack):
                await self._rack(info, item, reply_to, report)
            elif isinstance(item, PrivateText):
                if item.to == reply_to:
                    report.private.append(item.text)
                else:
                    await self._dm(info, item.to, item.text, report, lang=lang)
            elif isinstance(item, ErrorReply):
                if item.to == reply_to:
                    report.errors.append(item.text)
                else:
                    await self._dm(info, item.to, item.text, report, lang=lang)
        await flush_text()
        await flush_table()

    # ------------------------------------------------------------------ public

    def guild_lang(self, info: GameInfo | None) -> str:
        """The language of a game's thread: the guild's preferred locale."""
        guild = self.bot.get_guild(info.guild_id) if info and info.guild_id else None
        return lang_of(guild.preferred_locale) if guild is not None else "en"

    async def channel(self, channel_id: int | None) -> Any:
        """A channel or thread by id, from the cache or the API (None when unreachable)."""
        if channel_id is None:
            return None
        channel = self.bot.get_channel(channel_id) or self._channels.get(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException as exc:
                log.warning("channel %s is unreachable: %s", channel_id, exc)
                return None
            self._channels[channel_id] = channel
        return channel

    async def public(
        self, info: GameInfo | None, text: str, report: Report | None = None, **kwargs: Any
    ) -> discord.Message | None:
        """Post ``text`` (split when long) in the game's thread; returns the last message."""
        if info is None:
            return None
        target = await self.channel(info.thread_id or info.channel_id)
        if target is None:
            if report is not None:
                report.failures += 1
            return None
        message = None
        pieces = chunks(text) if text else [""]
        for number, piece in enumerate(pieces):
            extra = kwargs if number == len(pieces) - 1 else {}
            try:
                message = await target.send(piece or None, allowed_mentions=MENTIONS, **extra)
            except discord.HTTPException as exc:
                log.warning("posting in %s failed: %s", getattr(target, "id", "?"), exc)
                if report is not None:
                    report.failures += 1
        return message

    async def _table_message(
        self,
        info: GameInfo | None,
        picture: TablePicture | None,
        prompt: TurnPrompt | None,
        lang: str,
        buttons: bool,
        report: Report,
    ) -> None:
        if info is None:
            return
        lines: list[str] = []
        if prompt is not None:
            who = prompt.name if prompt.is_bot else f"<@{prompt.player_id}>"
            if prompt.kind == "turn":
                if prompt.deadline and not prompt.is_bot:
                    when = f"<t:{int(prompt.deadline)}:R>"
                    lines.append(t("discord.turn_deadline", lang, mention=who, time=when))
                else:
                    lines.append(t("discord.turn", lang, mention=who))
            else:
                # reminders and other prompts: the service's sentence, naming the player by mention
                lines.append(t(prompt.key, lang, **{**prompt.params, "name": who}))
        elif picture is not None:
            lines.append(t("discord.table_caption", lang, turn=picture.turn_no))
        kwargs: dict[str, Any] = {}
        if picture is not None:
            png = picture.png  # drawn in English by the service
            if lang != "en" and picture.view is not None:
                png = await self.bot.service.render_view(picture.view, lang) or png
            kwargs["file"] = discord.File(io.BytesIO(png), filename="table.png")
        if buttons:
            kwargs["view"] = game_buttons(info.game_id, lang)
        await self.public(info, "\n".join(lines), report, **kwargs)

    # ------------------------------------------------------------------ private

    async def _rack(
        self, info: GameInfo | None, rack: PrivateRack, reply_to: str | None, report: Report
    ) -> None:
        head = ""
        if info is not None:
            head = t(
                "discord.rack_dm_head",
                rack.lang,
                game=info.game_id,
                preset=info.preset,
                thread=info.thread_url,
            )
        text = f"{head}\n{rack.text}" if head else rack.text
        files = [("rack.png", rack.png)] if rack.png else []
        sent = await self._dm(info, rack.to, text, report, files=files, warn=True)
        if not sent and rack.to == reply_to:
            report.private.append(rack.text)
            report.files.extend(files)

    async def _dm(
        self,
        info: GameInfo | None,
        to: str,
        text: str,
        report: Report,
        *,
        files: Sequence[tuple[str, bytes]] = (),
        warn: bool = False,
        lang: str = "en",
    ) -> bool:
        """Send a DM; on closed DMs post the /rack pointer in the thread once per game."""
        if not to.isdigit():
            return False  # computer players have no inbox
        try:
            user = self.bot.get_user(int(to)) or await self.bot.fetch_user(int(to))
            attachments = [discord.File(io.BytesIO(data), filename=name) for name, data in files]
            pieces = chunks(text)
            for number, piece in enumerate(pieces):
                extra = {"files": attachments} if attachments and number == len(pieces) - 1 else {}
                await user.send(piece, **extra)
        except discord.Forbidden as exc:
            if exc.code != DMS_CLOSED:
                log.warning("DM to %s refused: %s", to, exc)
            key = (info.game_id if info else "", to)
            if warn and info is not None and key not in self._dm_warned:
                self._dm_warned.add(key)
                glang = self.guild_lang(info)
                await self.public(info, t("discord.dm_closed", glang, mention=f"<@{to}>"), report)
            return False
        except discord.HTTPException as exc:
            log.warning("DM to %s failed: %s", to, exc)
            report.failures += 1
            return False
        return True
