"""The platform-neutral game service (DESIGN.md, "The game service").

Commands in (game id, player id, text), messages out (:mod:`bot.service.outgoing`). The service
owns the registry of live games, ONE asyncio lock per game (two commands of one game never
interleave), turn timers with reminders, computer players' turns, abandonment, and every call
into the store. Both the Discord adapter and the terminal front end are thin layers over it.

Data flow for one command: adapter -> :meth:`GameService.handle` -> ``state.apply`` (engine) ->
events -> :meth:`~bot.store.Store.append_command` (log row + snapshot + deadline + results in one
durable transaction) -> only then the messages (text, table picture, private racks, whose turn).
A rejected command changes nothing and is answered to the sender only, in their language. If the
store cannot write, the in-memory game goes back to its last committed state, so memory and disk
never disagree about an acknowledged move.

What can go wrong, and what the service does (issue 14):

- **A commit is never left half-way.** Once a write is queued the service waits for its outcome
  even when the caller is cancelled (the commit is shielded); memory then follows what the store
  says. A refused write (:class:`~bot.store.StoreConflict`: another process wrote the game, or
  this process lost the database) or one whose outcome is unknown drops the game's copy in memory
  and reloads it from the database.
- **A store that cannot write** (:class:`~bot.store.StoreError`: disk full, locked, read-only) is
  answered with "could not be saved, nothing changed"; no task dies of it.
- **A game that cannot be loaded or continued** (malformed rows, a snapshot that does not fit
  the game, a duplicated piece, a log shorter than ``seq``) is *quarantined*: set aside in the
  store with a log line and the reason, listed by :meth:`GameService.quarantined` and
  ``verify-db``, while every other game runs.
- **Computer players have a deadline**: the worker's answer is awaited without the game's lock
  and for at most ``ServiceConfig.think_timeout`` seconds; then a cheaper level chooses on the
  loop and the worker is replaced. The timer loop skips a busy game and comes back next tick.
- **Downtime is not the players' time**: a heartbeat in the store (key/value ``service/alive``)
  tells the next start how long the bot was down; deadlines that ran during the outage move by
  that much, and the abandonment clock only counts time the bot was up (outages are kept in
  ``service/outages``).

Messages that do not answer a request (computer moves, time-outs, reminders, abandonment) go to
the ``sink`` callback given to the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import inspect
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import RummyError
from engine.game import Event, Result, load_game, new_game
from engine.rules import RuleSet, preset

from ..store import (
    CommandWrite,
    GameRecord,
    KvRow,
    PlayerRecord,
    ResultRow,
    Seat,
    Store,
    StoreConflict,
    StoreError,
    StoreOwnerLost,
)
from ..store.records import dumps
from .clock import Clock, SystemClock
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
from .replay import END, TIMEOUT, apply_logged, check_log, check_state, restore, rules_of
from .thinker import Thinker, ThinkerError

log = logging.getLogger(__name__)

WORKER_LEVELS = frozenset({"medium", "strong"})
"""Computer players whose moves are chosen in the worker process (they run the solver)."""

Sink = Callable[[list[Outgoing]], Awaitable[None] | None]
CommitHook = Callable[[str, int, int | None, str, float], None]
ResultHook = Callable[[GameRecord, Result, float], Sequence[KvRow]]


@dataclass(slots=True)
class ServiceConfig:
    """Tunable behaviour. Times are seconds."""

    pictures: bool = True
    bot_pause: float = 1.0  # before each computer move (x 0.5-1.5 jitter), so people can follow
    snapshot_every: int = 1  # store a full snapshot every N commands (replay the rest)
    abandon_after: float | None = 3 * 24 * 3600  # no player command for this long: abandoned
    lobby_expiry: float | None = 24 * 3600  # a lobby nobody starts is cancelled
    reminder_fraction: float = 0.25  # remind when this share of the turn time is left
    tick_seconds: float = 1.0  # how often timers are checked
    max_command_length: int = 2000
    # computer players choose their moves in a worker process (bot.service.thinker), during
    # their pause, instead of on the event loop where it delays every other game's commands
    think_in_worker: bool = True
    # the longest wait for the worker's answer (after the pause); then a cheaper level chooses
    # on the loop, and the worker is killed and replaced
    think_timeout: float = 5.0
    think_fallback_level: str = "easy"
    worker_restart_after: float = 5.0  # seconds before a dead or killed worker is started again
    # how often the service writes its "alive" heartbeat (downtime = now - last heartbeat)
    heartbeat_seconds: float = 5.0
    # a computer seat or timer action that fails this many times in a row quarantines its game
    max_failures: int = 5


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


ALIVE_KEY = ("service", "alive")  # kv: {"at": the service clock's time of the last heartbeat}
OUTAGES_KEY = ("service", "outages")  # kv: [[down since, up again], ...] (abandonment clock)
MAX_OUTAGES = 1000


class GameDamaged(Exception):
    """A stored game that cannot be loaded or continued (it is quarantined)."""


class _Unknown(Exception):
    """A write whose outcome is unknown (the game is reloaded before it is used again)."""


def _reason(exc: BaseException) -> str:
    """One line for a log and the quarantine table."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:500] if not isinstance(exc, GameDamaged) else text


def _parse_outages(value: Any) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    if isinstance(value, list):
        for item in value:
            if (
                isinstance(item, list | tuple)
                and len(item) == 2
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in item)
                and item[0] <= item[1]
            ):
                out.append((float(item[0]), float(item[1])))
    return out


def _turn_key(state: Any) -> tuple[int, int]:
    turn_no = getattr(state, "turn_no", None)
    if turn_no is None:
        turn_no = state.public_view().turn_no
    return (state.current, int(turn_no))


def _lang(locale: str | None) -> str:
    if not isinstance(locale, str):
        return "en"
    return "de" if locale.lower().startswith("de") else "en"


MAX_ID_LENGTH = 200

_WHAT = {
    "game": ("game id", "Die Spielkennung"),
    "player": ("player id", "Die Spielerkennung"),
    "host": ("host id", "Die Kennung des Gastgebers"),
    "name": ("display name", "Der Anzeigename"),
    "text": ("message", "Die Nachricht"),
    "level": ("computer level", "Die Computerstufe"),
    "preset": ("preset", "Die Spielart"),
}


def _is_text(value: Any, *, limit: int | None = MAX_ID_LENGTH) -> bool:
    """A string that the store can write (UTF-8: no lone surrogates), within ``limit``."""
    if not isinstance(value, str) or (limit is not None and len(value) > limit):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(value: Any, what: str, *, limit: int | None = MAX_ID_LENGTH) -> None:
    """Raise the typed ``input.invalid`` error unless ``value`` is writable text."""
    if not _is_text(value, limit=limit):
        en, de = _WHAT[what]
        raise ServiceError("input.invalid", what=en, what_de=de)


def _clean_name(name: Any, fallback: str) -> str:
    """A display name the store can write: lone surrogates become U+FFFD, at most 100 chars."""
    if not isinstance(name, str) or not name.strip():
        return fallback
    if not _is_text(name, limit=None):
        name = name.encode("utf-8", "replace").decode("utf-8")
    return name[:100]


def _check_options(rules: RuleSet, options: dict[str, Any]) -> None:
    """Each option's value must have its field's type (``turn_seconds`` an integer or None,
    flags booleans...); the rule set checks the ranges."""
    if not isinstance(options, dict):
        raise ServiceError(
            "options.invalid",
            option="options",
            value="that",
            expected="a mapping",
            expected_de="eine Zuordnung",
        )
    hints = _rule_hints()
    for key, value in options.items():
        if not isinstance(key, str):
            raise ServiceError(
                "options.invalid",
                option=repr(key)[:40],
                value=repr(value)[:40],
                expected="an option name",
                expected_de="ein Optionsname",
            )
        hint = hints.get(key)
        if hint is None:
            continue  # an unknown name: the rule set's own error names it
        if not _fits(value, hint):
            expected, expected_de = _describe(hint)
            raise ServiceError(
                "options.invalid",
                option=key,
                value=repr(value)[:40],
                expected=expected,
                expected_de=expected_de,
            )


_HINTS: dict[str, Any] | None = None


def _rule_hints() -> dict[str, Any]:
    global _HINTS
    if _HINTS is None:
        import typing

        try:
            _HINTS = typing.get_type_hints(RuleSet)
        except Exception:  # an annotation we cannot resolve: only the rule set checks then
            _HINTS = {}
    return _HINTS


def _fits(value: Any, hint: Any) -> bool:
    import types
    import typing

    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return _is_text(value, limit=1000)
    if origin is not None:
        base = origin
    elif isinstance(hint, type):
        base = hint
    else:
        return True  # a Literal or similar: the rule set checks the value
    if base is typing.Literal:
        return value in typing.get_args(hint)
    if base in (tuple, list):
        return isinstance(value, tuple | list)
    return isinstance(value, base) if isinstance(base, type) else True


def _describe(hint: Any) -> tuple[str, str]:
    text = str(hint).replace("typing.", "").replace("NoneType", "None")
    if "int" in text and "None" in text:
        return "a whole number or nothing", "eine ganze Zahl oder nichts"
    if text == "int" or text == "<class 'int'>":
        return "a whole number", "eine ganze Zahl"
    if text == "<class 'bool'>":
        return "true or false", "wahr oder falsch"
    return text, text


class GameService:
    """Lobby, commands, timers and computer players over a :class:`~bot.store.Store`.

    Every public coroutine returns a list of :class:`~bot.service.outgoing.Outgoing` values for
    the caller to deliver and never raises for a player's mistake: refusals come back as
    :class:`~bot.service.outgoing.ErrorReply` for the sender only.
    """

    def __init__(
        self,
        store: Store,
        *,
        config: ServiceConfig | None = None,
        clock: Clock | None = None,
        sink: Sink | None = None,
        players: Callable[[str], BotPlayer] = computer_player,
        on_commit: CommitHook | None = None,
        result_hooks: Sequence[ResultHook] = (),
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.clock: Clock = clock or SystemClock()
        self.sink = sink
        self._player_factory = players
        self._bots: dict[str, BotPlayer] = {}
        self._fallback = FallbackPlayer()
        self._jitter = random.Random()
        self.on_commit = on_commit
        self.result_hooks = list(result_hooks)
        self._games: dict[str, LiveGame] = {}
        self._people: dict[str, PlayerRecord] = {}
        self._unsaved_people: set[str] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._renderer: Any = None
        self._render_checked = False
        self._stopping = False
        self._rematch_locks: dict[str, asyncio.Lock] = {}
        # the worker only knows the standard computer players, not a test's own ones
        use_worker = self.config.think_in_worker and players is computer_player
        self._thinker: Thinker | None = self._new_thinker() if use_worker else None
        self._quarantined: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._outages: list[tuple[float, float]] = []  # (down since, up again), wall time
        self._beat_at: float | None = None  # when the last heartbeat was written
        self._owner_lost = False

    def _new_thinker(self) -> Thinker:
        return Thinker(restart_after=self.config.worker_restart_after)

    # ================================================================== lifecycle

    async def start(self, *, run_timers: bool = True) -> None:
        """Load every unfinished game (resuming at its last committed command, timers
        included), let computer players continue, and start the timer loop.

        A game that cannot be loaded is quarantined (see :meth:`quarantined`); the others
        start. Deadlines that ran while the bot was down move by the downtime."""
        self._stopping = False
        self._owner_lost = False
        now = self.clock.now()
        last_alive, downtime = await self._note_downtime(now)
        with contextlib.suppress(StoreError):
            for game_id, reason, _at in await self.store.quarantined():
                self._quarantined[game_id] = reason

        def unreadable(game_id: str, reason: str) -> None:
            bad.append((game_id, reason))

        bad: list[tuple[str, str]] = []
        records = await self.store.load_unfinished_games(on_bad=unreadable)
        for game_id, reason in bad:
            await self._set_aside(game_id, f"its row cannot be read: {reason}")
        for record in records:
            try:
                live = await self._load(record)
            except StoreError as exc:  # the store failed to read: try again at the next start
                log.error(
                    "game %s could not be resumed (%s); it stays stored as it is", record.id, exc
                )
                continue
            except Exception as exc:
                await self._set_aside(record.id, f"cannot be resumed: {_reason(exc)}")
                continue
            self._games[live.id] = live
            if downtime > 0 and live.deadline is not None and live.deadline > last_alive:
                await self._move_deadline(live, live.deadline + downtime)
        for live in list(self._games.values()):
            self._schedule_bots(live)
        if run_timers and self._ticker is None:
            self._ticker = self._spawn(self._tick_loop(), "service-timers")

    async def _note_downtime(self, now: float) -> tuple[float, float]:
        """Read the last heartbeat: (when the bot was last alive, how long it was down since);
        remember the outage for the abandonment clock and write a fresh heartbeat."""
        try:
            alive = await self.store.kv_get(*ALIVE_KEY)
            outages = await self.store.kv_get(*OUTAGES_KEY)
        except StoreError:
            log.exception("cannot read the last heartbeat; assuming no downtime")
            return now, 0.0
        self._outages = _parse_outages(outages)
        last = alive.get("at") if isinstance(alive, dict) else None
        if not isinstance(last, int | float) or isinstance(last, bool) or not last < now:
            await self._beat(now, force=True)
            return now, 0.0
        downtime = now - float(last)
        log.info("the bot was down for %.0f s; deadlines move by that much", downtime)
        self._outages.append((float(last), now))
        horizon = now - max(self.config.abandon_after or 0.0, self.config.lobby_expiry or 0.0)
        self._outages = [o for o in self._outages if o[1] > horizon][-MAX_OUTAGES:]
        await self._beat(now, force=True)
        return float(last), downtime

    async def _beat(self, now: float, *, force: bool = False) -> None:
        """Write the "alive" heartbeat (and the outages) every ``heartbeat_seconds``."""
        recent = (
            self._beat_at is not None and 0 <= now - self._beat_at < self.config.heartbeat_seconds
        )
        if recent and not force:
            return
        try:
            await self.store.kv_put(
                [
                    KvRow(*ALIVE_KEY, {"at": now}),
                    KvRow(*OUTAGES_KEY, [list(o) for o in self._outages]),
                ]
            )
        except StoreError as exc:
            self._store_failed(exc)
            log.warning("heartbeat not written: %s", exc)
            return
        self._beat_at = now

    def _downtime_between(self, since: float, now: float) -> float:
        """Seconds of ``since .. now`` the bot was down (known outages)."""
        return sum(max(0.0, min(end, now) - max(start, since)) for start, end in self._outages)

    def _idle(self, live: LiveGame, now: float) -> float:
        """How long nobody played, counting only time the bot was up."""
        return now - live.last_activity - self._downtime_between(live.last_activity, now)

    async def _move_deadline(self, live: LiveGame, deadline: float) -> None:
        try:
            await self.store.set_timer(
                live.id, deadline=deadline, reminder_sent=live.reminder_sent, seq=live.seq
            )
        except StoreConflict as exc:
            await self._reload(live, f"its deadline could not be moved ({exc})")
            return
        except StoreError as exc:
            self._store_failed(exc)
            log.warning("game %s: the moved deadline is not stored (%s)", live.id, exc)
        live.deadline = deadline

    async def _load(self, record: GameRecord) -> LiveGame:
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
            live.turn_key = _turn_key(live.state)
        return live

    async def _reload(self, live: LiveGame, why: str) -> None:
        """Drop the game's copy in memory and load it again from the database (another
        process wrote it, or a write's outcome is unknown). Caller holds ``live.lock``."""
        log.warning("game %s: %s; reloading it from the database", live.id, why)
        try:
            record = await self.store.load_game(live.id)
        except StoreError as exc:
            self._store_failed(exc)
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
                    self._quarantined.setdefault(live.id, "quarantined in the database")
            log.warning(
                "game %s is %s in the database; dropped here",
                live.id,
                record.status if record else "gone",
            )
            live.finished.set()
            self._forget(live)
            return
        try:
            fresh = await self._load(record)
        except StoreError as exc:
            live.stale = True
            log.error("game %s cannot be reloaded now (%s)", live.id, exc)
            return
        except Exception as exc:
            await self._quarantine(live, f"cannot be reloaded: {_reason(exc)}")
            return
        for name in (
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
        ):
            setattr(live, name, getattr(fresh, name))
        live.stale = False
        live.failures = 0

    async def _set_aside(self, game_id: str, reason: str) -> None:
        """Quarantine a stored game: a log line with the reason, the store's status."""
        log.error("game %s quarantined: %s", game_id, reason)
        self._quarantined[game_id] = reason
        try:
            await self.store.quarantine(game_id, reason, at=self.clock.now())
        except StoreError as exc:
            self._store_failed(exc)
            log.error(
                "game %s: the quarantine is not stored (%s); it is set aside in memory",
                game_id,
                exc,
            )

    async def _quarantine(self, live: LiveGame, reason: str) -> None:
        """Take a live game out of play (it cannot be loaded or continued)."""
        await self._set_aside(live.id, reason)
        live.record = dataclasses.replace(live.record, status="quarantined")
        live.deadline = None
        live.finished.set()
        self._forget(live)

    def quarantined(self) -> dict[str, str]:
        """The admin's view: every game set aside (this run or before), with the reason."""
        return dict(self._quarantined)

    async def quarantined_in(self, guild_id: str) -> dict[str, str]:
        """A server admin's view: that guild's games set aside, with the reason, as the store
        has them (so a game set aside by an earlier run is listed too). Raises ``StoreError``
        when the store cannot be read."""
        rows = await self.store.quarantined(guild_id)
        return {game_id: reason for game_id, reason, _at in rows}

    def _store_failed(self, exc: BaseException) -> None:
        """React to a store error: a lost owner lease stops this service (another process
        has the database now), everything else is only logged by the caller."""
        if isinstance(exc, StoreOwnerLost) and not self._owner_lost:
            self._owner_lost = True
            log.error(
                "this process lost the database to another one (%s); dropping every "
                "game and stopping",
                exc,
            )
            self._stopping = True
            for live in list(self._games.values()):
                live.finished.set()
            self._games.clear()
            current = asyncio.current_task()
            for task in list(self._tasks):
                if task is not current:
                    task.cancel()

    def _spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        """A background task whose end is always logged (an exception at error level)."""
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            log.debug("task %s cancelled", task.get_name())
            return
        exc = task.exception()
        if exc is not None:
            log.error("task %s failed", task.get_name(), exc_info=exc)
        else:
            log.debug("task %s ended", task.get_name())

    async def stop(self) -> None:
        """Stop timers and computer players (committed moves stay committed)."""
        self._stopping = True
        tasks = [t for t in (self._ticker, *(g.bot_task for g in self._games.values())) if t]
        tasks += [t for t in self._tasks if t not in tasks]
        self._ticker = None
        current = asyncio.current_task()
        tasks = [t for t in tasks if t is not current]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if not self._owner_lost:
            await self._beat(self.clock.now(), force=True)  # downtime starts now
        if self._thinker is not None:
            await self._thinker.close()
            self._thinker = self._new_thinker()  # a later start() may use it again

    async def wait_idle(self) -> None:
        """Wait until no computer player is thinking or moving (for tests and the console)."""
        while True:
            tasks = [
                g.bot_task for g in self._games.values() if g.bot_task and not g.bot_task.done()
            ]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def wait_finished(self, game_id: str) -> None:
        """Wait until the game is over (returns at once for a game no longer live)."""
        live = self._games.get(game_id)
        if live is not None:
            await live.finished.wait()

    # ================================================================== queries

    def live_game_ids(self) -> list[str]:
        return list(self._games)

    def status(self, game_id: str) -> str | None:
        live = self._games.get(game_id)
        return live.status if live else None

    def seats(self, game_id: str) -> tuple[Seat, ...]:
        live = self._games.get(game_id)
        return live.seats if live else ()

    def view(self, game_id: str):
        """The public view (:class:`engine.game.PublicView`) of a running game, or None."""
        live = self._games.get(game_id)
        return live.state.public_view() if live and live.state is not None else None

    def rack(self, game_id: str, player_id: str) -> list[str]:
        """A seated player's pieces (for that player's eyes only)."""
        live = self._games.get(game_id)
        if live is None or live.state is None:
            return []
        seat = live.seat_of(player_id)
        return [] if seat is None else [str(f) for f in live.state.rack(seat)]

    def deadline(self, game_id: str) -> float | None:
        live = self._games.get(game_id)
        return live.deadline if live else None

    # ================================================================== players

    async def register_player(self, player_id: str, name: str, locale: str = "en") -> None:
        """Remember a person's display name and language (en/de).

        A player id that is not text the store can keep raises the typed
        :class:`ServiceError` ``input.invalid``; a display name with characters the store
        cannot keep (lone surrogates) is cleaned. When the store cannot write, the person is
        remembered in memory and written at the next registration."""
        _check_text(player_id, "player")
        record = PlayerRecord(player_id, _clean_name(name, player_id), _lang(locale), False)
        if self._people.get(player_id) != record or player_id in self._unsaved_people:
            self._people[player_id] = record
            try:
                await self.store.upsert_player(record)
            except StoreError as exc:
                self._store_failed(exc)
                log.warning("player %s not saved (%s); kept in memory", player_id, exc)
                self._unsaved_people.add(player_id)
            else:
                self._unsaved_people.discard(player_id)

    async def _person(self, player_id: str) -> PlayerRecord:
        record = self._people.get(player_id)
        if record is None:
            try:
                record = await self.store.get_player(player_id)
            except StoreError:
                record = None
            record = record or PlayerRecord(player_id, player_id, "en", False)
            self._people[player_id] = record
        return record

    async def _lang_of(self, player_id: str) -> str:
        return _lang((await self._person(player_id)).locale)

    def _locale_cached(self, player_id: str) -> str:
        record = self._people.get(player_id)
        return _lang(record.locale) if record else "en"

    # ================================================================== lobby

    async def create_game(
        self,
        host_id: str,
        preset_name: str = "rummikub",
        options: dict[str, Any] | None = None,
        *,
        guild_id: str | None = None,
        channel_id: str | None = None,
        thread_id: str | None = None,
        game_id: str | None = None,
        seed: int | None = None,
        seat_host: bool = True,
    ) -> tuple[str | None, list[Outgoing]]:
        """Open a lobby with the host in seat 1 (or not seated: ``seat_host=False``, for a
        table of computer players). Returns the new game's id (None when refused)."""
        try:
            _check_text(host_id, "host")
        except ServiceError as exc:
            return None, [self._error(None, "?", exc, "en")]
        lang = await self._lang_of(host_id)
        try:
            for value, what in (
                (game_id, "game"),
                (guild_id, "game"),
                (channel_id, "game"),
                (thread_id, "game"),
            ):
                if value is not None:
                    _check_text(value, what)
            _check_text(preset_name, "preset")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise ServiceError(
                    "options.invalid",
                    option="seed",
                    value=repr(seed)[:40],
                    expected="a whole number",
                    expected_de="eine ganze Zahl",
                )
            rules = preset(preset_name)
            if options:
                _check_options(rules, options)
                rules = rules.with_options(**options)
        except (RummyError, ServiceError) as exc:
            return None, [self._error(None, host_id, exc, lang)]
        except (TypeError, ValueError) as exc:  # what the option checks did not foresee
            err = ServiceError(
                "options.invalid",
                option="options",
                value=repr(exc)[:40],
                expected="valid options",
                expected_de="gültige Optionen",
            )
            return None, [self._error(None, host_id, err, lang)]
        if game_id is not None and (game_id in self._games or game_id in self._quarantined):
            err = ServiceError("game.not_lobby", game=game_id)
            return None, [self._error(None, host_id, err, lang)]
        host = await self._person(host_id)
        now = self.clock.now()
        record = GameRecord(
            id=game_id or secrets.token_hex(4),
            preset=rules.preset,
            rules_json=dumps(rules.to_dict()),
            seed=secrets.randbelow(2**31) if seed is None else seed,
            status="lobby",
            host_id=host_id,
            created_at=now,
            updated_at=now,
            last_activity=now,
            seats=(Seat(host_id, host.name),) if seat_host else (),
            guild_id=guild_id,
            channel_id=channel_id,
            thread_id=thread_id,
        )
        try:
            await self.store.create_game(record)
        except StoreConflict:
            err = ServiceError("game.not_lobby", game=record.id)  # that id exists already
            return None, [self._error(None, host_id, err, lang)]
        except StoreError as exc:
            self._store_failed(exc)
            log.error("cannot create game %s: %s", record.id, exc)
            return None, [self._error(None, host_id, ServiceError("service.save"), lang)]
        self._games[record.id] = LiveGame(record=record, rules=rules, last_activity=now)
        text = (
            f"{host.name} opened a {rules.name} table ({record.id}). Join, add computer "
            "players, then start.",
            f"{host.name} hat einen Tisch {rules.name} eröffnet ({record.id}). Beitreten, "
            "Computer hinzufügen, dann starten.",
        )
        return record.id, [PublicText(record.id, *text, kind="lobby")]

    async def join(self, game_id: str, player_id: str) -> list[Outgoing]:
        """Take a free seat in a lobby."""
        return await self._lobby_op(game_id, player_id, self._join)

    async def leave(self, game_id: str, player_id: str) -> list[Outgoing]:
        """Leave a lobby (the host's role passes on; an empty lobby is cancelled)."""
        return await self._lobby_op(game_id, player_id, self._leave)

    async def add_bot(self, game_id: str, by: str, level: str = "medium") -> list[Outgoing]:
        """Seat a computer player (host only): ``easy``, ``medium`` or ``strong``."""
        return await self._lobby_op(game_id, by, lambda live, _by: self._add_bot(live, by, level))

    async def start_game(self, game_id: str, by: str) -> list[Outgoing]:
        """Deal and begin (host only). Sends racks privately and names who moves first."""
        return await self._lobby_op(game_id, by, self._start)

    async def _lobby_op(
        self, game_id: str, player_id: str, op: Callable[[LiveGame, str], Awaitable[list[Outgoing]]]
    ) -> list[Outgoing]:
        bad = self._bad_entry(game_id, player_id)
        if bad is not None:
            return [bad]
        lang = await self._lang_of(player_id)
        live = self._games.get(game_id)
        if live is None:
            return [
                self._error(game_id, player_id, ServiceError("game.not_found", game=game_id), lang)
            ]
        async with live.lock:
            if live.stale:
                await self._reload(live, "an earlier lobby change's outcome was unknown")
            if live.status != "lobby":
                return [
                    self._error(
                        game_id, player_id, ServiceError("game.not_lobby", game=game_id), lang
                    )
                ]
            try:
                out = await op(live, player_id)
            except asyncio.CancelledError:
                # a write may still land: the next operation reloads the game first
                live.stale = True
                raise
            except (RummyError, ServiceError) as exc:
                return [self._error(game_id, player_id, exc, lang)]
            except StoreConflict as exc:  # another process changed the game
                await self._reload(live, f"a lobby change was refused ({exc})")
                return [self._error(game_id, player_id, ServiceError("service.save"), lang)]
            except StoreError as exc:
                self._store_failed(exc)
                log.error("lobby change of %s could not be saved: %s", game_id, exc)
                if live.status == "lobby":  # memory as the store has it
                    await self._reload(live, "a lobby change was not saved")
                return [self._error(game_id, player_id, ServiceError("service.save"), lang)]
            except Exception:
                log.exception("lobby change of %s failed", game_id)
                await self._reload(live, "a lobby change failed")
                return [self._error(game_id, player_id, ServiceError("service.internal"), lang)]
        self._schedule_bots(live)
        return out

    def _bad_entry(self, game_id: Any, player_id: Any) -> ErrorReply | None:
        """A clean typed error for ids that are not text the store can keep."""
        try:
            _check_text(player_id, "player")
            _check_text(game_id, "game")
        except ServiceError as exc:
            return self._error(None, player_id if _is_text(player_id) else "?", exc, "en")
        return None

    def _check_room(self, live: LiveGame) -> None:
        if len(live.seats) >= live.rules.max_players:
            raise ServiceError("lobby.full", preset=live.rules.name, maximum=live.rules.max_players)

    async def _set_seats(self, live: LiveGame, seats: tuple[Seat, ...], host_id: str) -> None:
        now = self.clock.now()
        await self.store.update_lobby(live.id, seats, at=now)
        if host_id != live.record.host_id:
            meta = {**live.record.meta, "host_id": host_id}
            await self.store.update_meta(live.id, meta, at=now)
        live.record = dataclasses.replace(live.record, seats=seats, host_id=host_id, updated_at=now)
        live.last_activity = now

    async def _join(self, live: LiveGame, player_id: str) -> list[Outgoing]:
        if live.seat_of(player_id) is not None:
            raise ServiceError("lobby.seated")
        self._check_room(live)
        person = await self._person(player_id)
        await self._set_seats(
            live, (*live.seats, Seat(player_id, person.name)), live.record.host_id
        )
        return [self._lobby_text(live, f"{person.name} joins.", f"{person.name} spielt mit.")]

    async def _leave(self, live: LiveGame, player_id: str) -> list[Outgoing]:
        seat = live.seat_of(player_id)
        if seat is None:
            raise ServiceError("lobby.not_seated")
        name = live.seats[seat].name
        seats = tuple(s for s in live.seats if s.player_id != player_id)
        humans = [s for s in seats if not s.is_bot]
        if not humans:
            now = self.clock.now()
            await self.store.set_status(live.id, "cancelled", at=now, expect="lobby")
            live.record = dataclasses.replace(live.record, status="cancelled", seats=seats)
            self._forget(live)
            return [
                PublicText(
                    live.id,
                    f"{name} left; the table {live.id} is closed.",
                    f"{name} ist gegangen; der Tisch {live.id} ist geschlossen.",
                    kind="lobby",
                )
            ]
        host = live.record.host_id if player_id != live.record.host_id else humans[0].player_id
        await self._set_seats(live, seats, host)
        return [self._lobby_text(live, f"{name} leaves.", f"{name} geht.")]

    async def _add_bot(self, live: LiveGame, by: str, level: str) -> list[Outgoing]:
        self._host_only(live, by, "add computer players", "Computer hinzufügen")
        level = level.strip().lower()
        if level not in LEVELS:
            raise ServiceError("lobby.bot_level", level=level)
        self._check_room(live)
        number = sum(1 for s in live.seats if s.is_bot) + 1
        seat = Seat(f"bot:{level}:{number}", f"Computer {number}", True, level)
        if seat.player_id not in self._people:
            record = PlayerRecord(seat.player_id, seat.name, "en", True)
            await self.store.upsert_player(record)
            self._people[seat.player_id] = record
        await self._set_seats(live, (*live.seats, seat), live.record.host_id)
        return [
            self._lobby_text(
                live,
                f"{seat.name} ({level}) joins.",
                f"{seat.name} ({level}) spielt mit.",
            )
        ]

    def _host_only(self, live: LiveGame, by: str, action: str, action_de: str) -> None:
        if by != live.record.host_id:
            raise ServiceError("lobby.host_only", action=action, action_de=action_de)

    def _lobby_text(self, live: LiveGame, en: str, de: str) -> PublicText:
        names = ", ".join(s.name for s in live.seats)
        return PublicText(
            live.id,
            f"{en} At the table ({len(live.seats)}/{live.rules.max_players}): {names}",
            f"{de} Am Tisch ({len(live.seats)}/{live.rules.max_players}): {names}",
            kind="lobby",
        )

    async def _start(self, live: LiveGame, by: str) -> list[Outgoing]:
        self._host_only(live, by, "start the game", "das Spiel starten")
        live.rules.check_players(len(live.seats))
        state = new_game(live.rules, [s.name for s in live.seats], live.record.seed)
        now = self.clock.now()
        key = _turn_key(state)
        deadline = self._deadline_for(live, now)
        snapshot = state.to_json()
        await self.store.start_game(
            live.id,
            seats=live.seats,
            seed=live.record.seed,
            snapshot_json=snapshot,
            deadline=deadline,
            at=now,
        )
        live.record = dataclasses.replace(live.record, status="playing", updated_at=now)
        live.state, live.json, live.seq, live.snapshot_seq = state, snapshot, 0, 0
        live.deadline, live.reminder_sent, live.turn_key = deadline, False, key
        live.last_activity = now
        names = ", ".join(s.name for s in live.seats)
        out: list[Outgoing] = [
            PublicText(
                live.id,
                f"{live.rules.name} begins: {names}.",
                f"{live.rules.name} beginnt: {names}.",
                kind="start",
            )
        ]
        out += await self._pictures_and_racks(live, changed=list(range(len(live.seats))))
        out.append(self._turn_prompt(live))
        return out

    async def rematch(self, game_id: str, by: str) -> tuple[str | None, list[Outgoing]]:
        """Start a new game with the same table and rules after a finished game. Asking twice
        (a double click) gives the same new game."""
        bad = self._bad_entry(game_id, by)
        if bad is not None:
            return None, [bad]
        try:
            return await self._rematch(game_id, by)
        except StoreError as exc:
            self._store_failed(exc)
            log.error("rematch of %s failed: %s", game_id, exc)
            lang = self._locale_cached(by)
            return None, [self._error(game_id, by, ServiceError("service.save"), lang)]

    async def _rematch(self, game_id: str, by: str) -> tuple[str | None, list[Outgoing]]:
        lang = await self._lang_of(by)
        record = await self.store.load_game(game_id)
        if record is None:
            return None, [
                self._error(game_id, by, ServiceError("game.not_found", game=game_id), lang)
            ]
        live = self._games.get(game_id)
        lock = live.lock if live is not None else self._rematch_lock(game_id)
        async with lock:
            record = await self.store.load_game(game_id) or record
            if record.status != "finished":
                code = "game.not_finished"
                return None, [self._error(game_id, by, ServiceError(code, game=game_id), lang)]
            if all(s.player_id != by for s in record.seats):
                return None, [self._error(game_id, by, ServiceError("lobby.not_seated"), lang)]
            existing = record.meta.get("rematch")
            if existing:
                return existing, [
                    PublicText(
                        game_id,
                        f"The rematch is already on: game {existing}.",
                        f"Die Revanche läuft schon: Spiel {existing}.",
                        kind="lobby",
                    )
                ]
            rules = rules_of(record)
            new_id, out = await self._create_started(record, rules, by)
            if new_id is None:
                return None, out
            await self.store.update_meta(
                game_id, {**record.meta, "rematch": new_id}, at=self.clock.now()
            )
        self._schedule_bots(self._games[new_id])
        return new_id, out

    def _rematch_lock(self, game_id: str) -> asyncio.Lock:
        return self._rematch_locks.setdefault(game_id, asyncio.Lock())

    async def _create_started(
        self, old: GameRecord, rules: RuleSet, by: str
    ) -> tuple[str | None, list[Outgoing]]:
        now = self.clock.now()
        record = GameRecord(
            id=secrets.token_hex(4),
            preset=old.preset,
            rules_json=old.rules_json,
            seed=secrets.randbelow(2**31),
            status="lobby",
            host_id=by,
            created_at=now,
            updated_at=now,
            last_activity=now,
            seats=old.seats,
            guild_id=old.guild_id,
            channel_id=old.channel_id,
            thread_id=old.thread_id,
            meta={"rematch_of": old.id},
        )
        lang = await self._lang_of(by)
        try:
            await self.store.create_game(record)
        except StoreError:
            log.exception("rematch of %s could not be created", old.id)
            return None, [self._error(old.id, by, ServiceError("service.store"), lang)]
        live = LiveGame(record=record, rules=rules, last_activity=now)
        self._games[record.id] = live
        async with live.lock:
            try:
                out = await self._start(live, by)
            except (RummyError, ServiceError, StoreError) as exc:
                log.exception("rematch of %s could not start", old.id)
                err = exc if not isinstance(exc, StoreError) else ServiceError("service.store")
                return None, [self._error(old.id, by, err, lang)]
        head = PublicText(
            record.id,
            f"Rematch of {old.id}: new game {record.id}.",
            f"Revanche von {old.id}: neues Spiel {record.id}.",
            kind="lobby",
        )
        return record.id, [head, *out]

    # ================================================================== commands

    async def handle(self, game_id: str, player_id: str, text: str) -> list[Outgoing]:
        """Run a player's message of commands. Durable before anything is acknowledged."""
        bad = self._bad_entry(game_id, player_id)
        if bad is not None:
            return [bad]
        lang = await self._lang_of(player_id)
        live = self._games.get(game_id)
        if live is None:
            record = None
            with contextlib.suppress(StoreError):
                record = await self.store.load_game(game_id)
            err: RummyError | ServiceError
            if game_id in self._quarantined:
                err = ServiceError("game.quarantined", game=game_id)
            elif record is not None and record.status == "finished":
                err = RummyError("game.over")
            else:
                err = ServiceError("game.not_found", game=game_id)
            return [self._error(game_id, player_id, err, lang)]
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        text = text.strip()
        try:
            if not text:
                raise ServiceError("command.empty")
            limit = self.config.max_command_length
            if len(text) > limit:
                raise ServiceError("command.too_long", length=len(text), maximum=limit)
            _check_text(text, "text", limit=None)
            if text.startswith("!"):
                raise ServiceError("command.reserved", token=text.split()[0][:20])
        except ServiceError as exc:
            return [self._error(game_id, player_id, exc, lang)]
        async with live.lock:
            if live.stale:
                await self._reload(live, "an earlier write's outcome was unknown")
                if live.stale:
                    return [self._error(game_id, player_id, ServiceError("service.store"), lang)]
            if live.status == "quarantined":
                err2 = ServiceError("game.quarantined", game=game_id)
                return [self._error(game_id, player_id, err2, lang)]
            if live.status == "lobby":
                exc2 = ServiceError("game.not_playing", game=game_id)
                return [self._error(game_id, player_id, exc2, lang)]
            if live.status != "playing" or live.state is None:
                return [self._error(game_id, player_id, RummyError("game.over"), lang)]
            seat = live.seat_of(player_id)
            if seat is None:
                return [self._error(game_id, player_id, RummyError("turn.not_seated"), lang)]
            out = await self._play(live, seat, text, activity=True, reply_to=player_id)
        self._schedule_bots(live)
        return out

    async def _play(
        self, live: LiveGame, seat: int | None, text: str, *, activity: bool, reply_to: str | None
    ) -> list[Outgoing]:
        """Apply one message (or a ``!`` service action) under the game's lock, commit it,
        and build the messages. Caller holds ``live.lock``.

        Once the write is queued, its outcome is awaited even when the caller is cancelled
        (then the messages go to the sink and the cancellation goes on); memory follows the
        store: committed -> the new state, refused -> the last committed state, conflict or
        unknown -> reloaded from the database. With ``reply_to`` None (computer players,
        service actions) a failure raises; for a person it is the error reply."""
        state = live.state
        started = time.perf_counter()
        lang = self._locale_cached(reply_to) if reply_to else "en"
        racks_before = self._human_racks(live)
        key_before = live.turn_key
        try:
            if text.startswith("!"):
                events = apply_logged(state, seat, text)
            else:
                events = state.apply(seat, text)
        except RummyError as exc:
            if reply_to is None:
                raise
            return [self._error(live.id, reply_to, exc, lang)]
        except Exception:
            log.exception("engine failed on %r in game %s; state restored", text, live.id)
            live.state = load_game(live.json)
            if reply_to is None:
                raise
            return [self._error(live.id, reply_to, ServiceError("service.internal"), lang)]
        try:
            snapshot = state.to_json()
            if snapshot == live.json:
                # nothing changed (a hint): nothing to log or replay
                return self._event_messages(live, events, public=False)
            write, after = self._command_write(live, seat, text, activity, snapshot, key_before)
        except Exception as exc:
            # e.g. a result that does not fit the seats: memory goes back with the database,
            # and the game, which cannot be continued, is set aside
            live.state = load_game(live.json)
            await self._quarantine(live, f"{text!r} cannot be recorded: {_reason(exc)}")
            if reply_to is None:
                raise GameDamaged(str(exc)) from exc
            err = ServiceError("game.quarantined", game=live.id)
            return [self._error(live.id, reply_to, err, lang)]
        error, cancelled = await self._commit(write)
        if error is not None:
            await self._not_committed(live, write, error)
            if cancelled:
                raise asyncio.CancelledError
            if reply_to is None:
                raise error
            return [self._error(live.id, reply_to, ServiceError("service.store"), lang)]
        # ---- durable from here on: memory follows before anything else can fail
        finished = write.status != "playing"
        key = _turn_key(state)
        live.json, live.seq = snapshot, write.seq
        if write.snapshot_json is not None:
            live.snapshot_seq = write.seq
        live.deadline, live.reminder_sent, live.turn_key = (
            write.deadline,
            write.reminder_sent,
            key,
        )
        live.failures = 0
        if activity:
            live.last_activity = write.at
        if finished:
            live.record = dataclasses.replace(live.record, status="finished", updated_at=write.at)
            live.finished.set()
            self._forget(live)
        for step in after:  # e.g. the league's cache: only now that the rows are stored
            try:
                step()
            except Exception:
                log.exception("after-commit step failed in game %s", live.id)
        if self.on_commit is not None:
            try:
                self.on_commit(live.id, write.seq, seat, text, time.perf_counter() - started)
            except Exception:
                log.exception("on_commit hook failed")
        try:
            out = self._event_messages(live, events, public=True)
            if finished:
                out.append(self._game_over(live))
            elif key != key_before:
                out.append(self._turn_prompt(live))
        except Exception:
            log.exception("messages for command %d of game %s failed", write.seq, live.id)
            out = []
        if cancelled:  # the caller is gone: the players still hear of the move
            self._spawn(self._emit(out), f"messages-{live.id}")
            raise asyncio.CancelledError
        changed = [s for s, rack in racks_before.items() if rack != self._rack_of(live, s)]
        try:
            pictures = await self._pictures_and_racks(live, changed=changed)
        except Exception:
            log.exception("pictures and racks for game %s failed", live.id)
            pictures = []
        # pictures and racks go before the game-over / turn lines, as before
        tail = [o for o in out if isinstance(o, GameOver | TurnPrompt)]
        head = [o for o in out if not isinstance(o, GameOver | TurnPrompt)]
        return head + pictures + tail

    def _command_write(
        self,
        live: LiveGame,
        seat: int | None,
        text: str,
        activity: bool,
        snapshot: str,
        key_before: tuple[int, int] | None,
    ) -> tuple[CommandWrite, list[Callable[[], None]]]:
        """Everything the accepted command changes, as one store write, and what to do once
        it is committed (the result hooks' cache updates)."""
        state = live.state
        now = self.clock.now()
        seq = live.seq + 1
        finished = state.status != "playing"
        key = _turn_key(state)
        if finished:
            deadline = None
        elif key == key_before and live.deadline is not None:
            deadline = live.deadline
        else:
            deadline = self._deadline_for(live, now)
        keep_reminder = deadline == live.deadline and live.reminder_sent and not finished
        results: tuple[ResultRow, ...] = ()
        kv: tuple[KvRow, ...] = ()
        after: list[Callable[[], None]] = []
        if finished and state.result is not None:
            results = self._result_rows(live, state.result, now)
            kv, after = self._hook_rows(live, state.result, now)
        every = max(1, self.config.snapshot_every)
        take_snapshot = finished or seq - live.snapshot_seq >= every
        write = CommandWrite(
            game_id=live.id,
            seq=seq,
            seat=seat,
            text=text,
            at=now,
            status="finished" if finished else "playing",
            deadline=deadline,
            snapshot_json=snapshot if take_snapshot else None,
            activity=activity,
            reminder_sent=keep_reminder,
            results=results,
            kv=kv,
        )
        return write, after

    async def _commit(self, write: CommandWrite) -> tuple[BaseException | None, bool]:
        """Write and wait: (the error or None, whether the caller was cancelled meanwhile).

        The store queues the write before it first waits (no loop round trip, so it joins
        the group commit under way) and commits it, or fails, even when the caller is
        cancelled. A cancelled caller reads the outcome back from the database: the store
        answers a read only after the writes queued before it."""
        try:
            await self.store.append_command(write)
            return None, False
        except asyncio.CancelledError:
            pass
        except BaseException as exc:
            return exc, False
        while True:  # however often the caller is cancelled meanwhile
            try:
                record = await self.store.load_game(write.game_id)
                break
            except asyncio.CancelledError:
                continue
            except StoreError as exc:
                return _Unknown(f"command {write.seq} cannot be read back: {exc}"), True
        if record is not None and record.seq == write.seq and record.status == write.status:
            return None, True
        if record is not None and record.seq == write.seq - 1:
            return StoreError(f"command {write.seq} of game {write.game_id} was not saved"), True
        return StoreConflict(f"game {write.game_id} is at {record and record.seq}"), True

    async def _not_committed(
        self, live: LiveGame, write: CommandWrite, error: BaseException
    ) -> None:
        """Memory after a write that did not commit (or whose outcome is unknown)."""
        if isinstance(error, StoreOwnerLost):
            self._store_failed(error)
            live.state = load_game(live.json)
        elif isinstance(error, StoreConflict):
            await self._reload(live, f"command {write.seq} was refused ({error})")
        elif isinstance(error, StoreError):
            self._store_failed(error)
            log.error("command %d of game %s could not be stored: %s", write.seq, live.id, error)
            live.state = load_game(live.json)  # nothing was written
        else:
            log.error(
                "command %d of game %s: the write's outcome is unknown",
                write.seq,
                live.id,
                exc_info=error,
            )
            await self._reload(live, "a write's outcome is unknown")

    def _deadline_for(self, live: LiveGame, now: float) -> float | None:
        seconds = live.rules.turn_seconds
        return None if not seconds else now + float(seconds)

    def _rack_of(self, live: LiveGame, seat: int) -> list[str]:
        return [str(f) for f in live.state.rack(seat)]

    def _human_racks(self, live: LiveGame) -> dict[int, list[str]]:
        return {i: self._rack_of(live, i) for i, s in enumerate(live.seats) if not s.is_bot}

    def _forget(self, live: LiveGame) -> None:
        """Finished and cancelled games leave memory (the store keeps them)."""
        self._games.pop(live.id, None)

    # ================================================================== messages

    def _error(
        self, game_id: str | None, to: str, exc: RummyError | ServiceError, lang: str
    ) -> ErrorReply:
        return ErrorReply(game_id, to, exc.code, exc.message(lang))

    def _event_messages(
        self, live: LiveGame, events: list[Event], *, public: bool
    ) -> list[Outgoing]:
        out: list[Outgoing] = []
        shown = [e for e in events if not e.private]
        if shown and public:
            out.append(
                PublicText(
                    live.id,
                    "\n".join(e.text for e in shown),
                    "\n".join(e.text_de for e in shown),
                )
            )
        private: dict[int, list[Event]] = {}
        for event in events:
            if event.private and event.seat is not None:
                private.setdefault(event.seat, []).append(event)
        for seat, items in private.items():
            if not 0 <= seat < len(live.seats) or live.seats[seat].is_bot:
                continue
            to = live.seats[seat].player_id
            lang = self._locale_cached(to)
            lines = [e.message(lang) for e in items]
            working = getattr(live.state, "working_table_text", None)
            if (
                working is not None
                and live.state.status == "playing"
                and live.state.current == seat
                and any(e.kind not in ("drew", "hint") for e in items)
            ):
                title = "Dein Tisch in Arbeit:" if lang == "de" else "Your working table:"
                lines.append(f"{title}\n{working()}")
            out.append(PrivateText(live.id, to, "\n".join(lines)))
        return out

    async def _pictures_and_racks(self, live: LiveGame, *, changed: list[int]) -> list[Outgoing]:
        out: list[Outgoing] = []
        state = live.state
        renderer = self._get_renderer()
        if renderer is not None:
            table = getattr(renderer, "render_table", None)
            if table is not None:
                view = state.public_view()
                png = await self._render(table, view)
                if png:
                    out.append(TablePicture(live.id, png, view.turn_no))
        for seat in changed:
            info = live.seats[seat]
            if info.is_bot:
                continue
            faces = state.rack(seat)
            pieces = tuple(str(f) for f in faces)
            lang = self._locale_cached(info.player_id)
            label = "Deine Steine" if lang == "de" else "Your rack"
            png = None
            if renderer is not None and getattr(renderer, "render_rack", None) is not None:
                png = await self._render(renderer.render_rack, faces)
            text = f"{label} ({len(pieces)}): {' '.join(pieces)}"
            out.append(PrivateRack(live.id, info.player_id, seat, pieces, text, png))
        return out

    def _turn_prompt(self, live: LiveGame) -> TurnPrompt:
        seat = live.state.current
        info = live.seats[seat]
        return TurnPrompt(
            live.id,
            info.player_id,
            seat,
            info.name,
            info.is_bot,
            live.deadline,
            f"{info.name}, it is your turn.",
            f"{info.name}, du bist am Zug.",
        )

    def _game_over(self, live: LiveGame) -> GameOver:
        result = live.state.result
        names = [s.name for s in live.seats]
        order = sorted(range(len(names)), key=lambda s: (result.ranks[s], s))
        lines = [f"{result.ranks[s]}. {names[s]}: {result.points[s]:g}" for s in order]
        data = result.to_dict()
        data["player_ids"] = [s.player_id for s in live.seats]
        head_en = {"abandoned": "Game abandoned.", "ended": "Game ended."}.get(
            result.reason, "Game over."
        )
        head_de = {"abandoned": "Spiel aufgegeben.", "ended": "Spiel beendet."}.get(
            result.reason, "Spiel vorbei."
        )
        return GameOver(
            live.id,
            result.reason,
            "\n".join([head_en, *lines]),
            "\n".join([head_de, *lines]),
            data,
        )

    def _get_renderer(self) -> Any:
        if not self.config.pictures:
            return None
        if not self._render_checked:
            self._render_checked = True
            try:
                module = importlib.import_module("rendering")
            except Exception:
                log.warning("rendering is not available: pictures are off")
                module = None
            if module is not None and not hasattr(module, "render_table"):
                log.warning("rendering has no render_table yet: pictures are off")
                module = None
            self._renderer = module
        return self._renderer

    async def _render(self, fn: Callable[..., Any], arg: Any) -> bytes | None:
        """Render in a worker thread; a picture failure never fails a move."""
        try:
            png = await asyncio.to_thread(fn, arg)
        except Exception:
            log.exception("rendering failed")
            return None
        return png if isinstance(png, bytes | bytearray) else None

    # ================================================================== results

    def _result_rows(self, live: LiveGame, result: Result, now: float) -> tuple[ResultRow, ...]:
        rows = []
        for seat, info in enumerate(live.seats):
            details: dict[str, Any] = {"left": result.left[seat] if seat < len(result.left) else []}
            if result.details:
                details["game"] = result.details
            rows.append(
                ResultRow(
                    game_id=live.id,
                    seat=seat,
                    player_id=info.player_id,
                    points=float(result.points[seat]),
                    rank=int(result.ranks[seat]),
                    winner=result.winner == seat,
                    reason=result.reason,
                    finished_at=now,
                    details=details,
                )
            )
        return tuple(rows)

    def _hook_rows(
        self, live: LiveGame, result: Result, now: float
    ) -> tuple[tuple[KvRow, ...], list[Callable[[], None]]]:
        """The result hooks' rows, and their ``committed`` callbacks (a hook may return rows
        with a ``committed()`` method, e.g. the league's, to update its cache only once the
        rows are stored)."""
        rows: list[KvRow] = []
        after: list[Callable[[], None]] = []
        for hook in self.result_hooks:
            try:
                found = hook(live.record, result, now)
                rows += found
            except Exception:
                log.exception("result hook failed for game %s", live.id)
                continue
            committed = getattr(found, "committed", None)
            if callable(committed):
                after.append(committed)
        return tuple(rows), after

    # ================================================================== computer players

    def _bot(self, level: str | None) -> BotPlayer:
        key = level or "medium"
        player = self._bots.get(key)
        if player is None:
            player = self._bots[key] = self._player_factory(key)
        return player

    def _schedule_bots(self, live: LiveGame) -> None:
        if self._stopping or live.status != "playing" or live.state is None:
            return
        if live.id not in self._games:
            return
        if not live.seats[live.state.current].is_bot:
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        live.bot_task = self._spawn(self._bot_loop(live), f"bots-{live.id}")

    async def _bot_loop(self, live: LiveGame) -> None:
        """Computer players move until a person is to move. Survives any error: a seat that
        keeps failing quarantines its game (``max_failures``)."""
        while not self._stopping and live.id in self._games:
            async with live.lock:  # a consistent view: no move is half-way now
                if live.status != "playing" or live.state is None:
                    return
                seat = live.state.current
                if not 0 <= seat < len(live.seats) or not live.seats[seat].is_bot:
                    return
            try:
                out = await self._bot_turn(live, seat)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                live.failures += 1
                log.exception(
                    "computer player of game %s failed (%d in a row)", live.id, live.failures
                )
                if live.failures >= self.config.max_failures:
                    async with live.lock:
                        await self._quarantine(
                            live, f"its computer player keeps failing: {_reason(exc)}"
                        )
                    return
                await self.clock.sleep(min(30.0, 2.0**live.failures))
                continue
            await self._emit(out)

    async def _bot_turn(self, live: LiveGame, seat: int) -> list[Outgoing]:
        """One computer move: the worker thinks during the pause; its answer is awaited
        without the game's lock, at most ``think_timeout`` seconds; then, under the lock, the
        move is made if the game is still where it was."""
        seq = live.seq
        thought = self._think(live, seat)
        text: str | None = None
        cheap = False
        try:
            # a little jitter, so many computer players never move in lockstep
            await self.clock.sleep(self.config.bot_pause * (0.5 + self._jitter.random()))
            if thought is not None:
                text, cheap = await self._await_thought(live, thought)
        finally:
            if thought is not None:
                if not thought.done():
                    thought.cancel()
                elif not thought.cancelled():
                    thought.exception()  # seen: a late failure is no "never retrieved" noise
        async with live.lock:
            if (
                live.id not in self._games
                or live.status != "playing"
                or live.state.current != seat
                or live.seq != seq
            ):
                return []
            return await self._bot_move(live, seat, text, cheap=cheap)

    def _think(self, live: LiveGame, seat: int) -> asyncio.Future[str | None] | None:
        """Ask the worker for the move of ``seat`` on the committed state.
        Only for the levels that use the solver: an ``easy`` move costs less on the loop than
        sending the game to the worker (measured by benchmarks/soak.py)."""
        thinker = self._thinker
        level = live.seats[seat].level or "medium"
        if thinker is None or level not in WORKER_LEVELS or not live.json:
            return None
        if not thinker.ready:
            thinker.warm_up()
            return None
        try:
            return thinker.choose(live.json, seat, level)
        except ThinkerError:
            return None

    async def _await_thought(
        self, live: LiveGame, thought: asyncio.Future[str | None]
    ) -> tuple[str | None, bool]:
        """The worker's answer: (text, False); (None, True) when it did not answer in time
        (the worker is replaced, a cheaper level chooses); (None, False) when it failed."""
        try:
            return await asyncio.wait_for(asyncio.shield(thought), self.config.think_timeout), False
        except TimeoutError:
            log.warning(
                "the worker did not answer for game %s within %.1f s; a cheaper player moves",
                live.id,
                self.config.think_timeout,
            )
            if self._thinker is not None:
                self._thinker.replace("it did not answer in time")
            return None, True
        except ThinkerError as exc:
            log.warning("worker could not choose in game %s (%s); choosing here", live.id, exc)
            return None, False

    def _choose_here(self, live: LiveGame, seat: int, *, cheap: bool) -> str | None:
        """The computer player's move chosen on the event loop (``cheap``: the fallback level,
        after the worker failed to answer in time)."""
        level = self.config.think_fallback_level if cheap else live.seats[seat].level
        player = self._bot(level)
        try:
            return player.choose(live.state, seat)
        except Exception:
            log.exception("computer player failed in game %s", live.id)
            return None

    async def _bot_move(
        self, live: LiveGame, seat: int, text: str | None = None, *, cheap: bool = False
    ) -> list[Outgoing]:
        activity = live.all_bots
        if text is None:
            text = self._choose_here(live, seat, cheap=cheap)
        for attempt in range(2):
            if text:
                try:
                    return await self._play(live, seat, text, activity=activity, reply_to=None)
                except RummyError as exc:
                    log.warning("computer move %r rejected in %s: %s", text, live.id, exc)
                except StoreError as exc:
                    log.error(
                        "computer move in %s not stored (%s); trying again later", live.id, exc
                    )
                    await self.clock.sleep(1.0)
                    return []
                if live.status != "playing":
                    return []
            if attempt == 0:
                text = self._fallback.safe_choose(live.state, seat)
        # no legal move found: the preset's time-out action keeps the game going
        return await self._service_action(live, TIMEOUT, activity=activity)

    async def _service_action(self, live: LiveGame, text: str, *, activity: bool) -> list[Outgoing]:
        """A ``!`` action (time-out, end); a failure is logged, never raised (a game whose
        actions keep failing is quarantined)."""
        if live.status != "playing" or live.state is None:
            return []
        seat = live.state.current if text == TIMEOUT else None
        try:
            out = await self._play(live, seat, text, activity=activity, reply_to=None)
        except asyncio.CancelledError:
            raise
        except GameDamaged:
            return []
        except StoreError as exc:
            log.error("service action %s not stored in game %s: %s", text, live.id, exc)
            return []
        except Exception as exc:
            live.failures += 1
            log.exception("service action %s failed in game %s", text, live.id)
            if live.failures >= self.config.max_failures and live.id in self._games:
                await self._quarantine(live, f"{text} keeps failing: {_reason(exc)}")
            return []
        return out

    async def _emit(self, out: list[Outgoing]) -> None:
        if not out or self.sink is None:
            return
        try:
            result = self.sink(out)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("delivering messages failed")

    # ================================================================== timers

    async def _tick_loop(self) -> None:
        """Check the timers every ``tick_seconds``; survives any error."""
        while not self._stopping:
            await self.clock.sleep(self.config.tick_seconds)
            try:
                await self.run_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer check failed")

    async def run_due(self) -> list[Outgoing]:
        """Run every timer that is due now: reminders, time-outs, abandonment, stale lobbies.
        The messages go to the sink and are returned. A game that is busy (its lock is held,
        e.g. a commit on the way) is skipped and checked again at the next tick; the due games
        run side by side, so one slow game never delays the others."""
        now = self.clock.now()
        await self._beat(now)
        due = [g for g in list(self._games.values()) if self._maybe_due(g, now)]
        results = await asyncio.gather(
            *(self._due_locked(live, now) for live in due), return_exceptions=True
        )
        out: list[Outgoing] = []
        for live, result in zip(due, results, strict=True):
            if isinstance(result, BaseException):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                log.error("timer of game %s failed", live.id, exc_info=result)
                continue
            out += result
        for live in list(self._games.values()):
            self._schedule_bots(live)
        await self._emit(out)
        return out

    def _maybe_due(self, live: LiveGame, now: float) -> bool:
        """Cheap check without the lock: could a timer of this game be due now?"""
        cfg = self.config
        if live.status == "lobby":
            return cfg.lobby_expiry is not None and self._idle(live, now) >= cfg.lobby_expiry
        if live.status != "playing" or live.state is None:
            return False
        if cfg.abandon_after is not None and self._idle(live, now) >= cfg.abandon_after:
            return True
        if live.deadline is None:
            return False
        seconds = live.rules.turn_seconds or 0
        return now >= live.deadline - seconds * cfg.reminder_fraction

    async def _due_locked(self, live: LiveGame, now: float) -> list[Outgoing]:
        if live.lock.locked():  # busy: come back at the next tick
            return []
        async with live.lock:
            if live.id not in self._games:
                return []
            return await self._due(live, now)

    async def _guarded(self, live: LiveGame, write: Awaitable[None], what: str) -> bool:
        """A status or timer write guarded by the game's stored status and seq: True when it is
        stored. Refused (this copy is stale): the game is reloaded from the database; another
        store error is logged. Either way nothing changes in memory."""
        try:
            await write
        except StoreConflict as exc:
            await self._reload(live, f"{what} was refused ({exc})")
            return False
        except StoreError as exc:
            self._store_failed(exc)
            log.error("game %s: %s is not stored: %s", live.id, what, exc)
            return False
        return True

    async def _due(self, live: LiveGame, now: float) -> list[Outgoing]:
        cfg = self.config
        if live.status == "lobby":
            if cfg.lobby_expiry is not None and self._idle(live, now) >= cfg.lobby_expiry:
                closing = self.store.set_status(live.id, "cancelled", at=now, expect="lobby")
                if not await self._guarded(live, closing, "closing its lobby"):
                    return []
                live.record = dataclasses.replace(live.record, status="cancelled")
                self._forget(live)
                return [
                    PublicText(
                        live.id,
                        f"Table {live.id} was never started and is closed.",
                        f"Tisch {live.id} wurde nie gestartet und ist geschlossen.",
                        kind="lobby",
                    )
                ]
            return []
        if live.status != "playing" or live.state is None:
            return []
        if cfg.abandon_after is not None and self._idle(live, now) >= cfg.abandon_after:
            out = await self._service_action(live, f"{END} abandoned", activity=False)
            if out:
                out.insert(
                    0,
                    PublicText(
                        live.id,
                        "Nobody has played for too long: the game is abandoned.",
                        "Zu lange hat niemand gespielt: das Spiel wird aufgegeben.",
                        kind="abandoned",
                    ),
                )
            return out
        if live.deadline is None:
            return []
        if now >= live.deadline:
            return await self._service_action(live, TIMEOUT, activity=False)
        seconds = live.rules.turn_seconds or 0
        remind_at = live.deadline - seconds * cfg.reminder_fraction
        if not live.reminder_sent and seconds and now >= remind_at:
            marking = self.store.set_timer(
                live.id, deadline=live.deadline, reminder_sent=True, seq=live.seq
            )
            if not await self._guarded(live, marking, "its reminder"):
                return []
            live.reminder_sent = True
            info = live.seats[live.state.current]
            if info.is_bot:
                return []
            left = max(0, round(live.deadline - now))
            return [
                TurnPrompt(
                    live.id,
                    info.player_id,
                    live.state.current,
                    info.name,
                    False,
                    live.deadline,
                    f"{info.name}, {left} seconds left for your turn.",
                    f"{info.name}, noch {left} Sekunden für deinen Zug.",
                )
            ]
        return []

    async def end_game(self, game_id: str, by: str, reason: str = "ended") -> list[Outgoing]:
        """The host (organiser) ends a running game now; it is scored by what is left."""
        bad = self._bad_entry(game_id, by)
        if bad is not None:
            return [bad]
        lang = await self._lang_of(by)
        live = self._games.get(game_id)
        if live is None:
            return [self._error(game_id, by, ServiceError("game.not_found", game=game_id), lang)]
        async with live.lock:
            try:
                self._host_only(live, by, "end the game", "das Spiel beenden")
            except ServiceError as exc:
                return [self._error(game_id, by, exc, lang)]
            if live.status != "playing":
                return [
                    self._error(game_id, by, ServiceError("game.not_playing", game=game_id), lang)
                ]
            reason = "abandoned" if reason == "abandoned" else "ended"
            out = await self._service_action(live, f"{END} {reason}", activity=True)
            if not out and live.status == "quarantined":
                err = ServiceError("game.quarantined", game=game_id)
                return [self._error(game_id, by, err, lang)]
            if not out and live.status == "playing":
                return [self._error(game_id, by, ServiceError("service.save"), lang)]
            return out
