"""Notation: pieces, melds and commands parse and print canonically (DESIGN.md "Notation")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.commands import (
    ALIASES,
    SEPARATORS,
    VERBS,
    Command,
    first_verb,
    parse_command,
    parse_commands,
)
from engine.errors import RummyError
from engine.pieces import Card, Tile, format_faces, format_melds, parse_faces, parse_melds
from engine.rules import preset
from engine.tiles import TileGame
from i18n import error_text


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
    assert fragment in error_text(info.value, "en")
    assert text in error_text(info.value, "de")


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
    assert '"11H"' in error_text(info.value)
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
        "discard 2 B1": "discard 2 B1",
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
    assert fragment in error_text(info.value)


# ---------------------------------------------------------------------- separators (issue 13, 9)

cards = st.builds(Card, st.integers(0, 3), st.integers(1, 13)) | st.just(Card.joker())
meld_numbers = st.integers(1, 30)


def command_strategy(faces, family):
    """Any valid command of the language, as a Command value."""
    pieces = st.lists(faces, min_size=1, max_size=5).map(tuple)
    one = faces.map(lambda f: (f,))
    table_discard = st.builds(Command, st.just("discard"), meld=meld_numbers, pieces=one)
    return st.one_of(
        table_discard if family == "tile" else st.just(Command("done")),
        st.sampled_from(["draw", "hint", "undo", "reset", "done", "knock"]).map(Command),
        st.just(Command("pick")),
        st.builds(Command, st.sampled_from(["pick", "discard"]), pieces=one),
        st.builds(
            Command, st.just("meld"), melds=st.lists(pieces, min_size=1, max_size=4).map(tuple)
        ),
        st.builds(Command, st.sampled_from(["add", "swap"]), meld=meld_numbers, pieces=pieces),
        st.builds(Command, st.sampled_from(["split", "take"]), meld=meld_numbers, pieces=one),
        st.builds(Command, st.sampled_from(["claim", "unclaim"]), meld=meld_numbers),
        st.builds(Command, st.just("place"), pieces=pieces),
        st.builds(Command, st.just("join"), meld=meld_numbers, target=meld_numbers),
        st.builds(
            Command,
            st.just("move"),
            meld=meld_numbers,
            pieces=pieces,
            target=meld_numbers | st.just("new"),
        ),
    )


spaces = st.text(alphabet=" \t", max_size=3)
separator = st.builds(
    lambda a, sep, b: a + sep + b,
    spaces,
    st.sampled_from([*SEPARATORS, "\r\n", ";;", "|\n"]),
    spaces,
)


@st.composite
def typed(draw, commands):
    """The commands as a player might type them: any separators with any spacing between the
    commands and between the melds of a ``meld``, and ``>`` with or without spaces."""
    parts = []
    for c in commands:
        text = str(c)
        # any spelling of the verb, in any case
        spelling = draw(st.sampled_from(VERBS[c.verb]))
        spelling = "".join(ch.upper() if draw(st.booleans()) else ch for ch in spelling)
        text = spelling + text[len(c.verb) :]
        if c.verb == "meld":
            melds = str(c).removeprefix("meld ").split(" | ")
            text = f"{spelling} " + "".join(m + draw(separator) for m in melds[:-1]) + melds[-1]
        elif c.verb == "move":
            text = text.replace(" > ", draw(spaces) + ">" + draw(spaces))
        parts.append(text)
    joined = "".join(p + draw(separator) for p in parts[:-1]) + parts[-1]
    return draw(spaces) + joined + draw(st.sampled_from(["", ";", "\n", " | "]))


@pytest.mark.parametrize(("family", "faces"), [("tile", tiles), ("card", cards)])
@given(data=st.data())
def test_any_separators_with_any_spacing_parse_to_the_same_commands(family, faces, data):
    commands = data.draw(st.lists(command_strategy(faces, family), min_size=1, max_size=6))
    text = data.draw(typed(commands))
    assert parse_commands(text, family) == commands, repr(text)


@pytest.mark.parametrize(
    "text",
    [
        "draw; draw; discard B4",
        "draw;draw;discard B4",
        "draw|draw|discard B4",
        "draw | draw | discard B4",
        "draw\ndraw\ndiscard B4",
        "draw\r\ndraw\r\ndiscard B4\n",
        " draw ;draw| discard B4 ",
    ],
)
def test_draw_draw_discard_in_every_spelling(text):
    assert [str(c) for c in parse_commands(text)] == ["draw", "draw", "discard B4"]
    assert first_verb(text) == "draw"


def test_first_verb():
    assert first_verb("ZIEHEN;pick Y3") == "draw"
    assert first_verb("  \n ; meld R1 R2 R3") == "meld"
    assert first_verb("") is None
    assert first_verb("R1 R2 R3") is None


def test_melds_of_one_meld_command_with_every_separator():
    commands = parse_commands("meld R5 R6 R7|B9 Y9 K9;R1 R2 R3\nK4 K5 K6 | done")
    assert [str(c) for c in commands] == ["meld R5 R6 R7 | B9 Y9 K9 | R1 R2 R3 | K4 K5 K6", "done"]


# ---------------------------------------------------------------------- a missing separator


@pytest.mark.parametrize("word", sorted(ALIASES))
@pytest.mark.parametrize(("family", "meld"), [("tile", "R1 R2 R3"), ("card", "9C 9H 9S")])
def test_a_command_word_inside_a_meld_is_a_missing_separator(word, family, meld):
    text = f"meld {meld} {word}"
    with pytest.raises(RummyError) as info:
        parse_commands(text, family)
    error = info.value
    assert error.code == "parse.missing_separator"
    en, de = error_text(error, "en"), error_text(error, "de")
    assert f'"{word}" is a command word' in en and f'"{text}"' in en
    assert f"e.g. meld {meld}; {word}" in en
    assert f'"{word}" ist ein Befehlswort' in de and f"z. B. meld {meld}; {word}" in de
    assert "colour" not in en and "Farbe" not in de


@pytest.mark.parametrize(
    ("text", "token", "suggestion"),
    [
        ("add 1 R5 done", "done", "add 1 R5; done"),
        ("discard B4 draw", "draw", "discard B4; draw"),
        ("draw done", "done", "draw; done"),
        ("move 1 R5 > new undo", "undo", "move 1 R5 > new; undo"),
        ("claim 2 end", "end", "claim 2; end"),
        ("place R1 R2 hint", "hint", "place R1 R2; hint"),
        ("meld R1 R2 R3; B4 B5 B6 fertig", "fertig", "B4 B5 B6; fertig"),
        ("meld R1 R2 R3,done", "done", "meld R1 R2 R3; done"),
        ("meld R1,R2,R3 Done", "Done", "meld R1 R2 R3; Done"),
    ],
)
def test_missing_separator_in_every_command(text, token, suggestion):
    with pytest.raises(RummyError) as info:
        parse_commands(text)
    assert info.value.code == "parse.missing_separator"
    assert info.value.params["token"] == token
    assert info.value.params["suggestion"] == suggestion


def test_discard_from_a_table_meld_is_a_tile_command():
    assert parse_command("discard 3 R5") == Command("discard", meld=3, pieces=(Tile(1, 5),))
    with pytest.raises(RummyError) as info:
        parse_command("discard 2 10H", "card")  # cards are discarded from the hand only
    assert info.value.code == "parse.piece" and '"2"' in error_text(info.value)


@pytest.mark.parametrize(
    ("preset_name", "hand", "text"),
    [
        ("rummikub", "R10 R11 R12 B5", "meld R10 R11 R12 done"),
        ("stein", "R1 R2 R3 B5", "meld R1 R2 R3 discard B5"),
        ("stein", "R1 R2 R3 B5", "meld R1 R2 R3|B5 done"),
    ],
)
def test_a_missing_separator_changes_nothing_in_a_game(preset_name, hand, text):
    g = TileGame.position(preset(preset_name), "", [hand], opened=[True])
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, text)
    assert info.value.code == "parse.missing_separator"
    assert g.to_json() == before


def test_the_same_turn_with_or_without_spaces_in_a_game():
    results = set()
    for text in ("meld R10 R11 R12 ; done", "meld R10 R11 R12;done", "meld R10 R11 R12|done"):
        g = TileGame.position(preset("rummikub"), "", ["R10 R11 R12 B5"], opened=[True])
        g.apply(0, text)
        results.add(g.to_json())
    assert len(results) == 1


@pytest.mark.parametrize(
    ("family", "text", "en", "de"),
    [
        ("tile", "discard R5 R6", '"discard": name exactly one piece', "genau einen Stein nennen"),
        ("card", "discard 5H 6H", '"discard": name exactly one card', "genau eine Karte nennen"),
        ("tile", "add 1", "usage: add N PIECES", "Form: add N STEINE"),
        ("card", "add 1", "usage: add N CARDS", "Form: add N KARTEN"),
        ("card", "swap 1", "usage: swap N CARD", "Form: swap N KARTE"),
        ("tile", "move 1 R5", "usage: move N PIECES > M (or > new)", "move N STEINE > M (oder"),
    ],
)
def test_argument_errors_speak_of_the_family_in_both_languages(family, text, en, de):
    with pytest.raises(RummyError) as info:
        parse_commands(text, family)
    assert info.value.code == "parse.arguments"
    assert en in error_text(info.value, "en")
    assert de in error_text(info.value, "de")
    if family == "card":
        assert "piece" not in error_text(info.value, "en").lower()
        assert "Stein" not in error_text(info.value, "de")
