"""Issue 13, tile rules: each defect as the class of defect it is, through the engine and through
`rummy turn` (RULES.md "Common ground", "Preset stein", "Preset stein_plus", "Preset rummikub")."""

import json

import pytest

from bot.rummy_cli import main
from engine.errors import RummyError
from engine.game import load_game
from engine.melds import joker_meanings, positional_reading
from engine.pieces import parse_faces
from engine.rules import preset
from engine.scoring import stein_match_points, stein_plus_match_points
from i18n import error_text

from .helpers import game, hand, rejects, table


def turn(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["turn", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def pieces_everywhere(g) -> list[int]:
    """Every piece id of the game, wherever it is (the mover's working copy included)."""
    ids = [i for m in g.turn.table for i in m.ids] + list(g.turn.rack) + g.pool + g.discards
    ids += [i for s, r in enumerate(g.racks) if s != g.current for i in r]
    return sorted(ids)


# ---------------------------------------------------------------- 1: undo restores exactly

UNDO_CASES = [
    ("rummikub", "R10 R11 R12 R13", "R1 R2 R3 B1", "move 1 R13 > new"),
    ("rummikub", "R10 R11 R12 R13 | B5 B6 B7", "R1", "move 1 R13 > 2"),
    ("rummikub", "R10 R11 R12 R13 | B5 B6 B7", "R1", "move 1 R10 R11 R12 R13 > 2"),
    ("rummikub", "R1 R2 R3 R4 R5 R6", "B1", "split 1 R4"),
    ("rummikub", "R1 R2 R3 | R4 R5 R6", "B1", "join 1 2"),
    ("rummikub", "R1 R2 R3", "R4 B1", "add 1 R4"),
    ("rummikub", "B2 B3 B4 B5 B6", "B4 R1", "add 1 B4"),
    ("rummikub", "R4 J R6", "R5 B1", "swap 1 R5"),
    ("rummikub", "R1 R2 R3", "R4 R5 R6 B1", "meld R4 R5 R6"),
    ("rummikub", "R1 R2 R3", "R4 B1", "place R4"),
    ("rummikub", "R1 R2 R3", "R4 B1", "add 1 R4; reset"),
    ("stein", "R1 R2 R3 R4 | B5 B6 B7", "K1 K2", "move 1 R4 > 2"),
    ("stein", "R1 R2 R3 R4", "K1 K2", "move 1 R4 > new"),
    ("stein", "R1 R2 R3 R4", "J K2", "take 1 R4"),
    ("stein", "R12 R13 J", "R1 K2", "swap 1 R1"),
    ("stein_plus", "R7 B7 Y7", "K7 K2", "add 1 K7; claim 1"),
]


@pytest.mark.parametrize(("name", "tables", "rack", "commands"), UNDO_CASES)
def test_undo_after_each_kind_of_command_restores_the_json_exactly(name, tables, rack, commands):
    g = game(name, tables, rack)
    everything = pieces_everywhere(g)
    *first, last = commands.split("; ")
    if first:
        g.apply(0, "; ".join(first))
    before = g.to_json()
    g.apply(0, last)
    assert g.to_json() != before
    assert pieces_everywhere(g) == everything
    g.apply(0, "undo")
    assert g.to_json() == before
    assert load_game(g.to_json()).to_json() == before


def test_undo_steps_back_one_command_at_a_time():
    g = game("rummikub", "R10 R11 R12 R13 | B5 B6 B7", "R9 B1")
    states = [g.to_json()]
    for command in ["move 1 R13 > new", "move 1 R12 > 3", "add 1 R9", "split 1 R11"]:
        g.apply(0, command)
        states.append(g.to_json())
    for state in reversed(states[:-1]):
        g.apply(0, "undo")
        assert g.to_json() == state
    rejects(g, "undo", "turn.nothing_to_undo")


def test_undo_after_move_keeps_every_tile_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--hand",
        "R10 R11 R12 R13 B1",
        "meld R10 R11 R12 R13; move 1 R13 > new; undo; done",
    )
    assert code == 0, data
    assert data["table"] == [["R10", "R11", "R12", "R13"]]
    assert data["hand"] == ["B1"]
    code, data = turn(
        capsys,
        "--rules",
        "stein",
        "--table",
        "R1 R2 R3 R4 | B5 B6 B7",
        "--hand",
        "K9 K1",
        "--opened",
        "move 1 R4 > 2; undo; discard K9",
    )
    assert code == 0, data
    assert data["table"] == [["R1", "R2", "R3", "R4"], ["B5", "B6", "B7"]]
    assert data["hand"] == ["K1"]


# ---------------------------------------------------------------- 2: claims end only by unclaim


def claimed(name: str, tables: str, *hands: str, seat: int = 0, meld: int = 0):
    g = game(name, tables, *hands, opened=(True, True, True))
    g.table[meld].claim = seat
    g.turn.table[meld].claim = seat
    return g


def test_place_keeps_the_players_own_claim_and_its_mp():
    g = claimed("stein_plus", "R7 B7 Y7 K7 | R1 R2 R3", "R4 B9", "Y1 Y2", "Y3 Y4")
    g.apply(0, "place R4")
    assert g.turn.table[0].claim == 0
    g.apply(0, "discard B9")
    assert g.status == "finished"
    assert g.result.details["claims"] == [1, 0, 0]
    assert g.result.points == [4 + 1, 2.5, 2.5]


def test_place_keeps_a_claim_even_when_the_solver_could_use_its_tiles():
    # K7 of the claim would complete the run K5 K6 _ with the rack's K8: only unclaim allows it
    g = claimed("stein_plus", "R7 B7 Y7 K7 | K5 K6", "K8 B9", "Y1")
    with pytest.raises(RummyError):
        g.apply(0, "place K8")
    assert g.turn.table[0].claim == 0


def test_no_command_but_unclaim_ends_a_claim():
    g = claimed("stein_plus", "R7 B7 Y7 K7 | R1 R2 R3", "B1 B2", "Y1")
    rejects(g, "join 2 1", "claim.dissolve_first")
    rejects(g, "move 1 R7 B7 Y7 K7 > new", "claim.dissolve_first")
    rejects(g, "move 1 R7 B7 Y7 K7 > 2", "claim.dissolve_first")
    g.apply(0, "unclaim 1; join 2 1")
    assert g.turn.table[0].claim is None


def test_others_cannot_change_a_claim_through_place():
    g = claimed("stein_plus", "R7 B7 Y7 K7 | K5 K6", "K8 B9", "Y1", seat=1)
    with pytest.raises(RummyError):
        g.apply(0, "place K8")
    assert g.turn.table[0].claim == 1


# ---------------------------------------------------------------- 3: jokers read by position


def test_joker_meanings_are_read_where_the_joker_sits():
    linear, wrap = preset("rummikub").meld_spec, preset("stein").meld_spec
    assert joker_meanings(parse_faces("R4 R5 J"), linear) == set(parse_faces("R6"))
    assert joker_meanings(parse_faces("J R4 R5"), linear) == set(parse_faces("R3"))
    assert joker_meanings(parse_faces("R12 R13 J"), wrap) == set(parse_faces("R1"))
    assert joker_meanings(parse_faces("R4 J R6"), linear) == set(parse_faces("R5"))
    assert joker_meanings(parse_faces("R5 B5 J"), linear) == set(parse_faces("Y5 K5"))
    assert positional_reading(parse_faces("R4 J R5"), linear) is None


@pytest.mark.parametrize(
    ("name", "tables", "wrong", "right"),
    [
        ("rummikub", "R4 R5 J", "R3", "R6"),
        ("rummikub", "J R4 R5", "R6", "R3"),
        ("stein", "R12 R13 J", "R11", "R1"),
        ("stein", "J R1 R2", "R3", "R13"),
        ("stein", "R3 J R5 R6", "R7", "R4"),
    ],
)
def test_swap_frees_a_joker_only_with_the_tile_of_its_place(name, tables, wrong, right):
    g = game(name, tables, f"{wrong} {right} B9 B10 B11")
    err = rejects(g, f"swap 1 {wrong}", "joker.wrong_piece")
    assert right in error_text(err, "en") and right in error_text(err, "de")
    g.apply(0, f"swap 1 {right}")
    assert "J" in hand(g)


def test_swap_of_the_wrong_tile_is_refused_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R4 R5 J",
        "--hand",
        "R3 B1 B2",
        "--opened",
        "swap 1 R3; meld J B1 B2; done",
    )
    assert code == 1
    assert data["error"]["code"] == "joker.wrong_piece"
    assert "R6" in data["error"]["message"]
    code, data = turn(
        capsys,
        "--rules",
        "stein",
        "--table",
        "R12 R13 J",
        "--hand",
        "R11 K5",
        "--opened",
        "swap 1 R11; discard K5",
    )
    assert code == 1 and data["error"]["code"] == "joker.wrong_piece"


def test_take_puts_the_joker_exactly_where_the_tile_was():
    g = game("stein", "R4 R5 R6 R7", "J K1")
    g.apply(0, "take 1 R4")
    assert table(g, working=True) == ["J R5 R6 R7"]
    g.apply(0, "swap 1 R4")  # the joker now stands for R4 and for nothing else
    assert table(g, working=True) == ["R4 R5 R6 R7"]


# ---------------------------------------------------------------- 4: joker melds are not split

LOCKED = "R3 R4 J R6 R7 R8 R9"


@pytest.mark.parametrize(
    "commands",
    [
        "move 1 R7 R8 R9 > new",
        "move 1 R9 > 2",
        "move 1 R3 > new",
        "add 1 R7",
        "split 1 R6",
        "move 1 R7 R8 R9 > new; meld B1 B2 B3",
    ],
)
def test_a_rummikub_meld_holding_a_joker_is_not_split_by_any_command(commands):
    g = game("rummikub", f"{LOCKED} | K1 K2 K3", "R7 B1 B2 B3")
    rejects(g, commands, "joker.locked_meld")


def test_a_joker_meld_may_grow_and_be_joined():
    g = game("rummikub", f"{LOCKED} | R10 R11 R12", "R2 B1")
    g.apply(0, "add 1 R2; join 1 2; done")
    assert table(g) == ["R2 R3 R4 J R6 R7 R8 R9 R10 R11 R12"]


def test_without_the_option_a_joker_meld_may_be_split():
    rules = preset("rummikub").with_options(joker_meld_no_split=False)
    from engine.tiles import TileGame

    g = TileGame.position(rules, LOCKED, ["R10 B1"], opened=[True])
    g.apply(0, "move 1 R7 R8 R9 > new; add 2 R10; done")
    assert table(g) == ["R3 R4 J R6", "R7 R8 R9 R10"]


def test_split_of_a_joker_meld_is_refused_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        LOCKED,
        "--hand",
        "R7 B1",
        "--opened",
        "add 1 R7; done",
    )
    assert code == 1 and data["error"]["code"] == "joker.locked_meld"
    assert "Meld 1" in data["error"]["message"]


# ---------------------------------------------------------------- 5: a freed joker goes into a new meld


def test_adding_the_tile_a_joker_stands_for_does_not_move_the_joker():
    g = game("rummikub", "R4 J R6", "R5 B1 B2")
    err = rejects(g, "add 1 R5", "joker.meaning_changed")
    assert "R5" in error_text(err, "en") and "swap 1" in error_text(err, "en")
    assert "swap 1" in error_text(err, "de")


@pytest.mark.parametrize(
    ("commands", "code"),
    [
        ("swap 1 R5; add 1 J R7; done", "joker.freed_not_new"),  # back into its own meld
        ("swap 1 R5; add 2 J; done", "joker.freed_unused"),  # no rack tile with it
        ("swap 1 R5; add 2 J K4; done", "joker.freed_not_new"),  # an existing meld
        ("swap 1 R5; done", "joker.freed_unused"),  # left on the rack
    ],
)
def test_a_freed_rummikub_joker_must_go_into_a_new_meld_with_rack_tiles(commands, code):
    g = game("rummikub", "R4 J R6 | K1 K2 K3", "R5 R7 K4 B1 B2")
    rejects(g, commands, code)


def test_a_freed_joker_in_a_new_meld_with_rack_tiles_is_accepted():
    g = game("rummikub", "R4 J R6 | K1 K2 K3", "R5 B1 B2 Y9")
    g.apply(0, "swap 1 R5; meld B1 B2 J; done")
    assert table(g) == ["R4 R5 R6", "K1 K2 K3", "B1 B2 J"]
    # a new meld may also hold table tiles (source text 002, example 4)
    g = game("rummikub", "R4 J R6 | K1 K2 K3 K4", "R5 B4 Y9")
    g.apply(0, "swap 1 R5; move 2 K4 > new; add 3 B4 J; done")
    assert sorted(table(g)) == ["B4 K4 J", "K1 K2 K3", "R4 R5 R6"]


def test_a_freed_joker_back_into_an_old_meld_is_refused_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R4 J R6",
        "--hand",
        "R5 R7 B1",
        "--opened",
        "swap 1 R5; add 1 J R7; done",
    )
    assert code == 1 and data["error"]["code"] == "joker.freed_not_new"
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R4 J R6",
        "--hand",
        "R5 B1",
        "--opened",
        "add 1 R5; done",
    )
    assert code == 1 and data["error"]["code"] == "joker.meaning_changed"


def test_a_stein_group_joker_stays_a_joker_of_its_value():
    g = game("stein", "R5 B5 J | R2 R3 R4", "Y1 Y2")
    # the group joker would become R6 of a run: it is freed only by the missing fourth tile
    err = rejects(g, "move 1 B5 > new; move 2 R2 R3 R4 > 1", "joker.meaning_changed")
    assert "5" in error_text(err, "en") and "R6" in error_text(err, "en")
    rejects(g, "move 1 J > 2", "joker.cannot_move")


# ---------------------------------------------------------------- 7: a claim formed on the table


def test_a_claim_may_be_formed_on_the_table_by_rearranging():
    g = game("stein_plus", "R7 B7 Y7 | K7 K8 K9 K10", "B1 B2", "Y1", "Y2")
    g.apply(0, "move 2 K7 > 1; claim 1; discard B1")
    assert g.table[0].claim == 0
    assert sorted(table(g)[0].split()) == ["B7", "K7", "R7", "Y7"]


def test_a_group_that_lay_on_the_table_unchanged_is_not_claimed():
    g = game("stein_plus", "R7 B7 Y7 K7", "B1", "Y1", "Y2")
    err = rejects(g, "claim 1", "claim.not_formed")
    assert "start of your turn" in error_text(err, "en")
    assert "Zuges" in error_text(err, "de")


def test_a_claim_formed_on_the_table_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "stein_plus",
        "--table",
        "R7 B7 Y7 | K7 K8 K9 K10",
        "--hand",
        "B1 B2",
        "--opened",
        "move 2 K7 > 1; claim 1; discard B1",
    )
    assert code == 0, data
    assert data["hand"] == ["B2"]


# ---------------------------------------------------------------- 8: Stein Plus SMP 4/3/2/1


@pytest.mark.parametrize(
    ("left", "winner", "expected"),
    [
        ([0, 1, 2], 0, [4, 3, 2]),
        ([0, 1, 2, 3], 0, [4, 3, 2, 1]),
        ([2, 0, 2], 1, [2.5, 4, 2.5]),
        ([0, 3], 0, [4, 3]),
        ([1, 2, 3], None, [3, 2, 1]),
        ([1, 2, 3, 4], None, [3, 2, 1, 0]),
    ],
)
def test_stein_plus_game_points_for_any_number_of_players(left, winner, expected):
    assert stein_plus_match_points(left, winner, [0] * len(left)) == expected


def test_plain_stein_keeps_n_plus_1_minus_k():
    assert stein_match_points([0, 1, 2], 0) == [3, 2, 1]
    assert stein_match_points([0, 1, 2, 3], 0) == [4, 3, 2, 1]


def test_stein_plus_first_round_split_gives_the_winner_4():
    points = stein_plus_match_points(
        [0, 4, 5], 0, [0, 0, 0], first_round_out="split", first_round=True
    )
    assert points == [4, 2.5, 2.5]


def test_stein_plus_scores_through_rummy_score(capsys):
    code = main(
        [
            "score",
            "--rules",
            "stein_plus",
            "--left",
            "",
            "--left",
            "R1",
            "--left",
            "R1 R2",
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out) == {"points": [4, 3, 2]}
    main(["score", "--rules", "stein", "--left", "", "--left", "R1", "--left", "R1 R2", "--json"])
    assert json.loads(capsys.readouterr().out) == {"points": [3, 2, 1]}


# ---------------------------------------------------------------- 11: messages


def test_an_invalid_rearrangement_without_a_rack_tile_names_the_meld():
    g = game("rummikub", "R1 R2 R3 R4", "B9")
    err = rejects(g, "move 1 R4 > new; done", "turn.invalid_table")
    assert "Meld 2" in error_text(err, "en") and "Kombination 2" in error_text(err, "de")
    g = game("rummikub", "R1 R2 R3 R4 R5 R6", "B9")
    rejects(g, "move 1 R4 > new; move 2 R4 > 1; done", "turn.nothing_played")
    err = rejects(g, "split 1 R4; done", "turn.nothing_played_changed")
    assert "reset" in error_text(err, "en") and "reset" in error_text(err, "de")


def test_an_invalid_rearrangement_is_named_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R1 R2 R3 R4",
        "--hand",
        "B9",
        "--opened",
        "--lang",
        "de",
        "move 1 R4 > new; done",
    )
    assert code == 1 and data["error"]["code"] == "turn.invalid_table"
    assert "Kombination 2" in data["error"]["message"]


def test_counts_in_tile_messages_take_the_right_number():
    rules = preset("stein").with_options(draws_per_turn=1)
    from engine.tiles import TileGame

    g = TileGame.position(rules, "", ["B1 B2"])
    err = rejects(g, "draw", "turn.draws_done")
    assert "(1 tile)" in error_text(err, "en") and "(1 Stein)" in error_text(err, "de")
    g = game("stein", "", "B1 B2")
    assert "(2 tiles)" in error_text(rejects(g, "draw", "turn.draws_done"), "en")


# ---------------------------------------------------------------- 13: tile count, last discard from the table


def test_the_tile_game_has_108_tiles_or_106_with_two_jokers():
    rules = preset("rummikub")
    assert len(rules.deck(4)) == 108
    assert len(rules.with_options(pool_jokers=2).deck(4)) == 106
    assert sum(1 for f in rules.deck(2).faces if f.is_joker) == 4


def test_a_player_who_laid_every_tile_discards_a_table_tile_and_is_out():
    g = game("stein", "R1 R2 R3 R4 | B5 B6 B7", "K9 K10 K11", "Y1", "Y2")
    g.apply(0, "meld K9 K10 K11; discard R4")
    assert g.status == "finished" and g.result.winner == 0
    assert table(g) == ["R1 R2 R3", "B5 B6 B7", "K9 K10 K11"]
    assert str(g.deck[g.discards[-1]]) == "R4"


def test_a_table_discard_must_leave_every_meld_valid():
    g = game("stein", "R1 R2 R3 R4 | B5 B6 B7", "K9 K10 K11", "Y1", "Y2")
    err = rejects(g, "meld K9 K10 K11; discard R2", "turn.discard_breaks")
    assert "R2" in error_text(err, "en") and "R2" in error_text(err, "de")
    rejects(g, "meld K9 K10 K11; discard B5", "turn.discard_breaks")
    rejects(g, "meld K9 K10 K11; discard Y13", "piece.not_on_table")
    # with tiles left in the hand the discard comes from the hand
    rejects(g, "discard R4", "piece.not_in_rack")


def test_a_table_discard_names_the_meld_when_asked():
    g = game("stein", "R1 R2 R3 R4 | R4 R5 R6 R7", "K9 K10 K11", "Y1", "Y2")
    g.apply(0, "meld K9 K10 K11; discard 2 R4")
    assert g.status == "finished"
    assert table(g)[:2] == ["R1 R2 R3 R4", "R5 R6 R7"]
    g2 = game("stein", "R1 R2 R3 R4", "B1", "Y1", "Y2")
    err = rejects(g2, "discard 1 R4", "turn.discard_from_hand")
    assert "1 tile" in error_text(err, "en") and "1 Stein" in error_text(err, "de")
    g3 = game("stein", "R1 R2 R3 R4", "B1 B2", "Y1", "Y2")
    assert "2 tiles" in error_text(rejects(g3, "discard 1 R4", "turn.discard_from_hand"), "en")


def test_a_table_discard_keeps_the_rules_of_touching_the_table():
    # a claim would break, a table joker is not freed by being discarded, others' claims
    g = claimed("stein_plus", "R7 B7 Y7 K7 | R1 R2 R3 J", "K9 K10 K11", "Y1", "Y2")
    rejects(g, "meld K9 K10 K11; discard 1 K7", "claim.broken")
    rejects(g, "meld K9 K10 K11; discard 2 J", "joker.cannot_move")
    g.apply(0, "meld K9 K10 K11; discard R1")
    assert g.status == "finished" and g.result.details["claims"] == [1, 0, 0]
    # before opening, tiles that lay on the table are not touched
    g = game("stein", "R1 R2 R3 R4", "K9 K10 K11", "Y1", "Y2", opened=(False,))
    rejects(g, "meld K9 K10 K11; discard R4", "opening.table_locked")


def test_a_table_discard_through_rummy_turn(capsys):
    code, data = turn(
        capsys,
        "--rules",
        "stein",
        "--table",
        "R1 R2 R3 R4",
        "--hand",
        "K9 K10 K11",
        "--opened",
        "meld K9 K10 K11; discard R4",
    )
    assert code == 0, data
    assert data["hand"] == []
    assert data["table"] == [["R1", "R2", "R3"], ["K9", "K10", "K11"]]


def test_place_keeps_the_joker_rules():
    # a joker meld is only extended; freeing its joker into its own meld is refused
    g = game("rummikub", LOCKED, "R7 K7 R10")
    g.apply(0, "place R10")
    assert table(g, working=True)[0] == f"{LOCKED} R10"
    g = game("rummikub", "R4 J R6", "R5 B1")
    err = rejects(g, "place R5", "place.impossible")
    assert "joker" in error_text(err, "en") and "Joker" in error_text(err, "de")
    # where a legal play exists, place makes the swap itself: the freed joker in a new meld
    # with the rack tile that freed it (docs/DECISIONS.md, Rummikub "Freed jokers")
    g = game("rummikub", LOCKED, "R5 B1")
    g.apply(0, "place R5; done")
    assert table(g) == ["R6 R7 R8 R9", "J R3 R4 R5"]
    # a freed joker placed by place goes into a new meld with rack tiles, never an old meld
    g = game("rummikub", "R4 J R6 | K1 K2 K3", "R5 K4 K5")
    g.apply(0, "swap 1 R5; place J K4 K5; done")
    assert table(g) == ["R4 R5 R6", "K1 K2 K3", "K4 K5 J"]
    g = game("rummikub", "R4 J R6 | K1 K2 K3", "R5 K4")
    g.apply(0, "swap 1 R5")
    err = rejects(g, "place J K4", "place.impossible")
    assert "K1 K2 K3" in error_text(err, "en")


def test_draw_first_counts_what_the_stocks_can_give():
    from engine.tiles import TileGame

    g = TileGame.position(preset("stein"), "", ["B1 B2"], discards="Y3", draws_done=False)
    g.pool.clear()  # only the one discard can be taken
    err = rejects(g, "meld B1 B2 B3", "turn.draw_first")
    assert "0 of 1" in error_text(err, "en") and "0 von 1" in error_text(err, "de")


def test_a_stein_gap_is_named_round_the_corner():
    spec = preset("stein").meld_spec
    from engine.melds import explain_invalid

    for text, gap in [
        ("K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 K2 K3", "K1"),
        ("K12 K13 K3", "K1"),
    ]:
        err = explain_invalid(parse_faces(text), spec, 1)
        assert err.code == "meld.run_gap" and f"gap at {gap} " in error_text(err, "en")


def test_an_unclaimed_claim_may_be_claimed_again_in_the_same_turn():
    g = claimed("stein_plus", "R7 B7 Y7 K7", "B1 B2", "Y1")
    g.apply(0, "unclaim 1; claim 1; discard B1")
    assert g.table[0].claim == 0
