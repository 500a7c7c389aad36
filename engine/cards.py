"""The card games: German Rommé and classic Rummy (RULES.md, presets ``romme`` and ``rummy``).

:class:`CardGame` is the whole state of one game with the surface of ``engine/game.py``. The state
keeps piece ids (see :class:`~engine.pieces.Deck`): hands (``racks``), the talon/stock (``pool``,
top = last), the discard pile (``discards``, top = last) and the melds (``table``). A turn spans
messages: draw (``draw`` / ``pick``), then ``meld`` / ``add`` / ``swap`` (``undo`` / ``reset``
take table plays of this turn back), then ``discard`` (or ``done`` where a game may end without
one). A message is atomic: on any error the state is restored and stays byte-identical.

The parts live in :mod:`engine.card`: scoring, the one message reader, card wording of errors,
table melds and their geometry, the command handlers, the Rommé variants, turn order and the end.

Decisions where the texts leave room are listed in ``docs/CARDS.md``; the main ones:

- Seat 0 sits left of the dealer (the dealer is the last seat) and starts.
- Opening (Rommé): the melds laid in one turn count together; the minimum is checked when the
  turn ends (``discard``), so ``meld`` can be split over messages. Lay-offs and joker swaps need an
  opening on an earlier turn, except in a Hand-Rommé (the turn ends with the hand empty).
- Variant b syntax: a joker in a 3-set is written ``*=9S`` (``meld 9C 9H *=9S``); undeclared
  jokers of a 3-set stand for the first missing suit (S, H, D, C order).
- ``knock``: from a seat not to move it is variant a (claim the top discard); from the seat to
  move, before drawing, it is variant e (announce at <= 10 points).
- ``done`` with an empty hand goes out without a discard (Rummy; Rommé variant g); in Rommé
  without g no command may empty the hand (the last card is discarded). ``done`` with 10+ cards
  of one suit is colour Rommé (variant f).
- A game without jokers (classic Rummy) refuses joker tokens everywhere (``cards.no_jokers``).
- ``hint`` answers privately with a message the engine accepts (``engine/cardplan.py``).
- Errors are worded for cards (:func:`card_error`: cards, suits, ranks; Karten, Farben) under the
  shared stable codes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .card import moves
from .card.parse import has_jokers, joker_token, parse_card_commands, read_message, refuse_jokers
from .card.scoring import (
    match_target,
    romme_card_penalty,
    romme_hand_penalty,
    romme_penalties,
    rummy_card_points,
    rummy_points,
    strike_points,
)
from .card.table import TableMeld, arrange, extended
from .card.turn import copy_turn, finish, new_turn, nobody_can_go_out, take_back
from .card.variants import draw_count
from .card.words import CardRummyError, card_error, card_verbs, run_gap
from .commands import Command
from .errors import RummyError
from .game import (
    ID_LISTS,
    IDS,
    TRANSIENT,
    Event,
    MeldView,
    PieceGame,
    PublicView,
    Result,
    SeatView,
    last_event_text,
    optional_record,
    records,
    state,
)
from .melds import analyse, run_start
from .pieces import Deck, Face, parse_faces, parse_melds, sort_key
from .rules import RuleSet

__all__ = [  # engine.cards is the published home of these names (tests, tools, the AI)
    "CardGame",
    "CardRummyError",
    "TableMeld",
    "card_error",
    "card_reading",
    "card_verbs",
    "has_jokers",
    "match_target",
    "parse_card_commands",
    "refuse_jokers",
    "romme_card_penalty",
    "romme_hand_penalty",
    "romme_penalties",
    "rummy_card_points",
    "rummy_points",
    "run_gap",
    "run_start",
    "strike_points",
]


def card_reading(rules: RuleSet, text: str) -> Any:
    """One card meld read with the game's rules (``rummy validate``): its preferred
    :class:`~engine.melds.Reading`, or a card-worded error; jokers are refused where the game
    has none."""
    try:
        faces = parse_faces(text, "card")
        refuse_jokers(rules, faces, joker_token(text))
        return analyse(faces, rules.meld_spec)
    except RummyError as exc:
        raise card_error(exc, rules) from exc


def _copy_knocks(knocks: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    return [dict(k) if k else None for k in knocks]


def _load_turn(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data))


@dataclass(eq=False)
class CardGame(PieceGame):
    """One game of Rommé or classic Rummy. Build with :meth:`new`, :meth:`position` or
    :meth:`from_json`. Its fields are its whole state (saved, copied and adopted by
    :class:`~engine.game.PieceGame`)."""

    rules: RuleSet = field(metadata=state(dump=RuleSet.to_dict, load=RuleSet.from_dict))
    players: list[str] = field(metadata=IDS)
    seed: int
    _: KW_ONLY
    deck: Deck = field(default=None, metadata=TRANSIENT)  # rules.deck, or the cards of a position
    pool: list[int] = field(metadata=IDS)
    discards: list[int] = field(metadata=IDS)
    racks: list[list[int]] = field(metadata=ID_LISTS)
    table: list[TableMeld] = field(metadata=records(TableMeld))
    opened: list[bool] = field(metadata=IDS)
    current: int = 0
    turn_no: int = 1
    status: str = "playing"
    result: Result | None = field(default=None, metadata=optional_record(Result))
    shuffles: int = 0  # reshuffles made (seeds the next shuffle)
    reshuffles: int = 0  # how often the stock ran out and was rebuilt
    turn: dict[str, Any] = field(default=None, metadata=state(load=_load_turn, copy=copy_turn))
    knocks: list[dict[str, Any] | None] = field(
        default=None, metadata=state(load=_copy_knocks, copy=_copy_knocks)
    )
    announcer: int | None = None
    top_by: int | None = None
    last_event: str = ""
    _face_ids: dict[Face, int] | None = field(default=None, init=False, repr=False)
    """A lookup for :meth:`fits` (an id per face), not state: built on first use."""

    def __post_init__(self) -> None:
        if self.deck is None:
            self.deck = self.rules.deck(len(self.players))
        if self.turn is None:
            self.turn = new_turn(self.opened[self.current])
        if self.knocks is None:
            self.knocks = [None] * len(self.players)

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, rules: RuleSet, players: list[str], seed: int) -> CardGame:
        """Shuffle with the seed and deal (RULES.md): Rommé 13 (option 10-13) and no upcard;
        Rummy 10 cards with 2 players, 7 with 3-4, and one upcard. Seat 0 starts."""
        rules.check_players(len(players))
        n = len(players)
        size = rules.hand_size_for(n)
        if rules.deal_range and not rules.deal_range[0] <= size <= rules.deal_range[1]:
            low, high = rules.deal_range
            raise RummyError(
                "rules.option", why={"key": "why.deal_range", "low": low, "high": high}
            )
        deck = rules.deck(n)
        if n * size + 2 > len(deck):
            raise RummyError(
                "rules.option",
                why={"key": "why.deal_too_few", "cards": len(deck), "size": size, "players": n},
            )
        pool = list(range(len(deck)))
        random.Random(f"{seed}:deal").shuffle(pool)
        racks: list[list[int]] = [[] for _ in range(n)]
        for _ in range(size):
            for seat in range(n):
                racks[seat].append(pool.pop())
        discards = [pool.pop()] if rules.upcard else []
        return cls(
            rules,
            list(players),
            seed,
            deck=deck,
            pool=pool,
            discards=discards,
            racks=racks,
            table=[],
            opened=[False] * n,
        )

    @classmethod
    def position(
        cls,
        rules: RuleSet,
        table: str,
        hands: Sequence[str],
        *,
        opened: Sequence[bool] = (),
        discards: str = "",
        pool: str = "",
        drawn: bool = True,
        owners: Sequence[int | None] | None = None,
    ) -> CardGame:
        """A game at a given position for the ``rummy turn`` tool and tests: table melds
        (``|``-separated, validated), hands from seat 0, seat 0 to move and (by default) having
        drawn. The deck is exactly the cards named, so such a game is not for saving. Errors
        are worded for cards; a game without jokers refuses them here too."""
        try:
            return cls._position(rules, table, hands, opened, discards, pool, drawn, owners)
        except RummyError as exc:
            raise card_error(exc, rules) from exc

    @classmethod
    def _position(
        cls,
        rules: RuleSet,
        table: str,
        hands: Sequence[str],
        opened: Sequence[bool],
        discards: str,
        pool: str,
        drawn: bool,
        owners: Sequence[int | None] | None,
    ) -> CardGame:
        melds = parse_melds(table, "card") if table.strip() else []
        hand_faces = [parse_faces(h, "card") for h in hands]
        discard_faces = parse_faces(discards, "card")
        pool_faces = parse_faces(pool, "card")
        faces: list[Face] = [f for m in melds for f in m]
        for h in hand_faces:
            faces += h
        faces += discard_faces + pool_faces
        refuse_jokers(rules, faces, joker_token(" ".join([table, *hands, discards, pool])))
        deck = Deck(tuple(faces))
        ids = iter(range(len(faces)))
        n = max(2, len(hands))
        game_table = []
        for no, meld in enumerate(melds, 1):
            meld_ids = [next(ids) for _ in meld]
            reading = analyse(meld, rules.meld_spec, no)
            owner = owners[no - 1] if owners else None
            game_table.append(TableMeld(meld_ids, owner, reading.kind))
        racks = [[next(ids) for _ in h] for h in hand_faces] + [[] for _ in range(n - len(hands))]
        disc = [next(ids) for _ in discard_faces]
        pl = [next(ids) for _ in pool_faces]
        flags = [bool(opened[i]) if i < len(opened) else False for i in range(n)]
        game = cls(
            rules,
            [f"P{i + 1}" for i in range(n)],
            0,
            deck=deck,
            pool=pl,
            discards=disc,
            racks=racks,
            table=game_table,
            opened=flags,
        )
        game.turn["drawn"] = drawn
        game.turn["from_talon"] = drawn
        for meld in game.table:  # store runs in table order (as analyse reads them)
            arrange(game.deck, meld, rules.meld_spec)
        return game

    # ------------------------------------------------------------------ what players see

    def rack(self, seat: int) -> list[Face]:
        """A player's hand, sorted by suit and rank (jokers last)."""
        return sorted(self.faces(self.racks[seat]), key=sort_key)

    def rack_ids(self, seat: int) -> list[int]:
        return list(self.racks[seat])

    def table_faces(self) -> list[list[Face]]:
        return [self.faces(m.ids) for m in self.table]

    def all_piece_ids(self) -> list[int]:
        """Every card in the game, for conservation checks (with a knocker's hidden cards)."""
        ids = super().all_piece_ids()
        for knock in self.knocks:
            if knock:
                ids += knock["hidden"]
        return ids

    def public_view(self) -> PublicView:
        melds = [
            MeldView(
                number=no,
                pieces=[str(f) for f in self.faces(m.ids)],
                kind=m.kind,
                owner=m.owner,
            )
            for no, m in enumerate(self.table, 1)
        ]
        scores = self.result.points if self.result else [0] * len(self.players)
        seats = [
            SeatView(seat, name, len(self.racks[seat]), self.opened[seat], scores[seat])
            for seat, name in enumerate(self.players)
        ]
        return PublicView(
            preset=self.rules.preset,
            family="card",
            status=self.status,  # type: ignore[arg-type]
            current=self.current,
            turn_no=self.turn_no,
            melds=melds,
            seats=seats,
            pool=len(self.pool),
            discards=[str(self.deck[i]) for i in self.discards],
            last_event=self.last_event,
            result=self.result,
        )

    def fits(self, number: int, faces: Sequence[Face]) -> bool:
        """Whether these cards could be laid off on meld ``number`` (1-based); no rule checks."""
        meld = self.table[number - 1]
        ids = [self._fake_id(f) for f in faces]
        return extended(self.deck, meld, ids, self.rules.meld_spec) is not None

    def nobody_can_go_out(self) -> bool:
        """The sound stalemate test (:func:`engine.card.turn.nobody_can_go_out`)."""
        return nobody_can_go_out(self)

    def _fake_id(self, face: Face) -> int:
        if self._face_ids is None:
            self._face_ids = {f: i for i, f in reversed(list(enumerate(self.deck.faces)))}
        return self._face_ids[face]

    # ------------------------------------------------------------------ the turn context

    @property
    def draw_count(self) -> int:
        """Cards taken from the talon per turn: 2 with Rommé variant j and 2-3 players."""
        return draw_count(self)

    @property
    def empty_hand_ok(self) -> bool:
        """May a hand be emptied without a final discard? Rummy yes; Rommé only variant g."""
        return not self.rules.final_discard or self.rules.variant_end_without_discard

    def event(
        self,
        kind: str,
        seat: int | None,
        *,
        wording: str | None = "",
        private: bool = False,
        pieces: tuple[str, ...] = (),
        noted: bool = True,
        **params: Any,
    ) -> Event:
        """An event as data: its wording is the catalogue's ``event.card.<wording or kind>``
        (card wording; ``wording=None``: the params bring their own ``key``). A public event is the saved
        ``last_event`` (in English) unless ``noted=False`` (undo, reset, the next mover);
        ``private=True`` is for ``seat`` only."""
        if wording is not None:
            params = {"key": f"event.card.{wording or kind}", **params}
        ev = Event(kind, seat, params, private, pieces)
        if noted and not private:
            self.last_event = last_event_text(ev, self.players)
        return ev

    def name(self, seat: int) -> str:
        return self.players[seat]

    # ------------------------------------------------------------------ applying commands

    def apply(self, seat: int, text: str) -> list[Event]:
        """Run one message of commands for ``seat``: all accepted, or a RummyError and nothing
        changed. A seat not to move may only ``knock`` (Rommé variant a). Errors are worded for
        cards (:func:`card_error`)."""
        try:
            return self._apply(seat, text)
        except RummyError as exc:
            raise card_error(exc, self.rules) from exc

    def _apply(self, seat: int, text: str) -> list[Event]:
        if self.status != "playing":
            raise RummyError("game.over")
        if not 0 <= seat < len(self.players):
            raise RummyError("turn.not_seated")
        commands = read_message(text, self.rules)
        knock_only = len(commands) == 1 and commands[0].command.verb == "knock"
        if seat != self.current and not knock_only:
            raise RummyError("turn.not_yours", player=self.name(self.current))
        work = self.copy()
        events: list[Event] = []
        for one in commands:
            if work.status != "playing":
                raise RummyError("game.over")
            if seat != work.current and one.command.verb != "knock":
                raise RummyError("turn.not_yours", player=work.name(work.current))
            events += moves.run(work, seat, one.command, one.declared)
        events += moves.after_message(work, seat)
        self._adopt(work)
        return events

    def end(self, reason: str = "ended") -> list[Event]:
        """End the game now (organiser's decision or abandonment). The mover's table plays of
        this turn are taken back; Rommé scores every hand's penalty points, classic Rummy (winner
        takes all) scores nothing without a winner."""
        if self.status != "playing":
            raise RummyError("game.over")
        take_back(self)
        return finish(self, reason, None)

    def timeout(self) -> list[Event]:
        """The mover's time ran out: this turn's table plays are taken back, a pending knock meld
        is laid, a card is drawn from the talon if none was, and the last card drawn (or the last
        discardable one) is discarded."""
        if self.status != "playing":
            raise RummyError("game.over")
        work = self.copy()
        seat = work.current
        events: list[Event] = []
        take_back(work)
        if work.turn["knock_due"]:
            events += moves.meld_knocked_card(work, seat)
        if not work.turn["drawn"]:
            events += moves.draw(work, seat, Command("draw"))
        if work.status == "playing":
            rack = work.racks[seat]
            if not rack:
                events += moves.go_out(work, seat, None)
            else:
                choice = next(i for i in reversed(rack) if i != work.turn["picked"])
                events += moves.discard(work, seat, Command("discard", pieces=(work.deck[choice],)))
        self._adopt(work)
        return events
