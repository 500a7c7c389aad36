"""What a turn did, as data and in words: "Anna laid R5 R6 R7 (meld 4) and added B4 to meld 2 ·
3 tiles left", "Ben drew a tile", "Computer 2 took R7 from meld 3 with a joker".

The engine tracks every physical piece by id, so a turn is told exactly by comparing where the
mover's pieces lay when the turn started with where they lie at its end (:func:`summarize`, a pure
function of two :class:`Position` values): which pieces were laid from the hand into which meld
(a new meld N / added to meld N), which were moved from one meld to another, which jokers were
freed, which tile was taken with a joker, what was drawn, picked up and discarded. The same
comparison gives the highlight of the picture: only the pieces laid or moved this turn
(:func:`highlighted`), not whole changed melds.

Meld numbers are those players type: a source meld by its number at the start of the turn (the
picture the others saw), a target meld by its number at the end (the picture they see next).

:class:`TurnTracker` (one per command pipeline) remembers each game's position at the start of the
turn under way and the public events of that turn; ``after`` gives the :class:`TurnMoves` of a
turn that has just passed. Nothing here is saved: the game's JSON is untouched. After a restart in
the middle of a turn, the start is rebuilt from the state (the committed table of a tile game is
the table at the start of the turn); only a Stein pick made before the restart may then be told
by count instead of by name.

Words come from i18n (keys ``turns.*``, ``i18n/<lang>/turns.json``) in the reader's language.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.pieces import parse_face, sort_key
from i18n import t

from .outgoing import _Worded
from .registry import turn_key

__all__ = [
    "Action",
    "Position",
    "TurnMoves",
    "TurnTracker",
    "capture",
    "highlighted",
    "rack_order",
    "summarize",
    "view_for",
    "working_view",
]


@dataclass(frozen=True, slots=True)
class Position:
    """Where the mover's pieces lie: the table (piece ids per meld, in table order, and each
    meld's claim), the mover's hand and the discard pile (bottom to top)."""

    seat: int
    table: tuple[tuple[int, ...], ...]
    claims: tuple[int | None, ...]
    rack: tuple[int, ...]
    discards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the mover did: ``kind`` and its params (pieces as text, meld numbers)."""

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TurnMoves(_Worded):
    """A finished turn as data, and its sentence in any language (:meth:`message`).

    ``highlight`` maps a meld number of the end-of-turn table (1-based) to the positions, in that
    meld, of the pieces laid or moved this turn."""

    game_id: str
    seat: int
    name: str
    family: str
    turn_no: int
    actions: tuple[Action, ...]
    left: int
    highlight: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    def params(self) -> dict[str, Any]:
        """The sentence as a nested i18n param (``{"key": "turns.sentence", ...}``)."""
        family = "card" if self.family == "card" else "tile"
        items = [_action_param(a, family) for a in self.actions] or [{"key": "turns.nothing"}]
        actions = _joined(items)
        if self.left:
            left: Any = {"key": f"turns.left.{family}", "count": self.left}
        else:
            left = {"key": f"turns.left.{family}.none"}
        return {"key": "turns.sentence", "player": self.name, "actions": actions, "left": left}

    def message(self, lang: str = "en") -> str:
        """``Anna laid R5 R6 R7 (meld 4) and added B4 to meld 2 · 3 tiles left`` in ``lang``."""
        params = self.params()
        key = params.pop("key")
        return t(key, lang, **params)


_FAMILY_KINDS = frozenset(("drew", "picked", "picked_hidden", "laid", "added"))
"""Action kinds worded differently for tiles and cards (``turns.<kind>.tile`` / ``.card``)."""


def _action_param(action: Action, family: str) -> dict[str, Any]:
    key = f"turns.{action.kind}"
    if action.kind in _FAMILY_KINDS:
        key += f".{family}"
    params = dict(action.params)
    if "parts" in params:
        params["parts"] = _joined([{"key": "turns.part", **p} for p in params["parts"]])
    return {"key": key, **params}


def _joined(items: list[Any]) -> Any:
    """Items as one nested i18n param: ``a``, ``a and b``, ``a, b and c``."""
    if len(items) == 1:
        return items[0]
    return {"key": "turns.list", "rest": {"items": items[:-1], "sep": ", "}, "last": items[-1]}


# ---------------------------------------------------------------------- positions


def capture(state: Any, seat: int, *, working: bool = False) -> Position:
    """The position of ``seat``'s pieces in a game state: the committed table and hand, or with
    ``working`` the mover's working copy of a tile game's turn (card games play on the table
    itself: both are the same)."""
    turn = getattr(state, "turn", None)
    tile_turn = turn is not None and hasattr(turn, "table")
    if working and tile_turn and seat == state.current and state.status == "playing":
        melds, rack = turn.table, turn.rack
    else:
        melds, rack = state.table, state.racks[seat]
    return Position(
        seat=seat,
        table=tuple(tuple(m.ids) for m in melds),
        claims=tuple(getattr(m, "claim", None) for m in melds),
        rack=tuple(rack),
        discards=tuple(state.discards),
    )


@dataclass(slots=True)
class _Start:
    """The start of the turn under way: its key, the position, and what was done before this
    start was taken that the position cannot show (a restart in the middle of the turn)."""

    key: tuple[int, int]
    position: Position
    picks: list[str] = field(default_factory=list)  # faces picked up, as the events told
    hidden_picks: int = 0  # picks made before a restart whose piece is not known
    kinds: list[str] = field(default_factory=list)  # the public events' kinds of this turn


def _start_of(state: Any) -> _Start:
    """The position at the start of the current turn, rebuilt from the state."""
    seat = state.current
    turn = state.turn
    key = turn_key(state)
    if hasattr(turn, "table"):  # tile game: the committed table is the table at the turn's start
        new = set(turn.new)
        rack = tuple(i for i in state.racks[seat] if i not in new)
        position = Position(
            seat,
            tuple(tuple(m.ids) for m in state.table),
            tuple(m.claim for m in state.table),
            rack,
            tuple(state.discards),
        )
        start = _Start(key, position)
        if turn.picked:  # Stein picks before the restart: named when no draw hides which it was
            if not turn.drawn and len(turn.new) == turn.picked:
                start.picks = [str(state.deck[i]) for i in turn.new]
                position = dataclasses.replace(position, discards=position.discards + tuple(new))
                start.position = position
            else:
                start.hidden_picks = turn.picked
        return start
    # card game: the hand and table before the first table play of the turn
    history = turn.get("history") or []
    if history:
        rack = tuple(history[0]["rack"])
        table = tuple(tuple(m[0]) for m in history[0]["table"])
    else:
        rack, table = tuple(state.racks[seat]), tuple(tuple(m.ids) for m in state.table)
    discards = tuple(state.discards)
    start = _Start(key, Position(seat, table, (None,) * len(table), rack, discards))
    picked = turn.get("picked")
    if picked is not None and picked in rack:
        start.picks = [str(state.deck[picked])]
        start.position = dataclasses.replace(
            start.position,
            rack=tuple(i for i in rack if i != picked),
            discards=(*discards, picked),
        )
    return start


def _fresh(state: Any) -> bool:
    """Whether the mover has done nothing yet this turn."""
    turn = state.turn
    if hasattr(turn, "table"):
        return not (turn.new or turn.played or turn.taken or turn.history or turn.drawn)
    return not turn.get("drawn") and not turn.get("history")


# ---------------------------------------------------------------------- the comparison


def summarize(
    start: Position,
    end: Position,
    deck: Any,
    *,
    picks: Sequence[str] = (),
    hidden_picks: int = 0,
    kinds: Iterable[str] = (),
) -> tuple[tuple[Action, ...], dict[int, tuple[int, ...]]]:
    """What the mover did between two positions: the actions in the order they are told, and the
    highlight (end meld number -> positions of the pieces laid or moved). ``picks`` are the faces
    picked up from the discards (as the public events named them), ``kinds`` the kinds of the
    turn's public events (``timeout``, ``pass``, ``opened``, ``announce``)."""
    kinds = set(kinds)

    def face(i: int) -> str:
        return str(deck[i])

    def joker(i: int) -> bool:
        return bool(getattr(deck[i], "is_joker", False))

    def shown(ids: Iterable[int]) -> str:
        return " ".join(face(i) for i in ids)

    # a meld that lies exactly as it lay is left out at once (most melds, most turns)
    lying: dict[tuple[tuple[int, ...], int | None], int] = {}
    for s, meld in enumerate(start.table):
        lying.setdefault((meld, start.claims[s]), s)
    origin: dict[int, int] = {}
    for e, meld in enumerate(end.table):
        s = lying.pop((meld, end.claims[e]), None)
        if s is not None:
            origin[e] = s
    kept = set(origin.values())
    changed = [e for e in range(len(end.table)) if e not in origin]
    start_meld = {i: s for s, meld in enumerate(start.table) if s not in kept for i in meld}
    end_meld = {i: e for e in changed for i in end.table[e]}
    start_rack = set(start.rack)
    start_discards = set(start.discards)
    end_rack = set(end.rack)
    held = start_rack | set(start_meld)

    # pieces that came into the mover's hand this turn: picked up (named) or drawn (hidden)
    arrived = [
        i for i in [*end.rack, *(i for e in changed for i in end.table[e])] if i not in held
    ]  # rack first, then the table: the same order every time
    arrived_set = set(arrived)
    picked: list[int] = []
    wanted = list(picks)
    for i in arrived:
        if i in start_discards and face(i) in wanted:
            wanted.remove(face(i))
            picked.append(i)
    drawn = len(arrived) - len(picked)

    # each changed end meld continues at most one start meld: the one it shares most pieces with
    shared: dict[tuple[int, int], int] = {}
    for e in changed:
        for i in end.table[e]:
            s = start_meld.get(i)
            if s is not None:
                shared[e, s] = shared.get((e, s), 0) + 1
    taken_starts = set(kept)
    for _, e, s in sorted((-n, e, s) for (e, s), n in shared.items()):
        if e not in origin and s not in taken_starts:
            origin[e] = s
            taken_starts.add(s)
    follows = {s: e for e, s in origin.items()}

    # table jokers that left their meld this turn (freed by a swap)
    freed_jokers = {
        i for i, s in start_meld.items() if end_meld.get(i) != follows.get(s) and joker(i)
    }

    def freed(i: int) -> bool:
        return i in freed_jokers

    actions: list[Action] = []
    if "timeout" in kinds:
        actions.append(Action("timeout"))
    if picked:
        actions.append(Action("picked", {"pieces": shown(picked)}))
    if hidden_picks:
        actions.append(Action("picked_hidden", {"count": hidden_picks}))
    if drawn:
        actions.append(Action("drew", {"count": drawn}))
    if "opened" in kinds:
        actions.append(Action("opened"))

    highlight: dict[int, tuple[int, ...]] = {}
    for e in changed:
        ids = end.table[e]
        number = e + 1
        s = origin.get(e)
        laid = [i for i in ids if i not in start_meld or freed(i)]
        parts: dict[int, list[int]] = {}
        for i in ids:
            source = start_meld.get(i)
            if source is not None and source != s and not freed(i):
                parts.setdefault(source, []).append(i)
        # a split: a new meld of one start meld's pieces (and pieces laid from the hand)
        # while that meld goes on in another: only the laid pieces are new to the eye
        split_from = None
        if s is None and len(parts) == 1:
            (source,) = parts
            if source in follows:
                split_from = source
        marked = set(laid) | {i for p in parts.values() for i in p if split_from is None}
        positions = tuple(k for k, i in enumerate(ids) if i in marked)
        if positions:
            highlight[number] = positions
        moved = [{"pieces": shown(p), "source": src + 1} for src, p in sorted(parts.items())]
        if split_from is not None:
            params = {"source": split_from + 1, "meld": number}
            if laid:
                actions.append(Action("split_added", {"pieces": shown(laid), **params}))
            else:
                actions.append(Action("split", params))
            continue
        if s is None:
            if not parts:
                actions.append(Action("laid", {"pieces": shown(ids), "meld": number}))
            elif laid:
                actions.append(
                    Action("laid_with", {"pieces": shown(laid), "parts": moved, "meld": number})
                )
            else:
                actions.append(Action("formed", {"meld": number, "parts": moved}))
            if end.claims[e] is not None:
                actions.append(Action("claimed", {"meld": number}))
            continue
        gone = [i for i in start.table[s] if i not in ids]
        to_hand = [i for i in gone if i in end_rack and not joker(i)]
        jokers_out = [i for i in gone if joker(i)]
        if to_hand:  # Stein: the mover's joker took the tile's place
            for _ in to_hand:
                spare = next((i for i in laid if joker(i)), None)
                if spare is not None:
                    laid.remove(spare)
            actions.append(Action("take", {"pieces": shown(to_hand), "meld": number}))
        if jokers_out and laid:
            real = [i for i in laid if not joker(i)] or laid
            actions.append(
                Action("swap", {"pieces": shown(real), "meld": number, "count": len(jokers_out)})
            )
            laid = [i for i in laid if i not in real]
        if laid:
            actions.append(Action("added", {"pieces": shown(laid), "meld": number}))
        for part in moved:
            actions.append(Action("moved", {**part, "meld": number}))
        before, after = start.claims[s], end.claims[e]
        if after is not None and before != after:
            actions.append(Action("claimed", {"meld": number}))
        elif after is None and before is not None:
            actions.append(Action("unclaimed", {"meld": number}))

    discarded = [
        i for i in end.discards if i not in start_discards and (i in held or i in arrived_set)
    ]
    for i in discarded:
        source = start_meld.get(i)
        if source is not None:
            actions.append(Action("discarded_from", {"pieces": face(i), "source": source + 1}))
        else:
            actions.append(Action("discarded", {"pieces": face(i)}))
    if "announce" in kinds:
        actions.append(Action("announced"))
    if "pass" in kinds:
        actions.append(Action("passed"))
    return tuple(actions), highlight


# ---------------------------------------------------------------------- views


def highlighted(view: Any, moves: TurnMoves | None) -> Any:
    """A copy of a public view whose melds mark only the pieces laid or moved in ``moves``'s
    turn (``MeldView.changed``); the view itself when ``moves`` is None."""
    if moves is None or view is None:
        return view
    melds = [
        dataclasses.replace(m, changed=list(moves.highlight.get(m.number, ()))) for m in view.melds
    ]
    return dataclasses.replace(view, melds=melds)


def working_view(state: Any, start: Position | None = None) -> Any:
    """The public view of the mover's working table: a tile game's melds as the mover has laid
    them so far, marking the pieces laid or moved this turn (compared with ``start``, else with
    the committed table); a card game's view as it is (its table plays are on the table).

    A tile game's working table is the mover's until the turn is committed: show it to the
    mover (and in the terminal), not to the table."""
    view = state.public_view()
    working = getattr(state, "working_melds", None)
    if working is None or state.status != "playing":
        return view
    seat = state.current
    now = capture(state, seat, working=True)
    if start is None:
        start = _start_of(state).position
    _, highlight = summarize(start, now, state.deck)
    melds = [dataclasses.replace(m, changed=list(highlight.get(m.number, ()))) for m in working()]
    seats = [  # the mover's count as on the working table
        dataclasses.replace(v, pieces=len(now.rack)) if v.seat == seat else v for v in view.seats
    ]
    return dataclasses.replace(view, melds=melds, seats=seats)


def view_for(live: Any, seat: int | None, tracker: TurnTracker) -> Any:
    """The table as ``seat`` may see it now: the player to move sees the working table of their
    turn (:func:`working_view`), everybody else the public view marking the last turn's pieces
    (or a card game's turn under way). None when the game has no state."""
    state = live.state
    if state is None:
        return None
    if state.status == "playing" and seat is not None and seat == state.current:
        return working_view(state, tracker.start(live))
    return highlighted(state.public_view(), tracker.shown(live))


def rack_order(pieces: Sequence[str], family: str = "tile") -> list[str]:
    """Pieces in the order the rack picture shows them (its default sorting: by colour or suit,
    then value, jokers last)."""
    kind = "card" if family == "card" else "tile"
    return sorted(pieces, key=lambda p: sort_key(parse_face(p, kind)))


# ---------------------------------------------------------------------- the tracker


class TurnTracker:
    """Each live game's turn under way (its start and public events) and its last finished turn.

    The command pipeline calls :meth:`before` before it applies a message and :meth:`after`
    once the message is committed; ``after`` returns the :class:`TurnMoves` of a turn that has
    just passed (or ended the game)."""

    def __init__(self) -> None:
        self._starts: dict[str, _Start] = {}
        self._last: dict[str, TurnMoves] = {}

    def before(self, live: Any) -> None:
        """Remember the start of the turn under way (once per turn)."""
        state = live.state
        if state is None or state.status != "playing":
            return
        key = turn_key(state)
        known = self._starts.get(live.id)
        if known is not None and known.key == key:
            return
        if _fresh(state):
            self._starts[live.id] = _Start(key, capture(state, state.current))
        else:
            self._starts[live.id] = _start_of(state)

    def start(self, live: Any) -> Position | None:
        """The position at the start of the turn under way (None when not known)."""
        known = self._starts.get(live.id)
        return known.position if known is not None else None

    def after(self, live: Any, events: Sequence[Any]) -> TurnMoves | None:
        """Take note of a committed message's events; the moves of the turn when it has passed."""
        state = live.state
        known = self._starts.get(live.id)
        if known is None or state is None:
            return None
        for event in events:
            if getattr(event, "private", False):
                continue
            known.kinds.append(event.kind)
            if event.kind == "pick" and event.seat == known.position.seat and event.pieces:
                known.picks.extend(event.pieces)
        if state.status == "playing" and turn_key(state) == known.key:
            return None
        del self._starts[live.id]
        moves = self._moves(live, known)
        self._last[live.id] = moves
        if state.status != "playing":
            self._last.pop(live.id, None)
        return moves

    def so_far(self, live: Any) -> TurnMoves | None:
        """The turn under way as far as the mover has got (a tile game's working table)."""
        known = self._starts.get(live.id)
        if known is None or live.state is None or live.state.status != "playing":
            return None
        return self._moves(live, known, working=True)

    def shown(self, live: Any) -> TurnMoves | None:
        """What the public picture of a running game highlights between turns: a card game's
        turn under way (its table plays lie on the table), else the last finished turn."""
        state = live.state
        if state is not None and state.status == "playing" and not hasattr(state.turn, "table"):
            return self.so_far(live)
        return self.last(live.id)

    def last(self, game_id: str) -> TurnMoves | None:
        """The last finished turn of a running game (None before the first one)."""
        return self._last.get(game_id)

    def forget(self, game_id: str) -> None:
        self._starts.pop(game_id, None)
        self._last.pop(game_id, None)

    @staticmethod
    def _moves(live: Any, known: _Start, *, working: bool = False) -> TurnMoves:
        state = live.state
        seat = known.position.seat
        end = capture(state, seat, working=working)
        actions, highlight = summarize(
            known.position,
            end,
            state.deck,
            picks=known.picks,
            hidden_picks=known.hidden_picks,
            kinds=known.kinds,
        )
        family = "tile" if hasattr(state.turn, "table") else "card"
        name = live.seats[seat].name if seat < len(live.seats) else state.players[seat]
        return TurnMoves(
            game_id=live.id,
            seat=seat,
            name=name,
            family=family,
            turn_no=known.key[1],
            actions=actions,
            left=len(end.rack),
            highlight=highlight,
        )
