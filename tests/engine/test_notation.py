"""Notation: pieces, melds and commands parse and print canonically (DESIGN.md "Notation")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.commands import parse_command, parse_commands
from engine.errors import RummyError
from engine.pieces import Card, Tile, format_faces, format_melds, parse_faces, parse_melds


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("R5", "R5"),
        ("r5", "R5"),
        ("B12", "B12"),
        ("Y7", "Y7"),
        ("G7", "Y7"),
        ("g7", "Y7"),
        ("K1", "K1"),
        ("S1", "K1"),
        ("J", "J"),
        ("*", "J"),
        ("joker", "J"),
    ],
)
def test_tile_aliases_and_case(text, canonical):
    assert str(Tile.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("R14", '"R14": value must be 1-13'),
        ("R0", '"R0": value must be 1-13'),
        ("X5", '"X5": colour must be'),
        ("R", '"R": a colour letter must be followed by a value 1-13'),
        ("Rx", '"Rx": a colour letter'),
    ],
)
def test_tile_errors_name_the_token(text, fragment):
    with pytest.raises(RummyError) as info:
        Tile.parse(text)
    assert info.value.code == "parse.piece"
    assert fragment in info.value.message("en")
    assert text in info.value.message("de")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("qs", "QS"),
        ("A♣", "AC"),
        ("2♦", "2D"),
        ("JK", "*"),
        ("*", "*"),
    ],
)
def test_card_notation(text, canonical):
    assert str(Card.parse(text)) == canonical


def test_card_errors():
    with pytest.raises(RummyError) as info:
        Card.parse("11H")
    assert '"11H"' in info.value.message()
    with pytest.raises(RummyError):
        Card.parse("QX")


def test_meld_separators():
    text = "R5 R6 R7 | B9 Y9 K9; r1 r2 r3\nJ K4 K5"
    melds = parse_melds(text)
    assert format_melds(melds) == "R5 R6 R7 | B9 Y9 K9 | R1 R2 R3 | J K4 K5"


tiles = st.builds(Tile, st.integers(0, 3), st.integers(1, 13)) | st.just(Tile.joker())


@given(st.lists(st.lists(tiles, min_size=1, max_size=6), min_size=1, max_size=5))
def test_printing_parsed_melds_is_canonical(melds):
    text = format_melds(melds)
    assert format_melds(parse_melds(text)) == text
    lowered = text.lower().replace("y", "g").replace("k", "s")
    assert format_melds(parse_melds(lowered)) == text


@given(st.lists(tiles, min_size=1, max_size=10))
def test_printing_parsed_pieces_is_canonical(faces):
    text = format_faces(faces)
    assert parse_faces(text) == faces


def test_commands_parse_and_print():
    cases = {
        "meld R5 R6 R7 | B9 Y9 K9": "meld R5 R6 R7 | B9 Y9 K9",
        "play r5 r6 r7": "meld R5 R6 R7",
        "add 2 R8": "add 2 R8",
        "move 1 R5 > new": "move 1 R5 > new",
        "move 1 R5 > 3": "move 1 R5 > 3",
        "move 1 R5 3": "move 1 R5 > 3",
        "split 1 B4": "split 1 B4",
        "join 1 2": "join 1 2",
        "swap 3 R7": "swap 3 R7",
        "take 2 K5": "take 2 K5",
        "claim 4": "claim 4",
        "unclaim 4": "unclaim 4",
        "discard B1": "discard B1",
        "END": "done",
        "draw": "draw",
        "pick Y3": "pick Y3",
    }
    for text, canonical in cases.items():
        assert str(parse_command(text)) == canonical


def test_meld_continues_over_semicolons():
    commands = parse_commands("meld R5 R6 R7; B9 Y9 K9; done")
    assert [str(c) for c in commands] == ["meld R5 R6 R7 | B9 Y9 K9", "done"]


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("dance", "parse.command", '"dance" is not a command'),
        ("add x R5", "parse.arguments", '"x" is not a meld number'),
        ("add 1", "parse.arguments", "usage: add N PIECES"),
        ("join 1", "parse.arguments", "usage: join N M"),
        ("discard R5 R6", "parse.arguments", "exactly one piece"),
        ("add 1 R14", "parse.piece", '"R14": value must be 1-13'),
        ("", "parse.empty", "Nothing"),
    ],
)
def test_command_errors(text, code, fragment):
    with pytest.raises(RummyError) as info:
        parse_commands(text)
    assert info.value.code == code
    assert fragment in info.value.message()
