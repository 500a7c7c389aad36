"""Soak runs (``rummy-bot soak``): computer-only games through the full service and store.

:func:`run_soak` plays computer-only games through the service built by :mod:`bot.wiring` (the
real store, computer players and, with ``pictures``, renderer), ``concurrency`` at a time, and
measures every command's latency through the service including its durable write.
Game ``i`` of a run is ``soak-{seed}-{i:06d}`` with engine seed ``seed * 1_000_003 + i``, so
running again with the same arguments on the same database resumes: unfinished games go on from
their last committed command and missing ones are started, until ``games`` are finished.

With ``shards`` (``--shard-count N --shard-ids RANGE``) game ``i`` belongs to guild
:func:`soak_guild_id` ``(i)``, on shard ``i % N``, and the soak plays only the games of its
shards: N soaks with disjoint shard ids over one database play every game once, each holding its
shards' leases, and a killed soak started again resumes its own.

With ``ack_path`` every acknowledged command is appended there as ``game<TAB>seq<TAB>text`` right
after its commit (with ``ack_latency`` a fourth column: its latency in ms): the crash test and
the multi-process soak (benchmarks/multisoak.py) compare that file with the database. The check of a database
afterwards is :func:`bot.service.soak.verify_db` (``rummy-bot verify-db``).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.ai import LEVELS
from engine.rules import preset as get_preset
from engine.variants import DEFAULT_VARIANT

from .service import ServiceConfig
from .settings import parse_shard_ids
from .store import ShardPlan
from .wiring import open_service

log = logging.getLogger(__name__)

SOAK_HOST = "soak-host"


def soak_game_id(seed: int, index: int) -> str:
    return f"soak-{seed}-{index:06d}"


def soak_game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def soak_guild_id(index: int) -> str:
    """The guild of game ``index`` of a sharded soak: on shard ``index % count`` for every
    shard count (Discord's ``(guild_id >> 22) % count``)."""
    return str((index << 22) + 1)


def soak_shards(count: int | None, ids: str | None) -> ShardPlan | None:
    """The plan of ``--shard-count N --shard-ids RANGE`` (None without either); ValueError
    with one line for a bad one."""
    if count is None and not ids:
        return None
    if count is None:
        raise ValueError("--shard-ids needs --shard-count (the total number of shards)")
    try:
        chosen = parse_shard_ids(ids or "")
    except ValueError:
        raise ValueError(f"--shard-ids must look like 0-3 or 0,2, not {ids!r}") from None
    return ShardPlan.of(count, chosen)


async def _shard_running(service: Any, guild: str) -> None:
    """Wait until the service runs the games of ``guild``'s shard (a dead holder's lease is
    taken over by the service's lease loop once it ends, then its games are loaded)."""
    warned = False
    while not service.shards.runs(guild):
        if not warned:
            log.warning("the shard of guild %s is held by another process; waiting", guild)
            warned = True
        await asyncio.sleep(0.2)


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def run_soak(
    db_path: str | Path,
    *,
    games: int,
    concurrency: int,
    preset: str = DEFAULT_VARIANT,
    seed: int = 1,
    players: int | None = None,
    level: str = "easy",
    pictures: bool = False,
    ack_path: str | Path | None = None,
    synchronous: str = "full",
    bot_pause: float = 0.0,
    think_in_worker: bool = True,
    shards: ShardPlan | None = None,
    ack_latency: bool = False,
) -> dict[str, Any]:
    """Play ``games`` computer-only games (resuming earlier runs); return the figures.

    ``bot_pause`` is each computer player's think time: 0 measures capacity (every game always
    wants to move, so latency is mostly queueing behind the other games' moves); a pause offers
    a steady load and measures the latency players would see at that load. With
    ``think_in_worker`` computer players choose their moves in a worker process
    (:mod:`bot.service.thinker`), as in the bot."""
    rules = get_preset(preset)
    count = players or min(4, rules.max_players)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    latencies: list[float] = []
    ack = open(ack_path, "a", encoding="utf-8") if ack_path else None  # noqa: SIM115

    def on_commit(game_id: str, seq: int, seat: int | None, text: str, seconds: float) -> None:
        latencies.append(seconds)
        if ack is not None:
            line = text.replace("\t", " ").replace("\n", "\\n")
            tail = f"\t{seconds * 1000:.3f}" if ack_latency else ""
            ack.write(f"{game_id}\t{seq}\t{line}{tail}\n")
            ack.flush()

    config = ServiceConfig(
        pictures=pictures,
        bot_pause=bot_pause,
        abandon_after=None,
        lobby_expiry=None,
        think_in_worker=think_in_worker,
    )
    wired = await open_service(
        db_path if isinstance(db_path, str) and "://" in db_path else Path(db_path),
        config=config,
        on_commit=on_commit,
        pictures=pictures,
        store_options={"synchronous": synchronous},
        shards=shards,
    )
    store, service = wired.store, wired.service
    started = time.perf_counter()
    try:
        await service.start(run_timers=False)
        finished_before = set(await store.game_ids("finished"))
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(index: int) -> None:
            game_id = soak_game_id(seed, index)
            if game_id in finished_before:
                return
            guild = soak_guild_id(index) if shards is not None else None
            async with gate:
                if shards is not None:
                    await _shard_running(service, guild)
                status = service.status(game_id)
                if status is None:
                    made, out = await service.create_game(
                        SOAK_HOST,
                        rules.preset,
                        game_id=game_id,
                        seed=soak_game_seed(seed, index),
                        seat_host=False,
                        guild_id=guild,
                    )
                    if made is None:
                        # already stored: a resumed game that finished while this one waited
                        # for its turn at the gate, or (sharded) one this process does not run
                        record = await service.game_record(game_id)
                        if record is not None and record.status == "finished":
                            return
                        if record is not None and shards is not None:
                            log.warning("game %s is %s but not run here", game_id, record.status)
                            return
                    if made is None:
                        raise RuntimeError(f"cannot create {game_id}: {out}")
                    status = "lobby"
                if status == "lobby":
                    # a game no longer run here (its shard taken over) is left to its new owner
                    while (
                        service.status(game_id) == "lobby" and len(service.seats(game_id)) < count
                    ):
                        await service.add_bot(game_id, SOAK_HOST, level)
                    if service.status(game_id) == "lobby":
                        await service.start_game(game_id, SOAK_HOST)
                await service.wait_finished(game_id)

        mine = [i for i in range(games) if shards is None or shards.owns(soak_guild_id(i))]
        await asyncio.gather(*(one(i) for i in mine))
        elapsed = time.perf_counter() - started
        wanted = {soak_game_id(seed, i) for i in mine}
        finished = len(wanted & set(await store.game_ids("finished")))
    finally:
        await wired.close()
        if ack is not None:
            ack.close()
    shard_figures = {} if shards is None else {"shards": shards.label(), "shard_games": len(mine)}
    return {
        **shard_figures,
        "games_finished": finished,
        "commands": len(latencies),
        "commands_per_s": round(len(latencies) / elapsed, 1) if elapsed > 0 else 0.0,
        "p50_ms": round(percentile(latencies, 50) * 1000, 3),
        "p99_ms": round(percentile(latencies, 99) * 1000, 3),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
