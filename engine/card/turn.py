"""Turn order and the end of a card game (RULES.md ``romme`` / ``rummy``): the turn record,
undo snapshots, the talon (refill, reshuffle), the checks at a turn's end, the stalemate test and
scoring a finished game. Functions over the worked-on copy of a :class:`~engine.cards.CardGame`."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ..errors import RummyError
from ..game import Event, Result
from ..melds import rank_at, span_ok
from ..pieces import Face, sort_key
from .scoring import score_game
from .table import TableMeld, extended, swap_position

if TYPE_CHECKING:
    from ..cards import CardGame


def new_turn(opened: bool) -> dict[str, Any]:
    """The record of a turn that starts (saved as the game's ``turn``)."""
    return {
        "drawn": False,  # drew from talon or discard pile this turn
        "picked": None,  # id of the card taken from the discard pile this turn
        "from_talon": False,
        "opened_at_start": opened,
        "opening_value": 0,  # Rommé: value of the melds laid this turn before opening
        "melded": False,
        "table_used": False,  # lay-off or swap this turn
        "table_command": None,  # the first of them (for the error message)
        "knock_due": False,  # variant a: must first meld the knocked card
        "history": [],  # snapshots for undo/reset (table plays of this turn)
    }


def copy_turn(turn: dict[str, Any]) -> dict[str, Any]:
    """An independent copy of a turn record (its snapshots are never mutated)."""
    out = dict(turn)
    out["history"] = list(turn["history"])
    return out


UNDONE = ("opening_value", "melded", "table_used", "table_command")
"""What a table play changes in ``turn`` besides the hand and the table (undo restores it)."""


def snapshot(g: CardGame, seat: int) -> None:
    """Everything a table play (meld, add, swap) changes, for ``undo`` / ``reset``: the hand,
    the table, the turn's opening bookkeeping and the last public event."""
    snap = {"rack": list(g.racks[seat]), "table": [m.to_list() for m in g.table]}
    snap.update({key: g.turn[key] for key in UNDONE})
    snap["last_event"] = g.last_event
    g.turn["history"].append(snap)


def restore(g: CardGame, seat: int, snap: dict[str, Any]) -> None:
    """Back to a snapshot: ``undo`` right after a play gives the game exactly as before it
    (docs/CARDS.md)."""
    g.racks[seat] = list(snap["rack"])
    g.table = [TableMeld.from_list(m) for m in snap["table"]]
    for key in UNDONE:
        g.turn[key] = snap.get(key, g.turn[key])
    g.last_event = snap.get("last_event", g.last_event)


def take_back(g: CardGame) -> None:
    """The mover's table plays of this turn are taken back (``end``, time-out)."""
    if g.turn["history"]:
        restore(g, g.current, g.turn["history"][0])
        g.turn["history"] = []


# ---------------------------------------------------------------------- the talon


def refill(g: CardGame) -> list[Event]:
    """Talon exhausted (RULES.md): Rommé shuffles the discards except the top one into a new
    talon (any number of times); Rummy shuffles the whole pile once, then the hand is a draw.
    Returns events; may finish the game."""
    if g.pool:
        return []
    if not may_reshuffle(g):
        return finish(g, "draw", None)
    return reshuffle(g)


def may_reshuffle(g: CardGame) -> bool:
    limit = g.rules.max_reshuffles
    keep = 1 if g.rules.reshuffle_keeps_top else 0
    return (limit is None or g.reshuffles < limit) and len(g.discards) > keep


def reshuffle(g: CardGame) -> list[Event]:
    keep = 1 if g.rules.reshuffle_keeps_top else 0
    moved = g.discards[: len(g.discards) - keep]
    g.discards = g.discards[len(g.discards) - keep :]
    random.Random(f"{g.seed}:shuffle:{g.shuffles}").shuffle(moved)
    g.pool = moved
    g.shuffles += 1
    g.reshuffles += 1
    return [g.event("reshuffle", None, count=len(moved))]


def take_talon(g: CardGame, seat: int, count: int) -> tuple[list[int], list[Event]]:
    events: list[Event] = []
    ids: list[int] = []
    for _ in range(count):  # variant j: a short talon gives what it has
        if not g.pool and g.rules.reshuffle_keeps_top and may_reshuffle(g):
            events += reshuffle(g)
        if not g.pool:
            break
        ids.append(g.pool.pop())
    if not ids and count:
        raise RummyError("cards.talon_empty")
    g.racks[seat].extend(ids)
    return ids, events


# ---------------------------------------------------------------------- ending a turn


def check_turn_end(g: CardGame, seat: int, going_out: bool) -> None:
    """Rommé's opening rules, checked when a turn ends (RULES.md ``romme`` "Opening"): the
    turn's melds reach the minimum (40, variant d 30) unless this is a Hand-Rommé; lay-offs
    and swaps before opening only in a Hand-Rommé."""
    t = g.turn
    if not g.rules.must_open or t["opened_at_start"] or going_out:
        return
    if t["table_used"]:
        raise RummyError("cards.not_opened", command=t["table_command"])
    if t["melded"] and t["opening_value"] < g.rules.opening_minimum:
        raise RummyError(
            "opening.below_minimum",
            value=t["opening_value"],
            minimum=g.rules.opening_minimum,
        )


def next_turn(g: CardGame) -> list[Event]:
    n = len(g.players)
    g.current = (g.current + 1) % n
    g.turn_no += 1
    g.turn = new_turn(g.opened[g.current])
    if g.announcer is not None and g.current == g.announcer:
        return finish(g, "announced", g.announcer)
    if g.knocks[g.current]:
        g.turn["knock_due"] = True
    events = refill(g)
    if g.status == "playing" and nobody_can_go_out(g):
        events += finish(g, "stalemate", None)
    if g.status == "playing":
        events.append(g.event("turn", g.current, noted=False))
    return events


# ---------------------------------------------------------------------- stalemate


def nobody_can_go_out(g: CardGame) -> bool:
    """Sound stalemate test (RULES.md ``rummy`` "Also a draw"), run when a turn starts.

    A hand shrinks only by melding (3+ cards from one hand) or laying off; swapping a joker
    keeps the hand size and the shape of the meld. So nobody can ever go out when

    1. no card off the table (nor a joker a swap could free) fits any meld - this stays true
       while only swaps happen - and
    2. either no hand can hold 3 cards during a turn (cards at rest + cards taken per turn
       < 3; Rommé knocking can add cards, so it never counts as such), or no three cards
       off the table make a meld and no table joker can be freed.

    Rommé with variant e or f can still end otherwise and is never called a stalemate."""
    rules = g.rules
    if rules.romme_variants and (rules.variant_announce_ten or rules.variant_colour_romme):
        return False
    spec = rules.meld_spec
    on_table = {i for m in g.table for i in m.ids}
    outside = [i for i in g.all_piece_ids() if i not in on_table]
    by_face = {g.deck[i]: i for i in outside}
    real = [f for f in by_face if not f.is_joker]
    gain = 3 if g.draw_count == 2 else 1
    knocking = rules.romme_variants and rules.variant_knocking
    may_meld = knocking or max(len(r) for r in g.racks) + gain >= 3
    if may_meld and _outside_meld_exists(g, outside, real):
        return False
    table_jokers = [i for i in on_table if g.deck[i].is_joker]
    candidates = list(by_face.items()) + [(g.deck[i], i) for i in table_jokers[:1]]
    for meld in g.table:
        real_in_meld = [f for f in g.faces(meld.ids) if not f.is_joker]
        if meld.kind == "group":
            near = [i for f, i in candidates if f.is_joker or f.rank == real_in_meld[0].rank]
        else:
            near = [i for f, i in candidates if f.is_joker or f.suit == real_in_meld[0].suit]
        if any(extended(g.deck, meld, [i], spec) is not None for i in near):
            return False
    if not may_meld:
        return True
    for meld in g.table:
        if any(g.deck[i].is_joker for i in meld.ids) and any(
            swap_position(g.deck, meld, f, spec) is not None for f in real
        ):
            return False
    return True


def _outside_meld_exists(g: CardGame, outside: list[int], real: list[Face]) -> bool:
    """Do some three cards off the table make a meld?"""
    jokers = sum(1 for i in outside if g.deck[i].is_joker)
    if jokers >= 2 and real:
        return True
    by_rank: dict[int, set[int]] = {}
    by_suit: dict[int, set[int]] = {}
    for f in real:
        by_rank.setdefault(f.rank, set()).add(f.suit)
        by_suit.setdefault(f.suit, set()).add(f.rank)
    if any(len(suits) + jokers >= 3 for suits in by_rank.values()):
        return True
    mode = g.rules.run_mode
    for ranks in by_suit.values():
        for start in range(1, 14):
            if span_ok(mode, start, 3, 13):
                have = sum(1 for k in range(3) if rank_at(mode, start + k) in ranks)
                if have + jokers >= 3:
                    return True
    return False


# ---------------------------------------------------------------------- the end


def finish(g: CardGame, reason: str, winner: int | None, *, special: bool = False) -> list[Event]:
    """Score the single game (:func:`~engine.card.scoring.score_game`). Cards of a pending knock
    count as the knocker's."""
    lefts_ids = [list(r) for r in g.racks]
    for seat, knock in enumerate(g.knocks):
        if knock:
            lefts_ids[seat] += knock["hidden"]
    lefts = [g.faces(ids) for ids in lefts_ids]
    points, ranks, details = score_game(
        g.rules, lefts, reason, winner, special=special, announcer=g.announcer
    )
    g.status = "finished"
    g.result = Result(
        reason=reason,  # type: ignore[arg-type]
        winner=winner,
        points=list(points),
        ranks=ranks,
        left=[[str(f) for f in sorted(faces, key=sort_key)] for faces in lefts],
        details=details,
    )
    scores = [
        {"key": "event.card.score", "player": {"seat": s}, "points": p}
        for s, p in enumerate(points)
    ]
    return [
        g.event(
            "end",
            winner,
            reason={"key": f"event.card.end.{reason}"},
            scores={"items": scores, "sep": ", "},
        )
    ]
