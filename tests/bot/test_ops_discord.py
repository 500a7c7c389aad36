"""The operations port of the real Discord client (bot.app.ops_server) against the fake
Discord: /healthz follows the gateway and the store, /metrics counts real slash commands and
Discord failures, over a real loopback HTTP request."""

from __future__ import annotations

from pathlib import Path

from bot.app import Settings, create_bot, ops_server, run
from bot.ops.metrics import PrometheusMetrics
from bot.service import ServiceConfig
from tests.bot.conftest import CHANNEL_ID, CLOSED_DM_ID, GUILD_ID, OWNER_ID
from tests.bot.discord_helpers import slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand
from tests.ops.helpers import get, samples


def make_bot(db: Path, metrics: PrometheusMetrics):
    settings = Settings(
        discord_token="fake-bot-token",
        database_url=f"sqlite:///{db}",
        dev_guild_id=GUILD_ID,
        shard_count=1,  # as tests/bot/discord_helpers.make_bot: the fake needs a fixed count
    )
    config = ServiceConfig(pictures=False, bot_pause=0.0, tick_seconds=0.05)
    return create_bot(settings, service_config=config, metrics=metrics)


async def test_healthz_and_metrics_of_the_running_bot(fake_discord: FakeDiscord, tmp_path: Path):
    fake = fake_discord
    metrics = PrometheusMetrics()
    bot = make_bot(tmp_path / "ops.sqlite3", metrics)
    server = ops_server(bot, metrics, host="127.0.0.1")
    await server.start()
    url = f"http://127.0.0.1:{server.port}"
    try:
        status, _, text = await get(url + "/healthz")  # not logged in yet
        assert status == 503
        assert "not connected to the Discord gateway" in text and "not open" in text
        async with running(bot):
            status, _, text = await get(url + "/healthz")
            assert (status, text) == (200, '{"status": "ok"}')
            # a real table: Anna hosts, Carla (whose DMs are closed) joins, Anna starts
            await slash(
                fake,
                OWNER_ID,
                CHANNEL_ID,
                "rummy",
                [subcommand("new", option("preset", "rummikub"))],
            )
            thread = fake.threads_in(CHANNEL_ID)[-1].id
            await slash(fake, CLOSED_DM_ID, thread, "rummy", [subcommand("join")])
            await slash(fake, OWNER_ID, thread, "rummy", [subcommand("start")])
            [game_id] = bot.service.live_game_ids()
            view = bot.service.view(game_id)
            mover, waiting = (
                (OWNER_ID, CLOSED_DM_ID) if view.current == 0 else (CLOSED_DM_ID, OWNER_ID)
            )
            _, said = await slash(fake, waiting, thread, "draw")
            assert said.startswith("It is not your turn")
            _, said = await slash(fake, mover, thread, "play", [option("text", "meld R14")])
            assert "R14" in said
            # the thread is archived behind the bot's back: the turn message cannot be posted
            fake.channels[thread].archived = True
            await slash(fake, mover, thread, "draw")
            assert (await bot.store.load_game(game_id)).seq == 1  # the move stands

            def failures() -> float | None:
                total = sum(
                    metrics.registry.get_sample_value(
                        "rummy_discord_failures_total", {"kind": kind}
                    )
                    or 0.0
                    for kind in ("post", "edit", "channel")
                )
                return total or None

            assert await fake.wait_until(failures, 5.0, "a Discord failure counted") >= 1
            found = samples((await get(url + "/metrics"))[2])
            assert found[("rummy_commands_total", (("outcome", "accepted"),))] == 1
            assert found[("rummy_commands_total", (("outcome", "refused"),))] == 2
            assert found[("rummy_commands_total", (("outcome", "failed"),))] == 0
            assert found[("rummy_command_seconds_count", ())] == 3
            assert found[("rummy_store_commit_seconds_count", ())] == 1
            assert found[("rummy_live_games", (("status", "playing"),))] == 1
            fake.channels[thread].archived = False
            # the gateway goes down: 503 naming the shard; back up: 200
            await bot.shards[0].disconnect()
            status, _, text = await get(url + "/healthz")
            assert status == 503 and "gateway connection closed for shard(s) 0" in text
            await bot.shards[0].connect()
            await fake.wait_until(
                lambda: True if not bot.shards[0].is_closed() else None, 5.0, "reconnect"
            )
            status, _, _ = await get(url + "/healthz")
            assert status == 200
            # the store goes away: 503 naming the database
            await bot.store.close()
            status, _, text = await get(url + "/healthz")
            assert status == 503 and "the database cannot be read" in text
        status, _, text = await get(url + "/healthz")  # the client is closed
        assert status == 503 and "closed" in text
    finally:
        await server.stop()


def settings_for(db: Path, token: str, **extra: str) -> Settings:
    values = {
        "DISCORD_TOKEN": token,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEV_GUILD_ID": str(GUILD_ID),
        "SHARD_COUNT": "1",
        "METRICS_PORT": "1",  # replaced below by a free port
        "METRICS_HOST": "127.0.0.1",
    }
    return Settings.from_mapping({**values, **extra})


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_refused_token_and_an_unreachable_discord_end_run_with_one_line(
    fake_discord: FakeDiscord, tmp_path: Path, caplog
):
    fake = fake_discord
    fake.token = "the-real-token"
    port = str(free_port())
    settings = settings_for(tmp_path / "a.sqlite3", "a-wrong-token", METRICS_PORT=port)
    assert await run(settings) == 2
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.app"]
    assert line.startswith("Discord refused the bot token (DISCORD_TOKEN)")
    caplog.clear()
    await fake.close()  # Discord is gone
    settings = settings_for(tmp_path / "b.sqlite3", "the-real-token", METRICS_PORT=port)
    assert await run(settings) == 1
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.app"]
    assert line.startswith("Discord cannot be reached: ") and "\n" not in line


async def test_a_metrics_port_in_use_stops_run_before_discord(
    fake_discord: FakeDiscord, tmp_path: Path, caplog
):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = settings_for(tmp_path / "c.sqlite3", "fake-bot-token", METRICS_PORT=str(port))
        assert await run(settings) == 2
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.app"]
    assert line.startswith(f"METRICS_PORT {port} cannot be used on 127.0.0.1: ")
    assert fake_discord.requests == []  # it never logged in
