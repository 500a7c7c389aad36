"""Where each game lives on Discord: guild, lobby channel, thread, lobby message.

The service keys games by id; Discord users act in a thread or a channel. :class:`GameIndex`
maps one onto the other. It is rebuilt through the service at start-up (every unfinished game's
record holds its guild, channel and thread ids) and kept current as the adapter creates games.
Extra adapter facts the service has no field for (the seat count that starts a game
automatically, the lobby message) are the service's adapter data, namespace ``discord_game``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..service import GameRecord, GameService

KV_NAMESPACE = "discord_game"


def _int(value: Any) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The Discord side of one game."""

    game_id: str
    preset: str
    guild_id: int | None
    channel_id: int | None
    thread_id: int | None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def target_players(self) -> int | None:
        """Seat count at which the lobby starts by itself (``/rummy new players:N``)."""
        return _int(self.extra.get("players"))

    @property
    def thread_url(self) -> str:
        """A link to the game's thread (what DMs point to)."""
        where = self.thread_id or self.channel_id
        return f"https://discord.com/channels/{self.guild_id or '@me'}/{where}"

    @classmethod
    def from_record(cls, record: GameRecord, extra: dict[str, Any] | None = None) -> GameInfo:
        return cls(
            game_id=record.id,
            preset=record.preset,
            guild_id=_int(record.guild_id),
            channel_id=_int(record.channel_id),
            thread_id=_int(record.thread_id) or _int((extra or {}).get("thread_id")),
            extra=dict(extra or {}),
        )


class GameIndex:
    """Game ids <-> Discord channels, for every game this process knows."""

    def __init__(self) -> None:
        self._games: dict[str, GameInfo] = {}

    async def load(self, service: GameService) -> None:
        """Index every unfinished game (called at start-up)."""
        for record in await service.unfinished_records():
            extra = await service.adapter_data(KV_NAMESPACE, record.id)
            self._games[record.id] = GameInfo.from_record(record, extra)

    async def remember(self, service: GameService, info: GameInfo) -> None:
        """Add a new game; its adapter facts are stored so a restart keeps them."""
        self._games[info.game_id] = info
        if info.extra:
            await service.set_adapter_data(KV_NAMESPACE, info.game_id, info.extra)

    async def fetch(self, service: GameService, game_id: str) -> GameInfo | None:
        """The game's info, from memory or (for a finished game) through the service."""
        info = self._games.get(game_id)
        if info is None:
            record = await service.game_record(game_id)
            if record is None:
                return None
            extra = await service.adapter_data(KV_NAMESPACE, game_id)
            info = GameInfo.from_record(record, extra)
            self._games[game_id] = info
        return info

    def get(self, game_id: str) -> GameInfo | None:
        return self._games.get(game_id)

    def update(self, game_id: str, **changes: Any) -> None:
        info = self._games.get(game_id)
        if info is not None:
            self._games[game_id] = replace(info, **changes)

    def by_thread(self, thread_id: int | None) -> str | None:
        """The game whose thread this is."""
        if thread_id is None:
            return None
        for info in self._games.values():
            if info.thread_id == thread_id:
                return info.game_id
        return None

    def in_channel(self, channel_id: int | None) -> list[str]:
        """Games whose lobby is in this channel, newest last."""
        return [i.game_id for i in self._games.values() if i.channel_id == channel_id]
