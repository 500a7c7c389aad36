"""Classic Rummy (RULES.md "Preset rummy"): one pack, no jokers, an upcard, one reshuffle; the
winner takes the others' card points (doubled for going rummy), a match to a target."""

from __future__ import annotations

from ..rules import RuleSet
from . import Ladder, Variant

RULES = RuleSet(
    preset="rummy",
    name="Rummy",
    game="rummy",
    family="card",
    min_players=2,
    max_players=4,
    copies=1,
    hand_size=7,
    hand_size_by_players=((2, 10), (3, 7), (4, 7)),
    pool_jokers=0,
    run_mode="linear",
    max_run=13,
    meld_values="rummy",
    draws_per_turn=1,
    discard_required=False,
    upcard=True,
    max_reshuffles=1,
    match_target_by_players=((2, 100), (3, 150), (4, 200)),
    rummy_bonus_double=True,
    joker_penalty=0,
    scoring="card_points",
)

VARIANT = Variant(RULES, ladder=Ladder.MATCH_WINNER)
