"""The value types the store reads and writes.

They are plain frozen dataclasses, so a second store implementation (PostgreSQL) only has to map
columns to these fields. The small JSON columns (seats, meta, details, kv values) are written with
the engine's one codec and canonical JSON (:mod:`engine.codec`).

Times are POSIX seconds (``float``) from the service's clock: that is what the turn timers compute
with, and it sorts and compares without time-zone questions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine.codec import canonical_json, from_data, to_data

#: the store's JSON columns are canonical JSON; this alias is kept only for
#: tests/league/test_league_service.py and test_league_parts.py until they import
#: engine.codec.canonical_json (asked in requests.md)
dumps = canonical_json

GameStatus = Literal["lobby", "playing", "finished", "cancelled", "quarantined"]
UNFINISHED: tuple[GameStatus, ...] = ("lobby", "playing")
STATUSES: tuple[GameStatus, ...] = ("lobby", "playing", "finished", "cancelled", "quarantined")


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A person or a computer player. ``locale`` is ``"en"`` or ``"de"`` (or a longer tag such as
    ``"de-DE"``; only the language part matters)."""

    id: str
    name: str
    locale: str = "en"
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a game: who sits there, and for computer players their level."""

    player_id: str
    name: str
    is_bot: bool = False
    level: str | None = None  # easy / medium / strong for computer players


def _seat_data(seat: Seat) -> dict[str, Any]:
    data = to_data(seat)
    if not seat.is_bot:  # a person's seat is stored as player_id and name only
        del data["is_bot"], data["level"]
    return data


def seats_to_json(seats: list[Seat] | tuple[Seat, ...]) -> str:
    """The ``seats`` column: a list of seat objects (a person's without is_bot/level)."""
    return canonical_json([_seat_data(s) for s in seats])


def seats_from_json(text: str) -> tuple[Seat, ...]:
    """The seats of a ``seats`` column (keys it does not know are left out, as always); raises
    when it is not a list of seat objects with player_id and name."""
    names = Seat.__dataclass_fields__.keys()
    seats = from_data(
        tuple[Seat, ...],
        [{k: v for k, v in d.items() if k in names} for d in json.loads(text or "[]")],
    )
    return tuple(
        replace(s, player_id=str(s.player_id), name=str(s.name), is_bot=bool(s.is_bot))
        for s in seats
    )


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One row of ``games``: where the game lives, how it was set up and how far it got.

    ``seq`` is the sequence number of the last logged command (0 = none yet);
    ``snapshot_json`` is the engine state after command ``snapshot_seq`` (the initial deal when 0);
    commands after ``snapshot_seq`` are replayed on load. ``meta`` holds small service facts
    (e.g. ``rematch_of`` / ``rematch``) that need no column of their own.
    """

    id: str
    preset: str
    rules_json: str
    seed: int
    status: GameStatus
    host_id: str
    created_at: float
    updated_at: float
    last_activity: float
    seats: tuple[Seat, ...] = ()
    guild_id: str | None = None
    channel_id: str | None = None
    thread_id: str | None = None
    deadline: float | None = None
    reminder_sent: bool = False
    snapshot_json: str | None = None
    snapshot_seq: int = 0
    seq: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """One accepted command in a game's append-only log. ``seat`` is None for service actions
    that belong to no seat. Service actions start with ``!`` (``!timeout``, ``!end abandoned``);
    players can never type those, because the engine rejects them."""

    game_id: str
    seq: int
    seat: int | None
    text: str
    at: float


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat's line of a finished game's result."""

    game_id: str
    seat: int
    player_id: str
    points: float
    rank: int
    winner: bool
    reason: str
    finished_at: float
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class KvRow:
    """A value in the generic ``kv`` table (guild configuration, ladder, tournaments...)."""

    namespace: str
    key: str
    value: Any


@dataclass(frozen=True, slots=True)
class KvRead:
    """A range of ``kv`` rows: those of ``namespace`` whose key starts with ``prefix`` (the
    empty prefix: every row of the namespace)."""

    namespace: str
    prefix: str = ""

    def holds(self, row: KvRow) -> bool:
        return row.namespace == self.namespace and row.key.startswith(self.prefix)


@dataclass(frozen=True, slots=True)
class KvHook:
    """Key/value rows computed INSIDE a transaction from the rows read in it (a read-modify-
    write that no other writer can interleave with): the store reads every row of ``reads``
    (this transaction's own earlier writes included), calls ``compute(rows)`` with them
    (ordered by namespace, then key) and writes the rows it returns (insert or replace) in the
    same transaction. Two transactions whose hooks read the same range never interleave. Used
    by :attr:`CommandWrite.kv_hooks` and :meth:`~bot.store.base.Store.kv_update`."""

    reads: tuple[KvRead, ...]
    compute: Callable[[list[KvRow]], Sequence[KvRow]]


@dataclass(frozen=True, slots=True)
class CommandWrite:
    """Everything one accepted command changes, written in ONE transaction.

    The log row ``(game_id, seq, seat, text, at)``; the game's new ``seq``, ``status``,
    ``deadline`` and ``reminder_sent``, ``last_activity`` when ``activity``; a new snapshot when
    ``snapshot_json`` is given; the result rows and extra key/value rows (ladder) when the command
    finished the game, and the rows of its ``kv_hooks`` (:class:`KvHook`), computed in the
    transaction from the rows stored there. ``seq`` must be exactly one more than the stored ``seq``, otherwise the
    write is refused with :class:`~bot.store.base.StoreConflict` (no command is applied twice).
    """

    game_id: str
    seq: int
    seat: int | None
    text: str
    at: float
    status: GameStatus = "playing"
    deadline: float | None = None
    snapshot_json: str | None = None
    activity: bool = True  # counts for the abandonment clock (a player's own command)
    reminder_sent: bool = False  # the turn goes on with the same deadline, already reminded
    results: tuple[ResultRow, ...] = ()
    kv: tuple[KvRow, ...] = ()
    # rows computed inside the transaction, after the ones above (the league's result rows)
    kv_hooks: tuple[KvHook, ...] = ()


@dataclass(frozen=True, slots=True)
class OwnerRecord:
    """The owner lease of a database: which process may write it (one row, table ``owner``).

    ``since``, ``heartbeat`` and ``released`` are wall-clock POSIX seconds: when the process took
    the lease, when it last renewed it, and when it gave it back by closing (None while it holds
    it, or when it died holding it). ``boot`` (the machine's boot id) and ``started`` (the
    process's start time in clock ticks) tell a live holder from a reused process id."""

    token: str
    pid: int
    host: str
    since: float
    heartbeat: float
    released: float | None = None
    boot: str | None = None
    started: int | None = None
