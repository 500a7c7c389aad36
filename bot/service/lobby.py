"""The lobby: opening a table, seats (people and computer players), the start, rematches, and
the host ending a running game.

Every change is stored before it is answered; a change that cannot be stored is answered with
``service.save`` and memory is reloaded as the store has it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from engine.ai import LEVELS
from engine.codec import canonical_json
from engine.errors import RummyError
from engine.game import new_game
from engine.rules import RuleSet, preset

from ..store import GameRecord, PlayerRecord, Seat, StoreConflict, StoreError
from .checks import check_options, check_text, is_text
from .context import ServiceContext, ServicePart
from .errors import ServiceError
from .outgoing import ErrorReply, Outgoing, PublicText
from .pipeline import CommandPipeline, deadline_for
from .registry import LiveGame, turn_key
from .replay import END, rules_of

log = logging.getLogger(__name__)

LobbyOp = Callable[[LiveGame, str], Awaitable[list[Outgoing]]]


class Lobby(ServicePart):
    """Tables before they start, and the host's decisions (see the module docstring)."""

    def __init__(self, context: ServiceContext, pipeline: CommandPipeline) -> None:
        super().__init__(context)
        self.pipeline = pipeline
        self._rematch_locks: dict[str, asyncio.Lock] = {}

    def bad_entry(self, game_id: Any, player_id: Any) -> ErrorReply | None:
        """A clean typed error for ids that are not text the store can keep."""
        try:
            check_text(player_id, "player")
            check_text(game_id, "game")
        except ServiceError as exc:
            return self.messages.error(None, player_id if is_text(player_id) else "?", exc, "en")
        return None

    # ------------------------------------------------------------------ a new table

    async def create_game(
        self,
        host_id: str,
        preset_name: str,
        options: dict[str, Any] | None,
        *,
        guild_id: str | None,
        channel_id: str | None,
        thread_id: str | None,
        game_id: str | None,
        seed: int | None,
        seat_host: bool,
    ) -> tuple[str | None, list[Outgoing]]:
        error = self.messages.error
        try:
            check_text(host_id, "host")
        except ServiceError as exc:
            return None, [error(None, "?", exc, "en")]
        lang = await self.people.lang(host_id)
        try:
            for value, what in (
                (game_id, "game"),
                (guild_id, "game"),
                (channel_id, "game"),
                (thread_id, "game"),
            ):
                if value is not None:
                    check_text(value, what)
            check_text(preset_name, "preset")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise ServiceError(
                    "options.invalid",
                    option="seed",
                    value=repr(seed)[:40],
                    expected={"key": "service.expected.whole_number"},
                )
            rules = preset(preset_name)
            if options:
                check_options(rules, options)
                rules = rules.with_options(**options)
        except (RummyError, ServiceError) as exc:
            return None, [error(None, host_id, exc, lang)]
        except (TypeError, ValueError) as exc:  # what the option checks did not foresee
            err = ServiceError(
                "options.invalid",
                option="options",
                value=repr(exc)[:40],
                expected={"key": "service.expected.valid_options"},
            )
            return None, [error(None, host_id, err, lang)]
        registry = self.registry
        if game_id is not None and (game_id in registry.games or game_id in registry.quarantined):
            err = ServiceError("game.not_lobby", game=game_id)
            return None, [error(None, host_id, err, lang)]
        host = await self.people.person(host_id)
        now = self.clock.now()
        record = GameRecord(
            id=game_id or secrets.token_hex(4),
            preset=rules.preset,
            rules_json=canonical_json(rules.to_dict()),
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
            return None, [error(None, host_id, err, lang)]
        except StoreError as exc:
            registry.store_failed(exc)
            log.error("cannot create game %s: %s", record.id, exc)
            return None, [error(None, host_id, ServiceError("service.save"), lang)]
        registry.add(LiveGame(record=record, rules=rules, last_activity=now))
        params = {"host": host.name, "preset": rules.name, "game": record.id}
        return record.id, [PublicText(record.id, "service.opened", params, kind="lobby")]

    # ------------------------------------------------------------------ lobby changes

    async def join(self, game_id: str, player_id: str) -> list[Outgoing]:
        return await self._lobby_op(game_id, player_id, self._join)

    async def leave(self, game_id: str, player_id: str) -> list[Outgoing]:
        return await self._lobby_op(game_id, player_id, self._leave)

    async def add_bot(
        self, game_id: str, by: str, level: str, number: int | None = None
    ) -> list[Outgoing]:
        return await self._lobby_op(
            game_id, by, lambda live, _by: self._add_bot(live, by, level, number)
        )

    async def start_game(self, game_id: str, by: str) -> list[Outgoing]:
        return await self._lobby_op(game_id, by, self._start)

    async def _entry(self, game_id: str, player_id: str) -> tuple[LiveGame | None, str, list]:
        """The live game and the sender's language, or the refusal (ids that are not text,
        no such live game)."""
        bad = self.bad_entry(game_id, player_id)
        if bad is not None:
            return None, "en", [bad]
        lang = await self.people.lang(player_id)
        live = self.registry.get(game_id)
        if live is None:
            err = ServiceError("game.not_found", game=game_id)
            return None, lang, [self.messages.error(game_id, player_id, err, lang)]
        return live, lang, []

    async def _lobby_op(self, game_id: str, player_id: str, op: LobbyOp) -> list[Outgoing]:
        live, lang, refused = await self._entry(game_id, player_id)
        if live is None:
            return refused
        error = self.messages.error
        async with live.lock:
            if live.stale:
                await self.registry.reload(live, "an earlier lobby change's outcome was unknown")
            if live.status != "lobby":
                return [
                    error(game_id, player_id, ServiceError("game.not_lobby", game=game_id), lang)
                ]
            try:
                out = await op(live, player_id)
            except asyncio.CancelledError:
                # a write may still land: the next operation reloads the game first
                live.stale = True
                raise
            except (RummyError, ServiceError) as exc:
                return [error(game_id, player_id, exc, lang)]
            except StoreConflict as exc:  # another process changed the game
                await self.registry.reload(live, f"a lobby change was refused ({exc})")
                return [error(game_id, player_id, ServiceError("service.save"), lang)]
            except StoreError as exc:
                self.registry.store_failed(exc)
                log.error("lobby change of %s could not be saved: %s", game_id, exc)
                if live.status == "lobby":  # memory as the store has it
                    await self.registry.reload(live, "a lobby change was not saved")
                return [error(game_id, player_id, ServiceError("service.save"), lang)]
            except Exception:
                log.exception("lobby change of %s failed", game_id)
                await self.registry.reload(live, "a lobby change failed")
                return [error(game_id, player_id, ServiceError("service.internal"), lang)]
        self.after_move(live)
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
        person = await self.people.person(player_id)
        await self._set_seats(
            live, (*live.seats, Seat(player_id, person.name)), live.record.host_id
        )
        return [self.messages.lobby(live, "service.lobby.join", name=person.name)]

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
            self.registry.forget(live)
            params = {"name": name, "game": live.id}
            return [PublicText(live.id, "service.lobby.closed", params, kind="lobby")]
        host = live.record.host_id if player_id != live.record.host_id else humans[0].player_id
        await self._set_seats(live, seats, host)
        return [self.messages.lobby(live, "service.lobby.leave", name=name)]

    async def _add_bot(
        self, live: LiveGame, by: str, level: str, number: int | None
    ) -> list[Outgoing]:
        _host_only(live, by, "service.action.add_bots")
        level = level.strip().lower()
        if level not in LEVELS:
            raise ServiceError("lobby.bot_level", level=level)
        self._check_room(live)
        if number is None:
            number = sum(1 for s in live.seats if s.is_bot) + 1
        seat = Seat(f"bot:{level}:{number}", f"Computer {number}", True, level)
        if live.seat_of(seat.player_id) is not None:
            raise ServiceError("lobby.seated")
        await self.people.add_bot(PlayerRecord(seat.player_id, seat.name, "en", True))
        await self._set_seats(live, (*live.seats, seat), live.record.host_id)
        return [self.messages.lobby(live, "service.lobby.bot_join", name=seat.name, level=level)]

    async def _start(self, live: LiveGame, by: str) -> list[Outgoing]:
        _host_only(live, by, "service.action.start")
        live.rules.check_players(len(live.seats))
        state = new_game(live.rules, [s.name for s in live.seats], live.record.seed)
        now = self.clock.now()
        key = turn_key(state)
        deadline = deadline_for(live, now)
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
        params = {"preset": live.rules.name, "names": names}
        out: list[Outgoing] = [PublicText(live.id, "service.start", params, kind="start")]
        out += await self.messages.pictures_and_racks(live, changed=list(range(len(live.seats))))
        out.append(self.messages.turn_prompt(live))
        return out

    # ------------------------------------------------------------------ rematch

    async def rematch(
        self, game_id: str, by: str, *, new_id: str | None = None
    ) -> tuple[str | None, list[Outgoing]]:
        bad = self.bad_entry(game_id, by)
        if bad is None and new_id is not None:
            bad = self.bad_entry(new_id, by)
        if bad is not None:
            return None, [bad]
        try:
            return await self._rematch(game_id, by, new_id)
        except StoreError as exc:
            self.registry.store_failed(exc)
            log.error("rematch of %s failed: %s", game_id, exc)
            lang = self.people.cached_lang(by)
            return None, [self.messages.error(game_id, by, ServiceError("service.save"), lang)]

    async def _rematch(
        self, game_id: str, by: str, new_id: str | None
    ) -> tuple[str | None, list[Outgoing]]:
        error = self.messages.error
        lang = await self.people.lang(by)
        record = await self.store.load_game(game_id)
        if record is None:
            return None, [error(game_id, by, ServiceError("game.not_found", game=game_id), lang)]
        live = self.registry.get(game_id)
        lock = (
            live.lock
            if live is not None
            else self._rematch_locks.setdefault(game_id, asyncio.Lock())
        )
        async with lock:
            record = await self.store.load_game(game_id) or record
            if record.status != "finished":
                code = "game.not_finished"
                return None, [error(game_id, by, ServiceError(code, game=game_id), lang)]
            if all(s.player_id != by for s in record.seats):
                return None, [error(game_id, by, ServiceError("lobby.not_seated"), lang)]
            existing = record.meta.get("rematch")
            if existing:
                params = {"game": existing}
                return existing, [
                    PublicText(game_id, "service.rematch.exists", params, kind="lobby")
                ]
            rules = rules_of(record)
            if new_id is not None and (
                new_id in self.registry.games or await self.store.load_game(new_id) is not None
            ):
                err = ServiceError("game.not_lobby", game=new_id)  # that id exists already
                return None, [error(game_id, by, err, lang)]
            new_id, out = await self._create_started(record, rules, by, new_id)
            if new_id is None:
                return None, out
            await self.store.update_meta(
                game_id, {**record.meta, "rematch": new_id}, at=self.clock.now()
            )
        self.after_move(self.registry.games[new_id])
        return new_id, out

    async def _create_started(
        self, old: GameRecord, rules: RuleSet, by: str, new_id: str | None = None
    ) -> tuple[str | None, list[Outgoing]]:
        now = self.clock.now()
        record = GameRecord(
            id=new_id or secrets.token_hex(4),
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
        lang = await self.people.lang(by)
        try:
            await self.store.create_game(record)
        except StoreError:
            log.exception("rematch of %s could not be created", old.id)
            return None, [self.messages.error(old.id, by, ServiceError("service.store"), lang)]
        live = LiveGame(record=record, rules=rules, last_activity=now)
        self.registry.add(live)
        async with live.lock:
            try:
                out = await self._start(live, by)
            except (RummyError, ServiceError, StoreError) as exc:
                log.exception("rematch of %s could not start", old.id)
                err = exc if not isinstance(exc, StoreError) else ServiceError("service.store")
                return None, [self.messages.error(old.id, by, err, lang)]
        params = {"old": old.id, "game": record.id}
        head = PublicText(record.id, "service.rematch.new", params, kind="lobby")
        return record.id, [head, *out]

    # ------------------------------------------------------------------ the host ends it

    async def end_game(self, game_id: str, by: str, reason: str) -> list[Outgoing]:
        live, lang, refused = await self._entry(game_id, by)
        if live is None:
            return refused
        error = self.messages.error
        async with live.lock:
            try:
                _host_only(live, by, "service.action.end")
            except ServiceError as exc:
                return [error(game_id, by, exc, lang)]
            if live.status != "playing":
                return [error(game_id, by, ServiceError("game.not_playing", game=game_id), lang)]
            reason = "abandoned" if reason == "abandoned" else "ended"
            out = await self.pipeline.service_action(live, f"{END} {reason}", activity=True)
            if not out and live.status == "quarantined":
                err = ServiceError("game.quarantined", game=game_id)
                return [error(game_id, by, err, lang)]
            if not out and live.status == "playing":
                return [error(game_id, by, ServiceError("service.save"), lang)]
            return out


def _host_only(live: LiveGame, by: str, action: str) -> None:
    """Only the host may do ``action`` (an i18n key naming it)."""
    if by != live.record.host_id:
        raise ServiceError("lobby.host_only", action={"key": action})
