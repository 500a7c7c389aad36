"""Rommé (RULES.md "Preset romme"): 2-6 players, two packs and six jokers, runs wrap, a 40-point
opening in one turn, a final discard; penalty points for the cards left, Hand-Rommé doubles."""

from __future__ import annotations

from ..rules import RuleSet
from . import Ladder, Variant

RULES = RuleSet(
    preset="romme",
    name="Rommé",
    game="romme",
    family="card",
    min_players=2,
    max_players=6,
    copies=2,
    hand_size=13,
    pool_jokers=6,
    run_mode="wrap",
    max_run=13,
    meld_values="romme",
    draws_per_turn=1,
    discard_required=True,
    opening_minimum=40,
    joker_freed_to_hand=True,
    joker_penalty=20,
    hand_romme_double=True,
    scoring="penalty",
    must_open=True,
    melds_owned=True,
    reshuffle_keeps_top=True,
    final_discard=True,
    romme_variants=True,
    deal_range=(10, 13),
)

VARIANT = Variant(RULES, ladder=Ladder.PLACE_BY_PENALTY)
