"""The service's own rejections (lobby, game lookup, limits), in English and German.

Like :class:`engine.errors.RummyError`: a stable ``code`` and ``message(lang)``. The engine's
errors pass through unchanged; these cover what the engine does not know about (games, seats,
hosts, computer players, storage).
"""

from __future__ import annotations

from engine.errors import CodedError

MESSAGES: dict[str, tuple[str, str]] = {
    "game.not_found": ("There is no game {game}.", "Es gibt kein Spiel {game}."),
    "game.not_lobby": (
        "Game {game} has already started.",
        "Spiel {game} hat schon begonnen.",
    ),
    "game.not_playing": ("Game {game} is not running.", "Spiel {game} läuft nicht."),
    "game.not_finished": (
        "Game {game} is still running: a rematch is possible once it is over.",
        "Spiel {game} läuft noch: eine Revanche gibt es, wenn es vorbei ist.",
    ),
    "lobby.full": (
        "The table is full: {preset} has at most {maximum} players.",
        "Der Tisch ist voll: {preset} hat höchstens {maximum} Personen.",
    ),
    "lobby.seated": ("You already sit at this table.", "Du sitzt schon an diesem Tisch."),
    "lobby.not_seated": ("You do not sit at this table.", "Du sitzt nicht an diesem Tisch."),
    "lobby.host_only": (
        "Only the host can {action}.",
        "Nur der Gastgeber kann {action_de}.",
    ),
    "lobby.bot_level": (
        '"{level}" is not a computer level: choose easy, medium or strong.',
        '"{level}" ist keine Computerstufe: easy, medium oder strong.',
    ),
    "command.empty": ("Type a command, e.g. draw.", "Gib einen Befehl ein, z. B. draw."),
    "command.too_long": (
        "That message is too long ({length} characters; at most {maximum}).",
        "Die Nachricht ist zu lang ({length} Zeichen; höchstens {maximum}).",
    ),
    "command.reserved": (
        '"{token}" is reserved for the bot itself.',
        '"{token}" ist dem Bot vorbehalten.',
    ),
    "service.internal": (
        "Something went wrong on our side; your move was not applied. Please try again.",
        "Bei uns ist etwas schiefgegangen; dein Zug wurde nicht ausgeführt. Bitte noch einmal.",
    ),
    "service.store": (
        "Your move could not be saved, so nothing changed (it was not applied). Please try again.",
        "Dein Zug konnte nicht gespeichert werden, es hat sich nichts geändert (er wurde nicht "
        "ausgeführt). Bitte noch einmal.",
    ),
    "service.save": (
        "That could not be saved, so nothing changed. Please try again.",
        "Das konnte nicht gespeichert werden, es hat sich nichts geändert. Bitte noch einmal.",
    ),
    "service.busy": (
        "Game {game} is busy; nothing changed. Please try again in a moment.",
        "Spiel {game} ist gerade beschäftigt; es hat sich nichts geändert. Bitte gleich noch "
        "einmal.",
    ),
    "game.quarantined": (
        "Game {game} is damaged and has been set aside for the admins; nothing changed.",
        "Spiel {game} ist beschädigt und wurde für die Admins beiseitegelegt; es hat sich "
        "nichts geändert.",
    ),
    "input.invalid": (
        "The {what} is not valid text.",
        "{what_de} ist kein gültiger Text.",
    ),
    "options.invalid": (
        'Option "{option}" cannot be {value}: {expected} expected.',
        'Option "{option}" kann nicht {value} sein: erwartet {expected_de}.',
    ),
}


class ServiceError(CodedError):
    """A request the service refuses; nothing changed."""

    catalogue = MESSAGES
