"""Fixtures for bot tests: a started, patched :class:`FakeDiscord` with a small guild."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.bot.fakediscord import FakeDiscord

BOT_ID = 1_180_000_000_000_000_001
GUILD_ID = 1_180_000_000_000_000_100
CHANNEL_ID = 1_180_000_000_000_000_200
OWNER_ID = 1_180_000_000_000_000_301  # "anna", guild owner
PLAYER_ID = 1_180_000_000_000_000_302  # "bernd"
CLOSED_DM_ID = 1_180_000_000_000_000_303  # "carla", does not accept DMs


def build_fake() -> FakeDiscord:
    """The standard world: guild "Rummy Club" (German), #rummy, anna (owner), bernd, carla."""
    fake = FakeDiscord(bot_id=BOT_ID, bot_name="RummyBot")
    fake.add_user(OWNER_ID, "anna", global_name="Anna")
    fake.add_user(PLAYER_ID, "bernd", global_name="Bernd")
    fake.add_user(CLOSED_DM_ID, "carla", global_name="Carla", dms_closed=True)
    fake.add_guild(GUILD_ID, "Rummy Club", owner_id=OWNER_ID, preferred_locale="de")
    fake.add_member(GUILD_ID, PLAYER_ID)
    fake.add_member(GUILD_ID, CLOSED_DM_ID)
    fake.add_channel(GUILD_ID, CHANNEL_ID, "rummy", topic="Tile rummy")
    return fake


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord; discord.py is patched to talk to it for the test's duration."""
    fake = build_fake()
    await fake.start()
    try:
        with fake.patched():
            yield fake
    finally:
        await fake.close()
