"""The messages the service hands to front ends (:mod:`bot.service.outgoing` values).

:class:`Messages` turns what happened in a game (engine events, a new turn, the end) into
Outgoing values, and draws the pictures through the :class:`~bot.service.ports.Renderer` port
(the one place pictures are made) in a worker thread; a picture that fails is left out, it
never fails a move.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.errors import RummyError
from engine.game import Event

from .errors import ServiceError
from .outgoing import (
    ErrorReply,
    GameOver,
    Outgoing,
    PrivateRack,
    PrivateText,
    PublicText,
    TablePicture,
    TurnPrompt,
)
from .people import People
from .ports import Renderer
from .registry import LiveGame

log = logging.getLogger(__name__)


def _working_view(state: Any) -> Any:
    """The public picture's view while a tile game's mover has changed the table this turn:
    their working table, marking what they laid or moved so far (None otherwise: the committed
    table). A deliberate choice (issue 16): as at a real table everybody watches the melds being
    rearranged; the rack stays private, and after ``reset`` the table shows as it was."""
    working = getattr(state, "working_melds", None)
    if working is None or state.status != "playing":
        return None
    committed = state.public_view().melds
    if [(m.pieces, m.claim) for m in working()] == [(m.pieces, m.claim) for m in committed]:
        return None
    from .turns import working_view  # tile games' turn under way (bot.service.turns)

    return working_view(state)


class Messages:
    """Outgoing values for one game's changes, in each recipient's language."""

    def __init__(self, people: People, renderer: Renderer | None, *, pictures: bool) -> None:
        self.people = people
        self.renderer = renderer
        self.pictures = pictures  # the table and rack pictures that go with each change

    def error(
        self, game_id: str | None, to: str, exc: RummyError | ServiceError, lang: str
    ) -> ErrorReply:
        wording = getattr(exc, "wording", None)
        return ErrorReply(game_id, to, exc.code, lang, dict(exc.params), wording)

    def events(self, live: LiveGame, events: list[Event], *, public: bool) -> list[Outgoing]:
        out: list[Outgoing] = []
        names = tuple(s.name for s in live.seats)
        shown = tuple(e for e in events if not e.private)
        if shown and public:
            out.append(PublicText(live.id, events=shown, names=names))
        private: dict[int, list[Event]] = {}
        for event in events:
            if event.private and event.seat is not None:
                private.setdefault(event.seat, []).append(event)
        for seat, items in private.items():
            if not 0 <= seat < len(live.seats) or live.seats[seat].is_bot:
                continue
            to = live.seats[seat].player_id
            lines: list[Any] = list(items)
            working = getattr(live.state, "working_table", None)  # tile games
            if (
                working is not None
                and live.state.status == "playing"
                and live.state.current == seat
                and any(e.kind not in ("drew", "hint") for e in items)
            ):
                lines.append(("service.working_table", {"table": working()}))
            lang = self.people.cached_lang(to)
            out.append(PrivateText(live.id, to, tuple(lines), lang, names))
        return out

    async def pictures_and_racks(
        self, live: LiveGame, *, changed: list[int], moves: Any = None
    ) -> list[Outgoing]:
        """The table picture, and the private rack of every person in ``changed``, each drawn
        in its owner's language (the stored locale: a restart does not lose it). With ``moves``
        (what the turn that just passed did) the picture highlights only what it laid or moved;
        while a tile game's mover works on the table it shows their working table."""
        out: list[Outgoing] = []
        state = live.state
        renderer = self.renderer if self.pictures else None
        if renderer is not None:
            view = _working_view(state)
            if view is None:
                view = state.public_view()
                if moves is not None:
                    from .turns import highlighted  # the turn words, present when moves are

                    view = highlighted(view, moves)
            out.append(TablePicture(live.id, view.turn_no, view, self.table_picture))
        for seat in changed:
            info = live.seats[seat]
            if info.is_bot:
                continue
            faces = state.rack(seat)
            pieces = tuple(str(f) for f in faces)
            lang = await self.people.lang(info.player_id)
            png = None
            if renderer is not None:
                png = await self.render(renderer.rack, faces, lang)
            out.append(PrivateRack(live.id, info.player_id, seat, pieces, lang, png))
        return out

    def turn_prompt(self, live: LiveGame) -> TurnPrompt:
        seat = live.state.current
        info = live.seats[seat]
        return TurnPrompt(live.id, info.player_id, seat, info.name, info.is_bot, live.deadline)

    def reminder(self, live: LiveGame, left: int) -> TurnPrompt:
        seat = live.state.current
        info = live.seats[seat]
        return TurnPrompt(
            live.id,
            info.player_id,
            seat,
            info.name,
            info.is_bot,
            live.deadline,
            "service.reminder",
            {"left": left},
            "reminder",
        )

    def game_over(self, live: LiveGame) -> GameOver:
        result = live.state.result
        data = result.to_dict()
        data["player_ids"] = [s.player_id for s in live.seats]
        return GameOver(live.id, result.reason, data, tuple(s.name for s in live.seats))

    def lobby(self, live: LiveGame, key: str, **params: Any) -> PublicText:
        """A lobby change and who sits at the table now."""
        return PublicText(
            live.id,
            "service.lobby.table",
            {
                "change": {"key": key, **params},
                "count": len(live.seats),
                "maximum": live.rules.max_players,
                "names": ", ".join(s.name for s in live.seats),
            },
            kind="lobby",
        )

    # ------------------------------------------------------------------ pictures

    async def render(self, fn: Callable[..., Any], *args: Any) -> bytes | None:
        """Render in a worker thread; a picture failure never fails a move."""
        try:
            png = await asyncio.to_thread(fn, *args)
        except Exception:
            log.exception("rendering failed")
            return None
        return png if isinstance(png, bytes | bytearray) else None

    async def table_picture(self, view: Any, lang: str) -> bytes | None:
        if self.renderer is None or view is None:
            return None
        return await self.render(self.renderer.table, view, lang)

    async def rack_picture(self, pieces: Sequence[Any], lang: str) -> bytes | None:
        if self.renderer is None:
            return None
        return await self.render(self.renderer.rack, list(pieces), lang)

    async def ladder_picture(
        self, rows: Sequence[Mapping[str, Any]], *, title: str | None, lang: str
    ) -> bytes | None:
        if self.renderer is None:
            return None

        def draw() -> bytes | None:
            return self.renderer.ladder(rows, title=title, lang=lang)

        return await self.render(draw)
