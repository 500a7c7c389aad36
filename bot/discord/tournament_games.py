"""Tournament tables played in the bot: one game per table at a time, each in its own thread.

``/tournament round`` (organiser) seats the round and, unless the tables play offline, opens
the first game of every table here (:meth:`TournamentGames.open_round`): a message in the
channel naming the round, table, game and players, with the game's thread under it, and the
game itself seated and started by :class:`bot.service.tournament_tables.TournamentTables`
(computer players where the organiser registered them). When a tournament game ends (its result
is entered into the tournament by the league's result hook, in the transaction that finishes
it), the table's next game opens; when the whole round is over, the channel is told.

What the bot plays for a tournament is adapter data (namespace ``discord_tournament``, key
``guild:tournament``: the channel, the organiser), so after a restart the running games go on
(the service resumes them) and a table whose next game was not opened yet gets it
(:meth:`TournamentGames.resume`). ``/tournament record`` stays for tables played offline
(``bot_games:False``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING, Any

import discord

from bot.league import LeagueError
from i18n import t

from ..service.tournament_tables import TournamentTables, computer_level
from .games import GameInfo
from .tables import attached, tables_of

if TYPE_CHECKING:
    from .client import RummyBot

log = logging.getLogger(__name__)

NAMESPACE = "discord_tournament"


def tournament_tables_of(bot: Any) -> TournamentGames:
    """The bot's :class:`TournamentGames` (made on first use)."""
    return attached(bot, "_rummy_tournament_games", TournamentGames)


class TournamentGames:
    """Opens and follows the bot games of tournaments (see the module docstring)."""

    def __init__(self, bot: RummyBot) -> None:
        self.bot = bot
        self._tasks: set[asyncio.Task[Any]] = set()
        self._locks: dict[str, asyncio.Lock] = {}

    @property
    def tables(self) -> TournamentTables:
        return TournamentTables(self.bot.service)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait until no table is being opened (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def name_of(self, player: str) -> str:
        return await self.bot.league.name(player)

    async def mention(self, player: str) -> str:
        return await self.name_of(player) if computer_level(player) else f"<@{player}>"

    # ------------------------------------------------------------------ a round

    async def open_round(
        self, guild: str, tournament_id: str, channel_id: int, organiser: str
    ) -> list[tuple[int, int, str]]:
        """Remember that the bot plays this tournament here and open every table's next game;
        (table, game number, thread mention) of each game opened."""
        key = f"{guild}:{tournament_id}"
        known = await self.bot.service.adapter_data(NAMESPACE, key) or {}
        state = await self.bot.league.core.tournament(guild, tournament_id)
        # rounds told before this one (a tournament created afresh under its name starts over)
        told = [n for n in known.get("rounds_told") or [] if n < len(state.rounds)]
        plan = {
            **known,
            "rounds_told": told,
            "guild": guild,
            "tournament": tournament_id,
            "channel_id": channel_id,
            "host": organiser,
        }
        await self.bot.service.set_adapter_data(NAMESPACE, key, plan)
        return await self._open_all(guild, tournament_id)

    async def _open_all(self, guild: str, tournament_id: str) -> list[tuple[int, int, str]]:
        opened = []
        state = await self.bot.league.core.tournament(guild, tournament_id)
        current = state.current_round
        for table in current.tables if current else ():
            made = await self.open_next(guild, tournament_id, table.number)
            if made is not None:
                opened.append(made)
        return opened

    async def open_next(
        self, guild: str, tournament_id: str, table_number: int
    ) -> tuple[int, int, str] | None:
        """Open the table's next game in its own thread (None when there is none to open)."""
        key = f"{guild}:{tournament_id}"
        plan = await self.bot.service.adapter_data(NAMESPACE, key)
        if not plan:
            return None
        async with self._locks.setdefault(f"{key}:{table_number}", asyncio.Lock()):
            await self.bot.league.core.sync_tournament(guild, tournament_id)
            slot = await self.tables.next_game(guild, tournament_id, table_number)
            if slot is None:
                return None
            round_no, number, seats = slot
            info = await self.bot.league.core.tournament_info(guild, tournament_id)
            channel = await self.bot.delivery.channel(int(plan["channel_id"]))
            if channel is None:
                return None
            game_id = secrets.token_hex(4)
            glang = self._guild_lang(int(guild))
            players = ", ".join([await self.mention(p) for p in seats])
            params = {"name": info.name, "round": round_no, "table": table_number}
            head = t(
                "discord.lobby.tournament_game_head",
                glang,
                number=number + 1,
                players=players,
                **params,
            )
            try:
                message = await channel.send(head)
                thread = await message.create_thread(
                    name=t("discord.lobby.tournament_thread", glang, number=number + 1, **params)[
                        :100
                    ]
                )
            except discord.HTTPException as exc:
                log.warning("cannot open the thread of %s table %s: %s", key, table_number, exc)
                return None
            extra = {
                "thread_id": thread.id,
                "lobby_message_id": message.id,
                "tournament": key,
            }
            game_info = GameInfo(
                game_id, info.state.preset, int(guild), channel.id, thread.id, extra
            )
            await self.bot.games.remember(self.bot.service, game_info)
            async with self.bot.delivery.lock(game_id):
                try:
                    _link, out = await self.tables.open_game(
                        guild,
                        tournament_id,
                        table_number,
                        host_id=str(plan["host"]),
                        game_id=game_id,
                        channel_id=str(channel.id),
                    )
                except LeagueError:
                    log.exception("cannot open the game of %s table %s", key, table_number)
                    return None
                await self.bot.delivery.deliver(out)
        await tables_of(self.bot).refresh_lobby(game_id)
        return table_number, number + 1, thread.mention

    def _guild_lang(self, guild_id: int) -> str:
        return self.bot.delivery.guild_lang(GameInfo("", "", guild_id, None, None))

    # ------------------------------------------------------------------ after a game

    def game_over(self, info: GameInfo) -> None:
        """A game ended: for a tournament game, open the table's next game (or say that the
        round is over)."""
        key = info.extra.get("tournament")
        if not key:
            return
        self._spawn(self._after(str(key), info))

    async def _after(self, key: str, info: GameInfo) -> None:
        try:
            guild, tournament_id = key.split(":", 1)
            link = next(
                (
                    g
                    for g in await self.bot.league.core.tournament_games(guild, tournament_id)
                    if g.game_id == info.game_id
                ),
                None,
            )
            if link is None:
                return
            await self.bot.league.core.sync_tournament(guild, tournament_id)
            await self.open_next(guild, tournament_id, link.table)
            state = await self.bot.league.core.tournament(guild, tournament_id)
            done = state.rounds[link.round - 1] if len(state.rounds) >= link.round else None
            if done is not None and done.complete and state.current_round is None:
                await self._round_over(guild, tournament_id, link.round)
        except Exception:
            log.exception("after the tournament game %s", info.game_id)

    async def _round_over(self, guild: str, tournament_id: str, round_no: int) -> None:
        key = f"{guild}:{tournament_id}"
        plan = await self.bot.service.adapter_data(NAMESPACE, key) or {}
        said = set(plan.get("rounds_told") or [])
        if round_no in said or not plan:
            return
        plan = {**plan, "rounds_told": sorted(said | {round_no})}
        await self.bot.service.set_adapter_data(NAMESPACE, key, plan)
        info = await self.bot.league.core.tournament_info(guild, tournament_id)
        channel = await self.bot.delivery.channel(int(plan["channel_id"]))
        if channel is None:
            return
        glang = self._guild_lang(int(guild))
        text = t("discord.lobby.tournament_round_done", glang, round=round_no, name=info.name)
        try:
            await channel.send(text)
        except discord.HTTPException as exc:
            log.warning("posting the end of round %s of %s failed: %s", round_no, key, exc)

    # ------------------------------------------------------------------ restarts

    def resume_when_ready(self) -> None:
        """:meth:`resume` once the bot is connected (called while it starts)."""

        async def work() -> None:
            await self.bot.wait_until_ready()
            await self.resume()

        self._spawn(work())

    async def resume(self) -> None:
        """After a restart: open the next game of every table of the tournaments the bot
        plays whose game was not opened yet (running games are resumed by the service)."""
        try:
            plans = await self.bot.service.adapter_items(NAMESPACE)
            for plan in plans.values():
                if isinstance(plan, dict) and plan.get("guild") and plan.get("tournament"):
                    await self._open_all(str(plan["guild"]), str(plan["tournament"]))
        except Exception:
            log.exception("resuming the tournament tables failed")
