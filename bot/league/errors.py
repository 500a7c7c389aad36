"""Typed errors of the league logic, with stable codes and sentences in English and German.

Same shape as ``engine.errors.RummyError``: match on ``code`` (never changes once published),
show ``message(lang)`` to people.
"""

from __future__ import annotations

from engine.errors import CodedError

MESSAGES: dict[str, tuple[str, str]] = {
    # match points
    "mp.too_few_players": (
        "A game needs at least {min} players, not {count}.",
        "Ein Spiel braucht mindestens {min} Spieler, nicht {count}.",
    ),
    "mp.bad_winner": (
        "Seat {winner} cannot be the winner of a game with {count} players.",
        "Platz {winner} kann nicht Sieger eines Spiels mit {count} Spielern sein.",
    ),
    "mp.winner_has_tiles": (
        "The winner (seat {winner}) still holds {tiles} tiles.",
        "Der Sieger (Platz {winner}) hat noch {tiles} Steine.",
    ),
    "mp.negative": (
        "Seat {seat}: {value} cannot be negative.",
        "Platz {seat}: {value} darf nicht negativ sein.",
    ),
    "mp.bad_policy": (
        '"{policy}" is not a first-round-out policy. Choose split, equal or normal.',
        '"{policy}" ist keine Regel für frühes Ausmachen. Möglich: split, equal oder normal.',
    ),
    "mp.length_mismatch": (
        "{what}: expected {expected} values, got {got}.",
        "{what}: {expected} Werte erwartet, {got} erhalten.",
    ),
    # results
    "result.too_few_players": (
        "Game {game_id}: a ladder result needs at least 2 players, not {count}.",
        "Spiel {game_id}: ein Ranglistenergebnis braucht mindestens 2 Spieler, nicht {count}.",
    ),
    "result.duplicate_player": (
        "Game {game_id}: player {player} appears twice.",
        "Spiel {game_id}: Spieler {player} kommt doppelt vor.",
    ),
    "result.bad_timestamp": (
        'Game {game_id}: "{value}" is not an ISO 8601 time.',
        'Spiel {game_id}: "{value}" ist keine ISO-8601-Zeit.',
    ),
    "result.bad_mp": (
        "Game {game_id}: player {player} has {mp} MP, outside 0..{max_mp}.",
        "Spiel {game_id}: Spieler {player} hat {mp} MP, außerhalb von 0..{max_mp}.",
    ),
    "result.bad_rank": (
        "Game {game_id}: player {player} has rank {rank}; ranks run from 1 to {count}.",
        "Spiel {game_id}: Spieler {player} hat Rang {rank}; Ränge gehen von 1 bis {count}.",
    ),
    "result.unknown_preset": (
        '"{preset}" is not a preset. Choose one of: {choices}.',
        '"{preset}" ist keine Variante. Möglich: {choices}.',
    ),
    "result.missing_score": (
        "Preset {preset} needs the score {field}.",
        "Variante {preset} braucht den Wert {field}.",
    ),
    # ladder
    "ladder.duplicate_game": (
        "Game {game_id} appears twice in the results.",
        "Spiel {game_id} kommt in den Ergebnissen doppelt vor.",
    ),
    "ladder.bad_order": (
        '"{order}" is not a ladder order. Choose percent or rating.',
        '"{order}" ist keine Sortierung. Möglich: percent oder rating.',
    ),
    "ladder.bad_trend": (
        "The trend window must be at least 1 game, not {games}.",
        "Das Trendfenster muss mindestens 1 Spiel umfassen, nicht {games}.",
    ),
    "ladder.unknown_player": (
        "Player {player} has no games on this ladder.",
        "Spieler {player} hat keine Spiele in dieser Rangliste.",
    ),
    # seasons
    "season.already_ended": (
        "Season {number} already ended at {ended_at}.",
        "Saison {number} ist bereits am {ended_at} beendet worden.",
    ),
    "season.bad_timestamp": (
        'Season {number}: "{value}" is not an ISO 8601 time.',
        'Saison {number}: "{value}" ist keine ISO-8601-Zeit.',
    ),
    "season.ends_before_start": (
        "Season {number} cannot end at {at}, before it started at {started_at}.",
        "Saison {number} kann nicht am {at} enden, vor ihrem Beginn am {started_at}.",
    ),
    # Rommé sitting / Rummy match
    "league.duplicate_player": (
        "Player {player} appears twice.",
        "Spieler {player} kommt doppelt vor.",
    ),
    "sitting.player_count": (
        "A Rommé sitting needs 2 to 6 players, not {count}.",
        "Eine Rommé-Runde braucht 2 bis 6 Spieler, nicht {count}.",
    ),
    "sitting.no_game": (
        "The sitting has no game number {number}.",
        "Die Runde hat kein Spiel Nummer {number}.",
    ),
    "rummy.player_count": (
        "A Rummy match needs 2 to 4 players, not {count}.",
        "Ein Rummy-Match braucht 2 bis 4 Spieler, nicht {count}.",
    ),
    "rummy.match_over": (
        "The match is over: {winner} reached {target}.",
        "Das Match ist vorbei: {winner} hat {target} erreicht.",
    ),
    "rummy.match_not_over": (
        "The match is not over yet: nobody has reached {target}.",
        "Das Match ist noch nicht vorbei: niemand hat {target} erreicht.",
    ),
    # tournaments
    "tournament.too_few_players": (
        "A tournament table needs at least 3 players, not {count}.",
        "Ein Turniertisch braucht mindestens 3 Spieler, nicht {count}.",
    ),
    "tournament.cannot_seat": (
        "{count} players cannot be seated at tables of 3 and 4.",
        "{count} Spieler lassen sich nicht auf Tische zu 3 und 4 verteilen.",
    ),
    "tournament.duplicate_player": (
        "Player {player} is registered twice.",
        "Spieler {player} ist doppelt angemeldet.",
    ),
    "tournament.unknown_player": (
        "Player {player} is not registered.",
        "Spieler {player} ist nicht angemeldet.",
    ),
    "tournament.unknown_group": (
        'There is no strength group "{group}".',
        'Es gibt keine Stärkegruppe "{group}".',
    ),
    "tournament.bad_groups": (
        "The strength groups must hold every registered player exactly once ({why}).",
        "Die Stärkegruppen müssen jeden angemeldeten Spieler genau einmal enthalten ({why}).",
    ),
    "tournament.round_open": (
        "Round {round} is still being played.",
        "Runde {round} läuft noch.",
    ),
    "tournament.no_round": (
        "No round is being played.",
        "Es läuft keine Runde.",
    ),
    "tournament.started": (
        "The tournament has started; {what} is no longer possible.",
        "Das Turnier hat begonnen; {what} ist nicht mehr möglich.",
    ),
    "tournament.unknown_table": (
        "There is no table {table} in round {round}.",
        "In Runde {round} gibt es keinen Tisch {table}.",
    ),
    "tournament.table_done": (
        "Table {table} has played all {games} games of round {round}.",
        "Tisch {table} hat alle {games} Spiele der Runde {round} gespielt.",
    ),
    "tournament.bad_award": (
        "Table {table}: {why}.",
        "Tisch {table}: {why_de}.",
    ),
    "tournament.bad_promotion": (
        "Cannot form strength groups: {why}.",
        "Stärkegruppen lassen sich nicht bilden: {why_de}.",
    ),
}


class LeagueError(CodedError):
    """A rejected league, season, sitting or tournament operation."""

    catalogue = MESSAGES
