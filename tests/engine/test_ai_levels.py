"""benchmarks/ai.py compares every level with the level below, paired on the same seeds: its
figures are consistent with the games ``rummy simulate`` plays."""

from __future__ import annotations

from benchmarks.ai import PAIRS, PLAYERS, PRESETS, main, paired
from rummy_tools.ai_cli import simulate


def test_every_preset_and_every_level_pair_is_covered():
    assert set(PRESETS) == {"rummikub", "stein", "stein_plus", "romme", "rummy"} == set(PLAYERS)
    assert PAIRS == (("strong", "medium"), ("medium", "easy"))
    assert PLAYERS["rummy"] == PLAYERS["romme"] == 3 and PLAYERS["rummikub"] == 4


def test_a_pair_is_the_same_seeds_played_twice():
    row = paired("rummy", "medium", "easy", 4, 7)
    alone = simulate("rummy", 3, ["medium", "easy", "easy"], 4, 7)
    base = simulate("rummy", 3, ["easy"], 4, 7)
    assert row["win_rate"] == alone["seats"][0]["win_rate"]
    assert row["below_at_seat0_win_rate"] == base["seats"][0]["win_rate"]
    assert abs(row["paired_gain"] - (row["win_rate"] - row["below_at_seat0_win_rate"])) < 1e-9
    assert row["players"] == 3 and row["parity"] == round(1 / 3, 4) and row["rejected"] == 0
    assert "target" not in row  # the 40 % target is strong's
    assert paired("rummy", "strong", "medium", 1, 7)["target"] == 0.40


def test_the_command_line_prints_one_line_per_pair(capsys):
    assert main(["--games", "1", "--speed-games", "0", "--presets", "rummy"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("rummy (3 players): strong at seat 0 wins")
    assert lines[1].startswith("rummy (3 players): medium at seat 0 wins")
