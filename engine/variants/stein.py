"""Stein-Rummy (RULES.md "Preset stein"): 3-4 players, one own joker each, runs wrap 13-1, two
draws a turn (at most one from the discards), a discard ends it; match points by place."""

from __future__ import annotations

from ..rules import RuleSet
from . import Ladder, Variant

RULES = RuleSet(
    preset="stein",
    name="Stein-Rummy",
    game="stein",
    family="tile",
    min_players=3,
    max_players=4,
    hand_size=14,
    jokers_per_player=1,
    run_mode="wrap",
    max_run=26,
    draws_per_turn=2,
    discard_picks_per_turn=1,
    pick_any_discard=True,
    discard_required=True,
    joker_freed_to_hand=True,
    group_joker_needs_fourth=True,
    take_with_joker=True,
    first_round_out="split",
    timeout_action="auto_discard",
    joker_penalty=1,
    draw_first=True,
    scoring="places",
)

VARIANT = Variant(RULES, ladder=Ladder.STEIN_MP, tournaments=True)
