"""What the cogs and buttons do, in one place: acknowledge, call the service, deliver.

Every entry point here follows the same three steps and holds no game logic:

1. acknowledge the interaction at once (``defer``, ephemeral "thinking"), so Discord's 3-second
   limit is met whatever the service or the renderer take;
2. call :class:`~bot.service.GameService` (which validates, commits and returns messages);
3. hand the messages to :class:`~bot.discord.delivery.Delivery` and answer the person
   ephemerally with what was meant for them only (errors with the engine's reason, hints).

Game resolution: a command in a game's thread means that game; in the lobby channel it means the
channel's open lobby (``/rummy join``, ``/rummy start``) or the running game the person sits in.
The lobby verbs themselves (new table, join, leave, start) are in :mod:`bot.discord.tables`.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from i18n import lang_of, t

from ..service.games import DEFAULT_VARIANT, variant
from ..service.outgoing import Outgoing
from .delivery import Report
from .views import COMMAND_OF

if TYPE_CHECKING:
    from .client import RummyBot

log = logging.getLogger(__name__)


def player_id(user: discord.abc.User) -> str:
    """The service's id for a Discord user."""
    return str(user.id)


class Actions:
    """The adapter's verbs, shared by cogs and buttons."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot

    # ------------------------------------------------------------------ plumbing

    @property
    def service(self):
        return self.bot.service

    async def defer(self, interaction: discord.Interaction, *, ephemeral: bool = True) -> None:
        """Acknowledge now (Discord allows 3 s); the answer follows as a follow-up."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)

    async def answer(
        self,
        interaction: discord.Interaction,
        text: str,
        *,
        files: Sequence[tuple[str, bytes]] = (),
    ) -> None:
        """The ephemeral answer to a (deferred) interaction; failures are only logged."""
        attachments = [discord.File(io.BytesIO(data), filename=name) for name, data in files]
        text = text if len(text) <= 2000 else text[:1990] + " ..."
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, files=attachments)
            else:
                await interaction.response.send_message(text, ephemeral=True, files=attachments)
        except discord.HTTPException as exc:
            log.warning("answering interaction %s failed: %s", interaction.id, exc)

    async def fail(self, interaction: discord.Interaction, error: BaseException) -> None:
        """Never a traceback for people: log it, say something friendly."""
        log.error("interaction %s failed", interaction.id, exc_info=error)
        await self.answer(interaction, t("discord.internal", self.lang(interaction)))

    def lang(self, interaction: discord.Interaction) -> str:
        return lang_of(interaction.locale)

    async def register(self, interaction: discord.Interaction) -> str:
        """Tell the service who is acting (display name, language); returns the player id."""
        pid = player_id(interaction.user)
        lang = self.lang(interaction)
        await self.service.register_player(pid, interaction.user.display_name, lang)
        return pid

    async def finish(
        self, interaction: discord.Interaction, report: Report, default: str | None = None
    ) -> None:
        """Answer with the errors / private lines of a delivery, or ``default``."""
        lang = self.lang(interaction)
        lines = [*report.errors, *report.private]
        if report.failures and not report.errors:
            lines.append(t("discord.delivery_failed", lang))
        await self.answer(
            interaction, "\n".join(lines) or default or t("discord.ok", lang), files=report.files
        )

    async def deliver(self, game_id: str, out: list[Outgoing], pid: str) -> Report:
        async with self.bot.delivery.lock(game_id):
            return await self.bot.delivery.deliver(out, reply_to=pid)

    # ------------------------------------------------------------------ finding the game

    def resolve(self, interaction: discord.Interaction, pid: str, want: str) -> str | None:
        """The game meant by an interaction: its thread's game, else in the lobby channel the
        open lobby (``want="lobby"``) or the running game the person sits in."""
        in_thread = self.bot.games.by_thread(interaction.channel_id)
        if in_thread is not None:
            return in_thread
        candidates = []
        for game_id in self.bot.games.in_channel(interaction.channel_id):
            status = self.service.status(game_id)
            if status is None:
                continue
            if want == "lobby" and status != "lobby":
                continue
            if want == "playing" and status != "playing":
                continue
            seated = any(s.player_id == pid for s in self.service.seats(game_id))
            candidates.append((seated, game_id))
        if want != "lobby":
            candidates = [c for c in candidates if c[0]] or candidates
        return candidates[-1][1] if candidates else None

    # ------------------------------------------------------------------ in a game

    async def command(
        self, interaction: discord.Interaction, text: str, game_id: str | None = None
    ) -> None:
        """Run a player's commands (``/play``, ``/draw``, a button) in their game."""
        await self.defer(interaction)
        pid = await self.register(interaction)
        lang = self.lang(interaction)
        game_id = game_id or self.resolve(interaction, pid, "playing")
        if game_id is None:
            await self.answer(interaction, t("discord.no_game_here", lang))
            return
        async with self.bot.delivery.lock(game_id):
            out = await self.service.handle(game_id, pid, text)
            report = await self.bot.delivery.deliver(out, reply_to=pid)
        await self.finish(interaction, report)

    async def rack(self, interaction: discord.Interaction, game_id: str | None = None) -> None:
        """The person's rack, ephemeral (the fallback for closed DMs)."""
        await self.defer(interaction)
        pid = await self.register(interaction)
        lang = self.lang(interaction)
        game_id = game_id or self.resolve(interaction, pid, "playing")
        if game_id is None:
            await self.answer(interaction, t("discord.no_game_here", lang))
            return
        if all(s.player_id != pid for s in self.service.seats(game_id)):
            await self.answer(interaction, t("discord.not_your_game", lang))
            return
        pieces = self.service.rack(game_id, pid)
        if not pieces:
            await self.answer(interaction, t("discord.rack_empty", lang))
            return
        text = t("discord.rack", lang, count=len(pieces), pieces=" ".join(pieces))
        png = await self._rack_picture(pieces, lang)
        await self.answer(interaction, text, files=[("rack.png", png)] if png else [])

    async def _rack_picture(self, pieces: list[str], lang: str) -> bytes | None:
        """The rack picture, if the service has a renderer (never fails the answer)."""
        try:
            return await self.service.render_rack(pieces, lang)
        except Exception:
            log.warning("rack picture not available", exc_info=True)
            return None

    async def button(self, interaction: discord.Interaction, action: str, game_id: str) -> None:
        """A game button was clicked. Draw / Done / Reset on a message that is not the game's
        live turn message (an older one whose buttons were not removed, say) only point to the
        live message; My rack answers wherever it is."""
        try:
            if action == "rack":
                await self.rack(interaction, game_id)
            elif not await self._stale(interaction, game_id):
                await self.command(interaction, COMMAND_OF[action], game_id)
        except Exception as exc:
            await self.fail(interaction, exc)

    async def _stale(self, interaction: discord.Interaction, game_id: str) -> bool:
        """Answer a click on an old game message with a pointer to the live one (True)."""
        await self.defer(interaction)
        turn = await self.bot.delivery.turn_message(game_id)
        message = interaction.message
        if turn is None or not turn.live or message is None or message.id == turn.message_id:
            return False
        where = interaction.guild_id or "@me"
        link = f"https://discord.com/channels/{where}/{turn.channel_id}/{turn.message_id}"
        await self.answer(
            interaction, t("discord.stale_message", self.lang(interaction), link=link)
        )
        return True

    async def autocomplete_pieces(
        self, interaction: discord.Interaction, current: str
    ) -> list[discord.app_commands.Choice[str]]:
        """Complete the last word of ``/play text`` from the person's own rack."""
        pid = player_id(interaction.user)
        game_id = self.resolve(interaction, pid, "playing")
        if game_id is None:
            return []
        pieces = self.service.rack(game_id, pid)
        # the last word starts after the last space or separator (";", "|", ",", new line)
        cut = max(current.rfind(sep) for sep in (" ", ";", "|", ",", "\n")) + 1
        prefix, last = current[:cut], current[cut:]
        if prefix and not prefix[-1].isspace():
            prefix += " "
        seen: list[str] = []
        for piece in pieces:
            if piece.upper().startswith(last.upper()) and piece not in seen:
                seen.append(piece)
        choices = []
        for piece in seen[:25]:
            value = f"{prefix}{piece}"[:100]
            choices.append(discord.app_commands.Choice(name=value, value=value))
        return choices

    # ------------------------------------------------------------------ running games

    async def abort(self, interaction: discord.Interaction) -> None:
        """``/rummy abort``: the host or a Manage Server member ends the game (unranked)."""
        await self.defer(interaction)
        pid = await self.register(interaction)
        lang = self.lang(interaction)
        game_id = self.resolve(interaction, pid, "any")
        record = await self.service.game_record(game_id) if game_id else None
        if game_id is None or record is None or self.service.status(game_id) is None:
            await self.answer(interaction, t("discord.no_game_here", lang))
            return
        perms = interaction.permissions
        if record.host_id != pid and not (perms and perms.manage_guild):
            await self.answer(interaction, t("discord.abort_denied", lang))
            return
        info = await self.bot.games.fetch(self.service, game_id)
        glang = self.bot.delivery.guild_lang(info)
        async with self.bot.delivery.lock(game_id):
            await self.bot.delivery.public(
                info, t("discord.aborted_public", glang, who=interaction.user.mention)
            )
            out: list[Outgoing] = []
            if self.service.status(game_id) == "lobby":
                # the service cancels a lobby when its last person leaves
                for seat in self.service.seats(game_id):
                    if not seat.is_bot:
                        out += await self.service.leave(game_id, seat.player_id)
            else:
                out = await self.service.end_game(game_id, record.host_id, "abandoned")
            report = await self.bot.delivery.deliver(out, reply_to=pid)
        await self.finish(interaction, report, default=t("discord.aborted", lang, game=game_id))

    async def status(self, interaction: discord.Interaction) -> None:
        """``/rummy status``: the state of the game here, ephemeral."""
        await self.defer(interaction)
        pid = await self.register(interaction)
        lang = self.lang(interaction)
        game_id = self.resolve(interaction, pid, "any")
        aside = await self._quarantined_for_admin(interaction, lang)
        if game_id is None:
            await self.answer(interaction, "\n".join([t("discord.no_game_here", lang), *aside]))
            return
        record = await self.service.game_record(game_id)
        seats = ", ".join(s.name for s in self.service.seats(game_id))
        view = self.service.view(game_id)
        if view is None or record is None:
            host = f"<@{record.host_id}>" if record else "?"
            preset = record.preset if record else "?"
            text = t(
                "discord.status_lobby", lang, game=game_id, preset=preset, seats=seats, host=host
            )
        else:
            current = view.seats[view.current].name
            text = t(
                "discord.status_playing",
                lang,
                game=game_id,
                preset=view.preset,
                turn=view.turn_no,
                current=current,
                pool=view.pool,
                seats=", ".join(f"{s.name} ({s.pieces})" for s in view.seats),
            )
        await self.answer(interaction, "\n".join([text, *aside]))

    async def _quarantined_for_admin(
        self, interaction: discord.Interaction, lang: str
    ) -> list[str]:
        """For a Manage Server member: the server's games set aside because they could not be
        loaded or continued (issue 14), each with the reason; nothing for everybody else."""
        perms = interaction.permissions
        if interaction.guild is None or not (perms and perms.manage_guild):
            return []
        aside = await self.service.quarantined_in(str(interaction.guild.id))
        if not aside:
            return []
        lines = [t("discord.status_quarantined", lang, count=len(aside))]
        lines += [f"- {game_id}: {reason}"[:300] for game_id, reason in sorted(aside.items())]
        return lines[:11]

    async def rules(self, interaction: discord.Interaction, preset: str | None) -> None:
        """``/rummy rules``: the rules in one paragraph, ephemeral."""
        await self.defer(interaction)
        lang = self.lang(interaction)
        if preset is None and interaction.guild is not None:
            preset = (await self.bot.league.guild_config(interaction.guild.id)).get("preset")
        rules_key = variant(preset or DEFAULT_VARIANT).rules_key
        await self.answer(interaction, f"{t(rules_key, lang)}\n{t('discord.rules_more', lang)}")
