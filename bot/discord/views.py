"""The persistent game buttons: Draw / Done / Reset / My rack.

Each button carries its game in its ``custom_id`` (``rummy:draw:<game_id>``) and is a
:class:`discord.ui.DynamicItem`, registered once in ``setup_hook``; so a button on any message,
even one posted before a restart, reaches the running bot and names its game. The callback only
hands over to :class:`~bot.discord.actions.Actions` (no game logic here).
"""

from __future__ import annotations

import re
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
