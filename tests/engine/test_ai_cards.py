"""The strong card player (engine/card/strong.py): it holds its melds until the whole hand goes,
goes out (Rummy, Rommé's Hand-Rommé without the 40 points), takes a top discard it can use and
discards a dead card before a live one."""

from __future__ import annotations

from collections import Counter

from engine.ai import choose_move
from engine.card.strong import keep_value, unseen_cards
from engine.cards import CardGame
from engine.pieces import parse_faces
from engine.rules import preset


def card(text):
    return parse_faces(text, "card")[0]


def test_strong_rummy_holds_its_meld_and_discards_a_loose_card():
    g = CardGame.position(
        preset("rummy"), "", ["5H 6H 7H KS 2C QD 9S 3D", "AS 4C"], pool="8C 10D JD"
    )
    text = choose_move(g, 0, level="strong")
    assert text.startswith("discard ") and text.split()[1] not in ("5H", "6H", "7H")
    medium = choose_move(g, 0, level="medium")
    assert medium.startswith("meld 5H 6H 7H")  # the level below lays what it can
    g.apply(0, text)
    assert not g.table and len(g.racks[0]) == 7


def test_strong_rummy_goes_out_when_the_whole_hand_goes():
    g = CardGame.position(
        preset("rummy"), "4S 5S 6S", ["5H 6H 7H 7S 9D 9H 9C KD", "AS 2C"], pool="8C 10D"
    )
    g.apply(0, choose_move(g, 0, level="strong"))
    assert g.status == "finished" and g.result.winner == 0
    assert g.result.details["rummy"]  # nothing laid before: going rummy


def test_strong_romme_goes_out_as_hand_romme_below_the_opening_minimum():
    g = CardGame.position(
        preset("romme"), "", ["2S 3S 4S 5H 5D 5C 7D 8D 9D KD", "AS 2C"], pool="8C 10D"
    )
    g.apply(0, choose_move(g, 0, level="strong"))
    assert g.status == "finished" and g.result.winner == 0
    assert g.result.details["hand_romme"]


def test_strong_romme_lays_nothing_before_it_can_go_out():
    g = CardGame.position(
        preset("romme"), "", ["JS QS KS 10H 10D 10C 2D 7C 4H", "AS 2C"], pool="8C 10S"
    )
    assert choose_move(g, 0, level="medium").startswith("meld")  # 60 points: medium opens
    text = choose_move(g, 0, level="strong")
    assert text.startswith("discard ") and text.split()[1] in ("2D", "7C", "4H")


def test_strong_takes_the_top_discard_only_when_it_uses_it():
    g = CardGame.position(
        preset("rummy"),
        "",
        ["5H 6H KS 2C 9D QC JS", "AS"],
        discards="7H",
        pool="3D 9C",
        drawn=False,
    )
    assert choose_move(g, 0, level="strong") == "pick"
    g = CardGame.position(
        preset("rummy"),
        "",
        ["5H 6H KS 2C 9D QC JS", "AS"],
        discards="4D",
        pool="3D 9C",
        drawn=False,
    )
    assert choose_move(g, 0, level="strong") == "draw"


def test_a_card_whose_partners_are_gone_is_worth_less_and_goes_first():
    # neither 9S nor 2C has a partner in hand; every 9 and every spade next to 9S has been
    # discarded, while the twos and clubs next to 2C are unseen
    g = CardGame.position(
        preset("rummy"),
        "",
        ["5H 6H 7H 9S 2C KD KH KC", "AS"],
        discards="9H 9D 9C 7S 8S 10S JS",
        pool="3C 4C 2H 2D",
    )
    unseen = unseen_cards(g, 0)
    hand = Counter(g.faces(g.racks[0]))
    assert unseen[card("9H")] == 0 and unseen[card("2H")] == 1
    assert keep_value(card("9S"), hand, unseen, False) == 0
    assert keep_value(card("2C"), hand, unseen, False) > 0
    assert choose_move(g, 0, level="strong") == "discard 9S"
