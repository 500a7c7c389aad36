"""The ``rummy solve`` command (rummy_tools.solver_cli): output contract and exit codes."""

from __future__ import annotations

import json

import pytest

from bot.rummy_cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_contract(capsys):
    code, out, _ = run(
        capsys,
        "solve",
        "--rules",
        "rummikub",
        "--table",
        "R1 R2 R3 | B5 B6 B7",
        "--hand",
        "R4 B8 K2",
        "--opened",
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"count", "value", "placed", "table", "ms"}
    assert result["count"] == 2 and result["value"] == 12
    assert sorted(result["placed"]) == ["B8", "R4"]
    assert result["table"] == [["R1", "R2", "R3", "R4"], ["B5", "B6", "B7", "B8"]]
    assert result["ms"] >= 0


def test_solve_readable_summary_and_wrap(capsys):
    code, out, _ = run(
        capsys,
        "solve",
        "--rules",
        "stein",
        "--table",
        "R12 R13 R1",
        "--hand",
        "R2 R11",
        "--opened",
    )
    assert code == 0
    assert "Place 2 pieces" in out and "R11 R12 R13 R1 R2" in out


def test_solve_before_opening_and_value_mode(capsys):
    code, out, _ = run(
        capsys, "solve", "--rules", "rummikub", "--hand", "K9 K10 K11 R1 R2 R3", "--json"
    )
    # 30 from K9 K10 K11, and R1 R2 R3 may join the same opening
    assert code == 0 and json.loads(out)["count"] == 6
    code, out, _ = run(
        capsys,
        "solve",
        "--rules",
        "rummikub",
        "--table",
        "B13 Y13 K13",
        "--hand",
        "R13 K1 K2 K3",
        "--opened",
        "--mode",
        "value",
        "--json",
    )
    assert code == 0 and json.loads(out)["value"] == 19


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--rules", "rummikub", "--hand", "R14"], 1),
        (["--rules", "nope", "--hand", "R1"], 1),
        (["--rules", "romme", "--hand", "AS 2S 3S"], 1),
        (["--hand", "R1"], 2),
        (["--rules", "rummikub", "--hand", "R1", "--mode", "most"], 2),
    ],
)
def test_solve_errors(capsys, argv, expected):
    code, _, err = run(capsys, "solve", *argv)
    assert code == expected
    assert err


def test_solve_batch(tmp_path, capsys):
    path = tmp_path / "positions.jsonl"
    lines = [
        {
            "rules": "rummikub",
            "table": "R1 R2 R3",
            "hand": "R4 K9",
            "opened": True,
            "mode": "count",
        },
        {"rules": "stein", "table": "", "hand": "R1 R2 R3 J", "opened": False, "mode": "count"},
        {"rules": "rummikub", "table": "", "hand": "X1", "opened": True, "mode": "count"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "solve", "--batch", str(path), "--json")
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert results[0]["count"] == 1 and results[0]["placed"] == ["R4"]
    assert results[1]["count"] == 4
    assert results[2]["error"]["code"] == "parse.piece"
    code, _, _ = run(capsys, "solve", "--batch", str(tmp_path / "missing.jsonl"))
    assert code == 2
