"""The group commit's statements (bot/store/writes.py): a batch of any size is written by one of
few statement texts, padded with NULL rows that write nothing.

sqlite3 caches every statement text it runs, and each cached statement keeps a copy of the
values last bound to it (a batch's snapshots): with one text per batch size the soak's load run
held 15 MB in prepared statements (peak RSS 65 MB against 48 MB before the redesign)."""

from __future__ import annotations

import sqlite3

import pytest

from bot.store import StoreConflict
from bot.store.schema import migrate
from bot.store.sqlite import MAX_BATCH
from bot.store.writes import (
    COMMAND_WRITE_COLUMNS,
    command_statements,
    install_command_write,
    statement_rows,
    write_commands,
)
from tests.bot.store_helpers import T0, write

WIDTH = len(COMMAND_WRITE_COLUMNS)


@pytest.fixture
def conn() -> sqlite3.Connection:
    """A writer connection: the schema, the command_write view and games g0..g299 playing."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("BEGIN")
    migrate(conn, 0)
    conn.executemany(
        "INSERT INTO games (id, preset, rules_json, seed, status, created_at, updated_at, "
        "host_id, last_activity) VALUES (?, 'rummikub', '{}', 7, 'playing', ?, ?, 'alice', ?)",
        [(f"g{i}", T0, T0, T0) for i in range(300)],
    )
    conn.execute("COMMIT")
    install_command_write(conn)
    yield conn
    conn.close()


def no_owner_check(conn: sqlite3.Connection) -> None:
    raise AssertionError("a store without a lease never checks the owner")


def test_every_batch_size_uses_one_of_few_statement_texts(conn: sqlite3.Connection):
    texts: set[str] = set()
    for size in range(1, MAX_BATCH + 1):
        writes = [write(1, f"g{i}") for i in range(size)]
        statements = list(command_statements(conn, writes, None))
        assert len(statements) == 1
        sql, params = statements[0]
        rows = len(params) // WIDTH
        assert size <= rows < 2 * size and len(params) == rows * WIDTH
        assert all(value is None for value in params[size * WIDTH :])
        texts.add(sql)
    # 1, 2, 4 ... 256 rows: not one text (and one cached copy of its values) per batch size
    assert len(texts) == MAX_BATCH.bit_length() == 9


def test_a_low_variable_limit_caps_the_size_classes(conn: sqlite3.Connection):
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 100 * WIDTH + 5)  # 100 writes a statement
    assert [statement_rows(n, 100) for n in (1, 2, 3, 5, 33, 64, 65, 100)] == [
        1,
        2,
        4,
        8,
        64,
        64,
        100,
        100,
    ]
    writes = [write(1, f"g{i}") for i in range(230)]
    rows = [len(params) // WIDTH for _, params in command_statements(conn, writes, None)]
    assert rows == [100, 100, 32]  # 230 = 100 + 100 + 30 writes
    texts = {
        sql
        for size in range(1, 231)
        for sql, _ in command_statements(conn, [write(1, f"g{i}") for i in range(size)], None)
    }
    assert len(texts) == 8  # 1, 2, 4 ... 64 and 100 rows


def test_padding_rows_write_nothing_and_the_batch_goes_in_order(conn: sqlite3.Connection):
    # three writes (two of g1, in order) and one padding row, in autocommit: one statement
    writes = [write(1, "g1"), write(1, "g2"), write(2, "g1", snapshot_json=None)]
    assert [len(p) // WIDTH for _, p in command_statements(conn, writes, None)] == [4]
    write_commands(conn, writes, None, no_owner_check)  # g1's 2 needs its 1 written first
    assert conn.execute("SELECT game_id, seq, text FROM commands ORDER BY 1, 2").fetchall() == [
        ("g1", 1, "cmd 1"),
        ("g1", 2, "cmd 2"),
        ("g2", 1, "cmd 1"),
    ]
    assert conn.execute(
        "SELECT id, seq, snapshot_seq, snapshot_json FROM games WHERE seq > 0 ORDER BY id"
    ).fetchall() == [("g1", 2, 1, '{"after":1}'), ("g2", 1, 1, '{"after":1}')]


def test_a_refused_write_in_a_padded_batch_writes_nothing_of_it(conn: sqlite3.Connection):
    writes = [write(1, "g1"), write(1, "g2"), write(5, "g3")]  # g3 is at seq 0, not 4
    with pytest.raises(StoreConflict, match="seq"):
        write_commands(conn, writes, None, no_owner_check)
    assert conn.execute("SELECT count(*) FROM commands").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM games WHERE seq > 0").fetchone() == (0,)
    assert not conn.in_transaction
