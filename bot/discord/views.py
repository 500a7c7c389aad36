"""The persistent game buttons (Draw / Done / Reset / My rack) and the turn message's layout.

Each button carries its game in its ``custom_id`` (``rummy:draw:<game_id>``) and is a
:class:`discord.ui.DynamicItem`, registered once in ``setup_hook``; so a button on any message,
even one posted before a restart, reaches the running bot and names its game. The callback only
hands over to :class:`~bot.discord.actions.Actions` (no game logic here).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from i18n import t

if TYPE_CHECKING:
    from .client import RummyBot

ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "draw": ("discord.button_draw", discord.ButtonStyle.primary),
    "done": ("discord.button_done", discord.ButtonStyle.success),
    "reset": ("discord.button_reset", discord.ButtonStyle.secondary),
    "rack": ("discord.button_rack", discord.ButtonStyle.secondary),
}
#: What each button types for the player (``rack`` only shows the rack).
COMMAND_OF = {"draw": "draw", "done": "done", "reset": "reset"}


def custom_id(action: str, game_id: str) -> str:
    return f"rummy:{action}:{game_id}"


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=re.compile(r"rummy:(?P<action>draw|done|reset|rack):(?P<game>[A-Za-z0-9_-]{1,60})"),
):
    """One persistent game button."""

    def __init__(self, action: str, game_id: str, lang: str = "en") -> None:
        key, style = ACTIONS[action]
        super().__init__(
            discord.ui.Button(label=t(key, lang), style=style, custom_id=custom_id(action, game_id))
        )
        self.action = action
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> GameButton:
        return cls(match["action"], match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: RummyBot = interaction.client  # type: ignore[assignment]
        await bot.actions.button(interaction, self.action, self.game_id)


def game_buttons(game_id: str, lang: str = "en") -> discord.ui.View:
    """A view with the four game buttons (timeout None: they never expire)."""
    view = discord.ui.View(timeout=None)
    for action in ACTIONS:
        view.add_item(GameButton(action, game_id, lang))
    return view


#: The file name of the table picture on a turn message (shown by its media gallery).
TABLE_FILE = "table.png"
#: What one text display of a turn message may hold (Discord: 4000 characters per message).
TEXT_LIMIT = 3900


def turn_layout(
    game_id: str,
    text: str,
    lang: str = "en",
    *,
    picture: bool,
    buttons: bool,
    more: Sequence[discord.ui.Item[Any]] = (),
) -> discord.ui.LayoutView:
    """The one game message of a turn (components v2): a text display (what happened, whose
    turn it is), the table picture in a media gallery (``attachment://table.png``) and, while
    the turn is live, an action row of the four game buttons (labels in ``lang``, the guild's
    language; ``more``: further buttons of the same row, e.g. Play). Without ``buttons`` it is
    the record of a past turn."""
    view = discord.ui.LayoutView(timeout=None)
    if len(text) > TEXT_LIMIT:
        text = text[: TEXT_LIMIT - 2] + " …"
    if text:
        view.add_item(discord.ui.TextDisplay(text))
    if picture:
        gallery = discord.ui.MediaGallery()
        gallery.add_item(media=f"attachment://{TABLE_FILE}")
        view.add_item(gallery)
    if buttons:
        row = discord.ui.ActionRow()
        for action in ACTIONS:
            row.add_item(GameButton(action, game_id, lang))
        for item in more:
            row.add_item(item)
        view.add_item(row)
    return view
