"""The store interface: everything the bot keeps, behind one small abstract class.

The game service only talks to :class:`Store`. :class:`~bot.store.sqlite.SqliteStore` implements
it with the standard library's sqlite3; a PostgreSQL implementation (DESIGN.md, "Discord": several
processes over a shared database) only has to implement the same methods with the same
transaction guarantees, which the contract suite tests/store_contract/ checks for every store:

- :meth:`Store.append_command` writes the command log row, the new snapshot/seq/deadline and, when
  the game ends, its result rows and ladder rows in ONE transaction, and returns only once that
  transaction is durable. The service acknowledges a move only after it returns.
- The command log is append-only; ``seq`` per game has no gaps and no repeats.
- One owner: a store opened for writing holds the database's owner lease; every write checks it
  in its own transaction, so a process that lost the lease changes nothing
  (:class:`StoreOwnerLost`). Status, deadline and meta writes check the game's status / ``seq``.
- Or one owner per shard: a store opened with ``shard_count=N`` takes no owner lease but the
  leases of its shards (:meth:`Store.acquire_shards`); every write of a game checks, inside its
  transaction, the lease of the game's shard and its fencing token (:class:`StoreFenced`).
- Every failure is a :class:`StoreError` (one line, a ``code``), never a driver exception.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from .records import (
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvHook,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    ResultRow,
    Seat,
)


class StoreError(Exception):
    """The store could not do what was asked (I/O, full disk, corrupt file, unknown game).

    ``str(error)`` is one line saying what is wrong and what to do; ``code`` says what kind of
    failure it is, for callers that react differently: ``io``, ``full``, ``busy``, ``readonly``,
    ``corrupt``, ``foreign``, ``future``, ``empty``, ``missing``, ``closed``, ``damaged``,
    ``unsupported`` (and the subclasses' ``conflict``, ``locked``, ``lost``, ``invalid``)."""

    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(" ".join(str(message).split()))  # always one line
        self.code = code or self.default_code


class StoreConflict(StoreError):
    """A write does not fit the stored state: a command's ``seq`` is not the next one, or a
    game is not in the status (or at the ``seq``) the write expects. Nothing was written."""

    default_code = "conflict"


class StoreLocked(StoreError):
    """Another live process owns the database (its owner lease), so this one may not write.
    ``holder`` is that process's :class:`~bot.store.records.OwnerRecord` when known."""

    default_code = "locked"

    def __init__(
        self, message: str, *, holder: OwnerRecord | None = None, code: str | None = None
    ) -> None:
        super().__init__(message, code=code)
        self.holder = holder


class StoreOwnerLost(StoreLocked):
    """This process owned the database but another one has taken the lease over (this one
    stopped renewing it in time). Nothing was written; every later write fails the same way, so
    the process must drop its games and stop."""

    default_code = "lost"


class StoreFenced(StoreError):
    """A write to a game of a shard whose lease this store does not hold (never took it, or
    another process took it over: the lease row carries another holder or a newer fencing
    token). Nothing was written; the shard is no longer held, so the process drops that
    shard's games (and only those). ``shards`` are the shards the write needed."""

    default_code = "fenced"

    def __init__(
        self, message: str, *, shards: frozenset[int] = frozenset(), code: str | None = None
    ) -> None:
        super().__init__(message, code=code)
        self.shards = frozenset(shards)


class StoreInvalid(StoreError, ValueError):
    """A value the store cannot keep (a lone surrogate in a name, an unknown status...).
    Raised before any I/O; nothing was written."""

    default_code = "invalid"


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
    async def set_timer(
        self, game_id: str, *, deadline: float | None, reminder_sent: bool, seq: int | None = None
    ) -> None:
        """Change a playing game's turn deadline / reminder flag without a command; with ``seq``
        only while the stored ``seq`` is that one. Otherwise :class:`StoreConflict`."""

    @abstractmethod
    async def set_status(
        self,
        game_id: str,
        status: GameStatus,
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = UNFINISHED,
        seq: int | None = None,
    ) -> None:
        """Change a game's status without a command (e.g. a lobby that is cancelled), only
        while its stored status is one of ``expect`` (None: any) and, with ``seq``, its stored
        ``seq`` is that one. Otherwise :class:`StoreConflict`; no such game: ``code="missing"``."""

    @abstractmethod
    async def update_meta(
        self,
        game_id: str,
        meta: dict[str, Any],
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = None,
        seq: int | None = None,
    ) -> None:
        """Replace the game's ``meta`` dictionary (guarded like :meth:`set_status`)."""

    @abstractmethod
    async def load_game(self, game_id: str) -> GameRecord | None:
        """The game, None when there is none; a row that cannot be read is a
        :class:`StoreError` with ``code="damaged"``."""

    @abstractmethod
    async def load_unfinished_games(
        self, on_bad: Callable[[str, str], None] | None = None
    ) -> list[GameRecord]:
        """Every game in ``lobby`` or ``playing``, oldest first. A row that cannot be read is
        left out and reported to ``on_bad(game_id, reason)`` (default: a log warning)."""

    @abstractmethod
    async def game_ids(self, status: GameStatus | None = None) -> list[str]:
        """Ids of all games (or of those with that status), oldest first."""

    @abstractmethod
    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        """The game's logged commands with ``seq > after_seq``, in order."""

    @abstractmethod
    async def results(self, game_id: str) -> list[ResultRow]:
        """The result rows of a finished game, by seat."""

    # ------------------------------------------------------------------ quarantine
    async def quarantine(self, game_id: str, reason: str, *, at: float) -> None:
        """Set a game aside (status ``quarantined``, no deadline) with the reason; it is no
        longer loaded as unfinished. Works whatever the game's row holds."""
        raise StoreError("this store cannot quarantine games", code="unsupported")

    async def quarantined(self, guild_id: str | None = None) -> list[tuple[str, str, float]]:
        """``(game_id, reason, at)`` of every quarantined game (of one guild, read from the
        game's row without parsing it), oldest first."""
        return []

    async def release_quarantine(self, game_id: str, *, at: float) -> None:
        """Put a quarantined game back in the status it had."""
        raise StoreError("this store cannot quarantine games", code="unsupported")

    async def unreadable_games(self) -> list[tuple[str, str]]:
        """``(game_id, reason)`` of the unfinished games whose rows cannot be read."""
        return []

    # ------------------------------------------------------------------ owner, snapshots
    async def owner(self) -> OwnerRecord | None:
        """The owner lease as stored now (None: none, or a store without leases)."""
        return None

    def snapshot(self) -> Any:
        """An async context manager giving the read methods on ONE consistent state
        (``async with store.snapshot() as snap``); see :class:`~bot.store.sqlite.StoreSnapshot`."""
        raise StoreError("this store has no read snapshots", code="unsupported")

    # ------------------------------------------------------------------ shard leases
    #: the total number of shards of a sharded store (opened with ``shard_count=N``), None for a
    #: store with one owner for the whole database
    shard_count: int | None = None

    @property
    def held_shards(self) -> dict[int, int]:
        """The shards this store holds the lease of, with their fencing tokens (as far as this
        store knows: a takeover shows at the next renewal or fenced write)."""
        return {}

    async def acquire_shards(
        self, shards: Sequence[int], *, now: float, lease_seconds: float
    ) -> dict[int, int]:
        """Take (or renew) the leases of ``shards`` in one transaction: a shard without a row
        gets token 1, a free one (released, expired at ``now``, or its holder's process on this
        machine is gone) is taken over with its token + 1, one held by another live store is
        left alone. Returns every shard held afterwards with its token. A live lease of another
        shard count, or a live whole-database owner, is :class:`StoreLocked`."""
        raise StoreError("this store has no shard leases", code="unsupported")

    async def renew_shards(self, *, now: float, lease_seconds: float) -> dict[int, int]:
        """Extend every held lease to ``now + lease_seconds`` (one transaction); a lease whose
        row carries another holder or token now is lost (no longer held). Returns the shards
        still held."""
        raise StoreError("this store has no shard leases", code="unsupported")

    async def release_shards(self, shards: Sequence[int] | None = None, *, now: float) -> None:
        """Give leases back (None: every held one), so another store may take them at once."""
        raise StoreError("this store has no shard leases", code="unsupported")

    async def shard_leases(self) -> list[Any]:
        """Every row of the shard lease table (:class:`~bot.store.lease.ShardLease`), by shard."""
        return []

    # ------------------------------------------------------------------ key / value
    @abstractmethod
    async def kv_get(self, namespace: str, key: str) -> Any | None: ...

    @abstractmethod
    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        """Insert or replace key/value rows in one transaction."""

    @abstractmethod
    async def kv_items(self, namespace: str) -> list[KvRow]: ...

    @abstractmethod
    async def kv_update(self, hook: KvHook) -> list[KvRow]:
        """Run ``hook`` (:class:`~bot.store.records.KvHook`) as one transaction of its own:
        read its ranges, ``compute``, write what it returns; returns the rows written. No other
        transaction reading or writing those ranges through a hook interleaves, so concurrent
        read-modify-writes (two processes starting a season) lose nothing. An exception raised
        by ``compute`` is raised as it is, and nothing is written."""


def open_store(url: str, **options: Any) -> Store:
    """A store for a database URL (not yet opened).

    ``sqlite:///relative/path.sqlite3``, ``sqlite:////absolute/path.sqlite3`` or
    ``sqlite:///:memory:``; an optional query ``?synchronous=normal`` trades power-loss durability
    for speed (the default ``full`` fsyncs every commit; either survives a killed process);
    ``lease_wait=45`` makes opening wait for a dead holder's lease to expire (a restarted
    container), ``lease_seconds`` and ``busy_timeout`` are the store's options of those names.
    Keyword ``options`` go to the store (``create``, ``init_empty``, ``readonly``,
    ``lease_seconds`` for :class:`~bot.store.sqlite.SqliteStore`).
    ``postgresql://user:password@host:port/database`` (or ``postgres://``; a Unix socket:
    ``postgresql://user@/database?host=/run/postgresql``) is a
    :class:`~bot.store.postgres.PostgresStore`, see :mod:`bot.store.postgres.urls`.
    """
    from urllib.parse import parse_qs

    scheme, sep, rest = url.partition("://")
    if not sep:
        raise StoreError(f"not a database URL: {url!r} (expected sqlite:///path)")
    if scheme == "sqlite":
        if not rest.startswith("/"):
            raise StoreError(f"sqlite URLs have three slashes: sqlite:///path (got {url!r})")
        path, _, query = rest[1:].partition("?")
        query_options = {k: v[-1] for k, v in parse_qs(query).items()}
        from .sqlite import SqliteStore

        options.setdefault("synchronous", query_options.pop("synchronous", "full"))
        if "shard_count" in query_options:
            text = query_options.pop("shard_count")
            if not text.isdigit() or int(text) < 1:
                raise StoreError(f"shard_count must be a whole number >= 1 in {url!r}")
            options.setdefault("shard_count", int(text))
        for name in ("lease_seconds", "lease_wait", "busy_timeout"):
            if name in query_options:
                try:
                    options.setdefault(name, float(query_options.pop(name)))
                except ValueError:
                    raise StoreError(f"{name} must be a number of seconds in {url!r}") from None
        if query_options:
            raise StoreError(
                f"unknown option(s) {', '.join(sorted(query_options))} in {url!r} (known: "
                "synchronous, lease_seconds, lease_wait, busy_timeout, shard_count)"
            )
        return SqliteStore(path, **options)
    if scheme in ("postgresql", "postgres"):
        from .postgres.urls import postgres_store

        return postgres_store(url, **options)
    raise StoreError(
        f"unsupported database {scheme!r}: use sqlite:///path or postgresql://host/database"
    )
