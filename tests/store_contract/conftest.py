"""The store contract suite runs every test once per store implementation (factories.py): on
SQLite and on a real PostgreSQL server that the session starts itself (tests/pg.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store
from tests.store_contract.factories import FACTORIES, StoreFactory


@pytest.fixture(params=FACTORIES, ids=lambda f: f.name)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    return request.param.make(tmp_path, request)


@pytest.fixture
async def store(factory: StoreFactory) -> AsyncIterator[Store]:
    opened = await factory.open()
    try:
        yield opened
    finally:
        await opened.close()
