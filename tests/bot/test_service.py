"""The game service over a real SQLite file and the real tile engine.

Seed 1 with two players (Alice, Bob) deals Rummikub so that Alice (seat 0) starts holding
B9 B10 B11: exactly the 30 points an opening needs.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from bot.service import (
    ErrorReply,
    GameOver,
    GameService,
    ManualClock,
    PrivateRack,
    PrivateText,
    PublicText,
    ServiceConfig,
    TurnPrompt,
)
from bot.service.soak import verify_game
from bot.store import SqliteStore

T0 = 1_700_000_000.0


class Harness:
    """A store, a service with a manual clock, and everything the sink received."""

    def __init__(self, path: Path, **config) -> None:
        self.path = path
        self.clock = ManualClock(T0)
        self.config = ServiceConfig(pictures=False, bot_pause=0.0, **config)
        self.sent: list = []
        self.store: SqliteStore | None = None
        self.service: GameService | None = None

    async def open(self, **kwargs) -> GameService:
        self.store = SqliteStore(self.path)
        await self.store.open()
        self.service = GameService(
            self.store, config=self.config, clock=self.clock, sink=self.sent.extend, **kwargs
        )
        await self.service.start(run_timers=False)
        return self.service

    async def close(self) -> None:
        await self.service.stop()
        await self.store.close()


@pytest.fixture
async def h(tmp_path: Path):
    harness = Harness(tmp_path / "service.sqlite3")
    await harness.open()
    yield harness
    await harness.close()


async def seat_people(service: GameService) -> None:
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "de")
    await service.register_player("carol", "Carol", "en")


async def two_player_game(service: GameService, preset: str = "rummikub", seed: int = 1) -> str:
    await seat_people(service)
    game_id, out = await service.create_game("alice", preset, seed=seed, channel_id="c1")
    assert game_id and isinstance(out[0], PublicText)
    assert not errors(await service.join(game_id, "bob"))
    started = await service.start_game(game_id, "alice")
    assert not errors(started)
    return game_id


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


def only_error(out: list) -> ErrorReply:
    assert len(out) == 1 and isinstance(out[0], ErrorReply), out
    return out[0]


def assert_private_to_owner(service: GameService, game_id: str, out: list) -> None:
    """Every private message names its owner, and a rack message holds that owner's rack."""
    seated = {s.player_id for s in service.seats(game_id)}
    for m in out:
        if isinstance(m, PrivateRack):
            assert m.to in seated
            assert list(m.pieces) == service.rack(game_id, m.to)
        if isinstance(m, PrivateText | ErrorReply):
            assert m.to in seated | {"carol", "alice", "bob"}


# ------------------------------------------------------------------------------ lobby


async def test_lobby(h: Harness):
    s = h.service
    await seat_people(s)
    game_id, _ = await s.create_game("alice", "rummikub")
    assert only_error(await s.join(game_id, "alice")).code == "lobby.seated"
    assert only_error(await s.add_bot(game_id, "carol")).code == "lobby.host_only"
    assert only_error(await s.add_bot(game_id, "alice", "genius")).code == "lobby.bot_level"
    assert only_error(await s.start_game(game_id, "alice")).code == "rules.players"
    assert not errors(await s.join(game_id, "bob"))
    bob_err = only_error(await s.start_game(game_id, "bob"))
    assert bob_err.code == "lobby.host_only" and "Nur der Gastgeber" in bob_err.text
    assert not errors(await s.add_bot(game_id, "alice", "easy"))
    assert not errors(await s.add_bot(game_id, "alice", "strong"))
    assert only_error(await s.join(game_id, "carol")).code == "lobby.full"
    # the host leaves: Bob hosts now
    assert not errors(await s.leave(game_id, "alice"))
    assert only_error(await s.leave(game_id, "alice")).code == "lobby.not_seated"
    assert [x.player_id for x in s.seats(game_id)] == ["bob", "bot:easy:1", "bot:strong:2"]
    assert not errors(await s.start_game(game_id, "bob"))
    assert s.status(game_id) == "playing"
    assert only_error(await s.join(game_id, "carol")).code == "game.not_lobby"
    record = await h.store.load_game(game_id)
    assert record.status == "playing" and len(record.seats) == 3


async def test_unknown_preset_options_and_last_one_out(h: Harness):
    s = h.service
    await seat_people(s)
    game_id, out = await s.create_game("bob", "skat")
    assert game_id is None and "ist keine Variante" in only_error(out).text
    game_id, out = await s.create_game("alice", "rummikub", {"turn_seconds": 5})
    assert game_id is None and only_error(out).code == "rules.option"
    game_id, _ = await s.create_game("alice", "stein", {"turn_seconds": 60})
    await s.leave(game_id, "alice")
    assert s.status(game_id) is None
    assert (await h.store.load_game(game_id)).status == "cancelled"


# ------------------------------------------------------------------------------ commands


async def test_accepted_command_is_stored_then_announced(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    out = await s.handle(game_id, "alice", "meld B9 B10 B11; done")
    assert not errors(out)
    record = await h.store.load_game(game_id)
    commands = await h.store.commands(game_id)
    assert record.seq == 1 and [(c.seat, c.text) for c in commands] == [
        (0, "meld B9 B10 B11; done")
    ]
    assert record.snapshot_json == s.registry.games[game_id].state.to_json()
    public = [m for m in out if isinstance(m, PublicText)]
    assert "Alice has opened." in public[0].text and "Alice hat eröffnet." in public[0].text_de
    racks = [m for m in out if isinstance(m, PrivateRack)]
    assert [r.to for r in racks] == ["alice"] and len(racks[0].pieces) == 11
    prompt = [m for m in out if isinstance(m, TurnPrompt)]
    assert [(p.player_id, p.seat) for p in prompt] == [("bob", 1)]
    assert_private_to_owner(s, game_id, out)
    # Bob (German) draws: only Bob learns which tile, in German
    out = await s.handle(game_id, "bob", "draw")
    private = [m for m in out if isinstance(m, PrivateText)]
    assert [m.to for m in private] == ["bob"] and private[0].text.startswith("Du hast")
    public = [m for m in out if isinstance(m, PublicText)]
    assert all("Du hast" not in m.text_de for m in public)
    assert [r.to for r in out if isinstance(r, PrivateRack)] == ["bob"]
    assert_private_to_owner(s, game_id, out)


async def test_rejections_change_nothing(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    before = s.registry.games[game_id].state.to_json()
    racks = (s.rack(game_id, "alice"), s.rack(game_id, "bob"))
    not_yours = only_error(await s.handle(game_id, "bob", "draw"))
    assert not_yours.to == "bob" and not_yours.text == "Du bist nicht dran: Alice ist am Zug."
    cases = {
        "meld R1 R2": "meld.too_short",
        "meld B9 B10 B11": None,  # accepted into the working copy... checked separately
        "R14": "parse.command",
        "meld R14 R1 R2": "parse.piece",
        "": "command.empty",
        "   ": "command.empty",
        "!timeout": "command.reserved",
        "x" * 5000: "command.too_long",
        "discard R5": "turn.no_discard",
        "add 4 R5": "meld.no_such",
    }
    for text, code in cases.items():
        if code is None:
            continue
        reply = only_error(await s.handle(game_id, "alice", text))
        assert (reply.code, reply.to) == (code, "alice"), text
        assert reply.text and "Traceback" not in reply.text
    assert only_error(await s.handle(game_id, "carol", "draw")).code == "turn.not_seated"
    assert only_error(await s.handle("nope", "alice", "draw")).code == "game.not_found"
    assert s.registry.games[game_id].state.to_json() == before
    assert (s.rack(game_id, "alice"), s.rack(game_id, "bob")) == racks
    assert (await h.store.load_game(game_id)).seq == 0
    assert await h.store.commands(game_id) == []


async def test_two_players_and_a_double_click_at_the_same_moment(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    first, second, bob = await asyncio.gather(
        s.handle(game_id, "alice", "draw"),
        s.handle(game_id, "alice", "draw"),
        s.handle(game_id, "bob", "draw"),
    )
    assert not errors(first)
    assert only_error(second).code == "turn.not_yours"
    assert not errors(bob)
    commands = await h.store.commands(game_id)
    assert [(c.seq, c.seat, c.text) for c in commands] == [(1, 0, "draw"), (2, 1, "draw")]
    assert await verify_game(h.store, await h.store.load_game(game_id)) == []


async def test_many_games_in_parallel_keep_their_own_order(h: Harness):
    s = h.service
    ids = [await two_player_game(s, seed=1) for _ in range(5)]
    rounds = [
        asyncio.gather(*(s.handle(g, p, "draw") for g in ids for p in ("alice", "bob")))
        for _ in range(3)
    ]
    for batch in rounds:
        await batch
    for game_id in ids:
        record = await h.store.load_game(game_id)
        assert record.seq == 6
        assert await verify_game(h.store, record) == []


async def test_partial_turn_then_reset_and_hint_free(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    out = await s.handle(game_id, "alice", "meld B9 B10 B11")
    private = [m for m in out if isinstance(m, PrivateText)]
    assert [m.to for m in private] == ["alice"] and "working table" in private[0].text
    assert not [m for m in out if isinstance(m, PublicText)]  # Bob sees nothing yet
    assert (await h.store.load_game(game_id)).seq == 1
    assert not errors(await s.handle(game_id, "alice", "reset"))
    assert not errors(await s.handle(game_id, "alice", "draw"))
    assert await verify_game(h.store, await h.store.load_game(game_id)) == []


# ------------------------------------------------------------------------------ timers


async def test_turn_timer_reminder_and_timeout(h: Harness):
    s = h.service
    game_id = await two_player_game(s)  # Rummikub: 120 s per turn, 3 penalty tiles
    assert s.deadline(game_id) == T0 + 120
    h.clock.advance(10)
    await s.handle(game_id, "alice", "meld B9 B10 B11")  # same turn: same deadline
    assert s.deadline(game_id) == T0 + 120
    h.clock.advance(70)
    assert await s.run_due() == []
    h.clock.advance(11)  # 29 s left: remind once
    reminder = await s.run_due()
    assert len(reminder) == 1 and isinstance(reminder[0], TurnPrompt)
    assert reminder[0].player_id == "alice" and "29 seconds left" in reminder[0].text
    assert (await h.store.load_game(game_id)).reminder_sent
    assert await s.run_due() == []
    h.clock.advance(30)
    out = await s.run_due()
    assert h.sent[-len(out) :] == out
    text = " ".join(m.text for m in out if isinstance(m, PublicText))
    assert "Alice ran out of time." in text and "3 penalty tiles" in text
    assert len(s.rack(game_id, "alice")) == 17  # the melded tiles came back, plus 3
    commands = await h.store.commands(game_id)
    assert [c.text for c in commands] == ["meld B9 B10 B11", "!timeout"]
    record = await h.store.load_game(game_id)
    assert record.deadline == T0 + 121 + 120 and not record.reminder_sent
    assert [m.player_id for m in out if isinstance(m, TurnPrompt)] == ["bob"]
    assert await verify_game(h.store, record) == []


async def test_abandoned_when_nobody_plays(tmp_path: Path):
    h = Harness(tmp_path / "a.sqlite3", abandon_after=3600)
    s = await h.open()
    game_id = await two_player_game(s)
    await s.handle(game_id, "alice", "draw")
    h.clock.advance(1800)
    await s.handle(game_id, "bob", "draw")
    h.clock.advance(3599)  # timeouts keep happening but are no activity
    for _ in range(3):
        await s.run_due()
    assert s.status(game_id) == "playing"
    h.clock.advance(2)
    out = await s.run_due()
    over = [m for m in out if isinstance(m, GameOver)]
    assert over and over[0].reason == "abandoned"
    assert over[0].result["player_ids"] == ["alice", "bob"]
    record = await h.store.load_game(game_id)
    assert record.status == "finished"
    rows = await h.store.results(game_id)
    assert [r.player_id for r in rows] == ["alice", "bob"] and {r.reason for r in rows} == {
        "abandoned"
    }
    assert (await h.store.commands(game_id))[-1].text == "!end abandoned"
    assert await verify_game(h.store, record) == []
    assert only_error(await s.handle(game_id, "alice", "draw")).code == "game.over"
    await h.close()


async def test_stale_lobby_is_cancelled(tmp_path: Path):
    h = Harness(tmp_path / "l.sqlite3", lobby_expiry=600)
    s = await h.open()
    await seat_people(s)
    game_id, _ = await s.create_game("alice", "rummikub")
    h.clock.advance(601)
    out = await s.run_due()
    assert "never started" in out[0].text
    assert (await h.store.load_game(game_id)).status == "cancelled"
    await h.close()


# ------------------------------------------------------------------------------ end, rematch


async def test_end_and_rematch(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    assert only_error((await s.rematch(game_id, "alice"))[1]).code == "game.not_finished"
    assert only_error(await s.end_game(game_id, "bob")).code == "lobby.host_only"
    out = await s.end_game(game_id, "alice")
    assert [m.reason for m in out if isinstance(m, GameOver)] == ["ended"]
    assert len(await h.store.results(game_id)) == 2
    (_, refused) = await s.rematch(game_id, "carol")
    assert only_error(refused).code == "lobby.not_seated"
    (a, out_a), (b, out_b) = await asyncio.gather(
        s.rematch(game_id, "bob"), s.rematch(game_id, "bob")
    )
    assert a == b and a is not None and a != game_id
    assert s.status(a) == "playing"
    assert [x.player_id for x in s.seats(a)] == ["alice", "bob"]
    assert (await h.store.load_game(game_id)).meta["rematch"] == a
    assert (await h.store.load_game(a)).meta["rematch_of"] == game_id
    racks = [m.to for m in out_a + out_b if isinstance(m, PrivateRack)]
    assert sorted(racks) == ["alice", "bob"]  # dealt once, racks sent once


# ------------------------------------------------------------------------------ resume


async def test_resume_after_restart_with_its_timer(tmp_path: Path):
    path = tmp_path / "resume.sqlite3"
    first = Harness(path)
    s = await first.open()
    game_id = await two_player_game(s)
    first.clock.advance(5)
    await s.handle(game_id, "alice", "meld B9 B10 B11; done")
    first.clock.advance(20)
    await s.handle(game_id, "bob", "meld R1 R2")  # rejected: nothing stored
    state = s.registry.games[game_id].state.to_json()
    racks = (s.rack(game_id, "alice"), s.rack(game_id, "bob"))
    await first.close()

    second = Harness(path)
    second.clock = first.clock  # the same time line
    s2 = await second.open()
    assert s2.status(game_id) == "playing"
    assert s2.registry.games[game_id].state.to_json() == state
    assert (s2.rack(game_id, "alice"), s2.rack(game_id, "bob")) == racks
    assert s2.deadline(game_id) == T0 + 5 + 120
    second.clock.advance(101)
    out = await s2.run_due()
    assert any("Bob ran out of time." in m.text for m in out if isinstance(m, PublicText))
    assert [c.text for c in await second.store.commands(game_id)] == [
        "meld B9 B10 B11; done",
        "!timeout",
    ]
    assert not errors(await s2.handle(game_id, "alice", "draw"))
    await second.close()


async def test_resume_lets_a_computer_player_go_on(tmp_path: Path):
    path = tmp_path / "bots.sqlite3"
    first = Harness(path)
    first.config.bot_pause = 30.0  # the computer waits on the (manual) clock
    s = await first.open()
    await seat_people(s)
    game_id, _ = await s.create_game("alice", "rummikub", seed=1)
    await s.add_bot(game_id, "alice", "easy")
    await s.start_game(game_id, "alice")
    if s.registry.games[game_id].state.current == 0:
        await s.handle(game_id, "alice", "draw")
    assert s.registry.games[game_id].state.current == 1
    await first.close()  # stopped while the computer was "thinking"

    second = Harness(path)
    second.clock = first.clock
    second.config.bot_pause = 30.0
    s2 = await second.open()
    before = (await second.store.load_game(game_id)).seq
    second.clock.advance(46)  # the pause is jittered: 0.5 to 1.5 times 30 s
    for _ in range(50):
        await asyncio.sleep(0)
        if s2.registry.games[game_id].state.current == 0:
            break
    await s2.wait_idle()
    assert s2.registry.games[game_id].state.current == 0
    assert (await second.store.load_game(game_id)).seq == before + 1
    await second.close()


# ------------------------------------------------------------------------------ computer players


async def test_a_game_with_computer_players_runs_to_the_end(h: Harness):
    s = h.service
    await seat_people(s)
    game_id, _ = await s.create_game("alice", "stein", seed=3)
    await s.add_bot(game_id, "alice", "easy")
    await s.add_bot(game_id, "alice", "medium")
    await s.start_game(game_id, "alice")
    for _ in range(300):
        await s.wait_idle()
        if s.status(game_id) != "playing":
            break
        rack = s.rack(game_id, "alice")
        for draws in ("draw; draw", "pick; draw", "pick", "draw"):  # the pool may run dry
            if not errors(await s.handle(game_id, "alice", f"{draws}; discard {rack[0]}")):
                break
    await s.wait_idle()
    record = await h.store.load_game(game_id)
    assert record.status == "finished"
    assert await verify_game(h.store, record) == []
    assert all(m.to == "alice" for m in h.sent if isinstance(m, PrivateRack | PrivateText))
    assert any(isinstance(m, GameOver) for m in h.sent)


class BrokenPlayer:
    def choose(self, state, seat):
        raise RuntimeError("the AI fell over")


class IllegalPlayer:
    def choose(self, state, seat):
        return "meld R1 R1 R1"


@pytest.mark.parametrize("player", [BrokenPlayer, IllegalPlayer])
async def test_a_failing_computer_player_does_not_stop_the_game(tmp_path: Path, player):
    h = Harness(tmp_path / "b.sqlite3")
    s = await h.open(players=lambda level: player())
    await seat_people(s)
    game_id, _ = await s.create_game("alice", "rummikub", seed=2)
    await s.add_bot(game_id, "alice", "easy")
    await s.start_game(game_id, "alice")
    for _ in range(3):
        await s.wait_idle()
        await s.handle(game_id, "alice", "draw")
    await s.wait_idle()
    record = await h.store.load_game(game_id)
    assert record.seq >= 5
    assert await verify_game(h.store, record) == []
    await h.close()


async def test_a_store_failure_is_not_acknowledged(h: Harness):
    s = h.service
    game_id = await two_player_game(s)
    before = s.registry.games[game_id].state.to_json()
    await h.store.close()
    reply = only_error(await s.handle(game_id, "alice", "draw"))
    assert reply.code == "service.store" and "not applied" in reply.text
    assert s.registry.games[game_id].state.to_json() == before
    await h.store.open()
    assert not errors(await s.handle(game_id, "alice", "draw"))
    assert (await h.store.load_game(game_id)).seq == 1


async def _all_bot_game(tmp_path: Path, name: str, *, worker: bool, kill_worker: bool = False):
    """Play one computer-only game; returns (its command log, the worker's answers)."""
    harness = Harness(tmp_path / f"{name}.sqlite3", think_in_worker=worker)
    service = await harness.open()
    thinker = service.computer.thinker
    assert (thinker is not None) == worker
    if thinker is not None:
        thinker.warm_up()
        for _ in range(600):  # the worker starts in the background; wait for it (at most 60 s)
            if thinker.ready:
                break
            await asyncio.sleep(0.1)
        assert thinker.ready
        if kill_worker:
            os.kill(thinker.worker_pid, signal.SIGKILL)
    game_id, _ = await service.create_game("host", "rummikub", seed=11, seat_host=False)
    for _ in range(3):  # medium: the levels the worker thinks for
        assert not errors(await service.add_bot(game_id, "host", "medium"))
    assert not errors(await service.start_game(game_id, "host"))
    await service.wait_finished(game_id)
    answers = thinker.answers if thinker is not None else 0
    record = await harness.store.load_game(game_id)
    assert record.status == "finished"
    assert await verify_game(harness.store, record) == []
    log = [(c.seat, c.text) for c in await harness.store.commands(game_id)]
    await harness.close()
    return log, answers


async def test_computer_players_choose_the_same_moves_in_the_worker(tmp_path: Path):
    here, none = await _all_bot_game(tmp_path, "loop", worker=False)
    there, answers = await _all_bot_game(tmp_path, "worker", worker=True)
    assert none == 0 and answers > 0
    assert there == here


async def test_a_dead_worker_does_not_stop_computer_players(tmp_path: Path):
    here, _ = await _all_bot_game(tmp_path, "loop", worker=False)
    there, _ = await _all_bot_game(tmp_path, "killed", worker=True, kill_worker=True)
    assert there == here
