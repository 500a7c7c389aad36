"""The live-game registry: every game in memory, its lock, and what happens when one cannot
go on.

:class:`GameRegistry` owns the games in memory (:class:`LiveGame`: the record, the engine
state, the last committed JSON, timer bookkeeping and ONE asyncio lock per game), loads a
stored game, reloads one whose copy may differ from the database, quarantines one that cannot
be loaded or continued, and keeps the service's background tasks (their ends are logged).
A lost database (another process holds it now) drops every game and stops the service; a lost
shard (:class:`~bot.store.StoreFenced`: another process took its lease over) drops that shard's
games only.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.game import load_game
from engine.rules import RuleSet

from ..store import GameRecord, Seat, StoreError, StoreFenced, StoreOwnerLost, shard_of
from .ports import Clock, GameStore
from .replay import check_log, check_state, restore, rules_of

log = logging.getLogger(__name__)


@dataclass(eq=False, slots=True)
class LiveGame:
    """A game in memory: its record, engine state and timer bookkeeping."""

    record: GameRecord
    rules: RuleSet
    state: Any | None = None  # None while in the lobby
    json: str = ""  # the last committed state (what the store holds)
    seq: int = 0
    snapshot_seq: int = 0
    deadline: float | None = None
    reminder_sent: bool = False
    last_activity: float = 0.0
    turn_key: tuple[int, int] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    bot_task: asyncio.Task[None] | None = None
    failures: int = 0  # service actions / computer moves that failed in a row
    stale: bool = False  # memory may differ from the database: reload before the next move

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def status(self) -> str:
        return self.record.status

    @property
    def seats(self) -> tuple[Seat, ...]:
        return self.record.seats

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.record.seats):
            if seat.player_id == player_id:
                return index
        return None

    @property
    def all_bots(self) -> bool:
        return all(s.is_bot for s in self.record.seats)


class GameDamaged(Exception):
    """A stored game that cannot be loaded or continued (it is quarantined)."""


def reason_of(exc: BaseException) -> str:
    """One line for a log and the quarantine table."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:500] if not isinstance(exc, GameDamaged) else text


def turn_key(state: Any) -> tuple[int, int]:
    """(seat to move, turn number): a new key is a new turn."""
    turn_no = getattr(state, "turn_no", None)
    if turn_no is None:
        turn_no = state.public_view().turn_no
    return (state.current, int(turn_no))


_RELOADED = (
    "record",
    "rules",
    "state",
    "json",
    "seq",
    "snapshot_seq",
    "deadline",
    "reminder_sent",
    "last_activity",
    "turn_key",
)


class GameRegistry:
    """The games in memory, quarantine, and the service's background tasks."""

    def __init__(self, store: GameStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.games: dict[str, LiveGame] = {}
        self.quarantined: dict[str, str] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stopping = False
        self.owner_lost = False

    def get(self, game_id: str) -> LiveGame | None:
        return self.games.get(game_id)

    def add(self, live: LiveGame) -> None:
        self.games[live.id] = live

    def forget(self, live: LiveGame) -> None:
        """Finished and cancelled games leave memory (the store keeps them)."""
        self.games.pop(live.id, None)

    def is_live(self, live: LiveGame) -> bool:
        return live.id in self.games

    # ------------------------------------------------------------------ loading

    async def resume(self, only: Callable[[GameRecord], bool] | None = None) -> list[LiveGame]:
        """Load every unfinished stored game into memory (with ``only``: those it accepts, e.g.
        the games of this process's shards, and not those already in memory). The games
        set aside before stay aside; one that cannot be read or continued is quarantined now.
        Returns the games loaded."""
        with contextlib.suppress(StoreError):
            for game_id, reason, _at in await self.store.quarantined():
                self.quarantined[game_id] = reason

        def unreadable(game_id: str, reason: str) -> None:
            bad.append((game_id, reason))

        bad: list[tuple[str, str]] = []
        records = await self.store.load_unfinished_games(on_bad=unreadable)
        for game_id, reason in bad:
            await self.set_aside(game_id, f"its row cannot be read: {reason}")
        loaded: list[LiveGame] = []
        for record in records:
            if only is not None and (not only(record) or record.id in self.games):
                continue
            try:
                live = await self.load(record)
            except StoreError as exc:  # the store failed to read: try again at the next start
                log.error(
                    "game %s could not be resumed (%s); it stays stored as it is", record.id, exc
                )
                continue
            except Exception as exc:
                await self.set_aside(record.id, f"cannot be resumed: {reason_of(exc)}")
                continue
            self.add(live)
            loaded.append(live)
        return loaded

    async def load(self, record: GameRecord) -> LiveGame:
        """A stored game in memory. Raises :class:`GameDamaged` (or the engine's error) when
        it cannot go on, :class:`StoreError` when it cannot be read now."""
        live = LiveGame(record=record, rules=rules_of(record), last_activity=record.last_activity)
        live.seq = record.seq
        live.snapshot_seq = record.snapshot_seq
        live.deadline = record.deadline
        live.reminder_sent = record.reminder_sent
        if len(record.seats) > live.rules.max_players:
            raise GameDamaged(
                f"{len(record.seats)} seats, {live.rules.name} has at most {live.rules.max_players}"
            )
        if record.status == "playing":
            commands = await self.store.commands(record.id, after_seq=record.snapshot_seq)
            problem = check_log(record, commands)
            if problem:
                raise GameDamaged(problem)
            live.state = restore(record, commands)
            problem = check_state(record, live.state)
            if problem:
                raise GameDamaged(problem)
            if live.state.status != "playing":
                raise GameDamaged(f"stored as playing, the state is {live.state.status}")
            live.json = live.state.to_json()
            live.turn_key = turn_key(live.state)
        return live

    async def reload(self, live: LiveGame, why: str) -> None:
        """Drop the game's copy in memory and load it again from the database (another
        process wrote it, or a write's outcome is unknown). Caller holds ``live.lock``."""
        log.warning("game %s: %s; reloading it from the database", live.id, why)
        try:
            record = await self.store.load_game(live.id)
        except StoreError as exc:
            self.store_failed(exc)
            log.error(
                "game %s cannot be reloaded now (%s); it reloads before its next move", live.id, exc
            )
            live.stale = True
            if live.json:
                live.state = load_game(live.json)
            return
        if record is None or record.status not in ("lobby", "playing"):
            if record is not None:
                live.record = record
                if record.status == "quarantined":
                    self.quarantined.setdefault(live.id, "quarantined in the database")
            log.warning(
                "game %s is %s in the database; dropped here",
                live.id,
                record.status if record else "gone",
            )
            live.finished.set()
            self.forget(live)
            return
        try:
            fresh = await self.load(record)
        except StoreError as exc:
            live.stale = True
            log.error("game %s cannot be reloaded now (%s)", live.id, exc)
            return
        except Exception as exc:
            await self.quarantine(live, f"cannot be reloaded: {reason_of(exc)}")
            return
        for name in _RELOADED:
            setattr(live, name, getattr(fresh, name))
        live.stale = False
        live.failures = 0

    # ------------------------------------------------------------------ quarantine

    async def set_aside(self, game_id: str, reason: str) -> None:
        """Quarantine a stored game: a log line with the reason, the store's status."""
        try:
            await self.store.quarantine(game_id, reason, at=self.clock.now())
        except StoreFenced as exc:  # a game of another process's shard: that one sets it aside
            log.info("game %s cannot go on (%s); it is on another process's shard", game_id, reason)
            self.store_failed(exc)
            return
        except StoreError as exc:
            log.error("game %s quarantined: %s", game_id, reason)
            self.quarantined[game_id] = reason
            self.store_failed(exc)
            log.error(
                "game %s: the quarantine is not stored (%s); it is set aside in memory",
                game_id,
                exc,
            )
            return
        log.error("game %s quarantined: %s", game_id, reason)
        self.quarantined[game_id] = reason

    async def quarantine(self, live: LiveGame, reason: str) -> None:
        """Take a live game out of play (it cannot be loaded or continued)."""
        await self.set_aside(live.id, reason)
        live.record = dataclasses.replace(live.record, status="quarantined")
        live.deadline = None
        live.finished.set()
        self.forget(live)

    def drop_shards(self, shards: Iterable[int]) -> list[str]:
        """Drop from memory every game of ``shards`` (another process runs them now): their
        waiters are woken, their computer players stop at their next step. Returns the games
        dropped."""
        count = getattr(self.store, "shard_count", None)
        chosen = set(shards)
        if count is None or not chosen:
            return []
        dropped: list[str] = []
        for live in list(self.games.values()):
            if shard_of(live.record.guild_id, count) not in chosen:
                continue
            dropped.append(live.id)
            self.forget(live)
            live.finished.set()
            # its computer player is NOT cancelled: a cancelled commit would read the game back
            # and could take the new owner's command at that seq for its own; left alone, its
            # write is fenced and its loop ends (the game is no longer live here)
        if dropped:
            log.error(
                "shard(s) %s now run in another process: %d game(s) dropped here",
                ",".join(map(str, sorted(chosen))),
                len(dropped),
            )
        return dropped

    def store_failed(self, exc: BaseException) -> None:
        """React to a store error: a lost owner lease stops this service (another process
        has the database now), a lost shard lease drops that shard's games; everything else is
        only logged by the caller."""
        if isinstance(exc, StoreFenced):
            self.drop_shards(exc.shards)
            return
        if isinstance(exc, StoreOwnerLost) and not self.owner_lost:
            self.owner_lost = True
            log.error(
                "this process lost the database to another one (%s); dropping every "
                "game and stopping",
                exc,
            )
            self.stopping = True
            for live in list(self.games.values()):
                live.finished.set()
            self.games.clear()
            current = asyncio.current_task()
            for task in list(self.tasks):
                if task is not current:
                    task.cancel()

    # ------------------------------------------------------------------ tasks

    def spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        """A background task whose end is always logged (an exception at error level)."""
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            log.debug("task %s cancelled", task.get_name())
            return
        exc = task.exception()
        if exc is not None:
            log.error("task %s failed", task.get_name(), exc_info=exc)
        else:
            log.debug("task %s ended", task.get_name())
