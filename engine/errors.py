"""Typed errors with stable codes and params; their sentences live in the i18n catalogues.

Every rejected input raises :class:`RummyError`. Its ``code`` is machine-readable and never changes
once published (tests, the bot and other tools match on it); its ``params`` are data (tokens,
pieces, meld numbers, nested reasons such as ``why={"key": "why....", ...}``). The sentence a
player reads is made at the edge: ``i18n.error_text(exc, lang)`` (catalogue key ``error.<code>``).
"""

from __future__ import annotations

from typing import Any, ClassVar


class CodedError(Exception):
    """An error with a stable ``code`` and ``params`` (data). The service, the league and the
    settlement use the same base; ``wording`` names a variant of the texts (``"card"``: the
    catalogue's ``error.card.<code>`` where there is one)."""

    wording: ClassVar[str | None] = None

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(code)

    def __str__(self) -> str:
        if not self.params:
            return self.code
        return f"{self.code} " + ", ".join(f"{k}={v!r}" for k, v in self.params.items())

    def __reduce__(self):  # keep pickling/copying working with keyword params
        return (_rebuild, (type(self), self.code, self.params))


def _rebuild(cls: type[CodedError], code: str, params: dict[str, Any]) -> CodedError:
    return cls(code, **params)


class RummyError(CodedError):
    """A rejected input: a stable ``code`` and its ``params``."""
