"""Typed errors of the league logic, with stable codes and params.

Same shape as ``engine.errors.RummyError``: match on ``code`` (never changes once published),
show ``i18n.error_text(exc, lang)`` to people (catalogue key ``error.<code>``).
"""

from __future__ import annotations

from engine.errors import CodedError


class LeagueError(CodedError):
    """A rejected league, season, sitting or tournament operation."""


class LeagueServiceError(LeagueError):
    """A rejected league operation of the storage layer (the ladder book, sittings, matches,
    tournament desk): a :class:`LeagueError` of its own family."""
