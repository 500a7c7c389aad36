"""``TileGame.probe``: a message checked on a copy, taken over by ``apply`` of the same message.

Probing never changes the game; ``apply`` after a probe gives exactly the events and the state
``apply`` gives without one; a probe of a game changed since (or of another message or seat) is
never taken over; a probe extended by more commands gives what the whole message gives.
"""

from __future__ import annotations

import random

import pytest

from engine.ai import choose_move
from engine.errors import RummyError
from engine.game import new_game
from engine.rules import preset
from engine.tiles import TileGame

from .helpers import game


def twins(g: TileGame) -> tuple[TileGame, TileGame]:
    return TileGame.from_json(g.to_json()), TileGame.from_json(g.to_json())


def test_a_probe_changes_nothing_and_apply_takes_it_over_exactly():
    g = game("rummikub", "R5 R6 R7 | B9 Y9 K9", "R8 K4 K5 K6 Y2")
    plain, probed = twins(g)
    before = probed.to_json()
    after = probed.probe(0, "add 1 R8; meld K4 K5 K6")
    assert after is not None and probed.to_json() == before
    assert [" ".join(map(str, m)) for m in after.table_faces(working=True)][-1] == "K4 K5 K6"
    events = probed.apply(0, "add 1 R8; meld K4 K5 K6")
    assert events == plain.apply(0, "add 1 R8; meld K4 K5 K6")
    assert probed.to_json() == plain.to_json()


def test_a_refused_message_probes_to_none():
    g = game("rummikub", "R5 R6 R7", "K4 K5 Y2")
    before = g.to_json()
    assert g.probe(0, "meld K4 K5 Y2") is None
    assert g.probe(1, "draw") is None  # not the seat to move
    assert g.probe(0, "frobnicate") is None  # not a command
    assert g.to_json() == before


def test_a_probe_of_a_changed_game_is_not_taken_over():
    g = game("rummikub", "R5 R6 R7", "R8 R4 K5", "Y1 Y2")
    plain, probed = twins(g)
    assert probed.probe(0, "add 1 R8") is not None
    probed.turn.rack.remove(probed.turn.rack[0])  # the game changes after the probe
    plain.turn.rack.remove(plain.turn.rack[0])
    with pytest.raises(RummyError) as a:
        probed.apply(0, "add 1 R8")
    with pytest.raises(RummyError) as b:
        plain.apply(0, "add 1 R8")
    assert a.value.code == b.value.code == "piece.not_in_rack"
    assert probed.to_json() == plain.to_json()


def test_another_message_or_seat_runs_afresh():
    g = game("rummikub", "R5 R6 R7", "R8 R4 K5", "Y1 Y2")
    plain, probed = twins(g)
    assert probed.probe(0, "add 1 R8") is not None
    assert probed.apply(0, "add 1 R4") == plain.apply(0, "add 1 R4")
    assert probed.to_json() == plain.to_json()
    with pytest.raises(RummyError):
        probed.apply(1, "add 1 R8")


def test_an_extended_probe_gives_what_the_whole_message_gives():
    g = game("rummikub", "R5 R6 R7 | B9 Y9 K9", "R8 K4 K5 K6 Y2")
    plain, probed = twins(g)
    first = probed.probe(0, "add 1 R8")
    assert first is not None
    assert probed.probe(0, "add 1 R8; meld K4 K5 K6; done") is not None
    whole = plain.apply(0, "add 1 R8; meld K4 K5 K6; done")
    assert probed.apply(0, "add 1 R8; meld K4 K5 K6; done") == whole
    assert probed.to_json() == plain.to_json()


def test_an_extension_runs_as_one_message_would():
    """The seat is checked once for a whole message: an extension is checked the same way."""
    g = game("rummikub", "R5 R6 R7", "R8 K4 K5 K6", "Y1 Y2")
    text = "add 1 R8; meld K4 K5 K6; done; draw"
    plain, probed = twins(g)
    assert probed.probe(0, "add 1 R8; meld K4 K5 K6; done") is not None
    after = probed.probe(0, text)
    try:
        whole = plain.apply(0, text)
    except RummyError:
        assert after is None
    else:
        assert after is not None and probed.apply(0, text) == whole
        assert probed.to_json() == plain.to_json()


def test_a_refused_extension_keeps_the_probe_before_it():
    g = game("rummikub", "R5 R6 R7 | B9 Y9 K9", "R8 K4 K5 Y2")
    plain, probed = twins(g)
    assert probed.probe(0, "add 1 R8") is not None
    assert probed.probe(0, "add 1 R8; meld K4 K5 Y2") is None
    assert probed.apply(0, "add 1 R8") == plain.apply(0, "add 1 R8")
    assert probed.to_json() == plain.to_json()


@pytest.mark.parametrize("name", ["rummikub", "stein", "stein_plus"])
def test_computer_games_are_the_same_with_and_without_probes(name):
    """Every move of a computer player is probed before it is applied: the game must be the one
    the same moves give when each message is run afresh on a loaded copy."""
    rules = preset(name)
    g = new_game(rules, ["a", "b", "c"], 7)
    fresh = TileGame.from_json(g.to_json())
    levels = ["medium", "strong", "easy"]
    for _ in range(60):
        if g.status != "playing":
            break
        seat = g.current
        text = choose_move(g, seat, levels[seat], random.Random(seat))
        events = g.apply(seat, text)
        fresh = TileGame.from_json(fresh.to_json())  # no probe kept
        assert fresh.apply(seat, text) == events
        assert fresh.to_json() == g.to_json()


def test_probe_part_tells_how_many_commands_were_accepted():
    """A message refused at its second command: the first is kept as the probe of just it, and
    the game after it is the game that command alone gives."""
    g = game("rummikub", "R5 R6 R7 | B9 Y9 K9", "R8 K4 K5 Y2")
    plain, probed = twins(g)
    accepted, after = probed.probe_part(0, "add 1 R8; meld K4 K5 Y2; done")
    assert accepted == 1 and after is not None
    assert after.to_json() == TileGame.from_json(plain.to_json()).probe(0, "add 1 R8").to_json()
    assert probed.apply(0, "add 1 R8") == plain.apply(0, "add 1 R8")
    assert probed.to_json() == plain.to_json()
    assert probed.probe_part(0, "meld K4 K5 Y2") == (0, None)


def test_a_refused_table_command_leaves_the_game_as_it_was():
    g = game("rummikub", "R5 R6 R7", "R8 K4 K5 Y2")
    before = g.to_json()
    with pytest.raises(RummyError):
        g.apply(0, "add 1 R8; meld K4 K5 Y2")
    assert g.to_json() == before
