"""What the game service asks a front end to say: platform-neutral message values, as data.

The service never formats Discord objects and writes no sentence itself. It returns (or hands
to its sink) a list of these values; each carries an i18n key and its params (or the engine's
events, which are data too), and is worded for each reader with :mod:`i18n`:
``message(lang)`` in any language, so a thread and a direct message can each follow their
reader. Private values and error replies also know their recipient's language (``lang``);
their ``text`` is worded in it.

``text`` / ``text_de`` are the English and German wording (kept for front ends and tests that
read them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from i18n import error_text, event_text, t

Line = Any
"""One line of a message: an engine event (worded with ``i18n.event_text``) or a
``(key, params)`` pair (worded with ``i18n.t``)."""


def _line(line: Line, lang: str, names: Sequence[str]) -> str:
    if isinstance(line, tuple):
        key, params = line
        return t(key, lang, **params)
    return event_text(line, lang, names)


def _lines(lines: Sequence[Line], lang: str, names: Sequence[str]) -> str:
    return "\n".join(_line(line, lang, names) for line in lines)


class _Worded:
    """``text`` (English) and ``text_de`` (German) from ``message(lang)``."""

    __slots__ = ()

    def message(self, lang: str = "en") -> str:
        raise NotImplementedError

    @property
    def text(self) -> str:
        return self.message("en")

    @property
    def text_de(self) -> str:
        return self.message("de")


@dataclass(frozen=True, slots=True)
class PublicText(_Worded):
    """A line (or lines) for everyone at the table: what just happened. Either a text
    (``key`` + ``params``) or the engine's public ``events`` (``names``: the seats' names)."""

    game_id: str
    key: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "event"  # event / lobby / start / reminder / game_over / abandoned
    events: tuple[Any, ...] = ()
    names: tuple[str, ...] = ()

    def message(self, lang: str = "en") -> str:
        if self.events:
            return _lines(self.events, lang, self.names)
        return t(self.key, lang, **self.params)


@dataclass(frozen=True, slots=True)
class TablePicture:
    """The table after a change everybody may see: the public ``view`` it shows, drawn only
    when an adapter asks for it, in the reader's language (:meth:`png`; at most once per
    language). Within a batch only the picture an adapter shows is ever drawn."""

    game_id: str
    turn_no: int
    view: Any
    draw: Callable[[Any, str], Awaitable[bytes | None]] = field(repr=False, compare=False)
    drawn: dict[str, bytes | None] = field(default_factory=dict, repr=False, compare=False)

    async def png(self, lang: str = "en") -> bytes | None:
        """The picture in ``lang`` (None when drawing failed: a picture never fails a move)."""
        if lang not in self.drawn:
            self.drawn[lang] = await self.draw(self.view, lang)
        return self.drawn[lang]


@dataclass(frozen=True, slots=True)
class TurnPrompt(_Worded):
    """Whose turn it is: the adapter mentions ``player_id`` (unless ``is_bot``). ``kind`` is
    ``"turn"`` (a new turn) or ``"reminder"`` (time is running out)."""

    game_id: str
    player_id: str
    seat: int
    name: str
    is_bot: bool
    deadline: float | None
    key: str = "service.turn"
    params: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "turn"
    #: What the previous turn did (a :class:`bot.service.turns.TurnMoves`, worded by
    #: ``moves.message(lang)``), when the turn passed; None for reminders.
    moves: Any = None

    def message(self, lang: str = "en") -> str:
        return t(self.key, lang, name=self.name, **self.params)


@dataclass(frozen=True, slots=True)
class PrivateRack(_Worded):
    """One player's rack, for that player only (never shown to anyone else)."""

    game_id: str
    to: str
    seat: int
    pieces: tuple[str, ...]
    lang: str = "en"  # the player's language
    png: bytes | None = None

    def message(self, lang: str = "en") -> str:
        return t("service.rack", lang, count=len(self.pieces), pieces=" ".join(self.pieces))

    @property
    def text(self) -> str:  # in the player's language
        return self.message(self.lang)


@dataclass(frozen=True, slots=True)
class PrivateText(_Worded):
    """A message for one player only (what they drew, a hint, a working-table note): the
    player's private engine events and service lines (``names``: the seats' names)."""

    game_id: str
    to: str
    lines: tuple[Line, ...] = ()
    lang: str = "en"  # the player's language
    names: tuple[str, ...] = ()
    kind: str = "event"

    def message(self, lang: str = "en") -> str:
        return _lines(self.lines, lang, self.names)

    @property
    def text(self) -> str:  # in the player's language
        return self.message(self.lang)


@dataclass(frozen=True, slots=True)
class ErrorReply(_Worded):
    """Why the sender's message was not accepted (nothing changed); only for the sender.
    ``code`` and ``params`` are the error's (engine, service); ``wording`` its family's wording
    (``"card"`` for card games), as :func:`i18n.error_text` reads them."""

    game_id: str | None
    to: str
    code: str
    lang: str = "en"  # the sender's language
    params: Mapping[str, Any] = field(default_factory=dict)
    wording: str | None = None

    def message(self, lang: str = "en") -> str:
        return error_text(self, lang)

    @property
    def text(self) -> str:  # in the sender's language
        return self.message(self.lang)


@dataclass(frozen=True, slots=True)
class GameOver(_Worded):
    """The game has ended; ``result`` is :meth:`engine.game.Result.to_dict` plus player ids;
    ``names`` are the seats' names (the standings are worded from both)."""

    game_id: str
    reason: str
    result: dict[str, Any] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    #: What the last turn did (a :class:`bot.service.turns.TurnMoves`), when known.
    moves: Any = None

    def message(self, lang: str = "en") -> str:
        head = {"abandoned": "service.game_over.abandoned", "ended": "service.game_over.ended"}
        ranks, points = self.result["ranks"], self.result["points"]
        order = sorted(range(len(self.names)), key=lambda s: (ranks[s], s))
        lines = [t(head.get(self.reason, "service.game_over"), lang)]
        lines += [
            t("service.game_over.line", lang, rank=ranks[s], name=self.names[s], points=points[s])
            for s in order
        ]
        return "\n".join(lines)


Outgoing = (
    PublicText | TablePicture | TurnPrompt | PrivateRack | PrivateText | ErrorReply | GameOver
)
