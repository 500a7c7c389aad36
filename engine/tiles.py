"""The tile games: Stein-Rummy, Stein-Rummy Plus and Rummikub (RULES.md).

:class:`TileGame` is the whole state of one game; :class:`~engine.tile.turn.Turn` is the working
copy of the table and the rack while a player moves: commands change the turn, ``done`` /
``discard`` validate and commit it, ``reset`` drops it. The state keeps piece ids (see
:class:`~engine.pieces.Deck`), so every physical tile is tracked: conservation, "played this
turn" and highlights are exact.

A message of commands is atomic: it runs on a copy and replaces the state only when every
command was accepted, so a rejected command changes nothing. Each command is a handler function
over that copy (:data:`HANDLERS`), grouped by what it does in engine/tile/: turn.py (the turn
context and the helpers every handler shares), moves.py, claims.py, jokers.py, help.py, ending.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
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
    copiers,
    optional_record,
    or_missing,
    records,
    state,
)
from .melds import positional_reading, readings
from .pieces import Deck, Face, parse_faces, parse_melds
from .rules import RuleSet
from .tile import claims, ending, help, moves
from .tile import turn as turn_rules
from .tile.jokers import fault_keys, joker_faults
from .tile.legal import place_is_plain
from .tile.turn import (
    HELP_BUDGET,
    UNDOABLE,
    Meld,
    Turn,
    arrange,
    carry_start_jokers,
    require_draws,
    start_jokers,
)

__all__ = ["HANDLERS", "HELP_BUDGET", "UNDOABLE", "Meld", "TileGame", "Turn"]
# Meld, Turn, HELP_BUDGET and UNDOABLE live in engine/tile/turn.py; re-exported here because
# callers and tests import them from engine.tiles (the published place).


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
        if rules.start_by_lot:
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
                why={"key": "why.position.too_many", "piece": str(face), "preset": rules.name},
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
                meld.ids = arrange(game, meld.ids)
        game.turn = Turn([m.copy() for m in game.table], list(game.racks[current]))
        if rules.draw_first and draws_done:
            game.turn.drawn = rules.draws_per_turn
        return game

    # ------------------------------------------------------------------ construction (continued)

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

    def working_table(self) -> dict[str, Any]:
        """The mover's working table as a nested i18n param, one line per meld numbered as
        players type it (keys ``working.*``): worded at the edge, in the reader's language."""
        lines: list[dict[str, Any]] = []
        for view in self.working_melds():
            claim: dict[str, Any] | str = ""
            if view.claim is not None:
                claim = {"key": "working.claim", "player": self.players[view.claim]}
            lines.append(
                {
                    "key": "working.line",
                    "number": view.number,
                    "pieces": " ".join(view.pieces),
                    "claim": claim,
                    "mark": "" if view.kind else {"key": "working.invalid"},
                }
            )
        return {"items": lines, "sep": "\n"} if lines else {"key": "working.empty"}

    def working_melds(self) -> list[MeldView]:
        """The mover's working table as data, numbered as players type it (``kind`` None: not
        valid yet; ``changed``: the positions of pieces played this turn), for the edge to show."""
        return self._meld_views(self.turn.table, set(self.turn.played))

    def _meld_views(self, melds: Sequence[Meld], changed: set[int]) -> list[MeldView]:
        views = []
        for no, meld in enumerate(melds, 1):
            faces = self.faces(meld.ids)
            found = readings(faces, self.rules.meld_spec)
            views.append(
                MeldView(
                    number=no,
                    pieces=[str(f) for f in faces],
                    kind=found[0].kind if found else None,
                    claim=meld.claim,
                    changed=[k for k, i in enumerate(meld.ids) if i in changed],
                )
            )
        return views

    def public_view(self) -> PublicView:
        melds = self._meld_views(self.table, set(self.last_changed))
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

    def apply(self, seat: int, text: str) -> list[Event]:
        """Run one message of commands for ``seat``; all or nothing. A message :meth:`probe`
        accepted on this very state is not run again: its worked-on copy is taken over."""
        commands = self._message(seat, text)
        probed = self._probed(seat, commands)
        self.__dict__.pop("_log_form", None)
        if probed is not None and (
            probed.plain == place_is_plain() or all(c.verb != "hint" for c in commands)
        ):
            self._adopt(probed.after)
            return list(probed.events)
        work = self.copy()
        events, written = work._run_all(seat, commands)
        self._adopt(work)
        if written:  # the message as it ran, each resolved place by its commands
            ran = [c for k, command in enumerate(commands) for c in written.get(k, (command,))]
            self.__dict__["_log_form"] = (text, "; ".join(map(str, ran)))
        return events

    def log_form(self, text: str) -> str:
        """What the command log keeps of ``text``, the message :meth:`apply` just ran: the text
        itself, or, where a ``place`` was resolved by the legal search, the commands that ran,
        written out (engine/commands.py; a replay must not depend on the search)."""
        logged = self.__dict__.get("_log_form")
        return logged[1] if logged is not None and logged[0] == text else text

    def copy(self) -> TileGame:
        """An independent copy (as :meth:`PieceGame.copy`: every state field by its codec),
        made without ``__init__``: ``__post_init__`` has nothing to derive for a copy."""
        twin = object.__new__(type(self))
        values = twin.__dict__
        for name, copy in copiers(type(self)):
            value = getattr(self, name)
            values[name] = value if copy is None else copy(value)
        start_jokers(self)  # read once for this committed table, not once per copy
        carry_start_jokers(self, twin)
        return twin

    def _adopt(self, other: Any) -> None:
        super()._adopt(other)
        carry_start_jokers(other, self)  # the same committed table now

    def _message(self, seat: int, text: str) -> list[Command]:
        """The commands of a message, or the error that refuses it before any command runs."""
        if self.status != "playing":
            raise RummyError("game.over")
        if not 0 <= seat < len(self.players):
            raise RummyError("turn.not_seated")
        commands = parse_message(text)
        if seat != self.current and any(c.verb != "hint" for c in commands):
            raise RummyError("turn.not_yours", player=self.players[self.current])
        return commands

    def _run_all(
        self, seat: int, commands: Sequence[Command], known: set[tuple[str, Any]] | None = None
    ) -> tuple[list[Event], dict[int, list[Command]]]:
        """The commands one after another on this (worked-on) copy (``known``: the joker
        faults of its state, when found already); the faults of the state after them, where
        the last command found them, are kept in ``_faults``. Returns the events and, by
        position, the commands each place the legal search resolved was written out as."""
        events: list[Event] = []
        written: dict[int, list[Command]] = {}
        for k, command in enumerate(commands):
            if self.status != "playing":
                raise RummyError("game.over")
            more, known, instead = self._run_written(seat, command, known)
            events += more
            if instead is not None:
                written[k] = instead
        self.__dict__["_faults"] = known
        return events, written

    def _run_written(
        self, seat: int, c: Command, known: set[tuple[str, Any]] | None
    ) -> tuple[list[Event], set[tuple[str, Any]] | None, list[Command] | None]:
        """:meth:`_run`, and where ``place`` is resolved by the legal search, the commands
        it is written out as, run one after another as if typed (returned as the third
        value; None where the command ran as it is). All or nothing, as :meth:`_run`."""
        try:
            more, known = self._run(seat, c, known)
            return more, known, None
        except help.PlaceWrittenOut as resolved:
            instead = resolved.commands
        before = self.turn.snapshot(with_history=True)
        events: list[Event] = []
        try:
            for command in instead:
                more, known = self._run(seat, command, known)
                events += more
        except RummyError:  # pragma: no cover - the search checked this very play on a copy
            self.turn.restore(before)
            raise
        return events, known, instead

    def probe(self, seat: int, text: str) -> TileGame | None:
        """The game after ``seat`` typed ``text`` (to be read, not changed), or None when the
        engine refuses it; the game itself never changes. How help and computer players check
        a move first: the accepted copy is kept, so that ``apply`` of the same message on the
        unchanged game takes it over instead of running it again, and a probe of the message
        with more commands after it runs only those (a message is run command after command
        on one copy, so the result is the same)."""
        accepted, after = self.probe_part(seat, text)
        return after if after is not None and accepted == len(parse_message(text)) else None

    def probe_part(self, seat: int, text: str) -> tuple[int, TileGame | None]:
        """:meth:`probe`, and where the engine refuses the message, how many of its first
        commands it accepted (the message refused at the next one) and the game after those,
        kept as the probe of just those commands (0 and None when the message is refused
        before any command runs, or where that game is not known)."""
        try:
            commands = self._message(seat, text)
        except RummyError:
            return 0, None
        last = self._probed(seat, None)
        done = 0
        if last is not None and commands[: len(last.commands)] == last.commands:
            done = len(last.commands)
        if done and "hint" in (c.verb for c in commands) and last.plain != place_is_plain():
            done = 0  # a hint answers inside plain_place as ``place`` always did
        known = None
        if done:
            before, work, events = last.before, last.after.copy(), list(last.events)
            known = last.after.__dict__.get("_faults")
        else:
            before, events = self.copy(), []
            work = before.copy()
        accepted, intact, reusable = done, True, True
        for command in commands[done:]:
            if work.status != "playing":
                break  # the rest is refused (game.over); the game after the first ones stands
            try:
                more, known, instead = work._run_written(seat, command, known)
            except RummyError:
                intact = command.verb in _RESTORED  # else the copy may be half changed
                break
            events += more
            accepted += 1
            # a written-out place is logged as it ran: only apply knows that form
            reusable = reusable and instead is None
        work.__dict__["_faults"] = known
        if reusable and (accepted == len(commands) or (intact and accepted > done)):
            kept = commands[:accepted]
            self.__dict__["_probe"] = _Probe(seat, kept, before, work, events, place_is_plain())
        if not intact:
            return accepted, None
        if accepted == len(commands) or accepted > done:
            return accepted, work
        return accepted, last.after if done and last is not None else None

    def _probed(self, seat: int, commands: list[Command] | None) -> _Probe | None:
        """The last :meth:`probe` of this game when the game is still as it was then (for
        ``commands``: of exactly that message), else None."""
        last = self.__dict__.get("_probe")
        if last is None or last.seat != seat:
            return None
        if commands is not None and last.commands != commands:
            return None
        if not self._same_state(last.before):
            self.__dict__.pop("_probe", None)
            return None
        if commands is not None:  # taken over: the copy is the game's own state from now on
            self.__dict__.pop("_probe", None)
        return last

    def _run(
        self, seat: int, c: Command, known: set[tuple[str, Any]] | None = None
    ) -> tuple[list[Event], set[tuple[str, Any]] | None]:
        """One command on this (worked-on) copy: its handler, then the rules every command
        keeps. ``known``: the joker faults of this state when the command before found them
        (``fault_keys``); returns the events and the faults of the state after it, where
        checked (None: not known)."""
        handler = HANDLERS.get(c.verb)
        if handler is None:
            raise RummyError("turn.not_allowed", command=c.verb, preset=self.rules.name)
        if c.verb not in ("draw", "pick", "hint", "undo", "reset", "done", "discard"):
            require_draws(self)
        # reset drops the history, so its snapshot keeps it: undo after reset is exact too
        before = self.turn.snapshot(with_history=c.verb == "reset")
        changes_table = c.verb in UNDOABLE and c.verb != "reset"
        if changes_table and known is None:
            known = fault_keys(self)
        try:
            events = handler(self, seat, c)
            after = None
            if changes_table:
                # a command may leave melds unfinished, never a joker rule broken for good
                faults = joker_faults(self, final=False)
                after = {(f.code, f.params.get("joker")) for f in faults}
                for fault in faults:
                    if (fault.code, fault.params.get("joker")) not in known:
                        raise fault
        except RummyError:
            if c.verb in _RESTORED:  # these change only the turn: it is as it was again
                self.turn.restore(before)
            raise
        if c.verb in UNDOABLE:
            self.turn.history.append(before)
        return events, after

    def timeout(self) -> list[Event]:
        """The preset's time-out action for the player to move (RULES.md)."""
        return ending.timeout(self)

    def end(self, reason: str = "ended") -> list[Event]:
        """End the game now (organiser's decision or abandonment), scored by what is left."""
        return ending.end(self, reason)

    # ------------------------------------------------------------------ asked by help, AI, tools

    @property
    def is_stein(self) -> bool:
        """Stein's turn: the draws first, then a discard (``RuleSet.draw_first``)."""
        return self.rules.draw_first

    def draws_needed(self) -> int:
        """Stein: the draws this turn needs (two, fewer when the stocks run dry)."""
        return turn_rules.draws_needed(self)

    def draws_complete(self) -> bool:
        return turn_rules.draws_complete(self)

    def table_changed(self) -> bool:
        """Whether the working table differs from the committed one (melds or claims)."""
        return turn_rules.table_changed(self)

    def reset_turn(self) -> None:
        """Drop the working copy: the table and rack as at the start of the turn."""
        turn_rules.reset_turn(self)

    def fixed_melds(self, seat: int) -> set[int]:
        """The working melds the solver must leave alone (claims)."""
        return claims.fixed_melds(self, seat)

    def check_turn(self, seat: int) -> None:
        """Why the turn cannot end now, or nothing (engine/tile/ending.py)."""
        ending.check_turn(self, seat)


_MESSAGES: dict[str, tuple[Command, ...]] = {}
_MESSAGES_MAX = 512


def parse_message(text: str) -> list[Command]:
    """``parse_commands`` of a tile message, remembered (commands are values; computer players
    and their probes parse the same messages again and again)."""
    found = _MESSAGES.get(text)
    if found is None:
        found = tuple(parse_commands(text, "tile"))
        if len(_MESSAGES) >= _MESSAGES_MAX:
            _MESSAGES.clear()
        _MESSAGES[text] = found
    return list(found)


_RESTORED = UNDOABLE - {"reset"}
"""The commands that change only the turn (the table moves and help), so that a refused one
leaves the worked-on copy as it was once the turn is restored (:meth:`TileGame._run`)."""


@dataclass(frozen=True, slots=True)
class _Probe:
    """Commands :meth:`TileGame.probe` accepted: on the state ``before`` (a copy), ``seat``'s
    ``commands`` (a message, or the first commands of one) gave ``after`` and ``events``."""

    seat: int
    commands: list[Command]
    before: TileGame
    after: TileGame
    events: list[Event]
    plain: bool  # made inside ``plain_place`` (where ``place`` answers as it always did)


Handler = Callable[[TileGame, int, Command], list[Event]]

HANDLERS: dict[str, Handler] = {
    "draw": moves.draw,
    "pick": moves.pick,
    "meld": moves.meld,
    "add": moves.add,
    "move": moves.move,
    "split": moves.split,
    "join": moves.join,
    "swap": moves.swap,
    "take": moves.take,
    "undo": moves.undo,
    "reset": moves.reset,
    "claim": claims.claim,
    "unclaim": claims.unclaim,
    "place": help.place,
    "hint": help.hint,
    "done": ending.done,
    "discard": ending.discard,
}
"""Every tile command: its handler over the worked-on copy of the game (engine/tile/)."""
