"""The platform-neutral game service (DESIGN.md, "The game service").

Commands in (game id, player id, text), messages out (:mod:`bot.service.outgoing`).
:class:`GameService` is the facade front ends call (the Discord adapter and the terminal are
thin layers over it); the work is done by its parts:

- :mod:`~bot.service.registry`: the live games in memory (ONE asyncio lock per game: two
  commands of one game never interleave), reloading and quarantine;
- :mod:`~bot.service.pipeline`: one message of commands from check to durable commit to
  messages (memory and disk never disagree about an acknowledged move);
- :mod:`~bot.service.lobby`: tables, seats, the start, rematches, the host ending a game;
- :mod:`~bot.service.timers`: reminders, time-outs, abandonment, stale lobbies, downtime;
- :mod:`~bot.service.computer`: computer players' turns (in a worker process when they think
  hard), never hanging a game;
- :mod:`~bot.service.messages`: the Outgoing values and the pictures.

The service depends only on the interfaces of :mod:`bot.service.ports` (store, renderer,
league, clock, computer players); :mod:`bot.wiring` builds the real ones.

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
- **Downtime is not the players' time**: deadlines that ran during an outage move by its
  length, and the abandonment clock only counts time the bot was up.

Messages that do not answer a request (computer moves, time-outs, reminders, abandonment) go to
the ``sink`` callback given to the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from engine.variants import DEFAULT_VARIANT

from ..store import GameRecord, KvHook, KvRead, KvRow, PlayerRecord, Seat, ShardPlan
from .clock import SystemClock
from .computer import ComputerTurns
from .config import ServiceConfig
from .context import ServiceContext
from .lobby import Lobby
from .messages import Messages
from .outgoing import Outgoing
from .people import People
from .pipeline import CommandPipeline, CommitHook, ResultHook
from .players import computer_player
from .ports import Clock, ComputerPlayers, GameStore, LeaguePort, Metrics, Renderer
from .registry import GameRegistry, LiveGame, turn_key
from .shards import ShardKeeper
from .timers import Timers
from .turns import view_for

log = logging.getLogger(__name__)

__all__ = ["GameService", "ServiceConfig", "Sink"]

Sink = Callable[[list[Outgoing]], Awaitable[None] | None]


class GameService:
    """Lobby, commands, timers and computer players over a store (the facade).

    Every public coroutine returns a list of :class:`~bot.service.outgoing.Outgoing` values for
    the caller to deliver and never raises for a player's mistake: refusals come back as
    :class:`~bot.service.outgoing.ErrorReply` for the sender only.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        config: ServiceConfig | None = None,
        clock: Clock | None = None,
        sink: Sink | None = None,
        players: ComputerPlayers = computer_player,
        renderer: Renderer | None = None,
        league: LeaguePort | None = None,
        on_commit: CommitHook | None = None,
        result_hooks: Sequence[ResultHook] = (),
        metrics: Metrics | None = None,
        shards: ShardPlan | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.clock: Clock = clock or SystemClock()
        self.sink = sink
        self.league = league
        hooks = [*result_hooks, *([league.result_hook] if league is not None else [])]
        self.registry = GameRegistry(store, self.clock)
        self.people = People(store, self.registry)
        self.messages = Messages(self.people, renderer, pictures=self.config.pictures)
        context = ServiceContext(
            store,
            self.config,
            self.clock,
            self.registry,
            self.people,
            self.messages,
            self._emit,
            self._after_move,
        )
        self.pipeline = CommandPipeline(
            context, on_commit=on_commit, result_hooks=hooks, metrics=metrics
        )
        # the worker only knows the standard computer players, not a test's own ones
        use_worker = self.config.think_in_worker and players is computer_player
        self.computer = ComputerTurns(
            context, self.pipeline, players=players, use_worker=use_worker
        )
        self.lobby = Lobby(context, self.pipeline)
        self.timers = Timers(context, self.pipeline)
        # several processes over one database: only the games of this one's shards (shards.py)
        self.shards = ShardKeeper(context, shards, self.timers) if shards is not None else None
        if shards is not None:
            self.timers.per_shards(shards)
        self._ticker: asyncio.Task[None] | None = None
        self._stopped = False  # stop() ran, and no start() since

    def _after_move(self, live: LiveGame) -> None:
        self.computer.schedule(live)

    async def _emit(self, out: list[Outgoing]) -> None:
        if not out or self.sink is None:
            return
        try:
            result = self.sink(out)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("delivering messages failed")

    # ================================================================== lifecycle

    async def start(self, *, run_timers: bool = True) -> None:
        """Load every unfinished game (resuming at its last committed command, timers
        included), let computer players continue, and start the timer loop.

        A game that cannot be loaded is quarantined (see :meth:`quarantined`); the others
        start. Deadlines that ran while the bot was down move by the downtime."""
        registry = self.registry
        registry.stopping = False
        registry.owner_lost = False
        self._stopped = False
        now = self.clock.now()
        keeper = self.shards
        if keeper is not None:
            await keeper.take()
        last_alive, downtime = await self.timers.note_downtime(now)
        for live in await registry.resume(only=keeper.owns if keeper is not None else None):
            if downtime > 0 and live.deadline is not None and live.deadline > last_alive:
                await self.timers.move_deadline(live, live.deadline + downtime)
        if keeper is not None:
            keeper.resumed()
        for live in list(registry.games.values()):
            self.computer.schedule(live)
        if run_timers and self._ticker is None:
            self._ticker = registry.spawn(self.timers.tick_loop(), "service-timers")
        if keeper is not None:
            registry.spawn(keeper.loop(), "service-shards")

    async def stop(self) -> None:
        """Stop timers and computer players (committed moves stay committed). A second stop
        does nothing (once stopped, no computer player or timer starts again until start())."""
        if self._stopped:
            return
        registry = self.registry
        registry.stopping = True
        bot_tasks = (g.bot_task for g in registry.games.values())
        tasks = [t for t in (self._ticker, *bot_tasks) if t]
        tasks += [t for t in registry.tasks if t not in tasks]
        self._ticker = None
        current = asyncio.current_task()
        tasks = [t for t in tasks if t is not current]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if not registry.owner_lost:
            await self.timers.beat(self.clock.now(), force=True)  # downtime starts now
        await self.computer.close()
        self._stopped = True

    async def wait_idle(self) -> None:
        """Wait until no computer player is thinking or moving (for tests and the console)."""
        while True:
            tasks = [
                g.bot_task
                for g in self.registry.games.values()
                if g.bot_task and not g.bot_task.done()
            ]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def wait_finished(self, game_id: str) -> None:
        """Wait until the game is over (returns at once for a game no longer live)."""
        live = self.registry.get(game_id)
        if live is not None:
            await live.finished.wait()

    def quarantined(self) -> dict[str, str]:
        """The admin's view: every game set aside (this run or before), with the reason."""
        return dict(self.registry.quarantined)

    async def quarantined_in(self, guild_id: str) -> dict[str, str]:
        """A server admin's view: that guild's games set aside, with the reason, as the store
        has them (so a game set aside by an earlier run is listed too). Raises ``StoreError``
        when the store cannot be read."""
        rows = await self.store.quarantined(guild_id)
        return {game_id: reason for game_id, reason, _at in rows}

    # ================================================================== queries

    def live_game_ids(self) -> list[str]:
        return list(self.registry.games)

    def status(self, game_id: str) -> str | None:
        live = self.registry.get(game_id)
        return live.status if live else None

    def seats(self, game_id: str) -> tuple[Seat, ...]:
        live = self.registry.get(game_id)
        return live.seats if live else ()

    def view(self, game_id: str):
        """The public view (:class:`engine.game.PublicView`) of a running game, or None."""
        live = self.registry.get(game_id)
        return live.state.public_view() if live and live.state is not None else None

    def table_view(self, game_id: str, player_id: str | None = None):
        """The table as ``player_id`` may see it now (:func:`bot.service.turns.view_for`): the
        player to move their working table with the pieces laid or moved so far marked, anybody
        else the public view marking the last turn's pieces. None when the game is not running."""
        live = self.registry.get(game_id)
        if live is None or live.state is None:
            return None
        seat = live.seat_of(player_id) if player_id is not None else None
        return view_for(live, seat, self.pipeline.turns)

    def rack(self, game_id: str, player_id: str) -> list[str]:
        """A seated player's pieces (for that player's eyes only)."""
        live = self.registry.get(game_id)
        if live is None or live.state is None:
            return []
        seat = live.seat_of(player_id)
        return [] if seat is None else [str(f) for f in live.state.rack(seat)]

    def turn_stamp(self, game_id: str) -> str | None:
        """``"<turn number>.<seat to move>"`` of a running game (None otherwise): a front end
        stamps a form with it and refuses the form once the turn has passed."""
        live = self.registry.get(game_id)
        if live is None or live.state is None or live.status != "playing":
            return None
        seat, turn_no = turn_key(live.state)
        return f"{turn_no}.{seat}"

    async def suggestion(self, game_id: str, player_id: str, *, timeout: float = 1.5) -> str | None:
        """The command the game's hint offers the player to move (exactly as they may type
        it), worked out on a copy (nothing is logged or changed); None when help is not
        allowed, it is not their turn, or it takes longer than ``timeout`` seconds."""
        live = self.registry.get(game_id)
        if live is None or live.state is None or live.status != "playing":
            return None
        seat = live.seat_of(player_id)
        if seat is None or seat != live.state.current or not live.rules.help_allowed:
            return None
        state = live.state.copy()

        def work() -> str | None:
            for event in state.apply(seat, "hint"):
                command = (event.params or {}).get("command")
                if isinstance(command, str) and command:
                    return command
            return None

        try:
            return await asyncio.wait_for(asyncio.to_thread(work), timeout)
        except TimeoutError:
            return None
        except Exception:  # a refused hint (e.g. nothing to do yet): no suggestion
            log.debug("no suggestion for %s in %s", player_id, game_id, exc_info=True)
            return None

    def deadline(self, game_id: str) -> float | None:
        live = self.registry.get(game_id)
        return live.deadline if live else None

    async def game_record(self, game_id: str) -> GameRecord | None:
        """The game's record: the live one, else as stored (finished games too), or None.
        Raises ``StoreError`` when the store cannot be read."""
        live = self.registry.get(game_id)
        if live is not None:
            return live.record
        return await self.store.load_game(game_id)

    async def unfinished_records(self) -> list[GameRecord]:
        """Every unfinished game's stored record (lobbies and running games)."""
        return await self.store.load_unfinished_games()

    # ================================================================== players

    async def register_player(self, player_id: str, name: str, locale: str = "en") -> None:
        """Remember a person's display name and language (en/de).

        A player id that is not text the store can keep raises the typed
        :class:`ServiceError` ``input.invalid``; a display name with characters the store
        cannot keep (lone surrogates) is cleaned. When the store cannot write, the person is
        remembered in memory and written at the next registration."""
        await self.people.register(player_id, name, locale)

    async def person(self, player_id: str) -> PlayerRecord | None:
        """What the service knows of a person (name, locale), or None. Raises ``StoreError``
        when the store cannot be read."""
        return await self.people.stored(player_id)

    # ================================================================== adapter data

    async def adapter_data(self, namespace: str, key: str) -> Any | None:
        """A front end's own fact about a game or guild (e.g. Discord's lobby message id), as
        stored under ``namespace``/``key``; None when there is none."""
        return await self.store.kv_get(namespace, key)

    async def adapter_items(self, namespace: str) -> dict[str, Any]:
        """Every fact a front end stored under ``namespace`` (key -> value)."""
        return {row.key: row.value for row in await self.store.kv_items(namespace)}

    async def set_adapter_data(self, namespace: str, key: str, value: Any) -> None:
        """Store a front end's own fact (JSON data) under ``namespace``/``key``."""
        await self.store.kv_put([KvRow(namespace, key, value)])

    async def update_adapter_data(
        self, namespace: str, key: str, change: Callable[[Any | None], Any]
    ) -> Any:
        """``change(stored value or None) -> new value``, read and written in one transaction
        (two processes changing one guild's settings at once lose neither change); returns
        the new value."""

        def compute(rows: list[KvRow]) -> list[KvRow]:
            stored = next((r.value for r in rows if r.key == key), None)
            return [KvRow(namespace, key, change(stored))]

        written = await self.store.kv_update(KvHook((KvRead(namespace, key),), compute))
        return written[0].value

    # ================================================================== pictures

    async def render_table(self, game_id: str, lang: str = "en") -> bytes | None:
        """The running game's table picture in ``lang`` (None without a renderer)."""
        return await self.messages.table_picture(self.view(game_id), lang)

    async def render_view(self, view: Any, lang: str = "en") -> bytes | None:
        """The table picture of a public view (e.g. a :class:`TablePicture`'s ``view``) in
        ``lang`` (None without a renderer or when drawing fails)."""
        return await self.messages.table_picture(view, lang)

    async def render_rack(self, pieces: Sequence[str], lang: str = "en") -> bytes | None:
        """A rack picture in ``lang`` (None without a renderer or when drawing fails)."""
        return await self.messages.rack_picture(pieces, lang)

    async def render_ladder(
        self, rows: Sequence[Mapping[str, Any]], *, title: str | None = None, lang: str = "en"
    ) -> bytes | None:
        """The standings picture (None without a renderer or when drawing fails)."""
        return await self.messages.ladder_picture(rows, title=title, lang=lang)

    # ================================================================== lobby

    async def create_game(
        self,
        host_id: str,
        preset_name: str = DEFAULT_VARIANT,
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
        return await self.lobby.create_game(
            host_id,
            preset_name,
            options,
            guild_id=guild_id,
            channel_id=channel_id,
            thread_id=thread_id,
            game_id=game_id,
            seed=seed,
            seat_host=seat_host,
        )

    async def join(self, game_id: str, player_id: str) -> list[Outgoing]:
        """Take a free seat in a lobby."""
        return await self.lobby.join(game_id, player_id)

    async def leave(self, game_id: str, player_id: str) -> list[Outgoing]:
        """Leave a lobby (the host's role passes on; an empty lobby is cancelled)."""
        return await self.lobby.leave(game_id, player_id)

    async def add_bot(
        self, game_id: str, by: str, level: str = "medium", *, number: int | None = None
    ) -> list[Outgoing]:
        """Seat a computer player (host only): ``easy``, ``medium`` or ``strong``; ``number``
        names it (``bot:<level>:<number>``, "Computer <number>"; default: the next one here)."""
        return await self.lobby.add_bot(game_id, by, level, number)

    async def start_game(self, game_id: str, by: str) -> list[Outgoing]:
        """Deal and begin (host only). Sends racks privately and names who moves first."""
        return await self.lobby.start_game(game_id, by)

    async def rematch(
        self, game_id: str, by: str, *, new_id: str | None = None
    ) -> tuple[str | None, list[Outgoing]]:
        """Start a new game with the same table and rules after a finished game. Asking twice
        (a double click) gives the same new game. ``new_id``: the new game's id (a front end
        that must prepare its place first, e.g. a Discord thread; default: a fresh one)."""
        return await self.lobby.rematch(game_id, by, new_id=new_id)

    async def end_game(self, game_id: str, by: str, reason: str = "ended") -> list[Outgoing]:
        """The host (organiser) ends a running game now; it is scored by what is left."""
        return await self.lobby.end_game(game_id, by, reason)

    # ================================================================== commands

    async def handle(self, game_id: str, player_id: str, text: str) -> list[Outgoing]:
        """Run a player's message of commands. Durable before anything is acknowledged."""
        bad = self.lobby.bad_entry(game_id, player_id)
        if bad is not None:
            return [bad]
        return await self.pipeline.handle(game_id, player_id, text)

    # ================================================================== timers

    async def run_due(self) -> list[Outgoing]:
        """Run every timer that is due now: reminders, time-outs, abandonment, stale lobbies.
        The messages go to the sink and are returned. A game that is busy (its lock is held,
        e.g. a commit on the way) is skipped and checked again at the next tick; the due games
        run side by side, so one slow game never delays the others."""
        return await self.timers.run_due()
