"""The card hint's discard and its reason (engine/card/hint.py, i18n/*/card_hint.json): the card
least worth keeping by the live cards, with why in English and German, and the strong player's
alternative of holding the melds as a tip; the hint typed back is accepted."""

from __future__ import annotations

from engine.cards import CardGame
from engine.rules import preset
from i18n import event_text


def hint(g: CardGame) -> tuple[str, str, str]:
    (event,) = g.apply(g.current, "hint")
    assert event.kind == "hint" and event.private
    en, de = event_text(event, "en", g.players), event_text(event, "de", g.players)
    assert en.rsplit(": ", 1)[-1] == de.rsplit(": ", 1)[-1] == event.params["command"]
    return event.params["command"], en, de


def test_a_dead_card_is_discarded_and_the_hint_says_why():
    # every 9 and every spade next to 9S is discarded: 9S is dead; 2C still has live partners
    g = CardGame.position(
        preset("rummy"),
        "",
        ["5H 6H 7H 9S 2C 3C 4D", "AS"],
        discards="9H 9D 9C 7S 8S 10S JS",
        pool="4C 2H 2D",
    )
    command, en, de = hint(g)
    assert command == "meld 5H 6H 7H; discard 9S"
    assert "Discard 9S (9 points): every card that would make a meld with it is on the table" in en
    assert "Lege 9S ab (9 Punkte): jede Karte, die mit ihr eine Kombination ergäbe" in de
    g.apply(0, command)
    assert g.current == 1


def test_the_hint_counts_the_unseen_cards_that_would_complete_the_discard():
    # 2C 3C: one unseen card (4C; AC is discarded) completes them; KD KH: two (KS, KC)
    g = CardGame.position(
        preset("rummy"),
        "",
        ["5H 6H 7H 2C 3C KD KH", "AS 4C"],
        discards="AC 9S",
        pool="KS KC 8D",
    )
    command, en, de = hint(g)
    assert command.endswith("discard 3C") or command.endswith("discard 2C"), command
    assert "only 1 card you have not seen would make a meld with it" in en
    assert "nur 1 Karte, die du noch nicht gesehen hast, ergäbe" in de
    g.apply(0, command)


def test_the_hint_offers_holding_the_melds_as_a_tip():
    g = CardGame.position(preset("rummy"), "", ["5H 6H 7H 9S 2C KD QH", "AS"], pool="4C 2H 2D 8C")
    command, en, de = hint(g)
    assert command.startswith("meld 5H 6H 7H; discard ")
    tip = en.split(" Or keep your melds in hand ")[1]
    alt = tip.split(": ", 1)[1].split(".", 1)[0]
    assert alt.startswith("discard ") and alt.split()[1] not in ("5H", "6H", "7H")
    assert "Oder behalte deine Kombinationen auf der Hand" in de
    g.copy().apply(0, alt)  # the tip is accepted too
    g = CardGame.position(
        preset("romme"), "", ["JS QS KS 10H 10D 10C 2D 7C 4H", "AS 2C"], pool="8C 10S"
    )
    command, en, de = hint(g)
    assert command.startswith("meld") and "Hand-Rommé (no 40 points needed" in en
    assert "für ein Hand-Rommé (ohne 40 Punkte" in de


def test_no_tip_when_the_play_goes_out():
    g = CardGame.position(
        preset("rummy"), "4S 5S 6S", ["5H 6H 7H 7S 9D 9H 9C KD", "AS 2C"], pool="8C 10D"
    )
    command, en, _ = hint(g)
    assert "Or keep" not in en
    g.apply(0, command)
    assert g.status == "finished" and g.result.winner == 0
