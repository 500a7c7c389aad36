"""Shared by the operations tests: a loopback GET and the samples of a /metrics page."""

from __future__ import annotations

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def get(url: str) -> tuple[int, str, str]:
    """``GET url`` over a real HTTP connection: (status, content type, body)."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, response.headers["Content-Type"], await response.text()


def samples(text: str) -> Samples:
    """``(sample name, sorted labels) -> value`` of a Prometheus text page (parsed by
    prometheus-client's own parser)."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found
