"""What every part of the service shares: its ports, its settings and the other parts it
hands work to (:class:`ServiceContext`), given to each part once (:class:`ServicePart`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .config import ServiceConfig
from .messages import Messages
from .outgoing import Outgoing
from .people import People
from .ports import Clock, GameStore
from .registry import GameRegistry, LiveGame


@dataclass(frozen=True, slots=True)
class ServiceContext:
    """The service's ports and shared parts."""

    store: GameStore
    config: ServiceConfig
    clock: Clock
    registry: GameRegistry
    people: People
    messages: Messages
    emit: Callable[[list[Outgoing]], Awaitable[None]]  # hand messages to the sink
    after_move: Callable[[LiveGame], None]  # a game changed: let its computer players move


class ServicePart:
    """A part of the service (pipeline, lobby, timers, computer turns) over the context."""

    def __init__(self, context: ServiceContext) -> None:
        self.store = context.store
        self.config = context.config
        self.clock = context.clock
        self.registry = context.registry
        self.people = context.people
        self.messages = context.messages
        self.emit = context.emit
        self.after_move = context.after_move
