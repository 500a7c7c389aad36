"""People as the service knows them: display name and language, cached over the store."""

from __future__ import annotations

import logging

from i18n import lang_of

from ..store import PlayerRecord, StoreError
from .checks import check_text, clean_name
from .ports import GameStore
from .registry import GameRegistry

log = logging.getLogger(__name__)


class People:
    """Display names and languages (en/de) by player id."""

    def __init__(self, store: GameStore, registry: GameRegistry) -> None:
        self.store = store
        self.registry = registry
        self._people: dict[str, PlayerRecord] = {}
        self._unsaved: set[str] = set()

    async def register(self, player_id: str, name: str, locale: str = "en") -> None:
        """Remember a person's display name and language (see
        :meth:`GameService.register_player`)."""
        check_text(player_id, "player")
        record = PlayerRecord(player_id, clean_name(name, player_id), lang_of(locale), False)
        if self._people.get(player_id) != record or player_id in self._unsaved:
            self._people[player_id] = record
            try:
                await self.store.upsert_player(record)
            except StoreError as exc:
                self.registry.store_failed(exc)
                log.warning("player %s not saved (%s); kept in memory", player_id, exc)
                self._unsaved.add(player_id)
            else:
                self._unsaved.discard(player_id)

    async def add_bot(self, record: PlayerRecord) -> None:
        """A computer seat's player row (written once per id)."""
        if record.id not in self._people:
            await self.store.upsert_player(record)
            self._people[record.id] = record

    async def person(self, player_id: str) -> PlayerRecord:
        """The person (a stand-in named by the id when nobody registered it)."""
        record = self._people.get(player_id)
        if record is None:
            try:
                record = await self.store.get_player(player_id)
            except StoreError:
                record = None
            record = record or PlayerRecord(player_id, player_id, "en", False)
            self._people[player_id] = record
        return record

    async def stored(self, player_id: str) -> PlayerRecord | None:
        """What the service knows of a person (memory, else the store), or None."""
        record = self._people.get(player_id)
        if record is None:
            record = await self.store.get_player(player_id)
        return record

    async def lang(self, player_id: str) -> str:
        return lang_of((await self.person(player_id)).locale)

    def cached_lang(self, player_id: str) -> str:
        record = self._people.get(player_id)
        return lang_of(record.locale) if record else "en"
