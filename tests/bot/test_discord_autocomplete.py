"""``/play text`` completes the last word from the person's own rack, whatever separates it.

Issue 13, defect 9: the separators ``;``, ``|`` and new lines work with or without spaces
everywhere, so the completion must see a word start right after them too.
"""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import CHANNEL_ID, OWNER_ID
from tests.bot.discord_helpers import make_bot, start_rummikub_with_a_bot
from tests.bot.fakediscord import FakeDiscord, option, running


async def _completions(fake: FakeDiscord, thread: int, typed: str) -> list[str]:
    choices = await fake.autocomplete(
        OWNER_ID, None, thread, "play", [option("text", typed, focused=True)]
    )
    return [c["value"] for c in choices]


async def test_completion_after_every_separator(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    bot = make_bot(tmp_path / "db.sqlite3", seed=3)
    async with running(bot):
        thread = await start_rummikub_with_a_bot(fake, bot, OWNER_ID, CHANNEL_ID)
        [game_id] = bot.service.live_game_ids()
        rack = bot.service.rack(game_id, str(OWNER_ID))
        letter = rack[0][0]
        mine = sorted({p for p in rack if p.startswith(letter)})
        for head in ("meld R1 R2;", "meld R1 R2; ", "meld R1 R2|", "meld R1 R2 ", "add 1,"):
            got = await _completions(fake, thread, head + letter)
            keep = head if head.endswith(" ") else head + " "
            assert sorted(got) == [keep + p for p in mine], head
        # nothing of anybody else's rack is offered
        got = await _completions(fake, thread, "meld ")
        assert {g.removeprefix("meld ") for g in got} <= set(rack)
