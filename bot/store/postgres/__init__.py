"""The PostgreSQL store (``DATABASE_URL=postgresql://...``): :class:`PostgresStore`."""

from .store import PostgresSnapshot, PostgresStore

__all__ = ["PostgresSnapshot", "PostgresStore"]
