"""The PostgreSQL store: :class:`~bot.store.base.Store` over ``asyncpg`` with a connection pool,
numbered migrations (:mod:`bot.store.postgres.schema`) and group commit, with the guarantees of
the SQLite store (the contract suite tests/store_contract/ runs against both).

- **One transaction per accepted command** with its log row, snapshot, deadline, result rows
  and league rows; :meth:`PostgresStore.append_command` returns only once it is committed
  (``synchronous_commit`` on by default). Writes queued while a batch commits form the next
  batch (one transaction; when it fails the writes are retried one by one, so only a faulty
  write fails).
- **Group commit on a thread of its own** (:mod:`bot.store.postgres.writer`): the writes queued
  in one pass through the store's event loop are handed to the writer thread, which commits
  them on its own connection and event loop and wakes their callers with ONE call into the
  store's loop: three passes through that loop per commit instead of five, as the SQLite
  store's writer thread does. One batch commits at a time; the writes queued meanwhile form
  the next batch, taken by the thread without being woken. The other writes and every read
  stay on the store's pool.
- **seq without gaps**: the game row is updated only where ``seq`` is the one before and the
  game is playing, and ``(game_id, seq)`` is the log's primary key; otherwise
  :class:`~bot.store.base.StoreConflict`.
- **The owner lease** (table ``owner``, one row, as in SQLite): taken when a writable store
  opens (under an advisory lock, with the migrations), renewed every ``lease_seconds / 3``;
  every write transaction first takes the lease's advisory lock SHARED and then reads the row,
  and a process taking the lease over takes that lock EXCLUSIVE first, so it waits for the
  writes in flight and every later write of the old owner is refused
  (:class:`~bot.store.base.StoreOwnerLost`). The shard leases work alike, one lock per shard
  (migration 0004; no row lock, so no WAL, per commit).
- **Faults**: a server that cannot be reached at open is a one-line ``StoreError``
  (``code="unreachable"``); a connection lost during a call fails that call
  (``code="unavailable"``, nothing acknowledged) and the pool connects again at the next one.
  A call whose connection turns out dead before its transaction began is retried once on a
  fresh connection (nothing of it had reached the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import asyncpg

from engine.codec import canonical_json

from ..base import (
    Store,
    StoreConflict,
    StoreError,
    StoreInvalid,
    StoreOwnerLost,
)
from ..common import (
    game_values,
    guard_refusal,
    open_waiting,
    owner_lost,
    refuse_live_holders,
    refuse_live_owner,
    with_own_errors,
)
from ..lease import (
    BOOT_ID,
    HOST,
    OWNER_COLUMNS,
    SHARD_COLUMNS,
    ShardLease,
    acquire_steps,
    check_fence,
    holder_alive,
    holder_text,
    keep_held,
    owner_from_row,
    process_facts,
    shard_lease_from_row,
    shard_of,
    shard_range_error,
)
from ..reads import GAME_COLUMNS
from ..records import (
    STATUSES,
    UNFINISHED,
    CommandRecord,
    CommandWrite,
    GameRecord,
    GameStatus,
    KvHook,
    KvRow,
    OwnerRecord,
    PlayerRecord,
    Seat,
    seats_to_json,
)
from ..writes import settle_batch
from .errors import connect_error, is_connection_error, pg_error, safe_url
from .reads import PgReads, Query, check_status, check_text
from .schema import APPLICATION, LOCK_KEY, OWNER_KEY, check_identity, identity, migrate
from .writer import ConnectionStack, WriterThread
from .writes import (
    KV_UPSERT,
    call_write_function,
    lock_kv_ranges,
    row_count,
    run_kv_hook,
    write_commands,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

MAX_BATCH = 256
LEASE_SECONDS = 30.0
POOL_SIZE = 8
CONNECT_TIMEOUT = 10.0


def _seat_texts(seats: Sequence[Seat]) -> None:
    for index, seat in enumerate(seats):
        check_text(f"seat {index} player id", seat.player_id)
        check_text(f"seat {index} name", seat.name)
        check_text(f"seat {index} level", seat.level, optional=True)


def _statuses(expect: GameStatus | Sequence[GameStatus] | None) -> list[str] | None:
    if expect is None:
        return None
    found = [expect] if isinstance(expect, str) else list(expect)
    for status in found:
        check_status(status)
    return found


class PostgresStore(PgReads, Store):
    """:class:`~bot.store.base.Store` on one PostgreSQL database (``dsn``: a ``postgresql://``
    URL for asyncpg).

    ``readonly``: read without the owner lease (verify-db, reports), every write refused;
    ``create``: an empty database may be given the schema (else ``code="missing"``);
    ``lease_seconds``: how long after its last heartbeat a silent owner counts as dead;
    ``lease_wait``: how long :meth:`open` waits for another process's lease;
    ``synchronous``: ``full`` (commits wait for the server's WAL flush) or ``normal``
    (``synchronous_commit=off``: survives a killed bot, may lose the last commits when the
    server itself crashes); ``pool_size``: connections at most of the store's pool (a writable
    store has ``pool_size // 2`` more for the group commit); ``connect_timeout``: seconds."""

    def __init__(
        self,
        dsn: str,
        *,
        readonly: bool = False,
        create: bool = True,
        init_empty: bool = False,
        lease_seconds: float = LEASE_SECONDS,
        lease_wait: float = 0.0,
        synchronous: str = "full",
        pool_size: int = POOL_SIZE,
        connect_timeout: float = CONNECT_TIMEOUT,
        busy_timeout: float | None = None,
        shard_count: int | None = None,
    ) -> None:
        del init_empty, busy_timeout  # SQLite's file options: nothing to do on a server
        self.dsn = dsn
        self.path = safe_url(dsn)  # what messages call the database (as SqliteStore.path)
        if synchronous.lower() not in ("full", "normal"):
            raise StoreError(
                f"synchronous must be full or normal, not {synchronous!r}", code="invalid"
            )
        if not lease_seconds > 0:
            raise StoreError(f"lease_seconds must be positive, not {lease_seconds!r}")
        if shard_count is not None and (
            not isinstance(shard_count, int) or isinstance(shard_count, bool) or shard_count < 1
        ):
            raise StoreError(
                f"shard_count must be a whole number >= 1, not {shard_count!r}", code="invalid"
            )
        #: sharded (several processes, one lease per shard) or None (one owner, the owner lease)
        self.shard_count = shard_count
        self._holder: str | None = None  # this store's id in shard_leases (sharded, open)
        self._held: dict[int, int] = {}  # shard -> fencing token
        self._game_shards: dict[str, int] = {}  # game id -> shard (a game's guild never changes)
        if int(pool_size) < 2:
            raise StoreError(f"pool_size must be at least 2, not {pool_size!r}", code="invalid")
        self.synchronous = synchronous.lower()
        self.readonly = readonly
        self.create = create
        self.lease_seconds = float(lease_seconds)
        self.lease_wait = max(0.0, float(lease_wait))
        self.pool_size = int(pool_size)
        self.connect_timeout = float(connect_timeout)
        #: the lease row found at open (None: no earlier owner); see OwnerRecord
        self.previous_owner: OwnerRecord | None = None
        self._pool: asyncpg.Pool | None = None
        self._token: str | None = None
        self._lost = False
        self._heartbeat: asyncio.Task[None] | None = None
        # group commit (see bot.store.postgres.writer): append_command queues a write under
        # _mutex and, when no drainer runs, wakes the writer thread, whose ONE drainer commits
        # batch after batch on a connection of its own (of that thread's loop) until the queue
        # is empty, and hands each batch's outcomes back to _loop
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the store was opened on
        self._writer: WriterThread | None = None
        self._writer_pool: ConnectionStack | None = None
        self._closing = False
        self._mutex = threading.Lock()
        self._pending: deque[tuple[CommandWrite, asyncio.Future[None]]] = deque()
        self._wake_due = False  # a wake of the writer thread is scheduled (under _mutex)
        self._draining = False  # the drainer runs and will take what is queued (under _mutex)
        self._drainer: asyncio.Task[None] | None = None  # on the writer thread
        # on _loop: the writes of each game queued and not settled yet, and the reads waiting
        # for them (read your writes, also when a writer was cancelled: its write goes on)
        self._unsettled: dict[str, int] = {}
        self._read_waiters: dict[str, list[asyncio.Future[None]]] = {}

    @property
    def owned(self) -> bool:
        """Whether this store is open for writing and still holds the owner lease."""
        return self._pool is not None and not self.readonly and not self._lost

    @property
    def owner_token(self) -> str | None:
        return self._token

    @property
    def held_shards(self) -> dict[int, int]:
        return dict(self._held)

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        """Connect, check (and for a writer migrate) the schema, take the owner lease. With
        ``lease_wait`` a lease held by another process is waited for that long."""
        if self._pool is not None:
            return
        await open_waiting(
            self._open_once,
            lease_wait=self.lease_wait,
            lease_seconds=self.lease_seconds,
            where=self.path,
        )

    async def _open_once(self) -> None:
        settings = {"application_name": "rummy-bot"}
        # a sharded writer's id in shard_leases; its connections carry it, so a process taking
        # its shards over after its lease ran out can end its sessions left idle inside a
        # transaction (a stopped process; migration 0006)
        holder = uuid.uuid4().hex
        if self.shard_count is not None and not self.readonly:
            settings["application_name"] = f"{APPLICATION} {holder}"
        if self.readonly:
            settings["default_transaction_read_only"] = "on"
        else:
            # a process stopped inside a write transaction (SIGSTOP, a frozen VM) would keep
            # its leases' shared locks and block the takeover: the server ends such a
            # transaction after a lease period (ours last milliseconds)
            idle = max(5.0, self.lease_seconds)
            settings["idle_in_transaction_session_timeout"] = str(round(idle * 1000))
            if self.synchronous == "normal":
                settings["synchronous_commit"] = "off"

        async def new_pool(size: int) -> asyncpg.Pool:
            return await asyncpg.create_pool(
                self.dsn,
                min_size=1,
                max_size=size,
                timeout=self.connect_timeout,
                command_timeout=None,
                server_settings=settings,
                reset=_keep_session,
            )

        try:
            pool = await new_pool(self.pool_size)
        except Exception as exc:
            raise connect_error(exc, self.path) from None
        self._lost = False
        writer: WriterThread | None = None
        writer_pool: ConnectionStack | None = None
        try:
            if not self.readonly:  # the group commit's thread and its connections
                writer = WriterThread(f"store-writer:{self.path}")
                writer_pool = ConnectionStack(
                    lambda: asyncpg.connect(
                        self.dsn,
                        timeout=self.connect_timeout,
                        command_timeout=None,
                        server_settings=settings,
                    )
                )
                try:  # one connection now: a server that refuses it fails the open
                    await writer.call(writer_pool.check())
                except Exception as exc:
                    raise connect_error(exc, self.path) from None
            async with pool.acquire() as conn:
                if self.readonly:
                    version, tables = await identity(conn)
                    if check_identity(version, tables, self.path) == 0:
                        raise StoreError(
                            f"{self.path} holds no rummy-bot database yet; check the URL",
                            code="missing",
                        )
                else:
                    async with conn.transaction():
                        await conn.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
                        version, tables = await identity(conn)
                        version = check_identity(version, tables, self.path)
                        if version == 0 and not self.create:
                            raise StoreError(
                                f"{self.path} holds no rummy-bot database yet; check the URL",
                                code="missing",
                            )
                        await migrate(
                            conn,
                            version,
                            on_step=lambda n: log.info(
                                "migrating %s to schema version %d", self.path, n
                            ),
                        )
                        if self.shard_count is not None:
                            await self._refuse_live_owner(conn)
                            self._token = None
                            self._holder = holder
                            self._held = {}
                        else:
                            self._token = await self._take_lease(conn)
        except BaseException as exc:
            self._token = None
            pool.terminate()
            if writer is not None:
                if writer_pool is not None:
                    writer.soon(writer_pool.terminate)
                await writer.stop()
            if isinstance(exc, StoreError):
                raise
            if isinstance(exc, Exception):
                raise pg_error(exc, "opening the database", where=self.path) from None
            raise
        self._loop = asyncio.get_running_loop()
        self._writer, self._writer_pool, self._closing = writer, writer_pool, False
        self._pool = pool
        if self._token is not None:
            self._heartbeat = asyncio.get_running_loop().create_task(
                self._keep_lease(), name=f"store-lease:{self.path}"
            )

    async def probe(self) -> None:
        """Reach the database once without opening the store (no lease, no migration): a
        wrong or unreachable URL, another program's database or a newer schema is a one-line
        :class:`~bot.store.base.StoreError` before anything else starts."""
        try:
            conn = await asyncpg.connect(self.dsn, timeout=self.connect_timeout)
        except Exception as exc:
            raise connect_error(exc, self.path) from None
        try:
            version, tables = await identity(conn)
            check_identity(version, tables, self.path)
        except StoreError:
            raise
        except Exception as exc:
            raise pg_error(exc, "looking at the database", where=self.path) from None
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), timeout=self.connect_timeout)

    async def _take_lease(self, conn: asyncpg.Connection) -> str:
        """Take the owner lease (inside the opening transaction) or raise StoreLocked."""
        # the writes in flight of an earlier owner (their shared lock) end first (0004); the
        # sessions of an owner whose lease has ended, left idle inside a transaction (a
        # stopped process), are ended first (0005)
        now = time.time()
        before = owner_from_row(
            await conn.fetchrow(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1")
        )
        dead = before is not None and not holder_alive(
            before, now=now, lease_seconds=self.lease_seconds
        )
        ended = await conn.fetchval("SELECT rummy_lock_lease_exclusive($1, $2)", OWNER_KEY, dead)
        if ended and before is not None:
            log.warning(
                "%s: ended %d idle transaction(s) of the old owner, %s",
                self.path,
                ended,
                holder_text(before, now),
            )
        holder = owner_from_row(
            await conn.fetchrow(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1 FOR UPDATE")
        )
        self.previous_owner = holder
        refuse_live_holders(
            holder,
            await read_shard_leases(conn),
            now=now,
            lease_seconds=self.lease_seconds,
            where=self.path,
        )
        token = uuid.uuid4().hex
        started, _ = process_facts(os.getpid())
        await conn.execute(
            f"INSERT INTO owner (id, {OWNER_COLUMNS}) VALUES (1, $1, $2, $3, $4, $5, NULL, $6, "
            "$7) ON CONFLICT (id) DO UPDATE SET token = excluded.token, pid = excluded.pid, "
            "host = excluded.host, since = excluded.since, heartbeat = excluded.heartbeat, "
            "released = NULL, boot = excluded.boot, started = excluded.started",
            token,
            os.getpid(),
            HOST,
            now,
            now,
            BOOT_ID,
            started,
        )
        return token

    async def _check_owner(self, conn: asyncpg.Connection) -> None:
        """Inside a write transaction: the lease row is still ours, and stays so until this
        transaction ends (read under a shared advisory lock: a process taking it over takes
        that lock exclusive first, so it waits for this transaction; migration 0004)."""
        row = await conn.fetchrow("SELECT * FROM rummy_owner_row()")
        if row is not None and row[0] == self._token and row[5] is None:
            return
        self._lost = True
        raise owner_lost(owner_from_row(row), self.path)

    async def _keep_lease(self) -> None:
        """Renew the lease every ``lease_seconds / 3`` until closed or lost."""
        interval = self.lease_seconds / 3
        while True:
            await asyncio.sleep(interval)
            try:
                await self._transaction(
                    lambda conn: conn.execute(
                        "UPDATE owner SET heartbeat = $1 WHERE id = 1 AND token = $2",
                        time.time(),
                        self._token,
                    ),
                    "renewing the owner lease",
                )
            except StoreOwnerLost as exc:
                log.error("%s", exc)
                return
            except StoreError as exc:
                if exc.code == "closed":
                    return
                log.warning("could not renew the owner lease (will try again): %s", exc)

    async def close(self) -> None:
        task, self._heartbeat = self._heartbeat, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._stop_writer()
        if self._pool is not None and self._held:
            try:
                await self.release_shards(now=time.time())
            except StoreError as exc:
                log.warning("%s", exc)
        self._holder = None
        self._held = {}
        if self._pool is not None:
            if self._token is not None and not self._lost:
                now, token = time.time(), self._token
                try:
                    await self._transaction(
                        lambda conn: conn.execute(
                            "UPDATE owner SET released = $1, heartbeat = $1 WHERE id = 1 "
                            "AND token = $2",
                            now,
                            token,
                        ),
                        "giving the owner lease back",
                    )
                except StoreError as exc:
                    log.warning("%s", exc)
            pool, self._pool = self._pool, None
            try:
                await asyncio.wait_for(pool.close(), timeout=self.connect_timeout)
            except Exception:
                pool.terminate()
        self._token = None

    def _pool_or_raise(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StoreError(f"the store {self.path} is not open", code="closed")
        return self._pool

    async def schema_version(self) -> int:
        return await self._read(
            lambda conn: conn.fetchval("SELECT version FROM schema_version"), "reading"
        )

    # ------------------------------------------------------------------ plumbing
    async def _run(
        self,
        fn: Callable[[asyncpg.Connection], Awaitable[_T]],
        doing: str,
        *,
        write: bool,
        check: Callable[[asyncpg.Connection], Awaitable[None]] | None = None,
        atomic: bool = True,
        then: Callable[[], None] | None = None,
        pool: asyncpg.Pool | ConnectionStack | None = None,
    ) -> _T:
        """``fn(connection)`` on a pooled connection (a write inside one transaction, after the
        lease check). A connection found dead is replaced once: for a read always, for a write
        only when it died before the transaction began (nothing of it reached the server); any
        later failure is a StoreError and nothing is acknowledged. ``then()`` runs as soon as
        the write is committed, before the connection goes back to the pool (a group commit
        wakes its writers there, not after the pool's bookkeeping). ``pool``: the writer
        thread's connections (:class:`~bot.store.postgres.writer.ConnectionStack`, on that
        thread; a drainer always finds one, so without a time-out); by default the store's
        pool, on its loop."""
        timeout: float | None = None
        if pool is None:
            pool, timeout = self._pool_or_raise(), self.connect_timeout
        for attempt in (1, 2):
            began = False
            try:
                async with pool.acquire(timeout=timeout) as conn:
                    if not write or not atomic:  # a read, or ONE statement (its own transaction)
                        began = True
                        result = await fn(conn)
                    else:
                        async with conn.transaction():
                            began = True
                            if check is not None:
                                await check(conn)
                            result = await fn(conn)
                    if then is not None:
                        then()
                    return result
            except StoreError:
                raise
            except Exception as exc:
                # a read may always run again; a write only if nothing of it reached the server
                if attempt == 1 and (not began or not write) and is_connection_error(exc):
                    log.info("%s: connection lost; connecting again (%s)", self.path, exc)
                    continue
                raise pg_error(exc, doing, where=self.path) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _read(
        self,
        query: Query[_T],
        doing: str = "reading",
        *,
        pool: asyncpg.Pool | ConnectionStack | None = None,
    ) -> _T:
        return await self._run(query, doing, write=False, pool=pool)

    async def _transaction(
        self,
        work: Callable[[asyncpg.Connection], Awaitable[_T]],
        doing: str,
        *,
        games: Sequence[str] = (),
        guilds: Sequence[str | None] = (),
        then: Callable[[], None] | None = None,
        pool: asyncpg.Pool | ConnectionStack | None = None,
    ) -> _T:
        """``work(connection)`` in one transaction that first checks the owner lease (sharded:
        the leases of the shards of ``games`` and ``guilds``; none for a write of no game);
        ``then()`` as soon as it is committed (see :meth:`_run`)."""
        self._writable(doing)
        return await self._run(
            work, doing, write=True, check=self._fence(games, guilds), then=then, pool=pool
        )

    # ------------------------------------------------------------------ shard leases
    def _fence(
        self, games: Sequence[str], guilds: Sequence[str | None]
    ) -> Callable[[asyncpg.Connection], Awaitable[None]] | None:
        if self.shard_count is None:
            return self._check_owner
        if not games and not guilds:
            return None

        async def check(conn: asyncpg.Connection) -> None:
            await self._check_shards(conn, games, guilds)

        return check

    async def _check_shards(
        self, conn: asyncpg.Connection, games: Sequence[str], guilds: Sequence[str | None]
    ) -> None:
        """Inside a write transaction: this store still holds, with its token, the lease of the
        shard of every game written (a game not stored yet: of its guild), and keeps it until
        the transaction ends (the rows are read under shared advisory locks, which a takeover
        takes exclusive first: it waits; migration 0004). Else StoreFenced."""
        count = self.shard_count or 1
        needed = {shard_of(guild, count) for guild in guilds}
        unknown = sorted({g for g in games if g not in self._game_shards})
        if unknown:
            for row in await conn.fetch(
                "SELECT id, guild_id FROM games WHERE id = ANY($1::text[])", unknown
            ):
                self._game_shards[row[0]] = shard_of(row[1], count)
        needed.update(self._game_shards[g] for g in games if g in self._game_shards)
        if not needed:
            return  # no such game: the write itself says so
        rows = await conn.fetch(
            "SELECT held_shard, held_token FROM rummy_held_shards($1, $2::int[])",
            self._holder,
            sorted(needed),
        )
        # on a copy (this runs on the writer thread too, while the store's loop may change
        # _held), then the shards it found lost leave _held
        held = dict(self._held)
        try:
            check_fence(needed, held, {int(r[0]): int(r[1]) for r in rows}, self.path)
        finally:
            for shard in needed.difference(held):
                self._held.pop(shard, None)

    async def _refuse_live_owner(self, conn: asyncpg.Connection) -> None:
        """A sharded store never writes beside a live whole-database owner."""
        holder = owner_from_row(
            await conn.fetchrow(f"SELECT {OWNER_COLUMNS} FROM owner WHERE id = 1")
        )
        refuse_live_owner(holder, lease_seconds=self.lease_seconds, where=self.path)

    def _sharded(self, doing: str) -> None:
        if self.shard_count is None:
            raise StoreError(
                f"{self.path} was opened without shard_count: {doing} refused", code="unsupported"
            )
        self._writable(doing)
        self._pool_or_raise()

    async def acquire_shards(
        self, shards: Sequence[int], *, now: float, lease_seconds: float
    ) -> dict[int, int]:
        self._sharded("taking shard leases")
        count = self.shard_count or 1
        wrong = shard_range_error(shards, count)
        if wrong:
            raise StoreInvalid(wrong)
        holder = self._holder
        started, _ = process_facts(os.getpid())

        async def work(conn: asyncpg.Connection) -> dict[int, int]:
            # one acquirer at a time (new rows included); the writes in flight of the shards'
            # holders end first (their shared lease locks, migration 0004); every row locked.
            # A shard held by another live store is not taken now, so its lock is not waited
            # for (a holder stopped inside a write would hold this transaction, and this
            # store's renewals, until the server ends its session); the lock of a lease found
            # free is taken after ending its holder's sessions left idle inside a transaction
            # (migration 0005): a stopped holder does not delay the takeover past its lease
            await conn.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
            seen = {lease.shard: lease for lease in await read_shard_leases(conn)}
            locked: list[int] = []
            gone: set[str] = set()  # dead holders whose idle sessions were ended (0006)
            for shard in sorted(set(shards)):
                row = seen.get(shard)
                other = row is not None and row.holder != holder
                if other and not row.free(now):
                    continue
                if row is not None and other and row.holder not in gone:
                    gone.add(row.holder)
                    idle = await conn.fetchval(
                        "SELECT rummy_end_idle_sessions($1)", f"{APPLICATION} {row.holder}"
                    )
                    if idle:
                        log.warning(
                            "%s: ended %d idle transaction(s) of %s",
                            self.path,
                            idle,
                            row.text(now),
                        )
                ended = await conn.fetchval(
                    "SELECT rummy_lock_lease_exclusive($1, $2)", int(shard), other
                )
                if ended:
                    log.warning(
                        "%s: shard %d: ended %d idle transaction(s) of its old holder, %s",
                        self.path,
                        shard,
                        ended,
                        row.text(now) if row is not None else "?",
                    )
                locked.append(shard)
            await self._refuse_live_owner(conn)
            rows = {lease.shard: lease for lease in await read_shard_leases(conn, lock=True)}
            steps = acquire_steps(
                rows, locked, holder=holder, held=self._held, now=now, count=count, where=self.path
            )
            expires = now + lease_seconds
            taken: dict[int, int] = {}
            for shard, token, renew in steps:
                if renew:
                    await conn.execute(
                        "UPDATE shard_leases SET heartbeat = $1, expires = $2 WHERE shard = $3 "
                        "AND holder = $4 AND token = $5",
                        now,
                        expires,
                        shard,
                        holder,
                        token,
                    )
                    continue
                await conn.execute(
                    f"INSERT INTO shard_leases ({SHARD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, "
                    "$6, $7, $8, $9, NULL, $10, $11) ON CONFLICT (shard) DO UPDATE SET "
                    "shard_count = excluded.shard_count, holder = excluded.holder, "
                    "token = excluded.token, pid = excluded.pid, host = excluded.host, "
                    "since = excluded.since, heartbeat = excluded.heartbeat, "
                    "expires = excluded.expires, released = NULL, boot = excluded.boot, "
                    "started = excluded.started",
                    shard,
                    count,
                    holder,
                    token,
                    os.getpid(),
                    HOST,
                    now,
                    now,
                    expires,
                    BOOT_ID,
                    started,
                )
                taken[shard] = token
            self._held.update(taken)  # only once the transaction's statements ran
            return await self._still_held(conn)

        return await self._transaction(work, "taking shard leases")

    async def _still_held(self, conn: asyncpg.Connection) -> dict[int, int]:
        """Drop from ``_held`` every shard whose row carries another holder or token now."""
        rows = await conn.fetch(
            "SELECT shard, token FROM shard_leases WHERE holder = $1 AND released IS NULL",
            self._holder,
        )
        return keep_held(self._held, {int(r[0]): int(r[1]) for r in rows}, self.path)

    async def renew_shards(self, *, now: float, lease_seconds: float) -> dict[int, int]:
        self._sharded("renewing shard leases")
        holder = self._holder
        held = dict(self._held)

        async def work(conn: asyncpg.Connection) -> dict[int, int]:
            if held:
                await conn.execute(
                    "UPDATE shard_leases AS s SET heartbeat = $1, expires = $2 "
                    "FROM unnest($3::int[], $4::bigint[]) AS h (shard, token) "
                    "WHERE s.shard = h.shard AND s.token = h.token AND s.holder = $5 "
                    "AND s.released IS NULL",
                    now,
                    now + lease_seconds,
                    list(held),
                    list(held.values()),
                    holder,
                )
            return await self._still_held(conn)

        return await self._transaction(work, "renewing shard leases")

    async def release_shards(self, shards: Sequence[int] | None = None, *, now: float) -> None:
        self._sharded("giving shard leases back")
        holder = self._holder
        chosen = list(self._held) if shards is None else [s for s in shards if s in self._held]
        tokens = [self._held[s] for s in chosen]

        async def work(conn: asyncpg.Connection) -> None:
            await conn.execute(
                "UPDATE shard_leases AS s SET released = $1, heartbeat = $1 "
                "FROM unnest($2::int[], $3::bigint[]) AS h (shard, token) "
                "WHERE s.shard = h.shard AND s.token = h.token AND s.holder = $4",
                now,
                chosen,
                tokens,
                holder,
            )

        await self._transaction(work, "giving shard leases back")
        for shard in chosen:
            self._held.pop(shard, None)

    async def shard_leases(self) -> list[ShardLease]:
        return await self._read(read_shard_leases, "reading the shard leases")

    def _writable(self, doing: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only: {doing} refused", code="readonly")
        if self._lost:
            raise StoreOwnerLost(
                f"this process no longer owns {self.path}: {doing} refused; nothing was saved; "
                "stop this process (another one runs the games now)"
            )

    async def _execute(
        self,
        sql: str,
        *args: Any,
        doing: str,
        games: Sequence[str] = (),
        guilds: Sequence[str | None] = (),
    ) -> int:
        """One statement in one write transaction (fenced as :meth:`_transaction`); its row
        count."""

        async def work(conn: asyncpg.Connection) -> int:
            return row_count(await conn.execute(sql, *args))

        return await self._transaction(work, doing, games=games, guilds=guilds)

    # ------------------------------------------------------------------ players
    async def upsert_player(self, player: PlayerRecord) -> None:
        check_text("player id", player.id)
        check_text("player name", player.name)
        check_text("player locale", player.locale)
        await self._execute(
            "INSERT INTO players (id, name, locale, is_bot) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name, locale = excluded.locale, "
            "is_bot = excluded.is_bot",
            player.id,
            player.name,
            player.locale,
            bool(player.is_bot),
            doing=f"saving player {player.id}",
        )

    # ------------------------------------------------------------------ games
    async def create_game(self, game: GameRecord) -> None:
        check_text("game id", game.id)
        check_text("host id", game.host_id)
        check_text("preset", game.preset)
        check_text("rules", game.rules_json)
        check_text("snapshot", game.snapshot_json, optional=True)
        for what in ("guild_id", "channel_id", "thread_id"):
            check_text(what.replace("_", " "), getattr(game, what), optional=True)
        _seat_texts(game.seats)
        if game.status not in STATUSES:
            raise StoreInvalid(f"unknown game status {game.status!r}")
        values = game_values(game)
        marks = ", ".join(f"${n}" for n in range(1, len(values) + 1))
        try:
            await self._execute(
                f"INSERT INTO games ({GAME_COLUMNS}) VALUES ({marks})",
                *values,
                doing=f"creating game {game.id}",
                guilds=(game.guild_id,),
            )
        except StoreConflict as exc:
            raise StoreConflict(f"game {game.id} already exists") from exc
        if self.shard_count is not None:
            self._game_shards[game.id] = shard_of(game.guild_id, self.shard_count)

    async def update_lobby(
        self, game_id: str, seats: Sequence[Seat], *, at: float, rules_json: str | None = None
    ) -> None:
        check_text("game id", game_id)
        check_text("rules", rules_json, optional=True)
        _seat_texts(seats)
        changed = await self._execute(
            "UPDATE games SET seats = $1, rules_json = COALESCE($2, rules_json), "
            "updated_at = $3, last_activity = $3 WHERE id = $4 AND status = 'lobby'",
            seats_to_json(seats),
            rules_json,
            at,
            game_id,
            doing=f"saving the lobby of game {game_id}",
            games=(game_id,),
        )
        if changed != 1:
            raise StoreConflict(f"game {game_id} is not in the lobby")

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
        check_text("game id", game_id)
        check_text("snapshot", snapshot_json)
        _seat_texts(seats)
        changed = await self._execute(
            "UPDATE games SET status = 'playing', seats = $1, seed = $2, snapshot_json = $3, "
            "snapshot_seq = 0, seq = 0, deadline = $4, reminder_sent = FALSE, updated_at = $5, "
            "last_activity = $5 WHERE id = $6 AND status = 'lobby'",
            seats_to_json(seats),
            seed,
            snapshot_json,
            deadline,
            at,
            game_id,
            doing=f"starting game {game_id}",
            games=(game_id,),
        )
        if changed != 1:
            raise StoreConflict(f"game {game_id} is not in the lobby")

    async def append_command(self, write: CommandWrite) -> None:
        """Queue the write for the group commit and wait until it is committed (or failed).

        The write is queued before this coroutine first waits, and is committed (or fails)
        even if the caller is cancelled; a read of its game waits for it (also when its caller
        was cancelled)."""
        check_text("game id", write.game_id)
        check_text("command text", write.text)
        check_text("snapshot", write.snapshot_json, optional=True)
        check_status(write.status)
        self._writable(f"saving command {write.seq} of game {write.game_id}")
        self._pool_or_raise()
        writer = self._writer
        if writer is None or self._closing:
            raise StoreError(f"the store {self.path} is closing", code="closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        game_id = write.game_id
        with self._mutex:
            self._pending.append((write, future))
            # the drainer, when it runs, takes this write after the commit under way: no wake
            wake = not (self._wake_due or self._draining)
            if wake:
                self._wake_due = True
        self._unsettled[game_id] = self._unsettled.get(game_id, 0) + 1
        if wake:  # at the end of this pass through the loop: with every write queued in it
            loop.call_soon(self._hand_over, writer)
        await future

    def _hand_over(self, writer: WriterThread) -> None:
        """On the store's loop, at the end of a pass that queued writes while the writer
        thread was idle: wake it.

        Not at the first write of the pass: the thread would take the GIL at once and commit
        that write nearly alone; measured on the benchmark's single run, that doubled the
        commits and the server's CPU seconds, while the latency gained was within the
        noise. A pass's writes go as one batch, as they did on the store's loop. While the
        drainer runs nothing wakes it (see :meth:`_drain`): every wake is a write into the
        thread's loop, after which the service's thread waits for the GIL while the writer
        thread runs (a sixth of the service thread's samples in a profile of the steady run,
        when every pass woke it)."""
        try:
            writer.soon(self._wake)
        except StoreError as exc:  # the thread is gone: nothing will take the queue
            self._strand(exc)

    def _wake(self) -> None:
        """On the writer thread: start the drainer unless it runs."""
        with self._mutex:
            self._wake_due = False
            start = bool(self._pending) and not self._draining
            if start:
                self._draining = True
        if start:
            self._start_drainer()

    def _start_drainer(self) -> None:
        """On the writer thread, with ``_draining`` set by the caller (under ``_mutex``)."""
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._drain(), name=f"store-drainer:{self.path}")
        self._drainer = task

    def _hand_back(
        self,
        batch: list[tuple[CommandWrite, asyncio.Future[None]]],
        outcomes: list[BaseException | None],
    ) -> None:
        """From the writer thread: settle ``batch`` on the store's loop, in ONE call there."""
        if self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(self._settle, batch, outcomes)
        except RuntimeError:  # the store's loop is closed: nobody waits for these any more
            log.warning("%d writes settled after their event loop closed", len(batch))

    def _settle(
        self,
        batch: list[tuple[CommandWrite, asyncio.Future[None]]],
        outcomes: Sequence[BaseException | None],
    ) -> None:
        """On the store's loop: wake a batch's writers, then the reads waiting for them."""
        settle_batch(batch, outcomes)
        for write, _ in batch:
            game_id = write.game_id
            left = self._unsettled.get(game_id, 0) - 1
            if left > 0:
                self._unsettled[game_id] = left
                continue
            self._unsettled.pop(game_id, None)
            for waiter in self._read_waiters.pop(game_id, ()):
                if not waiter.done():
                    waiter.set_result(None)

    def _strand(self, error: BaseException) -> None:
        """On the store's loop: fail every write still queued (the writer thread is gone)."""
        with self._mutex:
            stranded = list(self._pending)
            self._pending.clear()
            self._wake_due = False
        if stranded:
            self._settle(stranded, [error] * len(stranded))

    async def _after_writes_of(self, game_id: str) -> None:
        """Wait until the writes of ``game_id`` queued so far are settled (read your writes)."""
        if game_id not in self._unsettled:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._read_waiters.setdefault(game_id, []).append(waiter)
        await waiter

    def _take_batch(self) -> list[tuple[CommandWrite, asyncio.Future[None]]]:
        """The next batch: the first queued writes, in their order, at most MAX_BATCH. None
        queued: the drainer stops (``_draining`` cleared in the same hold of ``_mutex`` as the
        queue was found empty, so a write queued after it wakes the thread again)."""
        with self._mutex:
            pending = self._pending
            batch = [pending.popleft() for _ in range(min(len(pending), MAX_BATCH))]
            if not batch:
                self._draining = False
        return batch

    async def _drain(self) -> None:
        """The group commit's ONE drainer, on the writer thread: commit what is queued, batch
        by batch (the writes queued during a commit form the next batch), until the queue is
        empty. One batch at a time, so a game's writes are committed in their order, and a
        batch is as large as the writes that came during the commit before it: at a steady
        load below capacity, fewer and larger commits (the server's CPU per command, and the
        wakes of this thread, which cost the service's thread the GIL) for a wait of at most
        one commit more."""
        try:
            await self._drain_batches()
        finally:
            with self._mutex:  # a bug or a cancel must not leave the queue without a drainer
                self._draining = False
                self._drainer = None

    async def _drain_batches(self) -> None:
        while True:
            batch = self._take_batch()
            if not batch:
                return
            handed = False

            def committed(b: list[tuple[CommandWrite, asyncio.Future[None]]] = batch) -> None:
                nonlocal handed
                handed = True
                self._hand_back(b, [None] * len(b))

            try:
                outcomes = await self._commit_writes(
                    [w for w, _ in batch], committed=committed, pool=self._writer_pool
                )
            except BaseException as exc:  # a bug here must not leave writers waiting for ever
                if not handed:
                    if not isinstance(exc, asyncio.CancelledError):
                        log.exception("the store writer failed")
                    error = pg_error(exc, "saving commands", where=self.path)
                    self._hand_back(batch, [error] * len(batch))
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue  # the others queued still need a drainer
            if not handed:
                self._hand_back(batch, outcomes)

    async def _stop_writer(self) -> None:
        """Commit what is queued, then close the writer pool and end the writer thread; a
        write that could not be handed to it fails with ``code="closed"``."""
        writer, self._closing = self._writer, True
        if writer is None:
            return
        try:
            await writer.call(self._finish_writes())
        except BaseException as exc:
            if not isinstance(exc, StoreError):
                log.warning("%s: stopping the writer thread: %r", self.path, exc)
        finally:
            await writer.stop()
            self._writer, self._writer_pool = None, None
            self._strand(StoreError(f"the store {self.path} is closed", code="closed"))

    async def _finish_writes(self) -> None:
        """On the writer thread: wait until every queued write is settled, then close the
        writer pool."""
        while True:
            with self._mutex:
                start = bool(self._pending) and not self._draining
                if start:
                    self._draining = True
            if start:
                self._start_drainer()
            drainer = self._drainer
            if drainer is None:
                break
            await asyncio.wait({drainer})
        pool = self._writer_pool
        if pool is not None:
            try:
                await asyncio.wait_for(pool.close(), timeout=self.connect_timeout)
            except Exception:
                pool.terminate()

    async def _commit_writes(
        self,
        writes: list[CommandWrite],
        committed: Callable[[], None] | None = None,
        *,
        pool: asyncpg.Pool | ConnectionStack | None = None,
    ) -> list[BaseException | None]:
        """Commit ``writes`` in one transaction; when that fails, one by one, so only a faulty
        write fails. Returns each write's StoreError or None. ``committed()`` runs the moment
        the whole batch is committed in one call or transaction (its writers are woken before
        the connection is given back; the outcomes returned then say the same)."""

        def doing(write: CommandWrite) -> str:
            return f"saving command {write.seq} of game {write.game_id}"

        fast = self._one_call(writes)
        if fast is not None:
            try:
                await self._run(
                    fast,
                    f"saving {len(writes)} commands",
                    write=True,
                    atomic=False,
                    then=committed,
                    pool=pool,
                )
                return [None] * len(writes)
            except StoreError as exc:
                if exc.code == "closed":
                    return [exc] * len(writes)
                if exc.code == "unavailable":  # the connection died: did the call commit?
                    stored = await self._committed(writes, pool=pool)
                    if stored is None:
                        return [exc] * len(writes)  # unknown: nothing acknowledged
                    if stored:
                        return [None] * len(writes)
                # refused, or not committed: the batch again as a transaction, which says
                # exactly why (the log's primary key and the seq guard apply nothing twice)
        try:
            await self._transaction(
                lambda conn: write_commands(conn, writes),
                f"saving {len(writes)} commands",
                games=[w.game_id for w in writes],
                then=committed,
                pool=pool,
            )
        except StoreError as exc:
            if len(writes) == 1:
                return [exc]
            if isinstance(exc, StoreOwnerLost) or exc.code in ("unavailable", "closed"):
                return [exc] * len(writes)  # no write of this batch can succeed now
            log.warning(
                "group commit of %d writes failed (%s); retrying one by one", len(writes), exc
            )
            outcomes: list[BaseException | None] = []
            for write in writes:
                try:
                    await self._transaction(
                        lambda conn, w=write: write_commands(conn, [w]),
                        doing(write),
                        games=(write.game_id,),
                        pool=pool,
                    )
                except StoreError as single:
                    outcomes.append(single)
                else:
                    outcomes.append(None)
            return outcomes
        return [None] * len(writes)

    async def _committed(
        self, writes: Sequence[CommandWrite], *, pool: asyncpg.Pool | ConnectionStack | None = None
    ) -> bool | None:
        """Whether ONE call that lost its connection committed (all its log rows are there) or
        not (none is); None when that cannot be read now."""

        async def query(conn: asyncpg.Connection) -> int:
            return await conn.fetchval(
                "SELECT count(*) FROM commands AS c JOIN unnest($1::text[], $2::int[]) AS w "
                "(id, seq) ON c.game_id = w.id AND c.seq = w.seq",
                [w.game_id for w in writes],
                [w.seq for w in writes],
            )

        try:
            found = await self._read(query, "reading back a batch of commands", pool=pool)
        except StoreError:
            return None
        if found == len(writes):
            return True
        return False if found == 0 else None

    def _one_call(
        self, writes: Sequence[CommandWrite]
    ) -> Callable[[asyncpg.Connection], Awaitable[None]] | None:
        """The batch as ONE call of ``rummy_write_commands`` (one round trip, its own
        transaction), when it can be: plain writes of distinct games (no result, key/value or
        hook rows) whose shards this store knows. None: write it as a transaction."""
        if self._lost or self.readonly:
            return None
        if any(w.results or w.kv or w.kv_hooks for w in writes):
            return None
        if len({w.game_id for w in writes}) != len(writes):
            return None
        holder: str | None = None
        shards: list[int] = []
        tokens: list[int] = []
        if self.shard_count is not None:
            if any(w.game_id not in self._game_shards for w in writes):
                return None
            needed = sorted({self._game_shards[w.game_id] for w in writes})
            held = dict(self._held)  # on the writer thread: the store's loop may change it
            if any(s not in held for s in needed):
                return None  # the transaction raises StoreFenced, naming them
            holder, shards, tokens = self._holder, needed, [held[s] for s in needed]
        owner_token = self._token if self.shard_count is None else None

        async def call(conn: asyncpg.Connection) -> None:
            await call_write_function(
                conn, writes, owner_token=owner_token, holder=holder, shards=shards, tokens=tokens
            )

        return call

    async def set_timer(
        self, game_id: str, *, deadline: float | None, reminder_sent: bool, seq: int | None = None
    ) -> None:
        check_text("game id", game_id)
        await self._guarded(
            game_id,
            "deadline = $2, reminder_sent = $3",
            [deadline, bool(reminder_sent)],
            ["playing"],
            seq,
            f"saving the timer of game {game_id}",
        )

    async def set_status(
        self,
        game_id: str,
        status: GameStatus,
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = UNFINISHED,
        seq: int | None = None,
    ) -> None:
        check_text("game id", game_id)
        if status not in STATUSES or status == "quarantined":
            raise StoreInvalid(f"set_status cannot set {status!r} (quarantine() sets a game aside)")
        await self._guarded(
            game_id,
            "status = $2, deadline = NULL, updated_at = $3",
            [status, at],
            _statuses(expect),
            seq,
            f"setting game {game_id} {status}",
        )

    async def update_meta(
        self,
        game_id: str,
        meta: dict[str, Any],
        *,
        at: float,
        expect: GameStatus | Sequence[GameStatus] | None = None,
        seq: int | None = None,
    ) -> None:
        check_text("game id", game_id)
        await self._guarded(
            game_id,
            "meta = $2, updated_at = $3",
            [canonical_json(meta), at],
            _statuses(expect),
            seq,
            f"saving the meta data of game {game_id}",
        )

    async def _guarded(
        self,
        game_id: str,
        assignments: str,
        values: list[Any],
        expected: list[str] | None,
        seq: int | None,
        doing: str,
    ) -> None:
        """One guarded UPDATE of a game row (``$1`` the id, then ``values``); when it changes
        no row, say why: no such game (``code="missing"``) or another status / seq than
        expected (StoreConflict)."""
        n = len(values) + 2
        sql = (
            f"UPDATE games SET {assignments} WHERE id = $1 "
            f"AND (${n}::text[] IS NULL OR status = ANY(${n}::text[])) "
            f"AND (${n + 1}::int IS NULL OR seq = ${n + 1}::int)"
        )

        async def work(conn: asyncpg.Connection) -> None:
            if row_count(await conn.execute(sql, game_id, *values, expected, seq)) == 1:
                return
            row = await conn.fetchrow("SELECT status, seq FROM games WHERE id = $1", game_id)
            raise guard_refusal(game_id, row, expected, seq)

        await self._transaction(work, doing, games=(game_id,))

    async def load_game(self, game_id: str) -> GameRecord | None:
        await self._after_writes_of(game_id)
        return await super().load_game(game_id)

    async def commands(self, game_id: str, after_seq: int = 0) -> list[CommandRecord]:
        await self._after_writes_of(game_id)
        return await super().commands(game_id, after_seq)

    # ------------------------------------------------------------------ quarantine
    async def quarantine(self, game_id: str, reason: str, *, at: float) -> None:
        check_text("game id", game_id)
        check_text("reason", reason)

        async def work(conn: asyncpg.Connection) -> None:
            status = await conn.fetchval(
                "SELECT status FROM games WHERE id = $1 FOR UPDATE", game_id
            )
            if status is None:
                raise StoreError(f"no game {game_id}", code="missing")
            previous = await conn.fetchval(
                "SELECT previous_status FROM quarantine WHERE game_id = $1", game_id
            )
            before = previous if previous and status == "quarantined" else status
            await conn.execute(
                "INSERT INTO quarantine (game_id, reason, at, previous_status) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (game_id) DO UPDATE SET "
                "reason = excluded.reason, at = excluded.at, "
                "previous_status = excluded.previous_status",
                game_id,
                reason,
                at,
                before,
            )
            await conn.execute(
                "UPDATE games SET status = 'quarantined', deadline = NULL, updated_at = $1 "
                "WHERE id = $2",
                at,
                game_id,
            )

        await self._transaction(work, f"quarantining game {game_id}", games=(game_id,))

    async def release_quarantine(self, game_id: str, *, at: float) -> None:
        check_text("game id", game_id)

        async def work(conn: asyncpg.Connection) -> None:
            previous = await conn.fetchval(
                "SELECT q.previous_status FROM quarantine AS q JOIN games AS g ON g.id = "
                "q.game_id WHERE q.game_id = $1 AND g.status = 'quarantined' FOR UPDATE",
                game_id,
            )
            if previous is None:
                raise StoreConflict(f"game {game_id} is not quarantined")
            await conn.execute(
                "UPDATE games SET status = $1, updated_at = $2 WHERE id = $3",
                previous,
                at,
                game_id,
            )
            await conn.execute("DELETE FROM quarantine WHERE game_id = $1", game_id)

        await self._transaction(work, f"releasing game {game_id}", games=(game_id,))

    # ------------------------------------------------------------------ key / value
    async def kv_put(self, rows: Sequence[KvRow]) -> None:
        for r in rows:
            check_text("key/value namespace", r.namespace)
            check_text("key", r.key)
        values = [(r.namespace, r.key, canonical_json(r.value)) for r in rows]

        async def work(conn: asyncpg.Connection) -> None:
            if values:
                await conn.executemany(KV_UPSERT, values)

        await self._transaction(work, "saving key/value rows")

    async def kv_update(self, hook: KvHook) -> list[KvRow]:
        for read in hook.reads:
            check_text("key/value namespace", read.namespace)
            check_text("key prefix", read.prefix)

        async def run(own: KvHook) -> list[KvRow]:
            async def work(conn: asyncpg.Connection) -> list[KvRow]:
                await lock_kv_ranges(conn, [own])
                return await run_kv_hook(conn, own)

            return await self._transaction(work, "updating key/value rows")

        return await with_own_errors(hook, run)

    # ------------------------------------------------------------------ one snapshot
    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[PostgresSnapshot]:
        """Read one consistent state of the database: every read of the returned
        :class:`PostgresSnapshot` runs in ONE read-only REPEATABLE READ transaction on a
        connection of its own, so it sees the database as it was when the snapshot began and
        never blocks this store's writes."""
        pool = self._pool_or_raise()
        try:
            conn = await pool.acquire(timeout=self.connect_timeout)
        except Exception as exc:
            raise pg_error(exc, "opening a read snapshot", where=self.path) from None
        try:
            transaction = conn.transaction(isolation="repeatable_read", readonly=True)
            try:
                await transaction.start()
                await conn.fetchval("SELECT 1")  # the snapshot starts here
            except Exception as exc:
                raise pg_error(exc, "opening a read snapshot", where=self.path) from None
            try:
                yield PostgresSnapshot(self, conn)
            finally:
                with contextlib.suppress(Exception):
                    await transaction.rollback()
        finally:
            with contextlib.suppress(Exception):
                await pool.release(conn)


async def _keep_session(conn: asyncpg.Connection) -> None:
    """The pool's reset of a connection given back: nothing beyond asyncpg's own rollback of
    a transaction left open. Its default (``RESET ALL``, ``UNLISTEN *``, ``CLOSE ALL``,
    ``pg_advisory_unlock_all()``) is one more round trip per use, and this store leaves none
    of those behind: no SET, LISTEN, cursor or session-level advisory lock (only
    ``pg_advisory_xact_lock``, which ends with its transaction)."""
    del conn


async def read_shard_leases(conn: asyncpg.Connection, *, lock: bool = False) -> list[ShardLease]:
    """Every shard lease row, by shard (``lock``: FOR UPDATE); none before schema 2."""
    if await conn.fetchval("SELECT to_regclass('shard_leases')") is None:
        return []
    rows = await conn.fetch(
        f"SELECT {SHARD_COLUMNS} FROM shard_leases ORDER BY shard" + (" FOR UPDATE" if lock else "")
    )
    return [shard_lease_from_row(row) for row in rows]


class PostgresSnapshot(PgReads):
    """The read methods of a store, all on one read transaction (see
    :meth:`PostgresStore.snapshot`)."""

    def __init__(self, store: PostgresStore, conn: asyncpg.Connection) -> None:
        self._store = store
        self._conn = conn

    async def _read(self, query: Query[_T], doing: str = "reading a snapshot") -> _T:
        try:
            return await query(self._conn)
        except StoreError:
            raise
        except Exception as exc:
            raise pg_error(exc, doing, where=self._store.path) from None
