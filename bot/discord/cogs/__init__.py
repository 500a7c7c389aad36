"""One cog per feature: lobby (``/rummy``), play (``/play`` ...), league (``/ladder``,
``/stats``, ``/tournament``). Cogs only parse options and call :mod:`bot.discord.actions`."""

from .league import LeagueCog
from .lobby import LobbyCog
from .play import PlayCog

__all__ = ["LeagueCog", "LobbyCog", "PlayCog"]
