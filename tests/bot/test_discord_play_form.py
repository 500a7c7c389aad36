"""The Play button and its form (issue 16, item 6), with the real client on the fake Discord:
the form opens for the player to move, pre-filled with the hint's command, and runs what is
typed; a form submitted after its turn passed, or a click by someone else, gets a short
ephemeral answer and changes nothing; a form opened before a restart is answered after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID
from tests.bot.discord_helpers import answer_of, make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

EPHEMERAL = 1 << 6


def play_message(fake: FakeDiscord, thread: int, game_id: str) -> Any:
    """The live game message carrying the Play button."""
    found = [m for m in fake.messages_in(thread) if f"rummy:play:{game_id}" in m.custom_ids()]
    assert found, "no message with the Play button"
    return found[-1]


def opened_form(fake: FakeDiscord, sent: Any) -> dict[str, Any] | None:
    """The modal an interaction was answered with (callback type 9), or None."""
    for request in fake.interaction_responses(sent):
        body = request.json or {}
        if request.path.endswith("/callback") and body.get("type") == 9:
            return body["data"]
    return None


def text_inputs(form: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item.get("type") == 4:
                found[item["custom_id"]] = item
            walk(item.get("components") or [])
            if "component" in item:
                walk([item["component"]])

    walk(form.get("components") or [])
    return found


async def my_turn(bot: Any, game_id: str, user: int) -> None:
    """Wait until the computer players are done and ``user`` is to move."""
    await bot.service.wait_idle()
    view = bot.service.view(game_id)
    assert bot.service.seats(game_id)[view.current].player_id == str(user)


async def test_play_form(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = make_bot(db, seed=3)
    async with running(bot):
        new = subcommand("new", option("preset", "rummikub"), option("bots", 1))
        await slash(fake, OWNER_ID, CHANNEL_ID, "rummy", [new])
        thread = fake.threads_in(CHANNEL_ID)[-1].id
        await slash(fake, PLAYER_ID, thread, "rummy", [subcommand("join")])
        await slash(fake, OWNER_ID, thread, "rummy", [subcommand("start")])
        [game_id] = bot.service.live_game_ids()
        await bot.service.wait_idle()
        seats = bot.service.seats(game_id)
        mover = int(seats[bot.service.view(game_id).current].player_id)
        waiting = PLAYER_ID if mover == OWNER_ID else OWNER_ID
        message = play_message(fake, thread, game_id)

        # someone not to move: a short ephemeral answer, no form
        sent = await fake.click(waiting, thread, message.id, f"rummy:play:{game_id}")
        said = await answer_of(fake, sent)
        assert said == "It is not your turn." and opened_form(fake, sent) is None
        sent = await fake.click(waiting, thread, message.id, f"rummy:play:{game_id}", locale="de")
        assert await answer_of(fake, sent) == "Du bist nicht am Zug."

        # the player to move gets the form, pre-filled with the hint's command
        sent = await fake.click(mover, thread, message.id, f"rummy:play:{game_id}")
        form = await fake.wait_until(lambda: opened_form(fake, sent), 5.0, "the form")
        stamp = bot.service.turn_stamp(game_id)
        assert form["custom_id"] == f"rummy:playmodal:{game_id}:{stamp}"
        [field] = text_inputs(form).values()
        assert field["custom_id"] == "text" and field["value"]  # the hint's command
        before = (await bot.store.load_game(game_id)).seq
        # the form runs what was typed, like /play
        sent = await fake.submit_modal(mover, thread, form["custom_id"], {"text": "draw"})
        said = await answer_of(fake, sent)
        assert "drew" in said.lower() or "gezogen" in said.lower(), said
        assert (await bot.store.load_game(game_id)).seq > before
        # the same form once more: that turn has passed; nothing changes
        await bot.service.wait_idle()
        before = (await bot.store.load_game(game_id)).seq
        sent = await fake.submit_modal(mover, thread, form["custom_id"], {"text": "draw"})
        said = await answer_of(fake, sent)
        assert said == "That turn has passed; nothing was changed."
        answer = fake.original_message(sent)
        assert answer is not None and answer.flags & EPHEMERAL
        assert (await bot.store.load_game(game_id)).seq == before

        # the Play button of an older game message (an old client still shows it) points to
        # the live message and opens nothing
        mover = int(bot.service.seats(game_id)[bot.service.view(game_id).current].player_id)
        live = play_message(fake, thread, game_id)
        assert message.id != live.id
        fake.messages[message.id].data["components"] = [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "x", "custom_id": f"rummy:play:{game_id}"}
                ],
            }
        ]
        sent = await fake.click(mover, thread, message.id, f"rummy:play:{game_id}")
        said = await answer_of(fake, sent)
        assert said.startswith("That message is from an earlier turn") and str(live.id) in said
        assert opened_form(fake, sent) is None
        # a form opened now ...
        message = live
        sent = await fake.click(mover, thread, message.id, f"rummy:play:{game_id}")
        form = await fake.wait_until(lambda: opened_form(fake, sent), 5.0, "the form")

    # ... is answered after a restart (the listener reads it, no form kept in memory)
    bot = make_bot(db)
    async with running(bot):
        before = (await bot.store.load_game(game_id)).seq
        sent = await fake.submit_modal(mover, thread, form["custom_id"], {"text": "draw"})
        said = await answer_of(fake, sent)
        assert "drew" in said.lower() or "gezogen" in said.lower(), said
        assert (await bot.store.load_game(game_id)).seq > before
    assert fake.unknown_routes == []
