"""Log lines as text (the default) or as JSON objects (``LOG_FORMAT=json``), one per line.

A JSON line holds ``time`` (ISO 8601 UTC with milliseconds), ``level``, ``logger``,
``message`` and, when the record carries one, ``exception`` (the formatted traceback) and
``stack``; the line never contains a raw newline.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, tz=UTC)
        data: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            data["exception"] = record.exc_text
        if record.stack_info:
            data["stack"] = self.formatStack(record.stack_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def formatter(fmt: str) -> logging.Formatter:
    """The formatter of a ``LOG_FORMAT`` value (``text`` or ``json``)."""
    if fmt == "json":
        return JsonFormatter()
    if fmt == "text":
        return logging.Formatter(TEXT_FORMAT)
    raise ValueError(f"LOG_FORMAT must be text or json, not {fmt!r}")


def configure_logging(level: str | int, fmt: str = "text", stream: IO[str] | None = None) -> None:
    """The root logger at ``level`` (a number, or a name such as ``INFO``; an unknown name:
    INFO) writing ``fmt``
    lines to ``stream`` (default: stderr). Replaces the handler an earlier call (or
    ``logging.basicConfig``) installed; handlers of others (a test's capture) stay."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter(fmt))
    root.addHandler(handler)
    if not isinstance(level, int):
        level = getattr(logging, str(level).upper(), logging.INFO)
    root.setLevel(level)
