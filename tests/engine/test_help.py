"""The player help through the engine's command path: ``place PIECES`` and ``hint``.

``place`` lets the solver fit exactly the named rack pieces into the table (rearranging it where
needed) or says precisely why not; ``hint`` answers privately, for the state of the turn, with
a command that typed back is accepted and ends the turn - or names what comes first: the Stein
draws, or ``reset`` (issue 13 defect 12; RULES.md "A turn", engine/hints.py).
"""

from __future__ import annotations

import random

import pytest

from engine.errors import RummyError
from engine.game import new_game
from engine.hints import hint_command
from engine.melds import readings
from engine.rules import preset
from i18n import error_text, event_text

from .helpers import game, hand, rejects, table
from .test_hint_property import check_hint, whole_turn


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
    assert "K9 K11" in error_text(err, "en")
    assert "K9 K11" in error_text(err, "de")


def test_place_names_a_piece_that_is_not_in_the_rack():
    g = game("rummikub", "B2 B3 B4", "B5")
    err = rejects(g, "place B5 B6", "piece.not_in_rack")
    assert "B6" in error_text(err, "en")


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


def _hint(g, seat: int = 0):
    """Ask for a hint: it is private, changes nothing and names one command in en and de."""
    before = g.to_json()
    (event,) = g.apply(seat, "hint")
    assert g.to_json() == before
    assert event.kind == "hint" and event.private and event.seat == seat
    command = hint_command(event)
    assert event_text(event, "de").endswith(": " + command)
    return event, command


def test_hint_is_private_and_its_command_is_accepted_when_typed():
    g = game("rummikub", "B2 B3 B4 B5 B6 | R8 Y8 K8", "B4 B8 K1")
    event, command = _hint(g)
    assert event_text(event) == "Best move (2 tiles): place B4 B8; done"
    assert event_text(event, "de") == "Bester Zug (2 Steine): place B4 B8; done"
    assert event.pieces == ("B4", "B8")  # what leaves the rack, for highlighting
    g.apply(0, command)
    assert g.current == 1 and hand(g, 0) == ["K1"]


def test_hint_when_nothing_fits_says_to_draw_and_draw_is_accepted():
    g = game("rummikub", "B2 B3 B4", "K9 R11")
    event, command = _hint(g)
    assert event_text(event) == "No move places a tile: draw"
    assert event_text(event, "de") == "Kein Zug legt einen Stein: draw"
    g.apply(0, command)
    assert g.current == 1


def test_hint_in_stein_after_the_draws_lays_off_and_names_the_discard():
    g = game("stein", "Y11 Y12 Y13", "Y1 Y2 R5 K9")
    _event, command = _hint(g)
    assert command == "add 1 Y1 Y2; discard K9"  # R5 and K9 fit nothing: the first one goes
    g.apply(0, command)
    assert g.current == 1 and hand(g, 0) == ["R5"]


def test_hint_in_stein_before_and_between_the_draws_names_the_draws():
    """Stein: drawing comes first (RULES.md); a play offered now would be refused."""
    g = game("stein", "R4 R5 R6", "Y1 Y2 K9 B3", draws_done=False)
    rejects(g, "meld Y1 Y2 B3", "turn.draw_first")
    event, command = _hint(g)
    assert (event_text(event), event_text(event, "de")) == (
        "Draw first: draw; draw",
        "Zuerst ziehen: draw; draw",
    )
    g.apply(0, "draw")  # one of the two
    event, command = _hint(g)
    assert command == "draw"
    g.apply(0, command)
    assert g.draws_complete()
    event, command = _hint(g)  # now a whole turn
    g.apply(0, command)
    assert g.current == 1


def test_hint_before_the_draws_picks_a_discard_that_makes_a_meld():
    g = game("stein", "R4 R5 R6", "Y1 Y2 K9 B3", draws_done=False, discards="B7 Y3 K12")
    event, command = _hint(g)
    assert command == "pick Y3; draw"
    assert "Y3 from the discard stock makes a meld" in event_text(event)
    assert "Y3 aus dem Alt-Bestand" in event_text(event, "de")
    g.apply(0, command)
    assert g.draws_complete() and "Y3" in hand(g)
    g2 = game("stein", "R4 R5 R6", "Y1 Y2 K9 B3", draws_done=False, discards="B7 K12")
    assert _hint(g2)[1] == "draw; draw"
    g3 = game("stein", "R4 R5 R6", "Y1 Y2 K9 B3", draws_done=False, discards="R7 K12")
    event, command = _hint(g3)  # R7 fits the table's run: worth more than an unknown tile
    assert command == "pick R7; draw" and "R7 from the discard stock fits a meld" in event_text(
        event
    )
    assert "R7 aus dem Alt-Bestand passt an eine Kombination" in event_text(event, "de")
    g4 = game("stein", "R4 R5 R6", "Y1 Y2", "K1", opened=(False,), draws_done=False, discards="R7")
    assert _hint(g4)[1] == "draw; draw"  # before opening the table is out of reach


def test_hint_after_table_changes_takes_them_back_before_drawing():
    """Rummikub refuses a draw after the table changed (docs/DECISIONS.md): reset first."""
    g = game("rummikub", "B2 B3 B4 B5 B6 | R8 Y8 K8", "K1 Y11")
    g.apply(0, "split 1 B5")
    rejects(g, "draw", "turn.draw_after_play")
    event, command = _hint(g)
    assert command == "reset; draw"
    assert event_text(event).startswith("No move places a tile; take back your changes first")
    assert event_text(event, "de").startswith("Kein Zug legt einen Stein; nimm zuerst")
    g.apply(0, command)
    assert g.current == 1


def test_hint_after_a_play_that_is_complete_says_done():
    g = game("rummikub", "B2 B3 B4", "R1 R2 R3 K9")
    g.apply(0, "meld R1 R2 R3")
    event, command = _hint(g)
    assert (event_text(event), event_text(event, "de")) == (
        "No further tile fits: done",
        "Kein weiterer Stein passt: done",
    )
    g.apply(0, command)
    assert g.current == 1 and hand(g, 0) == ["K9"]


def test_hint_after_a_partial_play_counts_the_further_tiles():
    g = game("stein", "B2 B3 B4", "R1 R2 R3 B5 B6 K9")
    g.apply(0, "meld R1 R2 R3")
    event, command = _hint(g)
    assert event_text(event) == "Best move (2 more tiles): add 1 B5 B6; discard K9"
    assert event_text(event, "de") == "Bester Zug (2 weitere Steine): add 1 B5 B6; discard K9"
    g.apply(0, command)
    assert g.status == "finished" and g.result.winner == 0


def test_hint_after_moves_that_block_the_opening_starts_the_turn_again():
    """Moves of the player's own new melds left an invalid meld before the Rummikub opening:
    the hint does not give up ("No move places a tile") but starts again with all six tiles."""
    g = game("rummikub", "", "R10 R11 R12 R13 B13 K13 Y1", opened=(False,))
    g.apply(0, "meld R10 R11 R12 R13; move 1 R13 > new")
    event, command = _hint(g)
    assert event_text(event).startswith(
        "Best move, starting again from the start of your turn (6 tiles)"
    )
    assert "neu ab Beginn deines Zuges (6 Steine)" in event_text(event, "de")
    assert command.startswith("reset; ") and command.endswith("; done")
    g.apply(0, command)
    assert g.opened[0] and hand(g, 0) == ["Y1"]


@pytest.mark.parametrize("name", ["rummikub", "stein"])
def test_hint_frees_a_table_joker_when_the_swap_places_more(name):
    """swap R5 for the joker, then the joker in a new meld with rack tiles (RULES.md): three
    tiles, where laying off alone places one."""
    g = game(name, "R4 J R6 | B9 B10 B11", "R5 K7 Y7 B1")
    event, command = _hint(g)
    end = "done" if name == "rummikub" else "discard B1"
    assert event_text(event) == f"Best move (3 tiles): swap 1 R5; meld Y7 K7 J; {end}"
    g.apply(0, command)
    assert table(g) == ["R4 R5 R6", "B9 B10 B11", "Y7 K7 J"]
    assert g.status == "finished" if name == "stein" else hand(g, 0) == ["B1"]


def test_hint_after_a_manual_swap_puts_the_freed_joker_into_a_new_meld():
    g = game("rummikub", "R4 J R6 | B9 B10 B11", "R5 K7 Y7 B1")
    g.apply(0, "swap 1 R5")
    event, command = _hint(g)
    assert event_text(event) == "Best move (3 more tiles): meld Y7 K7 J; done"
    assert event_text(event, "de") == "Bester Zug (3 weitere Steine): meld Y7 K7 J; done"
    g.apply(0, command)
    assert hand(g, 0) == ["B1"]


def test_hint_when_a_freed_joker_sits_in_an_old_meld_starts_again():
    """RULES.md Rummikub: the freed joker goes into a new meld with rack tiles, so after
    `add 2 J` the turn cannot end; the hint takes it back and plays the swap properly."""
    g = game("rummikub", "R4 J R6 | B9 B10 B11", "R5 K7 Y7 B1")
    g.apply(0, "swap 1 R5; add 2 J")
    event, command = _hint(g)
    assert command == "reset; swap 1 R5; meld Y7 K7 J; done"
    assert event_text(event).startswith(
        "Best move, starting again from the start of your turn (3 tiles)"
    )
    g.apply(0, command)
    assert hand(g, 0) == ["B1"]


def test_hint_frees_a_stein_group_joker_with_both_missing_tiles():
    g = game("stein", "B5 Y5 J | R9 R10 R11", "R5 K5 B1 B2 Y12")
    event, command = _hint(g)
    assert command.startswith("swap 1 ") and "(4 tiles)" in event_text(event)
    g.apply(0, command)
    assert hand(g, 0) == []  # the fifth tile was the discard


def test_hint_still_gives_an_accepted_move_when_the_solver_runs_out_of_time(monkeypatch):
    from engine import hints
    from engine.solver import forget_recent

    monkeypatch.setattr(hints, "HELP_BUDGET", 1)  # the budget the hint's solves use
    forget_recent()
    g = game("rummikub", "B2 B3 B4 B5 B6 | R8 Y8 K8 | K10 K11 K12", "R1 R2 R3 B7 B8 Y9 K9")
    event, command = _hint(g)
    forget_recent()
    assert event_text(event).startswith("The table is too involved for an exact answer right now.")
    assert event_text(event, "de").startswith("Der Tisch ist gerade zu verzwickt")
    assert "A good move (6 tiles)" in event_text(event)  # a simple legal turn, not the exact best
    g.apply(0, command)
    assert g.current == 1 and hand(g, 0) == ["Y9"]


def test_hint_in_stein_plus_claims_the_group_of_four_it_forms():
    g = game("stein_plus", "B7 R7 Y7 | K1 K2 K3", "K7 B9 Y12")
    _event, command = _hint(g)
    assert command == "add 1 K7; claim 1; discard B9"
    g.apply(0, command)
    assert g.table[0].claim == 0


def test_hint_from_a_seat_not_to_move_is_refused():
    g = game("rummikub", "B2 B3 B4", "B5", "K1")
    rejects(g, "hint", "turn.not_yours", seat=1)


@pytest.mark.parametrize(("name", "seeds", "moves"), [("rummikub", 3, 30), ("stein_plus", 1, 12)])
def test_every_hint_in_computer_games_is_accepted_and_ends_the_turn(name, seeds, moves):
    from engine.ai import choose_move

    for seed in range(seeds):
        g = new_game(preset(name), ["a", "b", "c", "d"], seed)
        for _ in range(moves):
            if g.status != "playing":
                break
            seat = g.current
            check_hint(g)
            try:
                g.apply(seat, choose_move(g, seat, level="medium"))
            except RummyError:  # not the hint's concern here: go on with a plain turn
                whole_turn(g, random.Random(seed))


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
    event, command = _hint(g)
    end = "discard K10" if name == "stein" else "done"
    assert event_text(event) == (
        f"Best move that keeps the table jokers in their melds (1 tile): add 2 R13; {end}"
    )
    assert "(1 Stein): add 2 R13" in event_text(event, "de")
    g.apply(0, command)
    assert table(g) == ["B5 Y5 K5 J", "R10 R11 R12 R13"]


@pytest.mark.parametrize(
    ("name", "position", "before", "expected"),
    [
        ("rummikub", ("R4 J R6 | B9 B10 B11", "R5 K7 Y7 B1"), "", "swap 1 R5; meld Y7 K7 J; done"),
        ("rummikub", ("B2 B3 B4 B5 B6 | R8 Y8 K8", "K1 Y11"), "split 1 B5; ", "reset; draw"),
        ("stein", ("Y11 Y12 Y13", "Y1 Y2 R5 K9"), "", "add 1 Y1 Y2; discard K9"),
    ],
)
def test_hint_through_rummy_turn_is_accepted_typed_back(name, position, before, expected):
    """The same hints through the command-line contract (`rummy turn ... "hint"`)."""
    from rummy_tools.engine_cli import tile_turn

    rules = preset(name)
    asked = tile_turn(rules, *position, True, before + "hint", lang="de")
    assert asked["ok"] and asked["command"] == expected
    assert asked["hint"].endswith(": " + expected) and asked["hint"].startswith(("Bester", "Kein"))
    played = tile_turn(rules, *position, True, before + expected)
    assert played["ok"], played["error"]


def test_hint_through_rummy_turn_before_the_stein_draws():
    from rummy_tools.engine_cli import tile_turn

    rules = preset("stein")
    args = (rules, "R4 R5 R6", "Y1 Y2 K9 B3", True)
    asked = tile_turn(*args, "hint", discards="B7 Y3", before_draws=True)
    assert asked["command"] == "pick Y3; draw"
    follow = tile_turn(*args, "pick Y3; draw; hint", discards="B7 Y3", before_draws=True)
    assert follow["ok"] and "Y3" in follow["hand"]
    done = tile_turn(
        *args, f"pick Y3; draw; {follow['command']}", discards="B7 Y3", before_draws=True
    )
    assert done["ok"], done["error"]
