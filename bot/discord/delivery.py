"""Turn the service's :mod:`~bot.service.outgoing` values into Discord messages.

The service commits a move before it returns its messages, so nothing here can corrupt a game:
every Discord failure (rate limit, missing permission, closed DMs, an outage) is caught, logged
and counted, and delivery goes on with the next message.

Where things go:

- **one game message per turn** in the game's thread, a components v2 layout
  (:func:`~bot.discord.views.turn_layout`): what the previous player did (the guild's language),
  the line for the player to move with the ping (in that player's language), the table picture
  (drawn in the guild's language) and the game buttons. While the turn goes on the message is
  edited (a new picture, reminders, what happened so far); when the turn passes the old message
  loses its buttons and the new turn gets a new message. At the end the last turn message shows
  the final table without buttons and the summary follows as one more message. Where the live
  message is (and what it says) is adapter data (``discord_turn``), so a restart goes on with it;
- **one rack DM per game and person**, naming the game and linking its thread, edited whenever
  the rack changes. When the person's turn starts the old DM is deleted and a new one is sent,
  silently: the turn message already pings the mover, so each turn start notifies exactly once.
  No DM carries buttons (interactions in DMs reach shard 0 only). A finished game's DM is edited
  to say so (a winner gets no empty-rack DM). When DMs are closed (403 / 50007) the thread says so
  once per game and points to ``/rack``; ids in adapter data ``discord_rack``;
- :class:`PrivateText` and :class:`ErrorReply` for the person who is interacting go into their
  ephemeral reply; for anybody else (what a time-out drew, say) into their rack DM (an edit; a
  new DM only when they have none), in that person's language (the locale they last used, as
  the service stores it);
- lobby texts (:class:`PublicText` of kind ``lobby``) go to :attr:`Delivery.lobby_hook` (the
  lobby message) when it is set, else they are posted as plain text.

One lock per game keeps a game's messages in order even when a computer player's move (delivered
through the service's sink) follows a person's move immediately.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
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
from .views import TABLE_FILE, turn_layout

if TYPE_CHECKING:
    from .client import RummyBot

log = logging.getLogger(__name__)

LIMIT = 2000
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)
NO_PINGS = discord.AllowedMentions.none()
DMS_CLOSED = 50007
#: Adapter data: the live turn message of a game (key: game id).
TURN_NAMESPACE = "discord_turn"
#: Adapter data: a person's rack DM in a game (key: ``<game id>:<player id>``).
RACK_NAMESPACE = "discord_rack"


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


@dataclass(slots=True)
class TurnMessage:
    """The game message of the turn under way: where it is and what it shows."""

    channel_id: int
    message_id: int
    text: str
    picture: bool
    live: bool = True  # False once the game is over (no buttons any more)


@dataclass(slots=True)
class RackMessage:
    """A person's rack DM in one game."""

    channel_id: int
    message_id: int


@dataclass(slots=True)
class _Batch:
    """One game's outgoing values of one delivery, sorted by where they go."""

    lines: list[str] = field(default_factory=list)  # public, in the guild's language
    picture: TablePicture | None = None
    prompt: TurnPrompt | None = None
    reminder: TurnPrompt | None = None
    over: GameOver | None = None
    racks: list[PrivateRack] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # closed DMs, in the guild's language
    #: Private lines for people other than the one interacting (a time-out's draw, say), in
    #: each person's language: they go into that person's rack DM.
    private: dict[str, list[str]] = field(default_factory=dict)


def _where(info: GameInfo) -> dict[str, Any]:
    """The params of a rack DM's first line: the game, its preset, a link to its thread."""
    return {"game": info.game_id, "preset": info.preset, "thread": info.thread_url}


def _digest(picture: TablePicture) -> bytes:
    """What a picture shows (its view), to leave an unchanged picture where it is."""
    return hashlib.blake2b(repr(picture.view).encode(), digest_size=16).digest()


def _record(kind: Any, data: Any) -> Any:
    """A stored message record, or None when there is none (or it is not one we can read)."""
    if not isinstance(data, dict):
        return None
    try:
        return kind(**data)
    except TypeError:
        log.warning("unreadable %s record: %r", kind.__name__, data)
        return None


class Delivery:
    """Deliver outgoing values of one or more games; never raises for a Discord failure."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot
        self._locks: dict[str, asyncio.Lock] = {}
        self._dm_warned: set[tuple[str, str]] = set()
        self._channels: dict[int, Any] = {}
        self._turns: dict[str, TurnMessage | None] = {}
        self._shown: dict[str, bytes] = {}  # a digest of what each game's turn message shows
        self._racks: dict[tuple[str, str], RackMessage | None] = {}
        #: Who shows lobby texts (``async (info, item, lang)``; the lobby message's owner sets
        #: it); None: they are posted in the thread as plain text.
        self.lobby_hook: Callable[[GameInfo | None, PublicText, str], Awaitable[None]] | None = None

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

    def _failed(self, kind: str, report: Report | None = None) -> None:
        """Count a Discord failure (the report, and the bot's metrics when it has them)."""
        if report is not None:
            report.failures += 1
        metrics = getattr(self.bot, "metrics", None)
        if metrics is not None:
            try:
                metrics.discord_failure(kind)
            except Exception:
                log.exception("metrics hook failed")

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
        batch = _Batch()
        moves = next(
            (i.moves for i in items if isinstance(i, TurnPrompt | GameOver) and i.moves), None
        )
        for item in items:
            if isinstance(item, PublicText):
                if item.kind == "lobby":
                    if self.lobby_hook is not None:
                        try:
                            await self.lobby_hook(info, item, lang)
                        except Exception:
                            log.exception("the lobby text of %s was not shown", game_id)
                            self._failed("lobby", report)
                    else:
                        await self.public(info, item.message(lang), report)
                    continue
                if item.kind == "start":
                    report.started = True
                if item.kind == "event" and moves is not None:
                    continue  # the turn's words (moves) say it all at once
                batch.lines.append(item.message(lang))
            elif isinstance(item, TablePicture):
                batch.picture = item
            elif isinstance(item, TurnPrompt):
                if item.kind == "turn":
                    batch.prompt = item
                else:
                    batch.reminder = item
            elif isinstance(item, GameOver):
                batch.over = item
                report.finished = True
            elif isinstance(item, PrivateRack):
                batch.racks.append(item)
            elif isinstance(item, PrivateText | ErrorReply):
                if item.to == reply_to:
                    (report.private if isinstance(item, PrivateText) else report.errors).append(
                        item.text
                    )
                else:
                    text = item.message(await self.person_lang(item.to))
                    if info is not None:
                        batch.private.setdefault(item.to, []).append(text)
                    else:
                        await self._dm(info, item.to, text, report)
        if moves is not None:
            batch.lines.insert(0, moves.message(lang))
        if info is None:
            return
        await self._thread(info, batch, lang, report)
        await self._racks_of(info, batch, reply_to, report)
        if batch.notices:
            await self._notices(info, batch.notices, lang, report)
        if batch.over is not None:
            summary = await self.public(info, batch.over.message(lang), report)
            await self.bot.league.after_game(info, batch.over, lang, summary)
            # a finished game's DMs and picture are not touched again
            self._shown.pop(info.game_id, None)
            for key in [k for k in self._racks if k[0] == info.game_id]:
                del self._racks[key]

    # ------------------------------------------------------------------ languages

    def guild_lang(self, info: GameInfo | None) -> str:
        """The language of a game's thread: the guild's preferred locale."""
        guild = self.bot.get_guild(info.guild_id) if info and info.guild_id else None
        return lang_of(guild.preferred_locale) if guild is not None else "en"

    async def person_lang(self, player_id: str) -> str:
        """A person's language: the Discord locale they last used (stored by the service)."""
        try:
            record = await self.bot.service.person(player_id)
        except Exception:
            log.warning("the language of %s is unknown", player_id, exc_info=True)
            return "en"
        return lang_of(record.locale) if record is not None else "en"

    # ------------------------------------------------------------------ the turn message

    async def turn_message(self, game_id: str) -> TurnMessage | None:
        """The game's turn message (from memory, else the adapter data), or None."""
        if game_id not in self._turns:
            data = None
            try:
                data = await self.bot.service.adapter_data(TURN_NAMESPACE, game_id)
            except Exception:
                log.warning("turn message of %s unknown", game_id, exc_info=True)
            self._turns[game_id] = _record(TurnMessage, data)
        return self._turns[game_id]

    async def _keep_turn(self, game_id: str, turn: TurnMessage) -> None:
        self._turns[game_id] = turn
        try:
            await self.bot.service.set_adapter_data(TURN_NAMESPACE, game_id, asdict(turn))
        except Exception:
            log.warning("turn message of %s not stored", game_id, exc_info=True)

    async def _prompt_line(self, prompt: TurnPrompt, glang: str) -> str:
        """The line for the player to move, in that player's language, mentioning them."""
        if prompt.is_bot:
            who, lang = prompt.name, glang
        else:
            who, lang = f"<@{prompt.player_id}>", await self.person_lang(prompt.player_id)
        if prompt.kind != "turn":
            # reminders and other prompts: the service's sentence, naming the player by mention
            return t(prompt.key, lang, **{**prompt.params, "name": who})
        if prompt.deadline and not prompt.is_bot:
            return t(
                "discord.turn_deadline", lang, mention=who, time=f"<t:{int(prompt.deadline)}:R>"
            )
        return t("discord.turn", lang, mention=who)

    async def _picture(self, picture: TablePicture | None, lang: str) -> discord.File | None:
        if picture is None:
            return None
        png = await picture.png(lang)  # drawn now, once, in the thread's language
        if not png:
            return None
        self._shown[picture.game_id] = _digest(picture)
        return discord.File(io.BytesIO(png), filename=TABLE_FILE)

    async def _thread(self, info: GameInfo, batch: _Batch, lang: str, report: Report) -> None:
        """The thread's side of a batch: a new turn message, or an edit of the live one."""
        current = await self.turn_message(info.game_id)
        extra = list(batch.lines)
        if batch.prompt is not None:
            # the new turn's message first (what everybody waits for), then the old one
            # becomes the record of its turn
            text = "\n".join([*extra, await self._prompt_line(batch.prompt, lang)])
            await self._post_turn(info, text, batch.picture, lang, report, buttons=True)
            if current is not None and current.live:
                await self._edit_turn(info, current, lang, buttons=False, report=report, keep=False)
            return
        if current is None or not current.live:
            # no turn message to edit (a game from before one-message-per-turn, or an edit
            # failed): what happened goes out as it is
            if batch.over is None and batch.picture is not None:
                await self._post_turn(info, "\n".join(extra), batch.picture, lang, report, True)
            elif batch.over is not None and (batch.picture is not None or extra):
                await self._post_turn(info, "\n".join(extra), batch.picture, lang, report, False)
            elif extra or batch.reminder is not None:
                if batch.reminder is not None:
                    extra.append(await self._prompt_line(batch.reminder, lang))
                await self.public(info, "\n".join(extra), report)
            return
        if batch.picture is not None and self._shown.get(info.game_id) == _digest(batch.picture):
            batch.picture = None  # the same table: nothing new to show
        if not (extra or batch.picture or batch.reminder or batch.over):
            return
        if batch.reminder is not None:
            extra.append(await self._prompt_line(batch.reminder, lang))
        current.text = "\n".join([current.text, *extra]) if extra else current.text
        await self._edit_turn(
            info,
            current,
            lang,
            buttons=batch.over is None,
            picture=batch.picture,
            report=report,
        )

    async def _notices(self, info: GameInfo, notices: list[str], lang: str, report: Report) -> None:
        """Notices that came up while delivering (closed DMs): on the live turn message."""
        current = await self.turn_message(info.game_id)
        if current is None or not current.live:
            await self.public(info, "\n".join(notices), report)
            return
        current.text = "\n".join([current.text, *notices])
        await self._edit_turn(info, current, lang, buttons=True, report=report)

    async def _post_turn(
        self,
        info: GameInfo,
        text: str,
        picture: TablePicture | None,
        lang: str,
        report: Report,
        buttons: bool,
    ) -> None:
        target = await self.channel(info.thread_id or info.channel_id)
        if target is None:
            self._failed("channel", report)
            return
        file = await self._picture(picture, lang)
        more = self._more_buttons(info.game_id, lang) if buttons else []
        layout = turn_layout(
            info.game_id, text, lang, picture=file is not None, buttons=buttons, more=more
        )
        kwargs: dict[str, Any] = {"file": file} if file is not None else {}
        try:
            message = await target.send(view=layout, allowed_mentions=MENTIONS, **kwargs)
        except discord.HTTPException as exc:
            log.warning("posting the turn message of %s failed: %s", info.game_id, exc)
            self._failed("post", report)
            return
        turn = TurnMessage(target.id, message.id, text, file is not None, live=buttons)
        await self._keep_turn(info.game_id, turn)

    async def _edit_turn(
        self,
        info: GameInfo,
        turn: TurnMessage,
        lang: str,
        *,
        buttons: bool,
        picture: TablePicture | None = None,
        report: Report,
        keep: bool = True,
    ) -> None:
        """Edit the turn message: its text, a new picture (else the one it has), buttons on or
        off. Once the buttons are off the message is a record of a past turn. ``keep``: it is
        still the game's turn message (False: a newer one has taken its place)."""
        file = await self._picture(picture, lang)
        shows = turn.picture or file is not None
        more = self._more_buttons(info.game_id, lang) if buttons else []
        layout = turn_layout(
            info.game_id, turn.text, lang, picture=shows, buttons=buttons, more=more
        )
        kwargs: dict[str, Any] = {"attachments": [file]} if file is not None else {}
        message = self.bot.get_partial_messageable(turn.channel_id).get_partial_message(
            turn.message_id
        )
        try:
            await message.edit(view=layout, allowed_mentions=NO_PINGS, **kwargs)
        except discord.HTTPException as exc:
            log.warning("editing the turn message of %s failed: %s", info.game_id, exc)
            self._failed("edit", report)
            if isinstance(exc, discord.NotFound):
                buttons = False  # deleted: the next change posts a new message
            else:
                return
        turn.picture, turn.live = shows, buttons
        if keep:
            await self._keep_turn(info.game_id, turn)

    def _more_buttons(self, game_id: str, lang: str) -> list[discord.ui.Item[Any]]:
        """More buttons for the live turn message (the Play button, when its module is here)."""
        try:
            from .play_modal import play_button
        except ImportError:
            return []
        return [play_button(game_id, lang)]

    # ------------------------------------------------------------------ plain public text

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
            self._failed("channel", report)
            return None
        message = None
        pieces = chunks(text) if text else [""]
        for number, piece in enumerate(pieces):
            extra = kwargs if number == len(pieces) - 1 else {}
            try:
                message = await target.send(piece or None, allowed_mentions=MENTIONS, **extra)
            except discord.HTTPException as exc:
                log.warning("posting in %s failed: %s", getattr(target, "id", "?"), exc)
                self._failed("post", report)
        return message

    # ------------------------------------------------------------------ rack DMs

    async def _racks_of(
        self, info: GameInfo, batch: _Batch, reply_to: str | None, report: Report
    ) -> None:
        """Rack DMs: edited when a rack changes, a new one for the player whose turn starts."""
        starting = batch.prompt.player_id if batch.prompt and not batch.prompt.is_bot else None
        for rack in batch.racks:
            if rack.to == starting:
                continue  # the turn-start DM below shows it
            await self._rack(info, rack, batch, reply_to, report, over=batch.over is not None)
        if batch.over is not None:
            await self._racks_over(info, batch, report)
        if starting is not None and starting.isdigit():
            rack = next((r for r in batch.racks if r.to == starting), None)
            if rack is None:
                rack = await self._rack_now(info, starting, batch.prompt.seat)
            await self._rack(info, rack, batch, reply_to, report, turn=True)
        for player_id in list(batch.private):
            await self._private_lines(info, player_id, batch, report)

    async def _private_lines(
        self, info: GameInfo, player_id: str, batch: _Batch, report: Report
    ) -> None:
        """Private lines for someone whose rack DM did not change: that DM shows them too (an
        edit, no new notification); a new DM only when there is none."""
        lines = batch.private.pop(player_id)
        old = await self.rack_message(info.game_id, player_id)
        if old is None:
            await self._dm(info, player_id, "\n".join(lines), report)
            return
        lang = await self.person_lang(player_id)
        where = _where(info)
        key = "discord.rack_dm_over" if batch.over is not None else "discord.rack_dm_head"
        text = [t(key, lang, **where), *lines]
        pieces = self.bot.service.rack(info.game_id, player_id)
        if pieces:
            text.append(t("service.rack", lang, count=len(pieces), pieces=" ".join(pieces)))
        if not await self._edit_dm(old, "\n".join(text), None, report):
            await self._dm(info, player_id, "\n".join(lines), report)

    async def _racks_over(self, info: GameInfo, batch: _Batch, report: Report) -> None:
        """At the end every other rack DM of the game says so too (its picture stays)."""
        done = {rack.to for rack in batch.racks}
        result = batch.over.result if batch.over is not None else {}
        left = result.get("left") or []
        for seat, player_id in enumerate(result.get("player_ids") or []):
            if player_id in done or not str(player_id).isdigit():
                continue
            old = await self.rack_message(info.game_id, player_id)
            if old is None:
                continue
            lang = await self.person_lang(player_id)
            where = _where(info)
            lines = [t("discord.rack_dm_over", lang, **where)]
            pieces = left[seat] if seat < len(left) else []
            if pieces:
                lines.append(t("service.rack", lang, count=len(pieces), pieces=" ".join(pieces)))
            await self._edit_dm(old, "\n".join(lines), None, report)

    async def _rack_now(self, info: GameInfo, player_id: str, seat: int) -> PrivateRack:
        """A person's rack as it is now, drawn in their language."""
        pieces = tuple(self.bot.service.rack(info.game_id, player_id))
        lang = await self.person_lang(player_id)
        png = await self.bot.service.render_rack(list(pieces), lang) if pieces else None
        return PrivateRack(info.game_id, player_id, seat, pieces, lang, png)

    async def rack_message(self, game_id: str, player_id: str) -> RackMessage | None:
        """A person's rack DM in a game (from memory, else the adapter data), or None."""
        key = (game_id, player_id)
        if key not in self._racks:
            data = None
            try:
                data = await self.bot.service.adapter_data(RACK_NAMESPACE, f"{game_id}:{player_id}")
            except Exception:
                log.warning("rack DM of %s in %s unknown", player_id, game_id, exc_info=True)
            self._racks[key] = _record(RackMessage, data)
        return self._racks[key]

    async def _keep_rack(self, game_id: str, player_id: str, rack: RackMessage) -> None:
        self._racks[(game_id, player_id)] = rack
        try:
            await self.bot.service.set_adapter_data(
                RACK_NAMESPACE, f"{game_id}:{player_id}", asdict(rack)
            )
        except Exception:
            log.warning("rack DM of %s in %s not stored", player_id, game_id, exc_info=True)

    async def _rack(
        self,
        info: GameInfo,
        rack: PrivateRack,
        batch: _Batch,
        reply_to: str | None,
        report: Report,
        *,
        turn: bool = False,
        over: bool = False,
    ) -> None:
        if not rack.to.isdigit():
            return  # computer players have no inbox
        lang = rack.lang
        where = _where(info)
        old = await self.rack_message(info.game_id, rack.to)
        if over:
            if old is None:
                return  # no DM to a finished game's player (the winner's empty rack above all)
            lines = [t("discord.rack_dm_over", lang, **where), *batch.private.pop(rack.to, [])]
            if rack.pieces:
                lines.append(rack.message(lang))
            text = "\n".join(lines)
            files = [("rack.png", rack.png)] if rack.png and rack.pieces else []
            await self._edit_dm(old, text, files, report)
            return
        key = "discord.rack_dm_turn" if turn else "discord.rack_dm_head"
        lines = [t(key, lang, **where), *batch.private.pop(rack.to, []), rack.message(lang)]
        text = "\n".join(lines)
        files = [("rack.png", rack.png)] if rack.png else []
        if old is not None and not turn and await self._edit_dm(old, text, files, report):
            return
        # a new DM: the first rack of the game, or the player's turn starts (silently: the
        # turn message pings them)
        sent = await self._dm(info, rack.to, text, report, files=files, warn=batch, silent=turn)
        if sent is None:
            if rack.to == reply_to:
                report.private.append(rack.message(lang))
                report.files.extend(files)
            return
        await self._keep_rack(info.game_id, rack.to, RackMessage(sent.channel.id, sent.id))
        if old is not None:
            try:
                await (
                    self.bot.get_partial_messageable(old.channel_id)
                    .get_partial_message(old.message_id)
                    .delete()
                )
            except discord.HTTPException as exc:
                log.info("old rack DM of %s not deleted: %s", rack.to, exc)

    async def _edit_dm(
        self,
        old: RackMessage,
        text: str,
        files: Sequence[tuple[str, bytes]] | None,
        report: Report,
    ) -> bool:
        """Edit a rack DM in place (text and picture; ``files`` None: the picture stays);
        False when it cannot be edited."""
        message = self.bot.get_partial_messageable(
            old.channel_id, type=discord.ChannelType.private
        ).get_partial_message(old.message_id)
        kwargs: dict[str, Any] = {}
        if files is not None:
            kwargs["attachments"] = [
                discord.File(io.BytesIO(data), filename=name) for name, data in files
            ]
        try:
            await message.edit(content=text[:LIMIT], **kwargs)
        except discord.NotFound:
            return False
        except discord.HTTPException as exc:
            log.warning("editing a rack DM failed: %s", exc)
            self._failed("dm", report)
            return False
        return True

    async def _dm(
        self,
        info: GameInfo | None,
        to: str,
        text: str,
        report: Report,
        *,
        files: Sequence[tuple[str, bytes]] = (),
        warn: _Batch | None = None,
        silent: bool = False,
    ) -> discord.Message | None:
        """Send a DM (the last message sent, or None); on closed DMs the thread is told once
        per game (``warn``: the batch whose thread message carries the notice)."""
        if not to.isdigit():
            return None  # computer players have no inbox
        message = None
        try:
            user = self.bot.get_user(int(to)) or await self.bot.fetch_user(int(to))
            attachments = [discord.File(io.BytesIO(data), filename=name) for name, data in files]
            pieces = chunks(text)
            for number, piece in enumerate(pieces):
                extra = {"files": attachments} if attachments and number == len(pieces) - 1 else {}
                message = await user.send(piece, silent=silent, **extra)
        except discord.Forbidden as exc:
            if exc.code != DMS_CLOSED:
                log.warning("DM to %s refused: %s", to, exc)
            key = (info.game_id if info else "", to)
            if warn is not None and info is not None and key not in self._dm_warned:
                self._dm_warned.add(key)
                glang = self.guild_lang(info)
                warn.notices.append(t("discord.dm_closed", glang, mention=f"<@{to}>"))
            return None
        except discord.HTTPException as exc:
            log.warning("DM to %s failed: %s", to, exc)
            self._failed("dm", report)
            return None
        return message
