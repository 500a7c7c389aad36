"""A ``place`` that the legal search resolved is logged written out, as it ran (the moves it
made first, then ``place PIECES = TABLE``): replaying the log never asks the search, whose
answers change from one version to the next, and gives the very state the player saw.

Over the legal-play brute force's positions (plain, joker runs, tied jokers, after earlier
moves of the turn), every ``place`` of one to four rack pieces the engine accepts: its log
form, replayed on the state before with the legal search switched off, gives the same state
byte for byte (``undo`` history included); a place the plain solver answered, and every other
message, is logged exactly as typed; a written-out form prints and parses back to itself.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from engine.commands import Command, parse_command, parse_commands
from engine.errors import RummyError
from engine.game import load_game
from engine.hints import hint_command, tile_hint
from engine.pieces import Tile, format_faces
from engine.rules import preset
from engine.tile import help as tile_help
from engine.tiles import TileGame
from tests.engine.test_legal_play import (
    BRUTE_FORCE,
    _game,
    joker_positions,
    positions,
    tied_positions,
    turn_positions,
)

ANY_POSITION = st.one_of(positions(), joker_positions(), tied_positions(), turn_positions())


def _no_search(*args, **kwargs):
    """The legal search switched off: a replay that still needs it fails loudly."""
    raise AssertionError("the replay asked the legal search")


def _places(g: TileGame) -> list[str]:
    faces = [str(f) for f in g.faces(g.turn.rack)]
    texts = []
    for size in range(1, min(4, len(faces)) + 1):
        for chosen in itertools.combinations(faces, size):
            texts.append(f"place {' '.join(chosen)}")
    return list(dict.fromkeys(texts))


def _ran(g: TileGame, text: str) -> TileGame | None:
    after = load_game(g.to_json())
    try:
        after.apply(0, text)
    except RummyError:
        return None
    return after


@settings(BRUTE_FORCE, max_examples=max(10, BRUTE_FORCE.max_examples // 2))
@given(ANY_POSITION)
def test_a_logged_place_replays_to_the_same_state_without_the_search(position):
    g = _game(*position)
    start = g.to_json()
    written = []
    for text in _places(g):
        after = _ran(g, text)
        if after is None:
            continue
        logged = after.log_form(text)
        if logged == text:
            continue  # the plain answer: logged as typed (its replay is the plain solver's)
        written.append((text, logged, after.to_json()))
    for text, logged, state in written:
        event("a place written out")
        commands = parse_commands(logged)
        assert commands[-1].verb == "place" and commands[-1].melds, logged
        assert all(c.verb in ("swap", "add", "place") for c in commands), logged
        replayed = load_game(start)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tile_help, "legal_play", _no_search)
            replayed.apply(0, logged)
        assert replayed.log_form(logged) == logged  # a written-out form is logged as it is
        assert replayed.to_json() == state, (text, logged)


def test_the_swap_and_place_of_the_legal_search_are_logged_and_undone_one_by_one():
    """Rummikub R4 J R6 / R5 B9 K9: only swap 1 R5, then the freed joker with B9 K9, places
    all three. The log keeps both moves; ``undo`` takes them back one at a time."""
    g = TileGame.position(preset("rummikub"), "R4 J R6", ["R5 B9 K9"], opened=[True])
    live = load_game(g.to_json())
    live.apply(0, "place R5 B9 K9")
    logged = live.log_form("place R5 B9 K9")
    assert logged == "swap 1 R5; place B9 K9 J = R4 R5 R6 | B9 K9 J"
    replayed = load_game(g.to_json())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tile_help, "legal_play", _no_search)
        replayed.apply(0, logged)
    assert replayed.to_json() == live.to_json()
    live.apply(0, "undo")
    assert [format_faces(m) for m in live.table_faces(working=True)] == ["R4 R5 R6"]
    live.apply(0, "undo")
    assert live.to_json() == g.to_json()


def test_a_written_out_meld_is_laid_as_place_lays_it_not_as_it_lies():
    """The solver gives a meld's pieces in its own order (``B11 B12 B13 J``: the joker is B10,
    not B14); the written-out place lays it as ``place`` lays a solver table. Found by the
    brute force after earlier moves (LEGAL_PLAY_EXAMPLES=400, seed 9)."""
    g = TileGame.position(preset("rummikub"), "R8 J J R11 | B11 B12 B13", ["R9 J"], opened=[True])
    for text in ("move 2 B12 > 1", "move 2 B11 > 1", "move 2 B13 > 1", "move 1 B11 > new"):
        g.apply(0, text)
    start = g.to_json()
    g.apply(0, "place J")
    logged = g.log_form("place J")
    assert logged.startswith("place J = ") and "B13 J" in logged, logged
    replayed = load_game(start)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tile_help, "legal_play", _no_search)
        replayed.apply(0, logged)
    assert replayed.to_json() == g.to_json()
    assert g.tried(0, "done") is not None


@pytest.mark.parametrize("name", ["stein", "stein_plus"])
def test_two_held_jokers_each_keep_a_tile_of_their_meld(name):
    """Stein R1 J J B1 + B1 R1: the legal table B1 R1 J | B1 R1 J needs the start meld's B1 and
    R1 split between the two melds (one for each joker); the laying used to give both to the
    first meld, so the second joker left its meld and the play was refused (LEGAL3's find)."""
    g = TileGame.position(preset(name), "R1 J J B1", ["B1 R1"], opened=[True], players=4)
    (found,) = tile_hint(g, 0)
    assert hint_command(found) == "place B1 R1; done" and not found.params["inexact"]
    after = load_game(g.to_json())
    after.apply(0, "place B1 R1")
    assert after.log_form("place B1 R1") == "place B1 R1 = B1 R1 J | B1 R1 J"
    assert after.tried(0, "done") is not None
    typed = load_game(g.to_json())
    typed.apply(0, "place B1 R1 = B1 R1 J | B1 R1 J")
    assert typed.to_json() == after.to_json()


def test_a_plain_place_and_other_messages_are_logged_as_typed():
    g = TileGame.position(preset("rummikub"), "R4 R5 R6", ["R7 B9 K9 Y9"], opened=[True])
    for text in ("place R7", "place  r7 ", "add 1 R7; meld B9 K9 Y9", "hint"):
        after = load_game(g.to_json())
        after.apply(0, text)
        assert after.log_form(text) == text


def test_a_written_out_place_prints_and_parses_back_to_itself():
    joker = Tile.joker()
    c = parse_command("place B10 J = B4 R4 Y4 | B8 B9 B10 ;  B10 K10 J")
    assert c == Command(
        "place",
        pieces=(Tile.parse("B10"), joker),
        melds=(
            tuple(map(Tile.parse, ["B4", "R4", "Y4"])),
            tuple(map(Tile.parse, ["B8", "B9", "B10"])),
            (Tile.parse("B10"), Tile.parse("K10"), joker),
        ),
    )
    assert str(c) == "place B10 J = B4 R4 Y4 | B8 B9 B10 | B10 K10 J"
    assert parse_command(str(c)) == c
    # a command after the table is a command of its own
    first, second = parse_commands("place R5 = R4 R5 R6; done")
    assert first.melds and second.verb == "done"


@pytest.mark.parametrize(
    ("text", "code", "key"),
    [
        ("place R5 = R4 R5 R6", "place.impossible", "why.place.not_this_table"),  # joker lost
        ("place B9 K9 = R4 J R6 | B9 K9", "meld.too_short", 2),  # names the meld
        ("place B9 = R4 J R6 B9", "meld.mixed", 1),
        ("place = R4 J R6", "parse.arguments", None),
        ("place R5 =", "parse.arguments", None),
        ("place K13 = R4 J R6 K13", "piece.not_in_rack", None),
    ],
)
def test_a_written_out_place_that_does_not_fit_changes_nothing(text, code, key):
    g = TileGame.position(preset("rummikub"), "R4 J R6", ["R5 B9 K9"], opened=[True])
    before = g.to_json()
    with pytest.raises(RummyError) as refused:
        g.apply(0, text)
    assert refused.value.code == code
    if isinstance(key, str):
        assert refused.value.params["reason"]["key"] == key
    elif key is not None:
        assert refused.value.params["where"]["meld"] == key
    assert g.to_json() == before
