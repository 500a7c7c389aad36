"""Public views built by hand: for the CLI (a table from notation), tests and benchmarks.

A real game produces its :class:`~engine.game.PublicView` with ``public_view()``; these helpers
make views without a game, so the pictures can be drawn and measured on their own.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import MeldView, PublicView, SeatView
from engine.melds import readings
from engine.pieces import Face, parse_melds
from engine.rules import RuleSet, preset

NAMES = ("Anna", "Ben", "Chiara", "Dmitri", "Elif", "Farid")


def meld_kind(faces: Sequence[Face], rules: RuleSet) -> str | None:
    """``"group"``/``"run"`` as the engine reads the meld, None when it is not valid."""
    found = readings(list(faces), rules.meld_spec)
    return found[0].kind if found else None


def make_seats(count: int, *, pieces: int = 14) -> list[SeatView]:
    """Seats with sample names, alternating opened, a computer player in the last seat."""
    return [
        SeatView(
            seat=i,
            name=NAMES[i % len(NAMES)],
            pieces=max(0, pieces - 3 * i),
            opened=i % 2 == 0,
            score=float(12 * i - 5 if i else 0),
            is_bot=count > 2 and i == count - 1,
        )
        for i in range(count)
    ]


def view_from_melds(
    rules: RuleSet,
    melds: Sequence[Sequence[Face]],
    *,
    seats: list[SeatView] | None = None,
    owners: Sequence[int | None] | None = None,
    claims: Sequence[int | None] | None = None,
    changed: Sequence[Sequence[int]] | None = None,
    discards: Sequence[str] = (),
    pool: int = 0,
    current: int = 0,
    turn_no: int = 1,
) -> PublicView:
    """A playing view of these melds (numbered from 1 in the given order)."""
    seats = seats if seats is not None else make_seats(rules.min_players)
    views = []
    for i, faces in enumerate(melds):
        views.append(
            MeldView(
                number=i + 1,
                pieces=[str(f) for f in faces],
                kind=meld_kind(faces, rules),
                owner=owners[i] if owners else None,
                claim=claims[i] if claims else None,
                changed=list(changed[i]) if changed else [],
            )
        )
    return PublicView(
        preset=rules.preset,
        family=rules.family,
        status="playing",
        current=current,
        turn_no=turn_no,
        melds=views,
        seats=seats,
        pool=pool,
        discards=list(discards),
    )


def view_from_text(rules_name: str, table: str, **options) -> PublicView:
    """A view of melds in notation (``"R5 R6 R7 | B9 Y9 K9"``); raises RummyError if bad."""
    rules = preset(rules_name)
    return view_from_melds(rules, parse_melds(table, rules.family), **options)


def full_deck_melds(rules: RuleSet, players: int, jokers: int | None = None) -> list[list[Face]]:
    """Every piece of the preset's deck arranged as melds: the first copy as runs of 4, 4 and 5
    per colour, further copies as groups of four by value; jokers (all of the deck's, or the
    first ``jokers``) extend the first runs."""
    deck = rules.deck(players)
    real = [f for f in deck.faces if not f.is_joker]
    jokers_in_deck = [f for f in deck.faces if f.is_joker]
    jokers_in_deck = jokers_in_deck if jokers is None else jokers_in_deck[:jokers]
    copy = len(real) // rules.copies
    melds: list[list[Face]] = []
    first = real[:copy]
    for suit in range(4):
        ranks = [f for f in first if f.suit == suit]
        melds += [ranks[0:4], ranks[4:8], ranks[8:13]]
    for k in range(1, rules.copies):
        rest = real[k * copy : (k + 1) * copy]
        for rank in range(1, 14):
            melds.append([f for f in rest if f.rank == rank])
    for i, joker in enumerate(jokers_in_deck):
        melds[i % len(melds)].append(joker)
    return melds


def full_table(
    preset_name: str, players: int | None = None, *, discards: int = 6, jokers: int | None = None
) -> PublicView:
    """A busy table of a preset: the whole deck in melds, some pieces changed by the last turn,
    claims (Stein Plus), owners (card games), a few discards."""
    rules = preset(preset_name)
    players = players or min(4, rules.max_players)
    melds = full_deck_melds(rules, players, jokers)
    n = len(melds)
    changed = [[] for _ in range(n)]
    changed[-1] = list(range(len(melds[-1])))
    changed[1] = [0]
    claims = [(i % players if i % 5 == 2 else None) for i in range(n)] if rules.claims else None
    owners = [i % players for i in range(n)] if rules.family == "card" else None
    sample_discards = {
        "tile": ["R3", "B7", "K12", "Y1", "B13", "R9", "K4", "Y11"],
        "card": ["7H", "QS", "2D", "KC"],
    }[rules.family][:discards]
    if not rules.discard_pile:
        sample_discards = []
    return view_from_melds(
        rules,
        melds,
        seats=make_seats(players),
        owners=owners,
        claims=claims,
        changed=changed,
        discards=sample_discards,
        pool=37,
        current=1,
        turn_no=23,
    )
