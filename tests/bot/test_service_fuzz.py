"""10,000 random and malformed messages through the service: never an exception, always a clear
reply to the sender, and the game (memory and store) unchanged.

Messages come from the seat that is not to move (the engine parses before it checks the turn,
so parse errors surface), from someone not seated, and from the seat to move with text that
cannot start with a command word. Each Hypothesis example sends 100 messages; 100 examples.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig
from bot.store import SqliteStore
from engine.commands import ALIASES

WORDS = [
    *ALIASES,
    "R5",
    "B12",
    "Y7",
    "G7",
    "K1",
    "S1",
    "J",
    "*",
    "R14",
    "X3",
    "10H",
    "QS",
    "A♣",
    "JK",
    "|",
    ";",
    ">",
    "new",
    "1",
    "0",
    "-3",
    "99999999999999999999",
    "\n",
    "\t",
    "\x00",
    "!",
    "!timeout",
    "!end",
    "é",
    "🂡",
    "\u202e",
    "''",
    '"',
    "\\",
]

messages = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
    st.text(max_size=60),
    st.text(alphabet="RBYKGSJ*0123456789 |;>\n", max_size=40),
    st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
)


class World:
    """One game, one service, one event loop for the whole module (fast examples)."""

    def __init__(self, path: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.path = path
        self.store = SqliteStore(path)
        self.service = GameService(
            self.store,
            config=ServiceConfig(pictures=False, bot_pause=0.0, max_command_length=200),
            clock=ManualClock(),
        )
        self.game_id = self.run(self._setup())

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    async def _setup(self) -> str:
        await self.store.open()
        await self.service.start(run_timers=False)
        await self.service.register_player("alice", "Alice", "en")
        await self.service.register_player("bob", "Bob", "de")
        game_id, _ = await self.service.create_game("alice", "rummikub", seed=1)
        await self.service.join(game_id, "bob")
        await self.service.start_game(game_id, "alice")
        return game_id

    def state_json(self) -> str:
        return self.service.registry.games[self.game_id].state.to_json()

    def close(self) -> None:
        self.run(self.service.stop())
        self.run(self.store.close())
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = World(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3")
    yield w
    w.close()


def _first_word_is_a_verb(text: str) -> bool:
    words = text.replace(";", " ").replace(">", " ").split()
    return bool(words) and words[0].lower() in ALIASES


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(st.lists(messages, min_size=100, max_size=100))
def test_random_messages_never_raise_and_change_nothing(world: World, batch: list[str]):
    before = world.state_json()
    seq = world.run(world.store.load_game(world.game_id)).seq
    service = world.service
    current = service.registry.games[world.game_id].state.current
    mover, other = ("alice", "bob") if current == 0 else ("bob", "alice")
    for k, text in enumerate(batch):
        if k % 3 == 0:
            sender = other
        elif k % 3 == 1:
            sender = "mallory"  # not seated
        else:
            if _first_word_is_a_verb(text):
                continue
            sender = mover
        out = world.run(service.handle(world.game_id, sender, text))
        assert out, text  # every message gets an answer...
        assert all(getattr(m, "to", None) == sender for m in out), (text, out)  # ...to the sender
        errors = [m for m in out if isinstance(m, ErrorReply)]
        assert len(errors) <= 1, (text, out)
        if errors:
            reply = errors[0]
            assert reply.to == sender and reply.code
            assert reply.text.strip() and "Traceback" not in reply.text and len(reply.text) < 600
    assert world.state_json() == before
    assert world.run(world.store.load_game(world.game_id)).seq == seq
