"""The game service's tunable behaviour (:class:`ServiceConfig`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class ServiceConfig:
    """Tunable behaviour. Times are seconds."""

    pictures: bool = True
    bot_pause: float = 1.0  # before each computer move (x 0.5-1.5 jitter), so people can follow
    snapshot_every: int = 1  # store a full snapshot every N commands (replay the rest)
    abandon_after: float | None = 3 * 24 * 3600  # no player command for this long: abandoned
    lobby_expiry: float | None = 24 * 3600  # a lobby nobody starts is cancelled
    reminder_fraction: float = 0.25  # remind when this share of the turn time is left
    tick_seconds: float = 1.0  # how often timers are checked
    max_command_length: int = 2000
    # computer players choose their moves in a worker process (bot.service.thinker), during
    # their pause, instead of on the event loop where it delays every other game's commands
    think_in_worker: bool = True
    # the longest wait for the worker's answer (after the pause); then a cheaper level chooses
    # on the loop, and the worker is killed and replaced
    think_timeout: float = 5.0
    think_fallback_level: str = "easy"
    worker_restart_after: float = 5.0  # seconds before a dead or killed worker is started again
    # how often the service writes its "alive" heartbeat (downtime = now - last heartbeat)
    heartbeat_seconds: float = 5.0
    # a computer seat or timer action that fails this many times in a row quarantines its game
    max_failures: int = 5
