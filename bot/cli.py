"""The ``rummy-bot`` command-line tool.

- ``rummy-bot``: with ``DISCORD_TOKEN`` set (environment or ``.env``) runs the Discord bot
  (``bot.app.main(settings)``); without it, a local console game against computer players.
- ``rummy-bot --console [--preset P] [--bots N] [--seed S]``: the console game (also piped input).
- ``rummy-bot soak --games N --concurrency C --preset P --db PATH --seed S [--json]``: computer-only
  games through the full service and store; resumable (see :mod:`bot.soak`).
- ``rummy-bot verify-db --db PATH [--json]``: replay and check every stored game; exit 1 on any
  problem.
- Every ``--db`` (and ``DATABASE_URL``) takes a SQLite file path or a URL: ``sqlite:///path``,
  ``postgresql://user:password@host:port/database``.
- ``rummy-bot ladder ...`` and ``rummy-bot tournament simulate|show ...``: the organiser's league
  tools (:mod:`bot.league_tools.cli`).

A database that cannot be used (missing, empty, damaged, another program's, newer, read-only, full,
or owned by another running process) ends every command with ONE line on stderr,
``rummy-bot: <what is wrong; what to do>``, and exit code 3 (4 when another process owns the
database), never a traceback or a hang. Exit codes: 0 fine, 1 problems found / games unfinished,
2 usage, 3 store error, 4 database in use, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path

from .ops.logs import configure_logging
from .service.games import DEFAULT_VARIANT, variant_names
from .settings import Settings

EXIT_STORE = 3
EXIT_LOCKED = 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummy-bot",
        description="The rummy Discord bot; without DISCORD_TOKEN a local console game.",
    )
    parser.add_argument("--console", action="store_true", help="play in the terminal")
    parser.add_argument(
        "--preset", choices=sorted(variant_names()), help=f"game (default: {DEFAULT_VARIANT})"
    )
    parser.add_argument("--bots", type=int, default=3, help="computer players (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed")
    parser.add_argument("--level", default="medium", choices=("easy", "medium", "strong"))
    parser.add_argument(
        "--lang",
        default=_env_lang(),
        choices=("en", "de"),
        help="language of the console's texts and pictures (default: from the LANG environment "
        "variable, de for LANG=de_DE.UTF-8 and the like, else en)",
    )
    parser.add_argument("--db", default="sqlite:///:memory:", help="console database URL")
    parser.add_argument(
        "--pictures",
        metavar="DIR",
        default=None,
        help="write the console's pictures to DIR: one table picture per turn (overwritten "
        "while the turn goes on) and the rack; none without it",
    )
    parser.add_argument(
        "--turn-time",
        metavar="SECONDS|off",
        type=_turn_time,
        default=None,
        help="console turn time limit in seconds (30 or more), or off (the default)",
    )
    parser.add_argument("--no-pictures", action="store_true", help="no picture files (default)")
    parser.add_argument("--out", default=None, help="same as --pictures DIR")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    soak = sub.add_parser("soak", help="computer-only games through service and store")
    soak.add_argument("--games", type=int, default=100)
    soak.add_argument("--concurrency", type=int, default=10)
    soak.add_argument(
        "--preset", dest="soak_preset", default=DEFAULT_VARIANT, choices=sorted(variant_names())
    )
    soak.add_argument(
        "--db",
        dest="soak_db",
        default="data/soak.sqlite3",
        help="SQLite file, or a database URL (sqlite:///path, postgresql://user@host/db)",
    )
    soak.add_argument("--seed", dest="soak_seed", type=int, default=1)
    soak.add_argument("--players", type=int, default=None)
    soak.add_argument(
        "--level", dest="soak_level", default="easy", choices=("easy", "medium", "strong")
    )
    soak.add_argument("--pictures", action="store_true", help="render pictures too")
    soak.add_argument("--ack", default=None, help="append acknowledged commands to this file")
    soak.add_argument("--synchronous", default="full", choices=("full", "normal"))
    soak.add_argument("--bot-pause", type=float, default=0.0, help="think time per move (s)")
    soak.add_argument("--json", action="store_true", help="print the figures as JSON")
    soak.add_argument(
        "--shard-count", type=int, default=None, help="total shards; with --shard-ids: some"
    )
    soak.add_argument(
        "--shard-ids", default=None, help="play only the games of these shards (0-3 or 0,2)"
    )
    soak.add_argument(
        "--init-empty",
        action="store_true",
        help="take an existing 0-byte --db file as a new database (refused otherwise)",
    )

    verify = sub.add_parser("verify-db", help="replay and check every stored game")
    verify.add_argument(
        "--db",
        dest="verify_db",
        required=True,
        help="SQLite file, or a database URL (sqlite:///path, postgresql://user@host/db)",
    )
    verify.add_argument("--json", action="store_true")
    from .league_tools.cli import register as register_league

    register_league(sub)
    return parser


def _env_lang() -> str:
    from i18n import lang_of

    return lang_of(os.environ.get("LANG"))


def _turn_time(value: str) -> int | None:
    """``--turn-time``: whole seconds, or ``off`` (no limit)."""
    if value.strip().lower() in ("off", "0", "none"):
        return None
    try:
        return int(value)
    except ValueError:
        from i18n import t

        raise argparse.ArgumentTypeError(
            t("console.turn_time_bad", _env_lang(), value=value)
        ) from None


def _choose_preset(args: argparse.Namespace) -> str:
    if args.preset:
        return args.preset
    if not sys.stdin.isatty():
        return DEFAULT_VARIANT
    from i18n import t

    names = sorted(variant_names())
    question = t("console.preset", args.lang, names=", ".join(names), default=DEFAULT_VARIANT)
    try:
        answer = input(question).strip().lower()
    except EOFError:
        answer = ""
    return answer if answer in names else DEFAULT_VARIANT


def _console(args: argparse.Namespace) -> int:
    from .console import run_console

    where = args.pictures or args.out
    return asyncio.run(
        run_console(
            preset=_choose_preset(args),
            bots=args.bots,
            seed=args.seed,
            level=args.level,
            db_url=args.db,
            pictures=Path(where) if where and not args.no_pictures else None,
            turn_time=args.turn_time,
            lang=args.lang,
            handle_sigint=True,
        )
    )


def _init_empty(path: str) -> None:
    """Make a 0-byte file at ``path`` a new, empty database (``soak --init-empty``)."""
    from .wiring import init_empty_database

    if "://" in path:  # a URL: the store makes its own database (an empty file is a file's case)
        return
    target = Path(path)
    if target.is_file() and target.stat().st_size == 0:
        asyncio.run(init_empty_database(target))


def _soak(args: argparse.Namespace) -> int:
    from .soak import run_soak, soak_shards

    try:
        shards = soak_shards(args.shard_count, args.shard_ids)
    except ValueError as exc:
        print(f"rummy-bot soak: {exc}", file=sys.stderr)
        return 2
    if args.init_empty:
        _init_empty(args.soak_db)

    figures = asyncio.run(
        run_soak(
            args.soak_db,
            games=args.games,
            concurrency=args.concurrency,
            preset=args.soak_preset,
            seed=args.soak_seed,
            players=args.players,
            level=args.soak_level,
            pictures=args.pictures,
            ack_path=args.ack,
            synchronous=args.synchronous,
            bot_pause=args.bot_pause,
            shards=shards,
        )
    )
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>16}: {value}")
    return 0 if figures["games_finished"] >= figures.get("shard_games", args.games) else 1


def _verify(args: argparse.Namespace) -> int:
    from .service.soak import verify_db

    report = asyncio.run(verify_db(args.verify_db))
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['games']} games, {report['ok']} ok")
        for problem in report["problems"]:
            print(f"  {problem['game']}: {problem['problem']}")
    return 1 if report["problems"] else 0


def _discord(settings: Settings) -> int:
    from .app import main as run_bot  # imports discord.py: only when the bot runs
    from .wiring import check_database

    # a wrong or unreachable DATABASE_URL stops start-up here, in one line, before Discord
    asyncio.run(check_database(settings.database_url))
    return int(run_bot(settings) or 0)


def _leave_no_database_thread(code: int, wait: float = 10.0) -> None:
    """The safety net behind "a bad database never hangs the process": the store's connection
    threads are not daemons, so one left open by any error path would keep the interpreter from
    exiting. Give them ``wait`` seconds to end, then say so in one line and exit anyway."""
    from .wiring import store_threads

    stuck = store_threads()
    for thread in stuck:
        thread.join(wait / len(stuck))
    if any(t.is_alive() for t in stuck):
        print(
            "rummy-bot: a database connection was left open; exiting without waiting for it",
            file=sys.stderr,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code or EXIT_STORE)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:  # a bad DATABASE_URL, SHARD_IDS...: one line, no traceback
        print(f"rummy-bot: {exc}", file=sys.stderr)
        return 2
    configure_logging(  # LOG_FORMAT=json: every command's log lines are JSON objects
        settings.log_level
        if args.command is None and settings.discord_token and not args.console
        else logging.WARNING,
        settings.log_format,
    )
    code = _run(args, settings)
    _leave_no_database_thread(code)
    return code


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from .wiring import StoreError, StoreLocked

    try:
        if args.command == "soak":
            return _soak(args)
        if args.command == "verify-db":
            return _verify(args)
        if args.command in ("ladder", "tournament"):
            from .league_tools.cli import run as run_league

            return run_league(args)
        if settings.discord_token and not args.console:
            return _discord(settings)
        return _console(args)
    except StoreLocked as exc:
        print(f"rummy-bot: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except StoreError as exc:
        print(f"rummy-bot: {exc}", file=sys.stderr)
        return EXIT_STORE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
