"""Stein-Rummy Plus claims (RULES.md "Preset stein_plus")."""

from engine.scoring import stein_plus_match_points
from i18n import error_text

from .helpers import game, rejects, table


def test_claim_a_group_of_four_from_the_hand():
    g = game("stein_plus", "", "R5 B5 Y5 K5 B1", "Y1", "Y2")
    g.apply(0, "meld R5 B5 Y5 K5; claim 1; discard B1")
    assert g.table[0].claim == 0
    assert g.public_view().melds[0].claim == 0


def test_claim_may_contain_a_joker_and_be_formed_on_the_table():
    g = game("stein_plus", "R7 B7 Y7", "J B1", "Y1", "Y2")
    g.apply(0, "add 1 J; claim 1; discard B1")
    assert g.table[0].claim == 0


def test_only_groups_of_exactly_four_and_only_own_work():
    g = game("stein_plus", "R7 B7 Y7 K7 | R1 R2 R3 R4", "B1")
    rejects(g, "claim 1", "claim.not_formed")
    rejects(g, "claim 2", "claim.not_group_of_four")


def test_others_may_not_touch_a_claim():
    g = game("stein_plus", "R7 B7 Y7 K7", "R8 B1", "Y1", opened=(True, True))
    g.table[0].claim = 1
    g.turn.table[0].claim = 1
    err = rejects(g, "move 1 R7 > new", "claim.not_yours")
    assert "P2" in error_text(err)
    rejects(g, "unclaim 1", "claim.not_yours")


def test_owner_may_dissolve_or_replace_a_tile_by_a_joker():
    g = game("stein_plus", "R7 B7 Y7 K7", "J B1", "Y1")
    g.table[0].claim = 0
    g.turn.table[0].claim = 0
    g.apply(0, "take 1 K7")
    assert table(g, working=True) == ["R7 B7 Y7 J"]
    g.apply(0, "unclaim 1")
    assert g.turn.table[0].claim is None


def test_a_claim_must_stay_a_group_of_four():
    g = game("stein_plus", "R7 B7 Y7 K7", "B1 B2", "Y1")
    g.table[0].claim = 0
    g.turn.table[0].claim = 0
    err = rejects(g, "move 1 K7 > new; discard B1", "turn.invalid_table")
    assert "claim" in error_text(err).lower() or "Meld 2" in error_text(err)


def test_claims_score_one_mp_each():
    assert stein_plus_match_points([0, 1, 2, 3], 0, [1, 0, 2, 0]) == [5, 3, 4, 1]
    g = game("stein_plus", "", "R5 B5 Y5 K5 B1", "Y1 Y2", "Y3")
    g.apply(0, "meld R5 B5 Y5 K5; claim 1; discard B1")
    assert g.status == "finished"
    # three players: the empty hand 4 SMP, then 3 and 2 by tiles left, plus one claim MP
    assert g.result.points == [4 + 1, 2, 3]
    assert g.result.details["claims"] == [1, 0, 0]
