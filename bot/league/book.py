"""The ladder part of the league: stored results, seasons, voids, ladders and player figures.

:class:`LadderBook` keeps the ``ladder_result``, ``season`` and ``void`` rows of a
:class:`~bot.store.Store` (layout in :mod:`bot.league.service`) and computes every ladder from
scratch with the pure :mod:`bot.league.ladder`. The seasons are cached (the synchronous result
hook needs them): :meth:`load` once, before the hook runs.
"""

from __future__ import annotations

import asyncio
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
from bot.store import KvRow


def season_row(season: Season) -> KvRow:
    """The store row of a season (key ``guild:preset:NNNNN``)."""
    return KvRow(
        NS_SEASON,
        f"{season.guild_id}:{season.preset}:{number_key(season.number)}",
        season.to_dict(),
    )


class LadderBook:
    """Results, seasons and voids of every guild, over ``store``; ``clock`` gives POSIX seconds."""

    def __init__(self, store: LeagueStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        self.seasons_by: dict[tuple[str, str], list[Season]] | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    async def load(self) -> None:
        """Read every stored season into the cache."""
        seasons: dict[tuple[str, str], list[Season]] = {}
        for row in await self.store.kv_items(NS_SEASON):
            season = Season.from_dict(row.value)
            seasons.setdefault((season.guild_id, season.preset), []).append(season)
        self.seasons_by = seasons

    @property
    def cache(self) -> dict[tuple[str, str], list[Season]]:
        if self.seasons_by is None:
            raise LeagueServiceError("league.not_open")
        return self.seasons_by

    # ------------------------------------------------------------------ for the result hook

    def season_for(self, guild: str, preset: str, at: str) -> tuple[Season, Season | None]:
        """The open season (and None), or the season to open now (returned twice)."""
        known = self.cache.get((guild, preset), [])
        season = current_season(known, guild, preset)
        if season is not None:
            return season, None
        opened = start_season(known, guild_id=guild, preset=preset, at=at).started
        return opened, opened

    def season_stored(self, season: Season) -> None:
        """A season opened by the hook is stored: the cache knows it (once)."""
        known = self.cache.setdefault((season.guild_id, season.preset), [])
        kept = [s for s in known if s.number != season.number]
        known[:] = sorted([*kept, season], key=lambda s: s.number)

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
        return sorted({guild for guild, _ in self.cache})

    async def presets(self, guild: str) -> list[str]:
        """Presets with at least one season in the guild."""
        return sorted(preset for g, preset in self.cache if g == guild)

    def season_number(self, guild: str, preset: str, season: int | None = None) -> int:
        """The season a ladder shows: ``season`` if it exists (else an error); for None the
        open season, else the last one, else 1."""
        known = self.cache.get((guild, preset), [])
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
        number = self.season_number(guild, preset, season)
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
            number = self.season_number(guild, preset, None)
            in_season = [r for r in all_games if r.season == number]
            season_ladder = compute_ladder(in_season, voided=voided)
            try:
                season_row_: StandingRow | None = season_ladder.row(player_id)
            except LeagueError:
                season_row_ = None
            seasons = tuple(sorted({r.season for r in mine}))
            stats.append(PresetStats(preset, number, season_row_, career, seasons))
        return PlayerStats(guild, player_id, tuple(stats))

    # ------------------------------------------------------------------ voiding

    async def _void_flag(self, guild: str, game_id: str, by: str, voided: bool) -> VoidRecord:
        async with self._locks.setdefault(f"void:{game_id}", asyncio.Lock()):
            stored = await self.store.kv_get(NS_RESULT, game_id)
            if stored is None or stored.get("guild_id") != guild:
                raise LeagueServiceError("league.unknown_game", game_id=game_id, guild=guild)
            raw = await self.store.kv_get(NS_VOID, game_id)
            record = VoidRecord.from_dict(raw) if raw else VoidRecord(game_id, guild, False)
            if record.voided == voided:
                code = "league.already_voided" if voided else "league.not_voided"
                raise LeagueServiceError(code, game_id=game_id)
            entry = {"action": "void" if voided else "unvoid", "by": by, "at": iso(self.clock())}
            record = replace(record, voided=voided, log=(*record.log, entry))
            await self.store.kv_put([KvRow(NS_VOID, game_id, record.to_dict())])
            return record

    async def void_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Void a ladder game: every ladder is then as if it had never been played."""
        return await self._void_flag(guild, game_id, by, True)

    async def unvoid_game(self, guild: str, game_id: str, by: str) -> VoidRecord:
        """Count a voided game again."""
        return await self._void_flag(guild, game_id, by, False)

    # ------------------------------------------------------------------ seasons

    async def seasons(self, guild: str, preset: str) -> list[Season]:
        """Every season of a guild and preset, oldest first (archived ones included)."""
        return sorted(self.cache.get((guild, preset), []), key=lambda s: s.number)

    async def _put_seasons(self, guild: str, preset: str, changed: Iterable[Season]) -> None:
        """Swap ``changed`` into the cache now (the hook sees it at once), then store it."""
        key = (guild, preset)
        before = list(self.cache.get(key, []))
        changed = list(changed)
        numbers = {s.number for s in changed}
        self.cache[key] = [s for s in before if s.number not in numbers] + changed
        try:
            await self.store.kv_put([season_row(s) for s in changed])
        except BaseException:
            self.cache[key] = before
            raise

    async def start_season(
        self, guild: str, preset: str, name: str = "", *, at: float | None = None
    ) -> SeasonChange:
        """Archive the open season (if any) and open the next, named ``name``."""
        check_ranked(preset)
        moment = iso(self.clock() if at is None else at)
        change = start_season(
            self.cache.get((guild, preset), []),
            guild_id=guild,
            preset=preset,
            at=moment,
            name=name,
        )
        await self._put_seasons(guild, preset, [s for s in (change.ended, change.started) if s])
        return change

    async def end_season(self, guild: str, preset: str, *, at: float | None = None) -> Season:
        """Archive the open season; its ladder stays viewable by number."""
        check_ranked(preset)
        current = current_season(self.cache.get((guild, preset), []), guild, preset)
        if current is None:
            raise LeagueServiceError("season.none_open", guild=guild, preset=preset)
        ended = end_season(current, iso(self.clock() if at is None else at))
        await self._put_seasons(guild, preset, [ended])
        return ended
