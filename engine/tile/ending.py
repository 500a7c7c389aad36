"""Ending a turn and the game: ``done``, ``discard`` (Stein, also the last tile from the table),
the end-of-turn check, committing the working copy, the next player, scoring, time-outs."""

from __future__ import annotations

from typing import Any

from ..commands import Command
from ..errors import RummyError
from ..game import Event, Result
from ..melds import (
    explain_invalid,
    positional_reading,
)
from ..pieces import Face
from ..scoring import score_tile_game, tile_details, tile_ranks
from .jokers import joker_faults
from .turn import (
    Turn,
    TurnContext,
    arrange,
    draws_complete,
    event,
    from_meld,
    from_rack,
    held_jokers,
    meld_at,
    nested,
    opening_value,
    private_event,
    require_draws,
    reset_turn,
    table_changed,
    take_from_pool,
    tiles,
    touch,
)


def done(g: TurnContext, seat: int, c: Command) -> list[Event]:
    require_draws(g)
    if g.is_stein and g.turn.rack:
        raise RummyError("turn.must_discard")
    check_turn(g, seat)  # an invalid table is named first, played tiles or not
    if not g.is_stein and not g.turn.played:
        changed = table_changed(g)
        raise RummyError("turn.nothing_played_changed" if changed else "turn.nothing_played")
    return commit(g, seat) + end_turn(g, seat)


def discard(g: TurnContext, seat: int, c: Command) -> list[Event]:
    """End a Stein turn by discarding a tile. A player who has laid every tile may discard
    a table tile whose removal leaves every meld valid (RULES.md "Preset stein": the last
    tile may come "from the table or the hand"): ``discard N PIECE``, or ``discard PIECE``
    (the first meld, in table order, that stays valid without it)."""
    if not g.rules.discard_required:
        raise RummyError("turn.no_discard")
    require_draws(g)
    face = c.pieces[0]
    number = getattr(c, "meld", None)
    if g.turn.rack:
        if number is not None:
            raise RummyError("turn.discard_from_hand", tiles=tiles(len(g.turn.rack)))
        piece = from_rack(g, c.pieces)[0]
        g.turn.rack.remove(piece)
    else:
        piece = take_off_table(g, seat, number, face)
    check_turn(g, seat)
    g.discards.append(piece)
    p = str(g.deck[piece])
    events = commit(g, seat)
    events.append(event(g, "discard", seat, shown=(p,), piece=p))
    return events + end_turn(g, seat)


def take_off_table(g: TurnContext, seat: int, number: int | None, face: Face) -> int:
    """Take the table tile ``face`` (of meld ``number``, or of the first meld that stays
    valid without it) off the working table for the last discard; the meld must stay
    valid. Touching the meld follows the usual rules (claims, opening, table jokers)."""
    spec = g.rules.meld_spec
    numbers = [number] if number is not None else range(1, len(g.turn.table) + 1)
    holders = [no for no in numbers if face in g.faces(meld_at(g, no).ids)]
    if not holders:
        if number is not None:
            raise RummyError("piece.not_in_meld", piece=str(face), meld=number)
        raise RummyError("piece.not_on_table", piece=str(face))
    first_fault: RummyError | None = None
    for no in holders:
        meld = meld_at(g, no)
        piece = from_meld(g, meld, no, [face])[0]
        rest = [i for i in meld.ids if i != piece]
        try:
            touch(g, seat, no)
            if face.is_joker and piece in held_jokers(g):
                raise RummyError("joker.cannot_move", meld=no)
            if meld.claim is not None:
                raise RummyError("claim.broken", meld=no)
            rest_faces = g.faces(rest)
            if positional_reading(rest_faces, spec) is None:
                why = explain_invalid(rest_faces, spec, None)
                raise RummyError(
                    "turn.discard_breaks",
                    piece=str(face),
                    meld=no,
                    reason=nested(why, rstrip="."),
                )
        except RummyError as fault:
            first_fault = first_fault or fault
            continue
        meld.ids = arrange(g, rest)
        if piece in g.turn.played:
            g.turn.played.remove(piece)
        return piece
    assert first_fault is not None
    raise first_fault


def check_turn(g: TurnContext, seat: int) -> None:
    """Why the turn cannot end now (or nothing): every meld valid as it lies (jokers read
    by position) and every claim a group of four, named together; then the joker rules
    (:func:`~engine.tile.jokers.joker_faults`); then the opening (RULES.md per preset)."""
    spec = g.rules.meld_spec
    reasons = []
    for no, meld in enumerate(g.turn.table, 1):
        faces = g.faces(meld.ids)
        found = positional_reading(faces, spec)
        err = None
        if found is None:
            err = explain_invalid(faces, spec, no)
        elif meld.claim is not None and (len(meld.ids) != 4 or found.kind != "group"):
            err = RummyError("claim.broken", meld=no)
        if err is not None:
            reasons.append(nested(err))
    if reasons:
        raise RummyError("turn.invalid_table", reasons={"items": reasons, "sep": " "})
    faults = joker_faults(g)
    if faults:
        raise faults[0]
    played = set(g.turn.played)
    if not g.opened[seat] and played:
        if g.rules.opening_minimum:
            value = opening_value(g)
            if value < g.rules.opening_minimum:
                raise RummyError(
                    "opening.below_minimum", value=value, minimum=g.rules.opening_minimum
                )
        elif not any(m.ids and all(i in played for i in m.ids) for m in g.turn.table):
            raise RummyError("opening.no_meld")


def commit(g: TurnContext, seat: int) -> list[Event]:
    """Make the working table and rack the game's own."""
    events: list[Event] = []
    start_melds = {tuple(m.ids) for m in g.table}
    changed = set(g.turn.played)
    for meld in g.turn.table:
        if tuple(meld.ids) not in start_melds:
            changed.update(meld.ids)
    if g.turn.played and not g.opened[seat]:
        g.opened[seat] = True
        events.append(event(g, "opened", seat))
    g.last_changed = sorted(changed & {i for m in g.turn.table for i in m.ids})
    g.table = [m.copy() for m in g.turn.table]
    g.racks[seat] = list(g.turn.rack)
    return events


def end_turn(g: TurnContext, seat: int) -> list[Event]:
    """After a committed turn: win, stalemate, or the next player."""
    table_changed = bool(g.turn.played) or bool(g.turn.taken)
    if not g.racks[seat]:
        return finish(g, "out", seat)
    if not g.pool and not table_changed:
        g.quiet += 1
    else:
        g.quiet = 0
    if not g.pool and g.quiet >= len(g.players):
        return finish(g, "stalemate", None)
    n = len(g.players)
    g.current = (seat + 1) % n
    g.turn_no += 1
    if g.current == g.start_player:
        g.round_no += 1
    g.turn = Turn([m.copy() for m in g.table], list(g.racks[g.current]))
    return [event(g, "turn", g.current)]


def finish(g: TurnContext, reason: str, winner: int | None) -> list[Event]:
    g.status = "finished"
    lefts = [g.faces(r) for r in g.racks]
    claims = [sum(1 for m in g.table if m.claim == s) for s in range(len(g.players))]
    first_round = winner is not None and g.round_no == 0
    points = score_tile_game(
        g.rules,
        lefts,
        winner,
        claims=claims if g.rules.claims else None,
        first_round=first_round,
    )
    ranks = tile_ranks(g.rules, points, lefts, winner)
    details: dict[str, Any] = {"first_round": first_round}
    if g.rules.claims:
        details["claims"] = claims
    details.update(tile_details(g.rules, lefts))
    g.result = Result(
        reason=reason,  # type: ignore[arg-type]
        winner=winner,
        points=points,
        ranks=ranks,
        left=[[str(f) for f in x] for x in lefts],
        details=details,
    )
    g.turn = Turn([m.copy() for m in g.table], [])
    if winner is not None:
        return [event(g, "game_over", winner)]
    key = "event.game_over.stalemate" if reason == "stalemate" else "event.game_over.ended"
    return [event(g, "game_over", None, key)]


def timeout(g: TurnContext) -> list[Event]:
    """The preset's time-out action for the player to move (RULES.md)."""
    if g.status != "playing":
        raise RummyError("game.over")
    seat = g.current
    reset_turn(g)
    events = [event(g, "timeout", seat)]
    action = g.rules.timeout_action
    if action == "penalty":
        got = take_from_pool(g, seat, g.rules.timeout_penalty_tiles)
        events.append(event(g, "penalty", seat, count=len(got)))
        if got:
            events.append(private_event(g, seat, "drew", got))
    elif action == "auto_discard":
        while not draws_complete(g):
            if g.pool:
                take_from_pool(g, seat, 1)
                g.turn.drawn += 1
            else:
                piece = g.discards.pop()
                g.racks[seat].append(piece)
                g.turn.rack.append(piece)
                g.turn.new.append(piece)
                g.turn.picked += 1
        rack = g.turn.rack
        piece = (g.turn.new or rack)[-1]
        rack.remove(piece)
        g.racks[seat] = list(rack)
        g.discards.append(piece)
        p = str(g.deck[piece])
        events.append(event(g, "discard", seat, shown=(p,), piece=p))
    return events + end_turn(g, seat)


def end(g: TurnContext, reason: str = "ended") -> list[Event]:
    """End the game now (organiser's decision or abandonment), scored by what is left."""
    if g.status != "playing":
        raise RummyError("game.over")
    g.turn = Turn([m.copy() for m in g.table], list(g.racks[g.current]))
    return finish(g, reason, None)
