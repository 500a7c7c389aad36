"""Simple legal moves for tile games: meld finding and a random player.

Used by the random-game tests, as the ``easy`` level's move source, and wherever a quick legal
turn is needed. It does not search the table for rearrangements (the solver does that); it lays
melds from the rack and lays single tiles off onto table melds.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from .errors import RummyError
from .melds import MeldSpec, readings
from .pieces import Face, format_faces
from .scoring import opening_value


def candidate_melds(faces: Sequence[Face], spec: MeldSpec) -> list[list[Face]]:
    """Valid melds that can be made from these pieces (not necessarily disjoint): groups of
    3-4 by value, runs by colour (wrapping where the spec allows), each with a joker added
    where one completes it."""
    real = [f for f in faces if not f.is_joker]
    jokers = [f for f in faces if f.is_joker]
    found: list[list[Face]] = []
    by_rank: dict[int, set[Face]] = defaultdict(set)
    by_suit: dict[int, set[int]] = defaultdict(set)
    for f in real:
        by_rank[f.rank].add(f)
        by_suit[f.suit].add(f.rank)
    for group in by_rank.values():
        distinct = sorted(group)
        if len(distinct) >= 3:
            found.append(distinct[:4])
        elif len(distinct) == 2 and jokers:
            found.append([*distinct, jokers[0]])
    face_type = type(real[0]) if real else None
    for suit, ranks in by_suit.items():
        order = list(range(1, 14))
        if spec.run_mode == "wrap":
            order = order + order[:2]
        run: list[int] = []
        for r in [*order, 0]:
            if r in ranks and (not run or run[-1] % 13 + 1 == r) and r not in run:
                run.append(r)
                continue
            if len(run) >= 3:
                found.append([face_type(suit, x) for x in run])  # type: ignore[misc]
            elif len(run) == 2 and jokers:
                found.append([face_type(suit, run[0]), face_type(suit, run[1]), jokers[0]])  # type: ignore[misc]
            run = [r] if r in ranks else []
    return [m for m in found if readings(m, spec)]


def disjoint_melds(
    faces: Sequence[Face], spec: MeldSpec, rng: random.Random | None = None
) -> list[list[Face]]:
    """A set of melds that can be laid together from these pieces (greedy, largest first)."""
    left = list(faces)
    chosen: list[list[Face]] = []
    while True:
        options = candidate_melds(left, spec)
        if not options:
            return chosen
        if rng is not None:
            rng.shuffle(options)
        options.sort(key=len, reverse=True)
        meld = options[0]
        for f in meld:
            left.remove(f)
        chosen.append(meld)


def _meld_key(meld: Sequence[Face]) -> tuple[str, int]:
    """Which single tiles could extend this meld: a group by its value, a run by its colour."""
    real = [f for f in meld if not f.is_joker]
    if len(real) > 1 and all(f.rank == real[0].rank for f in real):
        return ("group", real[0].rank)
    return ("run", real[0].suit) if real else ("none", 0)


def accepts(game, seat: int, text: str) -> bool:
    """Would the engine accept this message from ``seat`` now? (probed on a copy, which
    ``apply`` of the same message then takes over: ``TileGame.probe``)."""
    return game.probe(seat, text) is not None


def checked_tile_turn(game, seat: int, commands: Sequence[str], rng: random.Random) -> str:
    """The commands the engine accepts one after another (a refused one is left out), ending
    the turn legally: ``done`` when the table is valid, else the table is taken back (``reset``)
    and the turn ended by a draw (Rummikub) or a discard the engine accepts (Stein). Every rule
    lives in the engine, so a computer player's message is never refused, whatever the rules
    forbid (RULES.md: jokers fixed by position, joker melds unsplit, claims, openings)."""
    stein = game.rules.discard_required

    def ends_turn(text: str) -> bool:
        return text == "done" or text.startswith("discard") or (text == "draw" and not stein)

    texts = [c.strip() for message in commands for c in message.split(";")]
    kept, probe = _accepted_in_turn(game, seat, [t for t in texts if t and not ends_turn(t)])
    end = _first_accepted(game, seat, kept, _turn_ends(probe, seat, rng))
    if end is not None:
        return "; ".join([*kept, end])
    head = [c for c in kept if c == "draw" or c.startswith("pick")]  # draws stay drawn
    base = _then(game, seat, head, "reset")
    if base is None:  # pragma: no cover - draws and a reset are always accepted
        base = game.copy()
        for text in [*head, "reset"]:
            base.apply(seat, text)
    end = _first_accepted(game, seat, [*head, "reset"], _turn_ends(base, seat, rng))
    if end is None:  # the engine always lets a turn end by a draw or a discard
        raise RummyError("turn.unfinished", finish="draw")
    return "; ".join([*head, "reset", end])


def _accepted_in_turn(game, seat: int, texts: Sequence[str]):
    """The texts the engine accepts one after another (a refused one is left out), and the
    game after them. Where every text is one command, the rest is probed as one message after
    those kept (``TileGame.probe_part``: the engine runs a message command after command, and
    tells how many it accepted before it refused one, so each refused text costs one probe);
    else text after text."""
    from .tiles import parse_message  # here: engine.tiles imports engine.hints, which imports us

    kept: list[str] = []
    probe = game
    single = []
    for text in texts:
        try:
            if len(parse_message(text)) == 1:
                single.append(text)
                continue
        except RummyError:
            continue  # refused as it is typed
        single = None
        break
    if single is None:  # pragma: no cover - the players' texts are one command each
        for text in texts:
            after = _then(game, seat, kept, text)
            if after is not None:
                kept.append(text)
                probe = after
        return kept, probe
    rest = single
    while rest:
        took, after = _took(game, seat, kept, rest)
        if took is None:  # pragma: no cover - not known from one probe: the next text alone
            after = _then(game, seat, kept, rest[0])
            if after is not None:
                kept.append(rest[0])
                probe = after
            rest = rest[1:]
            continue
        if took:
            kept += rest[:took]
            probe = after
        rest = rest[took + 1 :]  # the one after those is refused (none left when all went)
    return kept, probe


def _took(game, seat: int, kept: list[str], rest: list[str]):
    """How many of ``rest`` (one command each) the engine accepts one after another after
    ``kept``, and the game after them, by one probe of them all; None when one probe does not
    tell (the message does not read as those commands, or the copy was left half changed)."""
    from .tiles import parse_message

    texts = [*kept, *rest]
    joint = "; ".join(texts)
    try:
        same = parse_message(joint) == [c for t in texts for c in parse_message(t)]
    except RummyError:
        same = False
    if not same:
        return None, None
    accepted, after = game.probe_part(seat, joint)
    took = accepted - len(kept)
    if accepted == 0 and after is None:
        return (0, game) if not kept else (None, None)
    if took < 0 or after is None:
        return None, None
    return took, after


def _then(game, seat: int, kept: Sequence[str], text: str):
    """The game after the message ``kept`` and then ``text`` (each command accepted as its
    own message in turn), or None when the engine refuses ``text`` there. Probed as one
    message on ``game`` (``TileGame.probe``: only ``text`` is run, after the probe of
    ``kept``), which gives the same game as the messages one after another as long as
    ``text`` is a message of its own (it starts with a command word)."""
    from .tiles import parse_message  # here: engine.tiles imports engine.hints, which imports us

    try:
        alone = parse_message(text)
    except RummyError:
        return None
    joint = "; ".join([*kept, text])
    before = parse_message("; ".join(kept)) if kept else []
    if parse_message(joint) != before + alone:
        return None  # pragma: no cover - a message that starts with a command word
    return game.probe(seat, joint)


def _turn_ends(game, seat: int, rng: random.Random) -> list[str]:
    """The ways to end this turn, most useful first (the engine decides which it accepts)."""
    if not game.rules.discard_required:
        return ["done", "draw"]
    rack = sorted({str(f) for f in game.faces(game.turn.rack)})  # the rack as the turn left it
    rng.shuffle(rack)
    return ["done", *(f"discard {f}" for f in rack)]


def _first_accepted(game, seat: int, kept: Sequence[str], candidates: Sequence[str]) -> str | None:
    """The first of ``candidates`` the engine accepts after the message ``kept``."""
    return next((c for c in candidates if _then(game, seat, kept, c) is not None), None)


def random_tile_turn(game, seat: int, rng: random.Random) -> str:
    """A legal turn for ``seat`` in a tile game, as command text (commands joined by ';').

    Draw as the preset requires, lay what melds the rack holds (meeting the opening rule),
    lay off single tiles where they fit once opened, then discard or end the turn; what the
    engine would refuse is left out (:func:`checked_tile_turn`)."""
    rules = game.rules
    spec = rules.meld_spec
    parts: list[str] = []
    rack = list(game.rack(seat))
    if rules.draw_first:
        draws = game.turn.drawn + game.turn.picked
        picked = game.turn.picked >= rules.discard_picks_per_turn
        if game.discards and not picked and draws < rules.draws_per_turn and rng.random() < 0.3:
            top = game.deck[game.discards[-1]]
            parts.append(f"pick {top}")
            rack.append(top)
            draws, picked = draws + 1, True
        pool = list(game.pool)
        while draws < rules.draws_per_turn and pool:
            rack.append(game.deck[pool.pop()])
            parts.append("draw")
            draws += 1
        if draws < rules.draws_per_turn and not picked and game.discards:
            top = game.deck[game.discards[-1]]
            parts.append(f"pick {top}")
            rack.append(top)
    melds = disjoint_melds(rack, spec, rng)
    if rules.opening_minimum and not game.opened[seat]:
        value = opening_value(melds, spec)
        if value < rules.opening_minimum:
            melds = []
    for meld in melds:
        for f in meld:
            rack.remove(f)
    if rules.draw_first and melds and not rack:
        # keep a tile to discard: give back the last meld's extra piece or the smallest meld
        last = melds.pop()
        rack.extend(last)
    if melds:
        parts.append("meld " + " | ".join(format_faces(m) for m in melds))
    table = [list(m) for m in game.table_faces()] + [list(m) for m in melds]
    fixed_jokers = not rules.joker_freed_to_hand
    if game.opened[seat]:
        own_start = len(game.table)
        by_key: dict[tuple[str, int], list[int]] = defaultdict(list)
        for k in range(own_start):
            claim = game.table[k].claim
            if claim is None or claim == seat:
                by_key[_meld_key(table[k])].append(k)
        for f in list(rack):
            if rules.draw_first and len(rack) <= 1:
                break
            if f.is_joker:
                candidates = range(own_start)
            else:
                candidates = sorted(by_key[("group", f.rank)] + by_key[("run", f.suit)])
            for k in candidates:
                meld = table[k]
                if fixed_jokers and any(x.is_joker for x in meld):
                    continue  # Rummikub: a table joker keeps its meaning; leave its meld be
                if readings([*meld, f], spec):
                    parts.append(f"add {k + 1} {f}")
                    meld.append(f)
                    rack.remove(f)
                    break
    if rules.draw_first:
        if rack:
            discard = rng.choice(rack)
            parts.append(f"discard {discard}")
        else:
            parts.append("done")
    elif any(p.startswith(("meld", "add")) for p in parts):
        parts.append("done")
    else:
        parts.append("draw")
    text = "; ".join(parts)
    plays = any(p.startswith(("meld", "add")) for p in parts)
    if not (plays and _beyond_the_plan(game)) or accepts(game, seat, text):
        return text
    return checked_tile_turn(game, seat, parts, rng)


def _beyond_the_plan(game) -> bool:
    """Does the table hold what this planning does not model (a table joker, whose meaning is
    fixed, or a claim)? Only then is the turn tried on a copy first (it costs a second apply)."""
    return any(
        m.claim is not None or any(game.deck[i].is_joker for i in m.ids) for m in game.turn.table
    )
