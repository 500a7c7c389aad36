"""PostgreSQL faults, on a real server of this module's own (it is stopped and started):

- a wrong or unreachable URL stops the store, the tools and the bot with ONE line (no
  traceback, no password in it), before the bot would log in to Discord;
- connections cut under a running game (pg_terminate_backend): the next command is saved on a
  fresh connection;
- the server stopped in the middle of a game: the player's command is refused with the
  localised "could not be saved, nothing changed", nothing is acknowledged that was not
  committed, memory stays what the database holds, and once the server is back the same
  service goes on;
- the CLI tools (soak, verify-db, ladder, tournament) take a postgresql:// URL for --db.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import cli
from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig
from bot.store import Store, StoreError, open_store
from bot.wiring import check_database, open_service
from tests.pg import PgServer, serving

T0 = 1_700_000_000.0


@pytest.fixture(scope="module")
def own_server() -> Iterator[PgServer]:
    """A server of this module's own: its tests stop and start it."""
    yield from serving()


# ------------------------------------------------------------------------------ bad URLs


@pytest.mark.parametrize(
    "url, code, words",
    [
        ("postgresql://rummy:secret@/rummy?host=/nonexistent/dir", "unreachable", "reached"),
        ("postgresql://rummy:secret@127.0.0.1:1/rummy?connect_timeout=5", "unreachable", "reach"),
        ("postgresql://rummy:secret@/rummy?host=/x&pool_size=many", "invalid", "pool_size"),
        ("mysql://rummy:secret@host/rummy", "error", "unsupported database"),
    ],
)
async def test_a_bad_url_is_one_line_without_the_password(url: str, code: str, words: str):
    with pytest.raises(StoreError) as caught:
        store = open_store(url)
        await store.open()
    message = str(caught.value)
    assert caught.value.code == code and words in message
    assert "\n" not in message and "secret" not in message


async def test_a_missing_database_or_role_is_one_line(own_server: PgServer):
    missing = own_server.url("no_such_database")
    store = open_store(missing)
    with pytest.raises(StoreError, match="does not exist") as caught:
        await store.open()
    assert caught.value.code == "unreachable"
    with pytest.raises(StoreError, match="does not exist"):
        await check_database(missing)
    wrong_user = own_server.base_url.replace("postgres:@", "nobody:@")
    with pytest.raises(StoreError, match=r"refused this user|does not exist"):
        await check_database(wrong_user)


async def test_another_programs_database_is_refused(own_server: PgServer):
    url = own_server.new_database()
    own_server.sql(url, "CREATE TABLE invoices (id integer)")
    with pytest.raises(StoreError, match="another program") as caught:
        await (store := open_store(url)).open()
    assert caught.value.code == "foreign" and not store.owned
    assert own_server.sql(url, "SELECT to_regclass('games')") == [(None,)]


def test_the_bot_stops_on_a_bad_database_url_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("DISCORD_TOKEN", "never-used")
    monkeypatch.setenv("DATABASE_URL", "postgresql://rummy:secret@/rummy?host=/nonexistent")
    assert cli.main([]) == cli.EXIT_STORE  # before discord.py logs in anywhere
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rummy-bot: cannot connect to PostgreSQL")
    assert "secret" not in err and "Traceback" not in err
    monkeypatch.setenv("DATABASE_URL", "mysql://x")
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DATABASE_URL must be sqlite:///" in err


def test_the_tools_stop_on_an_unreachable_database_in_one_line(
    capsys: pytest.CaptureFixture[str],
):
    bad = "postgresql://rummy@/rummy?host=/nonexistent"
    for argv in (
        ["verify-db", "--db", bad],
        ["soak", "--games", "1", "--db", bad],
        ["ladder", "--db", bad],
        ["tournament", "show", "--db", bad, "--id", "t1"],
    ):
        assert cli.main(argv) == cli.EXIT_STORE, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot connect to PostgreSQL" in err, (argv, err)


# ------------------------------------------------------------------------------ a game


async def people_and_game(service: GameService) -> str:
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "de")
    made, _ = await service.create_game("alice", "rummikub", seed=3)
    assert made
    assert not errors(await service.join(made, "bob"))
    assert not errors(await service.start_game(made, "alice"))
    return made


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


def to_move(service: GameService, game_id: str) -> str:
    live = service.registry.games[game_id]
    return live.seats[live.state.current].player_id


async def assert_memory_is_disk(service: GameService, store: Store, game_id: str) -> None:
    record = await store.load_game(game_id)
    live = service.registry.games[game_id]
    assert record.seq == live.seq
    assert [c.seq for c in await store.commands(game_id)] == list(range(1, record.seq + 1))


async def open_game(url: str) -> tuple[Store, GameService]:
    store = open_store(url, connect_timeout=3)
    await store.open()
    config = ServiceConfig(pictures=False, bot_pause=0.0)
    service = GameService(store, config=config, clock=ManualClock(T0), sink=lambda out: None)
    await service.start(run_timers=False)
    return store, service


async def test_cut_connections_are_replaced_and_the_game_goes_on(own_server: PgServer):
    url = own_server.new_database()
    store, service = await open_game(url)
    try:
        game_id = await people_and_game(service)
        assert not errors(await service.handle(game_id, to_move(service, game_id), "draw"))
        assert own_server.terminate_backends(url) >= 1  # every pooled connection is cut
        out = await service.handle(game_id, to_move(service, game_id), "draw")
        assert not errors(out)  # saved on a fresh connection
        await assert_memory_is_disk(service, store, game_id)
        assert (await store.load_game(game_id)).seq == 2
    finally:
        await service.stop()
        await store.close()


async def test_a_stopped_server_refuses_the_move_and_the_service_goes_on_after(
    own_server: PgServer,
):
    url = own_server.new_database()
    store, service = await open_game(url)
    acknowledged: list[int] = []
    try:
        game_id = await people_and_game(service)
        assert not errors(await service.handle(game_id, to_move(service, game_id), "draw"))
        acknowledged.append(service.registry.games[game_id].seq)
        own_server.stop()
        try:
            player = to_move(service, game_id)
            out = await service.handle(game_id, player, "draw")
            refused = errors(out)
            assert refused and refused[0].code == "service.store"
            assert "nothing changed" in refused[0].text  # alice reads English
            assert service.registry.games[game_id].seq == 1  # memory went back
            out = await service.handle(game_id, "bob", "draw")  # bob reads German
            if to_move(service, game_id) == "bob":
                assert "nichts geändert" in errors(out)[0].text
        finally:
            own_server.start()
        # the same service goes on once the server is back
        out = await service.handle(game_id, to_move(service, game_id), "draw")
        assert not errors(out)
        acknowledged.append(service.registry.games[game_id].seq)
        await assert_memory_is_disk(service, store, game_id)
        logged = [c.seq for c in await store.commands(game_id)]
        assert logged == [1, 2] and set(acknowledged) <= set(logged)
    finally:
        await service.stop()
        await store.close()


# ------------------------------------------------------------------------------ the tools


def test_the_tools_take_a_postgresql_url(own_server: PgServer, capsys: pytest.CaptureFixture[str]):
    url = own_server.new_database()
    soak = ["soak", "--games", "3", "--concurrency", "3", "--preset", "rummikub"]
    assert cli.main([*soak, "--seed", "2", "--json", "--db", url]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games_finished"] >= 3
    assert cli.main(["verify-db", "--db", url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 3 and report["ok"] == 3 and report["problems"] == []
    assert cli.main(["ladder", "--db", url, "--json"]) == 0
    capsys.readouterr()
    sim = ["tournament", "simulate", "--db", url, "--players", "4", "--rounds", "1"]
    assert cli.main([*sim, "--level", "easy", "--id", "t1", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert cli.main(["tournament", "show", "--db", url, "--id", "t1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == made


async def test_open_service_takes_a_url(pg_url: str):
    wired = await open_service(pg_url, pictures=False, league=True)
    try:
        await wired.service.start(run_timers=False)
        assert wired.store.owned
    finally:
        await wired.close()
