"""The league: ladder, seasons, Rommé sittings, Rummy matches and Stein-Rummy tournaments.

The rules are pure modules without I/O: :mod:`~bot.league.ladder` (results, ratings, seasons),
:mod:`~bot.league.presets` (result builders, the Rommé sitting, the Rummy match),
:mod:`~bot.league.kinds` (how each variant's :class:`~engine.variants.Ladder` kind counts),
:mod:`~bot.league.tournament` (seating, scoring, director actions, standings) and
:mod:`~bot.league.mp`. Every state value has ``to_dict()`` / ``from_dict()`` (the engine's
codec); :func:`dumps` gives its byte-stable JSON. See RULES.md "Tournaments and ladder" and
seed 000 "Turniere".

The storage part reads and writes a :class:`~bot.store.Store`: :class:`League`
(:mod:`bot.league.service`, the facade over the ladder book, the sittings, the matches and the
tournament desk, and the game service's result hook) and the tournament repository
(:mod:`bot.league.repository`). This package is the league's public API for the layers above;
it never imports the game service (the tournament runner and the organiser's CLI that drive the
service are :mod:`bot.league_tools`).
"""

from bot.league.codec import dumps, loads
from bot.league.errors import LeagueError, LeagueServiceError
from bot.league.kinds import SCORING, LadderScoring, result_from_scores
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
    result_from_stein,
    rummy_hand_points,
)
from bot.league.records import (
    PlayerStats,
    PresetStats,
    RunningMatch,
    RunningSitting,
    TournamentGame,
    TournamentInfo,
    VoidRecord,
)
from bot.league.repository import KvTournamentRepository, TournamentRepository
from bot.league.service import League
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

__all__ = [
    "SCORING",
    "DirectorAction",
    "GameMeta",
    "GameResult",
    "Group",
    "HistoryEntry",
    "KvTournamentRepository",
    "Ladder",
    "LadderScoring",
    "League",
    "LeagueError",
    "LeagueServiceError",
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
    "TournamentRepository",
    "TournamentRow",
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
