"""The Discord adapter: a thin layer between discord.py and :class:`bot.service.GameService`.

- :mod:`.client` - :class:`RummyBot` (an ``AutoShardedBot``): start-up, shutdown, command sync;
- :mod:`.actions` - what commands and buttons do (acknowledge, call the service, deliver);
- :mod:`.delivery` - service messages -> Discord messages (threads, DMs, ephemeral replies);
- :mod:`.views` - the persistent game buttons; :mod:`.games` - game id <-> thread/channel;
- :mod:`.league` - ladder results, seasons, guild settings, tournaments in the store;
- :mod:`.texts` / :mod:`.translator` - English and German; :mod:`.cogs` - the slash commands.
"""

from .client import RummyBot

__all__ = ["RummyBot"]
