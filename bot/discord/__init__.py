"""The Discord adapter: a thin layer between discord.py and :class:`bot.service.GameService`.

It talks to the service's public API only (built by :mod:`bot.wiring`; the league is
``service.league``) and words everything with :mod:`i18n` in the reader's language.

- :mod:`.client` - :class:`RummyBot` (an ``AutoShardedBot``): start-up, shutdown, command sync;
- :mod:`.actions` - what commands and buttons do (acknowledge, call the service, deliver);
- :mod:`.delivery` - service messages -> Discord messages (threads, DMs, ephemeral replies);
- :mod:`.views` - the persistent game buttons; :mod:`.games` - game id <-> thread/channel;
- :mod:`.league` - ladder posts, guild settings, the guild's tournament (through the league);
- :mod:`.translator` - German command names; :mod:`.cogs` - the slash commands.
"""

from .client import RummyBot

__all__ = ["RummyBot"]
