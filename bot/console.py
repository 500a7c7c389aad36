"""The terminal front end: one local game against computer players, in the same command language.

A thin layer over :class:`~bot.service.GameService`, like the Discord adapter: it reads lines from
stdin (a terminal or piped input; ``quit`` or end of input stops), passes them to the service and
prints the messages that come back, in the player's language (``--lang``, else ``LANG``).

- Every finished turn, the computer players' and the player's own, is told in words ("Computer 1
  laid R5 R6 R7 (meld 3) and added B4 to meld 1 · 9 tiles left", :mod:`bot.service.turns`).
- The table is shown as text; for the player to move it is the working table of the turn.
  The rack is listed in the order of the rack picture (by colour, then value, jokers last).
- Pictures only when asked (``pictures=DIR``): one table picture per turn,
  ``<game>-turn-<NNN>.png``, overwritten while the turn goes on (it shows the working table),
  and the rack, ``<game>-rack.png``, overwritten when it changes.
- No turn time limit unless asked (``turn_time`` seconds).
- Ctrl-C (SIGINT) ends the game cleanly: the service stops (its worker process too), the store
  closes, the exit code is 130; no traceback, no waiting for Enter.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from i18n import t

from .service import (
    ErrorReply,
    GameOver,
    GameService,
    Outgoing,
    PrivateRack,
    PrivateText,
    PublicText,
    ServiceConfig,
    TurnPrompt,
)
from .service.games import DEFAULT_VARIANT
from .service.turns import rack_order
from .wiring import open_service

YOU = "console"
EXIT_INTERRUPTED = 130

TOLD_BY_MOVES = frozenset(
    (
        "draw",
        "pick",
        "discard",
        "opened",
        "turn",
        "pass",
        "timeout",
        "penalty",
        "meld",
        "add",
        "swap",
    )
)
"""Public event kinds that the turn's words (``TurnPrompt.moves``) already tell: not printed
again when a message carries them."""


def help_text(family: str, lang: str = "en") -> str:
    """The console's ``help``: the commands of the game's family, in ``lang``."""
    return t(f"console.help.{'card' if family == 'card' else 'tile'}", lang)


def count_pieces(count: int, family: str, lang: str = "en") -> str:
    """``1 tile``, ``2 tiles``, ``1 card`` ... (German: ``1 Stein``, ``2 Karten``)."""
    return t(f"console.count.{'card' if family == 'card' else 'tile'}", lang, count=count)


def format_table(view: Any, you: int | None = None, lang: str = "en") -> str:
    """The view as text: seats, pool, discards and numbered melds (a meld not valid yet, on a
    working table, is marked)."""
    lines = []
    for seat in view.seats:
        mark = ">" if seat.seat == view.current and view.status == "playing" else " "
        who = t("console.you", lang) if seat.seat == you else ""
        opened = t("console.opened", lang) if seat.opened else ""
        pieces = count_pieces(seat.pieces, view.family, lang)
        lines.append(f" {mark} {seat.name}{who}: {pieces}{opened}")
    lines.append(f"   {t('console.pool', lang)}: {view.pool}")
    if view.discards:
        lines.append(f"   {t('console.discards', lang)}: {' '.join(view.discards)}")
    if view.melds:
        for meld in view.melds:
            claim = ""
            if meld.claim is not None:
                claim = t("working.claim", lang, player=view.seats[meld.claim].name)
            invalid = t("working.invalid", lang) if meld.kind is None else ""
            lines.append(f"   {meld.number:>2}: {' '.join(meld.pieces)}{claim}{invalid}")
    else:
        lines.append(f"   {t('console.no_melds', lang)}")
    return "\n".join(lines)


class Console:
    """Prints the service's messages for the one local player (and writes the pictures)."""

    def __init__(
        self, service: GameService, out: TextIO, *, lang: str, pictures: Path | None
    ) -> None:
        self.service = service
        self.out = out
        self.lang = lang
        self.pictures = pictures
        self.game_id: str | None = None
        self.over = False
        self._drawn: tuple[Any, ...] | None = None  # what the last table picture showed
        self._rack_drawn: tuple[str, ...] | None = None
        self._told: set[Path] = set()  # picture files whose path was printed

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    @property
    def family(self) -> str:
        view = self.service.view(self.game_id) if self.game_id else None
        return view.family if view is not None else "tile"

    def show_table(self) -> None:
        if self.game_id is None:
            return
        view = self.service.table_view(self.game_id, YOU)
        if view is None:
            return
        seats = self.service.seats(self.game_id)
        you = next((i for i, s in enumerate(seats) if s.player_id == YOU), None)
        self.say(format_table(view, you, self.lang))

    def rack(self) -> list[str]:
        if self.game_id is None:
            return []
        return rack_order(self.service.rack(self.game_id, YOU), self.family)

    def show_rack(self) -> None:
        if self.game_id is not None:
            label = t(f"console.rack.{'card' if self.family == 'card' else 'tile'}", self.lang)
            self.say(f"{label}: " + " ".join(self.rack()))

    async def deliver(self, messages: list[Outgoing]) -> None:
        """Print one batch of the service's messages (the sink, and command answers)."""
        mine = [m for m in messages if getattr(m, "game_id", None) in (None, self.game_id)]
        told = any(isinstance(m, TurnPrompt | GameOver) and getattr(m, "moves", None) for m in mine)
        for m in mine:  # what the turn did first, then what follows from it
            moves = getattr(m, "moves", None) if isinstance(m, TurnPrompt | GameOver) else None
            if moves is not None:
                self.say(moves.message(self.lang))
        rack_shown = False
        for m in mine:
            if isinstance(m, PublicText):
                if told and m.events:
                    rest = tuple(e for e in m.events if e.kind not in TOLD_BY_MOVES)
                    if not rest:
                        continue
                    m = dataclasses.replace(m, events=rest)
                self.say(m.message(self.lang))
            elif isinstance(m, GameOver):
                self.say(m.message(self.lang))
                self.over = True
                self.say(t("console.again", self.lang))
            elif isinstance(m, ErrorReply) and m.to == YOU:
                self.say(f"! {m.message(self.lang)}")
            elif isinstance(m, PrivateText) and m.to == YOU:
                self.say(m.message(self.lang))
            elif isinstance(m, PrivateRack) and m.to == YOU:
                pieces = rack_order(m.pieces, self.family)
                self.say(t("service.rack", self.lang, count=len(pieces), pieces=" ".join(pieces)))
                rack_shown = True
            elif isinstance(m, TurnPrompt):
                if m.player_id != YOU:
                    continue
                if m.kind == "turn":
                    self.show_table()
                    if not rack_shown:
                        self.show_rack()
                self.say(m.message(self.lang))
        if mine:
            await self.write_pictures()

    async def write_pictures(self) -> None:
        """The table picture of this turn (the working table for the player to move) and the
        rack picture, each written when what it shows has changed."""
        if self.pictures is None or self.game_id is None:
            return
        view = self.service.table_view(self.game_id, YOU)
        if view is not None:
            shown = (
                view.turn_no,
                view.status,
                tuple((tuple(m.pieces), tuple(m.changed), m.claim) for m in view.melds),
                tuple(s.pieces for s in view.seats),
                tuple(view.discards),
            )
            if shown != self._drawn:
                png = await self.service.render_view(view, self.lang)
                if png:
                    self._drawn = shown
                    self._write(f"{self.game_id}-turn-{view.turn_no:03d}.png", png)
        rack = tuple(self.rack())
        if rack and rack != self._rack_drawn:
            png = await self.service.render_rack(list(rack), self.lang)
            if png:
                self._rack_drawn = rack
                self._write(f"{self.game_id}-rack.png", png)

    def _write(self, name: str, png: bytes) -> None:
        assert self.pictures is not None
        self.pictures.mkdir(parents=True, exist_ok=True)
        path = self.pictures / name
        path.write_bytes(png)
        if path not in self._told:
            self._told.add(path)
            self.say(t("console.picture", self.lang, path=path))


class _Lines:
    """Lines of a text stream, read by a daemon thread (a blocked read never keeps the program
    from ending: Ctrl-C needs no Enter)."""

    def __init__(self, stream: TextIO, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._stream = stream
        self._loop = loop
        threading.Thread(target=self._read, name="console-stdin", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                self._loop.call_soon_threadsafe(self.queue.put_nowait, line or None)
            if not line:
                return

    async def next(self) -> str | None:
        return await self.queue.get()


def turn_options(turn_time: int | None) -> dict[str, Any]:
    """The game options for the terminal's turn time: none unless asked."""
    return {"turn_seconds": int(turn_time) if turn_time else None}


async def run_console(
    *,
    preset: str = DEFAULT_VARIANT,
    bots: int = 3,
    seed: int | None = None,
    level: str = "medium",
    db_url: str = "sqlite:///:memory:",
    pictures: Path | None = None,
    turn_time: int | None = None,
    lang: str = "en",
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    bot_pause: float | None = None,
    handle_sigint: bool = False,
) -> int:
    """Play one game (and rematches) in the terminal; returns the exit code (0, 2 when the game
    cannot start, 130 after Ctrl-C when ``handle_sigint``)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    if handle_sigint:
        _catch_sigint(loop, stop.set)
    try:
        play = asyncio.ensure_future(
            _play(
                preset=preset,
                bots=bots,
                seed=seed,
                level=level,
                db_url=db_url,
                pictures=pictures,
                turn_time=turn_time,
                lang=lang,
                stdin=stdin,
                stdout=stdout,
                bot_pause=bot_pause,
            )
        )
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({play, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if play.done():
            return play.result()
        play.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await play
        print(t("console.stopped", lang), file=stdout, flush=True)
        return EXIT_INTERRUPTED
    finally:
        stop.set()  # nothing waits for it any more


def _catch_sigint(loop: asyncio.AbstractEventLoop, stop: Any) -> None:
    """Ctrl-C for the whole process, from now on: SIGINT is blocked in every thread (threads
    started later inherit that, and so do child processes: the computer players' worker never
    sees a Ctrl-C, not even while it starts) and one thread takes it with ``sigwait`` and asks
    the loop to stop. Call it on the main thread before any other thread is started.

    multiprocessing's resource tracker unblocks SIGINT in the thread that first starts it, so it
    is started here first."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def wait() -> None:
        while True:
            signal.sigwait({signal.SIGINT})
            with contextlib.suppress(RuntimeError):  # the loop is closed: we are ending anyway
                loop.call_soon_threadsafe(stop)

    threading.Thread(target=wait, name="console-sigint", daemon=True).start()


async def _play(
    *,
    preset: str,
    bots: int,
    seed: int | None,
    level: str,
    db_url: str,
    pictures: Path | None,
    turn_time: int | None,
    lang: str,
    stdin: TextIO,
    stdout: TextIO,
    bot_pause: float | None,
) -> int:
    interactive = stdin.isatty()
    config = ServiceConfig(
        pictures=False,  # the console draws its own, one per turn, when asked
        bot_pause=(0.6 if interactive else 0.0) if bot_pause is None else bot_pause,
        abandon_after=None,
    )
    wired = await open_service(db_url, config=config, pictures=pictures is not None)
    service = wired.service
    console = Console(service, stdout, lang=lang, pictures=pictures)
    service.sink = console.deliver
    lines = _Lines(stdin, asyncio.get_running_loop())
    try:
        await service.start(run_timers=interactive or bool(turn_time))
        name = os.environ.get("USER") or t("console.player", lang)
        await service.register_player(YOU, name.capitalize(), lang)
        game_id, out = await service.create_game(YOU, preset, turn_options(turn_time), seed=seed)
        console.game_id = game_id
        await console.deliver(out)
        if game_id is None:
            return 2
        for _ in range(bots):
            await console.deliver(await service.add_bot(game_id, YOU, level))
        await console.deliver(await service.start_game(game_id, YOU))
        if service.status(game_id) != "playing":
            return 2
        console.say(t("console.start", lang))
        await service.wait_idle()
        while True:
            if interactive:
                print("> ", end="", file=stdout, flush=True)
            line = await lines.next()
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            word = text.lower()
            if word in ("quit", "exit", "q"):
                break
            if word == "help":
                console.say(help_text(console.family, lang))
            elif word == "table":
                console.show_table()
            elif word == "rack":
                console.show_rack()
            elif word == "rematch" and console.over and console.game_id:
                new_id, out = await service.rematch(console.game_id, YOU)
                if new_id:
                    console.game_id, console.over = new_id, False
                await console.deliver(out)
            else:
                if not interactive:
                    console.say(f"> {text}")
                await console.deliver(await service.handle(console.game_id, YOU, text))
            await service.wait_idle()
        return 0
    finally:
        await wired.close()
