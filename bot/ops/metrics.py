"""The service's :class:`~bot.service.ports.Metrics` port over ``prometheus-client``.

Every metric lives in the instance's own :class:`~prometheus_client.CollectorRegistry` (never
the process-wide default), so several services in one process (tests) count separately.

========================================  =========  =========================================
metric                                    type       what
========================================  =========  =========================================
``rummy_commands_total{outcome}``         counter    commands by outcome: accepted, refused,
                                                     failed (players, computer players and
                                                     service actions alike)
``rummy_command_seconds``                 histogram  a command from the engine to the answer
                                                     (the durable commit included)
``rummy_store_commit_seconds``            histogram  a command's wait for its durable commit
``rummy_live_games{status}``              gauge      games held in memory (lobby, playing)
``rummy_discord_failures_total{kind}``    counter    Discord calls that failed (channel, post,
                                                     edit, dm)
========================================  =========  =========================================
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

log = logging.getLogger(__name__)

#: seconds; a command is usually a few milliseconds, a durable commit up to tens
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
OUTCOMES = ("accepted", "refused", "failed")

LiveGames = Callable[[], Mapping[str, int]]


class PrometheusMetrics:
    """Counters, histograms and gauges of one bot process (see the module)."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.commands = Counter(
            "rummy_commands", "Commands by outcome.", ["outcome"], registry=self.registry
        )
        for outcome in OUTCOMES:  # every outcome shows from the start, at 0
            self.commands.labels(outcome)
        self.latency = Histogram(
            "rummy_command_seconds",
            "Seconds from a command to its answer (durable commit included).",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.commit = Histogram(
            "rummy_store_commit_seconds",
            "Seconds a command waited for its durable commit.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.live = Gauge(
            "rummy_live_games",
            "Games held in memory, by status.",
            ["status"],
            registry=self.registry,
        )
        self.discord = Counter(
            "rummy_discord_failures",
            "Discord calls that failed, by kind.",
            ["kind"],
            registry=self.registry,
        )
        self._live_games: LiveGames | None = None

    # ------------------------------------------------------------------ the Metrics port

    def command(self, outcome: str, seconds: float) -> None:
        try:
            self.commands.labels(outcome).inc()
            self.latency.observe(max(0.0, seconds))
        except Exception:  # a metric never fails a command
            log.exception("counting a command failed")

    def store_commit(self, seconds: float) -> None:
        try:
            self.commit.observe(max(0.0, seconds))
        except Exception:
            log.exception("timing a commit failed")

    def discord_failure(self, kind: str) -> None:
        try:
            self.discord.labels(kind).inc()
        except Exception:
            log.exception("counting a Discord failure failed")

    # ------------------------------------------------------------------ export

    def watch_live_games(self, count: LiveGames) -> None:
        """``count() -> {status: games}``, asked at every export (``/metrics``)."""
        self._live_games = count

    def export(self) -> bytes:
        """The text exposition format of every metric (what ``/metrics`` answers)."""
        if self._live_games is not None:
            try:
                counts = dict(self._live_games())
            except Exception:
                log.exception("counting the live games failed")
            else:
                for status in {"lobby", "playing", *counts}:
                    self.live.labels(status).set(counts.get(status, 0))
        return generate_latest(self.registry)
