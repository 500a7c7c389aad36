"""The league's stored records: the values of its key/value rows (see :mod:`bot.league.service`
for the layout), their namespaces, the hook's :class:`HookRows` and the per-lobby series
(:class:`LobbyBook`).

Every record is a frozen value with ``to_dict()`` / ``from_dict()``; the dict is what the store
keeps (as canonical JSON), so its keys are a contract.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from bot.league.ladder import StandingRow
from bot.league.presets import RummyMatch, Sitting
from bot.league.tournament import Tournament
from bot.store import GameRecord, KvHook, KvRead, KvRow
from engine.codec import Record, from_data, to_data

if TYPE_CHECKING:  # the port names these records: imported for annotations only
    from bot.league.repository import LeagueStore

NS_RESULT = "ladder_result"
NS_SEASON = "season"
NS_VOID = "void"
NS_SITTING = "sitting"
NS_MATCH = "rummy_match"
NS_TOURNAMENT = "tournament"
NS_TOURNAMENT_GAME = "tournament_game"
NO_CHANNEL = "-"


def iso(seconds: float) -> str:
    """POSIX seconds (the service's clock) as the league's ISO 8601 UTC text."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()


def number_key(number: int) -> str:
    """A series number as it appears in store keys (``00001``)."""
    return f"{number:05d}"


def rules_field(record: GameRecord, name: str, default: Any) -> Any:
    """One field of a stored game's rules (``default`` when absent or unreadable)."""
    try:
        return json.loads(record.rules_json).get(name, default)
    except (TypeError, ValueError, AttributeError):
        return default


@dataclass(frozen=True)
class VoidRecord(Record):
    """Whether a ladder game is voided, with the log of who voided / unvoided it when."""

    game_id: str
    guild_id: str
    voided: bool
    log: tuple[dict[str, Any], ...] = ()


_SITTING_DERIVED = ("totals", "settlement")
_MATCH_DERIVED = ("totals", "winner")


class _InLobby:
    """A numbered series of one lobby (guild + channel): its store key and its lobby."""

    guild_id: str
    channel_id: str
    number: int
    closed_at: str | None

    @property
    def players(self) -> tuple[str, ...]:
        """Who plays the series (its own seat order)."""
        raise NotImplementedError

    @property
    def key(self) -> str:
        return f"{self.guild_id}:{self.channel_id}:{number_key(self.number)}"

    @property
    def lobby(self) -> tuple[str, str]:
        return (self.guild_id, self.channel_id)


@dataclass(frozen=True)
class RunningSitting(_InLobby):
    """A Rommé sitting of one lobby (guild + channel), numbered per lobby.

    ``game_ids[i]`` is the game behind ``sitting.games[i]``; ``closed_at`` is set once the
    sitting is over (new players, or :meth:`League.end_sitting`).
    """

    guild_id: str
    channel_id: str
    number: int
    sitting: Sitting
    game_ids: tuple[str, ...] = ()
    started_at: str = ""
    closed_at: str | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.sitting.players

    def to_dict(self) -> dict[str, Any]:
        """The record, plus the totals and the settlement so far (for readers of the row)."""
        derived = {"totals": self.sitting.totals, "settlement": self.sitting.settlement.to_dict()}
        return {**to_data(self), **derived}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunningSitting:
        return from_data(cls, {k: v for k, v in data.items() if k not in _SITTING_DERIVED})


@dataclass(frozen=True)
class RunningMatch(_InLobby):
    """A classic Rummy match of one lobby; ``game_ids[i]`` played ``match.hands[i]``.

    ``closed_at`` is set when the match was won (``result_game`` = the game that won it and
    holds its ladder result) or given up for new players.
    """

    guild_id: str
    channel_id: str
    number: int
    match: RummyMatch
    game_ids: tuple[str, ...] = ()
    started_at: str = ""
    closed_at: str | None = None
    result_game: str | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    def to_dict(self) -> dict[str, Any]:
        """The record, plus the totals and the winner so far (for readers of the row)."""
        return {**to_data(self), "totals": self.match.totals, "winner": self.match.winner}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunningMatch:
        return from_data(cls, {k: v for k, v in data.items() if k not in _MATCH_DERIVED})


@dataclass(frozen=True)
class TournamentInfo(Record):
    """A stored tournament: its guild, name, organiser and pure :class:`Tournament` state.

    The stored dict holds ``name``, ``organiser`` and ``state`` like the Discord adapter's
    one-tournament-per-guild row, plus the ids.
    """

    guild_id: str
    tournament_id: str
    state: Tournament
    name: str = ""
    organiser: str = ""
    created_at: str = ""

    @property
    def key(self) -> str:
        return f"{self.guild_id}:{self.tournament_id}"


@dataclass(frozen=True)
class TournamentGame(Record):
    """Link from a service game to its place in a tournament.

    ``seats`` are the tournament players in the game's seat order (the game's own seats may be
    computer players with other ids); ``starter`` is the player who must move first.
    """

    game_id: str
    guild_id: str
    tournament_id: str
    round: int
    table: int
    number: int
    seats: tuple[str, ...]
    starter: str


@dataclass(frozen=True)
class PresetStats:
    """One player's figures in one preset: the shown season and the whole career."""

    preset: str
    season: int
    season_row: StandingRow | None
    career: StandingRow
    seasons: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return to_data(self)


@dataclass(frozen=True)
class PlayerStats:
    """A player's figures on every ladder of a guild (voided games left out)."""

    guild_id: str
    player_id: str
    presets: tuple[PresetStats, ...] = ()

    @property
    def games(self) -> int:
        return sum(stats.career.games for stats in self.presets)

    def to_dict(self) -> dict[str, Any]:
        return {**to_data(self), "games": self.games}


class HookRows(list[KvRow]):
    """The result hook's answer: rows to write as they are (none today), plus
    :attr:`kv_hooks`, the :class:`~bot.store.KvHook` s that compute the league's rows INSIDE the
    transaction that finishes the game, from the rows stored there (so every process reads the
    same seasons, sittings and matches, and two games finishing at once lose nothing)."""

    def __init__(self, rows: Iterable[KvRow] = (), kv_hooks: Iterable[KvHook] = ()) -> None:
        super().__init__(rows)
        self.kv_hooks: tuple[KvHook, ...] = tuple(kv_hooks)


R = TypeVar("R", bound="_InLobby")


def lobby_prefix(guild: str, channel: str) -> str:
    """The store-key prefix of a lobby's numbered series (``guild:channel:``)."""
    return f"{guild}:{channel}:"


class LobbyBook(Generic[R]):
    """The numbered series (a sitting, a match) of every lobby, kept in the store under
    ``namespace``. Nothing is cached: every read asks the store, and the result hook reads the
    lobby's rows inside the transaction that finishes the game (:meth:`lobby_read`)."""

    namespace: ClassVar[str]
    record: ClassVar[type[Any]]

    def __init__(self, store: LeagueStore) -> None:
        self.store = store

    def lobby_read(self, guild: str, channel: str) -> KvRead:
        """The rows of the lobby's series (what the hook reads in the transaction)."""
        return KvRead(self.namespace, lobby_prefix(guild, channel))

    def latest_in(self, rows: Iterable[KvRow], lobby: tuple[str, str]) -> R | None:
        """The lobby's latest series among ``rows`` (other rows are left out)."""
        latest: R | None = None
        for row in rows:
            if row.namespace != self.namespace:
                continue
            value = self.record.from_dict(row.value)
            if value.lobby == lobby and (latest is None or value.number > latest.number):
                latest = value
        return latest

    def running(
        self,
        lobby: tuple[str, str],
        players: Sequence[str],
        at: str,
        rows: list[KvRow],
        start: Callable[[int], R],
        current: R | None,
    ) -> R:
        """The lobby's series these players continue (``current``: the lobby's latest): one that
        other players sat down to is closed at ``at`` (its row goes to ``rows``), and after a
        closed one (or none) ``start(number)`` makes the next."""
        found = current
        others = found is not None and sorted(found.players) != sorted(players)
        if found is not None and found.closed_at is None and others:
            found = replace(found, closed_at=at)
            rows.append(KvRow(self.namespace, found.key, found.to_dict()))
        if found is None or found.closed_at is not None:
            return start(found.number + 1 if found is not None else 1)
        return found

    async def latest_of(self, guild: str, channel: str | None) -> R | None:
        """The lobby's latest series (running or over), or None, as stored now."""
        lobby = (guild, channel or NO_CHANNEL)
        return self.latest_in(await self.store.kv_items(self.namespace), lobby)

    async def close_latest(self, guild: str, channel: str | None, at: str) -> R | None:
        """Close the lobby's running series at ``at`` in one read-modify-write transaction;
        None (nothing written) when none runs."""
        lobby = (guild, channel or NO_CHANNEL)
        closed: list[R] = []

        def compute(rows: list[KvRow]) -> list[KvRow]:
            running = self.latest_in(rows, lobby)
            if running is None or running.closed_at is not None:
                return []
            done = replace(running, closed_at=at)
            closed.append(done)
            return [KvRow(self.namespace, done.key, done.to_dict())]

        await self.store.kv_update(KvHook((self.lobby_read(*lobby),), compute))
        return closed[0] if closed else None
