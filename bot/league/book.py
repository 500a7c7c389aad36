"""The ladder part of the league: stored results, seasons, voids, ladders and player figures.

:class:`LadderBook` keeps the ``ladder_result``, ``season`` and ``void`` rows of a
:class:`~bot.store.Store` (layout in :mod:`bot.league.service`) and computes every ladder from
scratch with the pure :mod:`bot.league.ladder`. Nothing is cached: every read asks the store
(so every process sharing the database sees the same seasons), the result hook reads the seasons
inside the transaction that finishes the game (:meth:`LadderBook.seasons_read`), and starting,
ending and voiding are read-modify-write transactions of their own
(:meth:`~bot.store.Store.kv_update`), so two processes changing one guild lose nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from bot.league.errors import LeagueError, LeagueServiceError
from bot.league.kinds import check_ranked, ranked_presets
from bot.league.ladder import (
    GameResult,
    Ladder,
    Season,
    SeasonChange,
    StandingRow,
    compute_ladder,
    current_season,
    end_season,
    select_results,
    start_season,
)
from bot.league.records import (
    NS_RESULT,
    NS_SEASON,
    NS_VOID,
    PlayerStats,
    PresetStats,
    VoidRecord,
    iso,
    number_key,
)
from bot.league.repository import LeagueStore
from bot.store import KvHook, KvRead, KvRow


def season_row(season: Season) -> KvRow:
    """The store row of a season (key ``guild:preset:NNNNN``)."""
    return KvRow(
        NS_SEASON,
        f"{season.guild_id}:{season.preset}:{number_key(season.number)}",
        season.to_dict(),
    )


def season_prefix(guild: str, preset: str) -> str:
    """The store-key prefix of a guild's seasons of a preset (``guild:preset:``)."""
    return f"{guild}:{preset}:"


def seasons_in(rows: Iterable[KvRow], guild: str, preset: str) -> list[Season]:
    """The guild's seasons of ``preset`` among ``rows`` (other rows are left out), oldest
    first."""
    found = [Season.from_dict(r.value) for r in rows if r.namespace == NS_SEASON]
    mine = [s for s in found if s.guild_id == guild and s.preset == preset]
    return sorted(mine, key=lambda s: s.number)


class LadderBook:
    """Results, seasons and voids of every guild, over ``store``; ``clock`` gives POSIX seconds."""

    def __init__(self, store: LeagueStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def all_seasons(self) -> list[Season]:
        """Every stored season (every guild and preset), as stored now."""
        return [Season.from_dict(row.value) for row in await self.store.kv_items(NS_SEASON)]

    async def known(self, guild: str, preset: str) -> list[Season]:
        """The guild's seasons of ``preset``, oldest first, as stored now."""
        return seasons_in(await self.store.kv_items(NS_SEASON), guild, preset)

    # ------------------------------------------------------------------ for the result hook

    @staticmethod
    def seasons_read(guild: str, preset: str) -> KvRead:
        """The rows of the guild's seasons of ``preset`` (what the hook reads)."""
        return KvRead(NS_SEASON, season_prefix(guild, preset))

    @staticmethod
    def season_for(
        known: list[Season], guild: str, preset: str, at: str
    ) -> tuple[Season, Season | None]:
        """Among the ``known`` seasons: the open season (and None), or the season to open now
        (returned twice)."""
        season = current_season(known, guild, preset)
        if season is not None:
            return season, None
        opened = start_season(known, guild_id=guild, preset=preset, at=at).started
        return opened, opened

    # ------------------------------------------------------------------ results and ladders

    async def results(
        self, guild: str | None = None, preset: str | None = None, season: int | None = None
    ) -> list[GameResult]:
        """Stored ladder results (voided ones included), in replay order."""
        found = [GameResult.from_dict(row.value) for row in await self.store.kv_items(NS_RESULT)]
        return select_results(found, guild_id=guild, preset=preset, season=season)

    async def result_season(self, game_id: str) -> int | None:
        """The season of a game's stored ladder result, or None (no result: not on a ladder)."""
        stored = await self.store.kv_get(NS_RESULT, game_id)
        return None if stored is None else int(stored["season"])

    async def voided(self, guild: str) -> set[str]:
        """Ids of the guild's voided games."""
        rows = await self.store.kv_items(NS_VOID)
        return {
            row.value["game_id"]
            for row in rows
            if row.value.get("guild_id") == guild and row.value.get("voided")
        }

    async def guilds(self) -> list[str]:
        """Guilds with at least one season (every result opens one)."""
        return sorted({s.guild_id for s in await self.all_seasons()})

    async def presets(self, guild: str) -> list[str]:
        """Presets with at least one season in the guild."""
        return sorted({s.preset for s in await self.all_seasons() if s.guild_id == guild})

    async def season_number(self, guild: str, preset: str, season: int | None = None) -> int:
        """The season a ladder shows: ``season`` if it exists (else an error); for None the
        open season, else the last one, else 1 (as stored now)."""
        return self.number_in(await self.known(guild, preset), guild, preset, season)

    @staticmethod
    def number_in(known: list[Season], guild: str, preset: str, season: int | None) -> int:
        """:meth:`season_number` among the ``known`` seasons."""
        if season is None:
            current = current_season(known, guild, preset)
            if current is not None:
                return current.number
            return max((s.number for s in known), default=1)
        if not any(s.number == season for s in known):
            raise LeagueServiceError("season.unknown", guild=guild, preset=preset, number=season)
        return season

    async def ladder(
        self,
        guild: str,
        preset: str,
        season: int | None = None,
        *,
        min_games: int = 0,
        order: str = "percent",
        trend_games: int = 1,
    ) -> Ladder:
        """A season's ladder, recomputed from the stored results without voided games.

        ``season=None``: the open season, or the last one when none is open (season 1 while
        the guild has none: an empty ladder).
        """
        check_ranked(preset)
        number = await self.season_number(guild, preset, season)
        chosen = await self.results(guild, preset, number)
        return compute_ladder(
            chosen,
            min_games=min_games,
            order=order,
            voided=await self.voided(guild),
            trend_games=trend_games,
        )

    async def player_stats(self, guild: str, player_id: str) -> PlayerStats:
        """The player's current-season row and career row per preset they played."""
        voided = await self.voided(guild)
        everything = await self.results(guild)
        seasons = await self.store.kv_items(NS_SEASON)
        stats: list[PresetStats] = []
        for preset in ranked_presets():
            mine = [
                r
                for r in everything
                if r.preset == preset and r.game_id not in voided and player_id in r.player_ids
            ]
            if not mine:
                continue
            all_games = [r for r in everything if r.preset == preset]
            career = compute_ladder(all_games, voided=voided).row(player_id)
            number = self.number_in(seasons_in(seasons, guild, preset), guild, preset, None)
            in_season = [r for r in all_games if r.season == number]
            season_ladder = compute_ladder(in_season, voided=voided)
            try:
                season_row_: StandingRow | None = season_ladder.row(player_id)
            except LeagueError:
                season_row_ = None
            played = tuple(sorted({r.season for r in mine}))
            stats.append(PresetStats(preset, number, season_row_, career, played))
        return PlayerStats(guild, player_id, tuple(stats))

    # ------------------------------------------------------------------ voiding

    async def _void_flag(self, guild: str, game_id: str, by: str, voided: bool) -> VoidRecord:
        """Flip the game's void row in one read-modify-write transaction."""
        entry = {"action": "void" if voided else "unvoid", "by": by, "at": iso(self.clock())}
        changed: list[VoidRecord] = []

        def compute(rows: list[KvRow]) -> list[KvRow]:
            found = {(r.namespace, r.key): r.value for r in rows}
            stored = found.get((NS_RESULT, game_id))
            if stored is None or stored.get("guild_id") != guild:
                raise LeagueServiceError("league.unknown_game", game_id=game_id, guild=guild)
            raw = found.get((NS_VOID, game_id))
            record = VoidRecord.from_dict(raw) if raw else VoidRecord(game_id, guild, False)
            if record.voided == voided:
                code = "league.already_voided" if voided else "league.not_voided"
                raise LeagueServiceError(code, game_id=game_id)
            record = replace(record, voided=voided, log=(*record.log, entry))
            changed.append(record)
            return [KvRow(NS_VOID, game_id, record.to_dict())]

        reads = (KvRead(NS_RESULT, game_id), KvRead(NS_VOID, game_id))
        await self.store.kv_update(KvHook(reads, compute))
        return changed[-1]

    async def void_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Void a ladder game: every ladder is then as if it had never been played."""
        return await self._void_flag(guild, game_id, by, True)

    async def unvoid_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Count a voided game again."""
        return await self._void_flag(guild, game_id, by, False)

    # ------------------------------------------------------------------ seasons

    async def seasons(self, guild: str, preset: str) -> list[Season]:
        """Every season of a guild and preset, oldest first (archived ones included)."""
        return await self.known(guild, preset)

    async def _change_seasons(
        self, guild: str, preset: str, change: Callable[[list[Season]], list[Season]]
    ) -> None:
        """``change(known seasons) -> changed seasons``, stored in one read-modify-write
        transaction (a game finishing meanwhile reads the seasons before or after it)."""

        def compute(rows: list[KvRow]) -> list[KvRow]:
            return [season_row(s) for s in change(seasons_in(rows, guild, preset))]

        await self.store.kv_update(KvHook((self.seasons_read(guild, preset),), compute))

    async def start_season(
        self, guild: str, preset: str, name: str = "", *, at: float | None = None
    ) -> SeasonChange:
        """Archive the open season (if any) and open the next, named ``name``."""
        check_ranked(preset)
        moment = iso(self.clock() if at is None else at)
        made: list[SeasonChange] = []

        def change(known: list[Season]) -> list[Season]:
            found = start_season(known, guild_id=guild, preset=preset, at=moment, name=name)
            made.append(found)
            return [s for s in (found.ended, found.started) if s]

        await self._change_seasons(guild, preset, change)
        return made[-1]

    async def end_season(self, guild: str, preset: str, *, at: float | None = None) -> Season:
        """Archive the open season; its ladder stays viewable by number."""
        check_ranked(preset)
        moment = iso(self.clock() if at is None else at)
        made: list[Season] = []

        def change(known: list[Season]) -> list[Season]:
            current = current_season(known, guild, preset)
            if current is None:
                raise LeagueServiceError("season.none_open", guild=guild, preset=preset)
            made.append(end_season(current, moment))
            return made

        await self._change_seasons(guild, preset, change)
        return made[-1]
