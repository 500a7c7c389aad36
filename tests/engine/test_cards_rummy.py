"""Classic Rummy (RULES.md preset ``rummy``, seed 003): one test per rule."""

from __future__ import annotations

import pytest

from engine.cards import CardGame, match_target, rummy_card_points, rummy_points
from engine.errors import RummyError
from engine.game import load_game, new_game
from engine.pieces import parse_faces
from engine.rules import RUMMY
from i18n import error_text
from rummy_tools.cards_cli import card_score, card_turn, card_validate


def pos(table: str, *hands: str, **kw) -> CardGame:
    """A position: seat 0 to move (having drawn unless drawn=False)."""
    if len(hands) == 1:
        hands = (hands[0], "9D 9S KS")
    kw.setdefault("pool", "2C 3C 4C 5C 6C 7C")
    return CardGame.position(RUMMY, table, list(hands), **kw)


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


def test_deal_one_deck_no_jokers_ten_or_seven_cards_and_an_upcard():
    g2 = new_game(RUMMY, ["A", "B"], 1)
    assert len(g2.deck) == 52 and not g2.deck.jokers()
    assert [len(r) for r in g2.racks] == [10, 10]
    assert len(g2.discards) == 1 and len(g2.pool) == 52 - 20 - 1
    g4 = CardGame.new(RUMMY, ["A", "B", "C", "D"], 1)
    assert [len(r) for r in g4.racks] == [7] * 4
    assert CardGame.new(RUMMY, ["A", "B", "C"], 1).racks[0].__len__() == 7
    with pytest.raises(RummyError) as info:
        CardGame.new(RUMMY, ["A"] * 5, 1)
    assert info.value.code == "rules.players"


def test_seat_zero_left_of_the_dealer_starts_and_may_take_the_upcard():
    g = CardGame.new(RUMMY, ["A", "B"], 2)
    up = g.deck[g.discards[0]]
    assert g.current == 0
    g.apply(0, "pick")
    assert up in g.rack(0) and not g.discards


def test_card_taken_from_the_discard_pile_may_not_be_discarded_this_turn():
    g = pos("", "5H 6H 9C", discards="KD", drawn=False)
    g.apply(0, "pick KD")
    rejects(g, "discard KD", "cards.discard_picked")
    g.apply(0, "discard 9C")


def test_meld_any_number_and_melds_belong_to_nobody():
    g = pos("", "5H 6H 7H 9C 9D 9S 2D")
    g.apply(0, "meld 5H 6H 7H | 9C 9D 9S")
    assert [m.owner for m in g.public_view().melds] == [None, None]


def test_lay_off_on_any_meld_without_melding_first():
    g = pos("5H 6H 7H", "8H 4H 2D 3S", opened=(False, False))
    g.apply(0, "add 1 8H 4H; discard 2D")
    assert table(g) == ["4H 5H 6H 7H 8H"] and g.opened[0]


def test_no_joker_swaps_in_rummy():
    g = pos("5H 6H 7H", "8H 2D")
    rejects(g, "swap 1 8H", "turn.not_allowed")


def test_aces_are_low_only_no_wrap():
    g = pos("", "QH KH AH 2H 3H 9S")
    rejects(g, "meld QH KH AH", "meld.run_wrap")
    g.apply(0, "meld AH 2H 3H")
    assert card_validate(RUMMY, "AH 2H 3H") == {
        "valid": True,
        "kind": "run",
        "value": 6,
        "reason": None,
    }
    g = pos("JH QH KH", "AH 2S")
    rejects(g, "add 1 AH", "cards.layoff")


def test_going_out_without_a_final_discard():
    g = pos("", "5H 6H 7H 9C 9D 9S", "KS 2C")
    g.apply(0, "meld 5H 6H 7H | 9C 9D 9S")
    assert g.status == "finished" and g.result.reason == "out" and g.result.winner == 0
    assert g.result.points == [2 * 12, 0]  # went rummy: nothing melded before, doubles
    assert g.result.details["rummy"] is True


def test_going_out_with_done_after_laying_off():
    g = pos("5H 6H 7H", "8H", "KS", opened=(True, True))
    g.apply(0, "add 1 8H")
    assert g.result.reason == "out" and g.result.points == [10, 0]
    assert g.result.details["rummy"] is False


def test_one_card_left_is_discarded_to_go_out():
    g = pos("5H 6H 7H", "8H 2S", "KS QD AC", opened=(True, True))
    events = g.apply(0, "add 1 8H; discard 2S")
    assert g.result.winner == 0 and g.result.points == [10 + 10 + 1, 0]
    assert any(e.kind == "out" for e in events)


def test_going_rummy_needs_nothing_melded_or_laid_off_before():
    g = pos("", "5H 6H 7H 2S", "KS", opened=(True, False))
    g.apply(0, "meld 5H 6H 7H; discard 2S")
    assert g.result.details["rummy"] is False and g.result.points == [10, 0]


def test_winner_takes_all_scoring():
    lefts = [[], parse_faces("KS QH JD", "card"), parse_faces("AS 9C", "card")]
    assert [rummy_card_points(f) for f in parse_faces("KS AS 9C", "card")] == [10, 1, 9]
    assert rummy_points(lefts, 0) == [40, 0, 0]
    assert rummy_points(lefts, 0, rummy=True) == [80, 0, 0]
    assert card_score(RUMMY, lefts, False) == [40, 0, 0]
    assert card_score(RUMMY, lefts, True) == [80, 0, 0]
    with pytest.raises(RummyError) as info:
        card_score(RUMMY, [[], []], False)
    assert info.value.code == "cards.score_winner"


def test_match_targets():
    assert [match_target(RUMMY, n) for n in (2, 3, 4)] == [100, 150, 200]


def test_stock_exhausted_reshuffles_the_pile_once_then_the_hand_is_a_draw():
    g = pos("", "5H 9C 2D", "KS KD 8S", pool="", discards="2S 3S 4D KH")
    g.apply(0, "discard 9C")
    assert g.reshuffles == 1 and not g.discards
    assert sorted(str(g.deck[i]) for i in g.pool) == ["2S", "3S", "4D", "9C", "KH"]
    while g.pool:
        seat = g.current
        g.apply(seat, "draw")
        g.apply(seat, f"discard {g.rack(seat)[-1]}")
    assert g.status == "finished" and g.result.reason == "draw"
    assert g.result.points == [0, 0] and g.result.winner is None


def test_stalemate_when_nobody_can_ever_go_out():
    # every hand holds one card, the only meld is a full 4-set, and no card off the table fits
    g = pos("9C 9D 9S 9H", "2C 5D", "KS", pool="7H 3C JD", discards="4C")
    assert not g.nobody_can_go_out()  # 2C 3C 4C are off the table; seat 0 can hold three
    g.apply(0, "discard 5D")
    assert g.status == "finished" and g.result.reason == "stalemate"
    assert g.result.points == [0, 0]


def test_stalemate_when_no_three_cards_off_the_table_make_a_meld():
    g = pos("9C 9D 9S 9H", "2C 5D", "KS", pool="7H 3S JD", discards="4C")
    assert g.nobody_can_go_out()


def test_no_stalemate_while_a_lay_off_is_possible():
    g = pos("9C 9D 9S", "2C 5D", "KS", pool="9H 3S JD", discards="4C")
    g.apply(0, "discard 5D")
    assert g.status == "playing"


def test_rejected_message_changes_nothing_and_is_atomic():
    g = pos("", "5H 6H 7H 9C 2D")
    rejects(g, "meld 5H 6H 7H; discard 8S", "cards.not_in_hand")
    assert hand(g) == ["2D", "5H", "6H", "7H", "9C"] and not g.table


def test_save_and_load_mid_game():
    g = CardGame.new(RUMMY, ["A", "B", "C"], 4)
    g.apply(0, "draw")
    text = g.to_json()
    assert load_game(text).to_json() == text
    assert isinstance(load_game(text), CardGame)


def test_card_turn_tool():
    out = card_turn(RUMMY, "5H 6H 7H", "8H 9C 9D 9S 2D", False, "add 1 8H; meld 9C 9D 9S")
    assert out["ok"] is False and out["error"]["code"] == "turn.unfinished"
    out = card_turn(RUMMY, "5H 6H 7H", "8H 9C 9D 9S 2D", False, "add 1 8H; discard 2D")
    assert out["ok"] and out["hand"] == ["9S", "9D", "9C"]
    out = card_turn(RUMMY, "", "QH KH AH", False, "meld QH KH AH")
    assert out["ok"] is False and out["error"]["code"] == "meld.run_wrap"


def test_ending_a_rummy_game_scores_nothing():
    from engine.game import new_game
    from engine.rules import RUMMY

    g = new_game(RUMMY, ["a", "b", "c"], seed=3)
    g.end("abandoned")
    assert g.status == "finished"
    assert g.result.reason == "abandoned" and g.result.points == [0, 0, 0]
