"""Rummikub (RULES.md "Preset rummikub"): 2-4 players, four jokers in the pool, a 30-point
opening from the rack, play or draw; the others pay their rack values to the winner."""

from __future__ import annotations

from ..rules import RuleSet
from . import Ladder, Variant

RULES = RuleSet(
    preset="rummikub",
    name="Rummikub (30-point opening)",
    game="rummikub",
    family="tile",
    min_players=2,
    max_players=4,
    hand_size=14,
    pool_jokers=4,
    run_mode="linear",
    max_run=13,
    draws_per_turn=1,
    opening_minimum=30,
    joker_freed_to_hand=False,
    joker_meld_no_split=True,
    turn_seconds=120,
    timeout_action="penalty",
    timeout_penalty_tiles=3,
    joker_penalty=30,
    start_by_lot=True,
    discard_pile=False,
    scoring="rack_points",
)

VARIANT = Variant(RULES, ladder=Ladder.PLACE_BY_POINTS)
