"""The organiser's CLI (bot.league_tools.cli): ``ladder``, ``tournament simulate`` / ``show``."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import pytest

from bot.league.service import League
from bot.league_tools.cli import main, register, run
from bot.service import GameService, ManualClock, ServiceConfig
from bot.store import SqliteStore

LADDER_KEYS = ["player", "games", "wins", "mp", "max_mp", "percent", "rating"]
STANDING_KEYS = ["player", "mp", "max_mp", "percent"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


async def play_games(path: Path, games: list[tuple[str, str, int, int]]) -> None:
    """(game id, guild, players, seed): computer games through the service with the hook."""
    store = SqliteStore(path)
    await store.open()
    clock = ManualClock()
    league = await League(store, clock=clock.now).open()
    config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
    service = GameService(store, config=config, clock=clock, result_hooks=[league.result_hook])
    for game_id, guild, players, seed in games:
        await service.create_game(
            "host", "stein", guild_id=guild, game_id=game_id, seed=seed, seat_host=False
        )
        for _ in range(players):
            await service.add_bot(game_id, "host", "easy")
        await service.start_game(game_id, "host")
        await service.wait_finished(game_id)
        clock.advance(60)
    await service.stop()
    await store.close()


def test_ladder_json_shape(tmp_path: Path, capsys):
    db = tmp_path / "ladder.sqlite3"
    asyncio.run(play_games(db, [("a1", "club", 3, 1), ("a2", "club", 4, 2), ("a3", "club", 3, 3)]))
    code, out, _ = run_cli(capsys, "ladder", "--db", str(db), "--json")
    assert code == 0
    data = json.loads(out)
    assert next(iter(data)) == "standings"
    rows = data["standings"]
    assert len(rows) == 4  # bot:easy:1..4
    for row in rows:
        assert list(row)[: len(LADDER_KEYS)] == LADDER_KEYS
        assert isinstance(row["player"], str) and isinstance(row["games"], int)
        assert 0 <= row["percent"] <= 100
    assert sum(row["games"] for row in rows) == 3 + 4 + 3
    assert sum(row["mp"] for row in rows) == 6 + 10 + 6
    percents = [row["percent"] for row in rows]
    assert percents == sorted(percents, reverse=True)
    # the same with everything named, and as a table
    code, out2, _ = run_cli(
        capsys, "ladder", "--db", str(db), "--guild", "club", "--preset", "stein", "--season",
        "1", "--json",
    )  # fmt: skip
    assert code == 0 and json.loads(out2)["standings"] == rows
    code, text, _ = run_cli(capsys, "ladder", "--db", str(db))
    assert code == 0 and "Computer 1" in text and "season 1" in text


def test_ladder_usage_errors(tmp_path: Path, capsys):
    code, _, err = run_cli(capsys, "ladder", "--db", str(tmp_path / "missing.sqlite3"))
    assert code == 2 and "no database" in err
    db = tmp_path / "two.sqlite3"
    asyncio.run(play_games(db, [("b1", "one", 3, 1), ("b2", "two", 3, 2)]))
    code, _, err = run_cli(capsys, "ladder", "--db", str(db), "--json")
    assert code == 2 and "--guild" in err
    code, out, _ = run_cli(capsys, "ladder", "--db", str(db), "--guild", "two", "--json")
    assert code == 0 and sum(r["games"] for r in json.loads(out)["standings"]) == 3
    code, _, err = run_cli(capsys, "ladder", "--db", str(db), "--guild", "two", "--season", "5")
    assert code == 1 and "season 5" in err
    code, out, _ = run_cli(capsys, "ladder", "--db", str(db), "--guild", "nobody", "--json")
    assert code == 0 and json.loads(out)["standings"] == []


def simulate(capsys, db: Path, seed: int) -> dict:
    code, out, _ = run_cli(
        capsys, "tournament", "simulate", "--players", "6", "--rounds", "2", "--seed", str(seed),
        "--db", str(db), "--json",
    )  # fmt: skip
    assert code == 0
    return json.loads(out)


def test_tournament_simulate_json_shape_and_determinism(tmp_path: Path, capsys):
    data = simulate(capsys, tmp_path / "one.sqlite3", 7)
    assert list(data)[:2] == ["rounds", "standings"]
    assert len(data["rounds"]) == 2
    everybody = {f"p{i}" for i in range(1, 7)}
    for rnd in data["rounds"]:
        assert [t["table"] for t in rnd["tables"]] == [1, 2]
        assert {p for t in rnd["tables"] for p in t["players"]} == everybody
        for table in rnd["tables"]:
            assert list(table)[:3] == ["table", "players", "games"]
            assert len(table["players"]) == 3 and len(table["games"]) == 3
            # everybody starts once per round, in seat order
            assert [g["starter"] for g in table["games"]] == table["players"]
            for game in table["games"]:
                assert list(game)[:2] == ["starter", "mp"]
                assert set(game["mp"]) == set(table["players"])
                assert sum(game["mp"].values()) == pytest.approx(6)
    # one player moved up after round 1: table 2's round winner swapped with table 1's loser
    r1, r2 = data["rounds"]
    assert len(set(r1["tables"][1]["players"]) - set(r2["tables"][1]["players"])) == 1
    rows = data["standings"]
    assert [r["player"] for r in rows] and {r["player"] for r in rows} == everybody
    for row in rows:
        assert list(row)[: len(STANDING_KEYS)] == STANDING_KEYS
        assert row["max_mp"] == 18.0
        assert row["percent"] == pytest.approx(row["mp"] / row["max_mp"] * 100)
    assert sum(r["mp"] for r in rows) == pytest.approx(2 * 2 * 3 * 6)
    # deterministic for a seed: a second database gives the same document
    assert simulate(capsys, tmp_path / "two.sqlite3", 7) == data

    # the tournament is stored: show prints it again, text output works
    tid = data["tournament"]
    code, out, _ = run_cli(capsys, "tournament", "show", "--db", str(tmp_path / "one.sqlite3"),
                           "--id", tid, "--json")  # fmt: skip
    assert code == 0 and json.loads(out) == data
    code, text, _ = run_cli(capsys, "tournament", "show", "--db", str(tmp_path / "one.sqlite3"),
                            "--id", tid)  # fmt: skip
    assert code == 0 and "Round 2" in text and "Standings" in text
    # a league error exits 1
    code, _, err = run_cli(
        capsys, "tournament", "simulate", "--players", "5", "--rounds", "1", "--seed", "1",
        "--db", str(tmp_path / "five.sqlite3"),
    )  # fmt: skip
    assert code == 1 and "5 players" in err


def test_register_wires_into_a_parent_parser(tmp_path: Path, capsys):
    parser = argparse.ArgumentParser(prog="rummy-bot")
    parser.add_argument("--db", default="sqlite:///:memory:")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--preset", default=None)
    sub = parser.add_subparsers(dest="command")
    register(sub)
    args = parser.parse_args(
        ["tournament", "simulate", "--players", "3", "--rounds", "1", "--seed", "2",
         "--db", str(tmp_path / "p.sqlite3"), "--json"]
    )  # fmt: skip
    assert args.command == "tournament" and args.db == "sqlite:///:memory:"
    assert run(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["rounds"][0]["tables"]) == 1


def test_ladder_report_while_the_bot_owns_the_database(tmp_path: Path, capsys):
    """``ladder`` and ``tournament show`` read without the owner lease (issue 14: one owner per
    database), so an organiser can look while the bot runs; a second writer is refused."""
    db = tmp_path / "ladder.sqlite3"
    asyncio.run(play_games(db, [("a1", "club", 3, 1)]))

    async def with_owner() -> tuple[int, str]:
        owner = SqliteStore(db)
        await owner.open()
        try:
            code = await asyncio.to_thread(main, ["ladder", "--db", str(db), "--json"])
            return code, capsys.readouterr().out
        finally:
            await owner.close()

    code, out = asyncio.run(with_owner())
    assert code == 0
    assert len(json.loads(out)["standings"]) == 3
