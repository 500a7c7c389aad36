"""The Play button and its form: the command language without slash commands (for phones).

:class:`PlayButton` (custom id ``rummy:play:<game_id>``, a :class:`discord.ui.DynamicItem`, so
it works on messages of any age) sits on the live game message. A click by the player to move
opens a modal with one text field for the whole command language (``meld R5 R6 R7; done``),
pre-filled with the hint's command where the game allows help. The modal's custom id carries the
turn it was opened in (``rummy:playmodal:<game_id>:<turn stamp>``); a form submitted after
that turn has passed gets a short ephemeral answer and changes nothing.

The submitted form is read by :func:`submitted` (called by the play cog's ``on_interaction``
listener), not by a Modal object kept in memory, so a form opened before a restart is answered
after it too. No game logic here: the text goes to :meth:`Actions.command` like ``/play``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from i18n import lang_of, t

from .actions import player_id

log = logging.getLogger(__name__)

GAME_ID = r"[A-Za-z0-9_-]{1,60}"
MODAL_RE = re.compile(rf"rummy:playmodal:(?P<game>{GAME_ID}):(?P<stamp>[0-9.]{{1,30}})")
FIELD = "text"
TEXT_LIMIT = 1000


def play_custom_id(game_id: str) -> str:
    return f"rummy:play:{game_id}"


class PlayButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=re.compile(rf"rummy:play:(?P<game>{GAME_ID})"),
):
    """The Play button of a game message."""

    def __init__(self, game_id: str, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("discord.lobby.button.play", lang),
                style=discord.ButtonStyle.primary,
                custom_id=play_custom_id(game_id),
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> PlayButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await open_form(interaction, self.game_id)
        except Exception as exc:
            await interaction.client.actions.fail(interaction, exc)


def play_button(game_id: str, lang: str = "en") -> PlayButton:
    """The Play button for a game message (in the reader's language)."""
    return PlayButton(game_id, lang)


class PlayForm(discord.ui.Modal):
    """The form itself; its answer is read by :func:`submitted` (see the module docstring)."""

    def __init__(self, game_id: str, stamp: str, lang: str, default: str | None) -> None:
        super().__init__(
            title=t("discord.lobby.play_title", lang)[:45],
            custom_id=f"rummy:playmodal:{game_id}:{stamp}",
            timeout=None,
        )
        self.add_item(
            discord.ui.TextInput(
                label=t("discord.lobby.play_label", lang)[:45],
                custom_id=FIELD,
                style=discord.TextStyle.paragraph,
                default=(default or None) and default[:TEXT_LIMIT],
                max_length=TEXT_LIMIT,
                required=True,
            )
        )
        # not kept in discord.py's view store: the cog's listener answers it (restarts too)
        self.stop()


async def _refuse(interaction: discord.Interaction, key: str) -> None:
    await interaction.response.send_message(t(key, lang_of(interaction.locale)), ephemeral=True)


async def open_form(interaction: discord.Interaction, game_id: str) -> None:
    """The Play button: the form for the player to move, or a short refusal."""
    bot = interaction.client
    service = bot.service
    pid = player_id(interaction.user)
    lang = lang_of(interaction.locale)
    stamp = service.turn_stamp(game_id)
    if stamp is None:
        await _refuse(interaction, "discord.lobby.not_running")
        return
    turn = await bot.delivery.turn_message(game_id)
    message = interaction.message
    if turn is not None and turn.live and message is not None and message.id != turn.message_id:
        # an older game message: point to the live one (as its other buttons do)
        where = interaction.guild_id or "@me"
        link = f"https://discord.com/channels/{where}/{turn.channel_id}/{turn.message_id}"
        text = t("discord.stale_message", lang, link=link)
        await interaction.response.send_message(text, ephemeral=True)
        return
    seats = service.seats(game_id)
    if all(s.player_id != pid for s in seats):
        await _refuse(interaction, "discord.not_your_game")
        return
    view = service.view(game_id)
    if view is None or seats[view.current].player_id != pid:
        await _refuse(interaction, "discord.lobby.not_your_turn")
        return
    default = await service.suggestion(game_id, pid)
    if service.turn_stamp(game_id) != stamp:  # the turn passed while the hint was worked out
        await _refuse(interaction, "discord.lobby.turn_passed")
        return
    await interaction.response.send_modal(PlayForm(game_id, stamp, lang, default))


def _values(components: list[dict[str, Any]]) -> dict[str, str]:
    """custom id -> value of every text input in a submitted form (rows or labels)."""
    found: dict[str, str] = {}
    for item in components or []:
        inner = [
            *(item.get("components") or []),
            *([item["component"]] if "component" in item else []),
        ]
        if "value" in item and "custom_id" in item:
            found[item["custom_id"]] = str(item["value"])
        found.update(_values(inner))
    return found


async def submitted(interaction: discord.Interaction) -> bool:
    """Answer a submitted Play form; False when the interaction is not one."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return False
    data = interaction.data or {}
    match = MODAL_RE.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        return False
    bot = interaction.client
    try:
        game_id = match["game"]
        if bot.service.turn_stamp(game_id) != match["stamp"]:
            await _refuse(interaction, "discord.lobby.turn_passed")
            return True
        text = _values(list(data.get("components") or [])).get(FIELD, "").strip()
        if not text:
            await _refuse(interaction, "discord.lobby.empty_form")
            return True
        await bot.actions.command(interaction, text, game_id)
    except Exception as exc:
        await bot.actions.fail(interaction, exc)
    return True
