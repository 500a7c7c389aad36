"""Rommé (RULES.md preset ``romme``, seed 001): one test per rule and per variant a-j."""

from __future__ import annotations

import json

import pytest

from bot.rummy_cli import main as rummy_main
from engine.card.table import stands_for
from engine.cards import CardGame, romme_card_penalty, romme_penalties
from engine.errors import RummyError
from engine.game import load_game, new_game
from engine.pieces import Card, parse_faces
from engine.rules import ROMME
from i18n import error_text, event_text
from rummy_tools.cards_cli import card_score, card_turn, card_validate

POOL = "2C 3C 4C 5C 6C 7C"


def pos(table: str, *hands: str, rules=ROMME, opened=(True, True), **kw) -> CardGame:
    """A position: seat 0 to move (having drawn, unless drawn=False); seat 1 holds some cards."""
    if len(hands) == 1:
        hands = (hands[0], "9D 9D KS")
    kw.setdefault("pool", POOL)
    return CardGame.position(rules, table, list(hands), opened=opened, **kw)


def hand(g: CardGame, seat: int = 0) -> list[str]:
    return sorted(str(f) for f in g.rack(seat))


def table(g: CardGame) -> list[str]:
    return [" ".join(str(f) for f in m) for m in g.table_faces()]


def rejects(g: CardGame, text: str, code: str, seat: int = 0) -> RummyError:
    before = g.to_json()
    with pytest.raises(RummyError) as info:
        g.apply(seat, text)
    assert info.value.code == code, error_text(info.value)
    assert g.to_json() == before
    return info.value


# ---------------------------------------------------------------------- deal and drawing


def test_deal_two_decks_six_jokers_thirteen_each_no_upcard():
    g = new_game(ROMME, ["A", "B", "C", "D"], 1)
    assert isinstance(g, CardGame)
    assert len(g.deck) == 110 and len(g.deck.jokers()) == 6
    assert [len(r) for r in g.racks] == [13] * 4
    assert g.discards == [] and len(g.pool) == 110 - 52
    assert g.current == 0 and g.status == "playing"


def test_deal_option_ten_to_thirteen():
    g = CardGame.new(ROMME.with_options(hand_size=10), ["A", "B"], 1)
    assert [len(r) for r in g.racks] == [10, 10]
    with pytest.raises(RummyError) as info:
        CardGame.new(ROMME.with_options(hand_size=9), ["A", "B"], 1)
    assert info.value.code == "rules.option"


def test_deal_is_reproducible_and_saved_state_byte_stable():
    a = CardGame.new(ROMME, ["A", "B", "C"], 42)
    b = CardGame.new(ROMME, ["A", "B", "C"], 42)
    assert a.to_json() == b.to_json()
    a.apply(0, "draw")
    assert load_game(a.to_json()).to_json() == a.to_json()


def test_first_player_must_draw_from_the_talon_and_draw_first():
    g = CardGame.new(ROMME, ["A", "B"], 3)
    card = str(g.rack(0)[0])
    rejects(g, f"discard {card}", "cards.draw_first")
    rejects(g, "pick", "cards.discards_empty")
    events = g.apply(0, "draw")
    assert len(g.racks[0]) == 14
    assert any(e.private and e.seat == 0 for e in events)
    rejects(g, "draw", "cards.already_drawn")


def test_turn_not_yours():
    g = CardGame.new(ROMME, ["A", "B"], 3)
    rejects(g, "draw", "turn.not_yours", seat=1)


def test_pick_takes_top_discard_only():
    g = pos("", "5H 6H 7H 8H", discards="KD QS", drawn=False)
    rejects(g, "pick KD", "cards.pick_wrong")
    g.apply(0, "pick QS")
    assert "QS" in hand(g)


def test_taken_discard_may_not_be_discarded_again():
    g = pos("", "5H 6H 7H 8H", discards="QS", drawn=False)
    g.apply(0, "pick")
    err = rejects(g, "discard QS", "cards.discard_picked")
    assert "QS" in error_text(err) and "QS" in error_text(err, "de")


def test_the_other_copy_of_a_picked_card_may_be_discarded():
    g = pos("", "5H 6H 7H QS", discards="QS", drawn=False)
    g.apply(0, "pick")
    g.apply(0, "discard QS")
    assert g.deck[g.discards[-1]] == Card.parse("QS")
    assert g.turn_no == 2  # the turn passed


# ---------------------------------------------------------------------- melds and opening


def test_opening_needs_forty_points_in_the_turn():
    g = pos("", "5H 6H 7H 8H 2S 2D", opened=(False, False))
    g.apply(0, "meld 5H 6H 7H 8H")  # 26
    err = rejects(g, "discard 2S", "opening.below_minimum")
    assert "26" in error_text(err) and "40" in error_text(err)


def test_opening_counts_all_melds_of_the_turn_across_messages():
    g = pos("", "10H JH QH 9S 9D 9C 2S", opened=(False, False))
    g.apply(0, "meld 10H JH QH")  # 30
    g.apply(0, "meld 9S 9D 9C")  # + 27
    g.apply(0, "discard 2S")
    assert g.opened[0] and table(g) == ["10H JH QH", "9S 9D 9C"]


def test_opening_values_ace_eleven_but_one_in_a_low_run_and_joker_as_replaced():
    assert card_validate(ROMME, "QH KH AH")["value"] == 31
    assert card_validate(ROMME, "AH 2H 3H")["value"] == 6
    assert card_validate(ROMME, "KH AH 2H")["value"] == 23  # A-2 with a king: 11
    assert card_validate(ROMME, "AS AH AD")["value"] == 33
    assert card_validate(ROMME, "10H * QH")["value"] == 30  # joker = JH, worth 10
    assert card_validate(ROMME, "* 2H 3H")["value"] == 6  # joker = AH, low: 1
    g = pos("", "QH KH AH 10S 10D 2C", opened=(False, False))
    g.apply(0, "meld QH KH AH")  # 31
    rejects(g, "discard 2C", "opening.below_minimum")


def test_sets_never_repeat_a_suit_and_runs_are_one_suit():
    for bad, code in [
        ("9C 9C 9H", "meld.group_colours"),
        ("9C 9H 9S 9D 9C", "meld.group_too_long"),
        ("5H 6H 7S", "meld.mixed"),
        ("5H 7H 9H", "meld.run_gap"),
        ("* * *", "meld.only_jokers"),
    ]:
        g = pos("", bad + " 2S")
        rejects(g, f"meld {bad}", code)


def test_runs_wrap_round_the_corner_by_default():
    g = pos("", "QH KH AH 2H 3H 9S")
    g.apply(0, "meld QH KH AH 2H 3H")
    assert table(g) == ["QH KH AH 2H 3H"]


def test_melds_lie_in_front_of_their_owner():
    g = pos("", "10H JH QH KH 2S 3D")
    g.apply(0, "meld 10H JH QH KH")
    assert g.public_view().melds[0].owner == 0


def test_lay_off_needs_an_opening_on_an_earlier_turn():
    g = pos("5S 6S 7S", "8S 9H 9D 9C JH QH KH 2D 3D", opened=(False, True), owners=[1])
    g.apply(0, "meld 9H 9D 9C | JH QH KH")  # opens this turn (27 + 30)
    g.apply(0, "add 1 8S")  # only allowed in a Hand-Rommé ...
    err = rejects(g, "discard 2D", "cards.not_opened")
    assert "add 1 8S" in error_text(err)


def test_lay_off_on_own_and_others_melds_after_opening():
    g = pos("5S 6S 7S | 9H 9D 9C", "4S 8S 9S 2D", owners=[1, 0])
    g.apply(0, "add 1 4S 8S; add 2 9S")
    assert table(g) == ["4S 5S 6S 7S 8S", "9H 9D 9C 9S"]
    rejects(g, "add 1 2D", "cards.layoff")


def test_lay_off_joker_goes_to_the_high_end_first():
    g = pos("5S 6S 7S", "* 2D 3D")
    g.apply(0, "add 1 *")
    assert stands_for(g.deck, g.table[0], g.rules.meld_spec)[-1] == Card.parse("8S")


def test_swap_joker_for_the_card_it_stands_for_joker_to_hand():
    g = pos("9H * JH", "10H 2D 3D")
    err = rejects(g, "swap 1 QH", "cards.not_in_hand")
    g2 = pos("9H * JH", "QH 2D 3D")
    err = rejects(g2, "swap 1 QH", "joker.wrong_piece")
    assert "10H" in error_text(err)
    g.apply(0, "swap 1 10H")
    assert table(g) == ["9H 10H JH"] and "*" in hand(g)


def test_swap_in_a_set_of_three_any_missing_suit_without_variant_b():
    for card in ("9S", "9D"):
        g = pos("9C 9H *", f"{card} 2D 3D")
        g.apply(0, f"swap 1 {card}")
        assert "*" in hand(g)


def test_swap_needs_opening_unless_hand_romme():
    g = pos("9H * JH", "10H 2D 3D", opened=(False, True))
    g.apply(0, "swap 1 10H")
    rejects(g, "discard 2D", "cards.not_opened")


def test_undo_and_reset_take_table_plays_back():
    g = pos("5S 6S 7S", "8S 9S 9H 9D 9C 2D")
    g.apply(0, "add 1 8S")
    g.apply(0, "meld 9H 9D 9C")
    g.apply(0, "undo")
    assert table(g) == ["5S 6S 7S 8S"] and "9H" in hand(g)
    g.apply(0, "reset")
    assert table(g) == ["5S 6S 7S"] and hand(g) == sorted(["8S", "9S", "9H", "9D", "9C", "2D"])
    rejects(g, "undo", "turn.nothing_to_undo")


# ---------------------------------------------------------------------- going out and scoring


def test_going_out_discards_the_last_card():
    g = pos("", "5H 6H 7H 2S", "KS KD AC *")
    events = g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.status == "finished" and g.result.reason == "out" and g.result.winner == 0
    assert g.result.points == [0, 10 + 10 + 11 + 20]
    assert g.result.details["hand_romme"] is False
    assert any("Rommé" in event_text(e, "en", g.players) for e in events)
    rejects(g, "draw", "game.over")


def test_the_last_card_must_be_discarded_not_melded():
    g = pos("", "5H 6H 7H", "KS")
    err = rejects(g, "meld 5H 6H 7H", "cards.keep_one")
    assert "discard" in error_text(err)


def test_hand_romme_without_minimum_doubles_the_others():
    g = pos("", "2H 3H 4H 2S", "KS 3D", opened=(False, False))
    g.apply(0, "meld 2H 3H 4H; discard 2S")  # 9 points: the 40 minimum does not apply
    assert g.result.details["hand_romme"] is True
    assert g.result.points == [0, 2 * (10 + 3)]


def test_hand_romme_may_lay_off():
    g = pos("5S 6S 7S", "8S 2H 3H 4H 2D", "KS", opened=(False, True), owners=[1])
    g.apply(0, "add 1 8S; meld 2H 3H 4H; discard 2D")
    assert g.result.reason == "out" and g.result.details["hand_romme"] is True


def test_penalty_points():
    faces = parse_faces("AS KH QD JC 10S 2H *", "card")
    assert [romme_card_penalty(f) for f in faces] == [11, 10, 10, 10, 10, 2, 20]
    assert romme_penalties([[], faces]) == [0, 73]
    assert romme_penalties([[], faces], hand_romme=True) == [0, 146]


def test_talon_exhausted_discards_except_top_become_the_new_talon():
    g = pos("", "5H 6H 7H 8H", "9C 9C KS", pool="", discards="2D 3D 4D QS", drawn=True)
    g.apply(0, "discard 8H")
    assert g.reshuffles == 1
    assert sorted(str(g.deck[i]) for i in g.pool) == ["2D", "3D", "4D", "QS"]
    assert [str(g.deck[i]) for i in g.discards] == ["8H"]
    assert sorted(g.all_piece_ids()) == list(range(len(g.deck)))


def test_error_messages_in_german_name_the_card():
    g = pos("", "5H 6H 7H")
    err = rejects(g, "discard 9S", "cards.not_in_hand")
    assert error_text(err, "de") == "9S ist nicht in deiner Hand."


def test_timeout_draws_and_discards():
    g = CardGame.new(ROMME, ["A", "B"], 5)
    g.timeout()
    assert g.current == 1 and len(g.racks[0]) == 13 and len(g.discards) == 1


# ---------------------------------------------------------------------- variants a-j


def knock_position(**options):
    rules = ROMME.with_options(variant_knocking=True, **options)
    g = CardGame.position(
        rules,
        "KS KH KD",
        ["5H 6H 7H 8D", "9S 9H 2C 3C", "4D 5D"],
        opened=[True, True, True],
        discards="9D",
        pool="JC QC KC AC 4C",
        drawn=True,
    )
    g.top_by = 2  # seat 2 discarded the 9D; seat 0 has drawn from the talon
    return g


def test_variant_a_knock_takes_the_discard_and_two_talon_cards():
    g = knock_position()
    events = g.apply(1, "knock")
    assert "9D" in hand(g, 1) and len(g.racks[1]) == 5
    assert len(g.knocks[1]["hidden"]) == 2 and len(g.pool) == 3
    assert any(e.private and e.seat == 1 for e in events)
    g.apply(0, "discard 8D")
    rejects(g, "draw", "cards.knock_meld_first", seat=1)
    g.apply(1, "meld 9S 9H 9D")
    assert len(g.racks[1]) == 2 + 2 and g.knocks[1] is None
    g.apply(1, "draw")


def test_variant_a_knock_rules():
    rejects(knock_position(), "knock", "cards.knock_own", seat=2)
    g = knock_position()
    g.racks[1] = g.racks[1][2:]  # no 9S 9H any more
    rejects(g, "knock", "cards.knock_unusable", seat=1)
    g = knock_position()
    g.opened[1] = False
    rejects(g, "knock", "cards.knock_not_opened", seat=1)
    g = knock_position()
    g.turn["drawn"] = False  # the mover has not declined the discard yet
    rejects(g, "knock", "cards.knock_when", seat=1)
    rejects(pos("", "5H 6H 7H", discards="9D"), "knock", "turn.not_allowed", seat=1)


def test_variant_a_pending_knock_cards_count_at_the_end():
    g = knock_position()
    g.apply(1, "knock")
    g.racks[0] = g.racks[0][:1]  # seat 0 now goes out with its last card
    g.apply(0, f"discard {g.rack(0)[0]}")
    assert len(g.result.left[1]) == 7


def test_variant_b_declared_joker_in_a_set_of_three():
    rules = ROMME.with_options(variant_declared_joker=True)
    g = pos("", "9C 9H * 2D 3D 9S 9D", rules=rules)
    g.apply(0, "meld 9C 9H *=9D")
    assert g.table[0].declared == {2: Card.parse("9D")}
    rejects(g, "swap 1 9S", "joker.wrong_piece")
    rejects(g, "add 1 9D", "cards.layoff")  # the joker is the 9D
    g.apply(0, "add 1 9S")
    assert load_game(g.to_json()).table[0].declared == {2: Card.parse("9D")}


def test_variant_b_undeclared_joker_takes_the_first_missing_suit():
    rules = ROMME.with_options(variant_declared_joker=True)
    g = pos("", "9C 9H * 2D 9D", rules=rules)
    g.apply(0, "meld 9C 9H *")
    assert g.table[0].declared == {2: Card.parse("9S")}
    rejects(g, "swap 1 9D", "joker.wrong_piece")


def test_variant_b_syntax_errors():
    g = pos("", "9C 9H * 5H 6H 2D")
    rejects(g, "meld 9C 9H *=9S", "cards.declare_off")
    rules = ROMME.with_options(variant_declared_joker=True)
    g = pos("", "9C 9H * 5H 6H 2D", rules=rules)
    rejects(g, "meld 5H 6H *=7H", "cards.declare_bad")
    rejects(g, "meld 9C 9H *=9C", "cards.declare_bad")
    rejects(g, "meld 9C 9H *=9Z", "parse.piece")


def test_variant_c_no_wrap():
    rules = ROMME.with_options(run_mode="ace_high")
    g = pos("", "QH KH AH 2H 3H 9S", rules=rules)
    rejects(g, "meld KH AH 2H", "meld.run_wrap")
    g.apply(0, "meld QH KH AH")
    rejects(g, "add 1 2H", "cards.layoff")
    g = pos("QH KH AH", "2H 5S", rules=ROMME)
    g.apply(0, "add 1 2H")  # with wrap the run continues round the corner


def test_variant_d_thirty_point_opening():
    rules = ROMME.with_options(opening_minimum=30)
    g = pos("", "10H JH QH 2S 3D", rules=rules, opened=(False, False))
    g.apply(0, "meld 10H JH QH; discard 2S")
    assert g.opened[0]
    g = pos("", "9H 10H JH 2S 3D", opened=(False, False))
    rejects(g, "meld 9H 10H JH; discard 2S", "opening.below_minimum")


def test_variant_e_announce_at_ten_then_one_more_round():
    rules = ROMME.with_options(variant_announce_ten=True)
    g = CardGame.position(
        rules,
        "",
        ["2H 3S 4D", "KS KD QC", "9C 9D"],
        opened=[True, True, True],
        pool="2C 3C 4C 5C 6C 7C 8C",
        drawn=False,
    )
    rejects(g, "draw; knock", "cards.announce_when")
    g.apply(0, "knock")  # 9 points
    assert g.announcer == 0 and g.current == 1
    g.apply(1, "draw; discard QC")
    g.apply(2, "draw; discard 9C")
    assert g.status == "finished" and g.result.reason == "announced"
    assert g.result.winner == 0 and g.result.points[0] == 0
    assert g.result.points[1] == 20 + romme_card_penalty(g.deck[g.racks[1][-1]])
    g = CardGame.position(rules, "", ["KS 3S", "2D"], pool="2C 3C", drawn=False)
    rejects(g, "knock", "cards.announce_high")


def test_variant_f_colour_romme_ends_the_game():
    rules = ROMME.with_options(variant_colour_romme=True)
    g = pos("", "AH 2H 3H 5H 6H 8H 9H JH QH KH 4S", "KS QS", rules=rules)
    g.apply(0, "done")
    assert g.result.reason == "colour" and g.result.winner == 0
    assert g.result.points == [0, 20]
    g = pos("", "AH 2H 3H 5H 6H 8H 9H JH QH 4S", rules=rules)
    err = rejects(g, "done", "cards.colour_short")
    assert "9" in error_text(err)


def test_variant_g_end_without_discard():
    rules = ROMME.with_options(variant_end_without_discard=True)
    g = pos("", "5H 6H 7H", "KS", rules=rules)
    g.apply(0, "meld 5H 6H 7H")
    assert g.result.reason == "out" and g.result.points == [0, 10]


def test_variant_h_a_joker_left_doubles_the_whole_hand():
    """RULES.md (corrected against source text 001): the whole penalty of a joker holder
    doubles, not only the joker; a hand without a joker is not doubled."""
    rules = ROMME.with_options(variant_joker_double=True)
    g = pos("", "5H 6H 7H 2S", "* KS", rules=rules)
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.result.points == [0, 2 * (20 + 10)]
    g = pos("", "5H 6H 7H 2S", "QS KS", rules=rules)
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.result.points == [0, 20]
    assert romme_penalties(
        [[], [Card.parse("*"), Card.parse("AS")], [Card.parse("AS")]], joker_double=True
    ) == [0, 62, 11]
    # with a Hand-Rommé both doublings apply
    assert romme_penalties(
        [[], [Card.parse("*"), Card.parse("2S")]], joker_double=True, hand_romme=True
    ) == [0, 88]


def test_variant_i_winner_strikes_ten_or_twenty():
    rules = ROMME.with_options(variant_winner_strikes=True)
    g = pos("", "5H 6H 7H 2S", "KS", rules=rules)
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.result.details["strike"] == {"seat": 0, "points": 10}
    g = pos("", "5H 6H 7H 2S", "KS", rules=rules, opened=(False, False))
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.result.details["strike"] == {"seat": 0, "points": 20}
    g = pos("", "5H 6H 7H 2S", "KS")
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert "strike" not in g.result.details


def test_variant_j_draw_two_with_two_or_three_players():
    rules = ROMME.with_options(variant_draw_two=True)
    g = CardGame.new(rules, ["A", "B", "C"], 9)
    g.apply(0, "draw")
    assert len(g.racks[0]) == 15
    g.apply(0, f"discard {g.rack(0)[0]}")
    g.apply(1, "pick")
    assert len(g.racks[1]) == 16
    g4 = CardGame.new(rules, ["A", "B", "C", "D"], 9)
    g4.apply(0, "draw")
    assert len(g4.racks[0]) == 14


# ---------------------------------------------------------------------- tools


def test_card_turn_and_score_tools():
    out = card_turn(
        ROMME, "5S 6S 7S", "8S 9H 9D 9C 2D", True, "add 1 8S; meld 9H 9D 9C; discard 2D"
    )
    assert out == {
        "ok": True,
        "table": [["5S", "6S", "7S", "8S"], ["9H", "9D", "9C"]],
        "hand": [],
        "error": None,
    }
    bad = card_turn(ROMME, "", "9H 9D 9C 2D", False, "meld 9H 9D 9C; discard 2D")
    assert bad["ok"] is True  # going out with it: a Hand-Rommé
    bad = card_turn(ROMME, "", "9H 9D 9C 2D 3D", False, "meld 9H 9D 9C; discard 2D")
    assert bad["ok"] is False and bad["error"]["code"] == "opening.below_minimum"
    assert card_score(ROMME, [[], parse_faces("AS *", "card")], False) == [0, -31]
    assert card_score(ROMME, [[], parse_faces("AS *", "card")], True) == [0, -62]
    assert card_validate(ROMME, "5H 6S 7H")["valid"] is False


def test_settle_cli_reproduces_the_seed_example(capsys):
    code = rummy_main(["settle", "--names", "A,B,C,D", "--penalties", "80,220,0,350", "--json"])
    assert code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith('{"pairs": [{"a": "A", "b": "B", "a_gets": 140}, ')
    data = json.loads(out)
    assert data["balances"] == {"A": 330, "B": -230, "C": 650, "D": -750}
    assert [p["a_gets"] for p in data["pairs"]] == [140, -80, 270, -220, 130, 350]


def test_ending_a_romme_game_scores_every_hand():
    from engine.cards import romme_penalties
    from engine.game import new_game
    from engine.rules import ROMME

    g = new_game(ROMME, ["a", "b"], seed=5)
    hands = [g.rack(0), g.rack(1)]
    g.end("ended")
    assert g.result.reason == "ended" and g.result.winner is None
    assert g.result.points == romme_penalties(hands)
