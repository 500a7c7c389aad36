"""The operations port over a real game service on a real SQLite file: ``/metrics`` counts the
commands the service really ran, ``/healthz`` follows the store (bot.ops)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.ops.health import store_check
from bot.ops.http import OpsServer, OpsServerError
from bot.ops.metrics import PrometheusMetrics
from bot.service import GameService, ManualClock, ServiceConfig
from bot.store import SqliteStore
from tests.ops.helpers import get, samples

T0 = 1_700_000_000.0


@dataclass
class World:
    store: SqliteStore
    service: GameService
    metrics: PrometheusMetrics
    server: OpsServer

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    store = SqliteStore(tmp_path / "ops.sqlite3")
    await store.open()
    metrics = PrometheusMetrics()
    config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
    service = GameService(store, config=config, clock=ManualClock(T0), metrics=metrics)
    await service.start(run_timers=False)
    metrics.watch_live_games(lambda: {"playing": len(service.live_game_ids())})
    live = {"store": store}
    server = OpsServer(metrics, [store_check(lambda: live["store"])], host="127.0.0.1")
    await server.start()
    try:
        yield World(store, service, metrics, server)
    finally:
        await server.stop()
        await service.stop()
        await store.close()


async def two_people(service: GameService, game_id: str) -> tuple[str, str]:
    """A started Rummikub game of anna and bernd: (the player to move, the other one)."""
    await service.create_game("anna", "rummikub", None, game_id=game_id, seed=3)
    await service.join(game_id, "bernd")
    await service.start_game(game_id, "anna")
    mover = service.seats(game_id)[service.view(game_id).current].player_id
    return mover, ("bernd" if mover == "anna" else "anna")


async def test_metrics_count_the_commands_the_service_ran(world: World):
    service, game_id = world.service, "g1"
    mover, waiting = await two_people(service, game_id)
    # refused: a command that is no command, a move out of turn, a person not seated
    for who, text in ((mover, "meld nonsense"), (waiting, "draw"), ("zoe", "draw")):
        [reply] = await service.handle(game_id, who, text)
        assert reply.code not in ("service.store", "service.internal")
    # accepted: the mover draws (committed), then the other one draws
    await service.handle(game_id, mover, "draw")
    await service.handle(game_id, waiting, "draw")
    committed = (await world.store.load_game(game_id)).seq
    assert committed == 2
    status, kind, text = await get(world.url + "/metrics")
    assert status == 200 and kind.startswith("text/plain")
    found = samples(text)
    assert found[("rummy_commands_total", (("outcome", "accepted"),))] == 2
    assert found[("rummy_commands_total", (("outcome", "refused"),))] == 3
    assert found[("rummy_commands_total", (("outcome", "failed"),))] == 0
    assert found[("rummy_command_seconds_count", ())] == 5
    assert found[("rummy_store_commit_seconds_count", ())] == 2
    assert found[("rummy_live_games", (("status", "playing"),))] == 1


async def test_a_command_the_store_cannot_write_is_counted_failed(world: World):
    service, game_id = world.service, "g2"
    mover, _ = await two_people(service, game_id)
    await world.store.close()  # the database goes away
    [reply] = await service.handle(game_id, mover, "draw")
    assert reply.code == "service.store"
    found = samples((await get(world.url + "/metrics"))[2])
    assert found[("rummy_commands_total", (("outcome", "failed"),))] == 1
    assert found[("rummy_commands_total", (("outcome", "accepted"),))] == 0


async def test_healthz_follows_the_store(world: World):
    status, kind, text = await get(world.url + "/healthz")
    assert (status, kind.split(";")[0]) == (200, "application/json")
    assert '"ok"' in text
    await world.store.close()
    status, _, text = await get(world.url + "/healthz")
    assert status == 503
    assert "the database cannot be read" in text and "is not open" in text


async def test_a_port_in_use_is_one_clear_error(world: World):
    again = OpsServer(world.metrics, host="127.0.0.1", port=world.server.port)
    with pytest.raises(OpsServerError) as caught:
        await again.start()
    message = str(caught.value)
    assert f"METRICS_PORT {world.server.port} cannot be used on 127.0.0.1" in message
    assert "\n" not in message
