"""The platform-neutral game service: lobby, commands, timers, computer players.

See :class:`GameService`. Front ends (Discord, the terminal) call it and deliver the
:mod:`~bot.service.outgoing` values it returns or hands to its sink; :mod:`bot.wiring` builds
it with the real ports (:mod:`bot.service.ports`). The record types front ends read
(:class:`GameRecord`, :class:`PlayerRecord`, :class:`Seat`) and the store's errors the service
lets through (:class:`StoreError`, :class:`StoreLocked`) are the store's, re-exported here so
front ends need not import the store.
"""

from ..store import GameRecord, PlayerRecord, Seat, StoreError, StoreLocked
from .clock import ManualClock, SystemClock
from .config import ServiceConfig
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
from .players import LEVELS, FallbackPlayer, computer_player
from .ports import Clock, ComputerPlayer, ComputerPlayers, GameStore, LeaguePort, Renderer
from .service import GameService

__all__ = [
    "LEVELS",
    "Clock",
    "ComputerPlayer",
    "ComputerPlayers",
    "ErrorReply",
    "FallbackPlayer",
    "GameOver",
    "GameRecord",
    "GameService",
    "GameStore",
    "LeaguePort",
    "ManualClock",
    "Outgoing",
    "PlayerRecord",
    "PrivateRack",
    "PrivateText",
    "PublicText",
    "Renderer",
    "Seat",
    "ServiceConfig",
    "ServiceError",
    "StoreError",
    "StoreLocked",
    "SystemClock",
    "TablePicture",
    "TurnPrompt",
    "computer_player",
]
