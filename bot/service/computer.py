"""Computer players' turns: each one thinks (in the worker process when it runs the solver),
then moves under the game's lock if the game is still where it was.

A computer seat never hangs a game: a move the engine rejects is replaced by one checked on a
copy (:class:`~bot.service.players.FallbackPlayer`), and failing that the preset's time-out
action runs. The worker's answer is awaited without the game's lock and for at most
``ServiceConfig.think_timeout`` seconds; then a cheaper level chooses on the loop and the
worker is replaced. A seat that keeps failing quarantines its game (``max_failures``).
"""

from __future__ import annotations

import asyncio
import logging
import random

from engine.errors import RummyError

from ..store import StoreError
from .context import ServiceContext, ServicePart
from .outgoing import Outgoing
from .pipeline import CommandPipeline
from .players import FallbackPlayer
from .ports import ComputerPlayer, ComputerPlayers
from .registry import LiveGame, reason_of
from .replay import TIMEOUT
from .thinker import Thinker, ThinkerError

log = logging.getLogger(__name__)

WORKER_LEVELS = frozenset({"medium", "strong"})
"""Computer players whose moves are chosen in the worker process (they run the solver)."""


class ComputerTurns(ServicePart):
    """The computer seats of every live game (see the module docstring)."""

    def __init__(
        self,
        context: ServiceContext,
        pipeline: CommandPipeline,
        *,
        players: ComputerPlayers,
        use_worker: bool,
    ) -> None:
        super().__init__(context)
        self.pipeline = pipeline
        self._player_factory = players
        self._players: dict[str, ComputerPlayer] = {}
        self._fallback = FallbackPlayer()
        self._jitter = random.Random()
        self._use_worker = use_worker
        self.thinker: Thinker | None = self._new_thinker() if use_worker else None

    def _new_thinker(self) -> Thinker:
        return Thinker(restart_after=self.config.worker_restart_after)

    async def close(self) -> None:
        """Stop the worker (a later start may use a fresh one)."""
        if self.thinker is not None:
            await self.thinker.close()
            self.thinker = self._new_thinker()

    def player(self, level: str | None) -> ComputerPlayer:
        key = level or "medium"
        player = self._players.get(key)
        if player is None:
            player = self._players[key] = self._player_factory(key)
        return player

    def schedule(self, live: LiveGame) -> None:
        """Let the computer players move when one of them is to move."""
        if self.registry.stopping or live.status != "playing" or live.state is None:
            return
        if not self.registry.is_live(live):
            return
        if not live.seats[live.state.current].is_bot:
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        live.bot_task = self.registry.spawn(self._loop(live), f"bots-{live.id}")

    async def _loop(self, live: LiveGame) -> None:
        """Computer players move until a person is to move. Survives any error: a seat that
        keeps failing quarantines its game (``max_failures``)."""
        while not self.registry.stopping and self.registry.is_live(live):
            async with live.lock:  # a consistent view: no move is half-way now
                if live.status != "playing" or live.state is None:
                    return
                seat = live.state.current
                if not 0 <= seat < len(live.seats) or not live.seats[seat].is_bot:
                    return
            try:
                out = await self._turn(live, seat)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                live.failures += 1
                log.exception(
                    "computer player of game %s failed (%d in a row)", live.id, live.failures
                )
                if live.failures >= self.config.max_failures:
                    async with live.lock:
                        await self.registry.quarantine(
                            live, f"its computer player keeps failing: {reason_of(exc)}"
                        )
                    return
                await self.clock.sleep(min(30.0, 2.0**live.failures))
                continue
            await self.emit(out)

    async def _turn(self, live: LiveGame, seat: int) -> list[Outgoing]:
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
                not self.registry.is_live(live)
                or live.status != "playing"
                or live.state.current != seat
                or live.seq != seq
            ):
                return []
            return await self._move(live, seat, text, cheap=cheap)

    def _think(self, live: LiveGame, seat: int) -> asyncio.Future[str | None] | None:
        """Ask the worker for the move of ``seat`` on the committed state.
        Only for the levels that use the solver: an ``easy`` move costs less on the loop than
        sending the game to the worker (measured by benchmarks/soak.py)."""
        thinker = self.thinker
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
            if self.thinker is not None:
                self.thinker.replace("it did not answer in time")
            return None, True
        except ThinkerError as exc:
            log.warning("worker could not choose in game %s (%s); choosing here", live.id, exc)
            return None, False

    def _choose_here(self, live: LiveGame, seat: int, *, cheap: bool) -> str | None:
        """The computer player's move chosen on the event loop (``cheap``: the fallback level,
        after the worker failed to answer in time)."""
        level = self.config.think_fallback_level if cheap else live.seats[seat].level
        player = self.player(level)
        try:
            return player.choose(live.state, seat)
        except Exception:
            log.exception("computer player failed in game %s", live.id)
            return None

    async def _move(
        self, live: LiveGame, seat: int, text: str | None = None, *, cheap: bool = False
    ) -> list[Outgoing]:
        activity = live.all_bots
        if text is None:
            text = self._choose_here(live, seat, cheap=cheap)
        for attempt in range(2):
            if text:
                try:
                    return await self.pipeline.play(
                        live, seat, text, activity=activity, reply_to=None
                    )
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
        return await self.pipeline.service_action(live, TIMEOUT, activity=activity)
