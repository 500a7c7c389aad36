"""The player help through the engine's command path: ``place PIECES`` and ``hint``.

``place`` lets the solver fit exactly the named rack pieces into the table (rearranging it where
needed) or says precisely why not; ``hint`` answers privately with a command that, typed, is
accepted (RULES.md / DESIGN.md "Notation").
"""

from __future__ import annotations

import re

import pytest

from engine.errors import RummyError
from engine.game import new_game
from engine.melds import readings
from engine.rules import preset

from .helpers import game, hand, rejects, table


def _valid(g) -> bool:
    spec = g.rules.meld_spec
    return all(readings(m, spec) for m in g.table_faces(working=True))


def test_place_rearranges_the_table_to_fit_exactly_the_named_piece():
    g = game("rummikub", "B2 B3 B4 B5 B6", "B4 K9")
    g.apply(0, "place B4")
    assert sorted(table(g, working=True)) == ["B2 B3 B4", "B4 B5 B6"]
    assert hand(g) == ["K9"]
    g.apply(0, "done")
    assert g.current == 1 and g.racks[0] and len(g.table) == 2


def test_place_several_pieces_uses_table_tiles_and_keeps_the_rest_of_the_rack():
    g = game("rummikub", "R3 R4 R5 R6 | B7 Y7 K7", "R7 R7 B1")
    g.apply(0, "place R7 R7")
    assert _valid(g)
    assert hand(g) == ["B1"]
    laid = [f for m in g.table_faces(working=True) for f in m]
    assert len(laid) == 9


def test_place_says_which_pieces_cannot_be_placed_and_changes_nothing():
    g = game("rummikub", "B2 B3 B4", "K9 K11")
    err = rejects(g, "place K9 K11", "place.impossible")
    assert "K9 K11" in err.message("en")
    assert "K9 K11" in err.message("de")


def test_place_names_a_piece_that_is_not_in_the_rack():
    g = game("rummikub", "B2 B3 B4", "B5")
    err = rejects(g, "place B5 B6", "piece.not_in_rack")
    assert "B6" in err.message("en")


def test_place_before_the_rummikub_opening_needs_thirty_points_from_the_rack():
    g = game("rummikub", "B2 B3 B4", "R1 R2 R3 B5", opened=(False,))
    rejects(g, "place R1 R2 R3", "place.impossible")  # 6 points only
    rejects(g, "place B5", "place.impossible")  # the table is locked before opening
    g2 = game("rummikub", "", "R9 R10 R11 K1", opened=(False,))
    g2.apply(0, "place R9 R10 R11; done")
    assert g2.opened[0]


def test_place_in_stein_then_discard_ends_the_turn():
    g = game("stein", "B12 B13 B1", "B2 R7 Y5")
    g.apply(0, "place B2")
    assert _valid(g)
    g.apply(0, "discard R7")
    assert g.current == 1


def test_place_is_refused_when_the_host_switched_help_off():
    rules = preset("rummikub").with_options(help_allowed=False)
    from engine.tiles import TileGame

    g = TileGame.position(rules, "B2 B3 B4", ["B5"], opened=(True,))
    rejects(g, "place B5", "help.not_allowed")
    rejects(g, "hint", "help.not_allowed")


def _hint_command(events, seat: int = 0) -> str:
    (event,) = [e for e in events if e.kind == "hint"]
    assert event.private and event.seat == seat
    found = re.search(r": (place .+)$", event.text)
    return found.group(1) if found else ""


def test_hint_is_private_and_its_command_is_accepted_when_typed():
    g = game("rummikub", "B2 B3 B4 B5 B6 | R8 Y8 K8", "B4 B8 K1")
    before = g.to_json()
    events = g.apply(0, "hint")
    assert g.to_json() == before  # a hint changes nothing
    command = _hint_command(events)
    assert command.startswith("place ")
    assert sorted(command.split()[1:]) == ["B4", "B8"]
    g.apply(0, command)
    g.apply(0, "done")
    assert hand(g, 0) == ["K1"]


def test_hint_when_nothing_fits_says_to_draw_and_draw_is_accepted():
    g = game("rummikub", "B2 B3 B4", "K9 R11")
    (event,) = g.apply(0, "hint")
    assert event.private and "draw" in event.text
    g.apply(0, "draw")
    assert g.current == 1


def test_hint_in_stein_after_the_draws_then_the_named_place_and_a_discard():
    g = game("stein", "Y11 Y12 Y13", "Y1 Y2 R5 K9")
    command = _hint_command(g.apply(0, "hint"))
    assert command == "place Y1 Y2"
    g.apply(0, command)
    g.apply(0, "discard K9")
    assert g.current == 1 and hand(g, 0) == ["R5"]


def test_hint_from_a_seat_not_to_move_is_refused():
    g = game("rummikub", "B2 B3 B4", "B5", "K1")
    rejects(g, "hint", "turn.not_yours", seat=1)


@pytest.mark.parametrize(("name", "seeds", "moves"), [("rummikub", 3, 30), ("stein_plus", 1, 12)])
def test_every_hint_in_real_games_is_a_command_the_engine_accepts(name, seeds, moves):
    from engine.ai import choose_move

    checked = 0
    for seed in range(seeds):
        g = new_game(preset(name), ["a", "b", "c", "d"], seed)
        for _ in range(moves):
            if g.status != "playing":
                break
            seat = g.current
            if not g.is_stein or g.draws_complete():
                command = _hint_command(g.apply(seat, "hint"), seat)
                if command:
                    try:
                        g.copy().apply(seat, command)
                        checked += 1
                    except RummyError as exc:  # only the engine's own budget may refuse
                        assert exc.code == "place.too_hard", exc.message()
            g.apply(seat, choose_move(g, seat, level="medium"))
    assert checked > 0


def test_place_keeps_table_jokers_in_their_melds():
    """The solver treats jokers as free; place must not take a group joker away without the
    fourth tile (docs/DECISIONS.md), exactly as `move 1 J > new` is refused."""
    from engine.rules import STEIN
    from engine.tiles import TileGame

    g = TileGame.position(STEIN, "B5 Y5 J | B2 B3 B4 | Y6 Y7 Y8", ["K10 K11 R1"], opened=[True])
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(0, "place K10 K11")
    assert info.value.code == "place.impossible"
    assert g.to_json() == before


def test_place_may_extend_a_joker_run():
    from engine.rules import RUMMIKUB
    from engine.tiles import TileGame

    g = TileGame.position(RUMMIKUB, "R1 R2 R3 J | B5 B6 B7", ["R5 B8"], opened=[True])
    g.apply(0, "place R5 B8")
    assert [" ".join(map(str, m)) for m in g.table_faces(working=True)] == [
        "R1 R2 R3 J R5",
        "B5 B6 B7 B8",
    ]


@pytest.mark.parametrize("name", ["stein", "rummikub_free"])
def test_hint_keeps_table_jokers_in_their_melds_when_the_best_play_would_move_one(name):
    """The best play (K10 K11 with the group's joker) would take a joker out of its meld, which
    the rules forbid (docs/DECISIONS.md): the hint is the best play that keeps it there, and
    typed it is accepted."""
    from engine.rules import RUMMIKUB, STEIN
    from engine.tiles import TileGame

    rules = STEIN if name == "stein" else RUMMIKUB.with_options(joker_meld_no_split=False)
    g = TileGame.position(rules, "B5 Y5 K5 J | R10 R11 R12", ["K10 K11 R13"], opened=[True])
    events = g.apply(0, "hint")
    assert events[0].text == (
        "Best move that keeps the table jokers in their melds (1 tile): place R13"
    )
    assert "(1 Stein): place R13" in events[0].text_de
    g.apply(0, _hint_command(events))
    assert [" ".join(map(str, m)) for m in g.table_faces(working=True)] == [
        "B5 Y5 K5 J",
        "R10 R11 R12 R13",
    ]
