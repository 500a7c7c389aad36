"""An independent audit of the tile rules of issue 13 (RULES.md "Common ground", "Preset stein",
"Preset stein_plus", "Preset rummikub"): new cases for every defect class - other values, other
meld positions, jokers at the start, middle and end, two jokers, the 13-1 corner, long runs,
options - through the engine and through `rummy turn`. Every command of every case is checked
on its own too: a refused command leaves ``to_json()`` as it was, no piece is lost or doubled,
and ``undo`` right after an accepted table command restores the JSON exactly."""

import json
from itertools import combinations

import pytest

from bot.rummy_cli import main
from engine.errors import RummyError
from engine.game import load_game, new_game
from engine.rules import preset
from engine.scoring import stein_match_points, stein_plus_match_points
from engine.tiles import UNDOABLE, TileGame
from i18n import error_text

from .helpers import table


def position(name: str, tables: str, *hands: str, opened=True, claims=(), options=None):
    rules = preset(name).with_options(**(options or {}))
    n = max(len(hands), rules.min_players)
    g = TileGame.position(rules, tables, list(hands), opened=[opened] * n)
    for meld, seat in claims:
        g.table[meld].claim = seat
        g.turn.table[meld].claim = seat
    return g


def everything(g: TileGame) -> list[int]:
    ids = [i for m in g.turn.table for i in m.ids] + list(g.turn.rack) + g.pool + g.discards
    return sorted(ids + [i for s, r in enumerate(g.racks) if s != g.current for i in r])


def play(g: TileGame, text: str, seat: int = 0) -> RummyError | None:
    """Run the message as a whole on a copy, then command by command, checking after each:
    a refusal changes nothing, pieces are conserved, ``undo`` restores the JSON exactly.
    Returns the refusal (the same one both ways) or None."""
    whole = load_game(g.to_json())
    try:
        whole.apply(seat, text)
        whole_code = None
    except RummyError as err:
        whole_code = err.code
    for command in [c.strip() for c in text.split(";") if c.strip()]:
        before, pieces = g.to_json(), everything(g)
        try:
            g.apply(seat, command)
        except RummyError as err:
            assert g.to_json() == before, command
            assert err.code == whole_code, (command, err.code, whole_code)
            return err
        if g.status == "playing":
            assert everything(g) == pieces, command
            if command.split()[0] in UNDOABLE:
                probe = load_game(g.to_json())
                probe.apply(seat, "undo")
                assert probe.to_json() == before, f"undo after {command}"
    assert whole_code is None
    return None


def turn(capsys, *argv: str) -> dict:
    main(["turn", "--json", *argv])
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------- jokers read where they sit


def run_cases(name: str, lengths, starts_for) -> list[tuple[str, str, str, int]]:
    """Runs with one or two jokers at every place: (table, the tile a joker stands for, its
    place)."""
    cases = []
    wrap = name == "stein"
    for length in lengths:
        for start in starts_for(length):
            values = [(start - 1 + i) % 13 + 1 if wrap else start + i for i in range(length)]
            faces = [f"B{v}" for v in values]
            for jokers in (1, 2):
                for places in combinations(range(length), jokers):
                    laid = ["J" if i in places else f for i, f in enumerate(faces)]
                    cases.append((" ".join(laid), faces[places[0]], places[0]))
                    if jokers == 2:  # the second joker, freed by its own tile
                        cases.append((" ".join(laid), faces[places[1]], places[1]))
    return cases


def run_faces(name: str, laid: str) -> list[str]:
    """The tiles of a laid run with its jokers read by place (independently of the engine)."""
    pieces = laid.split()
    k, real = next((k, p) for k, p in enumerate(pieces) if p != "J")
    first = int(real[1:]) - k
    if name == "stein":
        return [f"B{(first - 1 + i) % 13 + 1}" for i in range(len(pieces))]
    return [f"B{first + i}" for i in range(len(pieces))]


JOKER_RUNS = [("rummikub", *c) for c in run_cases("rummikub", (3, 4, 5), lambda n: (1, 6, 14 - n))]
JOKER_RUNS += [("stein", *c) for c in run_cases("stein", (3, 4, 5), lambda n: (1, 10, 11, 12, 13))]


@pytest.mark.parametrize(("name", "laid", "meant", "place"), JOKER_RUNS)
def test_a_run_joker_is_freed_by_the_tile_of_its_place_and_no_other(name, laid, meant, place):
    g = position(name, laid, f"{meant} K1 K2 K3")
    assert table(g) == [laid]  # the table keeps the order the meld was laid in
    full = run_faces(name, laid)
    for value in range(1, 14):
        wrong = f"B{value}"
        if wrong in full:
            continue
        h = position(name, laid, f"{wrong} K1 K2 K3")
        err = play(h, f"swap 1 {wrong}")
        assert err is not None and err.code == "joker.wrong_piece", wrong
        assert meant in error_text(err, "en") and meant in error_text(err, "de")
    assert play(g, f"swap 1 {meant}") is None
    freed = laid.split()
    freed[place] = meant
    assert table(g, working=True) == [" ".join(freed)]


STEIN_TAKES = [
    ("B12 B13 B1 B2", "B13", "B12 J B1 B2"),
    ("B12 B13 B1 B2", "B12", "J B13 B1 B2"),
    ("B13 J B2", "B2", "B13 J J"),
    ("J B13 B1", "B1", "J B13 J"),
    ("B11 B12 B13 B1 B2 B3", "B1", "B11 B12 B13 J B2 B3"),
    ("R6 B6 Y6 K6", "Y6", "R6 B6 J K6"),
    ("R6 B6 J K6", "K6", "R6 B6 J J"),
]


@pytest.mark.parametrize(("laid", "tile", "after"), STEIN_TAKES)
def test_take_puts_the_joker_exactly_where_the_tile_lay(laid, tile, after):
    g = position("stein", laid, "J Y1 Y9", "R1", "R2")
    assert play(g, f"take 1 {tile}") is None
    assert table(g, working=True) == [after]
    assert tile in [str(f) for f in g.rack(0)]


@pytest.mark.parametrize(
    ("laid", "freeing", "refused"),
    [
        ("R6 B6 J", "Y6 K6", "Y6"),  # a group of three: both missing tiles at once
        ("R6 B6 Y6 J", "K6", "R6"),
        ("R6 B6 J J", "Y6 K6", "Y6"),  # two jokers: four real tiles afterwards
    ],
)
def test_a_stein_group_joker_is_freed_only_by_the_missing_fourth_tile(laid, freeing, refused):
    g = position("stein", laid, f"{freeing} K1 K2", "R1", "R2")
    err = play(g, f"swap 1 {refused}")
    code = "joker.wrong_piece" if refused in laid.split() else "joker.group_needs_fourth"
    assert err is not None and err.code == code
    assert play(g, f"swap 1 {freeing}; discard K1") is None
    assert sorted(table(g)[0].split()) == ["B6", "K6", "R6", "Y6"]


# ---------------------------------------------------------------- undo after every kind of command

UNDO = [
    ("rummikub", "B1 B2 B3 B4 B5", "B6 K9", "add 1 B6; move 1 B1 > new; undo; undo; add 1 B6"),
    ("rummikub", "J B2 B3 B4 | K5 K6 K7", "B1 R1 R2", "swap 1 B1; meld R1 R2 J; done"),
    ("rummikub", "B9 J B11 | K5 K6 K7", "B10 R1 R2", "swap 1 B10; meld R1 R2 J; undo; undo"),
    ("rummikub", "K1 K2 K3 K4 K5 K6", "R4 B4", "split 1 K4; add 2 R4; undo; undo; reset; undo"),
    ("rummikub", "R10 R11 R12 | B10 Y10 K10", "R13 Y9", "add 1 R13; join 1 2; undo; undo"),
    ("rummikub", "R10 R11 R12 | B10 Y10 K10", "R13 Y9", "place R13; undo; place R13; done"),
    ("rummikub", "R4 J R6 | K4 K5 K6", "R5 B4 Y4", "swap 1 R5; move 2 K4 > new; add 3 B4 Y4 J"),
    ("rummikub", "R1 J J R4 R5 R6 R7", "R2 R3 B1 B2", "swap 1 R2 R3; meld B1 B2 J; add 2 J"),
    ("stein", "Y12 Y13 Y1 Y2 | B3 B4 B5", "J J K7", "take 1 Y12; take 2 B5; undo; take 1 Y2"),
    ("stein", "R13 J R2 R3", "R1 K7", "swap 1 R1; move 1 R3 > new; undo; undo; swap 1 R1"),
    ("stein", "R5 B5 J", "Y5 K5 K9", "swap 1 Y5 K5; undo; swap 1 K5 Y5; discard K9"),
    ("stein", "R1 R2 R3 R4 R5 | K8 K9 K10", "B1", "split 1 R3; split 2 R4; undo; join 1 2"),
    ("stein", "", "R1 R2 R3 R4 J K5", "meld R1 R2 R3; add 1 R4; undo; reset; undo; add 1 J"),
    ("stein_plus", "R9 B9 Y9 | R1 R2", "K9 B2", "add 1 K9; claim 1; unclaim 1; undo; undo"),
    ("stein_plus", "R9 B9 Y9 J | R1 R2 R3", "K9 B2", "swap 1 K9; claim 1; undo; undo"),
]


@pytest.mark.parametrize(("name", "tables", "rack", "commands"), UNDO)
def test_undo_after_every_kind_of_command_in_new_positions(name, tables, rack, commands):
    g = position(name, tables, rack, "Y7", "Y8")
    assert play(g, commands) is None


def test_undo_after_a_rejected_message_takes_back_the_last_accepted_command(capsys):
    g = position("rummikub", "R1 R2 R3 R4", "R5 B1")
    g.apply(0, "add 1 R5")
    before_add = load_game(g.to_json())
    with pytest.raises(RummyError):
        g.apply(0, "move 1 R1 > new; done")  # atomic: nothing of it stays
    g.apply(0, "undo")
    before_add.apply(0, "undo")
    assert g.to_json() == before_add.to_json()
    data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "J B2 B3 B4",
        "--hand",
        "B1 B5 R1 R2 Y9",
        "--opened",
        "swap 1 B1;meld R1 R2 J;undo;undo;add 1 B5 ; undo|meld R1 R2 J Y9",
    )
    assert data["error"]["code"] == "meld.mixed"


# ---------------------------------------------------------------- split lays each part in table order


@pytest.mark.parametrize(
    ("name", "added", "at", "melds"),
    [
        ("rummikub", "R4 B1", "B1", ["R4 R5 R6 R7", "B1 B2 B3"]),
        ("stein", "R4 B1", "B1", ["R4 R5 R6 R7", "B1 B2 B3"]),
        ("stein", "R8 B1", "B1", ["R5 R6 R7 R8", "B1 B2 B3"]),
        ("rummikub", "B1 R4", "R4", ["R5 R6 R7 B1", "R4"]),
    ],
)
def test_a_split_part_that_is_a_valid_meld_ends_the_turn(name, added, at, melds):
    """A meld put together out of order (``add 1 R4 B1`` on R5 R6 R7 gives R5 R6 R7 R4 B1,
    not yet valid) and then split reads as the meld it is: ``done`` used to refuse R5 R6 R7 R4
    ("runs do not go round the corner") though it is the run R4-R7."""
    g = position(name, "R5 R6 R7", "R4 R8 B1 B2 B3 Y9", "Y1", "Y2")
    assert play(g, f"add 1 {added}; split 1 {at}") is None
    assert table(g, working=True) == [melds[0], melds[1].split()[0]]
    if len(melds[1].split()) == 1:
        return
    end = "done" if name == "rummikub" else "discard Y9"
    assert play(g, f"add 2 B2 B3; {end}") is None
    assert table(g) == melds


def test_a_split_part_in_order_through_rummy_turn(capsys):
    data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R5 R6 R7",
        "--hand",
        "R4 B1 B2 B3 Y9",
        "--opened",
        "add 1 R4 B1; split 1 B1; add 2 B2 B3; done",
    )
    assert data["ok"], data
    assert data["table"] == [["R4", "R5", "R6", "R7"], ["B1", "B2", "B3"]]


# ---------------------------------------------------------------- Rummikub joker melds stay whole

LOCKED = [
    ("J R2 R3 R4 R5 R6", "move 1 R6 > new"),
    ("J R2 R3 R4 R5 R6", "split 1 R4"),
    ("J R2 R3 R4 R5 R6", "add 1 R4"),
    ("R8 R9 R10 R11 R12 J", "add 1 R10"),
    ("R8 R9 R10 R11 R12 J", "move 1 R8 > new"),
    ("R8 R9 R10 R11 R12 J", "split 1 R12"),
    ("R8 R9 R10 R11 R12 J", "split 1 J"),
    ("R1 J J R4 R5 R6 R7", "swap 1 R2; move 1 R6 R7 > new"),  # the other joker still holds it
    ("R1 J J R4 R5 R6 R7", "swap 1 R3; split 1 R5"),
    ("R5 B5 J J", "swap 1 Y5; move 1 R5 > new"),
    ("R5 B5 J", "move 1 R5 > 2"),
    ("R3 R4 J R6 | R7 R8 R9 R10", "join 1 2; split 1 R6"),
    ("R3 R4 J R6 | R7 R8 R9 R10", "join 2 1; move 1 R3 R4 > new"),
]


@pytest.mark.parametrize(("tables", "commands"), LOCKED)
def test_no_command_splits_a_rummikub_joker_meld(tables, commands):
    g = position("rummikub", f"{tables} | K1 K2 K3", "R2 R3 R4 R7 R10 Y5 B1", "Y1")
    err = play(g, commands)
    assert err is not None and err.code == "joker.locked_meld", err and err.code
    assert "1" in error_text(err, "en") and "Joker" in error_text(err, "de")


@pytest.mark.parametrize(
    ("commands", "melds"),
    [
        # tiles joined onto a joker meld may leave it again, by move, split or a duplicate
        (
            "join 1 2; move 1 R7 R8 R9 R10 > new; add 2 R11; done",
            ["R3 R4 J R6", "R7 R8 R9 R10 R11"],
        ),
        ("join 1 2; split 1 R7; add 2 R11; done", ["R3 R4 J R6", "R7 R8 R9 R10 R11"]),
        ("join 1 2; add 1 R8; done", ["R3 R4 J R6 R7 R8", "R8 R9 R10"]),
        ("add 1 R2; join 1 2; done", ["R2 R3 R4 J R6 R7 R8 R9 R10"]),
    ],
)
def test_a_joker_meld_grows_and_what_was_joined_on_may_leave(commands, melds):
    g = position("rummikub", "R3 R4 J R6 | R7 R8 R9 R10", "R2 R8 R11 Y9", "Y1")
    assert play(g, commands) is None
    assert table(g) == melds


def test_joined_tiles_leave_a_joker_meld_through_rummy_turn(capsys):
    data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R3 R4 J R6 | R7 R8 R9 R10",
        "--hand",
        "R8 Y9",
        "--opened",
        "--lang",
        "de",
        "join 1 2; add 1 R8; done",
    )
    assert data["ok"], data
    data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R3 R4 J R6 R7 R8 R9 R10",
        "--hand",
        "R8 Y9",
        "--opened",
        "--lang",
        "de",
        "add 1 R8; done",
    )
    assert data["error"]["code"] == "joker.locked_meld"
    assert "Kombination 1" in data["error"]["message"]


def test_without_joker_meld_no_split_the_joker_keeps_its_meaning():
    options = {"joker_meld_no_split": False}
    g = position("rummikub", "R1 J J R4 R5 R6 R7", "R8 Y9", "Y1", options=options)
    assert play(g, "split 1 R5; add 2 R8; done") is None
    assert table(g) == ["R1 J J R4", "R5 R6 R7 R8"]
    g = position("rummikub", "R1 J J R4 R5 R6 R7", "R8 Y9", "Y1", options=options)
    err = play(g, "split 1 R4; move 2 R4 > 1")
    assert err is None  # R1 J J R4 again
    g = position("rummikub", "J R5 R6 R7 R8 R9", "R4 Y9", "Y1", options=options)
    err = play(g, "split 1 R7; add 1 R4")  # J, which is R4, would turn into R3 or R7
    assert err is not None and err.code == "joker.meaning_changed"


# ---------------------------------------------------------------- freed Rummikub jokers


@pytest.mark.parametrize(
    ("tables", "rack", "commands", "code"),
    [
        ("R4 J R6 | K1 K2 K3 K4", "R5 K5 Y9", "swap 1 R5; move 2 K4 > new; add 3 J K5; done", None),
        ("R4 J R6 | K1 K2 K3 K4", "R5 K5 Y9", "swap 1 R5; add 2 K5 J; done", "joker.freed_not_new"),
        ("R4 J R6 | K1 K2 K3", "R5 Y9", "swap 1 R5; add 2 J; done", "joker.freed_unused"),
        ("R4 J R6 R7 | K1 K2 K3", "R5 R8 Y9", "swap 1 R5; move 1 R7 > new; add 3 R8 J; done", None),
        ("R5 B5 J | K1 K2 K3", "Y5 B1 B2", "swap 1 Y5; meld J B1 B2; done", None),
        ("R5 B5 J | K1 K2 K3", "K5 B1 B2", "swap 1 K5; meld B1 B2 J; done", None),
        ("R5 B5 J | K1 K2 K3", "R5 B1 B2", "swap 1 R5", "joker.wrong_piece"),
        ("R5 B5 J J", "Y5 B1 B2", "swap 1 Y5; meld J B1 B2; done", None),
        ("R5 B5 J J", "Y5 K5 B1 B2", "swap 1 Y5 K5; meld J J B1 B2; done", None),
        ("R1 J J R4 R5 R6 R7", "R2 R3 B1 B2", "swap 1 R2 R3; meld B1 B2 J; add 2 J; done", None),
        (
            "R1 J J R4 R5 R6 R7",
            "R2 R3 B1 B2",
            "swap 1 R2 R3; meld B1 B2 J; done",
            "joker.freed_unused",
        ),
        (
            "J R12 R13 | K1 K2 K3",
            "R11 K4 Y9",
            "swap 1 R11; add 2 J K4; done",
            "joker.freed_not_new",
        ),
    ],
)
def test_a_freed_rummikub_joker_goes_into_a_new_meld_with_rack_tiles(tables, rack, commands, code):
    g = position("rummikub", tables, rack, "Y1")
    err = play(g, commands)
    assert (err.code if err else None) == code, err and error_text(err)
    if err is not None:
        assert error_text(err, "en") != error_text(err, "de")


@pytest.mark.parametrize(
    ("tables", "rack", "commands"),
    [
        ("J R5 R6 | K1 K2 K3", "R4 B1", "add 1 R4"),  # J was R4, would turn R3 or R7
        ("R11 R12 J", "R13 B1", "add 1 R13"),
        ("R11 R12 J | R13 Y13 B13", "B1", "move 2 R13 > 1"),
        ("R2 J R4 R5", "R3 B1", "add 1 R3"),
    ],
)
def test_a_rummikub_table_joker_keeps_its_meaning_until_swapped(tables, rack, commands):
    g = position("rummikub", tables, rack, "Y1")
    err = play(g, commands)
    assert err is not None and err.code == "joker.meaning_changed"
    assert "swap" in error_text(err, "en") and "swap" in error_text(err, "de")


def test_two_joker_rummikub_game_has_106_tiles_and_its_jokers_play():
    rules = preset("rummikub").with_options(pool_jokers=2)
    g = new_game(rules, ["a", "b", "c"], seed=3)
    assert len(g.all_piece_ids()) == 106
    assert sum(g.deck[i].is_joker for i in g.all_piece_ids()) == 2
    assert len(new_game(preset("rummikub"), ["a", "b"], seed=3).all_piece_ids()) == 108
    with pytest.raises(RummyError) as info:
        position("rummikub", "R1 J J | R5 J R7", "B1", options={"pool_jokers": 2})
    assert info.value.code == "parse.arguments"


def test_place_with_help_off_is_refused_and_changes_nothing():
    g = position("rummikub", "R1 R2 R3", "R4 Y9", "Y1", options={"help_allowed": False})
    err = play(g, "place R4")
    assert err is not None and err.code == "help.not_allowed"
    assert error_text(err, "en") != error_text(err, "de")


# ---------------------------------------------------------------- claims end only by unclaim

CLAIM_TABLE = "R9 B9 Y9 K9 | R1 R2 R3 R4 | B10 B11 B12"
CLAIM_HAND = "J B13 R5 Y13"


@pytest.mark.parametrize(
    ("commands", "code"),
    [
        ("join 2 1", "claim.dissolve_first"),
        ("join 3 1", "claim.dissolve_first"),
        ("move 1 R9 B9 Y9 K9 > new", "claim.dissolve_first"),
        ("move 1 R9 B9 Y9 K9 > 3", "claim.dissolve_first"),
        ("split 1 Y9; move 1 R9 B9 > new", "claim.dissolve_first"),
        ("split 1 Y9; move 1 R9 B9 > 2", "claim.dissolve_first"),
        ("move 1 K9 > 3; discard Y13", "turn.invalid_table"),
        ("add 1 J; discard B13", "turn.invalid_table"),
        ("split 1 Y9; move 2 Y9 K9 > 1; discard Y13", None),
        ("take 1 R9; discard R9", None),
        ("place R5; discard B13", None),
        ("unclaim 1; join 2 1; undo; undo; discard B13", None),
    ],
)
def test_the_owner_ends_a_claim_only_with_unclaim(commands, code):
    g = position("stein_plus", CLAIM_TABLE, CLAIM_HAND, "Y1 Y2", "K1 K2", claims=[(0, 0)])
    err = play(g, commands)
    assert (err.code if err else None) == code, err and error_text(err)
    if err is None:
        assert g.table[0].claim == 0 and len(g.table[0].ids) == 4
        assert sorted(table(g)[0].replace("J", "R9").split()) == ["B9", "K9", "R9", "Y9"]


@pytest.mark.parametrize(
    "commands",
    [
        "join 2 1",
        "join 1 2",
        "move 1 R9 > 2",
        "move 2 R4 > 1",
        "split 1 Y9",
        "take 1 R9",
        "add 1 R5",
        "unclaim 1",
        "claim 1",
        "swap 1 R9",
    ],
)
def test_nobody_but_the_owner_touches_a_claim(commands):
    g = position("stein_plus", CLAIM_TABLE, f"{CLAIM_HAND} R6 R7", "Y1", "K1", claims=[(0, 1)])
    err = play(g, commands)
    assert err is not None and err.code == "claim.not_yours"
    assert "P2" in error_text(err, "en") and "P2" in error_text(err, "de")


def test_a_last_discard_from_the_table_skips_another_players_claim():
    g = position(
        "stein_plus", "R9 B9 Y9 K9 | R9 R10 R11 R12", "K1 K2 K3", "Y1", "Y2", claims=[(0, 1)]
    )
    assert play(g, "meld K1 K2 K3; discard R9") is None
    assert g.status == "finished" and table(g)[:2] == ["R9 B9 Y9 K9", "R10 R11 R12"]
    assert g.result.details["claims"] == [0, 1, 0]
    g = position("stein_plus", "R9 B9 Y9 K9 | R1 R2 R3", "K1 K2 K3", "Y1", "Y2", claims=[(0, 1)])
    err = play(g, "meld K1 K2 K3; discard K9")
    assert err is not None and err.code == "claim.not_yours"


@pytest.mark.parametrize(
    ("tables", "commands", "code"),
    [
        ("R9 B9 | Y9 Y10 Y11 Y12 | K9 K10 K11 K12", "move 2 Y9 > 1; move 3 K9 > 1; claim 1", None),
        ("R9 B9 J", "add 1 Y9; claim 1", None),  # with a table joker
        ("R9 B9 J K9", "take 1 R9; claim 1", None),  # a tile replaced by a joker
        ("R9 B9 J K9", "claim 1", "claim.not_formed"),
        ("R9 B9 Y9 K9", "move 1 K9 > new; move 2 K9 > 1; claim 1", "claim.not_formed"),
        ("R9 B9 Y9", "claim 1", "claim.not_group_of_four"),
    ],
)
def test_claims_formed_on_the_table(tables, commands, code):
    g = position("stein_plus", tables, "R1 R2 R3 Y9 K5 J", "Y1", "Y2")
    err = play(g, commands)
    assert (err.code if err else None) == code, err and error_text(err)
    if code is None:
        assert play(g, "meld R1 R2 R3; discard K5") is None
        assert g.result is None and g.table[0].claim == 0


# ---------------------------------------------------------------- Stein Plus 4/3/2/1, Stein n+1-k


@pytest.mark.parametrize(
    ("left", "winner", "claims", "points"),
    [
        ([0, 5], 0, [0, 0], [4, 3]),
        ([3, 0], 1, [1, 0], [4, 4]),
        ([0, 2, 2, 2], 0, [0, 0, 0, 0], [4, 2, 2, 2]),
        ([0, 2, 2, 5], 0, [0, 1, 0, 2], [4, 3.5, 2.5, 3]),
        ([4, 0, 1, 1], 1, [0, 0, 0, 0], [1, 4, 2.5, 2.5]),
        ([0, 3, 3], 0, [2, 0, 1], [6, 2.5, 3.5]),
        ([2, 2, 2], None, [0, 0, 0], [2, 2, 2]),
        ([2, 2, 2, 2], None, [0, 0, 1, 0], [1.5, 1.5, 2.5, 1.5]),
    ],
)
def test_stein_plus_smp_and_cmp(left, winner, claims, points):
    assert stein_plus_match_points(left, winner, claims) == points


@pytest.mark.parametrize(
    ("left", "winner", "points"),
    [([0, 5], 0, [2, 1]), ([0, 1, 1, 3], 0, [4, 2.5, 2.5, 1]), ([1, 0, 1], 1, [1.5, 3, 1.5])],
)
def test_stein_mp_is_n_plus_1_minus_k(left, winner, points):
    assert stein_match_points(left, winner) == points


@pytest.mark.parametrize(
    ("hands", "points"),
    [
        (["Y1 Y2 Y3"], [5, 3]),  # two players (casual): 4 + one claim, 3
        (["Y1 Y2 Y3", "Y4", "B1 B2"], [5, 1, 3, 2]),
        (["Y1 Y2", "Y4 Y5"], [5, 2.5, 2.5]),  # a tie shares 3 and 2
    ],
)
def test_a_finished_stein_plus_game_scores_smp_and_its_claims(hands, points):
    options = {"min_players": 2, "ranked": False} if len(hands) == 1 else {}
    g = position("stein_plus", "R9 B9 Y9", "K9 K10 K11 K12", *hands, options=options)
    assert play(g, "add 1 K9; claim 1; meld K10 K11 K12; done") is None
    assert g.status == "finished" and g.result.points == points


# ---------------------------------------------------------------- Stein's last discard from the table


@pytest.mark.parametrize(
    ("tables", "rack", "commands", "melds"),
    [
        ("R13 R1 R2 R3 | B5 B6 B7", "K9 K10 K11", "meld K9 K10 K11; discard R13", ["R1 R2 R3"]),
        ("R13 R1 R2 R3 | B5 B6 B7", "K9 K10 K11", "meld K9 K10 K11; discard R3", ["R13 R1 R2"]),
        ("R1 R2 R3 | R4 R5 R6 R7", "K9 K10 K11", "meld K9 K10 K11; discard R4", ["R1 R2 R3"]),
        ("R7 B7 Y7", "K9 K10 K11 K12", "meld K9 K10 K11 K12; discard 2 K9", ["R7 B7 Y7"]),
        ("R7 B7 Y7", "K9 K10 K11 J", "meld K9 K10 K11 J; discard J", ["R7 B7 Y7"]),
        ("R7 B7 Y7 J", "K7 K9 K10 K11", "swap 1 K7; meld K9 K10 K11 J; discard J", None),
    ],
)
def test_the_last_tile_is_discarded_from_the_table(tables, rack, commands, melds):
    g = position("stein", tables, rack, "Y1", "Y2")
    assert play(g, commands) is None
    assert g.status == "finished" and g.result.winner == 0
    if melds:
        assert table(g)[0] == melds[0]


@pytest.mark.parametrize(
    ("tables", "rack", "commands", "code"),
    [
        ("R13 R1 R2 R3", "K9 K10 K11", "meld K9 K10 K11; discard R1", "turn.discard_breaks"),
        ("R7 B7 Y7", "K9 K10 K11", "meld K9 K10 K11; discard Y7", "turn.discard_breaks"),
        ("R7 B7 Y7 J", "K9 K10 K11", "meld K9 K10 K11; discard J", "joker.cannot_move"),
        ("R1 R2 R3 R4", "K9 K10 K11", "meld K9 K10 K11; discard 2 K12", "piece.not_in_meld"),
        ("R1 R2 R3 R4", "K9 K10 K11", "meld K9 K10 K11; discard 3 K11", "meld.no_such"),
        (
            "R1 R2 R3 R4",
            "K9 K10 K11 K12",
            "meld K9 K10 K11; discard 1 R4",
            "turn.discard_from_hand",
        ),
    ],
)
def test_a_table_discard_that_breaks_a_rule_is_refused(tables, rack, commands, code):
    g = position("stein", tables, rack, "Y1", "Y2")
    err = play(g, commands)
    assert err is not None and err.code == code
    assert error_text(err, "en") != error_text(err, "de")


def test_before_opening_only_the_players_own_new_meld_gives_the_last_tile(capsys):
    g = position("stein", "R1 R2 R3 R4", "K9 K10 K11 K12", "Y1", "Y2", opened=False)
    assert play(g, "meld K9 K10 K11 K12; discard K12") is None
    assert g.status == "finished"
    data = turn(
        capsys,
        "--rules",
        "stein",
        "--table",
        "R13 R1 R2 R3",
        "--hand",
        "K9 K10 K11",
        "--lang",
        "de",
        "meld K9 K10 K11;discard R13",
    )
    assert data["error"]["code"] == "opening.table_locked"
    assert "Kombination 1" in data["error"]["message"]


# ---------------------------------------------------------------- what a refused swap says


@pytest.mark.parametrize(
    ("name", "tables", "tile", "en", "de"),
    [
        (
            "rummikub",
            "R4 J J R7",
            "R3",
            "it stands for R5 (the other joker for R6).",
            "R5 (der andere für R6).",
        ),
        (
            "stein",
            "R12 J J",
            "R3",
            "it stands for R13 (the other joker for R1).",
            "R13 (der andere für R1).",
        ),
        (
            "stein",
            "R9 J J J R13",
            "R3",
            "it stands for R10 (the other jokers for R11 and R12).",
            "R10 (die anderen für R11 und R12).",
        ),
        ("rummikub", "R4 B4 J", "R3", "it stands for Y4 or K4.", "er steht für Y4 oder K4."),
        ("rummikub", "R4 J R6", "R7", "it stands for R5.", "er steht für R5."),
    ],
)
def test_a_refused_swap_says_what_each_joker_stands_for(capsys, name, tables, tile, en, de):
    g = position(name, tables, f"{tile} B1")
    err = play(g, f"swap 1 {tile}")
    assert err is not None and err.code == "joker.wrong_piece"
    assert error_text(err, "en").endswith(en) and error_text(err, "de").endswith(de)
    assert "meld 1" in error_text(err, "en") and "Kombination 1" in error_text(err, "de")
    data = turn(
        capsys,
        "--rules",
        name,
        "--table",
        tables,
        "--hand",
        f"{tile} B1",
        "--opened",
        "--lang",
        "de",
        f"swap 1 {tile}",
    )
    assert data["error"]["message"].endswith(de)


@pytest.mark.parametrize(
    ("commands", "en", "de"),
    [
        (
            "swap 1 R5; add 2 J; done",
            "(meld 2 holds no tile from your rack).",
            "(Kombination 2 enthält",
        ),
        ("swap 1 R5; done", "(it is still on your rack).", "(er liegt noch auf deiner Bank)."),
    ],
)
def test_an_unused_freed_joker_is_told_where_it_lies(commands, en, de):
    g = position("rummikub", "R4 J R6 | K1 K2 K3", "R5 Y9", "Y1")
    err = play(g, commands)
    assert err is not None and err.code == "joker.freed_unused"
    assert error_text(err, "en").endswith(en) and de in error_text(err, "de")


def test_a_table_discard_that_breaks_a_meld_names_the_meld_and_the_rule(capsys):
    g = position("stein", "R13 R1 R2 R3", "K9 K10 K11", "Y1", "Y2")
    err = play(g, "meld K9 K10 K11; discard R1")
    assert err is not None and err.code == "turn.discard_breaks"
    assert error_text(err, "en") == (
        "R1 cannot leave the table: without it meld 1 is not valid (R13 R2 R3: the run has a gap"
        " at R1 and not enough jokers to fill it)."
    )
    data = turn(
        capsys,
        "--rules",
        "stein",
        "--lang",
        "de",
        "--table",
        "R7 B7 Y7",
        "--hand",
        "K9 K10 K11",
        "--opened",
        "meld K9 K10 K11; discard Y7",
    )
    assert data["error"]["message"] == (
        "Y7 kann nicht vom Tisch: ohne ihn ist Kombination 1 nicht gültig (R7 B7: eine"
        " Kombination braucht mindestens 3 Steine)."
    )


def test_a_take_that_turns_a_group_joker_into_a_run_joker_is_refused():
    """``take 1 R5`` on ``R5 B5 J`` leaves ``J B5 J``: one real tile with jokers reads as a run
    (docs/DECISIONS.md "Joker readings"), so the group joker would become B6."""
    g = position("stein", "R5 B5 J | R1 R2 R3", "J K1 K2", "Y1", "Y2")
    err = play(g, "take 1 R5")
    assert err is not None and err.code == "joker.meaning_changed"
    assert "5" in error_text(err, "en") and "B6" in error_text(err, "de")
    # without a table joker the tiles are simply taken: the meld is the run B4 B5 B6
    g = position("stein", "R5 B5 Y5 | R1 R2 R3", "J J K2", "Y1", "Y2")
    assert play(g, "take 1 R5; take 1 Y5; discard K2") is None
    assert table(g)[0] == "J B5 J"


@pytest.mark.parametrize(
    ("name", "round_no", "points"),
    [
        ("stein", 1, [2, 1]),  # n+1-k with two players
        ("stein", 0, [2, 1]),  # first_round_out=split: the winner 2, the other the rest
        ("stein_plus", 1, [4, 3]),
        ("stein_plus", 0, [4, 3]),
    ],
)
def test_stein_with_two_players_casual(name, round_no, points):
    rules = preset(name).with_options(min_players=2, ranked=False)
    g = TileGame.position(
        rules, "R1 R2 R3", ["K9 K10 K11 K12", "Y1 Y2 Y3"], opened=[True, True], round_no=round_no
    )
    assert play(g, "meld K9 K10 K11; discard K12") is None
    assert g.result.points == points and g.result.details["first_round"] == (round_no == 0)
    fresh = new_game(rules, ["a", "b"], seed=4)
    assert len(fresh.all_piece_ids()) == 106 and [len(r) for r in fresh.racks] == [15, 15]


@pytest.mark.parametrize(
    ("rack", "placing", "en", "de"),
    [
        ("R7 B1", "R7", "R7 cannot be placed: no valid table holds it.", "R7 lässt sich nicht"),
        ("R7 B1", "R7 B1", "R7 B1 cannot all be placed", "R7 B1 lassen sich nicht alle"),
    ],
)
def test_place_that_splits_a_joker_meld_is_refused_in_the_right_number(rack, placing, en, de):
    g = position("rummikub", "R3 R4 J R6 R7 R8 R9", rack, "Y1")
    err = play(g, f"place {placing}")
    assert err is not None and err.code == "place.impossible"
    assert error_text(err, "en").startswith(en) and error_text(err, "de").startswith(de)
    options = {"joker_meld_no_split": False}
    g = position("rummikub", "R3 R4 J R6 R7 R8 R9", rack, "Y1", options=options)
    if placing == "R7":
        assert play(g, "place R7; done") is None
        assert table(g) == ["R3 R4 J R6 R7", "R7 R8 R9"]


@pytest.mark.parametrize(("tables", "count"), [("R1 R2 R3", 1), ("R1 R2 R3 | B1 B2 B3", 2)])
def test_no_such_meld_is_said_for_one_meld_and_for_several(tables, count):
    g = position("rummikub", tables, "R4 B4", "Y1")
    err = play(g, "add 3 R4")
    assert err is not None and err.code == "meld.no_such"
    assert error_text(err, "en") == f"There is no meld 3: the table has {count}."
    assert error_text(err, "de") == f"Es gibt keine Kombination 3: der Tisch hat {count}."


def test_the_tile_that_freed_a_joker_counts_as_its_rack_tile(capsys):
    """docs/DECISIONS.md "Freed jokers": the swap tile is a rack tile played this turn."""
    data = turn(
        capsys,
        "--rules",
        "rummikub",
        "--table",
        "R3 R4 J R6 R7 R8",
        "--hand",
        "R5 Y9",
        "--opened",
        "swap 1 R5; move 1 R3 R4 R5 > new; add 2 J; done",
    )
    assert data["ok"] and data["table"] == [["R6", "R7", "R8"], ["R3", "R4", "R5", "J"]]
    g = position("rummikub", "R3 R4 J R6 R7 R8", "R5 Y9", "Y1")
    assert play(g, "swap 1 R5; split 1 R6; add 1 J; done") is None  # the same table
    # but not back into the whole of its old meld
    g = position("rummikub", "R3 R4 J R6 R7 R8", "R5 Y9", "Y1")
    err = play(g, "swap 1 R5; add 1 J; done")
    assert err is not None and err.code == "joker.freed_not_new"


@pytest.mark.parametrize(
    ("rack", "meld", "code"),
    [
        ("R9 B9 J J K1", "R9 B9 J J", None),
        ("R9 B9 Y9 J K1", "R9 B9 Y9 J", None),
        ("R9 J J J K1", "R9 J J J", "claim.not_group_of_four"),  # reads as the run R9-R12
    ],
)
def test_a_claim_may_hold_jokers(rack, meld, code):
    g = position("stein_plus", "", rack, "Y1", "Y2")
    err = play(g, f"meld {meld}; claim 1; discard K1")
    assert (err.code if err else None) == code
    if code is None:
        assert g.status == "finished" and g.result.details["claims"] == [1, 0, 0]
        assert g.result.points == [5, 2.5, 2.5]


def group_swaps(value: int):
    """Groups of 3 and 4 with one or two jokers at every place, and every swap of one or two
    missing colours: (table, tiles, whether Rummikub / Stein accept it)."""
    colours = "RBYK"
    for size in (3, 4):
        for jokers in (1, 2):
            for present in combinations(colours, size - jokers):
                if len(present) < 2:
                    continue  # one real tile with jokers reads as a run
                missing = [c for c in colours if c not in present]
                for places in combinations(range(size), jokers):
                    real = iter(present)
                    laid = " ".join(
                        "J" if i in places else f"{next(real)}{value}" for i in range(size)
                    )
                    for k in (1, 2):
                        for tiles in combinations(missing, k):
                            faces = " ".join(f"{c}{value}" for c in tiles)
                            rummikub = size + max(0, k - jokers) <= 4
                            stein = size - jokers + k == 4 and k >= jokers
                            yield laid, faces, rummikub, stein


@pytest.mark.parametrize("value", [1, 7, 13])
def test_a_group_joker_is_freed_by_a_missing_colour_rummikub_any_stein_the_fourth(value):
    cases = 0
    for laid, faces, rummikub, stein in group_swaps(value):
        for name, accepted in (("rummikub", rummikub), ("stein", stein)):
            g = position(name, laid, f"{faces} B5 B6", "Y2", "Y3")
            err = play(g, f"swap 1 {faces}")
            assert (err is None) == accepted, (name, laid, faces, err and err.code)
            cases += 1
        for present in {p[0] for p in laid.split() if p != "J"}:
            g = position("rummikub", laid, f"{present}{value} B5", "Y2")
            err = play(g, f"swap 1 {present}{value}")
            assert err is not None and err.code == "joker.wrong_piece"
    assert cases > 100


def test_a_joker_freed_twice_in_a_turn_is_one_freed_joker():
    g = position("rummikub", "R4 J R6 | K1 K2 K3", "R5 B1 B2 B3 Y7 Y8", "Y2")
    assert play(g, "swap 1 R5; meld B1 B2 J; swap 3 B3") is None
    assert len(g.turn.freed) == 1
    err = play(g, "done")
    assert err is not None and err.code == "joker.freed_unused"
    assert play(g, "meld Y7 Y8 J; done") is None
    assert table(g) == ["R4 R5 R6", "K1 K2 K3", "B1 B2 B3", "Y7 Y8 J"]
