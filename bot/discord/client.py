"""The bot process: :class:`RummyBot`, an ``AutoShardedBot`` wired to the game service.

``setup_hook`` (run once, before the gateway connects): set the command translator, open the
service through :func:`bot.wiring.open_service` (store, league and service in one place), start it
(it resumes every unfinished game at its last committed command, timers and computer players
included), register the persistent game buttons, add the cogs, and sync the commands (to
``DEV_GUILD_ID`` when set, else globally). ``close`` stops the service before Discord and closes
the store last, so no committed move is lost.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from ..service import GameService, ServiceConfig
from ..wiring import Wired, open_service, shard_plan
from .actions import Actions
from .cogs import LeagueCog, LobbyCog, PlayCog
from .delivery import Delivery
from .games import GameIndex
from .league import LeagueData
from .translator import RummyTranslator
from .views import GameButton

if TYPE_CHECKING:
    from ..app import Settings

log = logging.getLogger(__name__)


class RummyTree(app_commands.CommandTree):
    """A command tree whose errors become friendly ephemeral answers, never tracebacks."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        bot = interaction.client
        if isinstance(bot, RummyBot):
            await bot.actions.fail(interaction, original)
        else:  # pragma: no cover - the tree always belongs to a RummyBot
            log.error("command failed", exc_info=original)


def bot_intents() -> discord.Intents:
    """No privileged intent: slash commands and buttons need neither content nor members."""
    intents = discord.Intents.default()
    intents.message_content = False
    intents.members = False
    intents.presences = False
    return intents


class RummyBot(commands.AutoShardedBot):
    """The Discord bot. ``service_config``, ``clock`` and ``players`` go to the service
    (tests make computer players instant and the clock manual); ``metrics`` (a
    :class:`~bot.service.ports.Metrics`, e.g. :class:`bot.ops.metrics.PrometheusMetrics`)
    counts the service's commands and the adapter's Discord failures."""

    def __init__(
        self,
        settings: Settings,
        *,
        service_config: ServiceConfig | None = None,
        clock: Any = None,
        players: Any = None,
        metrics: Any = None,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=bot_intents(),
            help_command=None,
            tree_cls=RummyTree,
            shard_count=settings.shard_count,
            shard_ids=list(settings.shard_ids) if settings.shard_ids else None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False),
        )
        self.settings = settings
        self.service_config = service_config
        self.clock = clock
        self.players = players
        #: The operations metrics (None: none are kept); Delivery counts Discord failures here.
        self.metrics = metrics
        #: What the wiring opened (store, league, service); None before ``setup_hook``.
        self.wired: Wired | None = None
        self.service: GameService | None = None
        self.games = GameIndex()
        self.delivery = Delivery(self)
        self.actions = Actions(self)
        self.league = LeagueData(self)
        #: Test hook: ``{"seed": int, "options": {...}}`` applied to every new game.
        self.game_overrides: dict[str, Any] = {}
        #: The commands Discord accepted at the last sync.
        self.synced: list[app_commands.AppCommand] = []

    async def setup_hook(self) -> None:
        await self.tree.set_translator(RummyTranslator())
        # the wiring opens the league (its tournament desk) before the service
        # starts (which may finish resumed games at once)
        self.wired = await open_service(
            self.settings.database_url,
            config=self.service_config,
            clock=self.clock,
            players=self.players,
            sink=self.delivery.from_service,
            league=True,
            metrics=self.metrics,
            shards=shard_plan(self.settings.shard_count, self.settings.shard_ids),
        )
        self.service = self.wired.service
        await self.games.load(self.service)
        await self.service.start()
        self.add_dynamic_items(GameButton)
        for cog in (LobbyCog(self), PlayCog(self), LeagueCog(self)):
            await self.add_cog(cog)
        await self.sync_commands()

    async def sync_commands(self) -> None:
        """To the development guild when configured (instant), else globally (slow to spread)."""
        guild_id = self.settings.dev_guild_id
        try:
            if guild_id:
                guild = discord.Object(int(guild_id))
                self.tree.copy_global_to(guild=guild)
                self.synced = await self.tree.sync(guild=guild)
            else:
                self.synced = await self.tree.sync()
        except discord.HTTPException:
            log.exception("syncing the slash commands failed; the old ones stay active")
        else:
            log.info("synced %d commands (%s)", len(self.synced), guild_id or "global")

    async def on_ready(self) -> None:
        log.info("logged in as %s on %d guilds", self.user, len(self.guilds))

    @property
    def store(self) -> Any:
        """The store the wiring opened (for tests and operators; the adapter itself goes through
        the service)."""
        return self.wired.store if self.wired is not None else None

    async def close(self) -> None:
        if self.service is not None:
            await self.service.stop()
        try:
            await super().close()
        finally:
            if self.wired is not None:
                await self.wired.close()
                self.wired = None
