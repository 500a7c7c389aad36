"""Operations: the optional HTTP port (``METRICS_PORT``) with ``/healthz`` and ``/metrics``,
and JSON log lines (``LOG_FORMAT=json``). See docs/DEPLOY.md.

- :mod:`bot.ops.metrics`: :class:`~bot.ops.metrics.PrometheusMetrics`, the service's
  :class:`~bot.service.ports.Metrics` port over ``prometheus-client`` (the engine and the
  service never import it).
- :mod:`bot.ops.health`: the checks behind ``/healthz`` (the Discord gateway connected, the
  store reachable).
- :mod:`bot.ops.http`: :class:`~bot.ops.http.OpsServer`, the ``aiohttp.web`` server.
- :mod:`bot.ops.logs`: :class:`~bot.ops.logs.JsonFormatter` and
  :func:`~bot.ops.logs.configure_logging`.
"""
