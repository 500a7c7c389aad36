"""The organiser's league commands of ``rummy-bot``: the ladder and tournament simulation.

- ``rummy-bot ladder --db PATH [--guild G] [--preset P] [--season S] [--min-games N]
  [--order percent|rating] [--json]``: a ladder from the stored results (voided games left out).
  Without ``--guild`` / ``--preset`` the only guild / preset with results is taken (several: exit
  2 with the choices). ``--json`` prints ``{"standings": [{"player", "games", "wins", "mp",
  "max_mp", "percent", "rating"}, ...]}`` (then extra keys per row: ``position``, ``name``,
  ``trend``, ``qualified``; and after ``standings``: ``guild``, ``preset``, ``season``).
- ``rummy-bot tournament simulate --players N --rounds R --seed S --db PATH [--json]
  [--preset stein|stein_plus] [--level L]``: a Stein-Rummy tournament of computer players,
  every game played through the real game service and store (:mod:`bot.league_tools.runner`);
  prints each round's seating with every game, and the standings. Deterministic for a seed.
- ``rummy-bot tournament show --db PATH --guild G --id T [--json]``: a stored tournament.

``--db`` is a SQLite file path (or a ``sqlite:///`` URL). Exit codes: 0 ok, 1 a league error,
2 a usage error. Wire it into ``bot/cli.py`` with :func:`register` and :func:`run`.

These tools sit above the game service (they build one for ``simulate``); the league package
below them never imports the service.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bot.league.errors import LeagueError
from bot.league.kinds import ranked_presets
from bot.league.service import League
from bot.league.tournament import Tournament, standings, table_sizes
from bot.league_tools.runner import TournamentRunner
from bot.service import GameService, ServiceConfig
from bot.wiring import build_service, store_at
from engine.ai import LEVELS
from engine.variants import DEFAULT_TOURNAMENT_VARIANT, tournament_variants
from i18n import error_text

SIM_GUILD = "simulation"
COMMANDS = ("ladder", "tournament")


class UsageError(Exception):
    """A command line that cannot be run as given (exit code 2)."""


DB_HELP = "SQLite file, or a database URL (sqlite:///path, postgresql://user@host/db)"


def register(sub: Any) -> None:
    """Add ``ladder`` and ``tournament`` to ``rummy-bot``'s subparsers (``add_subparsers()``).

    Every option has a ``league_`` dest, so nothing clashes with the top-level options; the
    chosen handler is ``args.league_run`` (call :func:`run`).
    """
    ladder = sub.add_parser("ladder", help="a league ladder from the stored results")
    ladder.add_argument("--db", dest="league_db", required=True, help=DB_HELP)
    ladder.add_argument("--guild", dest="league_guild", default=None)
    ladder.add_argument("--preset", dest="league_preset", default=None, choices=ranked_presets())
    ladder.add_argument("--season", dest="league_season", type=int, default=None)
    ladder.add_argument("--min-games", dest="league_min_games", type=int, default=0)
    ladder.add_argument(
        "--order", dest="league_order", default="percent", choices=("percent", "rating")
    )
    ladder.add_argument("--json", dest="league_json", action="store_true")
    ladder.set_defaults(league_run=_ladder)

    tournament = sub.add_parser("tournament", help="Stein-Rummy tournaments")
    actions = tournament.add_subparsers(dest="league_action", metavar="ACTION", required=True)
    simulate = actions.add_parser(
        "simulate", help="computer players play a tournament through the game service"
    )
    simulate.add_argument("--players", dest="league_players", type=int, required=True)
    simulate.add_argument("--rounds", dest="league_rounds", type=int, required=True)
    simulate.add_argument("--seed", dest="league_seed", type=int, default=1)
    simulate.add_argument("--db", dest="league_db", required=True, help=DB_HELP)
    simulate.add_argument(
        "--preset",
        dest="league_preset",
        default=DEFAULT_TOURNAMENT_VARIANT,
        choices=tournament_variants(),
    )
    simulate.add_argument("--level", dest="league_level", default="medium", choices=LEVELS)
    simulate.add_argument("--guild", dest="league_guild", default=SIM_GUILD)
    simulate.add_argument("--id", dest="league_id", default=None, help="tournament id")
    simulate.add_argument("--json", dest="league_json", action="store_true")
    simulate.set_defaults(league_run=_simulate)

    show = actions.add_parser("show", help="a stored tournament's rounds and standings")
    show.add_argument("--db", dest="league_db", required=True, help=DB_HELP)
    show.add_argument("--guild", dest="league_guild", default=SIM_GUILD)
    show.add_argument("--id", dest="league_id", required=True, help="tournament id")
    show.add_argument("--json", dest="league_json", action="store_true")
    show.set_defaults(league_run=_show)


def run(args: argparse.Namespace) -> int:
    """Run the league command chosen in ``args``; the exit code."""
    handler = getattr(args, "league_run", None)
    if handler is None:
        print("rummy-bot: no league command given", file=sys.stderr)
        return 2
    try:
        return handler(args)
    except UsageError as exc:
        print(f"rummy-bot: {exc}", file=sys.stderr)
        return 2
    except LeagueError as exc:
        print(f"rummy-bot: {error_text(exc, 'en')}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (tests): ``main(["ladder", "--db", path, "--json"])``."""
    parser = argparse.ArgumentParser(prog="rummy-bot")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register(sub)
    return run(parser.parse_args(argv))


# --------------------------------------------------------------------------- plumbing


def _open_store(db: str, *, must_exist: bool, readonly: bool = False) -> Any:
    """The store at ``db`` (bot.wiring). A report (``readonly``) reads without taking the
    database's owner lease, so it works while the bot runs on that file; a writer is refused then
    (one owner)."""
    if "://" not in db and must_exist and not Path(db).is_file():
        raise UsageError(f"no database at {db}")
    return store_at(db, readonly=readonly, create=not must_exist)


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def _one(what: str, found: list[str], flag: str) -> str | None:
    if not found:
        return None
    if len(found) > 1:
        raise UsageError(f"several {what}s have results ({', '.join(found)}): choose with {flag}")
    return found[0]


# --------------------------------------------------------------------------- ladder


async def ladder_data(
    db: str,
    *,
    guild: str | None = None,
    preset: str | None = None,
    season: int | None = None,
    min_games: int = 0,
    order: str = "percent",
) -> dict[str, Any]:
    """The ``ladder --json`` document."""
    store = _open_store(db, must_exist=True, readonly=True)
    await store.open()
    try:
        league = await League(store).open()
        guild = guild or _one("guild", await league.guilds(), "--guild")
        if guild is not None:
            preset = preset or _one("preset", await league.presets(guild), "--preset")
        rows: list[dict[str, Any]] = []
        number = None
        if guild is not None and preset is not None:
            table = await league.ladder(guild, preset, season, min_games=min_games, order=order)
            number = await league.season_number(guild, preset, season)
            for row in table.rows:
                record = await store.get_player(row.player_id)
                rows.append(
                    {
                        "player": row.player_id,
                        "games": row.games,
                        "wins": row.wins,
                        "mp": row.mp,
                        "max_mp": row.max_mp,
                        "percent": row.percent,
                        "rating": row.rating,
                        "position": row.position,
                        "name": record.name if record else row.player_id,
                        "trend": row.trend,
                        "qualified": row.qualified,
                    }
                )
        return {"standings": rows, "guild": guild, "preset": preset, "season": number}
    finally:
        await store.close()


def _ladder(args: argparse.Namespace) -> int:
    data = asyncio.run(
        ladder_data(
            args.league_db,
            guild=args.league_guild,
            preset=args.league_preset,
            season=args.league_season,
            min_games=args.league_min_games,
            order=args.league_order,
        )
    )
    if args.league_json:
        print(_dump(data))
        return 0
    if not data["standings"]:
        print("No games on this ladder yet.")
        return 0
    print(f"Ladder {data['guild']} / {data['preset']} / season {data['season']}")
    print(f"{'#':>3}  {'player':<24} {'games':>5} {'wins':>4} {'MP':>7} {'max':>6} {'%':>6} rating")
    for row in data["standings"]:
        pos = "-" if row["position"] is None else str(row["position"])
        print(
            f"{pos:>3}  {row['name'][:24]:<24} {row['games']:>5} {row['wins']:>4} "
            f"{row['mp']:>7g} {row['max_mp']:>6g} {row['percent']:>6.1f} {row['rating']:>6.2f}"
        )
    return 0


# --------------------------------------------------------------------------- tournaments


def tournament_data(t: Tournament) -> dict[str, Any]:
    """A tournament as the ``tournament --json`` document (rounds, tables, games, standings)."""
    rounds = []
    for rnd in t.rounds:
        tables = []
        for table in rnd.tables:
            games = [
                {
                    "starter": table.seats[game.number],
                    "mp": {p: game.mp[i] for i, p in enumerate(table.seats)},
                    "max_mp": game.max_mp,
                    "kind": game.kind,
                    "game_id": game.game_id,
                }
                for game in table.games
            ]
            tables.append(
                {
                    "table": table.number,
                    "players": list(table.seats),
                    "games": games,
                    "group": table.group,
                }
            )
        rounds.append({"tables": tables, "round": rnd.number})
    rows = [
        {
            "player": row.player_id,
            "mp": row.mp,
            "max_mp": row.max_mp,
            "percent": row.percent,
            "position": row.position,
            "games": row.games,
            "group": row.group,
        }
        for row in standings(t)
    ]
    return {"rounds": rounds, "standings": rows, "tournament": t.tournament_id, "preset": t.preset}


def _print_tournament(data: dict[str, Any]) -> None:
    print(f"Tournament {data['tournament']} ({data['preset']})")
    for rnd in data["rounds"]:
        print(f"Round {rnd['round']}")
        for table in rnd["tables"]:
            print(f"  Table {table['table']}: {', '.join(table['players'])}")
            for number, game in enumerate(table["games"], 1):
                mp = ", ".join(f"{p} {v:g}" for p, v in game["mp"].items())
                print(f"    game {number} ({game['starter']} starts, {game['kind']}): {mp}")
    print("Standings")
    print(f"{'#':>3}  {'player':<16} {'games':>5} {'MP':>7} {'max':>6} {'%':>6}")
    for row in data["standings"]:
        print(
            f"{row['position']:>3}  {row['player'][:16]:<16} {row['games']:>5} "
            f"{row['mp']:>7g} {row['max_mp']:>6g} {row['percent']:>6.1f}"
        )


async def simulate(
    db: str,
    *,
    players: int,
    rounds: int,
    seed: int,
    preset: str = DEFAULT_TOURNAMENT_VARIANT,
    level: str = "medium",
    guild: str = SIM_GUILD,
    tournament_id: str | None = None,
) -> dict[str, Any]:
    """Create a tournament of ``players`` computer players (``p1``..) and play ``rounds`` rounds
    through a real :class:`~bot.service.GameService` on ``db``; the ``--json`` document."""
    if rounds < 1:
        raise UsageError("--rounds must be at least 1")
    table_sizes(players)  # a LeagueError when the players cannot be seated
    store = _open_store(db, must_exist=False)
    await store.open()
    service: GameService | None = None
    try:
        league = await League(store).open()
        config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
        service = build_service(store, config=config, league=league, pictures=False)
        tid = tournament_id or await _free_id(league, guild, f"sim{seed}")
        names = [f"p{i + 1}" for i in range(players)]
        await league.create_tournament(guild, tid, names, preset=preset, organiser="simulate")
        runner = TournamentRunner(league, service, seed=seed, level=level)
        t = await runner.play(guild, tid, rounds)
        return tournament_data(t)
    finally:
        if service is not None:
            await service.stop()
        await store.close()


async def _free_id(league: Any, guild: str, base: str) -> str:
    taken = {info.tournament_id for info in await league.tournaments(guild)}
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def _simulate(args: argparse.Namespace) -> int:
    data = asyncio.run(
        simulate(
            args.league_db,
            players=args.league_players,
            rounds=args.league_rounds,
            seed=args.league_seed,
            preset=args.league_preset,
            level=args.league_level,
            guild=args.league_guild,
            tournament_id=args.league_id,
        )
    )
    if args.league_json:
        print(_dump(data))
    else:
        _print_tournament(data)
    return 0


async def show_data(db: str, guild: str, tournament_id: str) -> dict[str, Any]:
    store = _open_store(db, must_exist=True, readonly=True)
    await store.open()
    try:
        league = await League(store).open()
        return tournament_data(await league.tournament(guild, tournament_id))
    finally:
        await store.close()


def _show(args: argparse.Namespace) -> int:
    data = asyncio.run(show_data(args.league_db, args.league_guild, args.league_id))
    if args.league_json:
        print(_dump(data))
    else:
        _print_tournament(data)
    return 0
