"""The platform-neutral game service: lobby, commands, timers, computer players.

See :class:`GameService`. Front ends (Discord, the terminal) call it and deliver the
:mod:`~bot.service.outgoing` values it returns or hands to its sink.
"""

from .clock import Clock, ManualClock, SystemClock
from .errors import ServiceError
from .outgoing import (
    ErrorReply,
    GameOver,
    Outgoing,
    PrivateRack,
    PrivateText,
    PublicText,
    TablePicture,
    TurnPrompt,
)
from .players import LEVELS, BotPlayer, FallbackPlayer, computer_player
from .service import GameService, ServiceConfig

__all__ = [
    "LEVELS",
    "BotPlayer",
    "Clock",
    "ErrorReply",
    "FallbackPlayer",
    "GameOver",
    "GameService",
    "ManualClock",
    "Outgoing",
    "PrivateRack",
    "PrivateText",
    "PublicText",
    "ServiceConfig",
    "ServiceError",
    "SystemClock",
    "TablePicture",
    "TurnPrompt",
    "computer_player",
]
