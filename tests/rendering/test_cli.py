"""`rummy render`: writes PNGs, reports bad notation with exit 1, usage errors with exit 2."""

from __future__ import annotations

import pytest

from bot.rummy_cli import main


def test_table_with_hand_writes_one_png(tmp_path, png, capsys):
    out = tmp_path / "table.png"
    code = main(
        [
            "render",
            "--rules",
            "stein_plus",
            "--table",
            "R5 R6 R7 | B9 Y9 K9",
            "--hand",
            "R1 R2 J",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    table_only = tmp_path / "only.png"
    assert (
        main(
            [
                "render",
                "--rules",
                "stein_plus",
                "--table",
                "R5 R6 R7 | B9 Y9 K9",
                "--out",
                str(table_only),
            ]
        )
        == 0
    )
    with_hand, alone = png(out.read_bytes()), png(table_only.read_bytes())
    assert with_hand.width == alone.width and with_hand.height > alone.height


@pytest.mark.parametrize("pieces", ["R5 B9 J K13", "AS 10H * QD"])
def test_rack_without_rules_guesses_the_family(tmp_path, png, pieces):
    out = tmp_path / "rack.png"
    assert main(["render", "--rack", pieces, "--out", str(out)]) == 0
    assert png(out.read_bytes()).width > 0


def test_bad_notation_exits_1_with_the_engine_message(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["render", "--table", "R5 R6 R14", "--out", str(out)]) == 1
    assert '"R14": value must be 1-13' in capsys.readouterr().err
    assert not out.exists()
    assert main(["render", "--rules", "nope", "--table", "R1 R2 R3", "--out", str(out)]) == 1


def test_usage_errors_exit_2(tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["render", "--out", str(tmp_path / "x.png")])
    assert exc.value.code == 2
    assert main(["render", "--rack", "R1", "--hand", "R2", "--out", str(tmp_path / "y.png")]) == 2
