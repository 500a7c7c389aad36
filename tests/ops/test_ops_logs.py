"""LOG_FORMAT=json gives one JSON object per line; bad operations settings give one clear line
(bot.ops.logs, bot.settings), run as the real process would."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.ops.logs import JsonFormatter, configure_logging
from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
RUMMY_BOT = Path(sys.executable).with_name("rummy-bot")


@pytest.fixture
def root_logging() -> Iterator[None]:
    """The root logger as it was, after the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)


def test_json_lines_carry_time_level_logger_message_and_exception(root_logging):
    out = io.StringIO()
    configure_logging("INFO", "json", stream=out)
    log = logging.getLogger("bot.test")
    log.debug("not shown at INFO")
    log.info("a move in game %s\nsecond line", "g1")
    try:
        raise ValueError("bad tile")
    except ValueError:
        log.exception("the engine failed on %r", "meld X")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # the newline inside the message stays inside its line
    first, second = (json.loads(line) for line in lines)
    assert set(first) == {"time", "level", "logger", "message"}
    assert first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["message"] == "a move in game g1\nsecond line"
    assert first["time"].endswith("Z") and first["time"][10] == "T"
    assert second["level"] == "ERROR" and second["message"] == "the engine failed on 'meld X'"
    assert second["exception"].startswith("Traceback (most recent call last):")
    assert second["exception"].rstrip().endswith("ValueError: bad tile")


def test_configure_logging_replaces_its_own_handler_only(root_logging):
    root = logging.getLogger()
    theirs = logging.Handler()  # e.g. a test's capture: kept
    root.addHandler(theirs)
    configure_logging("WARNING", "text")
    configure_logging("INFO", "json")
    mine = [h for h in root.handlers if type(h) is logging.StreamHandler]
    assert len(mine) == 1 and isinstance(mine[0].formatter, JsonFormatter)
    assert theirs in root.handlers and root.level == logging.INFO


def env_without(*names: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(extra)
    return env


def run_bot(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(RUMMY_BOT), *args],
        cwd=tmp_path,  # no .env there
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


SETTINGS_VARS = ("DISCORD_TOKEN", "METRICS_PORT", "METRICS_HOST", "LOG_FORMAT", "DATABASE_URL")


def test_the_bot_process_logs_json_lines(tmp_path: Path):
    """``bot.app.main`` with LOG_FORMAT=json: its start-up error is one JSON line on stderr."""
    code = "import sys; from bot.app import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env_without(*SETTINGS_VARS, LOG_FORMAT="json", PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    data = json.loads(line)
    assert data["level"] == "ERROR" and data["logger"] == "bot.app"
    assert data["message"] == "DISCORD_TOKEN is not set (environment or .env)"


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("METRICS_PORT", "abc", "METRICS_PORT must be a port number from 1 to 65535, not 'abc'"),
        (
            "METRICS_PORT",
            "70000",
            "METRICS_PORT must be a port number from 1 to 65535, not '70000'",
        ),
        ("METRICS_PORT", "0", "METRICS_PORT must be a port number from 1 to 65535, not '0'"),
        ("LOG_FORMAT", "xml", "LOG_FORMAT must be text or json, not 'xml'"),
    ],
)
def test_a_bad_operations_setting_is_one_line(tmp_path: Path, name: str, value: str, said: str):
    env = env_without(*SETTINGS_VARS, DISCORD_TOKEN="not-a-token", **{name: value})
    done = run_bot(tmp_path, env)  # the settings are read before anything starts
    assert done.returncode == 2
    assert done.stderr == f"rummy-bot: {said}\n"
    assert done.stdout == ""


def test_the_operations_settings():
    assert Settings.from_mapping({}).metrics_port is None  # off unless set
    found = Settings.from_mapping({"METRICS_PORT": " 9108 ", "LOG_FORMAT": "JSON"})
    assert (found.metrics_port, found.metrics_host, found.log_format) == (9108, "0.0.0.0", "json")
    assert Settings.from_mapping({"METRICS_HOST": "127.0.0.1"}).metrics_host == "127.0.0.1"


def test_every_rummy_bot_command_honours_log_format(root_logging, tmp_path, monkeypatch):
    """``rummy-bot <command>`` configures the root logger from LOG_FORMAT too (not only the
    bot): here ``verify-db`` of a missing file (it reports it, exit 1)."""
    from bot import cli

    monkeypatch.chdir(tmp_path)
    for name in SETTINGS_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOG_FORMAT", "json")
    assert cli.main(["verify-db", "--db", str(tmp_path / "missing.sqlite3")]) == 1
    mine = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert len(mine) == 1 and isinstance(mine[0].formatter, JsonFormatter)
    assert logging.getLogger().level == logging.WARNING
