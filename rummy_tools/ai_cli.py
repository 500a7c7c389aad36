"""Computer-player sub-commands of the ``rummy`` tool: ``simulate`` and ``stats`` (a contract).

``rummy simulate --rules PRESET --players N --ai LEVELS --games G --seed S [--json]``
    Plays G games between computer players (``engine.ai.choose_move``), seat k at the k-th level
    of the comma-separated LEVELS (one level: every seat). Game i uses seed S+i; the engine
    chooses the start player from the seed (by lot), seats do not rotate. The JSON object::

        {"rules": P, "players": N, "games": G, "seed": S,
         "seats": [{"seat": 0, "level": "strong", "wins": w, "win_rate": x}, ...],
         "levels": {"strong": {"seats": 1, "wins": w, "win_rate": x}, ...},
         "draws": d, "rejected": r, "mean_turns": t, "seconds": s, "games_per_s": g}

    A game's winner is ``result.winner``; when there is none (Rummikub pool exhausted, Stein
    stalemate) the seats ranked first share the win (1/k each); a drawn card game (nobody
    scores) counts in ``draws``. A level's ``win_rate`` is its wins per seat per game (parity
    is 1/N). ``rejected`` counts moves the engine refused (the seat's time-out action is run
    instead; it should be 0). ``mean_turns`` counts turns (seat changes) per game.

``rummy stats --rules stein --deals N --seed S [--json]``
    Answers the questions of source text 000, "Über die Verwendung von Statistiken", by
    dealing N four-player Stein games (seeds S, S+1, ...; 4N starting hands of 14 tiles plus the
    player's joker). See :func:`starting_hand_stats` for every definition.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.ai import LEVELS, choose_move
from engine.errors import RummyError
from engine.game import new_game
from engine.pieces import Face
from engine.rules import preset
from engine.variants import DEFAULT_TOURNAMENT_VARIANT
from i18n import error_text


def play_game(rules, levels: Sequence[str], seed: int, max_calls: int = 20000) -> dict[str, Any]:
    """One game between computer players; returns the result, turns and rejected moves."""
    game = new_game(rules, [f"{level}{k}" for k, level in enumerate(levels)], seed)
    turns, rejected, calls = 0, 0, 0
    while game.status == "playing":
        seat = game.current
        calls += 1
        if calls > max_calls:
            game.end("ended")
            break
        try:
            game.apply(seat, choose_move(game, seat, level=levels[seat]))
        except RummyError:
            rejected += 1
            game.timeout()
        if game.status != "playing" or game.current != seat:
            turns += 1
    return {"result": game.result, "turns": turns, "rejected": rejected}


def winners(result) -> dict[int, float]:
    """Win shares of a finished game (see the module docstring); empty for a drawn game."""
    if result.winner is not None:
        return {result.winner: 1.0}
    if result.reason == "draw":
        return {}
    first = [s for s, r in enumerate(result.ranks) if r == 1]
    return {s: 1.0 / len(first) for s in first}


def simulate(
    preset_name: str,
    players: int,
    levels: Sequence[str],
    games: int,
    seed: int,
    progress: str | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and summarise them (the JSON of ``rummy simulate``)."""
    rules = preset(preset_name)
    if len(levels) == 1:
        levels = list(levels) * players
    if len(levels) != players:
        raise ValueError(f"--ai names {len(levels)} levels for {players} players")
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    wins = [0.0] * players
    draws = rejected = 0
    turns: list[int] = []
    started = time.perf_counter()
    for k in range(games):
        played = play_game(rules, levels, seed + k)
        shares = winners(played["result"])
        if not shares:
            draws += 1
        for s, share in shares.items():
            wins[s] += share
        turns.append(played["turns"])
        rejected += played["rejected"]
        if progress and ((k + 1) % 10 == 0 or k + 1 == games):
            with open(progress, "w", encoding="utf-8") as fh:
                elapsed = time.perf_counter() - started
                fh.write(json.dumps({"done": k + 1, "of": games, "wins": wins, "s": elapsed}))
    seconds = time.perf_counter() - started
    seats = [
        {
            "seat": s,
            "level": levels[s],
            "wins": _num(wins[s]),
            "win_rate": round(wins[s] / games, 4) if games else 0.0,
        }
        for s in range(players)
    ]
    by_level: dict[str, dict[str, Any]] = {}
    for s in range(players):
        row = by_level.setdefault(levels[s], {"seats": 0, "wins": 0.0})
        row["seats"] += 1
        row["wins"] += wins[s]
    for row in by_level.values():
        row["win_rate"] = round(row["wins"] / (games * row["seats"]), 4) if games else 0.0
        row["wins"] = _num(row["wins"])
    return {
        "rules": rules.preset,
        "players": players,
        "games": games,
        "seed": seed,
        "seats": seats,
        "levels": by_level,
        "draws": draws,
        "rejected": rejected,
        "mean_turns": round(statistics.fmean(turns), 2) if turns else 0.0,
        "seconds": round(seconds, 3),
        "games_per_s": round(games / seconds, 3) if seconds else 0.0,
    }


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 4)


# ------------------------------------------------------------------------------------ stats


def natural_combinations(tiles: Sequence[Face]) -> tuple[int, int]:
    """(groups, runs) in a hand of real tiles, counted as *maximal* combinations: a group is a
    value held in three or four different colours; a run a maximal stretch of three or more
    consecutive values of one colour (wrapping 12-13-1-2, as Stein runs do). A second copy of
    tiles makes a second layer: the values (colours) held twice are searched again. A tile may
    belong to a group and a run at once (both are counted: both can be laid)."""
    counts = Counter(f for f in tiles if not f.is_joker)
    groups = runs = 0
    for layer in (1, 2):
        for rank in range(1, 14):
            colours = sum(1 for s in range(4) if counts[type_of(tiles)(s, rank)] >= layer)
            groups += colours >= 3
        for suit in range(4):
            have = [counts[type_of(tiles)(suit, r)] >= layer for r in range(1, 14)]
            runs += _cyclic_runs(have)
    return groups, runs


def type_of(tiles: Sequence[Face]) -> type:
    return type(next(iter(tiles)))


def _cyclic_runs(have: list[bool]) -> int:
    """Maximal stretches of 3+ True values on the cycle 1..13 (a full cycle counts once)."""
    if all(have):
        return 1
    if not any(have):
        return 0
    start = have.index(False)
    order = have[start:] + have[:start]
    found, length = 0, 0
    for h in [*order, False]:
        if h:
            length += 1
        else:
            found += length >= 3
            length = 0
    return found


def dead_tiles(tiles: Sequence[Face]) -> int:
    """Tiles of the hand ("Totholz") that cannot be part of any meld made of the tile, other
    hand tiles and one more tile (a draw): no tile of the same value in another colour and no
    tile of the same colour one or two values away (wrapping). The joker is not counted as a
    partner (with it every tile would live)."""
    real = [f for f in tiles if not f.is_joker]
    dead = 0
    for f in real:
        partner = any(
            (g.rank == f.rank and g.suit != f.suit)
            or (g.suit == f.suit and min((g.rank - f.rank) % 13, (f.rank - g.rank) % 13) in (1, 2))
            for g in real
        )
        dead += not partner
    return dead


def goes_out_at_once(pieces: Sequence[Face], rules) -> bool:
    """Can all pieces but one (the discard) be laid as melds from the hand alone (a
    "Hand-Rommé" on the first turn)? Exact, by the solver, after a cheap filter."""
    from engine.solver import solve

    if dead_tiles(pieces) > 1 + sum(1 for f in pieces if f.is_joker):
        return False
    best = solve([], list(pieces), rules, opened=False, mode="count")
    return best.count >= len(pieces) - 1


def starting_hand_stats(deals: int, seed: int) -> dict[str, Any]:
    """The statistics section of source text 000, by simulation over ``deals`` four-player
    Stein deals (``new_game(stein, 4 players, seed)``, seeds ``seed`` .. ``seed+deals-1``).

    Definitions (per starting hand: 14 tiles plus the player's joker):

    - *combination*: a maximal group or run of 3+ real tiles (:func:`natural_combinations`);
      ``group_share`` = groups / all combinations, over all hands (source: "über die Hälfte"),
    - ``with_combination``: share of hands holding at least one combination of real tiles (source:
      ~80 %), and ``with_combination_or_joker``: also counting a pair completed by the joker,
    - ``hand_romme``: share of players who can go out on their first turn: after drawing two
      tiles from the pool, 16 of the 17 pieces can be laid as melds from the hand (the 17th is
      discarded) (source: "unter 1 %"); computed exactly with the solver,
    - ``dead``: tiles with no partner in the hand (:func:`dead_tiles`): the distribution of their
      number per hand and the share of hands with 1-3 (source: "90 % zwischen 1-3"), and the
      correlation between a hand's combinations and its dead tiles (source: none).
    """
    rules = preset(DEFAULT_TOURNAMENT_VARIANT)  # source text 000 is about Stein-Rummy
    hands = groups = runs = with_combo = with_combo_joker = outs = 0
    dead_hist: Counter = Counter()
    combos_list: list[int] = []
    dead_list: list[int] = []
    for k in range(deals):
        game = new_game(rules, ["a", "b", "c", "d"], seed + k)
        for seat in range(4):
            pieces = game.faces(game.racks[seat])
            real = [f for f in pieces if not f.is_joker]
            g, r = natural_combinations(real)
            hands += 1
            groups += g
            runs += r
            with_combo += (g + r) > 0
            with_combo_joker += (g + r) > 0 or _has_pair(real)
            dead = dead_tiles(real)
            dead_hist[dead] += 1
            combos_list.append(g + r)
            dead_list.append(dead)
            # the first turn: two tiles from the pool (the next two for each seat in turn)
            drawn = game.faces(game.pool[-2 * seat - 2 : len(game.pool) - 2 * seat])
            outs += goes_out_at_once(pieces + drawn, rules)
    total = groups + runs
    return {
        "deals": deals,
        "hands": hands,
        "seed": seed,
        "combinations_per_hand": round(total / hands, 3),
        "groups": groups,
        "runs": runs,
        "group_share": round(groups / total, 4) if total else 0.0,
        "with_combination": round(with_combo / hands, 4),
        "with_combination_or_joker": round(with_combo_joker / hands, 4),
        "hand_romme": round(outs / hands, 5),
        "hand_romme_count": outs,
        "dead_histogram": {str(k): dead_hist[k] for k in sorted(dead_hist)},
        "dead_mean": round(statistics.fmean(dead_list), 3),
        "dead_1_to_3": round(sum(dead_hist[k] for k in (1, 2, 3)) / hands, 4),
        "dead_0_to_3": round(sum(dead_hist[k] for k in (0, 1, 2, 3)) / hands, 4),
        "correlation_combinations_dead": round(_correlation(combos_list, dead_list), 4),
    }


def _has_pair(real: Sequence[Face]) -> bool:
    """Two tiles that make a meld with a joker."""
    for a in range(len(real)):
        for b in range(a + 1, len(real)):
            f, g = real[a], real[b]
            if f.rank == g.rank and f.suit != g.suit:
                return True
            if f.suit == g.suit and min((f.rank - g.rank) % 13, (g.rank - f.rank) % 13) in (1, 2):
                return True
    return False


def _correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    if len(xs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return 0.0
    return statistics.correlation(xs, ys)


# ------------------------------------------------------------------------------------ CLI


def cmd_simulate(args: argparse.Namespace) -> int:
    try:
        data = simulate(
            args.rules,
            args.players,
            [x.strip() for x in args.ai.split(",") if x.strip()],
            args.games,
            args.seed,
            progress=args.progress,
        )
    except (ValueError, RummyError) as exc:
        text = error_text(exc) if isinstance(exc, RummyError) else str(exc)
        print(f"rummy simulate: {text}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(data))
        return 0
    print(
        f"{data['games']} games of {data['rules']}, {data['players']} players, "
        f"{data['games_per_s']} games/s, {data['mean_turns']} turns per game, "
        f"{data['draws']} draws, {data['rejected']} rejected moves"
    )
    for row in data["seats"]:
        print(f"  seat {row['seat']} {row['level']:>6}: {row['wins']} wins ({row['win_rate']:.1%})")
    for level, row in data["levels"].items():
        print(f"  {level:>6} ({row['seats']} seats): win rate {row['win_rate']:.1%} per seat")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    if not preset(args.rules).draw_first:  # Stein-Rummy deals (Stein Plus deals the same)
        print("rummy stats: the statistics are about Stein-Rummy (--rules stein)", file=sys.stderr)
        return 2
    data = starting_hand_stats(args.deals, args.seed)
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"{data['hands']} starting hands ({data['deals']} deals of four)")
    print(f"  groups among combinations: {data['group_share']:.1%} (source: more than half)")
    print(f"  hands with a combination: {data['with_combination']:.1%} (source: ~80 %)")
    print(f"  going out on the first turn: {data['hand_romme']:.2%} (source: under 1 %)")
    print(f"  hands with 1-3 dead tiles: {data['dead_1_to_3']:.1%} (source: 90 %)")
    print(f"  dead tiles per hand: {data['dead_histogram']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play computer players against each other")
    p.add_argument("--rules", required=True, help="preset: stein, stein_plus, rummikub, ...")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--ai", default="medium", help="levels per seat, comma-separated")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--progress", default=None, help="write progress JSON to this file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_simulate)
    p = sub.add_parser("stats", help="starting-hand statistics of Stein-Rummy (source 000)")
    p.add_argument("--rules", default=DEFAULT_TOURNAMENT_VARIANT)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)
