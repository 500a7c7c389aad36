"""The files of docs/DEPLOY.md (docs/deploy/) are read by the bot's own settings parser as
systemd hands them over: every combination parses, the shard ranges of the processes cover every
shard once, each process has its own operations port, and the unit names them."""

from __future__ import annotations

import configparser
from pathlib import Path

from bot.settings import Settings, read_env_file

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy"


def settings_of(*names: str) -> Settings:
    merged: dict[str, str] = {}
    for name in names:  # systemd: the later EnvironmentFile wins
        merged.update(read_env_file(DEPLOY / name))
    return Settings.from_mapping(merged)


def test_every_process_setting_parses():
    single = settings_of("common.env", "main.env")
    assert single.database_url.startswith("sqlite:////var/lib/rummy-bot/")
    assert single.shard_count is None and single.metrics_port == 9100
    assert single.metrics_host == "127.0.0.1" and single.log_format == "json"
    a, b = settings_of("common.env", "a.env"), settings_of("common.env", "b.env")
    for one in (a, b):
        assert one.database_url.startswith("postgresql://") and one.log_format == "json"
    assert a.shard_count == b.shard_count == 16
    assert sorted(a.shard_ids + b.shard_ids) == list(range(16))  # every shard exactly once
    assert a.metrics_port != b.metrics_port


def test_the_unit_reads_those_files():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # keys are case-sensitive
    text = (DEPLOY / "rummy-bot@.service").read_text()
    unit.read_string(text)
    service = unit["Service"]
    assert service["ExecStart"].endswith("/bin/rummy-bot")
    files = [
        line.split("=", 1)[1] for line in text.splitlines() if line.startswith("EnvironmentFile=")
    ]
    assert files == ["/etc/rummy-bot/common.env", "-/etc/rummy-bot/%i.env"]
    assert service["RestartPreventExitStatus"] == "2"  # bad settings: no restart loop
    assert unit["Install"]["WantedBy"] == "multi-user.target"
