"""Database verification (``rummy-bot verify-db``).

:func:`verify_db` replays every stored game from its seed and command log and checks that it
gives the stored snapshot byte for byte, that every piece is still there exactly once, and that
finished games have their result rows. (The soak that fills a database is :mod:`bot.soak`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store import GameRecord, SqliteStore, Store, StoreError, open_store
from .replay import apply_logged, conserved, initial_state


async def verify_game(store: Store, record: GameRecord) -> list[str]:
    """Every problem found with one stored game (empty when it is sound)."""
    problems: list[str] = []
    commands = await store.commands(record.id)
    if record.status in ("lobby", "cancelled"):
        if commands:
            problems.append(f"{len(commands)} commands logged for a game that never started")
        return problems
    seqs = [c.seq for c in commands]
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append("command log has gaps or repeats")
    if record.seq != len(commands):
        problems.append(f"game says seq {record.seq}, the log has {len(commands)} commands")
    try:
        state = initial_state(record)
    except Exception as exc:
        return [f"cannot deal the game again: {exc!r}"]
    if record.snapshot_seq == 0 and record.snapshot_json != state.to_json():
        problems.append("snapshot 0 differs from the replayed deal")
    for command in commands:
        try:
            apply_logged(state, command.seat, command.text)
        except Exception as exc:
            problems.append(f"command {command.seq} {command.text!r} does not replay: {exc}")
            return problems
        if command.seq == record.snapshot_seq and state.to_json() != record.snapshot_json:
            problems.append(f"snapshot at seq {command.seq} differs from the replay")
    wrong = conserved(state)
    if wrong:
        problems.append(wrong)
    if record.status != state.status:
        problems.append(f"stored status {record.status}, replay gives {state.status}")
    results = await store.results(record.id)
    if record.status == "finished":
        result = state.result
        if len(results) != len(record.seats):
            problems.append(f"{len(results)} result rows for {len(record.seats)} seats")
        elif result is not None:
            for row in results:
                if row.rank != result.ranks[row.seat] or row.points != float(
                    result.points[row.seat]
                ):
                    problems.append(f"result row of seat {row.seat} differs from the replay")
                if row.player_id != record.seats[row.seat].player_id:
                    problems.append(f"result row of seat {row.seat} names the wrong player")
    elif results:
        problems.append("result rows for an unfinished game")
    return problems


async def verify_db(db_path: str | Path) -> dict[str, Any]:
    """Check every stored game in ONE read snapshot of the database (so a live bot writing
    meanwhile shows no false gaps); the file is opened read-only and never written.

    ``problems`` lists ``{"game": id, "problem": text}``; ``quarantined`` the games set aside
    (``{"game", "reason", "at"}``), which are also problems. A row that cannot be read, or a
    game whose check fails, is a problem of that game; the others are still checked. A file
    that cannot be opened raises :class:`~bot.store.StoreError` (one line). ``db_path`` is a
    SQLite file or a database URL (``sqlite:///...``, ``postgresql://...``)."""
    store: Store
    if isinstance(db_path, str) and "://" in db_path:
        store = open_store(db_path, readonly=True, create=False)
    else:
        path = Path(db_path)
        if not path.exists():
            return {
                "games": 0,
                "ok": 0,
                "problems": [{"game": None, "problem": f"no file {path}"}],
                "quarantined": [],
            }
        store = SqliteStore(path, readonly=True, create=False)
    await store.open()
    problems: list[dict[str, Any]] = []
    quarantined: list[dict[str, Any]] = []
    ok = 0
    try:
        async with store.snapshot() as snap:
            ids = await snap.game_ids()
            for game_id, reason, at in await snap.quarantined():
                quarantined.append({"game": game_id, "reason": reason, "at": at})
            set_aside = {q["game"] for q in quarantined}
            for game_id in ids:
                if game_id in set_aside:
                    problems.append({"game": game_id, "problem": "quarantined"})
                    continue
                try:
                    record = await snap.load_game(game_id)
                    if record is None:
                        continue
                    found = await verify_game(snap, record)
                except StoreError as exc:
                    found = [f"cannot be read: {exc}"]
                except Exception as exc:  # a damaged game is its own problem, never the run's
                    found = [f"cannot be checked: {type(exc).__name__}: {exc}"]
                problems += [{"game": game_id, "problem": p} for p in found]
                ok += not found
    finally:
        await store.close()
    return {"games": len(ids), "ok": ok, "problems": problems, "quarantined": quarantined}
