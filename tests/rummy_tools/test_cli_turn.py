"""`rummy turn` and `rummy validate` through the command line (issue 13, defects 9 and 11):
separators with or without spaces, a missing separator named as such, every message in the
language asked for."""

import json

import pytest

from bot.rummy_cli import main
from engine.rules import preset
from rummy_tools.engine_cli import tile_turn


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def turn_json(capsys, *argv: str) -> tuple[int, dict]:
    code, out = run(capsys, "turn", "--json", *argv)
    return code, json.loads(out)


# ---------------------------------------------------------------------- defect 9

SPELLINGS = [
    "draw; draw; discard B4",
    "draw;draw;discard B4",
    "draw|draw|discard B4",
    "draw | draw | discard B4",
    "draw\ndraw\ndiscard B4",
    "draw\r\ndraw\r\ndiscard B4\n",
    "  draw ;draw|\n discard B4 ;",
]


@pytest.mark.parametrize("commands", SPELLINGS)
def test_stein_draw_draw_discard_in_every_spelling(capsys, commands):
    code, data = turn_json(capsys, "--rules", "stein", "--hand", "B4 R1 R2", commands)
    assert code == 0, data
    assert data["ok"] is True and data["error"] is None
    # two tiles drawn from the pool, B4 discarded: R1 R2 and the two new tiles
    assert len(data["hand"]) == 4
    assert data["hand"][:2] == ["R1", "R2"]


def test_every_spelling_plays_the_same_turn(capsys):
    outs = {
        json.dumps(turn_json(capsys, "--rules", "stein", "--hand", "B4 R1 R2", c)[1])
        for c in SPELLINGS
    }
    assert len(outs) == 1


def test_stein_without_draw_commands_starts_after_the_draws(capsys):
    # no draw word at the start: the position is just after the draws, so a draw is refused
    code, data = turn_json(capsys, "--rules", "stein", "--hand", "B4 R1 R2", "reset;draw")
    assert code == 1 and data["error"]["code"] == "turn.draws_done"


@pytest.mark.parametrize(
    "commands",
    [
        "meld R1 R2 R3|R10 R11 R12;done",
        "meld R1 R2 R3 ;R10 R11 R12\ndone",
        "meld R1 R2 R3\nR10 R11 R12|done",
    ],
)
def test_rummikub_melds_and_commands_with_any_separator(capsys, commands):
    code, data = turn_json(
        capsys, "--rules", "rummikub", "--hand", "R1 R2 R3 R10 R11 R12 B7 B8 B9 K1", commands
    )
    assert code == 0, data
    assert data["table"] == [["R1", "R2", "R3"], ["R10", "R11", "R12"]]
    assert data["hand"] == ["B7", "B8", "B9", "K1"]


def test_tile_turn_function_reads_the_first_verb_through_separators():
    rules = preset("stein")
    assert tile_turn(rules, "", "B4 R1 R2", False, "draw;draw;discard B4")["ok"] is True


# ---------------------------------------------------------------------- defect 11: words


@pytest.mark.parametrize(
    ("lang", "fragments"),
    [
        ("en", ['"done" is a command word', '"meld R1 R2 R3 done"', "e.g. meld R1 R2 R3; done"]),
        ("de", ['"done" ist ein Befehlswort', "trennen", "z. B. meld R1 R2 R3; done"]),
    ],
)
def test_missing_separator_through_rummy_turn(capsys, lang, fragments):
    argv = ["--rules", "rummikub", "--hand", "R1 R2 R3 B5", "--opened", "--lang", lang]
    code, data = turn_json(capsys, *argv, "meld R1 R2 R3 done")
    assert code == 1
    assert data["ok"] is False and data["table"] is None and data["hand"] is None
    assert data["error"]["code"] == "parse.missing_separator"
    for fragment in fragments:
        assert fragment in data["error"]["message"]
    assert "colour" not in data["error"]["message"]


def test_missing_separator_in_text_output(capsys):
    argv = ["turn", "--rules", "stein", "--hand", "R1 R2 R3 B5", "--lang", "de"]
    code, out = run(capsys, *argv, "meld R1 R2 R3 discard B5")
    assert code == 1
    assert out.startswith('abgelehnt: "discard" ist ein Befehlswort')
    assert out.rstrip().endswith("[parse.missing_separator]")


@pytest.mark.parametrize(
    ("rules", "hand", "commands", "en", "de"),
    [
        (
            "stein",
            "R1 R2 R3 B5",
            "meld R1 R2 R3",
            "The turn did not end: finish with done or discard PIECE.",
            "Der Zug ist nicht zu Ende: schließe ihn mit done oder discard STEIN ab.",
        ),
        (
            "rummikub",
            "R10 R11 R12 R13 B5",
            "meld R10 R11 R12",
            "The turn did not end: finish with done.",
            "Der Zug ist nicht zu Ende: schließe ihn mit done ab.",
        ),
    ],
)
def test_turn_unfinished_in_both_languages(capsys, rules, hand, commands, en, de):
    argv = ["--rules", rules, "--hand", hand, "--opened"]
    code, data = turn_json(capsys, *argv, commands)
    assert code == 1 and data["error"] == {"code": "turn.unfinished", "message": en}
    code, data = turn_json(capsys, *argv, "--lang", "de", commands)
    assert code == 1 and data["error"] == {"code": "turn.unfinished", "message": de}


def test_tile_errors_follow_lang(capsys):
    argv = ["--rules", "rummikub", "--hand", "R1 R2 B5", "--opened", "--lang", "de"]
    code, data = turn_json(capsys, *argv, "meld R1 R2; done")
    assert code == 1
    assert data["error"]["code"] == "meld.too_short"
    assert "mindestens 3" in data["error"]["message"]
    code, data = turn_json(capsys, *argv, "meld R1 R14")
    assert data["error"]["code"] == "parse.piece"
    assert data["error"]["message"] == '"R14": Wert muss 1-13 sein'


def test_text_output_in_german(capsys):
    argv = ["turn", "--rules", "rummikub", "--hand", "R10 R11 R12 B5", "--lang", "de"]
    code, out = run(capsys, *argv, "meld R10 R11 R12;done")
    assert code == 0
    assert out.splitlines() == ["angenommen", "Tisch: R10 R11 R12", "Hand:  B5"]


# ---------------------------------------------------------------------- rummy validate


@pytest.mark.parametrize("sep", ["|", " | ", ";", "; ", "\n"])
def test_validate_several_melds_with_any_separator(capsys, sep):
    code, out = run(capsys, "validate", "--rules", "rummikub", "--json", f"R5 J R7{sep}B9 Y9 K9")
    assert code == 0
    data = json.loads(out)
    assert data["valid"] is True and data["kind"] is None and data["value"] == 18 + 27
    assert [m["kind"] for m in data["melds"]] == ["run", "group"]


def test_validate_names_the_invalid_meld_in_the_language_asked(capsys):
    argv = ["validate", "--rules", "rummikub", "--json"]
    code, out = run(capsys, *argv, "--lang", "de", "R5 R6 R7|B1 B2")
    assert code == 1
    data = json.loads(out)
    assert data["valid"] is False and data["value"] is None
    assert data["reason"].startswith("Kombination 2: B1 B2: ")
    assert "mindestens 3" in data["reason"]
    assert [m["valid"] for m in data["melds"]] == [True, False]
    code, out = run(capsys, *argv, "R5 R6 R7|B1 B2")
    assert json.loads(out)["reason"].startswith("Meld 2: B1 B2: a meld needs at least 3")


def test_validate_one_meld_keeps_its_contract(capsys):
    code, out = run(capsys, "validate", "--rules", "rummikub", "--json", "R5 J R7")
    assert code == 0
    assert json.loads(out) == {"valid": True, "kind": "run", "value": 18, "reason": None}
    code, out = run(capsys, "validate", "--rules", "rummikub", "--lang", "de", "R5 J R7")
    assert out.strip() == "gültig: Reihe im Wert von 18: R5 J R7"


def test_validate_cards_in_german(capsys):
    code, out = run(capsys, "validate", "--rules", "romme", "--json", "--lang", "de", "QH KH AH;9S")
    assert code == 1
    data = json.loads(out)
    assert data["melds"][0] == {"valid": True, "kind": "run", "value": 31, "reason": None}
    assert data["reason"].startswith("Kombination 2: ")
    code, out = run(capsys, "validate", "--rules", "romme", "--json", "--lang", "de", "QH KH AX")
    assert json.loads(out)["reason"].startswith('"AX": ')
    assert "Farbe" in json.loads(out)["reason"]


@pytest.mark.parametrize("rules", ["romme", "rummy"])
def test_card_turn_errors_follow_lang(capsys, rules):
    argv = ["--rules", rules, "--hand", "9C 9H 9S 3D", "--opened"]
    code, data = turn_json(capsys, *argv, "--lang", "de", "meld 9C 9H 9S")
    assert code == 1
    assert data["error"] == {
        "code": "turn.unfinished",
        "message": "Der Zug ist nicht zu Ende: schließe ihn mit discard KARTE ab.",
    }
    code, data = turn_json(capsys, *argv, "meld 9C 9H 9S")
    assert data["error"]["message"] == "The turn did not end: finish with discard CARD."
    code, data = turn_json(capsys, *argv, "--lang", "de", "meld 9C 9H 9S discard 3D")
    assert data["error"]["code"] == "parse.missing_separator"
    assert data["error"]["message"].startswith('"discard" ist ein Befehlswort')
    code, data = turn_json(capsys, *argv, "--lang", "de", "meld 9C 9H 9S|discard 3D")
    assert code == 0 and data["hand"] == []


def test_stein_pick_from_the_discard_stock(capsys):
    argv = ["--rules", "stein", "--hand", "R1 R2", "--discards", "B4 K9"]
    code, data = turn_json(capsys, *argv, "draw;pick B4;discard B4")
    assert code == 0 and len(data["hand"]) == 3
    code, data = turn_json(capsys, *argv, "--lang", "de", "draw|pick B4|pick K9")
    assert code == 1 and data["error"]["code"] == "turn.one_pick"
    assert "Alt-Bestand" in data["error"]["message"]


CARD_POSITION = ["--hand", "9C 9H 9S 3D", "--discards", "5H 4D", "--pool", "KS QS"]


def test_card_positions_with_discards_talon_and_before_the_draw(capsys):
    argv = ["--rules", "romme", *CARD_POSITION, "--before-draws"]
    code, data = turn_json(capsys, *argv, "draw;discard 3D")
    assert code == 0 and sorted(data["hand"]) == ["9C", "9H", "9S", "QS"]  # QS: the talon's top
    code, data = turn_json(capsys, *argv, "--lang", "de", "hint")
    assert code == 0 and data["command"] == "draw" and data["hint"].startswith("Nimm zuerst")
    code, data = turn_json(capsys, *argv, data["command"] + "; discard 3D")
    assert code == 0
    code, data = turn_json(capsys, "--rules", "rummy", *CARD_POSITION, "pick 4D|discard 4D")
    assert code == 1 and data["error"]["code"] == "cards.discard_picked"


def test_pool_is_for_card_positions(capsys):
    argv = ["turn", "--rules", "stein", "--hand", "R1 R2 B4", "--pool", "R5"]
    assert main([*argv, "discard B4"]) == 2
    assert "--pool" in capsys.readouterr().err
    assert main([*argv, "--lang", "de", "discard B4"]) == 2
    assert "Kartenspiele" in capsys.readouterr().err


def test_score_errors_follow_lang(capsys):
    argv = ["score", "--rules", "stein_plus", "--left", "", "--left", "R1", "--left", "R2 R3"]
    assert main([*argv, "--claims", "1,x,0", "--lang", "de"]) == 2
    assert "ganze Zahlen" in capsys.readouterr().err
    assert main([*argv, "--left", "", "--lang", "de"]) == 1
    assert "nur eine Person" in capsys.readouterr().err
    assert main([*argv, "--claims", "1,0,0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"points": [5, 3, 2]}  # SMP 4/3/2 + a claim


# ---------------------------------------------------------------------- hint through rummy turn

HINT_POSITIONS = [
    ("rummikub", "", "R10 R11 R12 B5", True),
    ("rummikub", "", "R10 R11 R12 B5", False),
    ("rummikub", "R4 R5 R6 | B9 Y9 K9", "R7 R3 K1", True),
    ("rummikub", "R4 J R6", "R5 B7 B8 B9", True),
    ("stein", "", "R10 R11 R12 B5", False),
    ("stein", "R4 R5 R6", "R7 B1 B2 B3 K9", True),
    ("stein_plus", "B9 Y9 K9", "R9 R1 R2 R3 K5", True),
]


@pytest.mark.parametrize(("rules", "table", "hand", "opened"), HINT_POSITIONS)
def test_a_hint_typed_back_through_rummy_turn_is_accepted(capsys, rules, table, hand, opened):
    argv = ["--rules", rules, "--table", table, "--hand", hand] + (["--opened"] if opened else [])
    code, data = turn_json(capsys, *argv, "hint")
    assert code == 0 and data["ok"] is True, data
    assert data["command"] and data["hint"].endswith(data["command"])
    code, played = turn_json(capsys, *argv, data["command"])
    assert code == 0, (data["command"], played)
    assert played["ok"] is True


def test_stein_hint_before_the_draws(capsys):
    argv = ["--rules", "stein", "--hand", "R10 R11 R12 B5", "--before-draws"]
    code, data = turn_json(capsys, *argv, "--lang", "de", "hint")
    assert code == 0 and data["command"] == "draw; draw"
    assert data["hint"].startswith("Zuerst ziehen")
    code, data = turn_json(capsys, *argv, "reset; draw")
    assert code == 1 and data["error"]["code"] == "turn.unfinished"  # drew one, not two


def test_a_hint_after_changes_shows_the_working_table(capsys):
    argv = ["--rules", "rummikub", "--table", "R4 R5 R6", "--hand", "R7 B1", "--opened"]
    code, data = turn_json(capsys, *argv, "add 1 R7; hint")
    assert code == 0
    assert data["table"] == [["R4", "R5", "R6", "R7"]] and data["hand"] == ["B1"]
    code, played = turn_json(capsys, *argv, "add 1 R7; " + data["command"])
    assert code == 0 and played["ok"] is True


def test_a_hint_in_the_middle_does_not_end_the_turn(capsys):
    argv = ["--rules", "rummikub", "--hand", "R10 R11 R12 B5"]
    code, data = turn_json(capsys, *argv, "hint; meld R10 R11 R12")
    assert code == 1 and data["error"]["code"] == "turn.unfinished"


def test_validate_several_melds_text_and_a_bad_piece(capsys):
    code, out = run(capsys, "validate", "--rules", "stein", "R12 R13 R1|B9 Y9 K9")
    assert code == 0 and out.strip() == "valid: 2 melds worth 53"
    code, out = run(capsys, "validate", "--rules", "stein", "--json", "R12 R13 R1;X9 Y9 K9")
    data = json.loads(out)
    assert code == 1 and data["reason"].startswith('Meld 2: "X9": colour must be')
    assert data["melds"][0]["valid"] is True


@pytest.mark.parametrize(
    ("rules", "table", "hand", "opened"),
    [
        ("romme", "", "QH KH AH JS JD JC 4S", False),
        ("romme", "5D 6D 7D", "8D 4C 4H 4S KS", True),
        ("rummy", "5D 6D 7D", "8D 4C 4H 4S KS", False),
    ],
)
def test_a_card_hint_typed_back_through_rummy_turn_is_accepted(capsys, rules, table, hand, opened):
    argv = ["--rules", rules, "--table", table, "--hand", hand] + (["--opened"] if opened else [])
    code, data = turn_json(capsys, *argv, "hint")
    assert code == 0 and data["hint"].endswith(data["command"]), data
    code, played = turn_json(capsys, *argv, data["command"])
    assert code == 0 and played["ok"] is True, (data["command"], played)
