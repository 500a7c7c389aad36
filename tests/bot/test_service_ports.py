"""The service's ports and wiring: the service works through its interfaces only, the wiring
plugs in the real ones, and every message is data worded per reader."""

from __future__ import annotations

import inspect
from pathlib import Path

import rendering
from bot.service import (
    GameService,
    GameStore,
    ManualClock,
    PrivateRack,
    PrivateText,
    PublicText,
    Renderer,
    ServiceConfig,
    TablePicture,
    TurnPrompt,
)
from bot.service.replay import END
from bot.store import SqliteStore
from bot.wiring import RenderingRenderer, build_service, engine_players, labels, open_service
from engine.game import new_game
from engine.rules import preset

T0 = 1_700_000_000.0


def _methods(protocol: type) -> set[str]:
    return {
        name
        for name, value in vars(protocol).items()
        if not name.startswith("_") and callable(value)
    }


def test_the_real_store_and_renderer_have_every_method_of_their_port():
    for port, real in ((GameStore, SqliteStore), (Renderer, RenderingRenderer)):
        for name in _methods(port):
            assert callable(getattr(real, name, None)), f"{real.__name__} lacks {name}"
            wanted = inspect.signature(getattr(port, name)).parameters
            have = inspect.signature(getattr(real, name)).parameters
            assert set(wanted) <= set(have), (real.__name__, name)


def test_the_renderer_draws_what_rendering_draws_in_english():
    game = new_game(preset("rummikub"), ["Alice", "Bob"], 1)
    renderer = RenderingRenderer()
    en = labels("en")
    assert renderer.table(game.public_view(), "en") == rendering.render_table(
        game.public_view(), labels=en
    )
    assert renderer.rack(game.rack(0), "en") == rendering.render_rack(game.rack(0), labels=en)
    assert renderer.rack(game.rack(0), "de")[:8] == b"\x89PNG\r\n\x1a\n"


class Pictures:
    """A renderer that records what it was asked for (the service's only way to pictures)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def table(self, view, lang):
        self.asked.append(("table", lang))
        return b"table-" + lang.encode()

    def rack(self, pieces, lang):
        self.asked.append(("rack", lang))
        return b"rack-" + lang.encode()

    def ladder(self, rows, *, title, lang):
        self.asked.append(("ladder", lang))
        return b"ladder-" + lang.encode()


async def test_pictures_come_from_the_renderer_port_in_the_reader_language(tmp_path: Path):
    store = SqliteStore(tmp_path / "ports.sqlite3")
    await store.open()
    pictures = Pictures()
    config = ServiceConfig(bot_pause=0.0, think_in_worker=False)
    service = GameService(store, config=config, clock=ManualClock(T0), renderer=pictures)
    try:
        await service.register_player("alice", "Alice", "en")
        await service.register_player("bob", "Bob", "de")
        game_id, _ = await service.create_game("alice", "rummikub", seed=1)
        await service.join(game_id, "bob")
        out = await service.start_game(game_id, "alice")
        tables = [o for o in out if isinstance(o, TablePicture)]
        racks = {o.to: o for o in out if isinstance(o, PrivateRack)}
        # the table picture is drawn only when an adapter asks, once per language
        assert ("table", "en") not in pictures.asked and ("table", "de") not in pictures.asked
        assert [await t.png("de") for t in tables] == [b"table-de"]
        assert [await t.png("de") for t in tables] == [b"table-de"]
        assert pictures.asked.count(("table", "de")) == 1 and ("table", "en") not in pictures.asked
        assert [await t.png("en") for t in tables] == [b"table-en"]
        assert await service.render_view(tables[0].view, "de") == b"table-de"
        assert racks["alice"].png == b"rack-en" and racks["bob"].png == b"rack-de"
        assert racks["bob"].text.startswith("Deine Bank (14): ")
        assert racks["bob"].message("en").startswith("Your rack (14): ")
        assert await service.render_table(game_id, "de") == b"table-de"
        assert await service.render_rack(["R1"], "de") == b"rack-de"
        assert await service.render_ladder([], title="x", lang="de") == b"ladder-de"
        # pictures off: the moves come without pictures, the port still answers when asked
        service.messages.pictures = False
        out = await service.handle(game_id, "alice", "draw")
        assert not [o for o in out if isinstance(o, TablePicture)]
        assert all(o.png is None for o in out if isinstance(o, PrivateRack))
        assert await service.render_table(game_id, "en") == b"table-en"
    finally:
        await service.stop()
        await store.close()


async def test_without_a_renderer_there_are_no_pictures(tmp_path: Path):
    store = SqliteStore(tmp_path / "none.sqlite3")
    await store.open()
    service = GameService(store, config=ServiceConfig(bot_pause=0.0, think_in_worker=False))
    try:
        await service.register_player("alice", "Alice", "en")
        game_id, _ = await service.create_game("alice", "rummikub", seed=1)
        await service.add_bot(game_id, "alice", "easy")
        out = await service.start_game(game_id, "alice")
        assert not [o for o in out if isinstance(o, TablePicture)]
        assert [o.png for o in out if isinstance(o, PrivateRack)] == [None]
        assert await service.render_rack(["R1"], "en") is None
    finally:
        await service.stop()
        await store.close()


async def test_messages_are_data_worded_for_each_reader(tmp_path: Path):
    store = SqliteStore(tmp_path / "words.sqlite3")
    await store.open()
    clock = ManualClock(T0)
    config = ServiceConfig(pictures=False, bot_pause=0.0, think_in_worker=False)
    service = GameService(store, config=config, clock=clock)
    try:
        await service.register_player("alice", "Alice", "en")
        await service.register_player("bob", "Bob", "de")
        game_id, out = await service.create_game("alice", "rummikub", seed=1)
        [opened] = out
        assert opened.key == "service.opened" and opened.params["game"] == game_id
        assert opened.message("de").startswith("Alice hat einen Tisch")
        [joined] = await service.join(game_id, "bob")
        assert joined.text == "Bob joins. At the table (2/4): Alice, Bob"
        assert joined.text_de == "Bob spielt mit. Am Tisch (2/4): Alice, Bob"
        out = await service.start_game(game_id, "alice")
        [prompt] = [o for o in out if isinstance(o, TurnPrompt)]
        assert prompt.kind == "turn" and prompt.message("de").endswith("du bist am Zug.")
        [error] = await service.handle(game_id, "bob", "draw")  # not Bob's turn
        assert error.lang == "de" and error.message("de") == error.text != error.message("en")
        out = await service.handle(game_id, "alice", "meld B9 B10 B11")
        [mine] = [o for o in out if isinstance(o, PrivateText)]
        assert mine.to == "alice" and mine.text.endswith(mine.message("en").split("\n")[-1])
        assert "Your working table:" in mine.text and "Dein Tisch in Arbeit:" in mine.message("de")
        out = await service.handle(game_id, "alice", "done")
        [public] = [o for o in out if isinstance(o, PublicText)]
        assert public.events and public.names == ("Alice", "Bob")
        assert public.text != public.text_de
        out = await service.lobby.pipeline.service_action(
            service.registry.games[game_id], f"{END} ended", activity=True
        )
        over = out[-1]
        assert over.text.startswith("Game ended.\n") and over.text_de.startswith("Spiel beendet.\n")
    finally:
        await service.stop()
        await store.close()


async def test_the_wiring_builds_the_service_with_the_real_ports(tmp_path: Path):
    wired = await open_service(tmp_path / "wired.sqlite3", config=ServiceConfig(pictures=False))
    try:
        assert isinstance(wired.service.messages.renderer, RenderingRenderer)
        assert wired.service.computer.player("easy") is not None
        assert wired.league is None and wired.service.league is None
        await wired.service.start(run_timers=False)
        await wired.service.register_player("alice", "Alice", "de")
        assert (await wired.service.person("alice")).locale == "de"
        await wired.service.set_adapter_data("discord_game", "g1", {"players": 3})
        assert await wired.service.adapter_data("discord_game", "g1") == {"players": 3}
        game_id, _ = await wired.service.create_game("alice", "stein", seed=2)
        assert (await wired.service.game_record(game_id)).preset == "stein"
        assert [r.id for r in await wired.service.unfinished_records()] == [game_id]
    finally:
        await wired.close()
        await wired.service.stop()  # stopping twice is harmless
    store = SqliteStore(tmp_path / "built.sqlite3")
    await store.open()
    service = build_service(store, pictures=False)
    assert service.messages.renderer is None
    assert service.computer.thinker is not None  # the standard players think in the worker
    assert engine_players("strong").choose is not None
    await service.stop()
    await store.close()
