"""Settings: DATABASE_URL, SHARD_COUNT and SHARD_IDS are checked when read, each wrong value a
ValueError of one line naming the setting (the CLI prints it as ``rummy-bot: ...``, exit 2)."""

from __future__ import annotations

import pytest

from bot.settings import DEFAULT_DATABASE_URL, Settings


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///data/x.sqlite3",
        "sqlite:////abs/x.sqlite3",
        "postgresql://rummy:pw@db.example:5432/rummy",
        "postgres://rummy@/rummy?host=/run/postgresql",
        "data/rummy.sqlite3",  # a plain path is a SQLite file
    ],
)
def test_database_urls_of_both_stores_are_taken_as_given(url: str):
    assert Settings.from_mapping({"DATABASE_URL": url}).database_url == url


def test_no_database_url_is_the_default():
    assert Settings.from_mapping({}).database_url == DEFAULT_DATABASE_URL


def test_a_database_url_of_no_known_store_is_one_line():
    with pytest.raises(ValueError, match="DATABASE_URL must be sqlite:///") as caught:
        Settings.from_mapping({"DATABASE_URL": "mysql://u:pw@h/d"})
    assert "\n" not in str(caught.value) and "mysql://..." in str(caught.value)
    assert "pw" not in str(caught.value)  # no password repeated


@pytest.mark.parametrize(
    "values, words",
    [
        ({"SHARD_COUNT": "x"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "a-b"}, "SHARD_IDS must be shard numbers"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0-3"}, "SHARD_IDS 2, 3 outside 0-1"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "runs backwards"),
        ({"SHARD_IDS": "1"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"DEV_GUILD_ID": "guild"}, "DEV_GUILD_ID must be a guild id"),
    ],
)
def test_bad_shard_settings_are_one_line(values: dict[str, str], words: str):
    with pytest.raises(ValueError, match=words) as caught:
        Settings.from_mapping(values)
    assert "\n" not in str(caught.value)


def test_shards_in_range_are_taken():
    settings = Settings.from_mapping({"SHARD_COUNT": "4", "SHARD_IDS": "0,2-3"})
    assert (settings.shard_count, settings.shard_ids) == (4, (0, 2, 3))
    assert Settings.from_mapping({"SHARD_COUNT": "2"}).shard_ids is None
