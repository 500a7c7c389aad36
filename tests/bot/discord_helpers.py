"""Helpers for the Discord adapter tests: a bot on a temporary SQLite file, and shortcuts.

The fixtures of ``tests/bot/conftest.py`` provide the fake Discord (``fake_discord``); this module
adds :func:`make_bot` (a :class:`~bot.discord.client.RummyBot` with instant computer players) and
small wrappers that run a slash command and wait for its ephemeral answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.app import Settings, create_bot
from bot.service import ServiceConfig
from tests.bot.conftest import GUILD_ID
from tests.bot.fakediscord import FakeDiscord, SentInteraction, StoredMessage


def make_bot(
    db: Path, *, pictures: bool = False, dev_guild: bool = True, clock: Any = None, **overrides: Any
):
    """A bot on ``db`` syncing to the test guild; computer players move at once."""
    settings = Settings(
        discord_token="fake-bot-token",
        database_url=f"sqlite:///{db}",
        dev_guild_id=GUILD_ID if dev_guild else None,
        # a fixed shard count: the fake's /gateway/bot URL lacks the trailing slash its
        # websocket route needs, so discord.py's automatic shard lookup cannot connect
        shard_count=1,
    )
    config = ServiceConfig(pictures=pictures, bot_pause=0.0, tick_seconds=0.05)
    bot = create_bot(settings, service_config=config, clock=clock)
    bot.game_overrides = dict(overrides)
    return bot


async def answer_of(fake: FakeDiscord, sent: SentInteraction, timeout: float = 5.0) -> str:
    """The ephemeral follow-up text of a deferred interaction."""

    def probe() -> str | None:
        message = fake.original_message(sent)
        if message is None or message.flags & (1 << 7):  # still "thinking"
            return None
        return message.content

    return await fake.wait_until(probe, timeout, "the interaction's answer")


async def slash(
    fake: FakeDiscord,
    user: int,
    channel: int,
    name: str,
    options: list[dict[str, Any]] | None = None,
    *,
    locale: str = "en-US",
    guild: int | None = GUILD_ID,
) -> tuple[SentInteraction, str]:
    """Run ``/name options`` and return the interaction and its ephemeral answer."""
    sent = await fake.slash(user, guild, channel, name, options, locale=locale)
    return sent, await answer_of(fake, sent)


def public_messages(fake: FakeDiscord) -> list[StoredMessage]:
    """Every non-ephemeral message in guild channels and threads (not DMs)."""
    dm_ids = {c.id for c in fake.channels.values() if c.type == 1}
    return [
        m
        for m in fake.messages.values()
        if not m.ephemeral and m.channel_id not in dm_ids and not m.deleted
    ]


async def current_state(bot: Any, game_id: str) -> Any:
    """The game's last committed state, read back from the store (as a restart would)."""
    from engine.game import load_game

    record = await bot.store.load_game(game_id)
    return record, (load_game(record.snapshot_json) if record.snapshot_json else None)


def latest_with_buttons(fake: FakeDiscord, channel_id: int) -> StoredMessage:
    """The newest message in a channel that carries the game buttons."""
    found = [
        m
        for m in fake.messages_in(channel_id)
        if any(c.startswith("rummy:") for c in m.custom_ids())
    ]
    assert found, "no message with game buttons"
    return found[-1]


async def start_rummikub_with_a_bot(fake: FakeDiscord, bot: Any, user: int, channel: int) -> int:
    """``/rummy new`` (Rummikub, one computer player) and ``/rummy start`` by ``user``; the
    game's thread id."""
    from tests.bot.fakediscord import option, subcommand

    new = subcommand("new", option("preset", "rummikub"), option("bots", 1))
    await slash(fake, user, channel, "rummy", [new])
    thread = fake.threads_in(channel)[-1].id
    await slash(fake, user, thread, "rummy", [subcommand("start")])
    return thread


def game_messages(fake: FakeDiscord, channel_id: int) -> list[StoredMessage]:
    """The game messages (components v2 layouts the bot posted) in a thread, oldest first."""
    return [
        m
        for m in fake.messages_in(channel_id, include_ephemeral=False)
        if m.is_v2 and m.author_id == fake.bot_user.id
    ]


def with_buttons(fake: FakeDiscord, channel_id: int) -> list[StoredMessage]:
    """Messages in a channel that still carry game buttons."""
    return [
        m
        for m in fake.messages_in(channel_id)
        if any(c.startswith("rummy:") for c in m.custom_ids())
    ]


def every_dm_to(fake: FakeDiscord, user_id: int) -> list[StoredMessage]:
    """Every DM the bot sent to ``user_id``, deleted ones included (what they were notified of)."""
    channel_ids = {
        c.id for c in fake.channels.values() if c.type == 1 and c.recipient_id == user_id
    }
    return [
        m
        for m in fake.messages.values()
        if m.channel_id in channel_ids and m.author_id == fake.bot_user.id
    ]


def notifications(fake: FakeDiscord, user_id: int, after: int = 0) -> list[StoredMessage]:
    """The messages (id > ``after``) that notified ``user_id``: a new message pinging them or a
    new DM, unless sent silently (edits never notify)."""
    return [m for m in fake.messages.values() if m.id > after and user_id in m.notified]
