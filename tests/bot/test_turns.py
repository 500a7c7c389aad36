"""Moves in words (issue 16 item 2): what a turn did, from the positions at its start and end
(:func:`bot.service.turns.summarize` over real engine games), worded in English and German, the
picture's highlight (only the pieces laid or moved), and the service telling every finished turn
(people's and computer players') with its turn-end message over a real SQLite file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameOver, ServiceConfig, TablePicture, TurnPrompt
from bot.service.turns import (
    TurnMoves,
    TurnTracker,
    capture,
    highlighted,
    rack_order,
    summarize,
    working_view,
)
from bot.wiring import open_service
from engine.cards import CardGame
from engine.tiles import TileGame
from engine.variants import variant


def played(preset: str, table: str, hands: list[str], text: str, **kw) -> tuple[TurnMoves, object]:
    """Seat 0 ("Anna") plays ``text`` in a tile game at this position: the turn's moves."""
    rules = variant(preset).rules
    kw.setdefault("opened", (True, True))
    game = TileGame.position(rules, table, hands, **kw)
    start = capture(game, 0)
    events = game.apply(0, text)
    end = capture(game, 0)
    picks = [p for e in events if e.kind == "pick" for p in e.pieces]
    kinds = [e.kind for e in events if not e.private]
    actions, highlight = summarize(start, end, game.deck, picks=picks, kinds=kinds)
    moves = TurnMoves("g", 0, "Anna", "tile", 1, actions, len(end.rack), highlight)
    return moves, game


def test_a_new_meld_and_one_tile_added_are_told_and_only_they_light_up() -> None:
    moves, game = played(
        "rummikub", "B2 R2 Y2 | K3 K4 K5", ["K2 R5 R6 R7 Y9 Y10"], "meld R5 R6 R7; add 1 K2; done"
    )
    assert moves.message("en") == (
        "Anna added K2 to meld 1 and laid R5 R6 R7 (meld 3) · 2 tiles left"
    )
    assert moves.message("de") == (
        "Anna hat K2 an Kombination 1 angelegt und R5 R6 R7 ausgelegt (Kombination 3)"
        " · noch 2 Steine"
    )
    view = highlighted(game.public_view(), moves)
    # the engine marks the whole changed group (all four 2s); the picture marks only K2
    assert len(game.public_view().melds[0].changed) == 4
    group = view.melds[0]
    assert [group.pieces[k] for k in group.changed] == ["K2"]
    assert view.melds[1].changed == []
    assert view.melds[2].changed == [0, 1, 2]


def test_a_run_split_by_a_tile_names_the_tile_and_the_split() -> None:
    moves, game = played("rummikub", "R2 B2 Y2 | K3 K4 K5 K6 K7 K8", ["K5 Y11"], "add 2 K5; done")
    assert moves.message("en") == "Anna split meld 2 and added K5 to meld 3 · 1 tile left"
    view = highlighted(game.public_view(), moves)
    lit = [(m.number, [m.pieces[k] for k in m.changed]) for m in view.melds if m.changed]
    assert lit == [(3, ["K5"])]


def test_moves_between_melds_name_source_and_target() -> None:
    moves, _ = played(
        "rummikub",
        "R2 B2 Y2 K2 | R3 R4 R5 R6",
        ["R7 R8 B9"],
        "move 2 R6 > new; add 3 R7 R8; done",
    )
    assert moves.message("en") == "Anna split meld 2 and added R7 R8 to meld 3 · 1 tile left"
    moves, game = played(
        "rummikub",
        "R5 R6 R7 R8 | K5 K6 K7 K8",
        ["B8 Y1"],
        "move 1 R8 > new; move 2 K8 > 3; add 3 B8; done",
    )
    assert moves.message("en") == (
        "Anna laid B8 with R8 from meld 1 and K8 from meld 2 (meld 3) · 1 tile left"
    )
    assert moves.message("de") == (
        "Anna hat B8 mit R8 aus Kombination 1 und K8 aus Kombination 2 ausgelegt"
        " (Kombination 3) · noch 1 Stein"
    )
    view = highlighted(game.public_view(), moves)
    assert [len(m.changed) for m in view.melds] == [0, 0, 3]


def test_a_freed_joker_and_the_meld_it_goes_to() -> None:
    moves, _ = played(
        "rummikub", "R2 B2 J | K3 K4 K5", ["Y2 R8 R9 Y11"], "swap 1 Y2; meld J R8 R9; done"
    )
    assert moves.message("en") == (
        "Anna put Y2 into meld 1 for its joker and laid J R8 R9 (meld 3) · 1 tile left"
    )
    assert moves.message("de").startswith("Anna hat mit Y2 den Joker aus Kombination 1 ausgelöst")


def test_stein_take_with_a_joker_and_the_discard() -> None:
    moves, _ = played(
        "stein", "R2 B2 Y2 | K3 K4 K5 K6", ["J Y5 Y6"], "take 2 K6; discard Y5", players=2
    )
    assert moves.message("en") == (
        "Anna took K6 from meld 2 with a joker and discarded Y5 · 2 tiles left"
    )
    assert moves.highlight == {2: (3,)}  # the joker where K6 was


def test_stein_draws_pick_and_discard_in_one_turn() -> None:
    moves, _ = played(
        "stein",
        "R2 B2 Y2",
        ["Y5 Y6 K9"],
        "draw; pick; meld Y5 Y6 Y7; discard K9",
        discards="Y7",
        players=2,
        draws_done=False,
    )
    assert moves.message("en") == (
        "Anna took Y7 from the discard stock, drew a tile, laid Y5 Y6 Y7 (meld 2)"
        " and discarded K9 · 1 tile left"
    )


def test_a_rummikub_draw_and_the_opening() -> None:
    drew, _ = played("rummikub", "", ["R5 Y9"], "draw", opened=(False, False))
    assert drew.message("en") == "Anna drew a tile · 3 tiles left"
    assert drew.message("de") == "Anna hat einen Stein gezogen · noch 3 Steine"
    opened, _ = played(
        "rummikub", "", ["R10 R11 R12 Y1"], "meld R10 R11 R12; done", opened=(False, False)
    )
    assert opened.message("en") == "Anna opened and laid R10 R11 R12 (meld 1) · 1 tile left"


def test_card_turn_meld_lay_off_and_discard() -> None:
    rules = variant("rummy").rules
    game = CardGame.position(
        rules, "5D 6D 7D", ["9C 9H 9S 8D KS 2C", "3H 4H"], discards="QH", pool="2S 3S 4S"
    )
    start = capture(game, 0)
    events = game.apply(0, "meld 9C 9H 9S; add 1 8D; discard KS")
    end = capture(game, 0)
    kinds = [e.kind for e in events if not e.private]
    actions, highlight = summarize(start, end, game.deck, kinds=kinds)
    moves = TurnMoves("g", 0, "Anna", "card", 1, actions, len(end.rack), highlight)
    text = moves.message("en")
    assert text.startswith("Anna laid off 8D on meld 1, melded 9C 9H 9S (meld 2)")
    assert text.endswith("and discarded KS · 1 card left")
    assert moves.message("de").endswith("KS abgelegt · noch 1 Karte")
    assert highlight == {1: (3,), 2: (0, 1, 2)}


def test_card_pick_of_the_discard_is_named() -> None:
    rules = variant("rummy").rules
    game = CardGame.position(
        rules, "", ["9C 9H 2C 7S", "3H 4H"], discards="9S", pool="2S 3S", drawn=False
    )
    start = capture(game, 0)
    events = game.apply(0, "pick; meld 9C 9H 9S; discard 7S")
    end = capture(game, 0)
    picks = [p for e in events if e.kind == "pick" for p in e.pieces]
    actions, _ = summarize(start, end, game.deck, picks=picks)
    moves = TurnMoves("g", 0, "Ben", "card", 1, actions, len(end.rack))
    assert moves.message("en") == (
        "Ben picked up 9S from the discard pile, melded 9C 9H 9S (meld 1) and discarded 7S"
        " · 1 card left"
    )


def test_working_view_marks_what_the_mover_laid_so_far() -> None:
    rules = variant("rummikub").rules
    game = TileGame.position(rules, "B2 R2 Y2", ["K2 R5 R6 R7"], opened=(True, True))
    game.apply(0, "add 1 K2")
    view = working_view(game)
    assert [m.pieces for m in view.melds] == [["B2", "R2", "Y2", "K2"]]
    assert view.melds[0].changed == [3]
    assert view.seats[0].pieces == 3  # the mover's working rack
    assert game.public_view().melds[0].pieces == ["B2", "R2", "Y2"]  # committed: unchanged


def test_rack_order_is_the_pictures() -> None:
    assert rack_order(["K2", "J", "R5", "B9", "R1", "B3"]) == ["B3", "B9", "R1", "R5", "K2", "J"]


def test_the_tracker_rebuilds_a_start_after_a_restart_mid_turn() -> None:
    """A game loaded in the middle of a turn (no start remembered): the committed table is the
    start; the moves told at the turn's end are the same."""
    rules = variant("rummikub").rules
    game = TileGame.position(rules, "B2 R2 Y2", ["K2 R5 R6 R7 Y9"], opened=(True, True))
    game.apply(0, "add 1 K2")

    class Live:
        id = "g"
        seats = ()

    live = Live()
    live.state = TileGame.from_json(game.to_json())  # as reloaded from the store
    tracker = TurnTracker()
    tracker.before(live)
    events = live.state.apply(0, "meld R5 R6 R7; done")
    moves = tracker.after(live, events)
    assert moves is not None
    assert moves.message("en") == "P1 added K2 to meld 1 and laid R5 R6 R7 (meld 2) · 1 tile left"


@pytest.mark.parametrize("preset", ["rummikub", "stein", "romme"])
async def test_the_service_tells_every_turn_with_the_turn_end_message(
    tmp_path: Path, preset: str
) -> None:
    """A game of computer players through the real service and SQLite store: every turn
    passes with a TurnPrompt (or the GameOver) carrying the turn's words, naming the computer
    player and what it did; the picture marks only pieces of that turn."""
    sent: list = []
    config = ServiceConfig(pictures=False, bot_pause=0.0, think_in_worker=False)
    wired = await open_service(tmp_path / "turns.sqlite3", config=config, sink=sent.extend)
    service = wired.service
    try:
        await service.start(run_timers=False)
        await service.register_player("host", "Host", "de")
        game_id, _ = await service.create_game("host", preset, seed=7, seat_host=False)
        for _ in range(3 if preset == "stein" else 2):  # Stein-Rummy needs 3 or 4 players
            await service.add_bot(game_id, "host", "easy")
        started = await service.start_game(game_id, "host")
        assert not [m for m in started if isinstance(m, ErrorReply)], started
        sent.extend(started)
        await asyncio.wait_for(service.wait_finished(game_id), 120)
        for _ in range(1000):  # the last move's messages follow its commit
            await service.wait_idle()
            if any(isinstance(m, GameOver) for m in sent):
                break
            await asyncio.sleep(0.01)
    finally:
        await wired.close()
    turn_ends = [
        m
        for m in sent
        if isinstance(m, GameOver) or (isinstance(m, TurnPrompt) and m.kind == "turn")
    ]
    told = [m.moves for m in turn_ends if getattr(m, "moves", None) is not None]
    assert isinstance(turn_ends[-1], GameOver)
    assert len(told) >= len(turn_ends) - 1  # every turn that passed was told
    names = {"Computer 1", "Computer 2", "Computer 3"}
    family_word = "card" if preset == "romme" else "tile"
    for moves in told:
        english = moves.message("en")
        assert english.split(" ")[0] + " " + english.split(" ")[1] in names
        assert family_word in english or "no " in english
        assert moves.message("de") != english
    laid = [m for m in told if any(a.kind in ("laid", "added") for a in m.actions)]
    assert laid, "the computer players laid pieces at some point"


async def test_the_table_picture_marks_the_turns_pieces(tmp_path: Path) -> None:
    """Through the service with pictures: the picture after a turn marks exactly the pieces
    its words name (seed 1 deals the first player B9 B10 B11)."""
    sent: list = []
    config = ServiceConfig(pictures=True, bot_pause=0.0, think_in_worker=False)
    wired = await open_service(tmp_path / "pictures.sqlite3", config=config, sink=sent.extend)
    service = wired.service
    try:
        await service.start(run_timers=False)
        await service.register_player("anna", "Anna", "en")
        game_id, _ = await service.create_game("anna", "rummikub", seed=1)
        await service.add_bot(game_id, "anna", "easy")
        await service.start_game(game_id, "anna")
        out = await service.handle(game_id, "anna", "meld B9 B10 B11; done")
    finally:
        await wired.close()
    [prompt] = [m for m in out if isinstance(m, TurnPrompt)]
    assert prompt.moves.message("en") == "Anna opened and laid B9 B10 B11 (meld 1) · 11 tiles left"
    [picture] = [m for m in out if isinstance(m, TablePicture)]
    marked = {m.number: tuple(m.changed) for m in picture.view.melds if m.changed}
    assert marked == dict(prompt.moves.highlight) == {1: (0, 1, 2)}
