"""The tile games: Stein-Rummy, Stein-Rummy Plus and Rummikub (RULES.md).

:class:`TileGame` is the whole state of one game; :class:`Turn` is the working copy of the table
and the rack while a player moves: commands change the turn, ``done`` / ``discard`` validate and
commit it, ``reset`` drops it. The state keeps piece ids (see :class:`~engine.pieces.Deck`), so
every physical tile is tracked: conservation, "played this turn" and highlights are exact.

A message of commands is atomic: it runs on a copy and replaces the state only when every
command was accepted, so a rejected command changes nothing.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from typing import Any

from .commands import Command, parse_commands
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
    optional_record,
    or_missing,
    records,
    state,
)
from .melds import (
    Meaning,
    Reading,
    analyse,
    describe_meaning,
    explain_invalid,
    joker_meanings,
    meaning_at,
    positional_reading,
    readings,
)
from .pieces import Deck, Face, format_faces, parse_faces, parse_melds
from .rules import RuleSet
from .scoring import (
    competition_ranks,
    places_by_tiles_left,
    rack_value,
    score_tile_game,
)


@dataclass(slots=True)
class Meld:
    """A meld on the table: piece ids in table order, and the claiming seat (Stein Plus)."""

    ids: list[int]
    claim: int | None = None

    def copy(self) -> Meld:
        return Meld(list(self.ids), self.claim)

    def to_list(self) -> list[Any]:
        return [list(self.ids), self.claim]  # a copy: a snapshot must not share the live list

    @classmethod
    def from_list(cls, data: list[Any]) -> Meld:
        return cls(list(data[0]), data[1])


@dataclass(slots=True)
class Turn:
    """The working copy of one player's turn (DESIGN.md "Engine vocabulary")."""

    table: list[Meld]
    rack: list[int]
    drawn: int = 0  # tiles taken from the pool this turn
    picked: int = 0  # tiles taken from the discard stock this turn
    played: list[int] = field(default_factory=list)  # rack -> table this turn
    freed: list[int] = field(default_factory=list)  # table jokers freed this turn (swap)
    taken: list[int] = field(default_factory=list)  # table -> hand with a joker (Stein)
    new: list[int] = field(default_factory=list)  # drawn this turn (rack highlights)
    history: list[dict[str, Any]] = field(default_factory=list)  # for undo

    def snapshot(self, with_history: bool = False) -> dict[str, Any]:
        """Every field of the turn as plain copies (the history only when asked), so ``undo``
        restores exactly what was: a field added to :class:`Turn` is captured without more code."""
        snap: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "history" and not with_history:
                continue
            value = getattr(self, f.name)
            if f.name == "table":
                value = [m.to_list() for m in value]
            elif isinstance(value, list):
                value = list(value)  # ids, or history entries (never changed once stored)
            snap[f.name] = value
        return snap

    def restore(self, snap: dict[str, Any]) -> None:
        """Set every field captured in ``snap`` (older snapshots may lack some: those stay)."""
        for f in fields(self):
            if f.name not in snap:
                continue
            value = snap[f.name]
            if f.name == "table":
                value = [Meld.from_list(m) for m in value]
            elif isinstance(value, list):
                value = list(value)
            setattr(self, f.name, value)

    def copy(self) -> Turn:
        turn = Turn([], [])
        turn.restore(self.snapshot(with_history=True))
        return turn

    def to_dict(self) -> dict[str, Any]:
        return self.snapshot(with_history=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        turn = cls([], [])
        turn.restore(data)
        return turn


def _t(en: str, de: str) -> tuple[str, str]:
    return en, de


def _count(n: int, one: str, many: str) -> str:
    """``1 tile``, ``2 tiles``: a number with its noun in the right form."""
    return f"{n} {one if n == 1 else many}"


def _stands_for(found: Reading) -> tuple[str, str]:
    """What the jokers of a meld stand for, in words that fit "it stands for ...": a group joker
    for any missing colour (``K4 or Y4``), run jokers each for their place, in table order
    (``R5 (the other joker for R6)``)."""
    places = found.joker_positions()
    if found.kind == "group":
        rank = found.stands_for[0].rank
        present = {f.suit for f in found.faces if not f.is_joker}
        missing = [str(type(found.stands_for[0])(s, rank)) for s in range(4) if s not in present]
        return " or ".join(missing), " oder ".join(missing)
    meant = [str(found.stands_for[k]) for k in places]
    first, others = meant[0], meant[1:]
    if not others:
        return first, first
    if len(others) == 1:
        return f"{first} (the other joker for {others[0]})", f"{first} (der andere für {others[0]})"
    listed, listed_de = ", ".join(others[:-1]), ", ".join(others[:-1])
    return (
        f"{first} (the other jokers for {listed} and {others[-1]})",
        f"{first} (die anderen für {listed_de} und {others[-1]})",
    )


UNDOABLE = frozenset(
    ("meld", "add", "move", "split", "join", "swap", "take", "claim", "unclaim", "place", "reset")
)
"""Commands that ``undo`` takes back, each to exactly the turn before it. Draws are not (the
player has seen the tile); ``hint`` changes nothing; ``done`` / ``discard`` end the turn."""

HELP_BUDGET = 400_000  # DP states for `hint` and `place`: a few tenths of a second here


@dataclass(eq=False, repr=False)
class TileGame(PieceGame):
    """One game of a tile preset. Build with :meth:`new` or :meth:`from_json`. Its fields are
    its whole state (saved, copied and adopted by :class:`~engine.game.PieceGame`)."""

    rules: RuleSet = field(metadata=state(dump=RuleSet.to_dict, load=RuleSet.from_dict))
    players: list[str] = field(metadata=IDS)
    seed: int
    _: KW_ONLY
    deck: Deck = field(default=None, metadata=TRANSIENT)  # rules.deck, derived
    pool: list[int] = field(metadata=IDS)
    discards: list[int] = field(metadata=IDS)
    racks: list[list[int]] = field(metadata=ID_LISTS)
    table: list[Meld] = field(metadata=records(Meld))
    opened: list[bool] = field(metadata=IDS)
    current: int
    start_player: int
    turn_no: int = 0
    round_no: int = 0
    status: str = "playing"
    result: Result | None = field(default=None, metadata=optional_record(Result))
    quiet: int = 0
    last_changed: list[int] = field(default_factory=list, metadata=IDS)
    turn: Turn = field(
        default=None, metadata=state(dump=Turn.to_dict, load=Turn.from_dict, copy=Turn.copy)
    )
    lot: list[list[int]] = field(default_factory=list, metadata=or_missing(ID_LISTS, list))

    def __post_init__(self) -> None:
        if self.deck is None:
            self.deck = self.rules.deck(len(self.players))
        if self.turn is None:  # a new game or position: the mover's turn starts now
            self.turn = Turn([m.copy() for m in self.table], list(self.racks[self.current]))

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, rules: RuleSet, players: list[str], seed: int) -> TileGame:
        """Shuffle with the seed, choose the start player by lot and deal (RULES.md)."""
        rules.check_players(len(players))
        n = len(players)
        deck = rules.deck(n)
        rng = random.Random(f"{seed}:deal")
        personal = deck.jokers()[: rules.jokers_per_player * n]
        pool = [i for i in range(len(deck)) if i not in set(personal)]
        rng.shuffle(pool)
        lot: list[list[int]] = []
        if rules.game == "rummikub":
            start, lot = cls._draw_for_start(deck, pool, rng, n)
        else:
            start = rng.randrange(n)
        racks = [[pool.pop() for _ in range(rules.hand_size)] for _ in range(n)]
        for seat in range(n):
            per = personal[seat * rules.jokers_per_player : (seat + 1) * rules.jokers_per_player]
            racks[seat].extend(per)
        return cls(
            rules,
            list(players),
            seed,
            pool=pool,
            discards=[],
            racks=racks,
            table=[],
            opened=[False] * n,
            current=start,
            start_player=start,
            lot=lot,
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
        current: int = 0,
        draws_done: bool = True,
        players: int | None = None,
        round_no: int = 1,
    ) -> TileGame:
        """A game at a given position, for the `rummy turn` tool, puzzles and tests: these
        melds on the table, these hands (seat 0 first; missing seats hold nothing), this
        discard stock; every other piece of the preset is in the pool, shuffled with seed 0.
        With ``draws_done`` a Stein player to move has already drawn."""
        n = max(players or rules.min_players, len(hands))
        deck = rules.deck(n)
        free = list(range(len(deck)))

        def take(face: Face) -> int:
            for i in free:
                if deck[i] == face:
                    free.remove(i)
                    return i
            raise RummyError(
                "parse.arguments",
                command="position",
                why=f"more {face} than {rules.name} has",
                why_de=f"mehr {face} als {rules.name} hat",
            )

        melds = [Meld([take(f) for f in m]) for m in parse_melds(table, "tile")]
        racks = [[take(f) for f in parse_faces(h, "tile")] for h in hands]
        racks += [[] for _ in range(n - len(racks))]
        stock = [take(f) for f in parse_faces(discards, "tile")] if discards.strip() else []
        random.Random(0).shuffle(free)
        flags = list(opened) + [False] * (n - len(opened))
        game = cls(
            rules,
            [f"P{k + 1}" for k in range(n)],
            0,
            pool=free,
            discards=stock,
            racks=racks,
            table=melds,
            opened=flags,
            current=current,
            start_player=0,
            round_no=round_no,
        )
        for meld in game.table:  # in table order, so every joker sits where it is read
            if positional_reading(game.faces(meld.ids), rules.meld_spec) is None:
                meld.ids = game._arrange(meld.ids)
        game.turn = Turn([m.copy() for m in game.table], list(game.racks[current]))
        if rules.game == "stein" and draws_done:
            game.turn.drawn = rules.draws_per_turn
        return game

    @staticmethod
    def _draw_for_start(
        deck: Deck, pool: list[int], rng: random.Random, n: int
    ) -> tuple[int, list[list[int]]]:
        """Rummikub: everybody draws a tile, the highest value starts, ties draw again; the
        tiles go back into the pool and it is shuffled again. A joker drawn counts as 0.
        Returns the start seat and every draw as [seat, piece id]."""
        contenders = list(range(n))
        shown: list[list[int]] = []
        while True:
            sample = rng.sample(pool, len(contenders))
            shown += [[seat, piece] for seat, piece in zip(contenders, sample, strict=True)]
            values = [deck[i].rank for i in sample]
            best = max(values)
            winners = [c for c, v in zip(contenders, values, strict=True) if v == best]
            if len(winners) == 1:
                rng.shuffle(pool)
                return winners[0], shown
            contenders = winners

    # ------------------------------------------------------------------ what players see

    def rack(self, seat: int) -> list[Face]:
        """A player's pieces; for the player to move, as in their working copy."""
        ids = (
            self.turn.rack
            if seat == self.current and self.status == "playing"
            else self.racks[seat]
        )
        return self.faces(ids)

    def rack_ids(self, seat: int) -> list[int]:
        if seat == self.current and self.status == "playing":
            return list(self.turn.rack)
        return list(self.racks[seat])

    def table_faces(self, working: bool = False) -> list[list[Face]]:
        melds = self.turn.table if working else self.table
        return [self.faces(m.ids) for m in melds]

    def working_table_text(self) -> str:
        """The mover's working table as text, numbered as players type it."""
        lines = []
        for no, meld in enumerate(self.turn.table, 1):
            faces = self.faces(meld.ids)
            found = readings(faces, self.rules.meld_spec)
            mark = "" if found else "  <- not valid yet"
            claim = f"  [claim: {self.players[meld.claim]}]" if meld.claim is not None else ""
            lines.append(f"{no:>2}: {format_faces(faces)}{claim}{mark}")
        return "\n".join(lines) if lines else "(empty table)"

    def public_view(self) -> PublicView:
        changed = set(self.last_changed)
        melds = []
        for no, meld in enumerate(self.table, 1):
            faces = self.faces(meld.ids)
            found = readings(faces, self.rules.meld_spec)
            melds.append(
                MeldView(
                    number=no,
                    pieces=[str(f) for f in faces],
                    kind=found[0].kind if found else None,
                    claim=meld.claim,
                    changed=[k for k, i in enumerate(meld.ids) if i in changed],
                )
            )
        scores = self.result.points if self.result else [0.0] * len(self.players)
        seats = [
            SeatView(seat, name, len(self.racks[seat]), self.opened[seat], scores[seat])
            for seat, name in enumerate(self.players)
        ]
        return PublicView(
            preset=self.rules.preset,
            family="tile",
            status=self.status,  # type: ignore[arg-type]
            current=self.current,
            turn_no=self.turn_no,
            melds=melds,
            seats=seats,
            pool=len(self.pool),
            discards=[str(self.deck[i]) for i in self.discards],
            result=self.result,
        )

    # ------------------------------------------------------------------ applying commands

    def apply(self, seat: int, text: str, lang: str = "en") -> list[Event]:
        """Run one message of commands for ``seat``; all or nothing."""
        if self.status != "playing":
            raise RummyError("game.over")
        if not 0 <= seat < len(self.players):
            raise RummyError("turn.not_seated")
        commands = parse_commands(text, "tile")
        if seat != self.current and any(c.verb != "hint" for c in commands):
            raise RummyError("turn.not_yours", player=self.players[self.current])
        work = self.copy()
        events: list[Event] = []
        for command in commands:
            if work.status != "playing":
                raise RummyError("game.over")
            events += work._run(seat, command)
        self._adopt(work)
        return events

    def _run(self, seat: int, c: Command) -> list[Event]:
        handler = getattr(self, f"_cmd_{c.verb}", None)
        if handler is None:
            raise RummyError("turn.not_allowed", command=c.verb, preset=self.rules.name)
        if c.verb not in ("draw", "pick", "hint", "undo", "reset", "done", "discard"):
            self._require_draws()
        # reset drops the history, so its snapshot keeps it: undo after reset is exact too
        before = self.turn.snapshot(with_history=c.verb == "reset")
        changes_table = c.verb in UNDOABLE and c.verb != "reset"
        known = self._fault_keys() if changes_table else set()
        events = handler(seat, c)
        if changes_table:
            # a command may leave melds unfinished, never a joker rule broken for good
            for fault in self.joker_faults(final=False):
                if (fault.code, fault.params.get("joker")) not in known:
                    raise fault
        if c.verb in UNDOABLE:
            self.turn.history.append(before)
        return events

    def _fault_keys(self) -> set[tuple[str, Any]]:
        return {(f.code, f.params.get("joker")) for f in self.joker_faults(final=False)}

    # -- drawing ------------------------------------------------------------------

    @property
    def is_stein(self) -> bool:
        return self.rules.game == "stein"

    def draws_needed(self) -> int:
        """Stein: two draws, at most one from the discard stock, fewer when the stocks run dry."""
        if not self.is_stein:
            return 0
        t = self.turn
        done = t.drawn + t.picked
        left = self.rules.draws_per_turn - done
        possible = len(self.pool) + min(
            self.rules.discard_picks_per_turn - t.picked, len(self.discards)
        )
        return done + max(0, min(left, possible))

    def draws_complete(self) -> bool:
        return not self.is_stein or self.turn.drawn + self.turn.picked >= self.draws_needed()

    def _require_draws(self) -> None:
        if not self.draws_complete():
            raise RummyError(
                "turn.draw_first",
                drawn=self.turn.drawn + self.turn.picked,
                need=self.draws_needed(),  # fewer when the stocks cannot give two
            )

    def _draws_done(self) -> RummyError:
        n = self.turn.drawn + self.turn.picked
        return RummyError(
            "turn.draws_done",
            tiles=_count(n, "tile", "tiles"),
            tiles_de=_count(n, "Stein", "Steine"),
        )

    def _take_from_pool(self, seat: int, count: int) -> list[int]:
        got = [self.pool.pop() for _ in range(min(count, len(self.pool)))]
        self.racks[seat].extend(got)
        self.turn.rack.extend(got)
        self.turn.new.extend(got)
        return got

    def _cmd_draw(self, seat: int, c: Command) -> list[Event]:
        name = self.players[seat]
        if self.is_stein:
            if self.draws_complete():
                raise self._draws_done()
            if not self.pool:
                raise RummyError("turn.pool_empty")
            got = self._take_from_pool(seat, 1)
            self.turn.drawn += 1
            self.turn.history.clear()
            return [
                Event("draw", seat, f"{name} draws a tile.", f"{name} nimmt einen Stein auf."),
                self._private(seat, "drew", got, "You drew {p}.", "Du hast {p} aufgenommen."),
            ]
        # Rummikub: drawing ends the turn (a pass when the pool is empty)
        if self.turn.played or self._table_changed():
            raise RummyError("turn.draw_after_play")
        self.last_changed = []
        if not self.pool:
            events = [Event("pass", seat, f"{name} passes.", f"{name} passt.")]
            return events + self._end_turn(seat)
        got = self._take_from_pool(seat, 1)
        events = [
            Event("draw", seat, f"{name} draws a tile.", f"{name} zieht einen Stein."),
            self._private(seat, "drew", got, "You drew {p}.", "Du hast {p} gezogen."),
        ]
        return events + self._end_turn(seat)

    def _cmd_pick(self, seat: int, c: Command) -> list[Event]:
        if not self.is_stein:
            raise RummyError("turn.not_allowed", command="pick", preset=self.rules.name)
        if self.turn.picked >= self.rules.discard_picks_per_turn:
            raise RummyError("turn.one_pick")
        if self.draws_complete():
            raise self._draws_done()
        if not self.discards:
            raise RummyError("turn.discards_empty")
        if not c.pieces:
            index = len(self.discards) - 1
        else:
            face = c.pieces[0]
            matches = [k for k, i in enumerate(self.discards) if self.deck[i] == face]
            if not matches:
                raise RummyError("piece.not_in_discards", piece=str(face))
            index = matches[-1]
            if not self.rules.pick_any_discard and index != len(self.discards) - 1:
                raise RummyError("piece.not_top_discard", top=str(self.deck[self.discards[-1]]))
        piece = self.discards.pop(index)
        self.racks[seat].append(piece)
        self.turn.rack.append(piece)
        self.turn.new.append(piece)
        self.turn.picked += 1
        self.turn.history.clear()
        name, p = self.players[seat], str(self.deck[piece])
        return [
            Event(
                "pick",
                seat,
                f"{name} takes {p} from the discard stock.",
                f"{name} nimmt {p} aus dem Alt-Bestand.",
                pieces=(p,),
            )
        ]

    # -- resolving pieces ------------------------------------------------------------

    def _from_rack(self, faces: Sequence[Face], prefer: Sequence[int] = ()) -> list[int]:
        """Rack ids for these faces (each id once); freed jokers are used first."""
        rack = list(self.turn.rack)
        chosen = []
        for face in faces:
            candidates = [i for i in rack if self.deck[i] == face]
            if not candidates:
                raise RummyError("piece.not_in_rack", piece=str(face))
            preferred = [i for i in candidates if i in prefer]
            pick = preferred[0] if preferred else candidates[0]
            rack.remove(pick)
            chosen.append(pick)
        return chosen

    def _meld_at(self, number: int | None) -> Meld:
        assert number is not None
        if not 1 <= number <= len(self.turn.table):
            raise RummyError("meld.no_such", meld=number, count=len(self.turn.table))
        return self.turn.table[number - 1]

    def _from_meld(self, meld: Meld, number: int, faces: Sequence[Face]) -> list[int]:
        left = list(meld.ids)
        chosen = []
        for face in faces:
            candidates = [i for i in left if self.deck[i] == face]
            if not candidates:
                raise RummyError("piece.not_in_meld", piece=str(face), meld=number)
            left.remove(candidates[-1])
            chosen.append(candidates[-1])
        return chosen

    def _on_table_at_start(self, piece: int) -> bool:
        return any(piece in m.ids for m in self.table)

    def _touch(self, seat: int, number: int) -> Meld:
        """The rules for touching meld ``number``: opening lock and claims."""
        meld = self._meld_at(number)
        if meld.claim is not None and meld.claim != seat:
            raise RummyError("claim.not_yours", meld=number, owner=self.players[meld.claim])
        if not self._may_touch_table(seat) and any(self._on_table_at_start(i) for i in meld.ids):
            raise RummyError("opening.table_locked", meld=number)
        return meld

    def _may_touch_table(self, seat: int) -> bool:
        if self.opened[seat]:
            return True
        if self.rules.opening_may_add_after_minimum and self.rules.opening_minimum:
            return self._opening_value() >= self.rules.opening_minimum
        return False

    def _start_jokers(self) -> dict[int, tuple[int, Meaning | None]]:
        """Every joker on the table at the start of the turn: the index of its meld there and
        what it stands for, read by position (None when that meld is not valid as it lies).
        Kept for the committed table it was read from (that list is replaced, never changed,
        when a turn is committed); the rule checks ask after every command."""
        memo = self.__dict__.get("_start_jokers_memo")
        if memo is not None and memo[0] is self.table and memo[1] == self.turn_no:
            return dict(memo[2])
        found: dict[int, tuple[int, Meaning | None]] = {}
        for index, meld in enumerate(self.table):
            faces = self.faces(meld.ids)
            if not any(f.is_joker for f in faces):
                continue
            reading = positional_reading(faces, self.rules.meld_spec)
            for k, i in enumerate(meld.ids):
                if faces[k].is_joker:
                    found[i] = (index, meaning_at(reading, k) if reading else None)
        self.__dict__["_start_jokers_memo"] = (self.table, self.turn_no, found)
        return dict(found)

    def _held_jokers(self) -> dict[int, tuple[int, Meaning | None]]:
        """The table jokers not freed this turn: they stay in their melds (RULES.md; DECISIONS)."""
        return {i: v for i, v in self._start_jokers().items() if i not in self.turn.freed}

    def _arrange(self, ids: list[int]) -> list[int]:
        """Put a meld's ids in table order when it reads as a valid meld; else keep them. Of
        the readings, the first that keeps most table jokers meaning what they meant at the
        start of the turn (the given order first, when it reads)."""
        faces = self.faces(ids)
        found = readings(faces, self.rules.meld_spec)
        if not found:
            return ids
        held = {i: m for i, (_, m) in self._held_jokers().items() if i in ids}
        best, best_kept = ids, -1
        for reading in found:
            ordered, kept = self._order(ids, reading, held)
            if kept > best_kept:
                best, best_kept = ordered, kept
            if not held:
                break
        return best

    def _order(
        self, ids: list[int], reading: Reading, held: dict[int, Meaning | None]
    ) -> tuple[list[int], int]:
        """The ids in the order of ``reading``, each joker place given a table joker that meant
        that place at the start of the turn where there is one; and how many such jokers."""
        reals = [i for i in ids if not self.deck[i].is_joker]
        jokers = [i for i in ids if self.deck[i].is_joker]
        ordered, kept = [], 0
        for k, face in enumerate(reading.faces):
            if face.is_joker:
                want = meaning_at(reading, k)
                spare = next((j for j in jokers if j not in held), jokers[0])
                pick = next((j for j in jokers if j in held and held[j] == want), spare)
                kept += pick in held and held[pick] == want
                jokers.remove(pick)
            else:
                pick = next(i for i in reals if self.deck[i] == face)
                reals.remove(pick)
            ordered.append(pick)
        return ordered, kept

    def _table_changed(self) -> bool:
        return [m.ids for m in self.turn.table] != [m.ids for m in self.table] or [
            m.claim for m in self.turn.table
        ] != [m.claim for m in self.table]

    def _drop_empty(self) -> None:
        self.turn.table = [m for m in self.turn.table if m.ids]

    # -- table commands ----------------------------------------------------------------

    def _cmd_meld(self, seat: int, c: Command) -> list[Event]:
        laid = []
        for faces in c.melds:
            analyse(list(faces), self.rules.meld_spec)  # a new meld must be valid at once
            ids = self._from_rack(faces, prefer=self.turn.freed)
            for i in ids:
                self.turn.rack.remove(i)
                self.turn.played.append(i)
            self.turn.table.append(Meld(self._arrange(ids)))
            laid.append(format_faces(self.faces(self.turn.table[-1].ids)))
        return [self._working_event(seat, "meld", "lays", "legt", " | ".join(laid))]

    def _cmd_add(self, seat: int, c: Command) -> list[Event]:
        number = c.meld or 0
        meld = self._touch(seat, number)
        ids = self._from_rack(c.pieces, prefer=self.turn.freed)
        for i in ids:
            self.turn.rack.remove(i)
            self.turn.played.append(i)
        self._insert(number, meld, ids)
        return [
            self._working_event(
                seat,
                "add",
                f"adds to meld {number}:",
                f"legt an {number} an:",
                format_faces(c.pieces),
            )
        ]

    def _insert(self, number: int, meld: Meld, ids: list[int]) -> None:
        """Add pieces to a meld. A single tile that duplicates an inner tile of a valid run
        splits the run there (RULES.md example: B2-B6 + B4 gives B2 B3 B4 | B4 B5 B6). A split
        that parts the tiles of a Rummikub joker meld is refused after the command
        (:meth:`joker_faults`, ``joker.locked_meld``), as for every other command."""
        spec = self.rules.meld_spec
        faces = self.faces(meld.ids)
        found = readings(faces, spec)
        if len(ids) == 1 and found and found[0].kind == "run":
            face = self.deck[ids[0]]
            order = self._arrange(meld.ids)
            stands = found[0].stands_for
            merged = readings([*faces, face], spec)
            if not merged:
                inner = [k for k in range(1, len(order) - 1) if stands[k] == face]
                if inner:
                    k = inner[0]
                    meld.ids = order[: k + 1]
                    self.turn.table.insert(number, Meld([ids[0], *order[k + 1 :]]))
                    self._refuse_split(number)
                    return
        meld.ids = self._arrange(meld.ids + ids)

    def _cmd_move(self, seat: int, c: Command) -> list[Event]:
        number = c.meld or 0
        source = self._touch(seat, number)
        moving = self._from_meld(source, number, c.pieces)
        for i in moving:
            if self.deck[i].is_joker and self._on_table_at_start(i) and i not in self.turn.freed:
                raise RummyError("joker.cannot_move", meld=number)
        if c.target == "new":
            target = Meld([])
            self._keep_claim(source, number, moving)
            for i in moving:
                source.ids.remove(i)
            self.turn.table.append(target)
            target.ids = self._arrange(moving)
        else:
            target = self._touch(seat, int(c.target or 0))
            if target is source:
                raise RummyError(
                    "parse.meld_number", token=str(c.target), count=len(self.turn.table)
                )
            self._keep_claim(source, number, moving)
            for i in moving:
                source.ids.remove(i)
            target.ids = self._arrange(target.ids + moving)
        source.ids = self._arrange(source.ids)
        self._drop_empty()
        dest = "a new meld" if c.target == "new" else f"meld {c.target}"
        dest_de = "eine neue Kombination" if c.target == "new" else f"Kombination {c.target}"
        return [
            self._working_event(
                seat,
                "move",
                f"moves from meld {number} to {dest}:",
                f"verschiebt von {number} nach {dest_de}:",
                format_faces(c.pieces),
            )
        ]

    def _keep_claim(self, meld: Meld, number: int, leaving: Sequence[int]) -> None:
        """Only ``unclaim`` ends a claim: a command may not take every tile out of one."""
        if meld.claim is not None and set(meld.ids) <= set(leaving):
            raise RummyError("claim.dissolve_first", meld=number)

    def _refuse_split(self, number: int) -> None:
        """After splitting meld ``number``: refuse, naming that meld, when the split parted the
        tiles of a Rummikub joker meld (``joker_meld_no_split``; no command adds such a fault, so
        any is this split's)."""
        if any(f.code == "joker.locked_meld" for f in self.joker_faults(final=False)):
            raise RummyError("joker.locked_meld", meld=number)

    def _cmd_split(self, seat: int, c: Command) -> list[Event]:
        """Split meld ``number`` before the named piece; each part is laid in its table order
        (a meld the player put together out of order reads as it is, so ``done`` takes it).
        Rummikub ``joker_meld_no_split``: a split that parts the tiles of a joker meld is refused
        after the command (:meth:`joker_faults`); tiles joined onto a joker meld may leave it."""
        number = c.meld or 0
        meld = self._touch(seat, number)
        at_id = self._from_meld(meld, number, c.pieces)[0]
        k = meld.ids.index(at_id)
        if k == 0:
            raise RummyError(
                "parse.arguments",
                command=str(c),
                why=f"{c.pieces[0]} is the first piece of meld {number}: nothing to split off",
                why_de=f"{c.pieces[0]} ist der erste Stein von Kombination {number}",
            )
        head, tail = meld.ids[:k], meld.ids[k:]
        meld.ids = self._arrange(head)
        self.turn.table.insert(number, Meld(self._arrange(tail)))
        self._refuse_split(number)
        return [
            self._working_event(
                seat, "split", f"splits meld {number} at", f"teilt {number} bei", str(c.pieces[0])
            )
        ]

    def _cmd_join(self, seat: int, c: Command) -> list[Event]:
        number, other = c.meld or 0, int(c.target or 0)
        first = self._touch(seat, number)
        second = self._touch(seat, other)
        if first is second:
            raise RummyError("parse.meld_number", token=str(other), count=len(self.turn.table))
        self._keep_claim(second, other, second.ids)
        first.ids = self._arrange(first.ids + second.ids)
        second.ids = []
        self._drop_empty()
        return [
            self._working_event(
                seat, "join", f"joins melds {number} and", f"verbindet {number} und", str(other)
            )
        ]

    def _cmd_swap(self, seat: int, c: Command) -> list[Event]:
        """Free a table joker by the tile(s) it stands for, read by where it sits (RULES.md
        "Common ground": ``R4 R5 J`` is freed by R6 only; a group joker by a missing colour,
        in Stein only by the missing fourth tile)."""
        number = c.meld or 0
        meld = self._touch(seat, number)
        spec = self.rules.meld_spec
        faces = self.faces(meld.ids)
        places = [k for k, f in enumerate(faces) if f.is_joker]
        if not places:
            raise RummyError("joker.not_in_meld", meld=number)
        found = positional_reading(faces, spec)
        if found is None:
            raise RummyError("joker.no_meaning", meld=number)
        stands, stands_de = _stands_for(found)

        def wrong(face: Face) -> RummyError:
            return RummyError(
                "joker.wrong_piece",
                piece=str(face),
                meld=number,
                stands_for=stands,
                stands_for_de=stands_de,
            )

        new_ids = list(meld.ids)
        freed: list[int] = []
        if found.kind == "run":
            slots = []
            for face in c.pieces:
                k = next(
                    (k for k in places if k not in slots and found.stands_for[k] == face), None
                )
                if face.is_joker or k is None:
                    raise wrong(face)
                slots.append(k)
            ids = self._from_rack(c.pieces)
            for k, i in zip(slots, ids, strict=True):
                freed.append(new_ids[k])
                new_ids[k] = i
        else:
            missing = set(joker_meanings(faces, spec))
            for face in c.pieces:
                if face.is_joker or face not in missing:
                    raise wrong(face)
                missing.discard(face)
            ids = self._from_rack(c.pieces)
            jokers = [meld.ids[k] for k in places]
            freed = jokers[: len(ids)]  # more tiles than jokers: a group completed to four
            new_ids = [i for i in meld.ids if i not in freed] + ids
            if self.rules.group_joker_needs_fourth and (
                len(new_ids) != 4 or any(self.deck[i].is_joker for i in new_ids)
            ):
                raise RummyError("joker.group_needs_fourth", meld=number)
        new_faces = self.faces(new_ids)
        if positional_reading(new_faces, spec) is None:
            raise explain_invalid(new_faces, spec, number)
        for i in ids:
            self.turn.rack.remove(i)
            self.turn.played.append(i)
        meld.ids = self._arrange(new_ids)
        self.turn.rack.extend(freed)
        for joker in freed:  # back in the rack: a joker laid this turn is simply unplayed
            if joker in self.turn.played:
                self.turn.played.remove(joker)
            if self._on_table_at_start(joker) and joker not in self.turn.freed:
                self.turn.freed.append(joker)  # once, also when freed again from a new meld
        return [
            self._working_event(
                seat,
                "swap",
                f"frees the joker of meld {number} with",
                f"löst den Joker in {number} aus mit",
                format_faces(c.pieces),
            )
        ]

    def _cmd_take(self, seat: int, c: Command) -> list[Event]:
        """Stein: put your joker in place of a table tile and take that tile to the hand."""
        if not self.rules.take_with_joker:
            raise RummyError("turn.not_allowed", command="take", preset=self.rules.name)
        number = c.meld or 0
        meld = self._touch(seat, number)
        face = c.pieces[0]
        if face.is_joker:
            raise RummyError("joker.take_joker")
        target = self._from_meld(meld, number, [face])[0]
        jokers = [i for i in self.turn.rack if self.deck[i].is_joker]
        if not jokers:
            raise RummyError("joker.none_in_hand")
        joker = jokers[0]
        new_ids = [joker if i == target else i for i in meld.ids]  # the joker takes its place
        new_faces = self.faces(new_ids)
        if positional_reading(new_faces, self.rules.meld_spec) is None:
            raise explain_invalid(new_faces, self.rules.meld_spec, number)
        meld.ids = new_ids
        self.turn.rack.remove(joker)
        self.turn.played.append(joker)
        self.turn.rack.append(target)
        self.turn.taken.append(target)
        return [
            self._working_event(
                seat,
                "take",
                f"takes from meld {number} with a joker:",
                f"nimmt mit Joker aus {number}:",
                str(face),
            )
        ]

    def _cmd_claim(self, seat: int, c: Command) -> list[Event]:
        if not self.rules.claims:
            raise RummyError("turn.not_allowed", command="claim", preset=self.rules.name)
        number = c.meld or 0
        meld = self._touch(seat, number)
        if meld.claim is not None:
            raise RummyError("claim.already", meld=number)
        found = readings(self.faces(meld.ids), self.rules.meld_spec)
        if len(meld.ids) != 4 or not found or found[0].kind != "group":
            raise RummyError("claim.not_group_of_four", meld=number)
        if not self._formed_this_turn(meld) and not self._was_claimed_by(seat, meld):
            raise RummyError("claim.not_formed", meld=number)
        meld.claim = seat
        return [
            self._working_event(seat, "claim", "claims meld", "erklärt zum Claim:", str(number))
        ]

    def _formed_this_turn(self, meld: Meld) -> bool:
        """A claim comes from the hand or is formed on the table (RULES.md "Preset stein_plus"):
        the meld is not one that lay on the table, exactly these tiles, at the turn's start."""
        return set(meld.ids) not in [set(m.ids) for m in self.table]

    def _was_claimed_by(self, seat: int, meld: Meld) -> bool:
        """The meld is the seat's own claim of the turn's start, unclaimed this turn (claiming it
        again simply takes the unclaim back)."""
        return any(set(m.ids) == set(meld.ids) and m.claim == seat for m in self.table)

    def _cmd_unclaim(self, seat: int, c: Command) -> list[Event]:
        if not self.rules.claims:
            raise RummyError("turn.not_allowed", command="unclaim", preset=self.rules.name)
        number = c.meld or 0
        meld = self._meld_at(number)
        if meld.claim is None:
            raise RummyError("claim.not_claimed", meld=number)
        if meld.claim != seat:
            raise RummyError("claim.not_yours", meld=number, owner=self.players[meld.claim])
        meld.claim = None
        return [
            self._working_event(
                seat, "unclaim", "dissolves the claim", "löst den Claim auf:", str(number)
            )
        ]

    # -- help ---------------------------------------------------------------------------

    def _fixed_melds(self, seat: int) -> set[int]:
        """Melds the solver must leave alone: every claim - others' may not be touched, and
        only ``unclaim`` ends one's own (RULES.md "Preset stein_plus")."""
        return {k for k, m in enumerate(self.turn.table) if m.claim is not None}

    def _solve(self, seat: int, must_place: Sequence[Face] | None, *, jokers_stay: bool = False):
        """The exact solver on the working table, within :data:`HELP_BUDGET` DP states
        (raises ``SolverBudgetExceeded`` beyond it, so a player never waits long).
        ``jokers_stay``: table melds holding a joker are only kept or extended (the retry when
        the best play would move a table joker away from its meld)."""
        from .solver import solve

        return solve(
            self.table_faces(working=True),
            self.faces(self.turn.rack),
            self.rules,
            opened=self.opened[seat],
            mode="count",
            fixed=self._fixed_melds(seat),
            must_place=list(must_place) if must_place is not None else None,
            budget=HELP_BUDGET,
            jokers_stay=jokers_stay,
        )

    def _solve_keeping_jokers(self, seat: int, must_place: Sequence[Face] | None):
        """:meth:`_solve`, and when its table would move a table joker out of its meld
        (:meth:`check_solution`) the best play that keeps every joker meld whole instead.
        Returns the play (None: none such within the budget) and the error that refused the
        first one (None when it was accepted)."""
        from .solver import SolverBudgetExceeded

        solution = self._solve(seat, must_place)
        if not solution.count:
            return solution, None
        try:
            self.check_solution(solution.table, solution.placed)
            return solution, None
        except RummyError as moved:
            try:
                kept = self._solve(seat, must_place, jokers_stay=True)
                if kept.count:
                    self.check_solution(kept.table, kept.placed)
            except (SolverBudgetExceeded, RummyError):
                kept = None
            return kept, moved

    def _cmd_place(self, seat: int, c: Command) -> list[Event]:
        """Let the solver fit exactly these rack pieces into the table (where help is on)."""
        if not self.rules.help_allowed:
            raise RummyError("help.not_allowed")
        from .solver import SolverBudgetExceeded

        ids = self._from_rack(c.pieces)  # names the piece when it is not in the rack
        try:
            solution, moved = self._solve_keeping_jokers(seat, c.pieces)
        except SolverBudgetExceeded:
            raise RummyError("place.too_hard", pieces=format_faces(c.pieces)) from None
        if solution is None or solution.count != len(c.pieces):
            if moved is not None:  # every table that holds them moves a table joker
                raise moved
            text = format_faces(c.pieces)
            if len(c.pieces) == 1:
                reason = f"{text} cannot be placed: no valid table holds it."
                reason_de = f"{text} lässt sich nicht unterbringen: kein gültiger Tisch hält ihn."
            else:
                reason = f"{text} cannot all be placed: no valid table holds them."
                reason_de = f"{text} lassen sich nicht alle unterbringen: kein gültiger Tisch."
            raise RummyError("place.impossible", reason=reason, reason_de=reason_de)
        self._adopt_solution(solution.table, ids)
        return [self._working_event(seat, "place", "places", "legt", format_faces(c.pieces))]

    def check_solution(self, melds: Sequence[Sequence[Face]], placed: Sequence[Face]) -> None:
        """Would ``place`` accept this solver table (the working table plus ``placed``)? Raises
        the ``place.impossible`` error when it moves a table joker; no solving is repeated."""
        probe = self.copy()
        probe._adopt_solution([list(m) for m in melds], probe._from_rack(placed))

    def _adopt_solution(self, melds: list[list[Face]], placed: list[int]) -> None:
        """Rebuild the working table from solver melds, reusing ids, or raise
        ``place.impossible`` and change nothing.

        A working meld the solver left as it is keeps its very ids and its claim (a claim ends
        only by ``unclaim``: every claim must come back unchanged). Other melds take ids by
        face; the solver treats jokers as interchangeable, so each table joker goes to the new
        meld that shares most real tiles with its meld at the start of the turn. The result must
        keep every joker rule (:meth:`joker_faults`), as the manual commands do."""
        start = self._start_jokers()
        homes = {
            j: Counter(f for f in self.faces(self.table[index].ids) if not f.is_joker)
            for j, (index, _) in start.items()
        }
        pool = [i for m in self.turn.table for i in m.ids] + list(placed)
        solver = [Counter(faces) for faces in melds]
        chosen: dict[int, Meld] = {}
        # claims first, then every other meld the solver kept exactly
        order = sorted(enumerate(self.turn.table, 1), key=lambda nm: nm[1].claim is None)
        for no, meld in order:
            same = Counter(self.faces(meld.ids))
            k = next((k for k, c in enumerate(solver) if k not in chosen and c == same), None)
            if k is None:
                if meld.claim is not None:
                    raise self._place_refused(RummyError("claim.dissolve_first", meld=no))
                continue
            chosen[k] = meld.copy()
            for i in meld.ids:
                pool.remove(i)
        by_face: dict[Face, list[int]] = {}
        for i in pool:
            by_face.setdefault(self.deck[i], []).append(i)
        new_table = []
        for k, faces in enumerate(melds):
            if k in chosen:
                new_table.append(chosen[k])
                continue
            real = Counter(f for f in faces if not f.is_joker)
            ids = []
            for face in faces:
                matches = by_face[face]
                pick = matches[0]
                if face.is_joker and len(matches) > 1:
                    # the first joker whose old meld shares most real tiles with this one
                    pick = min(
                        matches,
                        key=lambda i: -sum((real & homes[i]).values()) if i in homes else 1,
                    )
                matches.remove(pick)
                ids.append(pick)
            new_table.append(Meld(ids))
        before = self.turn.snapshot()
        self.turn.table = new_table
        for meld in new_table:
            meld.ids = self._arrange(meld.ids)
        for i in placed:
            self.turn.rack.remove(i)
            self.turn.played.append(i)
        on_table = {i for m in new_table for i in m.ids}
        faults = [
            f
            for f in self.joker_faults()
            if not f.code.startswith("joker.freed") or f.params.get("joker") in on_table
        ]
        if faults:
            self.turn.restore(before)
            raise self._place_refused(faults[0])

    @staticmethod
    def _place_refused(fault: RummyError) -> RummyError:
        return RummyError(
            "place.impossible",
            reason="every table that holds these pieces breaks a rule ("
            + fault.message("en").rstrip(".")
            + "): lay them yourself.",
            reason_de="jeder Tisch mit diesen Steinen bricht eine Regel ("
            + fault.message("de").rstrip(".")
            + "): lege sie selbst.",
        )

    def _cmd_hint(self, seat: int, c: Command) -> list[Event]:
        """A private move the engine accepts as typed, for the state of the turn (engine/hints.py)."""
        from .hints import tile_hint

        return tile_hint(self, seat)

    # -- undo / reset -------------------------------------------------------------------

    def _cmd_undo(self, seat: int, c: Command) -> list[Event]:
        if not self.turn.history:
            raise RummyError("turn.nothing_to_undo")
        self.turn.restore(self.turn.history.pop())
        return [Event("undo", seat, "Undone.", "Zurückgenommen.", private=True)]

    def _cmd_reset(self, seat: int, c: Command) -> list[Event]:
        self._reset_turn()
        return [
            Event(
                "reset",
                seat,
                "The table is as it was at the start of your turn.",
                "Der Tisch ist wieder wie zu Beginn deines Zuges.",
                private=True,
            )
        ]

    def _reset_turn(self) -> None:
        t = self.turn
        t.table = [m.copy() for m in self.table]
        t.rack = list(self.racks[self.current])
        t.played, t.freed, t.taken, t.history = [], [], [], []

    # -- ending the turn ----------------------------------------------------------------

    def _opening_value(self) -> int:
        """Value of the melds laid from the rack alone this turn (RULES.md opening)."""
        played = set(self.turn.played)
        total = 0
        for meld in self.turn.table:
            if meld.ids and all(i in played for i in meld.ids):
                found = readings(self.faces(meld.ids), self.rules.meld_spec)
                if found:
                    total += found[0].value
        return total

    def joker_faults(self, *, final: bool = True) -> list[RummyError]:
        """What the working table breaks of the rules on table jokers, one error per fault:

        - a joker on the table at the start of the turn that was not freed stays with real
          tiles of its meld (docs/DECISIONS.md "Table jokers stay in their meld"; ``joker.left_meld``);
        - its meaning is fixed by where it sits (RULES.md "Common ground"): a group joker stays a
          joker of its value in a group, and where a freed joker may not go back to the rack
          (Rummikub) a table joker means what it meant until it is freed (``joker.meaning_changed``);
        - Rummikub ``joker_meld_no_split``: the tiles of its meld stay together (``joker.locked_meld``);
        - Rummikub: a joker freed this turn lies in a new meld with a tile played from the rack
          (RULES.md "Jokers"; ``joker.freed_unused`` / ``joker.freed_not_new``).

        ``final=False`` checks only what no later command can mend (the meaning of a joker in a
        valid meld, a split joker meld): every command is refused when it adds such a fault."""
        spec = self.rules.meld_spec
        table = self.turn.table
        where = {i: no for no, m in enumerate(table, 1) for i in m.ids}
        faults: list[RummyError] = []
        for joker, (index, meaning) in self._held_jokers().items():
            no = where.get(joker)
            if no is None:
                continue  # not on the working table: conservation is checked elsewhere
            home = self.table[index].ids
            ids = table[no - 1].ids
            if final and not any(i in ids for i in home if not self.deck[i].is_joker):
                shown = format_faces(self.faces(home))
                faults.append(RummyError("joker.left_meld", meld=no, home=shown, joker=joker))
            if self.rules.joker_meld_no_split and any(
                where.get(i, no) != no for i in home if i not in self.turn.freed
            ):
                faults.append(RummyError("joker.locked_meld", meld=no, joker=joker))
            strict = not self.rules.joker_freed_to_hand or (meaning and meaning[0] == "group")
            found = positional_reading(self.faces(ids), spec) if strict and meaning else None
            if found is not None:
                now = meaning_at(found, ids.index(joker))
                if now != meaning:
                    faults.append(
                        RummyError(
                            "joker.meaning_changed",
                            meld=no,
                            was=describe_meaning(meaning),
                            was_de=describe_meaning(meaning, "de"),
                            now=describe_meaning(now),
                            now_de=describe_meaning(now, "de"),
                            joker=joker,
                        )
                    )
        if final and not self.rules.joker_freed_to_hand:
            faults += self._freed_faults(where)
        return faults

    def _freed_faults(self, where: dict[int, int]) -> list[RummyError]:
        """Rummikub: every joker freed this turn lies in a new meld - not one holding all the
        tiles of a meld that lay on the table at the turn's start - with a rack tile played this
        turn (RULES.md "Preset rummikub", Jokers)."""
        faults: list[RummyError] = []
        played = set(self.turn.played)
        freed = set(self.turn.freed)
        for joker in self.turn.freed:
            no = where.get(joker)
            if no is None:
                faults.append(
                    RummyError(
                        "joker.freed_unused",
                        joker=joker,
                        where=" (it is still on your rack)",
                        where_de=" (er liegt noch auf deiner Bank)",
                    )
                )
                continue
            ids = set(self.turn.table[no - 1].ids)
            if not any(i in played and not self.deck[i].is_joker for i in ids):
                faults.append(
                    RummyError(
                        "joker.freed_unused",
                        joker=joker,
                        where=f" (meld {no} holds no tile from your rack)",
                        where_de=f" (Kombination {no} enthält keinen Stein von deiner Bank)",
                    )
                )
                continue
            for old in self.table:
                tiles = [i for i in old.ids if i not in freed]
                if tiles and set(tiles) <= ids:
                    shown = format_faces(self.faces(old.ids))
                    faults.append(
                        RummyError("joker.freed_not_new", meld=no, old=shown, joker=joker)
                    )
                    break
        return faults

    def check_turn(self, seat: int) -> None:
        """Why the turn cannot end now (or nothing): every meld valid as it lies (jokers read
        by position) and every claim a group of four, named together; then the joker rules
        (:meth:`joker_faults`); then the opening (RULES.md per preset)."""
        spec = self.rules.meld_spec
        reasons, reasons_de = [], []
        for no, meld in enumerate(self.turn.table, 1):
            faces = self.faces(meld.ids)
            found = positional_reading(faces, spec)
            err = None
            if found is None:
                err = explain_invalid(faces, spec, no)
            elif meld.claim is not None and (len(meld.ids) != 4 or found.kind != "group"):
                err = RummyError("claim.broken", meld=no)
            if err is not None:
                reasons.append(err.message("en"))
                reasons_de.append(err.message("de"))
        if reasons:
            raise RummyError(
                "turn.invalid_table", reasons=" ".join(reasons), reasons_de=" ".join(reasons_de)
            )
        faults = self.joker_faults()
        if faults:
            raise faults[0]
        played = set(self.turn.played)
        if not self.opened[seat] and played:
            if self.rules.opening_minimum:
                value = self._opening_value()
                if value < self.rules.opening_minimum:
                    raise RummyError(
                        "opening.below_minimum", value=value, minimum=self.rules.opening_minimum
                    )
            elif not any(m.ids and all(i in played for i in m.ids) for m in self.turn.table):
                raise RummyError("opening.no_meld")

    def _cmd_done(self, seat: int, c: Command) -> list[Event]:
        self._require_draws()
        if self.is_stein and self.turn.rack:
            raise RummyError("turn.must_discard")
        self.check_turn(seat)  # an invalid table is named first, played tiles or not
        if not self.is_stein and not self.turn.played:
            changed = self._table_changed()
            raise RummyError("turn.nothing_played_changed" if changed else "turn.nothing_played")
        return self._commit(seat) + self._end_turn(seat)

    def _cmd_discard(self, seat: int, c: Command) -> list[Event]:
        """End a Stein turn by discarding a tile. A player who has laid every tile may discard
        a table tile whose removal leaves every meld valid (RULES.md "Preset stein": the last
        tile may come "from the table or the hand"): ``discard N PIECE``, or ``discard PIECE``
        (the first meld, in table order, that stays valid without it)."""
        if not self.rules.discard_required:
            raise RummyError("turn.no_discard")
        self._require_draws()
        face = c.pieces[0]
        number = getattr(c, "meld", None)
        if self.turn.rack:
            if number is not None:
                n = len(self.turn.rack)
                raise RummyError(
                    "turn.discard_from_hand",
                    tiles=_count(n, "tile", "tiles"),
                    tiles_de=_count(n, "Stein", "Steine"),
                )
            piece = self._from_rack(c.pieces)[0]
            self.turn.rack.remove(piece)
        else:
            piece = self._take_off_table(seat, number, face)
        self.check_turn(seat)
        self.discards.append(piece)
        name, p = self.players[seat], str(self.deck[piece])
        events = self._commit(seat)
        events.append(
            Event("discard", seat, f"{name} discards {p}.", f"{name} legt {p} ab.", pieces=(p,))
        )
        return events + self._end_turn(seat)

    def _take_off_table(self, seat: int, number: int | None, face: Face) -> int:
        """Take the table tile ``face`` (of meld ``number``, or of the first meld that stays
        valid without it) off the working table for the last discard; the meld must stay
        valid. Touching the meld follows the usual rules (claims, opening, table jokers)."""
        spec = self.rules.meld_spec
        numbers = [number] if number is not None else range(1, len(self.turn.table) + 1)
        holders = [no for no in numbers if face in self.faces(self._meld_at(no).ids)]
        if not holders:
            if number is not None:
                raise RummyError("piece.not_in_meld", piece=str(face), meld=number)
            raise RummyError("piece.not_on_table", piece=str(face))
        first_fault: RummyError | None = None
        for no in holders:
            meld = self._meld_at(no)
            piece = self._from_meld(meld, no, [face])[0]
            rest = [i for i in meld.ids if i != piece]
            try:
                self._touch(seat, no)
                if face.is_joker and piece in self._held_jokers():
                    raise RummyError("joker.cannot_move", meld=no)
                if meld.claim is not None:
                    raise RummyError("claim.broken", meld=no)
                rest_faces = self.faces(rest)
                if positional_reading(rest_faces, spec) is None:
                    why = explain_invalid(rest_faces, spec, None)
                    raise RummyError(
                        "turn.discard_breaks",
                        piece=str(face),
                        meld=no,
                        reason=why.message("en").rstrip("."),
                        reason_de=why.message("de").rstrip("."),
                    )
            except RummyError as fault:
                first_fault = first_fault or fault
                continue
            meld.ids = self._arrange(rest)
            if piece in self.turn.played:
                self.turn.played.remove(piece)
            return piece
        assert first_fault is not None
        raise first_fault

    def _commit(self, seat: int) -> list[Event]:
        """Make the working table and rack the game's own."""
        events: list[Event] = []
        start_melds = {tuple(m.ids) for m in self.table}
        changed = set(self.turn.played)
        for meld in self.turn.table:
            if tuple(meld.ids) not in start_melds:
                changed.update(meld.ids)
        if self.turn.played and not self.opened[seat]:
            self.opened[seat] = True
            name = self.players[seat]
            events.append(Event("opened", seat, f"{name} has opened.", f"{name} hat eröffnet."))
        self.last_changed = sorted(changed & {i for m in self.turn.table for i in m.ids})
        self.table = [m.copy() for m in self.turn.table]
        self.racks[seat] = list(self.turn.rack)
        return events

    def _end_turn(self, seat: int) -> list[Event]:
        """After a committed turn: win, stalemate, or the next player."""
        table_changed = bool(self.turn.played) or bool(self.turn.taken)
        if not self.racks[seat]:
            return self._finish("out", seat)
        if not self.pool and not table_changed:
            self.quiet += 1
        else:
            self.quiet = 0
        if not self.pool and self.quiet >= len(self.players):
            return self._finish("stalemate", None)
        n = len(self.players)
        self.current = (seat + 1) % n
        self.turn_no += 1
        if self.current == self.start_player:
            self.round_no += 1
        self.turn = Turn([m.copy() for m in self.table], list(self.racks[self.current]))
        name = self.players[self.current]
        return [Event("turn", self.current, f"{name} is to move.", f"{name} ist am Zug.")]

    def _finish(self, reason: str, winner: int | None) -> list[Event]:
        self.status = "finished"
        lefts = [self.faces(r) for r in self.racks]
        claims = [sum(1 for m in self.table if m.claim == s) for s in range(len(self.players))]
        first_round = winner is not None and self.round_no == 0
        points = score_tile_game(
            self.rules,
            lefts,
            winner,
            claims=claims if self.rules.claims else None,
            first_round=first_round,
        )
        if self.rules.game == "rummikub":
            ranks = competition_ranks(points)
        else:
            ranks = places_by_tiles_left([len(x) for x in lefts], winner)
        details: dict[str, Any] = {"first_round": first_round}
        if self.rules.claims:
            details["claims"] = claims
        if self.rules.game == "rummikub":
            details["rack_values"] = [rack_value(x, self.rules.joker_penalty) for x in lefts]
        self.result = Result(
            reason=reason,  # type: ignore[arg-type]
            winner=winner,
            points=points,
            ranks=ranks,
            left=[[str(f) for f in x] for x in lefts],
            details=details,
        )
        self.turn = Turn([m.copy() for m in self.table], [])
        if winner is not None:
            name = self.players[winner]
            text, text_de = (
                f"{name} is out and wins!",
                f"{name} hat alle Steine abgelegt und gewinnt!",
            )
        elif reason == "stalemate":
            text, text_de = (
                "Nobody can play any more: the game ends.",
                "Niemand kann mehr spielen: das Spiel endet.",
            )
        else:
            text, text_de = "The game was ended.", "Das Spiel wurde beendet."
        return [Event("game_over", winner, text, text_de)]

    def end(self, reason: str = "ended") -> list[Event]:
        """End the game now (organiser's decision or abandonment), scored by what is left."""
        if self.status != "playing":
            raise RummyError("game.over")
        self.turn = Turn([m.copy() for m in self.table], list(self.racks[self.current]))
        return self._finish(reason, None)

    def timeout(self) -> list[Event]:
        """The preset's time-out action for the player to move (RULES.md)."""
        if self.status != "playing":
            raise RummyError("game.over")
        seat = self.current
        name = self.players[seat]
        self._reset_turn()
        events = [
            Event(
                "timeout", seat, f"{name} ran out of time.", f"{name} hat die Zeit überschritten."
            )
        ]
        action = self.rules.timeout_action
        if action == "penalty":
            got = self._take_from_pool(seat, self.rules.timeout_penalty_tiles)
            events.append(
                Event(
                    "penalty",
                    seat,
                    f"{name} draws {_count(len(got), 'penalty tile', 'penalty tiles')}.",
                    f"{name} zieht {_count(len(got), 'Strafstein', 'Strafsteine')}.",
                )
            )
            if got:
                events.append(
                    self._private(seat, "drew", got, "You drew {p}.", "Du hast {p} gezogen.")
                )
        elif action == "auto_discard":
            while not self.draws_complete():
                if self.pool:
                    self._take_from_pool(seat, 1)
                    self.turn.drawn += 1
                else:
                    piece = self.discards.pop()
                    self.racks[seat].append(piece)
                    self.turn.rack.append(piece)
                    self.turn.new.append(piece)
                    self.turn.picked += 1
            rack = self.turn.rack
            piece = (self.turn.new or rack)[-1]
            rack.remove(piece)
            self.racks[seat] = list(rack)
            self.discards.append(piece)
            p = str(self.deck[piece])
            events.append(
                Event("discard", seat, f"{name} discards {p}.", f"{name} legt {p} ab.", pieces=(p,))
            )
        return events + self._end_turn(seat)

    # -- helpers ------------------------------------------------------------------------

    def _private(self, seat: int, kind: str, ids: list[int], en: str, de: str) -> Event:
        p = format_faces(self.faces(ids))
        return Event(
            kind, seat, en.format(p=p), de.format(p=p), private=True, pieces=tuple(p.split())
        )

    def _working_event(self, seat: int, kind: str, en: str, de: str, what: str) -> Event:
        name = self.players[seat]
        return Event(kind, seat, f"{name} {en} {what}", f"{name} {de} {what}", private=True)
