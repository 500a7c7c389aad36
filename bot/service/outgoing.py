"""What the game service asks a front end to say: platform-neutral message values.

The service never formats Discord objects. It returns (or hands to its sink) a list of these
values; the Discord adapter and the terminal front end turn each into whatever they show.

Public values carry English and German text (the channel's language is the adapter's choice);
private values and error replies are already in the receiving player's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _lang(lang: str) -> bool:
    return lang.lower().startswith("de")


@dataclass(frozen=True, slots=True)
class PublicText:
    """A line (or lines) for everyone at the table: what just happened."""

    game_id: str
    text: str
    text_de: str
    kind: str = "event"  # event / lobby / start / reminder / game_over / abandoned

    def message(self, lang: str = "en") -> str:
        return self.text_de if _lang(lang) else self.text


@dataclass(frozen=True, slots=True)
class TablePicture:
    """The table as a PNG, after a change everybody may see."""

    game_id: str
    png: bytes
    turn_no: int


@dataclass(frozen=True, slots=True)
class TurnPrompt:
    """Whose turn it is: the adapter mentions ``player_id`` (unless ``is_bot``)."""

    game_id: str
    player_id: str
    seat: int
    name: str
    is_bot: bool
    deadline: float | None
    text: str
    text_de: str

    def message(self, lang: str = "en") -> str:
        return self.text_de if _lang(lang) else self.text


@dataclass(frozen=True, slots=True)
class PrivateRack:
    """One player's rack, for that player only (never shown to anyone else)."""

    game_id: str
    to: str
    seat: int
    pieces: tuple[str, ...]
    text: str  # in the player's language
    png: bytes | None = None


@dataclass(frozen=True, slots=True)
class PrivateText:
    """A message for one player only (what they drew, a hint, a working-table note)."""

    game_id: str
    to: str
    text: str  # in the player's language
    kind: str = "event"


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """Why the sender's message was not accepted (nothing changed); only for the sender."""

    game_id: str | None
    to: str
    code: str
    text: str  # in the sender's language


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game has ended; ``result`` is :meth:`engine.game.Result.to_dict` plus player ids."""

    game_id: str
    reason: str
    text: str
    text_de: str
    result: dict[str, Any] = field(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        return self.text_de if _lang(lang) else self.text


Outgoing = (
    PublicText | TablePicture | TurnPrompt | PrivateRack | PrivateText | ErrorReply | GameOver
)
