"""A whole two-player game through the fake Discord: how noisy is it, and how fast does it answer?

``python -m benchmarks discord_turns [--preset rummikub] [--seed 3] [--games 1]`` plays Anna
against Bernd with the real discord.py client against ``tests/bot/fakediscord.py`` (the people's
moves are what the strong computer player would type: the Draw button when it draws, ``/play``
for the rest) and prints:

- ``thread_messages``: new messages in the game's thread per turn (goal: at most 1) and at the
  end of the game (the summary and the ladder update);
- ``notifications``: per player and turn, the new messages that notified them (a message whose
  mention pinged them, or a DM that was not sent silently; goal: at most 1);
- ``latency_ms``: from an interaction (a click, a slash command) to its first answer (the
  acknowledgement) and to the updated table picture in the thread (a new or edited game message
  with its picture), p50 and max, as the fake Discord received them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.service import ManualClock
from bot.service.players import computer_player

START = 1_700_000_000.0


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50": round(statistics.median(ms), 1), "max": round(max(ms), 1)}


async def play_game(preset: str, seed: int, db: Path, max_turns: int = 200) -> dict[str, Any]:
    """One game through the fake Discord; the figures of the module docstring."""
    from tests.bot.conftest import CHANNEL_ID, OWNER_ID, PLAYER_ID, build_fake
    from tests.bot.discord_helpers import (
        answer_of,
        current_state,
        latest_with_buttons,
        make_bot,
        slash,
    )
    from tests.bot.fakediscord import option, running, subcommand

    fake = build_fake()
    await fake.start()
    try:
        with fake.patched():
            bot = make_bot(db, pictures=True, clock=ManualClock(START), seed=seed)
            async with running(bot, timeout=30):
                return await _play(
                    fake,
                    bot,
                    preset,
                    max_turns,
                    CHANNEL_ID,
                    (OWNER_ID, PLAYER_ID),
                    answer_of,
                    current_state,
                    latest_with_buttons,
                    slash,
                    option,
                    subcommand,
                )
    finally:
        await fake.close()


async def _play(
    fake: Any,
    bot: Any,
    preset: str,
    max_turns: int,
    channel: int,
    people: tuple[int, int],
    answer_of: Any,
    current_state: Any,
    latest_with_buttons: Any,
    slash: Any,
    option: Any,
    subcommand: Any,
) -> dict[str, Any]:
    anna, bernd = people
    new = subcommand("new", option("preset", preset), option("players", 2))
    await slash(fake, anna, channel, "rummy", [new])
    [thread] = fake.threads_in(channel)
    await slash(fake, bernd, thread.id, "rummy", [subcommand("join")])
    [game_id] = bot.service.live_game_ids()
    player = computer_player("strong")
    by_id = {str(p): p for p in people}
    first_answer: list[float] = []
    picture: list[float] = []
    per_turn_messages: list[int] = []
    per_turn_notes: dict[int, list[int]] = {p: [] for p in people}
    mark = max(fake.messages)
    turns = 0

    async def act(user: int, start_interaction: Any) -> None:
        index = len(fake.requests)
        began = time.perf_counter()
        sent = await start_interaction()
        await answer_of(fake, sent, timeout=30)
        await bot.service.wait_idle()
        token = sent.token
        answers = [r for r in fake.requests[index:] if r.token == token]
        if answers:
            first_answer.append(answers[0].at - began)
        for r in fake.requests[index:]:
            touches_thread = r.channel_id == thread.id and r.route and "/messages" in r.route
            if touches_thread and r.method in ("POST", "PATCH") and r.files:
                picture.append(r.at - began)
                break

    def close_window() -> None:
        nonlocal mark
        created = [m for m in fake.messages.values() if m.id > mark]
        in_thread = [m for m in created if m.channel_id == thread.id and not m.ephemeral]
        per_turn_messages.append(len(in_thread))
        for p in people:
            per_turn_notes[p].append(sum(1 for m in created if p in m.notified))
        mark = max(fake.messages)

    key = None
    for _ in range(max_turns * 4):
        record, state = await current_state(bot, game_id)
        if record.status != "playing":
            break
        if key is not None and key != (state.current, state.turn_no):
            turns += 1  # the turn passed: what the turn's interactions produced
            close_window()
            if turns >= max_turns:
                break
        key = (state.current, state.turn_no)
        user = by_id[record.seats[state.current].player_id]
        text = player.choose(state, state.current)
        message = latest_with_buttons(fake, thread.id)
        if text == "draw" or text.startswith("draw; "):
            mid = message.id

            async def click(mid: int = mid, user: int = user) -> Any:
                return await fake.click(user, thread.id, mid, f"rummy:draw:{game_id}")

            await act(user, click)
            text = text.removeprefix("draw").removeprefix("; ")
        if text:

            async def play(user: int = user, text: str = text) -> Any:
                return await fake.slash(
                    user,
                    fake.channels[thread.id].guild_id,
                    thread.id,
                    "play",
                    [option("text", text)],
                )

            await act(user, play)
    await bot.service.wait_idle()
    record, _ = await current_state(bot, game_id)
    if record.status == "finished":
        # the last turn's window holds the end of the game: the summary and the ladder update
        turns += 1
        close_window()
        play_turns, last = per_turn_messages[:-1], per_turn_messages[-1]
    else:
        play_turns, last = per_turn_messages, 0
    names = {anna: "anna", bernd: "bernd"}
    return {
        "preset": preset,
        "status": record.status,
        "turns": turns,
        "thread_messages": {
            "per_turn_max": max(play_turns, default=0),
            "per_turn_mean": round(statistics.fmean(play_turns), 2) if play_turns else 0,
            "last_turn_with_end_of_game": last,
            "total_in_game": sum(per_turn_messages),
        },
        "notifications": {
            names[p]: {"per_turn_max": max(v, default=0), "total": sum(v)}
            for p, v in per_turn_notes.items()
        },
        "latency_ms": {"first_answer": _stats(first_answer), "picture": _stats(picture)},
    }


def run(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks discord_turns")
    parser.add_argument("--preset", default="rummikub")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--max-turns", type=int, default=200)
    args = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(
            play_game(args.preset, args.seed, Path(tmp) / "bench.sqlite3", args.max_turns)
        )
