"""League logic: ladder, seasons, Rommé sittings, Rummy matches and Stein-Rummy tournaments.

Pure Python (no I/O, no SQL, no asyncio, no discord). Every state value has ``to_dict()`` /
``from_dict()``; :func:`bot.league.codec.dumps` gives its byte-stable JSON. See RULES.md
"Tournaments and ladder" and seed 000 "Turniere".

The storage glue is separate and exported lazily, so importing ``bot.league`` stays pure:
:class:`League` (:mod:`bot.league.service`: the store's key/value rows, the game service's result
hook), :class:`TournamentRunner` (:mod:`bot.league.runner`: tournament games with computer players
through the game service) and the organiser's CLI (:mod:`bot.league.cli`).
"""

from typing import Any

from bot.league.codec import dumps, loads
from bot.league.errors import LeagueError
from bot.league.ladder import (
    GameResult,
    HistoryEntry,
    Ladder,
    PlayerResult,
    RatingPoint,
    Season,
    SeasonChange,
    StandingRow,
    compute_ladder,
    current_season,
    end_season,
    percent,
    season_ladder,
    select_results,
    start_season,
)
from bot.league.mp import competition_ranks, first_round_out_mp, place_points, stein_mp
from bot.league.presets import (
    GameMeta,
    RummyHand,
    RummyMatch,
    Sitting,
    SittingGame,
    result_from_romme,
    result_from_rummikub,
    result_from_rummy_match,
    result_from_scores,
    result_from_stein,
    rummy_hand_points,
)
from bot.league.tournament import (
    DirectorAction,
    Group,
    Promotion,
    Round,
    Table,
    TableGame,
    Tournament,
    TournamentRow,
    award_game,
    choose_group,
    end_game_early,
    move_players,
    neutralise_game,
    new_tournament,
    promote,
    record_game,
    register,
    seat_tables,
    set_groups,
    slow_player_award,
    standings,
    start_round,
    table_sizes,
)

# name -> module, imported on first use (they need the store / the game service)
_LAZY = {
    "League": "bot.league.service",
    "LeagueServiceError": "bot.league.service",
    "PlayerStats": "bot.league.service",
    "PresetStats": "bot.league.service",
    "RunningMatch": "bot.league.service",
    "RunningSitting": "bot.league.service",
    "TournamentGame": "bot.league.service",
    "TournamentInfo": "bot.league.service",
    "VoidRecord": "bot.league.service",
    "PlayedGame": "bot.league.runner",
    "TournamentRunner": "bot.league.runner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bot.league' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DirectorAction",
    "GameMeta",
    "GameResult",
    "Group",
    "HistoryEntry",
    "Ladder",
    "League",
    "LeagueError",
    "LeagueServiceError",
    "PlayedGame",
    "PlayerResult",
    "PlayerStats",
    "PresetStats",
    "Promotion",
    "RatingPoint",
    "Round",
    "RummyHand",
    "RummyMatch",
    "RunningMatch",
    "RunningSitting",
    "Season",
    "SeasonChange",
    "Sitting",
    "SittingGame",
    "StandingRow",
    "Table",
    "TableGame",
    "Tournament",
    "TournamentGame",
    "TournamentInfo",
    "TournamentRow",
    "TournamentRunner",
    "VoidRecord",
    "award_game",
    "choose_group",
    "competition_ranks",
    "compute_ladder",
    "current_season",
    "dumps",
    "end_game_early",
    "end_season",
    "first_round_out_mp",
    "loads",
    "move_players",
    "neutralise_game",
    "new_tournament",
    "percent",
    "place_points",
    "promote",
    "record_game",
    "register",
    "result_from_romme",
    "result_from_rummikub",
    "result_from_rummy_match",
    "result_from_scores",
    "result_from_stein",
    "rummy_hand_points",
    "season_ladder",
    "seat_tables",
    "select_results",
    "set_groups",
    "slow_player_award",
    "standings",
    "start_round",
    "start_season",
    "stein_mp",
    "table_sizes",
]
