"""The terminal front end: one local game against computer players, in the same command language.

A thin layer over :class:`~bot.service.GameService`, like the Discord adapter: it reads lines from
stdin (a terminal or piped input; ``quit`` or end of input stops), passes them to the service and
prints the messages that come back. The table is shown as text; when pictures are on, each table
and rack picture is also written to ``data/out/`` and its path printed.
"""

from __future__ import annotations

import asyncio
import os
import sys
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
    TablePicture,
    TurnPrompt,
)
from .service.games import DEFAULT_VARIANT
from .wiring import open_service

YOU = "console"


def help_text(family: str, lang: str = "en") -> str:
    """The console's ``help``: the commands of the game's family, in ``lang``."""
    return t(f"console.help.{'card' if family == 'card' else 'tile'}", lang)


def count_pieces(count: int, family: str, lang: str = "en") -> str:
    """``1 tile``, ``2 tiles``, ``1 card`` ... (German: ``1 Stein``, ``2 Karten``)."""
    return t(f"console.count.{'card' if family == 'card' else 'tile'}", lang, count=count)


def format_table(view: Any, you: int | None = None, lang: str = "en") -> str:
    """The public view as text: seats, pool, discards and numbered melds."""
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
                claim = f"  [claim {view.seats[meld.claim].name}]"
            lines.append(f"   {meld.number:>2}: {' '.join(meld.pieces)}{claim}")
    else:
        lines.append(f"   {t('console.no_melds', lang)}")
    return "\n".join(lines)


class Console:
    """Prints the service's messages for the one local player."""

    def __init__(
        self, service: GameService, out: TextIO, *, lang: str, out_dir: Path | None
    ) -> None:
        self.service = service
        self.out = out
        self.lang = lang
        self.out_dir = out_dir
        self.game_id: str | None = None
        self.pictures = 0
        self.over = False

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _save(self, png: bytes, kind: str) -> Path | None:
        if self.out_dir is None:
            return None
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.pictures += 1
        path = self.out_dir / f"{self.game_id}-{self.pictures:04d}-{kind}.png"
        path.write_bytes(png)
        return path

    def show_table(self) -> None:
        if self.game_id is None:
            return
        view = self.service.view(self.game_id)
        if view is None:
            return
        seats = self.service.seats(self.game_id)
        you = next((i for i, s in enumerate(seats) if s.player_id == YOU), None)
        self.say(format_table(view, you, self.lang))

    def show_rack(self) -> None:
        if self.game_id is not None:
            view = self.service.view(self.game_id)
            cards = view is not None and view.family == "card"
            label = t(f"console.rack.{'card' if cards else 'tile'}", self.lang)
            self.say(f"{label}: " + " ".join(self.service.rack(self.game_id, YOU)))

    def deliver(self, messages: list[Outgoing]) -> None:
        rack_shown = any(isinstance(m, PrivateRack) and m.to == YOU for m in messages)
        for m in messages:
            if m.game_id not in (None, self.game_id):
                continue
            if isinstance(m, PublicText | GameOver):
                self.say(m.message(self.lang))
                if isinstance(m, GameOver):
                    self.over = True
                    self.say(t("console.rematch", self.lang))
            elif isinstance(m, TablePicture):
                path = self._save(m.png, "table")
                if path:
                    self.say(t("console.table_picture", self.lang, path=path))
            elif isinstance(m, PrivateRack | PrivateText | ErrorReply) and m.to == YOU:
                if isinstance(m, ErrorReply):
                    self.say(f"! {m.text}")
                    continue
                self.say(m.text)
                if isinstance(m, PrivateRack) and m.png:
                    path = self._save(m.png, "rack")
                    if path:
                        self.say(t("console.rack_picture", self.lang, path=path))
            elif isinstance(m, TurnPrompt) and m.player_id == YOU:
                self.show_table()
                if not rack_shown:
                    self.show_rack()
                self.say(m.message(self.lang))


async def _read_line(stream: TextIO) -> str | None:
    line = await asyncio.get_running_loop().run_in_executor(None, stream.readline)
    return line if line else None


async def run_console(
    *,
    preset: str = DEFAULT_VARIANT,
    bots: int = 3,
    seed: int | None = None,
    level: str = "medium",
    db_url: str = "sqlite:///:memory:",
    pictures: bool = True,
    out_dir: Path | None = Path("data/out"),
    lang: str = "en",
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    bot_pause: float | None = None,
) -> int:
    """Play one game (and rematches) in the terminal; returns the exit code."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    interactive = stdin.isatty()
    config = ServiceConfig(
        pictures=pictures,
        bot_pause=(0.6 if interactive else 0.0) if bot_pause is None else bot_pause,
        abandon_after=None,
    )
    wired = await open_service(db_url, config=config)
    service = wired.service
    console = Console(service, stdout, lang=lang, out_dir=out_dir)
    service.sink = console.deliver
    try:
        await service.start(run_timers=interactive)
        name = os.environ.get("USER") or t("console.player", lang)
        await service.register_player(YOU, name.capitalize(), lang)
        game_id, out = await service.create_game(YOU, preset, seed=seed)
        console.game_id = game_id
        console.deliver(out)
        if game_id is None:
            return 2
        for _ in range(bots):
            console.deliver(await service.add_bot(game_id, YOU, level))
        console.deliver(await service.start_game(game_id, YOU))
        if service.status(game_id) != "playing":
            return 2
        console.say(t("console.type_help", lang))
        await service.wait_idle()
        while True:
            if interactive:
                print("> ", end="", file=stdout, flush=True)
            line = await _read_line(stdin)
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            word = text.lower()
            if word in ("quit", "exit", "q"):
                break
            if word == "help":
                view = service.view(console.game_id) if console.game_id else None
                console.say(help_text(view.family if view else "tile", lang))
            elif word == "table":
                console.show_table()
            elif word == "rack":
                console.show_rack()
            elif word == "rematch" and console.over and console.game_id:
                new_id, out = await service.rematch(console.game_id, YOU)
                if new_id:
                    console.game_id, console.over = new_id, False
                console.deliver(out)
            else:
                if not interactive:
                    console.say(f"> {text}")
                console.deliver(await service.handle(console.game_id, YOU, text))
            await service.wait_idle()
        return 0
    finally:
        await wired.close()
