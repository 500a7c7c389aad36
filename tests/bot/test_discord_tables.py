"""The table before and after the game (issue 16, item 5), with the real client on the fake
Discord: the lobby message and its buttons (with refusals), the closed thread, the lobby message
showing the result, and the rematch (a Rummy match keeps its running total)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.service.players import computer_player
from tests.bot.conftest import CHANNEL_ID, CLOSED_DM_ID, GUILD_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import answer_of, current_state, make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

EPHEMERAL = 1 << 6


def lobby_message(fake: FakeDiscord, game_id: str) -> Any:
    """The lobby message of a game (in the channel, carrying or having carried its buttons)."""
    found = [
        m
        for m in fake.messages_in(CHANNEL_ID, include_ephemeral=False)
        if f"table {game_id}" in m.content or f"Tisch {game_id}" in m.content
    ]
    assert found, f"no lobby message of {game_id}"
    return found[0]


def button_row(*custom_ids: str) -> list[dict[str, Any]]:
    """A message's components as an old client still shows them (buttons since removed)."""
    buttons = [{"type": 2, "style": 1, "label": "x", "custom_id": cid} for cid in custom_ids]
    return [{"type": 1, "components": buttons}]


async def click(fake: FakeDiscord, user: int, message_id: int, custom_id: str, **kw: Any) -> str:
    sent = await fake.click(user, CHANNEL_ID, message_id, custom_id, **kw)
    return await answer_of(fake, sent)


async def play_out(
    fake: FakeDiscord, bot: Any, game_id: str, thread: int, level: str = "strong"
) -> None:
    """Play the people's turns with a computer player's choices, by /play."""
    player = computer_player(level)
    for _ in range(400):
        await bot.service.wait_idle()
        record, state = await current_state(bot, game_id)
        if record.status != "playing":
            return
        seat = state.current
        seat_info = record.seats[seat]
        if seat_info.is_bot:
            continue
        text = player.choose(state, seat)
        _, said = await slash(
            fake, int(seat_info.player_id), thread, "play", [option("text", text)]
        )
        after, _ = await current_state(bot, game_id)
        assert after.seq > record.seq, said
    raise AssertionError("the game did not finish")


async def test_lobby_buttons_and_refusals(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [game_id] = bot.service.live_game_ids()
        lobby = lobby_message(fake, game_id)
        # the lobby message lists the seats (German guild) and carries the four buttons
        assert f"1. <@{OWNER_ID}> (Gastgeber)" in lobby.content
        assert "Plätze 1/4" in lobby.content
        ids = {f"rummy:lobby:{op}:{game_id}" for op in ("join", "leave", "start", "bot")}
        assert set(lobby.custom_ids()) == ids

        # Bernd joins with the button; the lobby message shows him
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:join:{game_id}")
        assert said.startswith(f"You sit at table {game_id}")
        lobby = fake.messages[lobby.id]
        assert f"2. <@{PLAYER_ID}>" in lobby.content and "Plätze 2/4" in lobby.content
        # refusals: a second join, Start and Add computer by a non-host (German answers too)
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:join:{game_id}")
        assert said == "You already sit at this table."
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:start:{game_id}", locale="de")
        assert said == "Nur der Gastgeber kann das Spiel starten."
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:bot:{game_id}")
        assert said.startswith("Only the host can")
        assert [s.player_id for s in bot.service.seats(game_id)] == [str(OWNER_ID), str(PLAYER_ID)]
        # Bernd leaves and comes back; the host adds computers until the table is full
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:leave:{game_id}")
        assert said == f"You left table {game_id}."
        assert f"<@{PLAYER_ID}>" not in fake.messages[lobby.id].content
        await click(fake, PLAYER_ID, lobby.id, f"rummy:lobby:join:{game_id}")
        for _ in range(2):
            said = await click(fake, OWNER_ID, lobby.id, f"rummy:lobby:bot:{game_id}")
            assert said == f"A computer player sits at table {game_id}."
        assert "3. Computer 1 (Computer, medium)" in fake.messages[lobby.id].content
        said = await click(fake, CLOSED_DM_ID, lobby.id, f"rummy:lobby:join:{game_id}")
        assert said.startswith("The table is full")
        assert len(bot.service.seats(game_id)) == 4

        # a button of this table on another table's lobby message changes nothing
        await slash(
            fake, CLOSED_DM_ID, CHANNEL_ID, "rummy", [subcommand("new", option("preset", "stein"))]
        )
        [other_id] = [g for g in bot.service.live_game_ids() if g != game_id]
        other = lobby_message(fake, other_id)
        other.data["components"] = button_row(f"rummy:lobby:leave:{game_id}")
        said = await click(fake, PLAYER_ID, other.id, f"rummy:lobby:leave:{game_id}")
        assert said.startswith("This button belongs to a table that is no longer open")
        assert len(bot.service.seats(game_id)) == 4
        # the last person leaving closes that other table: its lobby message and thread say so
        other_thread = fake.threads_in(CHANNEL_ID)[-1]
        other.data["components"] = button_row(f"rummy:lobby:leave:{other_id}")
        said = await click(fake, CLOSED_DM_ID, other.id, f"rummy:lobby:leave:{other_id}")
        assert said == f"You left table {other_id}."
        assert fake.messages[other.id].content == f"Tisch {other_id} ist geschlossen."
        assert fake.messages[other.id].custom_ids() == []
        closed = fake.channels[other_thread.id]
        assert closed.archived and closed.locked
        assert closed.name == "✗ Stein-Rummy · Tisch geschlossen"
        # the host starts: the lobby message links the thread and loses its buttons
        said = await click(fake, OWNER_ID, lobby.id, f"rummy:lobby:start:{game_id}")
        assert said.startswith("The game has started")
        assert bot.service.status(game_id) == "playing"
        lobby = fake.messages[lobby.id]
        assert lobby.custom_ids() == [] and "Es wird in <#" in lobby.content

    # a stale lobby button (the table has started) after a restart: ephemeral, nothing changes
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        before = (await bot.store.load_game(game_id)).seq
        # (an old client still showing the buttons)
        fake.messages[lobby.id].data["components"] = button_row(*sorted(ids))
        said = await click(fake, CLOSED_DM_ID, lobby.id, f"rummy:lobby:join:{game_id}")
        assert said.startswith("This button belongs to a table that is no longer open")
        answers = [m for m in fake.messages_in(CHANNEL_ID) if m.content.startswith("This button")]
        assert answers and all(m.flags & EPHEMERAL for m in answers)
        assert (await bot.store.load_game(game_id)).seq == before
        assert len(bot.service.seats(game_id)) == 4


async def test_game_end_closes_the_thread_and_rematch_keeps_the_match(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3", seed=7)
    async with running(bot):
        new = subcommand("new", option("preset", "rummy"), option("bots", 1))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [game_id] = bot.service.live_game_ids()
        thread = fake.threads_in(CHANNEL_ID)[-1]
        lobby = lobby_message(fake, game_id)
        said = await click(fake, OWNER_ID, lobby.id, f"rummy:lobby:start:{game_id}")
        await play_out(fake, bot, game_id, thread.id)
        from bot.discord.tables import tables_of

        await tables_of(bot).wait_closed()
        # the thread: renamed with the winner (guild language), archived and locked
        closed = fake.channels[thread.id]
        assert closed.archived and closed.locked
        record = await bot.store.load_game(game_id)
        results = await bot.store.results(game_id)
        winner = next(r for r in results if r.winner)
        name = record.seats[winner.seat].name
        assert closed.name.startswith("✓ ") and closed.name.endswith(f"{name} hat gewonnen")
        assert len(closed.name) <= 100
        # the lobby message shows the result and offers the rematch
        lobby = fake.messages[lobby.id]
        assert closed.name in lobby.content and f"<#{thread.id}>" in lobby.content
        assert lobby.custom_ids() == [f"rummy:rematch:{game_id}"]
        match = await bot.service.league.rummy_match(str(GUILD_ID), str(CHANNEL_ID))
        assert match.game_ids == (game_id,)

        # someone who did not play cannot ask for the rematch
        said = await click(fake, PLAYER_ID, lobby.id, f"rummy:rematch:{game_id}")
        assert said == "You do not sit at this table."
        said = await click(fake, OWNER_ID, lobby.id, f"rummy:rematch:{game_id}")
        [new_id] = bot.service.live_game_ids()
        assert new_id != game_id
        new_thread = fake.threads_in(CHANNEL_ID)[-1]
        assert new_thread.id != thread.id and not new_thread.archived
        assert said == f"The game has started: <#{new_thread.id}>"
        assert [s.player_id for s in bot.service.seats(new_id)] == [
            s.player_id for s in record.seats
        ]
        # the old lobby message points to the rematch and has no button any more
        old = fake.messages[lobby.id]
        assert old.custom_ids() == [] and f"<#{new_thread.id}>" in old.content
        # a second click answers with the running rematch and opens nothing
        old.data["components"] = button_row(f"rummy:rematch:{game_id}")
        said = await click(fake, OWNER_ID, lobby.id, f"rummy:rematch:{game_id}")
        assert said == f"The rematch is already on: <#{new_thread.id}>"
        assert bot.service.live_game_ids() == [new_id]

        # the second hand is played in the new thread; the Rummy match goes on
        await play_out(fake, bot, new_id, new_thread.id)
        await tables_of(bot).wait_closed()
        match = await bot.service.league.rummy_match(str(GUILD_ID), str(CHANNEL_ID))
        assert match.game_ids == (game_id, new_id)
        assert len(match.match.hands) == 2
        assert fake.channels[new_thread.id].archived
    assert fake.unknown_routes == []


def test_thread_title_fits_discord() -> None:
    from bot.discord.tables import thread_title
    from bot.service.outgoing import GameOver

    won = GameOver("g", "out", {"ranks": [2, 1], "points": [-5, 5]}, ("Ben", "Anna"))
    assert thread_title("rummikub", won, "en") == "✓ Rummikub (30 points) · Anna won"
    assert thread_title("rummikub", won, "de").endswith("· Anna hat gewonnen")
    tie = GameOver("g", "out", {"ranks": [1, 1], "points": [0, 0]}, ("Ben", "Anna"))
    assert thread_title("stein", tie, "en").endswith("· Ben, Anna tied")
    gone = GameOver("g", "abandoned", {"ranks": [1, 2], "points": [0, 0]}, ("Ben", "Anna"))
    assert thread_title("stein", gone, "en").endswith("· game over")
    long = GameOver("g", "out", {"ranks": [1, 2], "points": [0, 0]}, ("N" * 150, "Anna"))
    title = thread_title("rummikub", long, "de")
    assert len(title) == 100 and title.endswith("…")


async def test_a_table_left_open_by_a_stop_is_closed_at_the_next_start(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = make_bot(db)
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"), option("bots", 1))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [game_id] = bot.service.live_game_ids()
        thread = fake.threads_in(CHANNEL_ID)[-1]
        await slash(fake, OWNER_ID, thread.id, "rummy", [subcommand("start")])
        await bot.service.wait_idle()
        _, said = await slash(fake, OWNER_ID, thread.id, "rummy", [subcommand("abort")])
        assert said == f"Game {game_id} was aborted."
        from bot.discord.tables import tables_of

        await tables_of(bot).wait_closed()
        closed = fake.channels[thread.id]
        title = closed.name
        assert (
            closed.archived and title.startswith("✓ Rummikub") and title.endswith("· Spiel beendet")
        )
        extra = await bot.service.adapter_data("discord_game", game_id)
        lobby = fake.messages[int(extra["lobby_message_id"])]
        assert lobby.content.startswith(title) and "Spiel aufgegeben." in lobby.content
        assert lobby.custom_ids() == []  # an aborted game offers no rematch
        # as if the bot had stopped before it was done: the thread open, the close not noted
        assert extra["closed"] is True and extra["closing"]["title"] == closed.name
        await bot.service.set_adapter_data("discord_game", game_id, {**extra, "closed": False})
    closed.archived = closed.locked = False
    closed.name = "Rummy"
    bot = make_bot(db)
    async with running(bot):
        await fake.wait_until(
            lambda: fake.channels[thread.id].locked or None, 5.0, "the thread closed"
        )
        assert fake.channels[thread.id].archived
        assert fake.channels[thread.id].name == title


async def test_rematch_keeps_the_romme_sitting(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3", seed=5)
    async with running(bot):
        from bot.discord.tables import tables_of

        new = subcommand("new", option("preset", "romme"), option("bots", 1))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        [game_id] = bot.service.live_game_ids()
        thread = fake.threads_in(CHANNEL_ID)[-1]
        lobby = lobby_message(fake, game_id)
        await click(fake, OWNER_ID, lobby.id, f"rummy:lobby:start:{game_id}")
        await play_out(fake, bot, game_id, thread.id, "medium")
        await tables_of(bot).wait_closed()
        said = await click(fake, OWNER_ID, lobby.id, f"rummy:rematch:{game_id}")
        [new_id] = bot.service.live_game_ids()
        new_thread = fake.threads_in(CHANNEL_ID)[-1]
        assert said == f"The game has started: <#{new_thread.id}>"
        await play_out(fake, bot, new_id, new_thread.id, "medium")
        await tables_of(bot).wait_closed()
        sitting = await bot.service.league.sitting(str(GUILD_ID), str(CHANNEL_ID))
        assert sitting.game_ids == (game_id, new_id) and sitting.closed_at is None
