"""The command pipeline: one message of commands from check to durable commit to messages.

Data flow for one command: :meth:`CommandPipeline.handle` -> ``state.apply`` (engine) ->
events -> :meth:`~bot.store.Store.append_command` (log row + snapshot + deadline + results +
league rows in one durable transaction) -> only then the messages (text, table picture,
private racks, whose turn). A rejected command changes nothing and is answered to the sender
only, in their language. If the store cannot write, the in-memory game goes back to its last
committed state, so memory and disk never disagree about an acknowledged move.

Service actions (``!timeout``, ``!end``) go through the same pipeline
(:meth:`CommandPipeline.service_action`): they are logged and replayed like commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import RummyError
from engine.game import Result, load_game

from ..store import (
    CommandWrite,
    GameRecord,
    KvHook,
    KvRow,
    ResultRow,
    StoreConflict,
    StoreError,
    StoreOwnerLost,
)
from .checks import check_text
from .context import ServiceContext, ServicePart
from .errors import ServiceError
from .outgoing import ErrorReply, GameOver, Outgoing, TurnPrompt
from .ports import NO_METRICS, Metrics
from .registry import GameDamaged, LiveGame, reason_of, turn_key
from .replay import TIMEOUT, apply_logged
from .turns import TurnTracker

log = logging.getLogger(__name__)

CommitHook = Callable[[str, int, int | None, str, float], None]
ResultHook = Callable[[GameRecord, Result, float], Sequence[KvRow]]


class _Unknown(Exception):
    """A write whose outcome is unknown (the game is reloaded before it is used again)."""


def deadline_for(live: LiveGame, now: float) -> float | None:
    """The turn's deadline when it starts ``now`` (None: the preset has no turn timer)."""
    seconds = live.rules.turn_seconds
    return None if not seconds else now + float(seconds)


def _rack_of(live: LiveGame, seat: int) -> list[str]:
    return [str(f) for f in live.state.rack(seat)]


def _human_racks(live: LiveGame) -> dict[int, list[str]]:
    return {i: _rack_of(live, i) for i, s in enumerate(live.seats) if not s.is_bot}


def _with_moves(message: Outgoing, moves: Any) -> Outgoing:
    """The turn-end message carrying what the turn did (:mod:`bot.service.turns`)."""
    if moves is None:
        return message
    return dataclasses.replace(message, moves=moves)


#: error replies that say the service failed (not that the command was wrong)
FAILED_CODES = frozenset({"service.store", "service.internal", "game.quarantined"})


def outcome_of(out: Sequence[Outgoing]) -> str:
    """A command's outcome for the metrics, from its answer: ``failed``, ``refused`` or
    ``accepted``."""
    errors = [o.code for o in out if isinstance(o, ErrorReply)]
    if any(code in FAILED_CODES for code in errors):
        return "failed"
    return "refused" if errors else "accepted"


class CommandPipeline(ServicePart):
    """Commands and service actions, applied, committed and answered (see the module)."""

    def __init__(
        self,
        context: ServiceContext,
        *,
        on_commit: CommitHook | None = None,
        result_hooks: Sequence[ResultHook] = (),
        metrics: Metrics | None = None,
    ) -> None:
        super().__init__(context)
        self.on_commit = on_commit
        self.result_hooks = list(result_hooks)
        self.metrics: Metrics = metrics or NO_METRICS
        self.turns = TurnTracker()  # what each turn did, told when it passes (turns.py)

    async def handle(self, game_id: str, player_id: str, text: str) -> list[Outgoing]:
        """A player's message of commands (see :meth:`GameService.handle`), counted for the
        operations metrics (its outcome and latency)."""
        started = time.perf_counter()
        outcome = "failed"
        try:
            out = await self._handle(game_id, player_id, text)
            outcome = outcome_of(out)
            return out
        except asyncio.CancelledError:
            outcome = ""
            raise
        finally:
            if outcome:
                self.metrics.command(outcome, time.perf_counter() - started)

    async def _handle(self, game_id: str, player_id: str, text: str) -> list[Outgoing]:
        error = self.messages.error
        lang = await self.people.lang(player_id)
        live = self.registry.get(game_id)
        if live is None:
            record = None
            with contextlib.suppress(StoreError):
                record = await self.store.load_game(game_id)
            err: RummyError | ServiceError
            if game_id in self.registry.quarantined:
                err = ServiceError("game.quarantined", game=game_id)
            elif record is not None and record.status == "finished":
                err = RummyError("game.over")
            else:
                err = ServiceError("game.not_found", game=game_id)
            return [error(game_id, player_id, err, lang)]
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        text = text.strip()
        try:
            if not text:
                raise ServiceError("command.empty")
            limit = self.config.max_command_length
            if len(text) > limit:
                raise ServiceError("command.too_long", length=len(text), maximum=limit)
            check_text(text, "text", limit=None)
            if text.startswith("!"):
                raise ServiceError("command.reserved", token=text.split()[0][:20])
        except ServiceError as exc:
            return [error(game_id, player_id, exc, lang)]
        async with live.lock:
            if live.stale:
                await self.registry.reload(live, "an earlier write's outcome was unknown")
                if live.stale:
                    return [error(game_id, player_id, ServiceError("service.store"), lang)]
            if live.status == "quarantined":
                err2 = ServiceError("game.quarantined", game=game_id)
                return [error(game_id, player_id, err2, lang)]
            if live.status == "lobby":
                exc2 = ServiceError("game.not_playing", game=game_id)
                return [error(game_id, player_id, exc2, lang)]
            if live.status != "playing" or live.state is None:
                return [error(game_id, player_id, RummyError("game.over"), lang)]
            seat = live.seat_of(player_id)
            if seat is None:
                return [error(game_id, player_id, RummyError("turn.not_seated"), lang)]
            out = await self.play(live, seat, text, activity=True, reply_to=player_id)
        self.after_move(live)
        return out

    async def play(
        self, live: LiveGame, seat: int | None, text: str, *, activity: bool, reply_to: str | None
    ) -> list[Outgoing]:
        """:meth:`_play`; a computer move or service action (``reply_to`` None) is counted for
        the operations metrics here, a person's message by :meth:`handle`."""
        if reply_to is not None:
            return await self._play(live, seat, text, activity=activity, reply_to=reply_to)
        started = time.perf_counter()
        outcome = "failed"
        try:
            out = await self._play(live, seat, text, activity=activity, reply_to=reply_to)
            outcome = outcome_of(out)
            return out
        except RummyError:
            outcome = "refused"
            raise
        except asyncio.CancelledError:
            outcome = ""
            raise
        finally:
            if outcome:
                self.metrics.command(outcome, time.perf_counter() - started)

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
        lang = self.people.cached_lang(reply_to) if reply_to else "en"
        error = self.messages.error
        racks_before = _human_racks(live)
        key_before = live.turn_key
        self.turns.before(live)
        try:
            if text.startswith("!"):
                events = apply_logged(state, seat, text)
            else:
                events = state.apply(seat, text)
        except RummyError as exc:
            if reply_to is None:
                raise
            return [error(live.id, reply_to, exc, lang)]
        except Exception:
            log.exception("engine failed on %r in game %s; state restored", text, live.id)
            live.state = load_game(live.json)
            if reply_to is None:
                raise
            return [error(live.id, reply_to, ServiceError("service.internal"), lang)]
        try:
            snapshot = state.to_json()
            if snapshot == live.json:
                # nothing changed (a hint): nothing to log or replay
                return self.messages.events(live, events, public=False)
            logged = state.log_form(text)  # a service action (``!``) is its own text
            write, after = self._command_write(live, seat, logged, activity, snapshot, key_before)
        except Exception as exc:
            # e.g. a result that does not fit the seats: memory goes back with the database,
            # and the game, which cannot be continued, is set aside
            live.state = load_game(live.json)
            await self.registry.quarantine(live, f"{text!r} cannot be recorded: {reason_of(exc)}")
            if reply_to is None:
                raise GameDamaged(str(exc)) from exc
            err = ServiceError("game.quarantined", game=live.id)
            return [error(live.id, reply_to, err, lang)]
        failure, cancelled = await self._commit(write)
        if failure is not None:
            await self._not_committed(live, write, failure)
            if cancelled:
                raise asyncio.CancelledError
            if reply_to is None:
                raise failure
            return [error(live.id, reply_to, ServiceError("service.store"), lang)]
        # ---- durable from here on: memory follows before anything else can fail
        finished = write.status != "playing"
        key = turn_key(state)
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
            self.registry.forget(live)
        for step in after:  # e.g. the league's cache: only now that the rows are stored
            try:
                step()
            except Exception:
                log.exception("after-commit step failed in game %s", live.id)
        if self.on_commit is not None:
            try:
                self.on_commit(live.id, write.seq, seat, write.text, time.perf_counter() - started)
            except Exception:
                log.exception("on_commit hook failed")
        try:
            moves = self.turns.after(live, events)
        except Exception:
            log.exception("the moves of command %d of game %s were not told", write.seq, live.id)
            moves = None
        try:
            out = self.messages.events(live, events, public=True)
            if finished:
                out.append(_with_moves(self.messages.game_over(live), moves))
            elif key != key_before:
                out.append(_with_moves(self.messages.turn_prompt(live), moves))
        except Exception:
            log.exception("messages for command %d of game %s failed", write.seq, live.id)
            out = []
        if cancelled:  # the caller is gone: the players still hear of the move
            self.registry.spawn(self.emit(out), f"messages-{live.id}")
            raise asyncio.CancelledError
        changed = [s for s, rack in racks_before.items() if rack != _rack_of(live, s)]
        try:
            pictures = await self.messages.pictures_and_racks(
                live, changed=changed, moves=moves or self.turns.shown(live)
            )
        except Exception:
            log.exception("pictures and racks for game %s failed", live.id)
            pictures = []
        # pictures and racks go before the game-over / turn lines, as before
        tail = [o for o in out if isinstance(o, GameOver | TurnPrompt)]
        head = [o for o in out if not isinstance(o, GameOver | TurnPrompt)]
        return head + pictures + tail

    async def service_action(self, live: LiveGame, text: str, *, activity: bool) -> list[Outgoing]:
        """A ``!`` action (time-out, end); a failure is logged, never raised (a game whose
        actions keep failing is quarantined)."""
        if live.status != "playing" or live.state is None:
            return []
        seat = live.state.current if text == TIMEOUT else None
        try:
            out = await self.play(live, seat, text, activity=activity, reply_to=None)
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
            if live.failures >= self.config.max_failures and self.registry.is_live(live):
                await self.registry.quarantine(live, f"{text} keeps failing: {reason_of(exc)}")
            return []
        return out

    # ------------------------------------------------------------------ the write

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
        key = turn_key(state)
        if finished:
            deadline = None
        elif key == key_before and live.deadline is not None:
            deadline = live.deadline
        else:
            deadline = deadline_for(live, now)
        keep_reminder = deadline == live.deadline and live.reminder_sent and not finished
        results: tuple[ResultRow, ...] = ()
        kv: tuple[KvRow, ...] = ()
        kv_hooks: tuple[KvHook, ...] = ()
        after: list[Callable[[], None]] = []
        if finished and state.result is not None:
            results = self.result_rows(live, state.result, now)
            kv, after, kv_hooks = self._hook_rows(live, state.result, now)
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
            kv_hooks=kv_hooks,
        )
        return write, after

    async def _commit(self, write: CommandWrite) -> tuple[BaseException | None, bool]:
        """Write and wait: (the error or None, whether the caller was cancelled meanwhile).

        The store queues the write before it first waits (no loop round trip, so it joins
        the group commit under way) and commits it, or fails, even when the caller is
        cancelled. A cancelled caller reads the outcome back from the database: the store
        answers a read only after the writes queued before it."""
        began = time.perf_counter()
        try:
            await self.store.append_command(write)
            self.metrics.store_commit(time.perf_counter() - began)
            return None, False
        except asyncio.CancelledError:
            pass
        except BaseException as exc:
            return exc, False
        while True:  # however often the caller is cancelled meanwhile
            try:
                logged = await self.store.commands(write.game_id, after_seq=write.seq - 1)
                break
            except asyncio.CancelledError:
                continue
            except StoreError as exc:
                return _Unknown(f"command {write.seq} cannot be read back: {exc}"), True
        # the log row at this seq decides: none, not saved; this write's (seat, text, time),
        # saved; another one (a process that took the game over logged its own), a conflict
        row = next((c for c in logged if c.seq == write.seq), None)
        if row is None:
            return StoreError(f"command {write.seq} of game {write.game_id} was not saved"), True
        if (row.seat, row.text, row.at) == (write.seat, write.text, write.at):
            return None, True
        return StoreConflict(f"game {write.game_id} logged another command {write.seq}"), True

    async def _not_committed(
        self, live: LiveGame, write: CommandWrite, error: BaseException
    ) -> None:
        """Memory after a write that did not commit (or whose outcome is unknown)."""
        if isinstance(error, StoreOwnerLost):
            self.registry.store_failed(error)
            live.state = load_game(live.json)
        elif isinstance(error, StoreConflict):
            await self.registry.reload(live, f"command {write.seq} was refused ({error})")
        elif isinstance(error, StoreError):
            self.registry.store_failed(error)
            log.error("command %d of game %s could not be stored: %s", write.seq, live.id, error)
            live.state = load_game(live.json)  # nothing was written
        else:
            log.error(
                "command %d of game %s: the write's outcome is unknown",
                write.seq,
                live.id,
                exc_info=error,
            )
            await self.registry.reload(live, "a write's outcome is unknown")

    def _hook_rows(
        self, live: LiveGame, result: Result, now: float
    ) -> tuple[tuple[KvRow, ...], list[Callable[[], None]], tuple[KvHook, ...]]:
        """The result hooks' rows, their ``committed`` callbacks (a hook may return rows with a
        ``committed()`` method, called once the rows are stored) and their ``kv_hooks`` (rows
        computed by the store inside the transaction, e.g. the league's)."""
        rows: list[KvRow] = []
        after: list[Callable[[], None]] = []
        in_transaction: list[KvHook] = []
        for hook in self.result_hooks:
            try:
                found = hook(live.record, result, now)
                rows += found
                in_transaction += getattr(found, "kv_hooks", ())
            except Exception:
                log.exception("result hook failed for game %s", live.id)
                continue
            committed = getattr(found, "committed", None)
            if callable(committed):
                after.append(committed)
        return tuple(rows), after, tuple(in_transaction)

    def result_rows(self, live: LiveGame, result: Result, now: float) -> tuple[ResultRow, ...]:
        """The finished game's result rows, one per seat."""
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
