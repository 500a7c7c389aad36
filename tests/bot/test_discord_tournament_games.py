"""Tournaments played in the bot (issue 16, item 8): ``/tournament round`` opens one game per
table in its own thread, computer players where the organiser asks, finished games feed the
standings by themselves (the league's result hook, in the finishing transaction), the table's
next game opens, and a restart in the middle of the round changes nothing of that."""

from __future__ import annotations

from pathlib import Path

from bot.discord.tables import tables_of
from bot.discord.tournament_games import tournament_tables_of
from bot.service import ServiceConfig
from bot.service.tournament_tables import TournamentTables, computer_id
from bot.wiring import open_service
from tests.bot.conftest import CHANNEL_ID, GUILD_ID, OWNER_ID
from tests.bot.discord_helpers import make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand
from tests.bot.test_discord_tables import play_out

GUILD = str(GUILD_ID)


async def settle(bot) -> None:
    """Until no computer player moves and no table is being opened or closed."""
    for _ in range(50):
        await bot.service.wait_idle()
        await tournament_tables_of(bot).wait_idle()
        await tables_of(bot).wait_closed()
        await bot.service.wait_idle()
        games = tournament_tables_of(bot)
        if not games._tasks and not any(
            g.bot_task and not g.bot_task.done() for g in bot.service.registry.games.values()
        ):
            return


async def test_round_played_as_bot_games_with_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = make_bot(db)
    async with running(bot):
        cup = subcommand("create", option("name", "Cup"))
        await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [cup])
        await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [subcommand("join")])
        start = subcommand("round", option("computers", 5), option("level", "easy"))
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [start])
        # seated in the guild's language; table 1: Anna and two computers, table 2: computers
        assert said.startswith("Runde 1:"), said
        assert f"Tisch 1: <@{OWNER_ID}>, Computer 1, Computer 2" in said
        assert "Tisch 2: Computer 3, Computer 4, Computer 5" in said
        assert "2 Tischspiele eröffnet" in said
        threads = fake.threads_in(CHANNEL_ID)
        assert len(threads) == 2 and all("Cup · Runde 1" in th.name for th in threads)
        await settle(bot)
        state = await bot.service.league.tournament(GUILD, "Cup")
        # the computers' table played its three games one after the other, each in a thread
        assert state.current_round.table(2).complete
        assert len(state.current_round.table(1).games) == 0  # Anna's first game is running
        assert len(fake.threads_in(CHANNEL_ID)) == 4
        assert await bot.store.kv_items("ladder_result") == []  # tournament games: no ladder
        [running_game] = bot.service.live_game_ids()
        seats = bot.service.seats(running_game)
        assert [s.is_bot for s in seats].count(False) == 1
        # the organiser cannot enter that table's game by hand while the bot plays it
        record = subcommand(
            "record", option("table", 1), option("tiles_left", "0 3 5"), option("winner", 1)
        )
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [record])
        thread_of = bot.games.get(running_game).thread_id
        assert said.startswith(f"Table 1 is playing its game in the bot (<#{thread_of}>)")
        state = await bot.service.league.tournament(GUILD, "Cup")
        assert len(state.current_round.table(1).games) == 0
        # the game's computer seats are the tournament's computer players, named alike
        bots = sorted((s.player_id, s.name) for s in seats if s.is_bot)
        assert bots == [("bot:easy:1", "Computer 1"), ("bot:easy:2", "Computer 2")]

    # a restart in the middle of the round: the game goes on and the tournament with it
    bot = make_bot(db)
    async with running(bot):
        assert bot.service.live_game_ids() == [running_game]
        for number in range(3):
            [game_id] = bot.service.live_game_ids()
            info = bot.games.get(game_id)
            await play_out(fake, bot, game_id, info.thread_id, "easy")
            await settle(bot)
            state = await bot.service.league.tournament(GUILD, "Cup")
            assert len(state.rounds[0].table(1).games) == number + 1
            assert fake.channels[info.thread_id].archived  # the game's thread is closed
        assert bot.service.live_game_ids() == []
        assert state.current_round is None and state.rounds[0].complete
        done = [
            m for m in fake.messages_in(CHANNEL_ID) if "Runde 1 von Cup ist fertig" in m.content
        ]
        assert len(done) == 1
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [subcommand("standings")])
        lines = said.splitlines()
        assert lines[0] == "Standings of Cup:" and len(lines) == 7
        assert all(line.endswith("3 games") for line in lines[1:])
        assert any("Anna" in line for line in lines) and any("Computer 5" in line for line in lines)
        assert await bot.store.kv_items("ladder_result") == []
    assert fake.unknown_routes == []


async def test_finished_table_game_is_entered_in_its_last_transaction(tmp_path: Path) -> None:
    """Without any adapter: the service plays a linked table game and the league's result hook
    enters it into the tournament (nothing else is called)."""
    config = ServiceConfig(pictures=False, bot_pause=0.0, tick_seconds=0.05, think_in_worker=False)
    wired = await open_service(str(tmp_path / "db.sqlite3"), config=config, league=True)
    try:
        league = wired.service.league
        players = [computer_id("easy", n) for n in range(1, 4)]
        await league.create_tournament(GUILD, "T", players)
        await league.start_round(GUILD, "T")
        await wired.service.start()
        link, _out = await TournamentTables(wired.service).open_game(
            GUILD, "T", 1, host_id="director", game_id="tgame1"
        )
        assert link.starter == players[0] and sorted(link.seats) == sorted(players)
        view = wired.service.view("tgame1")
        assert link.seats[view.current] == players[0]  # the designated starter moves first
        await wired.service.wait_finished("tgame1")
        state = await league.tournament(GUILD, "T")
        [entered] = state.rounds[0].table(1).games
        assert entered.game_id == "tgame1" and sum(entered.mp) > 0
        # entering it again (the old path after a restart) changes nothing
        assert await league.sync_tournament(GUILD, "T") == 0
        assert len((await league.tournament(GUILD, "T")).rounds[0].table(1).games) == 1
    finally:
        await wired.close()


async def test_tables_not_opened_before_a_restart_open_after_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The bot stopped after the round was seated but before its games were opened: at the next
    start the tables get their games, and the computers play the round through."""
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = make_bot(db)
    async with running(bot):
        cup = subcommand("create", option("name", "Cup"))
        await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [cup])
        seat = subcommand(
            "round", option("bot_games", False), option("computers", 3), option("level", "easy")
        )
        _, said = await slash(fake, OWNER_ID, CHANNEL_ID, "tournament", [seat])
        assert "Tisch 1: Computer 1, Computer 2, Computer 3" in said
        assert fake.threads_in(CHANNEL_ID) == [] and bot.service.live_game_ids() == []
        # what /tournament round records before it opens the games
        plan = {"guild": GUILD, "tournament": "Cup", "channel_id": CHANNEL_ID, "host": "1"}
        await bot.service.set_adapter_data("discord_tournament", f"{GUILD}:Cup", plan)
    bot = make_bot(db)
    async with running(bot):
        await fake.wait_until(
            lambda: len(fake.threads_in(CHANNEL_ID)) >= 1 or None, 5.0, "a table game"
        )
        for _ in range(3):
            await settle(bot)
        state = await bot.service.league.tournament(GUILD, "Cup")
        assert state.rounds[0].complete
        assert len(fake.threads_in(CHANNEL_ID)) == 3
        assert all(fake.channels[th.id].archived for th in fake.threads_in(CHANNEL_ID))
