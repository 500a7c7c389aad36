"""The rule sets the stateful tests run: every preset and a few options / variants."""

from __future__ import annotations

from engine.rules import preset


def configurations() -> dict[str, tuple[object, int]]:
    """name -> (rule set, players)."""
    romme = preset("romme")
    return {
        "stein": (preset("stein"), 3),
        "stein_plus": (preset("stein_plus"), 3),
        "stein_plus_4": (preset("stein_plus"), 4),
        "rummikub": (preset("rummikub"), 3),
        "rummikub_split_ok": (preset("rummikub").with_options(joker_meld_no_split=False), 2),
        "romme": (romme, 3),
        "romme_a_c_h": (
            romme.with_options(
                variant_knocking=True, run_mode="ace_high", variant_joker_double=True
            ),
            3,
        ),
        "romme_b_e_g_j": (
            romme.with_options(
                variant_declared_joker=True,
                variant_announce_ten=True,
                variant_end_without_discard=True,
                variant_draw_two=True,
                hand_size=10,
            ),
            2,
        ),
        "rummy": (preset("rummy"), 2),
        "rummy_4": (preset("rummy"), 4),
    }
