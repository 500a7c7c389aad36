"""The one place that builds the game service with its real ports.

The service (:mod:`bot.service`) is written against interfaces (:mod:`bot.service.ports`);
this module plugs in the real ones: the store (:mod:`bot.store`: SQLite for a file path or
``sqlite:///``, PostgreSQL for ``postgresql://``), the pictures of
:mod:`rendering`, the league (:mod:`bot.league`), the system clock and the ``engine.ai``
computer players. The Discord bot, the console, the soak and the command-line tools build
their service here; tests may build one here too or pass their own ports to
:class:`~bot.service.GameService`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.game import PublicView
from i18n import render_labels

from .service import GameService, ServiceConfig
from .service.pipeline import CommitHook, ResultHook
from .service.players import computer_player
from .service.ports import Clock, ComputerPlayers, LeaguePort, Metrics
from .service.service import Sink
from .store import ShardPlan, SqliteStore, Store, StoreError, StoreLocked, open_store
from .store.worker import live_threads

if TYPE_CHECKING:
    from rendering.text import Labels

__all__ = [
    "RenderingRenderer",
    "StoreError",
    "StoreLocked",
    "Wired",
    "build_service",
    "check_database",
    "engine_players",
    "init_empty_database",
    "open_service",
    "shard_plan",
    "store_at",
    "store_threads",
]

# StoreError / StoreLocked are re-exported for the command-line tools' exit codes (3: the file
# cannot be used, 4: another process holds it), so front ends need not import the store.


def shard_plan(count: int | None, ids: Sequence[int] | None = None) -> ShardPlan | None:
    """The shard plan of ``SHARD_COUNT`` / ``SHARD_IDS`` (None without a count: one process
    runs every game). ValueError for ids outside 0..count-1."""
    return None if not count else ShardPlan.of(count, ids)


def store_threads() -> list[Any]:
    """The store connections' threads still running (a store never closed), for the tools'
    check that they leave none behind."""
    return live_threads()


async def init_empty_database(path: str | Path) -> None:
    """Make the 0-byte file at ``path`` a new, empty database (``soak --init-empty``)."""
    store = SqliteStore(Path(path), init_empty=True)
    await store.open()
    await store.close()


engine_players: ComputerPlayers = computer_player
"""The standard computer players (``engine.ai`` at a level); the service thinks for them in
a worker process."""


def labels(lang: str) -> Labels:
    """The picture labels worded in ``lang`` (the catalogue's ``render.*`` keys)."""
    from rendering.text import Labels

    return Labels(**render_labels(lang))


class RenderingRenderer:
    """The :class:`~bot.service.ports.Renderer` port over :mod:`rendering` (PNG bytes), with
    the labels worded by :mod:`i18n` in the reader's language. :mod:`rendering` (and Pillow,
    about 4 MB resident) is imported when the renderer is built, so a service without pictures
    (``pictures=False``: the soak, the console's text mode) never loads it."""

    def __init__(self) -> None:
        import rendering

        self._rendering = rendering

    def table(self, view: PublicView, lang: str) -> bytes | None:
        return self._rendering.render_table(view, labels=labels(lang))

    def rack(self, pieces: Sequence[Any], lang: str) -> bytes | None:
        return self._rendering.render_rack(pieces, labels=labels(lang))

    def ladder(
        self, rows: Sequence[Mapping[str, Any]], *, title: str | None, lang: str
    ) -> bytes | None:
        return self._rendering.render_ladder(rows, title=title, labels=labels(lang))


def is_url(where: str | Path) -> bool:
    """Whether ``where`` is a database URL (``sqlite:///...``, ``postgresql://...``) rather
    than a file path."""
    return isinstance(where, str) and "://" in where


def store_at(where: str | Path, **options: Any) -> Store:
    """The store (not yet opened) for a database URL (``sqlite:///path``,
    ``postgresql://user@host/db``) or a SQLite file path. A malformed URL is a one-line
    :class:`StoreError`."""
    if is_url(where):
        return open_store(str(where), **options)
    return SqliteStore(where, **options)


async def check_database(where: str | Path) -> None:
    """Reach a server database once before anything else starts (the bot checks its
    ``DATABASE_URL`` before it logs in to Discord): a malformed, wrong or unreachable URL is a
    one-line :class:`StoreError`. A SQLite file is checked when it is opened."""
    store = store_at(where)
    probe = getattr(store, "probe", None)
    if probe is not None:
        await probe()


def build_service(
    store: Store,
    *,
    config: ServiceConfig | None = None,
    clock: Clock | None = None,
    sink: Sink | None = None,
    players: ComputerPlayers | None = None,
    league: LeaguePort | None = None,
    pictures: bool = True,
    on_commit: CommitHook | None = None,
    result_hooks: Sequence[ResultHook] = (),
    metrics: Metrics | None = None,
    shards: ShardPlan | None = None,
) -> GameService:
    """The service over an (opened) store, with the real renderer (``pictures``: whether one
    is plugged in at all; ``config.pictures`` decides whether moves come with pictures), the
    ``engine.ai`` computer players unless ``players`` is given, and the league's result hook
    when ``league`` is given."""
    return GameService(
        store,
        config=config,
        clock=clock,
        sink=sink,
        players=players or engine_players,
        renderer=RenderingRenderer() if pictures else None,
        league=league,
        on_commit=on_commit,
        result_hooks=result_hooks,
        metrics=metrics,
        shards=shards,
    )


@dataclass
class Wired:
    """An opened store, its service (not yet started) and the league (or None)."""

    store: Store
    service: GameService
    league: Any | None = None

    async def close(self) -> None:
        """Stop the service, then close the store (committed moves stay committed)."""
        try:
            await self.service.stop()
        finally:
            await self.store.close()


async def open_service(
    where: str | Path,
    *,
    config: ServiceConfig | None = None,
    clock: Clock | None = None,
    sink: Sink | None = None,
    players: ComputerPlayers | None = None,
    league: bool = False,
    league_count_bots: bool = True,
    pictures: bool = True,
    on_commit: CommitHook | None = None,
    store_options: Mapping[str, Any] | None = None,
    metrics: Metrics | None = None,
    shards: ShardPlan | None = None,
) -> Wired:
    """Open the store at ``where`` (URL or path), the league when asked (before the service:
    its tournament desk loads its links), and build the service. The caller starts it
    (``await wired.service.start()``) and ends with ``await wired.close()``. With ``shards``
    (SHARD_COUNT / SHARD_IDS) the store is opened sharded and the service runs only the games
    of the plan's shards (bot/service/shards.py)."""
    options = dict(store_options or {})
    if shards is not None:
        options["shard_count"] = shards.count
    store = store_at(where, **options)
    await store.open()
    try:
        found = None
        if league:
            from .league.service import League

            found = await League(store, count_bots=league_count_bots).open()
        service = build_service(
            store,
            config=config,
            clock=clock,
            sink=sink,
            players=players,
            league=found,
            pictures=pictures,
            on_commit=on_commit,
            metrics=metrics,
            shards=shards,
        )
    except BaseException:
        await store.close()
        raise
    return Wired(store, service, found)
