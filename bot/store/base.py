"""The store interface: everything the bot keeps, behind one small abstract class.

The game service only talks to :class:`Store`. :class:`~bot.store.sqlite.SqliteStore` implements
it with aiosqlite; a PostgreSQL implementation (DESIGN.md, "Discord": several processes over a
shared database) only has to implement the same methods with the same transaction guarantees:

- :meth:`Store.append_command` writes the command log row, the new snapshot/seq/deadline and, when
  the game ends, its result rows and ladder rows in ONE transaction, and returns only once that
  transaction is durable. The service acknowledges a move only after it returns.
- The command log is append-only; ``seq`` per game has no gaps and no repeats.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from .records import (
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvRow,
    PlayerRecord,
    ResultRow,
    Seat,
)


class StoreError(Exception):
    """The store could not do what was asked (I/O, corrupt file, unknown game)."""


class StoreConflict(StoreError):
    """A write does not fit the stored state: a command's ``seq`` is not the next one, or a
    game is not in the status the write expects. Nothing was written."""


class Store(ABC):
    """Persistence for players, games, command logs, results and key/value data."""

    # ------------------------------------------------------------------ lifecycle
    @abstractmethod
    async def open(self) -> None:
        """Connect and bring the schema up to date (forward migrations)."""

    @abstractmethod
    async def close(self) -> None:
        """Flush pending writes and disconnect."""

    async def __aenter__(self) -> Store:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ players
    @abstractmethod
    async def upsert_player(self, player: PlayerRecord) -> None:
        """Insert or update a player (name, locale, bot flag)."""

    @abstractmethod
    async def get_player(self, player_id: str) -> PlayerRecord | None: ...

    # ------------------------------------------------------------------ games
    @abstractmethod
    async def create_game(self, game: GameRecord) -> None:
        """Insert a new game (normally in status ``lobby``). A duplicate id is a
        :class:`StoreConflict`."""

    @abstractmethod
    async def update_lobby(
        self, game_id: str, seats: Sequence[Seat], *, at: float, rules_json: str | None = None
    ) -> None:
        """Replace the seats (and optionally the rules) of a game still in the lobby."""

    @abstractmethod
    async def start_game(
        self,
        game_id: str,
        *,
        seats: Sequence[Seat],
        seed: int,
        snapshot_json: str,
        deadline: float | None,
        at: float,
    ) -> None:
        """Move a lobby game to ``playing`` with its dealt state as snapshot 0."""

    @abstractmethod
    async def append_command(self, write: CommandWrite) -> None:
        """Log one accepted command with all its effects in one durable transaction (see
        :class:`~bot.store.records.CommandWrite`)."""

    @abstractmethod
    async def set_timer(self, game_id: str, *, deadline: float | None, reminder_sent: bool) -> None:
        """Change a game's turn deadline / reminder flag without a command."""

    @abstractmethod
    async def set_status(self, game_id: str, status: GameStatus, *, at: float) -> None:
        """Change a game's status without a command (e.g. a lobby that is cancelled)."""

    @abstractmethod
    async def update_meta(self, game_id: str, meta: dict[str, Any], *, at: float) -> None:
        """Replace the game's ``meta`` dictionary."""

    @abstractmethod
    async def load_game(self, game_id: str) -> GameRecord | None: ...

    @abstractmethod
    async def load_unfinished_games(self) -> list[GameRecord]:
        """Every game in ``lobby`` or ``playing``, oldest first."""

    @abstractmethod
    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        """Ids of all games (or of those with that status), oldest first."""

    @abstractmethod
    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        """The game's logged commands with ``seq > after_seq``, in order."""

    @abstractmethod
    async def results(self, game_id: str) -> list[ResultRow]:
        """The result rows of a finished game, by seat."""

    # ------------------------------------------------------------------ key / value
    @abstractmethod
    async def kv_get(self, namespace: str, key: str) -> Any | None: ...

    @abstractmethod
    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        """Insert or replace key/value rows in one transaction."""

    @abstractmethod
    async def kv_items(self, namespace: str) -> list[KvRow]: ...


def open_store(url: str) -> Store:
    """A store for a database URL (not yet opened).

    ``sqlite:///relative/path.sqlite3``, ``sqlite:////absolute/path.sqlite3`` or
    ``sqlite:///:memory:``; an optional query ``?synchronous=normal`` trades power-loss durability
    for speed (the default ``full`` fsyncs every commit; either survives a killed process).
    """
    from urllib.parse import parse_qs

    scheme, sep, rest = url.partition("://")
    if not sep:
        raise StoreError(f"not a database URL: {url!r} (expected sqlite:///path)")
    if scheme == "sqlite":
        if not rest.startswith("/"):
            raise StoreError(f"sqlite URLs have three slashes: sqlite:///path (got {url!r})")
        path, _, query = rest[1:].partition("?")
        options = {k: v[-1] for k, v in parse_qs(query).items()}
        from .sqlite import SqliteStore

        return SqliteStore(path, synchronous=options.get("synchronous", "full"))
    raise StoreError(f"unsupported database {scheme!r}: only sqlite:/// is built in")
