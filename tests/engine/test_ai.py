"""Computer players (``engine.ai.choose_move``) and the card plan (``engine.cardplan``).

Every level must give moves the engine accepts, for all five presets, in many positions; the
same state gives the same move; games between computer players end; the strong player claims
its groups of four in Stein Plus; the card plan is optimal (checked against brute force).
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import LEVELS, choose_move
from engine.cardplan import best_card_plan, plan_for_turn
from engine.cards import CardGame, romme_card_penalty, rummy_card_points
from engine.game import load_game, new_game
from engine.melds import readings
from engine.pieces import Card, Tile, parse_faces
from engine.rules import preset
from engine.tiles import TileGame
from rummy_tools.ai_cli import dead_tiles, natural_combinations, play_game, simulate, winners

PRESETS = ["stein", "stein_plus", "rummikub", "romme", "rummy"]
CARD_PRESETS = ["romme", "rummy"]


def _advance(g, levels, calls: int) -> None:
    """Let computer players make ``calls`` moves (each must be accepted)."""
    for _ in range(calls):
        if g.status != "playing":
            return
        seat = g.current
        text = choose_move(g, seat, level=levels[seat])
        g.apply(seat, text)  # raises if the engine refuses the move


# ------------------------------------------------------------------ legality


@pytest.mark.parametrize("name", PRESETS)
def test_every_level_moves_legally_in_many_positions(name):
    """Positions come from games between mixed levels; at every call each level's move for
    the seat to move is tried on a copy, and the mixed game goes on."""
    tile = preset(name).family == "tile"
    seeds, calls = ((2, 14) if name.startswith("stein") else (2, 40)) if tile else (4, 60)
    tried = 0
    for seed in range(seeds):
        g = new_game(preset(name), ["a", "b", "c", "d"], seed)
        levels = ["easy", "medium", "strong", "medium"]
        for _ in range(calls):
            if g.status != "playing":
                break
            seat = g.current
            for level in LEVELS:
                g.copy().apply(seat, choose_move(g, seat, level=level))
                tried += 1
            g.apply(seat, choose_move(g, seat, level=levels[seat]))
    assert tried >= 30


@pytest.mark.parametrize("name", CARD_PRESETS)
@pytest.mark.parametrize("players", [2, 3])
def test_card_levels_are_legal_with_few_players(name, players):
    for seed in range(4):
        g = new_game(preset(name), [f"p{k}" for k in range(players)], seed)
        _advance(g, ["strong", "medium", "easy"][:players], 400)
        assert g.status == "finished"


def test_romme_variants_keep_moves_legal():
    rules = preset("romme").with_options(
        variant_end_without_discard=True, variant_draw_two=True, variant_joker_double=True
    )
    for seed in range(4):
        g = new_game(rules, ["a", "b", "c"], seed)
        _advance(g, ["strong", "medium", "easy"], 400)
        assert g.status == "finished"


def test_moves_are_legal_without_help():
    """With ``place`` switched off the tile players lay melds and lay-offs themselves."""
    rules = preset("rummikub").with_options(help_allowed=False)
    g = new_game(rules, ["a", "b", "c", "d"], 1)
    _advance(g, ["strong", "medium", "medium", "easy"], 120)


TILE_OPTION_SETS = [
    ("rummikub", {"joker_meld_no_split": False}),
    ("rummikub", {"pool_jokers": 2}),
    ("rummikub", {"help_allowed": False, "joker_meld_no_split": True}),
    ("stein", {"help_allowed": False}),
    ("stein_plus", {"help_allowed": False}),
]


@pytest.mark.parametrize(("name", "options"), TILE_OPTION_SETS)
def test_every_level_is_legal_under_the_options(name, options):
    """The rules the planning does not model (a joker's fixed meaning, joker melds unsplit,
    claims) are the engine's: at every call each level's move is accepted, under each option."""
    rules = preset(name).with_options(**options)
    for seed in range(2):
        g = new_game(rules, ["a", "b", "c", "d"], seed)
        levels = ["strong", "medium", "easy", "medium"]
        for _ in range(30 if name.startswith("stein") else 60):
            if g.status != "playing":
                break
            seat = g.current
            for level in LEVELS:
                g.copy().apply(seat, choose_move(g, seat, level=level))
            g.apply(seat, choose_move(g, seat, level=levels[seat]))


def test_a_refused_plan_keeps_what_the_engine_accepts_and_ends_the_turn():
    """``checked_tile_turn``: a refused command is left out, a refused end replaced."""
    import random

    from engine.autoplay import checked_tile_turn

    g = TileGame.position(preset("rummikub"), "K4 K5 J", ["K6 R1 R2 R3 B9"], opened=(True,))
    # the joker stands for K6: adding K6 would shift it, which the engine refuses (RULES.md)
    text = checked_tile_turn(g, 0, ["add 1 K6", "meld R1 R2 R3", "done"], random.Random(1))
    assert text == "meld R1 R2 R3; done"
    g.apply(0, text)
    assert g.current == 1
    g = TileGame.position(preset("rummikub"), "K4 K5 K6", ["R1 R2 B9"], opened=(True,))
    text = checked_tile_turn(g, 0, ["meld R1 R2", "done"], random.Random(1))
    assert text == "draw"


def test_a_turn_started_by_someone_else_is_finished_or_reset():
    g = TileGame.position(preset("rummikub"), "B2 B3 B4", ["B5 B6 R1 K9"], opened=(True,))
    g.apply(0, "add 1 B5")
    text = choose_move(g, 0, level="medium")
    g.apply(0, text)
    assert g.current == 1
    g = TileGame.position(preset("rummikub"), "B2 B3 B4", ["B5 B6 R1 K9"], opened=(True,))
    g.apply(0, "move 1 B4 > new")  # leaves two invalid melds: the player must reset
    text = choose_move(g, 0, level="strong")
    assert text.startswith("reset")
    g.apply(0, text)
    assert g.current == 1


# ------------------------------------------------------------------ determinism


@pytest.mark.parametrize("name", PRESETS)
def test_the_same_state_gives_the_same_move(name):
    g = new_game(preset(name), ["a", "b", "c", "d"], 7)
    _advance(g, ["medium"] * 4, 6)
    for level in LEVELS:
        first = choose_move(g, g.current, level=level)
        assert choose_move(g, g.current, level=level) == first
        assert choose_move(load_game(g.to_json()), g.current, level=level) == first


def test_a_seed_replays_the_same_game():
    a = play_game(preset("rummy"), ["strong", "medium", "easy"], 3)
    b = play_game(preset("rummy"), ["strong", "medium", "easy"], 3)
    assert a["result"].to_dict() == b["result"].to_dict() and a["turns"] == b["turns"]


def test_a_seat_not_to_move_and_an_unknown_level_are_refused():
    from engine.errors import RummyError

    g = new_game(preset("rummy"), ["a", "b"], 1)
    with pytest.raises(RummyError):
        choose_move(g, 1 - g.current)
    with pytest.raises(ValueError):
        choose_move(g, g.current, level="grandmaster")


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize(
    ("name", "levels", "games"),
    [
        ("rummikub", ["easy"] * 4, 2),
        ("rummikub", ["medium"] * 4, 1),
        ("rummikub", ["strong"] * 4, 1),
        ("stein", ["easy"] * 3, 1),
        ("stein", ["medium"] * 4, 1),
        ("stein_plus", ["strong", "medium", "medium", "easy"], 1),
        ("romme", ["easy"] * 4, 2),
        ("romme", ["medium"] * 4, 2),
        ("romme", ["strong"] * 4, 2),
        ("rummy", ["easy"] * 4, 2),
        ("rummy", ["medium"] * 4, 2),
        ("rummy", ["strong"] * 4, 2),
    ],
)
def test_games_between_computer_players_end(name, levels, games):
    data = simulate(name, len(levels), levels, games, 11)
    assert data["rejected"] == 0
    assert data["games"] == games
    total = sum(row["wins"] for row in data["seats"]) + data["draws"]
    assert total == pytest.approx(games)


def test_a_game_without_a_winner_shares_the_win_between_the_first_ranked():
    from engine.game import Result

    tie = Result("stalemate", None, [0, 0, -5], [1, 1, 3], [[], [], []])
    assert winners(tie) == {0: 0.5, 1: 0.5}
    assert winners(Result("draw", None, [0, 0], [1, 1], [[], []])) == {}


# ------------------------------------------------------------------ strategy


def test_strong_claims_the_group_of_four_it_lays_in_stein_plus():
    g = TileGame.position(
        preset("stein_plus"), "R1 R2 R3", ["B5 R5 Y5 K5 K9 R11"], opened=(True, True, True)
    )
    for _ in range(4):
        if g.current != 0:
            break
        g.apply(0, choose_move(g, 0, level="strong"))
    assert g.current == 1
    claimed = [m for m in g.table if m.claim == 0]
    assert len(claimed) == 1 and sorted(map(str, g.faces(claimed[0].ids))) == [
        "B5",
        "K5",
        "R5",
        "Y5",
    ]


def test_strong_stein_draws_from_the_pool_first_then_picks_a_completing_discard():
    g = TileGame.position(
        preset("stein"),
        "",
        ["B5 B6 K1 Y9 R12"],
        discards="K8 B7 R3",
        draws_done=False,
        opened=(False,),
    )
    assert choose_move(g, 0, level="strong") == "draw"
    g.apply(0, "draw")
    assert choose_move(g, 0, level="strong") == "pick B7"


def test_strong_discards_a_dead_tile_rather_than_a_live_one():
    # R9's partners (R7 R8 R10 R11 and the other 9s) are all on the table: R9 is dead.
    # Not yet opened, the player cannot lay it off, and the rack makes no meld.
    table = "R6 R7 R8 | R10 R11 R12 | B9 Y9 K9 | B9 Y9 K9 | R6 R7 R8 | R10 R11 R12"
    g = TileGame.position(preset("stein"), table, ["R9 B3 B4"], opened=(False,), players=4)
    assert choose_move(g, 0, level="strong") == "discard R9"
    assert choose_move(g, 0, level="medium") == "discard R9"  # no partner in the rack either


def test_medium_rummikub_draws_when_nothing_can_be_placed():
    g = TileGame.position(preset("rummikub"), "B2 B3 B4", ["K9 R11 Y1"], opened=(True,))
    assert choose_move(g, 0, level="medium") == "draw"


def test_medium_places_the_most_tiles_and_ends_the_turn():
    g = TileGame.position(preset("rummikub"), "B2 B3 B4 B5 B6", ["B4 R7 R8 R9 K1"], opened=(True,))
    text = choose_move(g, 0, level="medium")
    g.apply(0, text)
    assert [str(f) for f in g.faces(g.racks[0])] == ["K1"]


def test_strong_rummikub_draws_rather_than_feed_the_table():
    """Strong lays nothing after its opening until it can lay the whole rack."""
    g = TileGame.position(preset("rummikub"), "B2 B3 B4", ["B5 R7 R8 R9 K1"], opened=(True,))
    assert choose_move(g, 0, level="strong") == "draw"
    assert choose_move(g, 0, level="medium") != "draw"


def test_strong_rummikub_goes_out_in_one_turn():
    g = TileGame.position(
        preset("rummikub"), "B2 B3 B4 | Y9 Y10 Y11", ["B5 R7 R8 R9 Y12 J"], opened=(True,)
    )
    g.apply(0, choose_move(g, 0, level="strong"))
    assert g.status == "finished" and g.result.winner == 0


def test_strong_rummikub_opens_with_the_fewest_tiles_and_keeps_its_joker():
    g = TileGame.position(
        preset("rummikub"), "", ["R10 B10 Y10 K1 K2 K3 Y5 Y6 Y7 B13 J R4"], opened=(False,)
    )
    g.apply(0, choose_move(g, 0, level="strong"))
    assert g.opened[0]
    assert sorted(map(str, g.faces(g.racks[0]))) == sorted(
        ["K1", "K2", "K3", "Y5", "Y6", "Y7", "B13", "J", "R4"]
    )


def test_strong_stein_keeps_its_melds_and_discards_a_loose_tile():
    g = TileGame.position(preset("stein"), "R1 R2 R3", ["B5 B6 B7 Y9 Y9 K12 R7 J"], opened=(True,))
    text = choose_move(g, 0, level="strong")
    assert text.startswith("discard ") and text.split()[1] in ("K12", "R7", "Y9")
    g.apply(0, text)
    assert g.current != 0 and len(g.table) == 1


def test_strong_stein_goes_out_when_its_melds_and_the_rest_fit():
    g = TileGame.position(preset("stein"), "R1 R2 R3", ["B5 B6 B7 R4 K11 J"], opened=(True,))
    g.apply(0, choose_move(g, 0, level="strong"))
    assert g.status == "finished" and g.result.winner == 0


def test_the_card_players_pick_a_discard_that_makes_a_meld():
    g = CardGame.position(
        preset("rummy"), "", ["5H 6H KS 2C", "AS"], discards="7H", pool="3D 9C", drawn=False
    )
    assert choose_move(g, 0, level="medium") == "pick"
    g.apply(0, "pick")
    text = choose_move(g, 0, level="medium")
    assert text.startswith("meld 5H 6H 7H")
    g.apply(0, text)


# ------------------------------------------------------------------ card plan


def _brute(hand, table, spec, fits, penalty, *, lay_off, minimum, keep, undiscardable=None):
    """Every assignment of hand cards to new melds (up to 2), table melds, or the hand."""
    best = None
    labels = ["keep", "m0", "m1"] + ([f"t{k}" for k in range(len(table))] if lay_off else [])
    for assign in itertools.product(labels, repeat=len(hand)):
        groups: dict[str, list] = {}
        for card, label in zip(hand, assign, strict=True):
            groups.setdefault(label, []).append(card)
        left = groups.get("keep", [])
        if not left and keep != "any":
            continue
        if left and undiscardable is not None and left == [undiscardable]:
            continue
        ok, value = True, 0
        for label, cards in groups.items():
            if label.startswith("m"):
                found = readings(cards, spec)
                if not found:
                    ok = False
                    break
                value += found[0].value
            elif label.startswith("t") and not fits(int(label[1:]), cards):
                ok = False
                break
        if not ok or (value and value < minimum):
            continue
        laid = [c for c, a in zip(hand, assign, strict=True) if a != "keep"]
        key = (len(laid), sum(penalty(c) for c in laid))
        best = key if best is None or key > best else best
    return best


TABLES = ["", "4S 5S 6S", "7H 7D 7C", "QC KC AC", "4S 5S 6S | 2H 3H 4H"]  # Q-K-A: Rommé only


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ranks=st.lists(st.integers(1, 7), min_size=3, max_size=6),
    suits=st.lists(st.integers(0, 3), min_size=6, max_size=6),
    jokers=st.integers(0, 1),
    table_text=st.sampled_from(TABLES),
    name=st.sampled_from(CARD_PRESETS),
    opened=st.booleans(),
)
def test_card_plan_is_optimal_against_brute_force(ranks, suits, jokers, table_text, name, opened):
    rules = preset(name)
    if name == "rummy" and "AC" in table_text:
        table_text = "9C 10C JC QC"
    spec = rules.meld_spec
    hand = [Card(s, r) for r, s in zip(ranks, suits, strict=False)]
    if name == "romme":
        hand = hand[:5] + [Card.joker()] * jokers
    hand_text = " ".join(str(c) for c in hand)
    g = CardGame.position(rules, table_text, [hand_text], opened=(opened,))

    def fits(i, cards):
        return g.fits(i + 1, cards)

    penalty = rummy_card_points if name == "rummy" else romme_card_penalty
    keep = "any" if name == "rummy" else "discard"
    table = g.table_faces()
    if name == "rummy" or opened:
        plan = best_card_plan(hand, table, spec, fits=fits, penalty=penalty, keep=keep)
        expect = _brute(hand, table, spec, fits, penalty, lay_off=True, minimum=0, keep=keep)
    else:
        plan = best_card_plan(
            hand, table, spec, fits=fits, penalty=penalty, lay_off=False, minimum=40, keep=keep
        )
        expect = _brute(hand, table, spec, fits, penalty, lay_off=False, minimum=40, keep=keep)
    assert plan is not None
    assert (plan.removed, plan.value) == expect
    assert Counter(plan.left) + Counter(f for m in plan.melds for f in m) + Counter(
        f for _, cs in plan.layoffs for f in cs
    ) == Counter(hand)


def test_card_plan_commands_are_accepted_by_the_engine():
    g = CardGame.position(
        preset("rummy"), "4S 5S 6S | 7H 7D 7C", ["3S 7S 9D 9H 9C KD", "AS"], opened=(True,)
    )
    plan = plan_for_turn(
        g.faces(g.racks[0]),
        g.table_faces(),
        g.rules.meld_spec,
        must_open=g.rules.must_open,
        opened=True,
        minimum=0,
        empty_hand_ok=True,
        fits=lambda i, cards: g.fits(i + 1, cards),
        penalty=rummy_card_points,
    )
    assert plan.removed == 5 and list(plan.left) == [parse_faces("KD", "card")[0]]
    g.apply(0, "; ".join([*plan.commands(), "discard KD"]))
    assert g.status == "finished" and g.result.winner == 0


def test_romme_plan_meets_the_opening_minimum_or_lays_nothing():
    spec = preset("romme").meld_spec
    hand = parse_faces("2S 3S 4S 5H 5D 5C KD", "card")
    plan = best_card_plan(
        hand, [], spec, fits=None, penalty=romme_card_penalty, lay_off=False, minimum=40
    )
    assert plan is not None and plan.removed == 0  # 9 + 15 points: not enough to open
    hand = parse_faces("JS QS KS 5H 5D 5C 2D", "card")
    plan = best_card_plan(
        hand, [], spec, fits=None, penalty=romme_card_penalty, lay_off=False, minimum=40
    )
    assert plan is not None and plan.removed == 6 and plan.meld_value == 45


def test_romme_before_opening_goes_out_in_one_turn_as_hand_romme():
    g = CardGame.position(preset("romme"), "", ["2S 3S 4S 5H 5D 5C KD", "AS"], opened=(False,))
    text = choose_move(g, 0, level="medium")
    g.apply(0, text)
    assert g.status == "finished" and g.result.winner == 0


# ------------------------------------------------------------------ statistics helpers


def test_natural_combinations_and_dead_tiles():
    tiles = parse_faces("R5 B5 Y5 K7 K8 K9 K10 R12 R13 R1 B2", "tile")
    assert natural_combinations(tiles) == (1, 2)  # 5s; K7-K10 and R12-R13-R1 (wrap)
    assert dead_tiles(tiles) == 1  # B2: no 2 of another colour, no blue 13, 1, 3, 4
    assert dead_tiles([Tile(0, 1), Tile(0, 13)]) == 0  # wrap: 13 and 1 are neighbours
