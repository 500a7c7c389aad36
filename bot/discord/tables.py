"""The table on Discord before and after the game: the lobby message, its buttons, the rematch.

``/rummy new`` posts a lobby message in the channel and opens the game's thread under it. The
lobby message lists the seats and carries the buttons Join / Leave / Start (host) / Add computer
(:class:`LobbyButton`, custom ids ``rummy:lobby:<op>:<game_id>``); it is edited after every
change of the table, when the game starts (a link to the thread, no buttons) and when it ends
(the result and a Rematch button, :class:`RematchButton`, ``rummy:rematch:<game_id>``). Both are
:class:`discord.ui.DynamicItem` buttons, registered once by the lobby cog, so buttons of any
age work after a restart.

When a game ends, its thread is renamed ("✓ Rummikub · Anna won", in the guild's language),
archived and locked, after everything of that game has been posted there (the close waits for
the game's delivery lock).

A rematch seats the same players in a new game (the service's rematch: same rules, the
running Rummy match or Rommé sitting of the channel goes on) with its own lobby message and
thread; the new game's id is chosen here so that its thread exists before its first message.

Bad input gets a short ephemeral answer in the person's language and changes nothing: a button
of a table that is no longer open, of another message than the table's lobby message, Start by
a non-host, Join of a full table (the service's refusals). No game logic lives here.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from i18n import lang_of, t

from ..service.games import variant
from ..service.outgoing import ErrorReply, GameOver, PublicText
from .delivery import Report
from .games import KV_NAMESPACE, GameInfo

if TYPE_CHECKING:
    from .client import RummyBot

log = logging.getLogger(__name__)
T = TypeVar("T")

GAME_ID = r"[A-Za-z0-9_-]{1,60}"
LOBBY_OPS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "join": ("discord.lobby.button.join", discord.ButtonStyle.success),
    "leave": ("discord.lobby.button.leave", discord.ButtonStyle.secondary),
    "start": ("discord.lobby.button.start", discord.ButtonStyle.primary),
    "bot": ("discord.lobby.button.bot", discord.ButtonStyle.secondary),
}
#: The bot's permissions a table needs in the channel (checked before the thread is opened).
NEEDED = ("send_messages", "create_public_threads", "send_messages_in_threads", "attach_files")
THREAD_NAME_LIMIT = 100
#: The service's lobby texts that close a table (the lobby message then says so).
CLOSING_KEYS = ("service.lobby.closed", "service.lobby.expired")
DEFAULT_LEVEL = "medium"


def lobby_custom_id(op: str, game_id: str) -> str:
    return f"rummy:lobby:{op}:{game_id}"


def rematch_custom_id(game_id: str) -> str:
    return f"rummy:rematch:{game_id}"


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=re.compile(rf"rummy:lobby:(?P<op>join|leave|start|bot):(?P<game>{GAME_ID})"),
):
    """One button of a lobby message."""

    def __init__(self, op: str, game_id: str, lang: str = "en") -> None:
        key, style = LOBBY_OPS[op]
        super().__init__(
            discord.ui.Button(
                label=t(key, lang), style=style, custom_id=lobby_custom_id(op, game_id)
            )
        )
        self.op = op
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> LobbyButton:
        return cls(match["op"], match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        tables = tables_of(interaction.client)
        await tables.guarded(interaction, tables.lobby_op(interaction, self.op, self.game_id))


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=re.compile(rf"rummy:rematch:(?P<game>{GAME_ID})"),
):
    """The Rematch button of a finished game's lobby message."""

    def __init__(self, game_id: str, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("discord.lobby.button.rematch", lang),
                style=discord.ButtonStyle.primary,
                custom_id=rematch_custom_id(game_id),
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> RematchButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        tables = tables_of(interaction.client)
        await tables.guarded(interaction, tables.rematch(interaction, self.game_id))


def lobby_view(game_id: str, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for op in LOBBY_OPS:
        view.add_item(LobbyButton(op, game_id, lang))
    return view


def rematch_view(game_id: str, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(game_id, lang))
    return view


def missing_permission(perms: discord.Permissions | None) -> str | None:
    """The first permission of :data:`NEEDED` the bot lacks (None: all there)."""
    if perms is None:
        return None
    for name in NEEDED:
        if not getattr(perms, name, False):
            return name
    return None


def missing_permission_text(perms: discord.Permissions | None, lang: str) -> str | None:
    """The refusal naming the first permission the bot lacks here (None: all there)."""
    lacking = missing_permission(perms)
    if lacking is None:
        return None
    name = t(f"discord.lobby.perm.{lacking}", lang)
    return t("discord.lobby.missing_permission", lang, permission=name)


def attached(bot: Any, name: str, factory: Callable[[Any], T]) -> T:
    """A helper object kept on the bot (made on first use)."""
    found = getattr(bot, name, None)
    if found is None:
        found = factory(bot)
        setattr(bot, name, found)
    return found


def preset_name(preset: str, lang: str) -> str:
    try:
        return t(variant(preset).name_key, lang)
    except Exception:  # a preset the registry no longer knows: its plain name
        return preset


def thread_title(preset: str, over: GameOver, lang: str) -> str:
    """The finished game's thread name (at most Discord's 100 characters)."""
    name = preset_name(preset, lang)
    ranks = list(over.result.get("ranks") or [])
    winners = [over.names[s] for s, rank in enumerate(ranks) if rank == 1 and s < len(over.names)]
    if over.reason == "abandoned" or not winners:
        title = t("discord.lobby.thread_over", lang, preset=name)
    else:
        key = "discord.lobby.thread_won" if len(winners) == 1 else "discord.lobby.thread_tie"
        title = t(key, lang, preset=name, winner=", ".join(winners))
    if len(title) > THREAD_NAME_LIMIT:
        title = title[: THREAD_NAME_LIMIT - 1] + "…"
    return title


def tables_of(bot: Any) -> Tables:
    """The bot's :class:`Tables` (made on first use)."""
    return attached(bot, "_rummy_tables", Tables)


class Tables:
    """Lobby messages, the lobby verbs, the end of a game and rematches (module docstring)."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot
        self._rematch_locks: dict[str, asyncio.Lock] = {}
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def service(self):
        return self.bot.service

    @property
    def actions(self):
        return self.bot.actions

    def lang(self, interaction: discord.Interaction) -> str:
        return lang_of(interaction.locale)

    async def guarded(self, interaction: discord.Interaction, work: Any) -> None:
        """Run a button's work; never a traceback for people."""
        try:
            await work
        except Exception as exc:
            await self.actions.fail(interaction, exc)

    def guild_lang(self, info: GameInfo | None) -> str:
        return self.bot.delivery.guild_lang(info)

    # ------------------------------------------------------------------ the lobby message

    async def lobby_text(self, game_id: str, lang: str) -> str:
        """The lobby message of a table that is still open: the seats and what to do."""
        record = await self.service.game_record(game_id)
        info = self.bot.games.get(game_id)
        preset = record.preset if record else (info.preset if info else "?")
        seats = self.service.seats(game_id)
        host_id = record.host_id if record else ""
        try:
            maximum = variant(preset).rules.max_players
        except Exception:
            maximum = len(seats)
        lines = [
            t(
                "discord.lobby.head",
                lang,
                preset=preset_name(preset, lang),
                game=game_id,
                count=len(seats),
                maximum=maximum,
            )
        ]
        for number, seat in enumerate(seats, 1):
            if seat.is_bot:
                key, who = "discord.lobby.seat_bot", seat.name
            elif seat.player_id == host_id:
                key, who = "discord.lobby.seat_host", f"<@{seat.player_id}>"
            else:
                key, who = "discord.lobby.seat", f"<@{seat.player_id}>"
            lines.append(t(key, lang, number=number, name=who, level=seat.level or ""))
        target = info.target_players if info else None
        if target:
            lines.append(t("discord.lobby.how_full", lang, players=target))
        else:
            lines.append(t("discord.lobby.how", lang))
        return "\n".join(lines)

    async def _lobby_message(self, info: GameInfo) -> discord.PartialMessage | None:
        message_id = info.extra.get("lobby_message_id")
        if not message_id or info.channel_id is None:
            return None
        channel = await self.bot.delivery.channel(info.channel_id)
        if channel is None or not hasattr(channel, "get_partial_message"):
            return None
        return channel.get_partial_message(int(message_id))

    async def _edit_lobby(self, info: GameInfo | None, content: str, view: Any) -> None:
        """Edit the game's lobby message (failures are logged: the game never depends on it)."""
        if info is None:
            return
        message = await self._lobby_message(info)
        if message is None:
            return
        try:
            await message.edit(content=content[:2000], view=view)
        except discord.HTTPException as exc:
            log.warning("editing the lobby message of %s failed: %s", info.game_id, exc)

    async def on_lobby_text(self, info: GameInfo | None, item: PublicText, lang: str) -> None:
        """:attr:`Delivery.lobby_hook`: lobby texts are shown by the lobby message, not posted
        in the thread. The verbs here re-draw it themselves after each change; a table closed
        by a timer (never started) or by its last person leaving is re-drawn here."""
        if info is not None and item.key in CLOSING_KEYS:
            await self.refresh_lobby(info.game_id)
            title = t("discord.lobby.thread_closed", lang, preset=preset_name(info.preset, lang))
            await self._close_thread(info, title[:THREAD_NAME_LIMIT])

    async def refresh_lobby(self, game_id: str) -> None:
        """Show the table as it is now: open (seats, buttons), running (link) or closed."""
        info = await self.bot.games.fetch(self.service, game_id)
        if info is None:
            return
        lang = self.guild_lang(info)
        status = self.service.status(game_id)
        if status == "lobby":
            await self._edit_lobby(
                info, await self.lobby_text(game_id, lang), lobby_view(game_id, lang)
            )
        elif status == "playing":
            names = ", ".join(s.name for s in self.service.seats(game_id))
            text = t(
                "discord.lobby.playing",
                lang,
                preset=preset_name(info.preset, lang),
                game=game_id,
                names=names,
                thread=f"<#{info.thread_id}>",
            )
            await self._edit_lobby(info, text, None)
        elif status is None:
            record = await self.service.game_record(game_id)
            if record is not None and record.status == "cancelled":
                text = t("discord.lobby.closed", lang, game=game_id)
                await self._edit_lobby(info, text, None)

    # ------------------------------------------------------------------ /rummy new

    async def new_game(
        self,
        interaction: discord.Interaction,
        preset: str,
        *,
        players: int | None,
        bots: int,
        level: str,
        turn_time: int | None,
        help_allowed: bool | None,
    ) -> None:
        """``/rummy new``: a lobby message in this channel, with the game's thread under it."""
        actions = self.actions
        await actions.defer(interaction)
        lang = self.lang(interaction)
        channel = interaction.channel
        if interaction.guild is None or not isinstance(channel, discord.TextChannel):
            await actions.answer(interaction, t("discord.guild_only", lang))
            return
        refusal = missing_permission_text(interaction.app_permissions, lang)
        if refusal is not None:
            await actions.answer(interaction, refusal)
            return
        pid = await actions.register(interaction)
        if players is not None and bots + 1 > players:
            await actions.answer(
                interaction, t("discord.too_many_players", lang, players=players, bots=bots)
            )
            return
        config = await self.bot.league.guild_config(interaction.guild.id)
        options: dict[str, Any] = {}
        seconds = turn_time if turn_time is not None else config.get("turn_time")
        if seconds is not None:
            options["turn_seconds"] = int(seconds) or None
        help_on = help_allowed if help_allowed is not None else config.get("help")
        if help_on is not None:
            options["help_allowed"] = bool(help_on)
        overrides = self.bot.game_overrides
        options.update(overrides.get("options", {}))
        game_id, out = await self.service.create_game(
            pid,
            preset,
            options or None,
            guild_id=str(interaction.guild.id),
            channel_id=str(channel.id),
            game_id=secrets.token_hex(4),
            seed=overrides.get("seed"),
        )
        if game_id is None:
            errors = [item.text for item in out if isinstance(item, ErrorReply)]
            await actions.finish(interaction, Report(errors=errors))
            return
        for _ in range(bots):
            out += await self.service.add_bot(game_id, pid, level)
        glang = lang_of(interaction.guild_locale or interaction.guild.preferred_locale)
        opened = await self._open_place(channel, game_id, preset, glang)
        if opened is None:
            await self.service.leave(game_id, pid)
            await actions.answer(interaction, t("discord.thread_failed", lang))
            return
        message, thread = opened
        extra: dict[str, Any] = {"thread_id": thread.id, "lobby_message_id": message.id}
        if players:
            extra["players"] = players
        info = GameInfo(game_id, preset, interaction.guild.id, channel.id, thread.id, extra)
        await self.bot.games.remember(self.service, info)
        report = await actions.deliver(game_id, out, pid)
        started = await self._start_if_full(game_id)
        await self.refresh_lobby(game_id)
        text = t("discord.started" if started else "discord.created", lang, thread=thread.mention)
        await actions.finish(interaction, report, default=text)

    async def _open_place(
        self, channel: Any, game_id: str, preset: str, glang: str
    ) -> tuple[discord.Message, discord.Thread] | None:
        """The lobby message and the thread under it (None when Discord refused)."""
        head = t("discord.lobby.opening", glang, preset=preset_name(preset, glang), game=game_id)
        try:
            message = await channel.send(head)
        except discord.HTTPException as exc:
            log.warning("cannot post the lobby of game %s: %s", game_id, exc)
            return None
        try:
            thread = await message.create_thread(
                name=t("discord.thread_name", glang, game=game_id, preset=preset)[:100]
            )
        except discord.HTTPException as exc:
            log.warning("cannot open the thread of game %s: %s", game_id, exc)
            try:
                await message.delete()
            except discord.HTTPException:
                log.warning("cannot delete the lobby message of game %s", game_id)
            return None
        return message, thread

    async def _start_if_full(self, game_id: str) -> bool:
        """Start a ``players:N`` lobby once N seats are taken (on behalf of its host)."""
        info = self.bot.games.get(game_id)
        target = info.target_players if info else None
        seats = self.service.seats(game_id)
        if not target or len(seats) < target or self.service.status(game_id) != "lobby":
            return False
        record = await self.service.game_record(game_id)
        if record is None:
            return False
        out = await self.service.start_game(game_id, record.host_id)
        report = await self.actions.deliver(game_id, out, record.host_id)
        return report.started

    # ------------------------------------------------------------------ join, leave, start

    async def lobby_op(
        self, interaction: discord.Interaction, op: str, game_id: str | None = None
    ) -> None:
        """Join / leave / start / add a computer player, by command (the game is the thread's
        or the channel's open table) or by a lobby button (``game_id`` given)."""
        actions = self.actions
        await actions.defer(interaction)
        pid = await actions.register(interaction)
        lang = self.lang(interaction)
        if game_id is None:
            game_id = actions.resolve(interaction, pid, "lobby" if op != "leave" else "any")
            if game_id is None:
                await actions.answer(interaction, t("discord.no_lobby_here", lang))
                return
        elif not await self._button_is_current(interaction, game_id):
            await actions.answer(interaction, t("discord.lobby.stale", lang))
            return
        if op == "bot":
            out = await self.service.add_bot(game_id, pid, DEFAULT_LEVEL)
        else:
            call = {"join": self.service.join, "leave": self.service.leave}.get(
                op, self.service.start_game
            )
            out = await call(game_id, pid)
        report = await actions.deliver(game_id, out, pid)
        info = self.bot.games.get(game_id)
        thread = f"<#{info.thread_id}>" if info and info.thread_id else ""
        if report.errors:
            await actions.finish(interaction, report)
            return
        started = report.started
        if op == "join":
            started = await self._start_if_full(game_id)
        await self.refresh_lobby(game_id)
        key = "started" if started else {"join": "joined", "leave": "left"}.get(op)
        if key is None:
            text = t("discord.lobby.bot_added", lang, game=game_id)
        else:
            text = t(f"discord.{key}", lang, game=game_id, thread=thread)
        await actions.finish(interaction, report, default=text)

    async def _button_is_current(self, interaction: discord.Interaction, game_id: str) -> bool:
        """A lobby button counts only on its table's lobby message while the table is open."""
        if self.service.status(game_id) != "lobby":
            return False
        info = await self.bot.games.fetch(self.service, game_id)
        message = interaction.message
        lobby_id = info.extra.get("lobby_message_id") if info else None
        return message is not None and lobby_id is not None and int(lobby_id) == message.id

    # ------------------------------------------------------------------ the end of a game

    def game_over(self, info: GameInfo, over: GameOver) -> None:
        """A game ended: once everything of it is posted, show the result on the lobby message
        (with a Rematch button) and close the thread (renamed, archived, locked). What is to be
        shown is stored first (the game's adapter data, ``closing``), so a bot stopped before
        it was done does it at its next start (:meth:`resume_closing`)."""
        lang = self.guild_lang(info)
        title = thread_title(info.preset, over, lang)
        lines = [title, over.message(lang)]
        if info.thread_id:
            lines.append(t("discord.lobby.over_thread", lang, thread=f"<#{info.thread_id}>"))
        rematch = over.reason != "abandoned" and not info.extra.get("tournament")
        closing = {"title": title, "text": "\n".join(lines), "rematch": rematch, "lang": lang}
        self._spawn_close(info, closing)

    def _spawn_close(self, info: GameInfo, closing: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._close(info, closing))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def wait_closed(self) -> None:
        """Wait for the threads being closed (tests, shutdown)."""
        while self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)

    async def _close(self, info: GameInfo, closing: dict[str, Any]) -> None:
        try:
            if not info.extra.get("closing"):
                await self._note(info, closing=closing)
            async with self.bot.delivery.lock(info.game_id):  # after the game's last post
                lang = str(closing.get("lang") or self.guild_lang(info))
                view = rematch_view(info.game_id, lang) if closing.get("rematch") else None
                await self._edit_lobby(info, str(closing["text"]), view)
                await self._close_thread(info, str(closing["title"]))
            await self._note(info, closed=True)
        except Exception:
            log.exception("closing the table of game %s failed", info.game_id)

    async def _note(self, info: GameInfo, **facts: Any) -> None:
        """Add facts to the game's adapter data (kept over restarts)."""
        current = self.bot.games.get(info.game_id) or info
        extra = {**current.extra, **facts}
        await self.bot.games.remember(self.service, replace(current, extra=extra))

    async def resume_closing(self) -> None:
        """At start-up: finish closing the tables of games that ended just before a stop."""
        try:
            found = await self.service.adapter_items(KV_NAMESPACE)
        except Exception:
            log.exception("cannot read the tables to close")
            return
        for game_id, extra in found.items():
            if not isinstance(extra, dict) or not isinstance(extra.get("closing"), dict):
                continue
            if extra.get("closed"):
                continue
            info = await self.bot.games.fetch(self.service, game_id)
            if info is not None:
                self._spawn_close(info, extra["closing"])

    def resume_when_ready(self) -> None:
        """:meth:`resume_closing` once the bot is connected (called while it starts)."""

        async def work() -> None:
            await self.bot.wait_until_ready()
            await self.resume_closing()

        task = asyncio.get_running_loop().create_task(work())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close_thread(self, info: GameInfo, title: str) -> None:
        if not info.thread_id:
            return
        thread = await self.bot.delivery.channel(info.thread_id)
        if not isinstance(thread, discord.Thread):
            return
        try:
            await thread.edit(name=title, archived=True, locked=True)
        except discord.HTTPException as exc:
            log.warning("closing the thread of game %s failed: %s", info.game_id, exc)

    # ------------------------------------------------------------------ rematch

    async def rematch(self, interaction: discord.Interaction, game_id: str) -> None:
        """The Rematch button: the same players in a new game, with its own lobby and thread."""
        actions = self.actions
        await actions.defer(interaction)
        pid = await actions.register(interaction)
        lang = self.lang(interaction)
        lock = self._rematch_locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            record = await self.service.game_record(game_id)
            info = await self.bot.games.fetch(self.service, game_id)
            stale = record is None or info is None or record.status != "finished"
            if stale or info.extra.get("tournament"):  # tournament tables seat their own games
                await actions.answer(interaction, t("discord.lobby.stale", lang))
                return
            if all(s.player_id != pid for s in record.seats):
                await actions.answer(interaction, t("discord.not_your_game", lang))
                return
            existing = record.meta.get("rematch")
            if existing:
                known = await self.bot.games.fetch(self.service, existing)
                where = f"<#{known.thread_id}>" if known and known.thread_id else existing
                await actions.answer(
                    interaction, t("discord.lobby.rematch_exists", lang, thread=where)
                )
                return
            channel = await self.bot.delivery.channel(info.channel_id)
            refusal = missing_permission_text(interaction.app_permissions, lang)
            if channel is None:
                refusal = t("discord.thread_failed", lang)
            if refusal is not None:
                await actions.answer(interaction, refusal)
                return
            glang = self.guild_lang(info)
            new_id = secrets.token_hex(4)
            opened = await self._open_place(channel, new_id, record.preset, glang)
            if opened is None:
                await actions.answer(interaction, t("discord.thread_failed", lang))
                return
            message, thread = opened
            extra = {"thread_id": thread.id, "lobby_message_id": message.id, "rematch_of": game_id}
            new_info = GameInfo(
                new_id, record.preset, info.guild_id, info.channel_id, thread.id, extra
            )
            await self.bot.games.remember(self.service, new_info)
            async with self.bot.delivery.lock(new_id):
                made, out = await self.service.rematch(game_id, pid, new_id=new_id)
                report = await self.bot.delivery.deliver(out, reply_to=pid)
        if made is None:
            await self._edit_lobby(new_info, t("discord.lobby.closed", glang, game=new_id), None)
            closed = t(
                "discord.lobby.thread_closed", glang, preset=preset_name(record.preset, glang)
            )
            await self._close_thread(new_info, closed[:THREAD_NAME_LIMIT])
            await actions.finish(interaction, report)
            return
        await self.refresh_lobby(new_id)
        old_text = t("discord.lobby.rematch_posted", glang, game=new_id, thread=thread.mention)
        await self._append_to_lobby(info, old_text)
        await actions.finish(
            interaction, report, default=t("discord.started", lang, thread=thread.mention)
        )

    async def _append_to_lobby(self, info: GameInfo, line: str) -> None:
        """Add a line to a finished game's lobby message and take its Rematch button away."""
        message = await self._lobby_message(info)
        if message is None:
            return
        try:
            current = await message.fetch()
            content = f"{current.content}\n{line}" if current.content else line
            await message.edit(content=content[:2000], view=None)
        except discord.HTTPException as exc:
            log.warning("editing the lobby message of %s failed: %s", info.game_id, exc)
