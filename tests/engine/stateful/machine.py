"""Hypothesis state machines over the whole command language, one per preset (issue 13).

Each machine deals a game with :func:`engine.game.new_game` and sends *plausible* commands built
from the current state: valid melds from the rack, adds, moves, splits and joins of real table
pieces, swaps and takes that may or may not be legal, claims, ``place``, the ``hint`` typed
back, ``undo`` after every kind of change, ``reset``, ``done``, draws, picks, discards and
knocks, one at a time or several in one message. After every step it checks, with the
independent reading of :mod:`.oracle`:

- every piece exactly once (pool, discards, racks, working table), the preset's multiset;
- a rejected message leaves ``to_json()`` byte-identical; any other exception fails;
- ``undo`` right after an accepted command restores the JSON from before it (also ``X; undo``
  in one message);
- after a turn ends: every meld valid with its jokers read by position, and the preset's rules
  (draws, opening, table pieces staying on the table, Rummikub joker melds unsplit and freed
  jokers in new melds with rack tiles, claims changed only by their owner, the final discard
  of Rommé, scores);
- moves the rules allow are accepted (a hint typed back, a valid opening, the claim of a group
  of four formed on the table, Stein's last discard from the table);
- the game replays from (rules, seed, command log) to the same JSON.

``STATS`` counts steps (rules executed) per machine name; the fuzz run prints it.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from engine.ai import choose_move
from engine.autoplay import candidate_melds
from engine.cardplan import candidate_card_melds
from engine.commands import parse_commands
from engine.errors import RummyError
from engine.game import load_game, new_game
from engine.pieces import format_faces
from i18n import error_text, event_text

from .oracle import (
    JOKER,
    View,
    Violation,
    check_conservation,
    expected_deck,
    face_of,
    fail,
    meld_value,
    read_meld,
)

STATS: Counter = Counter()  # "<machine>:steps", "<machine>:accepted", ...

# Checks named here (comma-separated env var) are skipped - only for exploring past a known,
# reported defect by hand; CI and `make fuzz` run every check.
SKIP = {s.strip() for s in os.environ.get("STATEFUL_SKIP", "").split(",") if s.strip()}

UNDOABLE = {"meld", "add", "move", "split", "join", "swap", "take", "claim", "unclaim", "place"}
CARD_UNDOABLE = {"meld", "add", "swap"}
SEPARATORS = ["; ", ";", " ; ", "\n", " \n "]


def check(name: str, ok: bool, what: str) -> None:
    if not ok and name not in SKIP:
        fail(f"[{name}] {what}")


def _strip_event(text: str) -> str:
    """Card JSON without ``last_event`` (the public line of the latest event)."""
    data = json.loads(text)
    data.pop("last_event", None)
    return json.dumps(data, sort_keys=True)


class GameMachine(RuleBasedStateMachine):
    """The shared part; :func:`machine_for` makes one class per preset / option set."""

    NAME = "base"
    RULES = None
    PLAYERS = 3

    def __init__(self) -> None:
        super().__init__()
        self.game = None

    # ------------------------------------------------------------------ set-up

    @initialize(seed=st.integers(0, 2**20))
    def deal(self, seed: int) -> None:
        self._deal(seed)

    def _deal(self, seed: int) -> None:
        rules = self.RULES
        self.players = [f"P{k}" for k in range(self.PLAYERS)]
        self.seed = seed
        self.game = new_game(rules, self.players, seed)
        self.game_steps = 0
        self.initial: str | None = None
        self.tile = rules.family == "tile"
        self.log: list[tuple[int, str]] = []
        self.size = len(self.game.deck)
        self.universe = expected_deck(rules, self.PLAYERS)
        check(
            "deck",
            sum(self.universe.values()) == self.size,
            f"{rules.preset} has {self.size} pieces; RULES.md gives {sum(self.universe.values())}",
        )
        faces = Counter(face_of(self.game.deck, i) for i in range(self.size))
        check("deck", faces == self.universe, f"{rules.preset}: the deck differs from RULES.md")
        self.view = check_conservation(self.game, self.size)
        self._new_turn()
        self.ever_played = [False] * self.PLAYERS
        self.played_before = False

    def _new_turn(self) -> None:
        self.start = self.view
        self.undo_stack: list[str] = []  # JSON before each undoable command, when known
        self.effective: list[str] = []  # undoable verbs of this turn, as undo/reset leave them
        self.turn_texts: list[str] = []
        self.picked_id: int | None = None  # the card the mover took from the discard pile
        self.ended_by_discard = False

    def _step(self) -> None:
        STATS[f"{self.NAME}:steps"] += 1
        self.game_steps += 1

    def _ready(self, data) -> None:
        """Stein: usually make the turn's draws first (a pool draw, sometimes a pick), so
        that the command that follows is judged on its own (now and then it is sent before
        the draws, to be refused)."""
        g = self.game
        if not (self.tile and g.is_stein) or g.draws_complete() or not data.draw(st.integers(0, 5)):
            return
        while self.playing and not g.draws_complete():
            if g.discards and g.turn.picked == 0 and data.draw(st.integers(0, 3)) == 0:
                text = f"pick {g.deck[g.discards[-1]]}"
            else:
                text = "draw"
            if self.send(g.current, text) is None:
                return

    @property
    def playing(self) -> bool:
        return self.game is not None and self.game.status == "playing"

    # ------------------------------------------------------------------ sending

    def send(self, seat: int, text: str, *, must: str | None = None):
        """Apply a message; check the invariants; return the events (None when rejected).
        ``must``: why the rules allow this message (then a rejection is a violation)."""
        g = self.game
        before = g.to_json()
        try:
            events = g.apply(seat, text)
        except RummyError as exc:
            after = g.to_json()
            check("atomic", after == before, f"rejected {text!r} ({exc.code}) changed the state")
            if must is not None:
                check(
                    "legal_accepted",
                    False,
                    f"{must}: {text!r} by seat {seat} was refused: {error_text(exc)}",
                )
            STATS[f"{self.NAME}:rejected"] += 1
            STATS[
                f"{self.NAME}:no:{text.split(None, 1)[0] if text.strip() else ''}:{exc.code}"
            ] += 1
            return None
        STATS[f"{self.NAME}:accepted"] += 1
        self.log.append((seat, text))
        if text == "hint":
            check("hint_private", g.to_json() == before, "an accepted hint changed the state")
            return events
        before_view = self.view
        self.view = check_conservation(g, self.size)
        commands = parse_commands(self._plain(text), self.RULES.family)
        for c in commands:
            STATS[f"{self.NAME}:ok:{c.verb}"] += 1
        self._command_checks(seat, commands, before_view, self.view, before)
        self._track_undo(commands, before)
        verbs = [c.verb for c in commands]
        if not self.tile and seat == before_view.current and "pick" in verbs:
            top = before_view.data["discards"][-1]
            if top not in self.view.data["discards"]:
                self.picked_id = top
        self.ended_by_discard = "discard" in verbs
        turn_over = (
            self.view.data["turn_no"] != before_view.data["turn_no"]
            or self.view.status != before_view.status
        )
        if turn_over and seat == before_view.current:
            STATS[f"{self.NAME}:turns"] += 1
            self.turn_texts.append(text)
            self._turn_end_checks(self.start, self.view, before_view.current)
            self._new_turn()
        elif turn_over:  # the turn ended without the mover (a card knock / announcement)
            self._new_turn()
        elif seat == before_view.current:
            self.turn_texts.append(text)
        if self.view.status != "playing":
            STATS[f"{self.NAME}:games_finished"] += 1
            self._replay_check()
        if must is not None:
            STATS[f"{self.NAME}:legal_accepted"] += 1
        return events

    def _plain(self, text: str) -> str:
        return text.replace("*=", "* ").replace("JK=", "JK ") if not self.tile else text

    def _track_undo(self, commands, before: str) -> None:
        """Follow the engine's undo history: each undoable command pushes the state before it
        (known only for a one-command message), undo pops, reset and draws clear it."""
        undoable = UNDOABLE if self.tile else CARD_UNDOABLE
        stack: list[str | None] = list(self.undo_stack)
        for c in commands:
            if c.verb in undoable:
                stack.append(before if len(commands) == 1 else None)
                self.effective.append(c.verb)
            elif c.verb == "undo":
                if stack:
                    stack.pop()
                if self.effective:
                    self.effective.pop()
            elif c.verb == "reset":
                stack, self.effective = [], []
            elif c.verb in ("draw", "pick"):
                stack = []
        self.undo_stack = stack

    def teardown(self) -> None:
        if self.game is not None and self.log and self.playing:
            self._replay_check()

    def _replay_check(self) -> None:
        """Replaying (rules, seed, log) gives the same JSON; the JSON round-trips. The log
        holds what was accepted; ``!timeout`` is the preset's time-out action (as the
        service logs it, bot/service/replay.py)."""
        text = self.game.to_json()
        check("roundtrip", load_game(text).to_json() == text, "load_game(to_json()) differs")
        if self.initial is not None:  # a position: replay from its first JSON
            replay = load_game(self.initial)
        else:
            replay = new_game(self.RULES, self.players, self.seed)
        for k, (seat, cmd) in enumerate(self.log):
            try:
                if cmd == "!timeout":
                    replay.timeout()
                elif cmd == "hint":
                    continue  # a hint changes nothing (checked when it was sent)
                else:
                    replay.apply(seat, cmd)
            except RummyError as exc:
                check("replay", False, f"replay: logged command {k} {cmd!r} refused: {exc.code}")
                return
        check("replay", replay.to_json() == text, "replaying the command log gives another JSON")

    # ------------------------------------------------------------------ per-command oracles

    def _command_checks(self, seat, commands, b: View, a: View, before_json: str) -> None:
        if not self.tile:
            self._card_command_checks(seat, commands, b, a)
            return
        if len(commands) != 1 or b.current != seat:
            self._claim_step_check(seat, b, a, commands)
            return
        c = commands[0]
        deck = self.game.deck
        mode, max_run = self.RULES.run_mode, self.RULES.max_run
        if c.verb == "swap" and a.status == "playing":
            meld = b.working_table()[c.meld - 1]
            faces = [face_of(deck, i) for i in meld]
            reads = read_meld(faces, mode, max_run)
            allowed = set()
            for r in reads:
                if r.kind == "run":
                    allowed |= {r.stands[k] for k, f in enumerate(faces) if f[0] == JOKER}
                else:
                    allowed |= {(s, r.rank) for s in r.missing}
            named = {(f.suit, f.rank) for f in c.pieces}
            check(
                "swap_meaning",
                bool(reads) and named <= allowed,
                f"`{c}` accepted on {deck.show(meld)}: by position its joker stands for "
                f"{sorted(allowed)} (suit, value), not {sorted(named)}",
            )
            group_only = bool(reads) and all(r.kind == "group" for r in reads)
            if self.RULES.group_joker_needs_fourth and group_only:
                old = {i for i in meld if not deck[i].is_joker}
                after = next((x for x in a.working_table() if old <= set(x)), [])
                real = [i for i in after if not deck[i].is_joker]
                check(
                    "group_fourth",
                    len(real) == 4 and len(after) == 4,
                    f"`{c}` freed a group joker without completing four real tiles",
                )
        if c.verb == "claim":
            claimed = [ids for owner, ids in a.claims(True) if owner == seat]
            new = [ids for ids in claimed if (seat, ids) not in b.claims(True)]
            for ids in new:
                faces = [face_of(deck, i) for i in ids]
                reads = read_meld(faces, mode, max_run)
                check(
                    "claim_group4",
                    len(ids) == 4 and any(r.kind == "group" for r in reads),
                    f"`{c}` claimed {deck.show(ids)}, not a group of exactly four",
                )
        self._claim_step_check(seat, b, a, commands)

    def _claim_step_check(self, seat, b: View, a: View, commands) -> None:
        """No command but ``unclaim`` by its owner ends a claim; nobody but the owner changes
        one (compare the working tables before and after)."""
        if not self.RULES.claims or a.status != "playing" or b.status != "playing":
            return
        if a.current != b.current:
            return  # the turn ended: checked against the committed tables
        verbs = {c.verb for c in commands}
        after = a.claims(True)
        for owner, ids in b.claims(True):
            if owner is None:
                continue
            if owner != seat:
                check(
                    "claim_others",
                    (owner, ids) in after
                    or sorted(ids) in [sorted(x) for o, x in after if o == owner],
                    f"{commands} by seat {seat} changed seat {owner}'s claim "
                    f"{self.game.deck.show(ids)}",
                )
            elif not verbs & {"unclaim", "undo", "reset"}:
                check(
                    "claim_kept",
                    any(o == owner and set(x) & set(ids) for o, x in after),
                    f"`{'; '.join(map(str, commands))}` ended seat {owner}'s claim "
                    f"{self.game.deck.show(ids)} (only unclaim may)",
                )

    def _card_command_checks(self, seat, commands, b: View, a: View) -> None:
        if len(commands) != 1 or commands[0].verb != "swap" or a.status != "playing":
            return
        c = commands[0]
        deck = self.game.deck
        meld = b.committed_table()[c.meld - 1]
        faces = [face_of(deck, i) for i in meld]
        reads = read_meld(faces, self._card_mode(), 13)
        allowed = set()
        declared = {int(k): v for k, v in b.data["table"][c.meld - 1][3].items()}
        for r in reads:
            if r.kind == "run":
                allowed |= {r.stands[k] for k, f in enumerate(faces) if f[0] == JOKER}
            elif declared:
                allowed |= {(x.suit, x.rank) for x in (self._card(v) for v in declared.values())}
            else:
                allowed |= {(s, r.rank) for s in r.missing}
        named = {(f.suit, f.rank) for f in c.pieces}
        check(
            "swap_meaning",
            bool(reads) and named <= allowed,
            f"`{c}` accepted on {deck.show(meld)}: its joker stands for {sorted(allowed)}",
        )

    def _card(self, text: str):
        from engine.pieces import Card

        return Card.parse(text)

    def _card_mode(self) -> str:
        return self.RULES.run_mode

    # ------------------------------------------------------------------ turn-end oracles

    def _turn_end_checks(self, s: View, e: View, m: int) -> None:
        if self.tile:
            self._tile_turn_end(s, e, m)
        else:
            self._card_turn_end(s, e, m)
        if e.status != "playing":
            self._score_checks(s, e, m)

    def _melds_valid(self, e: View, mode: str, max_run: int) -> None:
        deck = self.game.deck
        for no, ids in enumerate(e.committed_table(), 1):
            faces = [face_of(deck, i) for i in ids]
            check(
                "melds_valid",
                bool(read_meld(faces, mode, max_run)),
                f"after the turn meld {no} ({deck.show(ids)}) is not a valid meld read by position",
            )

    def _tile_turn_end(self, s: View, e: View, m: int) -> None:
        rules, deck = self.RULES, self.game.deck
        mode, max_run = rules.run_mode, rules.max_run
        self._melds_valid(e, mode, max_run)
        texts = " | ".join(self.turn_texts)
        s_table, e_table = s.committed_table(), e.committed_table()
        t_s = {i for ids in s_table for i in ids}
        t_e = {i for ids in e_table for i in ids}
        r_s, r_e = set(s.data["racks"][m]), set(e.data["racks"][m])
        pool_s, pool_e = set(s.data["pool"]), set(e.data["pool"])
        disc_s, disc_e = s.data["discards"], e.data["discards"]
        from_pool = pool_s - pool_e
        if self.ended_by_discard and disc_e:
            picked = set(disc_s) - set(disc_e[:-1])
            discarded = {disc_e[-1]}
        else:
            picked = set(disc_s) - set(disc_e)
            discarded = set()
        played = t_e - t_s
        from_table = t_s - t_e
        out = e.status != "playing" and not r_e
        # claims at the end: groups of exactly four; others' claims untouched
        for owner, ids in e.claims():
            if owner is None:
                continue
            faces = [face_of(deck, i) for i in ids]
            check(
                "claim_group4",
                len(ids) == 4 and any(r.kind == "group" for r in read_meld(faces, mode, max_run)),
                f"claim {deck.show(ids)} of seat {owner} is not a group of four after {texts!r}",
            )
        for owner, ids in s.claims():
            if owner is None:
                continue
            still = [x for o, x in e.claims() if o == owner]
            if owner != m:
                check(
                    "claim_others",
                    sorted(ids) in [sorted(x) for x in still],
                    f"seat {m}'s turn {texts!r} changed seat {owner}'s claim {deck.show(ids)}",
                )
            else:
                check(
                    "claim_kept",
                    "unclaim" in self.effective or any(set(x) & set(ids) for x in still),
                    f"seat {m}'s claim {deck.show(ids)} vanished without unclaim: {texts!r}",
                )
        for owner, ids in e.claims():
            if owner is not None and owner != m:
                check(
                    "claim_others",
                    (owner, ids) in s.claims() or sorted(ids) in [sorted(x) for o, x in s.claims()],
                    f"a claim of seat {owner} appeared in seat {m}'s turn {texts!r}",
                )
        check(
            "played_from_rack",
            played <= r_s | from_pool | picked,
            f"pieces {deck.show(sorted(played - r_s - from_pool - picked))} reached the table "
            f"from nowhere in {texts!r}",
        )
        if rules.game == "stein":
            need = min(rules.draws_per_turn, len(pool_s) + min(1, len(disc_s)))
            check(
                "draws",
                len(from_pool) + len(picked) == need and len(picked) <= 1,
                f"Stein turn drew {len(from_pool)} from the pool and {len(picked)} from the "
                f"discards (need {need}, at most one discard): {texts!r}",
            )
            check(
                "one_discard",
                len(discarded) == 1 or (out and len(discarded) == 0),
                f"Stein turn ended with {len(discarded)} discards: {texts!r}",
            )
            # a joker freed to the hand, or a tile taken with a joker, may be discarded
            from_hand = ("swap" in self.effective and all(deck[i].is_joker for i in discarded)) or (
                "take" in self.effective and not discarded & t_e
            )
            if (discarded & t_s or discarded & played) and not from_hand:
                check("table_discard_out", out, f"a table tile was discarded, not out: {texts!r}")
            taken = [i for i in from_table if not deck[i].is_joker and i not in discarded]
            takes = self.effective.count("take")
            check(
                "table_stays",
                len(taken) <= takes,
                f"{deck.show(taken)} went from the table to the hand with {takes} take(s): "
                f"{texts!r}",
            )
        else:
            check("rummikub_no_discard", not discarded and not picked, f"{texts!r}")
            check(
                "table_stays",
                not from_table,
                f"{deck.show(sorted(from_table))} left the table (Rummikub: nothing goes back to "
                f"a rack): {texts!r}",
            )
            if from_pool:
                check(
                    "draw_ends",
                    len(from_pool) == 1 and not played and s_table == e_table,
                    f"a Rummikub draw with a changed table or several tiles: {texts!r}",
                )
            elif pool_s and not out:
                check(
                    "play_one",
                    bool(played & r_s),
                    f"Rummikub turn ended without drawing or playing a rack tile: {texts!r}",
                )
            self._rummikub_jokers(s_table, e_table, played, texts)
        if not s.data["opened"][m] and played:
            self._opening(s_table, e_table, played, from_table, texts, m, e)

    def _opening(self, s_table, e_table, played, from_table, texts, m, e: View) -> None:
        rules, deck = self.RULES, self.game.deck
        e_sets = [sorted(x) for x in e_table]
        check(
            "opening_untouched",
            all(sorted(x) in e_sets for x in s_table) and not from_table,
            f"seat {m} touched the table in the opening turn: {texts!r}",
        )
        own = [x for x in e_table if x and set(x) <= played]
        check(
            "opening_own_melds",
            all(any(i in x for x in own) for i in played) or not s_table,
            f"opening turn added to table melds: {texts!r}",
        )
        if rules.opening_minimum:
            total = 0
            for x in own:
                reads = read_meld([face_of(deck, i) for i in x], rules.run_mode, rules.max_run)
                total += meld_value(reads[0], "face") if reads else 0
            check(
                "opening_minimum",
                total >= rules.opening_minimum,
                f"opening worth {total} < {rules.opening_minimum}: {texts!r}",
            )
        else:
            check("opening_meld", bool(own), f"opening without a meld of own tiles: {texts!r}")
        check("opened_flag", e.data["opened"][m], f"seat {m} laid tiles but is not opened")

    def _rummikub_jokers(self, s_table, e_table, played, texts) -> None:
        """RULES.md, Rummikub jokers: a table joker stays where it stands (its meld unsplit
        with ``joker_meld_no_split``) unless the tile it stands for, from the rack, takes its
        place; a freed joker goes into a new meld together with tiles from the rack. Jokers
        are interchangeable, so meanings are matched as multisets, not by piece id."""
        rules, deck = self.RULES, self.game.deck
        mode, max_run = rules.run_mode, rules.max_run

        def read(ids):
            return read_meld([face_of(deck, i) for i in ids], mode, max_run)

        accounted: set[int] = set()
        used: set[int] = set()  # rack tiles counted as freeing a joker
        freed = 0
        start_jokers = {i for x in s_table for i in x if deck[i].is_joker}
        for meld in s_table:
            jokers = [k for k, i in enumerate(meld) if deck[i].is_joker]
            reads = read(meld)
            if not jokers or not reads:
                continue
            real = {i for i in meld if not deck[i].is_joker}
            near = [x for x in e_table if real & set(x)]  # where its tiles are now
            homes = [x for x in near if real <= set(x)] if rules.joker_meld_no_split else near
            if len(reads) > 1:  # one real tile and jokers: run or group, no fixed meaning
                for x in homes:
                    accounted |= {i for i in x if deck[i].is_joker}
                continue
            for k in jokers:
                if reads[0].kind == "run":
                    meaning = reads[0].stands[k]

                    def fits(face, meaning=meaning):
                        return face == meaning
                else:
                    rank, missing = reads[0].rank, reads[0].missing

                    def fits(face, rank=rank, missing=missing):
                        return face[1] == rank and face[0] in missing

                stay = None
                for x in homes:
                    for r in read(x):
                        for p, i in enumerate(x):
                            if deck[i].is_joker and i not in accounted:
                                ok = (
                                    fits(r.stands[p])
                                    if r.kind == "run"
                                    else r.rank == reads[0].rank
                                )
                                if ok:
                                    stay = i
                                    break
                        if stay is not None:
                            break
                    if stay is not None:
                        break
                if stay is not None:
                    accounted.add(stay)
                    continue
                # freed by the tile it stands for, from the rack; the meld holds no joker then,
                # so it (and that tile) may be rearranged afterwards
                by_tile = next(
                    (
                        i
                        for x in e_table
                        for i in x
                        if i in played
                        and i not in used
                        and not deck[i].is_joker
                        and fits(face_of(deck, i))
                    ),
                    None,
                )
                if by_tile is not None:
                    used.add(by_tile)
                    freed += 1
                    continue
                what = "split" if rules.joker_meld_no_split and not homes else "changed"
                check(
                    "joker_meld_unsplit" if what == "split" else "joker_fixed",
                    False,
                    f"the joker meld {deck.show(meld)} was {what} though its joker was not "
                    f"freed by the tile it stands for: {texts!r} (now "
                    f"{' | '.join(deck.show(x) for x in near)})",
                )
        stays = len(accounted)
        check(
            "freed_joker_new_meld",
            len(start_jokers) - stays <= freed,
            f"{len(start_jokers) - stays} table jokers left their places but {freed} were freed "
            f"by their tile: {texts!r}",
        )
        old_reals = [{i for i in x if not deck[i].is_joker} for x in s_table]
        loose = [i for x in e_table for i in x if deck[i].is_joker and i not in accounted]
        new_home = [
            j
            for j in loose
            if (home := next(x for x in e_table if j in x))
            and any(i in played and not deck[i].is_joker for i in home)
            and not any(r and r <= set(home) for r in old_reals)
        ]
        check(
            "freed_joker_new_meld",
            len(new_home) >= len(start_jokers) - stays,
            f"{len(start_jokers) - stays} jokers were freed but only {len(new_home)} jokers lie "
            f"in new melds with rack tiles: {texts!r}",
        )

    def _card_turn_end(self, s: View, e: View, m: int) -> None:
        rules, deck = self.RULES, self.game.deck
        self._melds_valid(e, self._card_mode(), 13)
        texts = " | ".join(self.turn_texts)
        s_table, e_table = s.committed_table(), e.committed_table()
        check(
            "melds_stay",
            len(e_table) >= len(s_table)
            and all(
                {i for i in x if not deck[i].is_joker} <= set(y)
                for x, y in zip(s_table, e_table, strict=False)
            ),
            f"table melds lost cards or moved in {texts!r}",
        )
        t_s = {i for x in s_table for i in x}
        t_e = {i for x in e_table for i in x}
        left = t_s - t_e
        check(
            "table_stays",
            all(deck[i].is_joker for i in left),
            f"{deck.show(sorted(left))} left the table in {texts!r}",
        )
        picked = self.picked_id
        if picked is not None and e.data["discards"] and self.ended_by_discard:
            check(
                "discard_picked",
                e.data["discards"][-1] != picked,
                f"the card taken from the discard pile was discarded again: {texts!r}",
            )
        out = e.status != "playing" and e.data["result"]["winner"] == m
        reason = e.data["result"]["reason"] if e.status != "playing" else None
        verbs = [c.verb for t in self.turn_texts for c in parse_commands(self._plain(t), "card")]
        if out and reason == "out" and rules.game == "romme":
            check(
                "romme_final_discard",
                rules.variant_end_without_discard or "discard" in verbs,
                f"Rommé: seat {m} went out without the final discard (variant g off): {texts!r}",
            )
        new = e_table[len(s_table) :]
        self.played_before = self.ever_played[m]
        if new or t_e - t_s:
            self.ever_played[m] = True
        if rules.game == "romme" and not s.data["opened"][m] and not out and new:
            total = 0
            for x in new:
                reads = read_meld([face_of(deck, i) for i in x], self._card_mode(), 13)
                total += meld_value(reads[0], "romme") if reads else 0
            check(
                "opening_minimum",
                total >= rules.opening_minimum,
                f"Rommé opening worth {total} < {rules.opening_minimum}: {texts!r}",
            )
            check(
                "opening_untouched",
                all(sorted(x) == sorted(y) for x, y in zip(s_table, e_table, strict=False)),
                f"Rommé: lay-off or swap before opening (not a Hand-Rommé): {texts!r}",
            )

    # ------------------------------------------------------------------ scores

    def _score_checks(self, s: View, e: View, m: int) -> None:
        result = e.data["result"]
        rules, deck = self.RULES, self.game.deck
        n = self.PLAYERS
        points = result["points"]
        winner = result["winner"]
        if result["reason"] != "out" or winner is None:
            return
        racks = [list(r) for r in e.data["racks"]]
        if rules.family == "card":
            for seat, k in enumerate(e.data["knocks"]):
                if k:
                    racks[seat] += k["hidden"]
        check("winner_empty", not racks[winner], f"the winner holds {deck.show(racks[winner])}")
        if rules.game == "stein":
            if s.data["round_no"] == 0:
                return  # first_round_out rules
            left = [len(r) for r in racks]
            base = [4, 3, 2, 1][:n] if rules.claims else list(range(n, 0, -1))
            want = _shared_places(left, winner, base)
            if rules.claims:
                claims = [sum(1 for o, _ in e.claims() if o == seat) for seat in range(n)]
                want = [w + c for w, c in zip(want, claims, strict=True)]
            check("score", _close(points, want), f"{rules.preset} points {points}, want {want}")
        elif rules.game == "rummikub":
            values = [
                sum(rules.joker_penalty if deck[i].is_joker else deck[i].rank for i in r)
                for r in racks
            ]
            want = [-v for v in values]
            want[winner] = sum(values)
            check("score", _close(points, want), f"Rummikub points {points}, want {want}")
        elif rules.game == "romme":
            special = not s.data["opened"][m]
            if special and rules.variant_joker_double:
                return  # both doublings: not pinned down
            want = []
            for seat, r in enumerate(racks):
                p = sum(_romme_penalty(deck[i]) for i in r)
                if rules.variant_joker_double and any(deck[i].is_joker for i in r):
                    p *= 2
                if special and rules.hand_romme_double:
                    p *= 2
                want.append(0 if seat == winner or seat == e.data["announcer"] else p)
            check("score", _close(points, want), f"Rommé penalties {points}, want {want}")
        else:
            values = [sum(min(deck[i].rank, 10) for i in r) for r in racks]
            total = sum(values)
            rummy = not self.played_before and rules.rummy_bonus_double
            want = [0] * n
            want[winner] = 2 * total if rummy else total
            check("score", _close(points, want), f"Rummy points {points}, want {want}")

    # ------------------------------------------------------------------ generic rules

    def _rack_faces(self, seat: int | None = None) -> list[str]:
        g = self.game
        seat = g.current if seat is None else seat
        return [str(f) for f in g.rack(seat)]

    def _table(self) -> list[list[int]]:
        g = self.game
        return [list(m.ids) for m in (g.turn.table if self.tile else g.table)]

    @precondition(lambda self: not self.playing)
    @rule(seed=st.integers(0, 2**20))
    def next_game(self, seed: int) -> None:
        """A finished game is replayed (in send); then a new one is dealt."""
        self._step()
        self._deal(seed)

    @precondition(lambda self: self.playing)
    @rule()
    def draw(self) -> None:
        self._step()
        self.send(self.game.current, "draw")

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def pick(self, data) -> None:
        self._step()
        g = self.game
        options = ["pick"] + [f"pick {g.deck[i]}" for i in g.discards[-6:]]
        self.send(g.current, data.draw(st.sampled_from(options)))

    def _send_built(self, data, build) -> None:
        """One rule's step: draws first where the turn needs them, then the command ``build``
        makes from the current state, sent by the seat to move (nothing when it finds none)."""
        self._step()
        self._ready(data)
        text = build(data)
        if text:
            self.send(self.game.current, text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def meld(self, data) -> None:
        self._send_built(data, self._meld_text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def add(self, data) -> None:
        self._send_built(data, self._add_text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def swap(self, data) -> None:
        self._send_built(data, self._swap_text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def discard(self, data) -> None:
        self._step()
        self._ready(data)
        rack = self._rack_faces()
        if rack:
            self.send(self.game.current, f"discard {data.draw(st.sampled_from(rack))}")

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def done(self, data) -> None:
        self._step()
        self._ready(data)
        self.send(self.game.current, "done")

    @precondition(lambda self: self.playing)
    @rule()
    def reset(self) -> None:
        self._step()
        self.send(self.game.current, "reset")

    @precondition(lambda self: self.playing)
    @rule()
    def undo(self) -> None:
        """``undo`` right after an accepted command restores the JSON from before it."""
        self._step()
        expected = self.undo_stack[-1] if self.undo_stack else None
        events = self.send(
            self.game.current,
            "undo",
            must="undo right after an accepted command" if expected else None,
        )
        if events is not None and expected is not None:
            STATS[f"{self.NAME}:undo_checked"] += 1
            self._same_state(expected, "undo")

    def _same_state(self, expected: str, what: str) -> None:
        now = self.game.to_json()
        if not self.tile:
            now, expected = _strip_event(now), _strip_event(expected)
        check(
            "undo_restores", now == expected, f"{what} did not restore the state: {self.log[-3:]}"
        )

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def change_then_undo(self, data) -> None:
        """``X; undo`` in one message leaves the state as it was (defect 1's shape)."""
        self._step()
        self._ready(data)
        text = self._change_text(data)
        if not text:
            return
        before = self.game.to_json()
        sep = data.draw(st.sampled_from(SEPARATORS))
        if self.send(self.game.current, f"{text}{sep}undo") is not None:
            STATS[f"{self.NAME}:undo_checked"] += 1
            self._same_state(before, f"{text!r} then undo")

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def two_in_one(self, data) -> None:
        """Two or three plausible commands in one message, with any separator."""
        self._step()
        self._ready(data)
        parts = [self._change_text(data) or "hint" for _ in range(data.draw(st.integers(2, 3)))]
        if data.draw(st.booleans()):
            parts.append(data.draw(st.sampled_from(["done", "undo", "reset", "draw"])))
        sep = data.draw(st.sampled_from(SEPARATORS))
        self.send(self.game.current, sep.join(parts))

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def not_my_turn(self, data) -> None:
        """A seat not to move: rejected unchanged (or a hint / a knock where allowed)."""
        self._step()
        g = self.game
        seat = (g.current + data.draw(st.integers(1, self.PLAYERS - 1))) % self.PLAYERS
        text = data.draw(st.sampled_from(["draw", "done", "knock", "hint", "reset"]))
        self.send(seat, text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def advance(self, data) -> None:
        """A legal move of the easy computer player (moves the game on; it must be accepted)."""
        self._step()
        g = self.game
        import random

        rng = random.Random(data.draw(st.integers(0, 1000)))
        try:
            text = choose_move(g, g.current, "easy", rng)
        except RummyError:
            return
        self.send(g.current, text, must="the easy computer player's move")

    @precondition(lambda self: self.playing and self.game_steps % 4 == 3)
    @rule()
    def timeout(self) -> None:
        """The turn time ran out: the preset's time-out action (RULES.md)."""
        self._step()
        g = self.game
        m = g.current
        start = self.start
        g.timeout()
        self.log.append((None, "!timeout"))
        self.view = e = check_conservation(g, self.size)
        STATS[f"{self.NAME}:timeouts"] += 1
        if self.tile:
            deck = g.deck
            check(
                "timeout_table",
                e.committed_table() == start.committed_table(),
                "a time-out did not restore the table of the start of the turn",
            )
            r_s, r_e = start.data["racks"][m], e.data["racks"][m]
            if self.RULES.timeout_action == "penalty":
                got = set(r_e) - set(r_s)
                check(
                    "timeout_penalty",
                    set(r_s) <= set(r_e)
                    and len(got) == min(self.RULES.timeout_penalty_tiles, len(start.data["pool"]))
                    and got <= set(start.data["pool"]),
                    f"Rummikub time-out: rack {deck.show(r_s)} -> {deck.show(r_e)}",
                )
            elif self.RULES.timeout_action == "auto_discard":
                check(
                    "timeout_discard",
                    len(r_e) == len(r_s) + 1 or not start.data["pool"],
                    f"Stein time-out: rack {deck.show(r_s)} -> {deck.show(r_e)}",
                )
        if e.status != "playing":
            self._replay_check()
        self._new_turn()

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def advance_many(self, data) -> None:
        """Several whole turns of the easy computer player (reaches the end of games)."""
        self._step()
        import random

        rng = random.Random(data.draw(st.integers(0, 1000)))
        for _ in range(data.draw(st.integers(2, 8))):
            g = self.game
            if g.status != "playing":
                return
            try:
                text = choose_move(g, g.current, "easy", rng)
            except RummyError:
                return
            if self.send(g.current, text, must="the easy computer player's move") is None:
                return

    @precondition(lambda self: self.playing)
    @rule()
    def hint_typed_back(self) -> None:
        """Every hint, typed back exactly, is accepted."""
        self._step()
        g = self.game
        if not self.RULES.help_allowed:
            return
        events = self.send(g.current, "hint")
        check("hint_available", events is not None, f"{self.RULES.preset}: hint refused")
        if not events:
            return
        for ev in events:
            if ev.kind != "hint":
                continue
            suggestion = _suggestion(event_text(ev), self.RULES.family)
            STATS[f"{self.NAME}:hints"] += 1
            if suggestion:
                self.send(g.current, suggestion, must=f"hint {event_text(ev)!r}")
            break

    # ------------------------------------------------------------------ builders (both)

    def _meld_text(self, data) -> str | None:
        g = self.game
        hand = g.rack(g.current)
        if not hand:
            return None
        spec = self.RULES.meld_spec
        found = (
            candidate_melds(hand, spec)
            if self.tile
            else [list(m) for m in candidate_card_melds(hand, spec)[:60]]
        )
        if found and data.draw(st.integers(0, 4)):
            meld = data.draw(st.sampled_from(found))
            return f"meld {format_faces(meld)}"
        k = min(len(hand), data.draw(st.integers(3, 4)))
        idx = data.draw(
            st.lists(st.integers(0, len(hand) - 1), min_size=k, max_size=k, unique=True)
        )
        return f"meld {format_faces(hand[i] for i in idx)}" if len(idx) >= 3 else None

    def _add_text(self, data) -> str | None:
        g = self.game
        table = self._table()
        hand = g.rack(g.current)
        if not table or not hand:
            return None
        n = data.draw(st.integers(1, len(table)))
        meld = [g.deck[i] for i in table[n - 1]]
        real = [f for f in meld if not f.is_joker]
        near = [
            f for f in hand if f.is_joker or any(f.rank == r.rank or f.suit == r.suit for r in real)
        ]
        pool = near if near and data.draw(st.integers(0, 3)) else hand
        piece = data.draw(st.sampled_from(pool))
        return f"add {n} {piece}"

    def _swap_text(self, data) -> str | None:
        """``swap N X``: X the tile a joker stands for by position (legal), a near miss (the
        other end of the run, a neighbour, a present colour), or any rack piece."""
        g = self.game
        table = self._table()
        with_joker = [k for k, ids in enumerate(table, 1) if any(g.deck[i].is_joker for i in ids)]
        if not with_joker:
            return None
        n = data.draw(st.sampled_from(with_joker))
        hand = [f for f in g.rack(g.current) if not f.is_joker]
        meld = table[n - 1]
        faces = [face_of(g.deck, i) for i in meld]
        wanted: set = set()
        for r in read_meld(faces, self.RULES.run_mode, self.RULES.max_run):
            if r.kind == "run":
                for k, f in enumerate(faces):
                    if f[0] == JOKER:
                        suit, value = r.stands[k]
                        wanted |= {
                            (suit, value),
                            (suit, value % 13 + 1),
                            (suit, (value - 2) % 13 + 1),
                        }
                first, last = r.stands[0], r.stands[-1]
                wanted |= {(first[0], (first[1] - 2) % 13 + 1), (last[0], last[1] % 13 + 1)}
            else:
                wanted |= {(s_, r.rank) for s_ in range(4)}
        real = [g.deck[i] for i in meld if not g.deck[i].is_joker]
        near = [f for f in hand if (f.suit, f.rank) in wanted]
        loose = [f for f in hand if any(f.rank == x.rank or f.suit == x.suit for x in real)]
        options = near if near and data.draw(st.integers(0, 3)) else (loose or hand)
        if not options:
            return None
        pieces = [data.draw(st.sampled_from(options))]
        if self.tile and len(options) > 1 and data.draw(st.integers(0, 3)) == 0:
            pieces.append(data.draw(st.sampled_from(options)))
        return f"swap {n} {format_faces(pieces)}"

    def _change_text(self, data) -> str | None:
        builders = [self._meld_text, self._add_text, self._swap_text]
        if self.tile:
            builders += [self._move_text, self._split_text, self._join_text, self._take_text]
            builders += [self._place_text]
            if self.RULES.claims:
                builders += [self._claim_text]
        build = data.draw(st.sampled_from(builders))
        return build(data)

    # tile-only builders, defined in TileMachine


def _suggestion(text: str, family: str) -> str | None:
    """The command a hint suggests: the text after its last ': ', when it parses."""
    if ": " not in text:
        return None
    tail = text.rsplit(": ", 1)[1].strip().rstrip(".")
    try:
        parse_commands(tail, family)
    except RummyError:
        return None
    return tail


def _shared_places(left: list[int], winner: int, base: list[int]) -> list[float]:
    """Places by tiles left (the winner first), ties sharing the average of their points."""
    n = len(left)
    order = sorted(range(n), key=lambda s: (s != winner, left[s]))
    out = [0.0] * n
    k = 0
    while k < n:
        j = k
        key = (order[k] != winner, left[order[k]])
        while j + 1 < n and (order[j + 1] != winner, left[order[j + 1]]) == key:
            j += 1
        share = sum(base[k : j + 1]) / (j - k + 1)
        for x in range(k, j + 1):
            out[order[x]] = share
        k = j + 1
    return out


def _close(a, b) -> bool:
    return len(a) == len(b) and all(abs(x - y) < 1e-9 for x, y in zip(a, b, strict=True))


def _romme_penalty(face) -> int:
    if face.is_joker:
        return 20
    if face.rank == 1:
        return 11
    return 10 if face.rank >= 11 else face.rank


def _random_meld(data, rules) -> list[str]:
    """A valid meld (maybe with a joker) as tile names, from the test's own generator."""
    colours = "BRYK"
    if data.draw(st.booleans()):
        value = data.draw(st.integers(1, 13))
        cols = data.draw(st.permutations(colours))[: data.draw(st.integers(3, 4))]
        meld = [f"{c}{value}" for c in cols]
    else:
        length = data.draw(st.integers(3, 6))
        wrap = rules.run_mode == "wrap"
        start = data.draw(st.integers(1, 13 if wrap else 14 - length))
        colour = data.draw(st.sampled_from(colours))
        meld = [f"{colour}{(start - 1 + k) % 13 + 1}" for k in range(length)]
    if data.draw(st.integers(0, 2)) == 0:
        meld[data.draw(st.integers(0, len(meld) - 1))] = "J"
    return meld


class TileMachine(GameMachine):
    @precondition(lambda self: self.game is not None and self.game_steps >= 25)
    @rule(data=st.data())
    def deal_position(self, data) -> None:
        """A new game at a position near the rules' corners: table melds with jokers, the
        seat to move holding melds, tiles that fit and maybe a joker (wrap-around runs in
        Stein, groups of four for Stein Plus claims). It replays from its first JSON."""
        self._step()
        rules = self.RULES
        table = [_random_meld(data, rules) for _ in range(data.draw(st.integers(1, 4)))]
        mine = [t for _ in range(data.draw(st.integers(1, 2))) for t in _random_meld(data, rules)]
        on_table = [t for m in table for t in m if t != "J"]
        extra = data.draw(st.lists(st.sampled_from([*on_table, "R1", "B13", "Y7"]), max_size=3))
        if rules.jokers_per_player and data.draw(st.booleans()):
            extra.append("J")
        hands = [" ".join(mine + extra)]
        hands += [" ".join(_random_meld(data, rules)) for _ in range(self.PLAYERS - 1)]
        opened = [data.draw(st.booleans()) for _ in range(self.PLAYERS)]
        from engine.tiles import TileGame

        try:
            g = TileGame.position(
                rules,
                " | ".join(" ".join(m) for m in table),
                hands,
                opened=opened,
                draws_done=False,
                players=self.PLAYERS,
            )
        except RummyError:
            return  # more copies than the preset has
        if self.playing and self.log:
            self._replay_check()
        self.game = g
        self.game_steps = 0
        self.initial = g.to_json()
        self.players = list(g.players)
        self.log = []
        self.view = check_conservation(g, self.size)
        self.ever_played = [False] * self.PLAYERS
        self._new_turn()
        STATS[f"{self.NAME}:positions"] += 1

    def _move_text(self, data) -> str | None:
        g = self.game
        table = self._table()
        if not table:
            return None
        n = data.draw(st.integers(1, len(table)))
        ids = table[n - 1]
        a = data.draw(st.integers(0, len(ids) - 1))
        b = data.draw(st.integers(a, min(len(ids) - 1, a + 3)))
        pieces = format_faces(g.deck[i] for i in ids[a : b + 1])
        target = data.draw(st.sampled_from(["new", *[str(k) for k in range(1, len(table) + 1)]]))
        return f"move {n} {pieces} > {target}"

    def _split_text(self, data) -> str | None:
        g = self.game
        table = self._table()
        if not table:
            return None
        n = data.draw(st.integers(1, len(table)))
        ids = table[n - 1]
        return f"split {n} {g.deck[data.draw(st.sampled_from(ids))]}"

    def _join_text(self, data) -> str | None:
        table = self._table()
        if len(table) < 2:
            return None
        n = data.draw(st.integers(1, len(table)))
        m = data.draw(st.integers(1, len(table)))
        return f"join {n} {m}"

    def _take_text(self, data) -> str | None:
        g = self.game
        table = self._table()
        if not table:
            return None
        n = data.draw(st.integers(1, len(table)))
        real = [g.deck[i] for i in table[n - 1] if not g.deck[i].is_joker]
        return f"take {n} {data.draw(st.sampled_from(real))}" if real else None

    def _claim_text(self, data) -> str | None:
        table = self._table()
        if not table:
            return None
        fours = [k for k, ids in enumerate(table, 1) if len(ids) == 4]
        n = data.draw(st.sampled_from(fours)) if fours else data.draw(st.integers(1, len(table)))
        return f"{data.draw(st.sampled_from(['claim', 'unclaim']))} {n}"

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def table_change(self, data) -> None:
        """move / split / join / take / claim / unclaim on real table pieces."""
        self._step()
        self._ready(data)
        builders = [self._move_text, self._split_text, self._join_text, self._take_text]
        if self.RULES.claims:
            builders.append(self._claim_text)
        text = data.draw(st.sampled_from(builders))(data)
        if text:
            self.send(self.game.current, text)

    def _place_text(self, data) -> str | None:
        rack = self._rack_faces()
        if not rack:
            return None
        k = data.draw(st.integers(1, min(2, len(rack))))
        idx = data.draw(
            st.lists(st.integers(0, len(rack) - 1), min_size=k, max_size=k, unique=True)
        )
        return "place " + " ".join(rack[i] for i in idx)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def place(self, data) -> None:
        self._send_built(data, self._place_text)

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def table_discard(self, data) -> None:
        """Stein: a player who laid every tile discards a table tile whose removal leaves every
        meld valid, and is out (RULES.md, source text 000)."""
        self._step()
        self._ready(data)
        g = self.game
        table = self._table()
        if not table:
            return
        legal = None
        if self.RULES.game == "stein" and not g.turn.rack and g.draws_complete():
            legal = self._removable(table)
        if legal is not None and data.draw(st.integers(0, 3)):
            self.send(g.current, f"discard {g.deck[legal]}", must="last tile from the table")
            return
        ids = data.draw(st.sampled_from(table))
        self.send(g.current, f"discard {g.deck[data.draw(st.sampled_from(ids))]}")

    def _removable(self, table: list[list[int]]) -> int | None:
        """A tile laid this turn whose removal leaves every meld valid (None when none is, or
        the table is not valid as it stands)."""
        g = self.game
        mode, max_run = self.RULES.run_mode, self.RULES.max_run

        def valid(ids):
            return bool(read_meld([face_of(g.deck, i) for i in ids], mode, max_run))

        if not all(valid(ids) for ids in table):
            return None
        if any(m.claim is not None for m in g.turn.table):
            return None
        played = set(g.turn.played)
        if not g.opened[g.current]:
            return None
        for ids in table:
            for k in (0, len(ids) - 1):
                i = ids[k]
                rest = ids[:k] + ids[k + 1 :]
                if i in played and not g.deck[i].is_joker and len(rest) >= 3 and valid(rest):
                    # Rummikub-style locks do not apply in Stein; the claim rules do (none here)
                    if i in {x for m in g.table for x in m.ids}:
                        continue
                    return i
        return None

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def legal_swap(self, data) -> None:
        """A joker on the table at the start of the turn, freed by the tile it stands for by
        position, from the rack of a player who has opened: the rules allow it."""
        self._step()
        g = self.game
        seat = g.current
        if not g.opened[seat] or not g.draws_complete() or g.table_changed():
            return
        rack = {(f.suit, f.rank): f for f in g.rack(seat) if not f.is_joker}
        options = []
        for n, meld in enumerate(g.table, 1):
            if meld.claim is not None and meld.claim != seat:
                continue
            faces = [face_of(g.deck, i) for i in meld.ids]
            reads = read_meld(faces, self.RULES.run_mode, self.RULES.max_run)
            if len(reads) != 1 or faces.count((JOKER, 0)) != 1:
                continue
            r = reads[0]
            if r.kind == "run":
                wanted = [r.stands[faces.index((JOKER, 0))]]
            elif self.RULES.group_joker_needs_fourth and len(faces) != 4:
                continue
            else:
                wanted = [(c, r.rank) for c in r.missing]
            options += [(n, rack[w]) for w in wanted if w in rack]
        if options:
            n, face = data.draw(st.sampled_from(options))
            self.send(seat, f"swap {n} {face}", must="the tile the joker stands for")

    @precondition(lambda self: self.playing and self.RULES.claims)
    @rule()
    def claim_formed(self) -> None:
        """Stein Plus: a group of four formed on the table this turn may be claimed (RULES.md:
        a claim may come from the hand or be formed on the table)."""
        self._step()
        g = self.game
        seat = g.current
        if not g.opened[seat] or not g.draws_complete():
            return
        start = [sorted(m.ids) for m in g.table]
        for n, meld in enumerate(g.turn.table, 1):
            faces = [face_of(g.deck, i) for i in meld.ids]
            reads = read_meld(faces, self.RULES.run_mode, self.RULES.max_run)
            others = any(
                m.claim is not None and m.claim != seat and set(m.ids) & set(meld.ids)
                for m in g.table
            )
            if (
                meld.claim is None
                and len(meld.ids) == 4
                and any(r.kind == "group" for r in reads)
                and sorted(meld.ids) not in start
                and not others
            ):
                self.send(seat, f"claim {n}", must="a group of four formed this turn")
                return

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def lay_and_end(self, data) -> None:
        """A fresh turn: valid melds from the rack (the opening rule met), then the turn's end;
        the rules allow it, so it must be accepted."""
        self._step()
        g = self.game
        seat = g.current
        rules = self.RULES
        if rules.game == "stein" and not g.draws_complete():
            return
        spec = rules.meld_spec
        hand = g.faces(g.racks[seat])
        options = candidate_melds(hand, spec)
        if not options:
            return
        chosen, left = [], list(hand)
        for meld in data.draw(st.permutations(options))[:3]:
            if all(left.count(f) >= meld.count(f) for f in set(meld)):
                chosen.append(meld)
                for f in meld:
                    left.remove(f)
        mode, max_run = rules.run_mode, rules.max_run
        reads = [read_meld([(f.suit, f.rank) for f in m], mode, max_run) for m in chosen]
        if not all(reads):
            return  # the candidate is not in table order: not a must
        value = sum(meld_value(r[0], "face") for r in reads)
        must = "valid melds from the rack"
        if not g.opened[seat] and value < rules.opening_minimum:
            must = None
        between = data.draw(st.sampled_from([" | ", "|", "; ", ";", "\n"]))
        text = "reset; meld " + between.join(format_faces(m) for m in chosen)
        if rules.game == "stein":
            if not left:
                return
            text += f"; discard {data.draw(st.sampled_from(left))}"
        else:
            text += "; done"
        self.send(seat, text, must=must)


class CardMachine(GameMachine):
    @precondition(lambda self: self.game is not None and self.game_steps >= 25)
    @rule(seed=st.integers(0, 2**20), data=st.data())
    def deal_short(self, seed: int, data) -> None:
        """A real deal with short hands (the rest back under the talon): the seat to move
        holds a set of three and a card or two, the others a few cards, so that games end
        (going out, Hand-Rommé, going rummy, scores). It replays from its first JSON."""
        self._step()
        if self.playing and self.log:
            self._replay_check()
        game = new_game(self.RULES, self.players, seed)
        d = json.loads(game.to_json())
        deck = game.deck
        m = d["current"]
        everything = [i for r in d["racks"] for i in r] + d["pool"]
        rank = data.draw(st.integers(1, 13))
        three = []
        for i in everything:
            new_suit = all(deck[j].suit != deck[i].suit for j in three)
            if deck[i].rank == rank and not deck[i].is_joker and new_suit:
                three.append(i)
            if len(three) == 3:
                break
        rest = [i for i in everything if i not in three]
        sizes = [data.draw(st.integers(1, 4)) for _ in d["racks"]]
        racks, at = [], 0
        for seat in range(len(d["racks"])):
            n = data.draw(st.integers(0, 1)) if seat == m else sizes[seat]
            racks.append(rest[at : at + n] + (three if seat == m else []))
            at += n
        d["racks"] = racks
        d["pool"] = rest[at:]
        self.game = load_game(json.dumps(d))
        self.game_steps = 0
        self.seed = seed
        self.initial = self.game.to_json()
        self.log = []
        self.view = check_conservation(self.game, self.size)
        self.ever_played = [False] * self.PLAYERS
        self._new_turn()
        STATS[f"{self.NAME}:positions"] += 1

    @precondition(lambda self: self.playing and self.RULES.variant_knocking)
    @rule(data=st.data())
    def knock(self, data) -> None:
        self._step()
        g = self.game
        seat = (g.current + data.draw(st.integers(1, self.PLAYERS - 1))) % self.PLAYERS
        self.send(seat, "knock")

    @precondition(lambda self: self.playing and self.RULES.variant_announce_ten)
    @rule()
    def announce(self) -> None:
        self._step()
        self.send(self.game.current, "knock")

    @precondition(lambda self: self.playing)
    @rule(data=st.data())
    def lay_and_discard(self, data) -> None:
        """After the draw: a valid meld from the hand and a discard, which the rules allow."""
        self._step()
        g = self.game
        seat = g.current
        t = g.turn
        if not t["drawn"] or t["knock_due"]:
            return
        fresh = g
        if t["history"]:  # the message starts with reset: plan on the hand it gives back
            fresh = g.copy()
            fresh.apply(seat, "reset")
        hand = fresh.faces(fresh.racks[seat])
        t = fresh.turn
        spec = self.RULES.meld_spec
        options = [list(m) for m in candidate_card_melds(hand, spec)[:60]]
        if not options:
            return
        meld = data.draw(st.sampled_from(options))
        left = list(hand)
        for f in meld:
            left.remove(f)
        picked = g.deck[t["picked"]] if t["picked"] is not None else None
        choices = [f for f in left if f != picked or left.count(f) > 1]
        reads = read_meld([(f.suit, f.rank) for f in meld], self._card_mode(), 13)
        if not reads or not choices:
            return
        value = meld_value(reads[0], "romme" if self.RULES.game == "romme" else "rummy")
        must = "a valid meld and a discard"
        opening = self.RULES.game == "romme" and not t["opened_at_start"]
        if opening and value < self.RULES.opening_minimum and len(left) > 1:
            must = None
        if any(f.is_joker for f in meld) and self.RULES.variant_declared_joker:
            must = None
        prefix = "reset; " if fresh is not g else ""
        text = f"{prefix}meld {format_faces(meld)}; discard {data.draw(st.sampled_from(choices))}"
        self.send(seat, text, must=must)


def machine_for(name: str, rules, players: int = 3):
    """A state machine class for this rule set (``name`` labels its STATS)."""
    base = TileMachine if rules.family == "tile" else CardMachine
    return type(
        f"Machine_{name}",
        (base,),
        {"NAME": name, "RULES": rules, "PLAYERS": players, "__module__": __name__},
    )


__all__ = ["STATS", "Violation", "machine_for"]
