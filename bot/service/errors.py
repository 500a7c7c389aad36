"""The service's own rejections (lobby, game lookup, limits).

Like :class:`engine.errors.RummyError`: a stable ``code`` and ``params``; the sentence is
``i18n.error_text(exc, lang)`` (catalogue key ``error.<code>``). The engine's errors pass through
unchanged; these cover what the engine does not know about (games, seats, hosts, computer
players, storage).
"""

from __future__ import annotations

from engine.errors import CodedError


class ServiceError(CodedError):
    """A request the service refuses; nothing changed."""
