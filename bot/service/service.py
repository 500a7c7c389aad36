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
    StoreError,
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
from .replay import END, TIMEOUT, apply_logged, restore, rules_of
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


def _turn_key(state: Any) -> tuple[int, int]:
    turn_no = getattr(state, "turn_no", None)
    if turn_no is None:
        turn_no = state.public_view().turn_no
    return (state.current, int(turn_no))


def _lang(locale: str | None) -> str:
    return "de" if (locale or "").lower().startswith("de") else "en"


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
        self._ticker: asyncio.Task[None] | None = None
        self._renderer: Any = None
        self._render_checked = False
        self._stopping = False
        self._rematch_locks: dict[str, asyncio.Lock] = {}
        # the worker only knows the standard computer players, not a test's own ones
        use_worker = self.config.think_in_worker and players is computer_player
        self._thinker: Thinker | None = Thinker() if use_worker else None

    # ================================================================== lifecycle

    async def start(self, *, run_timers: bool = True) -> None:
        """Load every unfinished game (resuming at its last committed command, timers
        included), let computer players continue, and start the timer loop."""
        self._stopping = False
        for record in await self.store.load_unfinished_games():
            try:
                live = await self._load(record)
            except Exception:
                log.exception("game %s could not be resumed; it stays stored as it is", record.id)
                continue
            self._games[live.id] = live
            self._schedule_bots(live)
        if run_timers and self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_loop(), name="service-timers")

    async def _load(self, record: GameRecord) -> LiveGame:
        live = LiveGame(record=record, rules=rules_of(record), last_activity=record.last_activity)
        live.seq = record.seq
        live.snapshot_seq = record.snapshot_seq
        live.deadline = record.deadline
        live.reminder_sent = record.reminder_sent
        if record.status == "playing":
            commands = await self.store.commands(record.id, after_seq=record.snapshot_seq)
            live.state = restore(record, commands)
            live.json = live.state.to_json()
            live.turn_key = _turn_key(live.state)
            if commands and commands[-1].seq != record.seq:
                raise StoreError(
                    f"game {record.id}: log ends at {commands[-1].seq}, not {record.seq}"
                )
        return live

    async def stop(self) -> None:
        """Stop timers and computer players (committed moves stay committed)."""
        self._stopping = True
        tasks = [t for t in (self._ticker, *(g.bot_task for g in self._games.values())) if t]
        self._ticker = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._thinker is not None:
            await self._thinker.close()
            self._thinker = Thinker()  # a later start() may use it again

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
        """Remember a person's display name and language (en/de)."""
        record = PlayerRecord(player_id, name, _lang(locale), False)
        if self._people.get(player_id) != record:
            await self.store.upsert_player(record)
            self._people[player_id] = record

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
        lang = await self._lang_of(host_id)
        try:
            rules = preset(preset_name)
            if options:
                rules = rules.with_options(**options)
        except RummyError as exc:
            return None, [ErrorReply(None, host_id, exc.code, exc.message(lang))]
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
        except StoreError as exc:
            log.error("cannot create game %s: %s", record.id, exc)
            return None, [self._error(None, host_id, ServiceError("service.store"), lang)]
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
        lang = await self._lang_of(player_id)
        live = self._games.get(game_id)
        if live is None:
            return [
                self._error(game_id, player_id, ServiceError("game.not_found", game=game_id), lang)
            ]
        async with live.lock:
            if live.status != "lobby":
                return [
                    self._error(
                        game_id, player_id, ServiceError("game.not_lobby", game=game_id), lang
                    )
                ]
            try:
                out = await op(live, player_id)
            except (RummyError, ServiceError) as exc:
                return [self._error(game_id, player_id, exc, lang)]
            except StoreError:
                log.exception("lobby change of %s could not be saved", game_id)
                return [self._error(game_id, player_id, ServiceError("service.store"), lang)]
        self._schedule_bots(live)
        return out

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
            await self.store.set_status(live.id, "cancelled", at=now)
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
        lang = await self._lang_of(player_id)
        live = self._games.get(game_id)
        if live is None:
            record = None
            with contextlib.suppress(StoreError):
                record = await self.store.load_game(game_id)
            err: RummyError | ServiceError
            if record is not None and record.status == "finished":
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
            if text.startswith("!"):
                raise ServiceError("command.reserved", token=text.split()[0][:20])
        except ServiceError as exc:
            return [self._error(game_id, player_id, exc, lang)]
        async with live.lock:
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
        and build the messages. Caller holds ``live.lock``."""
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
        snapshot = state.to_json()
        if snapshot == live.json:
            # nothing changed (a hint): nothing to log or replay
            return self._event_messages(live, events, public=False)
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
        if finished and state.result is not None:
            results = self._result_rows(live, state.result, now)
            kv = self._hook_rows(live, state.result, now)
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
        try:
            await self.store.append_command(write)
        except BaseException as exc:
            # not durable: not accepted. Memory goes back to the committed state.
            live.state = load_game(live.json)
            if isinstance(exc, asyncio.CancelledError):
                raise
            log.exception("command %d of game %s could not be stored", seq, live.id)
            if reply_to is None:
                raise
            return [self._error(live.id, reply_to, ServiceError("service.store"), lang)]
        # ---- durable from here on
        live.json, live.seq = snapshot, seq
        if take_snapshot:
            live.snapshot_seq = seq
        live.deadline, live.reminder_sent, live.turn_key = deadline, keep_reminder, key
        if activity:
            live.last_activity = now
        if self.on_commit is not None:
            try:
                self.on_commit(live.id, seq, seat, text, time.perf_counter() - started)
            except Exception:
                log.exception("on_commit hook failed")
        out = self._event_messages(live, events, public=True)
        changed = [s for s, rack in racks_before.items() if rack != self._rack_of(live, s)]
        out += await self._pictures_and_racks(live, changed=changed)
        if finished:
            live.record = dataclasses.replace(live.record, status="finished", updated_at=now)
            out.append(self._game_over(live))
            live.finished.set()
            self._forget(live)
        elif key != key_before:
            out.append(self._turn_prompt(live))
        return out

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

    def _hook_rows(self, live: LiveGame, result: Result, now: float) -> tuple[KvRow, ...]:
        rows: list[KvRow] = []
        for hook in self.result_hooks:
            try:
                rows += hook(live.record, result, now)
            except Exception:
                log.exception("result hook failed for game %s", live.id)
        return tuple(rows)

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
        if not live.seats[live.state.current].is_bot:
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        live.bot_task = asyncio.create_task(self._bot_loop(live), name=f"bots-{live.id}")

    async def _bot_loop(self, live: LiveGame) -> None:
        while not self._stopping:
            if live.status != "playing" or live.state is None:
                return
            seat = live.state.current
            if not live.seats[seat].is_bot:
                return
            # the worker thinks during the pause (on the committed state)
            thought = self._think(live, seat)
            try:
                # a little jitter, so many computer players never move in lockstep
                await self.clock.sleep(self.config.bot_pause * (0.5 + self._jitter.random()))
                async with live.lock:
                    if live.status != "playing" or live.state.current != seat:
                        continue
                    out = await self._bot_move(live, seat, thought)
            finally:
                if thought is not None and not thought[1].done():
                    thought[1].cancel()
            await self._emit(out)

    def _think(self, live: LiveGame, seat: int) -> tuple[int, asyncio.Future[str | None]] | None:
        """Ask the worker for the move of ``seat`` on the committed state: (seq, future).
        Only for the levels that use the solver: an ``easy`` move costs less on the loop than
        sending the game to the worker (measured by benchmarks/soak.py)."""
        thinker = self._thinker
        level = live.seats[seat].level or "medium"
        if thinker is None or level not in WORKER_LEVELS:
            return None
        if not thinker.ready:
            thinker.warm_up()
            return None
        try:
            return live.seq, thinker.choose(live.json, seat, level)
        except ThinkerError:
            return None

    async def _choose(
        self, live: LiveGame, seat: int, thought: tuple[int, asyncio.Future[str | None]] | None
    ) -> str | None:
        """The computer player's move: the worker's, when it answered for the state as it is
        now, else chosen here on the event loop."""
        if thought is not None and thought[0] == live.seq and live.json:
            try:
                return await thought[1]
            except ThinkerError as exc:
                log.warning("worker could not choose in game %s (%s); choosing here", live.id, exc)
        player = self._bot(live.seats[seat].level)
        try:
            return player.choose(live.state, seat)
        except Exception:
            log.exception("computer player failed in game %s", live.id)
            return None

    async def _bot_move(
        self,
        live: LiveGame,
        seat: int,
        thought: tuple[int, asyncio.Future[str | None]] | None = None,
    ) -> list[Outgoing]:
        activity = live.all_bots
        text = await self._choose(live, seat, thought)
        for attempt in range(2):
            if text:
                try:
                    return await self._play(live, seat, text, activity=activity, reply_to=None)
                except RummyError as exc:
                    log.warning("computer move %r rejected in %s: %s", text, live.id, exc)
                except StoreError:
                    log.exception("computer move in %s not stored; retrying later", live.id)
                    await self.clock.sleep(1.0)
                    return []
            if attempt == 0:
                text = self._fallback.safe_choose(live.state, seat)
        # no legal move found: the preset's time-out action keeps the game going
        return await self._service_action(live, TIMEOUT, activity=activity)

    async def _service_action(self, live: LiveGame, text: str, *, activity: bool) -> list[Outgoing]:
        seat = live.state.current if text == TIMEOUT else None
        try:
            return await self._play(live, seat, text, activity=activity, reply_to=None)
        except (RummyError, StoreError, Exception):
            log.exception("service action %s failed in game %s", text, live.id)
            return []

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
        while not self._stopping:
            await self.clock.sleep(self.config.tick_seconds)
            try:
                await self.run_due()
            except Exception:
                log.exception("timer check failed")

    async def run_due(self) -> list[Outgoing]:
        """Run every timer that is due now: reminders, time-outs, abandonment, stale lobbies.
        The messages go to the sink and are returned."""
        now = self.clock.now()
        out: list[Outgoing] = []
        for live in list(self._games.values()):
            async with live.lock:
                out += await self._due(live, now)
            self._schedule_bots(live)
        await self._emit(out)
        return out

    async def _due(self, live: LiveGame, now: float) -> list[Outgoing]:
        cfg = self.config
        if live.status == "lobby":
            if cfg.lobby_expiry is not None and now - live.last_activity >= cfg.lobby_expiry:
                await self.store.set_status(live.id, "cancelled", at=now)
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
        if cfg.abandon_after is not None and now - live.last_activity >= cfg.abandon_after:
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
            await self.store.set_timer(live.id, deadline=live.deadline, reminder_sent=True)
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
            return await self._service_action(live, f"{END} {reason}", activity=True)
