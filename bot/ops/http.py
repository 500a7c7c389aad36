"""The operations HTTP server (``aiohttp.web``): ``GET /healthz`` and ``GET /metrics``.

- ``/healthz``: 200 ``{"status": "ok"}`` when every check passes, else 503
  ``{"status": "unavailable", "reasons": [...]}`` (see :mod:`bot.ops.health`).
- ``/metrics``: the Prometheus text format of :class:`~bot.ops.metrics.PrometheusMetrics`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiohttp import web

from .health import Check, run_checks
from .metrics import PrometheusMetrics

log = logging.getLogger(__name__)


class OpsServerError(Exception):
    """The server cannot listen (one line: which address, and why)."""


class OpsServer:
    """Serves ``/healthz`` and ``/metrics`` on ``host:port`` (port 0: a free one, see
    :attr:`port` after :meth:`start`)."""

    def __init__(
        self,
        metrics: PrometheusMetrics,
        checks: Sequence[Check] = (),
        *,
        host: str = "0.0.0.0",
        port: int = 0,
        check_timeout: float = 3.0,
    ) -> None:
        self.metrics = metrics
        self.checks = list(checks)
        self.host = host
        self.port = port
        self.check_timeout = check_timeout
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics_page)
        return app

    async def healthz(self, request: web.Request) -> web.Response:
        reasons = await run_checks(self.checks, self.check_timeout)
        if reasons:
            return web.json_response({"status": "unavailable", "reasons": reasons}, status=503)
        return web.json_response({"status": "ok"})

    async def metrics_page(self, request: web.Request) -> web.Response:
        body = self.metrics.export()
        response = web.Response(body=body)
        response.headers["Content-Type"] = self.metrics.content_type
        return response

    async def start(self) -> int:
        """Listen; returns the port. A port in use or a bad address is :class:`OpsServerError`."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            reason = exc.strerror or str(exc)
            raise OpsServerError(
                f"METRICS_PORT {self.port} cannot be used on {self.host}: {reason}"
            ) from None
        self._runner = runner
        bound = [a for a in runner.addresses if isinstance(a, tuple)]
        if bound:
            self.port = int(bound[0][1])
        log.info("operations port: http://%s:%d/healthz and /metrics", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
