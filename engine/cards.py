"""The card games: German Rommé and classic Rummy (RULES.md, presets ``romme`` and ``rummy``).

:class:`CardGame` is the whole state of one game with the surface of ``engine/game.py``. The state
keeps piece ids (see :class:`~engine.pieces.Deck`): hands (``racks``), the talon/stock (``pool``,
top = last), the discard pile (``discards``, top = last) and the melds (``table``). A turn spans
messages: draw (``draw`` / ``pick``), then ``meld`` / ``add`` / ``swap`` (``undo`` / ``reset``
take table plays of this turn back), then ``discard`` (or ``done`` where a game may end without
one). A message is atomic: on any error the state is restored and stays byte-identical.

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
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .commands import Command, parse_commands
from .errors import MESSAGES, RummyError
from .game import Event, MeldView, PieceGame, PublicView, Result, SeatView
from .melds import analyse, readings
from .pieces import (
    CARD_RANK_TEXT,
    Card,
    Deck,
    Face,
    format_faces,
    parse_faces,
    parse_melds,
    sort_key,
)
from .rules import RuleSet

# ---------------------------------------------------------------------- scoring (pure)


def romme_card_penalty(face: Face, *, joker_double: bool = False) -> int:
    """Penalty of one card left in hand (RULES.md ``romme``): ace 11, J/Q/K 10, 2-10 face value,
    joker 20. With ``joker_double`` (variant h) a joker is weighed 40, the least it adds at the
    count (it doubles the whole hand, see :func:`romme_hand_penalty`); planners use this weight,
    scoring uses :func:`romme_hand_penalty`."""
    if face.is_joker:
        return 40 if joker_double else 20
    if face.rank == 1:
        return 11
    return 10 if face.rank >= 11 else face.rank


def romme_hand_penalty(faces: Sequence[Face], *, joker_double: bool = False) -> int:
    """Penalty of a hand at the count (RULES.md ``romme``): the sum of its cards; with variant h
    (``joker_double``) a hand that still holds a joker counts double as a whole (source text 001:
    "bekommt seine Punkte als Verlust doppelt")."""
    points = sum(romme_card_penalty(f) for f in faces)
    if joker_double and any(f.is_joker for f in faces):
        points *= 2
    return points


def rummy_card_points(face: Face) -> int:
    """Points of one card in classic Rummy (RULES.md ``rummy``): faces 10, ace 1, others face."""
    if face.is_joker:
        return 0
    return 10 if face.rank >= 11 else face.rank


def romme_penalties(
    lefts: Sequence[Sequence[Face]],
    *,
    hand_romme: bool = False,
    joker_double: bool = False,
    exempt: Iterable[int] = (),
) -> list[int]:
    """Rommé penalty points per seat (positive = bad, RULES.md ``romme``). A Hand-Rommé doubles
    the others' penalties, variant h doubles the hand of whoever still holds a joker (both apply:
    a joker holder after a Hand-Rommé pays four times); ``exempt`` seats (the announcer of
    variant e, the colour-Rommé player of variant f, the winner) score nothing."""
    free = set(exempt)
    out = []
    for seat, faces in enumerate(lefts):
        if seat in free:
            out.append(0)
            continue
        points = romme_hand_penalty(faces, joker_double=joker_double)
        out.append(points * 2 if hand_romme else points)
    return out


def rummy_points(lefts: Sequence[Sequence[Face]], winner: int, *, rummy: bool = False) -> list[int]:
    """Classic Rummy, winner takes all (RULES.md ``rummy``): the winner gets the sum of everybody
    else's hand; going rummy doubles it. Everybody else scores 0."""
    total = sum(
        rummy_card_points(f) for seat, faces in enumerate(lefts) if seat != winner for f in faces
    )
    if rummy:
        total *= 2
    return [total if seat == winner else 0 for seat in range(len(lefts))]


def match_target(rules: RuleSet, n_players: int) -> int | None:
    """Points that win a classic Rummy match: 100 / 150 / 200 for 2 / 3 / 4 players."""
    return dict(rules.match_target_by_players).get(n_players)


def strike_points(hand_romme: bool) -> int:
    """Variant i: the winner strikes 10 (Hand-Rommé 20) points off earlier penalties."""
    return 20 if hand_romme else 10


def _ranks(points: Sequence[float], *, lower_is_better: bool) -> list[int]:
    sign = 1 if lower_is_better else -1
    return [1 + sum(1 for q in points if sign * q < sign * p) for p in points]


# ---------------------------------------------------------------------- card words and jokers

_CARD_WORDING: dict[str, tuple[str, str]] = {
    "parse.empty": (
        "Nothing to read: type a card such as 7H.",
        "Nichts zu lesen: z. B. 7H eingeben.",
    ),
    "meld.too_short": (
        "{where}{pieces}: a meld needs at least 3 cards.",
        "{where_de}{pieces}: eine Kombination braucht mindestens 3 Karten.",
    ),
    "meld.group_too_long": (
        "{where}{pieces}: a set has at most 4 cards.",
        "{where_de}{pieces}: ein Satz hat höchstens 4 Karten.",
    ),
    "meld.group_colours": (
        "{where}{pieces}: a set needs different suits, {dup} appears twice.",
        "{where_de}{pieces}: ein Satz braucht verschiedene Farben, {dup} kommt doppelt vor.",
    ),
    "meld.mixed": (
        "{where}{pieces}: neither a set (same rank, different suits) nor a run "
        "(same suit, consecutive ranks).",
        "{where_de}{pieces}: weder Satz (gleicher Wert, verschiedene Farben) noch Folge "
        "(gleiche Farbe, aufeinanderfolgende Werte).",
    ),
    "meld.run_gap": (
        "{where}{pieces}: the run has a gap at {gap}{fill}.",
        "{where_de}{pieces}: die Folge hat eine Lücke bei {gap}{fill_de}.",
    ),
    "meld.run_duplicate": (
        "{where}{pieces}: {dup} appears twice in one run.",
        "{where_de}{pieces}: {dup} kommt in einer Folge doppelt vor.",
    ),
    "meld.run_wrap": ("{where}{pieces}: {corner}", "{where_de}{pieces}: {corner_de}"),
    "meld.run_too_long": (
        "{where}{pieces}: a run has at most {max} cards.",
        "{where_de}{pieces}: eine Folge hat höchstens {max} Karten.",
    ),
}

_CORNER = {
    "linear": (
        "aces are low only, so a run does not go round the corner (A-2-3 is a run, Q-K-A and "
        "K-A-2 are not).",
        "Asse sind nur niedrig, eine Folge geht nicht um die Ecke (A-2-3 ist eine Folge, Q-K-A "
        "und K-A-2 nicht).",
    ),
    "ace_high": (
        "runs do not go round the corner in this game (variant c): the ace is high after the "
        "king or low before the 2, not both (Q-K-A and A-2-3 are runs, K-A-2 is not).",
        "Folgen gehen in diesem Spiel nicht um die Ecke (Variante c): das Ass ist hoch nach dem "
        "König oder niedrig vor der 2, nicht beides (Q-K-A und A-2-3 sind Folgen, K-A-2 nicht).",
    ),
}

# tile words in free-text parts of shared messages (commands.py usage and reasons), for cards;
# German sentences also get German placeholders (PIECE -> KARTE)
_GERMAN_PLACEHOLDERS = [(re.compile(r"\bPIECES\b"), "KARTEN"), (re.compile(r"\bPIECE\b"), "KARTE")]
_TILE_WORDS = [
    (re.compile(p), w)
    for p, w in (
        (r"(?<=discard )\[N\] ", ""),  # Stein's "discard N PIECE" (a table tile) is no card form
        (r"\bPIECES\b", "CARDS"),
        (r"\bPIECE\b", "CARD"),
        (r"\bpieces\b", "cards"),
        (r"\bpiece\b", "card"),
        (r"\btiles\b", "cards"),
        (r"\btile\b", "card"),
        (r"\bcolours\b", "suits"),
        (r"\bcolour\b", "suit"),
        (r"\bSTEINE\b", "KARTEN"),
        (r"\bSTEIN\b", "KARTE"),
        (r"\beinen Stein\b", "eine Karte"),
        (r"\bkeinen Stein\b", "keine Karte"),
        (r"\bSteinen\b", "Karten"),
        (r"\bSteine\b", "Karten"),
        (r"\bStein\b", "Karte"),
    )
]


def card_words(text: str, lang: str = "en") -> str:
    """A shared sentence about tiles, worded for cards (piece -> card, Stein -> Karte; in German
    the placeholder PIECE -> KARTE)."""
    rules = _GERMAN_PLACEHOLDERS + _TILE_WORDS if lang == "de" else _TILE_WORDS
    for pattern, word in rules:
        text = pattern.sub(word, text)
    return text


def card_verbs(rules: RuleSet) -> str:
    """The command words of this card game, for ``parse.command`` (no tile verbs)."""
    verbs = ["draw", "pick", "meld", "add"]
    if has_jokers(rules):
        verbs.append("swap")
    verbs += ["hint", "undo", "reset", "discard", "done"]
    if rules.game == "romme" and (rules.variant_knocking or rules.variant_announce_ten):
        verbs.append("knock")
    return ", ".join(verbs)


class CardRummyError(RummyError):
    """A :class:`RummyError` raised in a card game: the same stable code and params, the
    sentence worded for cards (cards, suits, ranks; Karten, Farben) where the shared catalogue
    speaks of tiles."""

    catalogue: ClassVar[dict[str, tuple[str, str]]] = {**MESSAGES, **_CARD_WORDING}


def card_error(exc: RummyError, rules: RuleSet) -> RummyError:
    """``exc`` as a card game says it: meld errors speak of cards and suits, the corner rule is
    the one of this game (RULES.md: Rummy's aces are low only; Rommé variant c: Q-K-A and A-2-3
    but no K-A-2), a run gap mentions jokers only where the game has them."""
    if isinstance(exc, CardRummyError) or type(exc).catalogue is not MESSAGES:
        return exc
    params = dict(exc.params)
    for key in ("why", "reason"):
        if isinstance(params.get(key), str):
            params.setdefault(f"{key}_de", params[key])
            params[key] = card_words(params[key])
            params[f"{key}_de"] = card_words(params[f"{key}_de"], "de")
    if exc.code == "parse.command":
        params["verbs"] = card_verbs(rules)
    if exc.code == "meld.run_wrap":
        params["corner"], params["corner_de"] = _CORNER.get(rules.run_mode, _CORNER["linear"])
    if exc.code == "meld.run_gap":
        gap = _gap_of(str(params.get("pieces", "")), rules)
        if gap is not None:
            params["gap"] = str(gap)
        jokers = has_jokers(rules)
        params["fill"] = " and not enough jokers to fill it" if jokers else ""
        params["fill_de"] = " und zu wenige Joker" if jokers else ""
    return CardRummyError(exc.code, **params)


def run_gap(faces: Sequence[Face], mode: str) -> Face | None:
    """The first missing card of the shortest stretch of positions in which these cards of one
    suit would be a run (RULES.md ``romme``: round the corner with ``wrap``, the ace high after
    the king or low with ``ace_high``; ``rummy``: aces low only), e.g. K-2-3 misses the ace
    where runs wrap. None when they are not one suit or no stretch holds them."""
    real = [f for f in faces if not f.is_joker]
    if not real or len({f.suit for f in real}) != 1:
        return None
    ranks = Counter(f.rank for f in real)
    best: tuple[int, int] | None = None  # (missing, start)
    for start in range(1, 15 if mode == "ace_high" else 14):
        for length in range(1, 14 if mode != "ace_high" else 15):
            if not _span_ok(mode, start, length, 14):
                break
            span = Counter(_pos_rank(mode, start + i) for i in range(length))
            if all(span[r] >= c for r, c in ranks.items()):
                missing = length - sum(ranks.values())
                if best is None or missing < best[0]:
                    best = (missing, start)
                break
    if best is None or best[0] <= 0:
        return None
    start = best[1]
    for i in range(14):
        rank = _pos_rank(mode, start + i)
        if ranks[rank] == 0:
            return Card(real[0].suit, rank)
        ranks[rank] -= 1
    return None


def _gap_of(pieces: str, rules: RuleSet) -> Face | None:
    """:func:`run_gap` of a meld as an error prints it (``(5S 6S 8S)`` or ``5S 6S 8S``)."""
    try:
        faces = parse_faces(pieces.strip("()"), "card")
    except RummyError:
        return None
    return run_gap(faces, rules.run_mode)


def has_jokers(rules: RuleSet) -> bool:
    """Does the game have jokers at all? Classic Rummy has none (RULES.md ``rummy``); Rommé's
    joker count is an option (0-6)."""
    return rules.pool_jokers + rules.jokers_per_player > 0


def refuse_jokers(rules: RuleSet, faces: Iterable[Face], token: str = "*") -> None:
    """A game without jokers (RULES.md ``rummy``: "no jokers") refuses a joker anywhere: in a
    meld to check, a position, any command (``cards.no_jokers``)."""
    if not has_jokers(rules) and any(f.is_joker for f in faces):
        raise RummyError("cards.no_jokers", token=token, preset=rules.name)


def card_reading(rules: RuleSet, text: str) -> Any:
    """One card meld read with the game's rules (``rummy validate``): its preferred
    :class:`~engine.melds.Reading`, or a card-worded error; jokers are refused where the game
    has none."""
    try:
        faces = parse_faces(text, "card")
        refuse_jokers(rules, faces, _joker_token(text))
        return analyse(faces, rules.meld_spec)
    except RummyError as exc:
        raise card_error(exc, rules) from exc


def parse_card_commands(text: str) -> list[Command]:
    """The commands of a card-game message, variant b's ``*=9S`` read as a joker (the
    declarations themselves are read by :meth:`CardGame.apply`)."""
    return parse_commands(_DECLARED.sub("*", text), "card")


def _joker_token(text: str) -> str:
    """The first joker token as typed (``*``, ``JK``, ``joker``, ``*=9S``), for messages."""
    for token in _TOKEN_SPLIT.split(text):
        head = token.split("=", 1)[0].upper()
        if head in _JOKER_TOKENS:
            return token
    return "*"


# ---------------------------------------------------------------------- runs by position


def _pos_rank(mode: str, p: int) -> int:
    if mode == "wrap":
        return (p - 1) % 13 + 1
    return 1 if p == 14 else p


def _span_ok(mode: str, start: int, length: int, max_run: int) -> bool:
    if length > max_run:
        return False
    if mode == "wrap":
        return length <= 13
    top = 14 if mode == "ace_high" else 13
    return start >= 1 and start + length - 1 <= top


def run_start(faces: Sequence[Face], mode: str, max_run: int) -> int | None:
    """The position of the first card of a run laid in this order (1 = ace low; 14 = ace high
    in ``ace_high``), or None when the cards in this order are not a run."""
    real = [(i, f) for i, f in enumerate(faces) if not f.is_joker]
    if not real or len({f.suit for _, f in real}) != 1:
        return None
    for start in range(1, 15 if mode == "ace_high" else 14):
        if _span_ok(mode, start, len(faces), max_run) and all(
            _pos_rank(mode, start + i) == f.rank for i, f in real
        ):
            return start
    return None


# ---------------------------------------------------------------------- table melds


@dataclass(slots=True)
class TableMeld:
    """A meld on the table: ids in table order, the seat it lies in front of (Rommé; None in
    Rummy, where melds belong to nobody), its kind, and variant b's declared joker cards
    (position -> face)."""

    ids: list[int]
    owner: int | None
    kind: str
    declared: dict[int, Face] = field(default_factory=dict)

    def copy(self) -> TableMeld:
        return TableMeld(list(self.ids), self.owner, self.kind, dict(self.declared))

    def to_list(self) -> list[Any]:
        decl = {str(k): str(v) for k, v in sorted(self.declared.items())}
        return [list(self.ids), self.owner, self.kind, decl]

    @classmethod
    def from_list(cls, data: list[Any]) -> TableMeld:
        decl = {int(k): Card.parse(v) for k, v in data[3].items()}
        return cls(list(data[0]), data[1], data[2], decl)


def _new_turn(opened: bool) -> dict[str, Any]:
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


def _rank_text(rank: int) -> str:
    return CARD_RANK_TEXT.get(rank, str(rank))


_JOKER_TOKENS = ("*", "JK", "JOKER")
_TOKEN_SPLIT = re.compile(r"[\s,|;]+")
_DECLARED = re.compile(r"(?i)(?<![^\s,|;])(\*|JK|JOKER)=([^\s,|;]*)")


# ---------------------------------------------------------------------- the game


class CardGame(PieceGame):
    """One game of Rommé or classic Rummy. Build with :meth:`new`, :meth:`position` or
    :meth:`from_json`."""

    def __init__(
        self,
        rules: RuleSet,
        players: list[str],
        seed: int,
        *,
        deck: Deck | None = None,
        pool: list[int],
        discards: list[int],
        racks: list[list[int]],
        table: list[TableMeld],
        opened: list[bool],
        current: int = 0,
        turn_no: int = 1,
        status: str = "playing",
        result: Result | None = None,
        shuffles: int = 0,
        reshuffles: int = 0,
        turn: dict[str, Any] | None = None,
        knocks: list[dict[str, Any] | None] | None = None,
        announcer: int | None = None,
        top_by: int | None = None,
        last_event: str = "",
    ) -> None:
        self.rules = rules
        self.players = players
        self.seed = seed
        self.deck: Deck = deck or rules.deck(len(players))
        self.pool = pool
        self.discards = discards
        self.racks = racks
        self.table = table
        self.opened = opened
        self.current = current
        self.turn_no = turn_no
        self.status = status
        self.result = result
        self.shuffles = shuffles  # reshuffles made (seeds the next shuffle)
        self.reshuffles = reshuffles  # how often the stock ran out and was rebuilt
        self.turn = turn if turn is not None else _new_turn(opened[current])
        self.knocks = knocks if knocks is not None else [None] * len(players)
        self.announcer = announcer
        self.top_by = top_by
        self.last_event = last_event

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(cls, rules: RuleSet, players: list[str], seed: int) -> CardGame:
        """Shuffle with the seed and deal (RULES.md): Rommé 13 (option 10-13) and no upcard;
        Rummy 10 cards with 2 players, 7 with 3-4, and one upcard. Seat 0 starts."""
        rules.check_players(len(players))
        n = len(players)
        size = rules.hand_size_for(n)
        if rules.game == "romme" and not 10 <= size <= 13:
            raise RummyError(
                "rules.option",
                why="Rommé deals 10 to 13 cards",
                why_de="Beim Rommé gibt es 10 bis 13 Karten",
            )
        deck = rules.deck(n)
        if n * size + 2 > len(deck):
            raise RummyError(
                "rules.option",
                why=f"{len(deck)} cards are too few to deal {size} to {n} players",
                why_de=f"{len(deck)} Karten reichen nicht, um {n} Personen {size} zu geben",
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
        refuse_jokers(rules, faces, _joker_token(" ".join([table, *hands, discards, pool])))
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
            game._arrange(meld)
        return game

    # ------------------------------------------------------------------ serialisation

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "pool": self.pool,
            "discards": self.discards,
            "racks": self.racks,
            "table": [m.to_list() for m in self.table],
            "opened": self.opened,
            "current": self.current,
            "turn_no": self.turn_no,
            "status": self.status,
            "result": self.result.to_dict() if self.result else None,
            "shuffles": self.shuffles,
            "reshuffles": self.reshuffles,
            "turn": self.turn,
            "knocks": self.knocks,
            "announcer": self.announcer,
            "top_by": self.top_by,
            "last_event": self.last_event,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardGame:
        return cls(
            RuleSet.from_dict(data["rules"]),
            list(data["players"]),
            data["seed"],
            pool=list(data["pool"]),
            discards=list(data["discards"]),
            racks=[list(r) for r in data["racks"]],
            table=[TableMeld.from_list(m) for m in data["table"]],
            opened=list(data["opened"]),
            current=data["current"],
            turn_no=data["turn_no"],
            status=data["status"],
            result=Result.from_dict(data["result"]) if data["result"] else None,
            shuffles=data["shuffles"],
            reshuffles=data["reshuffles"],
            turn=json.loads(json.dumps(data["turn"])),
            knocks=[dict(k) if k else None for k in data["knocks"]],
            announcer=data["announcer"],
            top_by=data["top_by"],
            last_event=data["last_event"],
        )

    def copy(self) -> CardGame:
        turn = dict(self.turn)
        turn["history"] = list(self.turn["history"])  # snapshots are never mutated
        return CardGame(
            self.rules,
            list(self.players),
            self.seed,
            deck=self.deck,
            pool=list(self.pool),
            discards=list(self.discards),
            racks=[list(r) for r in self.racks],
            table=[m.copy() for m in self.table],
            opened=list(self.opened),
            current=self.current,
            turn_no=self.turn_no,
            status=self.status,
            result=self.result,
            shuffles=self.shuffles,
            reshuffles=self.reshuffles,
            turn=turn,
            knocks=[dict(k) if k else None for k in self.knocks],
            announcer=self.announcer,
            top_by=self.top_by,
            last_event=self.last_event,
        )

    _STATE = (
        "pool",
        "discards",
        "racks",
        "table",
        "opened",
        "current",
        "turn_no",
        "status",
        "result",
        "shuffles",
        "reshuffles",
        "turn",
        "knocks",
        "announcer",
        "top_by",
        "last_event",
    )

    # ------------------------------------------------------------------ what players see

    def rack(self, seat: int) -> list[Face]:
        """A player's hand, sorted by suit and rank (jokers last)."""
        return sorted(self.faces(self.racks[seat]), key=sort_key)

    def rack_ids(self, seat: int) -> list[int]:
        return list(self.racks[seat])

    def table_faces(self) -> list[list[Face]]:
        return [self.faces(m.ids) for m in self.table]

    def hand_value(self, seat: int) -> int:
        """What the hand would score now: Rommé penalty points, Rummy card points."""
        faces = self.faces(self.racks[seat])
        if self.rules.game == "rummy":
            return sum(rummy_card_points(f) for f in faces)
        return romme_hand_penalty(faces, joker_double=self.rules.variant_joker_double)

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
        return self._extended(meld, [self._fake_id(f) for f in faces]) is not None

    def _fake_id(self, face: Face) -> int:
        ids = getattr(self, "_face_ids", None)
        if ids is None:
            ids = {f: i for i, f in reversed(list(enumerate(self.deck.faces)))}
            self._face_ids = ids
        return ids[face]

    # ------------------------------------------------------------------ small helpers

    @property
    def is_romme(self) -> bool:
        return self.rules.game == "romme"

    @property
    def draw_count(self) -> int:
        """Cards taken from the talon per turn: 2 with Rommé variant j and 2-3 players."""
        if self.is_romme and self.rules.variant_draw_two and len(self.players) <= 3:
            return 2
        return 1

    @property
    def empty_hand_ok(self) -> bool:
        """May a hand be emptied without a final discard? Rummy yes; Rommé only variant g."""
        return not self.is_romme or self.rules.variant_end_without_discard

    def _event(self, kind: str, seat: int | None, en: str, de: str, **kw: Any) -> Event:
        if not kw.get("private"):
            self.last_event = en
        return Event(kind, seat, en, de, **kw)

    def _name(self, seat: int) -> str:
        return self.players[seat]

    def _from_hand(self, seat: int, faces: Sequence[Face], prefer: Sequence[int] = ()) -> list[int]:
        """Hand ids for these faces (each id once), preferring ``prefer`` ids, then the rest."""
        rack = self.racks[seat]
        order = [i for i in prefer if i in rack] + [i for i in rack if i not in prefer]
        taken: list[int] = []
        for face in faces:
            pick = next((i for i in order if i not in taken and self.deck[i] == face), None)
            if pick is None:
                raise RummyError("cards.not_in_hand", card=str(face))
            taken.append(pick)
        return taken

    def _meld_at(self, number: int | None) -> TableMeld:
        if number is None or not 1 <= number <= len(self.table):
            raise RummyError("meld.no_such", meld=number, count=len(self.table))
        return self.table[number - 1]

    def _arrange(self, meld: TableMeld) -> None:
        """Put a freshly validated meld's ids in table order (runs as analyse reads them)."""
        faces = self.faces(meld.ids)
        spec = self.rules.meld_spec
        if meld.kind == "run" and run_start(faces, spec.run_mode, spec.max_run) is None:
            reading = next(r for r in readings(faces, spec) if r.kind == "run")
            left = list(meld.ids)
            ordered = []
            for face in reading.faces:
                pick = next(i for i in left if self.deck[i] == face)
                left.remove(pick)
                ordered.append(pick)
            meld.ids = ordered

    def _stands_for(self, meld: TableMeld) -> list[Face | None]:
        """What every position stands for; None for an undeclared group joker (any missing
        suit)."""
        faces = self.faces(meld.ids)
        if meld.kind == "run":
            spec = self.rules.meld_spec
            start = run_start(faces, spec.run_mode, spec.max_run)
            assert start is not None
            suit = next(f.suit for f in faces if not f.is_joker)
            return [Card(suit, _pos_rank(spec.run_mode, start + i)) for i in range(len(faces))]
        out: list[Face | None] = []
        for pos, f in enumerate(faces):
            out.append(meld.declared.get(pos) if f.is_joker else f)
        return out

    def _joker_meanings(self, meld: TableMeld) -> list[Face]:
        """The cards that free a joker of this meld: its place in a run, its declared card
        (variant b), or in a group any missing suit."""
        faces = self.faces(meld.ids)
        stands = self._stands_for(meld)
        out = [s for s, f in zip(stands, faces, strict=True) if f.is_joker and s is not None]
        if any(s is None for s in stands):
            rank = next(f.rank for f in faces if not f.is_joker)
            present = {f.suit for f in faces if not f.is_joker} | {d.suit for d in out}
            out += [Card(s, rank) for s in range(4) if s not in present]
        return sorted(set(out), key=sort_key)

    def _swap_position(self, meld: TableMeld, card: Face) -> int | None:
        """The position of the joker that ``card`` frees in this meld, or None."""
        faces = self.faces(meld.ids)
        stands = self._stands_for(meld)
        jokers = [p for p, f in enumerate(faces) if f.is_joker]
        exact = next((p for p in jokers if stands[p] == card), None)
        if exact is not None or card.is_joker:
            return exact
        if card in self._joker_meanings(meld):
            return next((p for p in jokers if stands[p] is None), None)
        return None

    def _require_turn_started(self) -> None:
        if self.turn["knock_due"]:
            knock = self.knocks[self.current]
            raise RummyError("cards.knock_meld_first", card=str(self.deck[knock["open"]]))
        if not self.turn["drawn"]:
            raise RummyError("cards.draw_first")

    _UNDONE = ("opening_value", "melded", "table_used", "table_command")
    """What a table play changes in ``turn`` besides the hand and the table (undo restores it)."""

    def _snapshot(self, seat: int) -> None:
        """Everything a table play (meld, add, swap) changes, for ``undo`` / ``reset``: the hand,
        the table, the turn's opening bookkeeping and the last public event."""
        snap = {"rack": list(self.racks[seat]), "table": [m.to_list() for m in self.table]}
        snap.update({key: self.turn[key] for key in self._UNDONE})
        snap["last_event"] = self.last_event
        self.turn["history"].append(snap)

    def _restore(self, seat: int, snap: dict[str, Any]) -> None:
        """Back to a snapshot: ``undo`` right after a play gives the game exactly as before it
        (docs/CARDS.md)."""
        self.racks[seat] = list(snap["rack"])
        self.table = [TableMeld.from_list(m) for m in snap["table"]]
        for key in self._UNDONE:
            self.turn[key] = snap.get(key, self.turn[key])
        self.last_event = snap.get("last_event", self.last_event)

    # ------------------------------------------------------------------ parsing

    def _parse(self, text: str) -> list[tuple[Command, list[list[Any]]]]:
        """Commands plus variant b declarations: per meld, per joker, the declared face."""
        marks: list[tuple[str, Face] | None] = []  # every joker token in text order
        for token in _TOKEN_SPLIT.split(text):
            upper = token.upper()
            if upper.split("=", 1)[0] in _JOKER_TOKENS and not has_jokers(self.rules):
                raise RummyError("cards.no_jokers", token=token, preset=self.rules.name)
            if upper in _JOKER_TOKENS:
                marks.append(None)
            elif "=" in upper and upper.split("=", 1)[0] in _JOKER_TOKENS:
                face_text = token.split("=", 1)[1]
                if not self.rules.variant_declared_joker:
                    raise RummyError("cards.declare_off", token=token)
                marks.append((token, Card.parse(face_text)))
        commands = parse_commands(_DECLARED.sub("*", text), "card")
        queue = iter(marks)
        out = []
        for c in commands:
            groups = [list(m) for m in c.melds] if c.verb == "meld" else [list(c.pieces)]
            decls: list[list[Any]] = []
            for faces in groups:
                row: list[Any] = []
                for f in faces:
                    if f.is_joker:
                        mark = next(queue, None)
                        if mark and c.verb != "meld":
                            raise RummyError(
                                "cards.declare_bad",
                                token=mark[0],
                                why="only a joker laid in a new 3-set can be declared",
                                why_de="nur ein Joker in einem neu ausgelegten Dreiersatz kann "
                                "festgelegt werden",
                            )
                        row.append(mark)
                decls.append(row)
            out.append((c, decls))
        return out

    # ------------------------------------------------------------------ applying commands

    def apply(self, seat: int, text: str, lang: str = "en") -> list[Event]:
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
        commands = self._parse(text)
        if seat != self.current and not (len(commands) == 1 and commands[0][0].verb == "knock"):
            raise RummyError("turn.not_yours", player=self._name(self.current))
        work = self.copy()
        events: list[Event] = []
        for command, decls in commands:
            if work.status != "playing":
                raise RummyError("game.over")
            if seat != work.current and command.verb != "knock":
                raise RummyError("turn.not_yours", player=work._name(work.current))
            events += work._run(seat, command, decls)
        events += work._after_message(seat)
        self._adopt(work)
        return events

    def _run(self, seat: int, c: Command, decls: list[list[Any]]) -> list[Event]:
        handlers = {
            "draw": self._cmd_draw,
            "pick": self._cmd_pick,
            "meld": self._cmd_meld,
            "add": self._cmd_add,
            "swap": self._cmd_swap,
            "discard": self._cmd_discard,
            "done": self._cmd_done,
            "knock": self._cmd_knock,
            "undo": self._cmd_undo,
            "reset": self._cmd_reset,
            "hint": self._cmd_hint,
        }
        if c.verb not in handlers or (c.verb == "swap" and not has_jokers(self.rules)):
            raise RummyError("turn.not_allowed", command=c.verb, preset=self.rules.name)
        if c.verb == "meld":
            return self._cmd_meld(seat, c, decls)
        return handlers[c.verb](seat, c)  # type: ignore[operator]

    def _check_empty_hand(self) -> None:
        """RULES.md ``romme`` "Going out: the last card is discarded": in Rommé without variant g
        no command may empty the hand (meld, lay-off, ``done``, the end of a message); classic
        Rummy may go out without a discard."""
        if not self.empty_hand_ok:
            raise RummyError(
                "cards.keep_one",
                why="in Rommé the last card is discarded (variant g is off)",
                why_de="beim Rommé wird die letzte Karte abgelegt (Variante g ist aus)",
            )

    def _after_message(self, seat: int) -> list[Event]:
        """A message may not leave the mover without a legal discard; an emptied hand goes out
        at once where the game allows it (Rummy, Rommé variant g)."""
        if self.status != "playing" or seat != self.current or not self.turn["drawn"]:
            return []
        rack = self.racks[seat]
        if not rack:
            return self._go_out(seat, discarded=None)
        if all(i == self.turn["picked"] for i in rack):
            card = str(self.deck[rack[0]])
            raise RummyError(
                "cards.keep_one",
                why=f"{card} came from the discard pile this turn",
                why_de=f"{card} kam in diesem Zug vom Abwurfstapel",
            )
        return []

    # ------------------------------------------------------------------ drawing

    def _refill(self) -> list[Event]:
        """Talon exhausted (RULES.md): Rommé shuffles the discards except the top one into a new
        talon (any number of times); Rummy shuffles the whole pile once, then the hand is a draw.
        Returns events; may finish the game."""
        if self.pool:
            return []
        if not self._may_reshuffle():
            return self._finish("draw", None)
        return self._reshuffle()

    def _may_reshuffle(self) -> bool:
        limit = self.rules.max_reshuffles
        keep = 1 if self.is_romme else 0
        return (limit is None or self.reshuffles < limit) and len(self.discards) > keep

    def _reshuffle(self) -> list[Event]:
        keep = 1 if self.is_romme else 0
        moved = self.discards[: len(self.discards) - keep]
        self.discards = self.discards[len(self.discards) - keep :]
        random.Random(f"{self.seed}:shuffle:{self.shuffles}").shuffle(moved)
        self.pool = moved
        self.shuffles += 1
        self.reshuffles += 1
        return [
            self._event(
                "reshuffle",
                None,
                f"The talon is empty: {len(moved)} discards are shuffled into a new talon.",
                f"Der Talon ist leer: {len(moved)} abgelegte Karten werden zum neuen Talon gemischt.",
            )
        ]

    def _take_talon(self, seat: int, count: int) -> tuple[list[int], list[Event]]:
        events: list[Event] = []
        ids: list[int] = []
        for _ in range(count):  # variant j: a short talon gives what it has
            if not self.pool and self.is_romme and self._may_reshuffle():
                events += self._reshuffle()
            if not self.pool:
                break
            ids.append(self.pool.pop())
        if not ids and count:
            raise RummyError("cards.talon_empty")
        self.racks[seat].extend(ids)
        return ids, events

    def _cmd_draw(self, seat: int, c: Command) -> list[Event]:
        if self.turn["drawn"]:
            raise RummyError("cards.already_drawn")
        if self.turn["knock_due"]:
            self._require_turn_started()
        ids, events = self._take_talon(seat, self.draw_count)
        self.turn.update(drawn=True, from_talon=True, history=[])
        shown = self.faces(ids)
        n = len(ids)
        events.append(
            self._event(
                "draw",
                seat,
                f"{self._name(seat)} draws {n} card{'s' if n > 1 else ''} from the talon.",
                f"{self._name(seat)} zieht {n} Karte{'n' if n > 1 else ''} vom Talon.",
            )
        )
        events.append(
            Event(
                "drawn",
                seat,
                f"You draw {format_faces(shown)}.",
                f"Du ziehst {format_faces(shown)}.",
                private=True,
                pieces=tuple(str(f) for f in shown),
            )
        )
        return events

    def _cmd_pick(self, seat: int, c: Command) -> list[Event]:
        if self.turn["drawn"]:
            raise RummyError("cards.already_drawn")
        if self.turn["knock_due"]:
            self._require_turn_started()
        if not self.discards:
            raise RummyError("cards.discards_empty")
        top = self.discards[-1]
        if c.pieces and c.pieces[0] != self.deck[top]:
            raise RummyError("cards.pick_wrong", top=str(self.deck[top]), card=str(c.pieces[0]))
        self.discards.pop()
        self.racks[seat].append(top)
        self.turn.update(drawn=True, picked=top, history=[])
        card = str(self.deck[top])
        events = [
            self._event(
                "pick",
                seat,
                f"{self._name(seat)} takes {card} from the discard pile.",
                f"{self._name(seat)} nimmt {card} vom Abwurfstapel.",
                pieces=(card,),
            )
        ]
        if self.draw_count == 2:  # variant j: two talon cards even when taking the discard
            if not self.pool and not self._may_reshuffle():
                return events
            ids, more = self._take_talon(seat, 2)
            shown = format_faces(self.faces(ids))
            events += more
            events.append(
                self._event(
                    "draw",
                    seat,
                    f"{self._name(seat)} also draws {len(ids)} from the talon.",
                    f"{self._name(seat)} zieht dazu {len(ids)} vom Talon.",
                )
            )
            events.append(
                Event("drawn", seat, f"You draw {shown}.", f"Du ziehst {shown}.", private=True)
            )
        return events

    # ------------------------------------------------------------------ melding

    def _build_meld(
        self, seat: int, ids: list[int], decl: list[Any], number: int
    ) -> tuple[TableMeld, int]:
        """Validate a new meld from hand ids; return it (in table order) and its value."""
        faces = self.faces(ids)
        spec = self.rules.meld_spec
        owner = seat if self.is_romme else None
        declared = [d for d in decl if d is not None]
        if declared:
            return self._declared_group(seat, ids, decl, number, owner)
        reading = analyse(faces, spec, number)
        meld = TableMeld(list(ids), owner, reading.kind)
        self._arrange(meld)
        if reading.kind == "group" and self.rules.variant_declared_joker and len(ids) == 3:
            # variant b: an undeclared joker of a 3-set stands for the first missing suit
            stands = iter(reading.joker_meanings())
            for pos, i in enumerate(meld.ids):
                if self.deck[i].is_joker:
                    meld.declared[pos] = next(stands)
        return meld, reading.value

    def _declared_group(
        self, seat: int, ids: list[int], decl: list[Any], number: int, owner: int | None
    ) -> tuple[TableMeld, int]:
        faces = self.faces(ids)
        token = next(d[0] for d in decl if d is not None)

        def bad(why: str, why_de: str) -> RummyError:
            return RummyError("cards.declare_bad", token=token, why=why, why_de=why_de)

        real = [f for f in faces if not f.is_joker]
        if len(faces) != 3:
            raise bad(
                "only a joker in a set of three is declared (variant b)",
                "nur ein Joker in einem Dreiersatz wird festgelegt (Variante b)",
            )
        if not real or len({f.rank for f in real}) != 1 or len({f.suit for f in real}) != len(real):
            raise bad(
                f"{format_faces(faces)} is not a set (same rank, different suits)",
                f"{format_faces(faces)} ist kein Satz (gleicher Wert, verschiedene Farben)",
            )
        rank = real[0].rank
        used = {f.suit for f in real}
        jokers = [pos for pos, f in enumerate(faces) if f.is_joker]
        marks = iter(decl)
        stands: dict[int, Face] = {}
        for pos in jokers:
            mark = next(marks)
            if mark is None:
                continue
            tok, face = mark
            if face.is_joker or face.rank != rank or face.suit in used:
                raise RummyError(
                    "cards.declare_bad",
                    token=tok,
                    why=f"the joker must stand for a missing card of rank {_rank_text(rank)}",
                    why_de=f"der Joker muss für eine fehlende Karte vom Wert {_rank_text(rank)} "
                    "stehen",
                )
            used.add(face.suit)
            stands[pos] = face
        for pos in jokers:  # undeclared jokers of the same set: first missing suits
            if pos not in stands:
                suit = next(s for s in range(4) if s not in used)
                used.add(suit)
                stands[pos] = Card(suit, rank)
        full = [stands.get(pos, f) for pos, f in enumerate(faces)]
        value = analyse(full, self.rules.meld_spec, number).value
        order = sorted(range(3), key=lambda p: (faces[p].is_joker, faces[p]))
        meld = TableMeld([ids[p] for p in order], owner, "group")
        meld.declared = {k: stands[p] for k, p in enumerate(order) if p in stands}
        return meld, value

    def _cmd_meld(self, seat: int, c: Command, decls: list[list[Any]]) -> list[Event]:
        knock = self.knocks[seat] if self.turn["knock_due"] else None
        if not knock:
            self._require_turn_started()
        prefer = [knock["open"]] if knock else []
        all_ids = self._from_hand(seat, [f for m in c.melds for f in m], prefer)
        new: list[tuple[TableMeld, int]] = []
        at = 0
        for k, faces in enumerate(c.melds):
            ids = all_ids[at : at + len(faces)]
            at += len(faces)
            new.append(self._build_meld(seat, ids, decls[k], len(self.table) + k + 1))
        if knock and not any(knock["open"] in m.ids for m, _ in new):
            raise RummyError("cards.knock_meld_first", card=str(self.deck[knock["open"]]))
        if not knock:
            self._snapshot(seat)
        for meld, value in new:
            for i in meld.ids:
                self.racks[seat].remove(i)
            self.table.append(meld)
            if not self.turn["opened_at_start"]:
                self.turn["opening_value"] += value
        self.turn["melded"] = True
        shown = " | ".join(format_faces(self.faces(m.ids)) for m, _ in new)
        first = len(self.table) - len(new) + 1
        numbers = ", ".join(str(n) for n in range(first, len(self.table) + 1))
        events = [
            self._event(
                "meld",
                seat,
                f"{self._name(seat)} melds {shown} (meld {numbers}).",
                f"{self._name(seat)} legt {shown} aus (Kombination {numbers}).",
                pieces=tuple(str(f) for m, _ in new for f in self.faces(m.ids)),
            )
        ]
        if knock:
            self.racks[seat].extend(knock["hidden"])
            self.knocks[seat] = None
            self.turn["knock_due"] = False
            events.append(
                self._event(
                    "knock_done",
                    seat,
                    f"{self._name(seat)} takes the two knocking cards into the hand.",
                    f"{self._name(seat)} nimmt die zwei Klopfkarten auf die Hand.",
                )
            )
        return events

    def _extended(self, meld: TableMeld, new_ids: list[int]) -> list[int] | None:
        """The meld's ids with these cards laid off (runs at either end, jokers keeping their
        places; groups up to 4 different suits), or None when they do not fit."""
        spec = self.rules.meld_spec
        new_faces = self.faces(new_ids)
        if meld.kind == "group":
            faces = self.faces(meld.ids) + new_faces
            real = [f for f in faces if not f.is_joker]
            suits = [f.suit for f in real] + [d.suit for d in meld.declared.values()]
            if (
                len(faces) > spec.max_group
                or len({f.rank for f in real}) != 1
                or len(set(suits)) != len(suits)
                or not readings(faces, spec)
            ):
                return None
            return meld.ids + new_ids
        faces = self.faces(meld.ids)
        mode = spec.run_mode
        start = run_start(faces, mode, spec.max_run)
        if start is None:
            return None
        suit = next(f.suit for f in faces if not f.is_joker)
        length, k = len(faces), len(new_ids)
        for low in range(k + 1):  # cards at the low end; jokers go high first
            first = start - low
            if not _span_ok(mode, first, length + k, spec.max_run):
                continue
            slots = [first + j for j in range(low)] + [start + length + j for j in range(k - low)]
            placed: list[int | None] = [None] * k
            ok = True
            for i, f in zip(new_ids, new_faces, strict=True):
                if f.is_joker:
                    continue
                spot = next(
                    (
                        s
                        for s in range(k)
                        if placed[s] is None
                        and f.suit == suit
                        and _pos_rank(mode, slots[s]) == f.rank
                    ),
                    None,
                )
                if spot is None:
                    ok = False
                    break
                placed[spot] = i
            if not ok:
                continue
            jokers = [i for i, f in zip(new_ids, new_faces, strict=True) if f.is_joker]
            for s in range(k):
                if placed[s] is None:
                    placed[s] = jokers.pop()
            ids = [p for p in placed[:low] if p is not None]
            return ids + meld.ids + [p for p in placed[low:] if p is not None]
        return None

    def _table_play_allowed(self, seat: int, command: str) -> None:
        """Note a lay-off or swap. Rommé: they need an opening on an earlier turn - or a
        Hand-Rommé - which :meth:`_check_turn_end` checks when the turn ends; Rummy: they count
        as "laid off before" for going rummy."""
        self.turn["table_used"] = True
        if self.turn["table_command"] is None:
            self.turn["table_command"] = command

    def _cmd_add(self, seat: int, c: Command) -> list[Event]:
        self._require_turn_started()
        meld = self._meld_at(c.meld)
        ids = self._from_hand(seat, c.pieces)
        new_ids = self._extended(meld, ids)
        if new_ids is None:
            one = len(c.pieces) == 1
            raise RummyError(
                "cards.layoff",
                cards=format_faces(c.pieces),
                fit="does not fit" if one else "do not fit",
                fit_de="passt nicht" if one else "passen nicht",
                meld=c.meld,
                meld_cards=format_faces(self.faces(meld.ids)),
            )
        self._snapshot(seat)
        self._table_play_allowed(seat, str(c))
        for i in ids:
            self.racks[seat].remove(i)
        meld.ids = new_ids
        return [
            self._event(
                "add",
                seat,
                f"{self._name(seat)} lays {format_faces(c.pieces)} off on meld {c.meld}.",
                f"{self._name(seat)} legt {format_faces(c.pieces)} an Kombination {c.meld} an.",
                pieces=tuple(str(f) for f in c.pieces),
            )
        ]

    def _cmd_swap(self, seat: int, c: Command) -> list[Event]:
        self._require_turn_started()
        if len(c.pieces) != 1:
            raise RummyError(
                "parse.arguments",
                command="swap",
                why="name exactly one card",
                why_de="genau eine Karte nennen",
            )
        card = c.pieces[0]
        if card.is_joker:
            raise RummyError("joker.take_joker")
        meld = self._meld_at(c.meld)
        faces = self.faces(meld.ids)
        jokers = [p for p, f in enumerate(faces) if f.is_joker]
        if not jokers:
            raise RummyError("joker.not_in_meld", meld=c.meld)
        (card_id,) = self._from_hand(seat, [card])
        pos = self._swap_position(meld, card)
        if pos is None:
            meanings = self._joker_meanings(meld)
            raise RummyError(
                "joker.wrong_piece",
                piece=str(card),
                meld=c.meld,
                stands_for=" / ".join(str(f) for f in meanings),
            )
        self._snapshot(seat)
        self._table_play_allowed(seat, str(c))
        joker_id = meld.ids[pos]
        meld.ids[pos] = card_id
        meld.declared.pop(pos, None)
        self.racks[seat].remove(card_id)
        self.racks[seat].append(joker_id)
        return [
            self._event(
                "swap",
                seat,
                f"{self._name(seat)} puts {card} into meld {c.meld} and takes its joker.",
                f"{self._name(seat)} legt {card} in Kombination {c.meld} und nimmt den Joker.",
                pieces=(str(card),),
            )
        ]

    def _cmd_hint(self, seat: int, c: Command) -> list[Event]:
        """A private hint for the mover (engine/cardplan.py :func:`card_hint`): what to do first
        (draw, pick, meld the knocked card) or the best meld-and-lay-off plan with its discard,
        typed exactly as the engine accepts it. Changes nothing."""
        from .cardplan import card_hint

        if not self.rules.help_allowed:
            raise RummyError("help.not_allowed")
        hint = card_hint(self, seat)
        return [Event("hint", seat, hint.text, hint.text_de, private=True)]

    def _cmd_undo(self, seat: int, c: Command) -> list[Event]:
        history = self.turn["history"]
        if not history:
            raise RummyError("turn.nothing_to_undo")
        self._restore(seat, history.pop())
        return [  # the table shows the change; last_event stays as before the play
            Event(
                "undo",
                seat,
                f"{self._name(seat)} takes a play back.",
                f"{self._name(seat)} nimmt einen Zug zurück.",
            )
        ]

    def _cmd_reset(self, seat: int, c: Command) -> list[Event]:
        history = self.turn["history"]
        if not history:
            raise RummyError("turn.nothing_to_undo")
        self._restore(seat, history[0])
        self.turn["history"] = []
        return [  # as undo: the game is as before the turn's first table play
            Event(
                "reset",
                seat,
                f"{self._name(seat)} takes this turn's plays back.",
                f"{self._name(seat)} nimmt die Züge dieser Runde zurück.",
            )
        ]

    # ------------------------------------------------------------------ ending a turn

    def _check_turn_end(self, seat: int, going_out: bool) -> None:
        """Rommé's opening rules, checked when a turn ends (RULES.md ``romme`` "Opening"): the
        turn's melds reach the minimum (40, variant d 30) unless this is a Hand-Rommé; lay-offs
        and swaps before opening only in a Hand-Rommé."""
        t = self.turn
        if not self.is_romme or t["opened_at_start"] or going_out:
            return
        if t["table_used"]:
            raise RummyError("cards.not_opened", command=t["table_command"])
        if t["melded"] and t["opening_value"] < self.rules.opening_minimum:
            raise RummyError(
                "opening.below_minimum",
                value=t["opening_value"],
                minimum=self.rules.opening_minimum,
            )

    def _cmd_discard(self, seat: int, c: Command) -> list[Event]:
        self._require_turn_started()
        if c.meld is not None or len(c.pieces) != 1:
            raise RummyError(
                "parse.arguments",
                command="discard",
                why="usage: discard CARD (one card from your hand)",
                why_de="Form: discard KARTE (eine Karte aus deiner Hand)",
            )
        card = c.pieces[0]
        picked = self.turn["picked"]
        rack = self.racks[seat]
        ids = [i for i in rack if self.deck[i] == card]
        if not ids:
            raise RummyError("cards.not_in_hand", card=str(card))
        others = [i for i in ids if i != picked]
        if not others:
            raise RummyError("cards.discard_picked", card=str(card))
        going_out = len(rack) == 1
        self._check_turn_end(seat, going_out)
        rack.remove(others[0])
        self.discards.append(others[0])
        self.top_by = seat
        if going_out:
            return self._go_out(seat, discarded=card)
        if self.turn["melded"] or self.turn["table_used"]:
            self.opened[seat] = True
        events = [
            self._event(
                "discard",
                seat,
                f"{self._name(seat)} discards {card}.",
                f"{self._name(seat)} legt {card} ab.",
                pieces=(str(card),),
            )
        ]
        return events + self._next_turn()

    def _go_out(self, seat: int, discarded: Face | None) -> list[Event]:
        """The hand is empty: the single game is won (RULES.md). Hand-Rommé / going rummy when
        the player had not melded (or laid off) on an earlier turn. Without a discard only where
        the game allows it (:meth:`_check_empty_hand`)."""
        if discarded is None:
            self._check_empty_hand()
        self._check_turn_end(seat, True)
        special = not self.turn["opened_at_start"]
        self.opened[seat] = True
        name = self._name(seat)
        if self.is_romme:
            word = "Hand-Rommé" if special else "Rommé"
            en, de = f"{name}: {word}!", f"{name}: {word}!"
        else:
            word = " - going rummy" if special else ""
            en = f"{name} goes out{word}!"
            de = f"{name} macht aus{' - Rummy' if special else ''}!"
        if discarded is not None:
            en = f"{name} discards the last card {discarded}. " + en
            de = f"{name} legt die letzte Karte {discarded} ab. " + de
        events = [self._event("out", seat, en, de)]
        return events + self._finish("out", seat, special=special)

    def _cmd_done(self, seat: int, c: Command) -> list[Event]:
        rack = self.racks[seat]
        if not rack and self.turn["drawn"]:
            return self._go_out(seat, discarded=None)
        if self.is_romme and self.rules.variant_colour_romme:
            longest = max(
                Counter(self.deck[i].suit for i in rack if not self.deck[i].is_joker).values(),
                default=0,
            )
            if longest < 10:
                raise RummyError("cards.colour_short", count=longest)
            self._check_turn_end(seat, False)
            events = [
                self._event(
                    "colour",
                    seat,
                    f"{self._name(seat)}: colour Rommé with {longest} cards of one suit!",
                    f"{self._name(seat)}: Farbenrommé mit {longest} Karten einer Farbe!",
                )
            ]
            return events + self._finish("colour", seat)
        self._require_turn_started()
        raise RummyError("cards.must_discard")

    # ------------------------------------------------------------------ knocking (a, e)

    def _cmd_knock(self, seat: int, c: Command) -> list[Event]:
        if seat == self.current:
            return self._announce(seat)
        return self._knock(seat)

    def _knock(self, seat: int) -> list[Event]:
        """Variant a: a seat not to move claims the top discard, face up, plus two talon cards
        face down; the mover's consent is implied once they have drawn from the talon."""
        if not (self.is_romme and self.rules.variant_knocking):
            raise RummyError("turn.not_allowed", command="knock", preset=self.rules.name)
        t = self.turn
        if not (t["drawn"] and t["picked"] is None and self.discards):
            raise RummyError("cards.knock_when", player=self._name(self.current))
        top = self.discards[-1]
        card = str(self.deck[top])
        if self.top_by == seat:
            raise RummyError("cards.knock_own", card=card)
        if self.knocks[seat]:
            raise RummyError("cards.knock_pending", card=str(self.deck[self.knocks[seat]["open"]]))
        if not self.opened[seat]:
            raise RummyError("cards.knock_not_opened", card=card)
        if not self._meldable_with_two(seat, top):
            raise RummyError("cards.knock_unusable", card=card)
        if len(self.pool) < 2:
            raise RummyError("cards.knock_talon", count=len(self.pool))
        self.discards.pop()
        hidden = [self.pool.pop(), self.pool.pop()]
        self.racks[seat].append(top)
        self.knocks[seat] = {"open": top, "hidden": hidden}
        self.top_by = None
        shown = format_faces(self.faces(hidden))
        return [
            self._event(
                "knock",
                seat,
                f"{self._name(seat)} knocks and takes {card}, with two talon cards face down.",
                f"{self._name(seat)} klopft und nimmt {card}, dazu zwei Talonkarten verdeckt.",
                pieces=(card,),
            ),
            Event("knock_cards", seat, f"Face down: {shown}.", f"Verdeckt: {shown}.", private=True),
        ]

    def _meldable_with_two(self, seat: int, card_id: int) -> bool:
        """Variant a: does the card make a valid meld with two cards of the hand?"""
        spec = self.rules.meld_spec
        card = self.deck[card_id]
        hand = self.faces(self.racks[seat])
        pairs = {
            tuple(sorted((a, b), key=sort_key)) for x, a in enumerate(hand) for b in hand[x + 1 :]
        }
        return any(readings([card, a, b], spec) for a, b in pairs)

    def _announce(self, seat: int) -> list[Event]:
        """Variant e: at the start of the turn, with at most 10 points in hand, announce; everybody
        else plays once more, then the game ends. The announcer does not play again and scores
        nothing."""
        if not (self.is_romme and self.rules.variant_announce_ten):
            raise RummyError("turn.not_allowed", command="knock", preset=self.rules.name)
        if self.announcer is not None:
            raise RummyError("cards.announce_twice", player=self._name(self.announcer))
        if self.turn["drawn"] or self.turn["knock_due"]:
            raise RummyError("cards.announce_when")
        value = sum(romme_card_penalty(f) for f in self.faces(self.racks[seat]))
        if value > 10:
            raise RummyError("cards.announce_high", value=value)
        self.announcer = seat
        events = [
            self._event(
                "announce",
                seat,
                f"{self._name(seat)} announces Rommé with {value} points: one more round.",
                f"{self._name(seat)} sagt Rommé mit {value} Punkten an: noch eine Runde.",
            )
        ]
        return events + self._next_turn()

    # ------------------------------------------------------------------ turn order and end

    def _next_turn(self) -> list[Event]:
        n = len(self.players)
        self.current = (self.current + 1) % n
        self.turn_no += 1
        self.turn = _new_turn(self.opened[self.current])
        if self.announcer is not None and self.current == self.announcer:
            return self._finish("announced", self.announcer)
        if self.knocks[self.current]:
            self.turn["knock_due"] = True
        events = self._refill()
        if self.status == "playing" and self.nobody_can_go_out():
            events += self._finish("stalemate", None)
        if self.status == "playing":
            name = self._name(self.current)
            events.append(Event("turn", self.current, f"{name} to move.", f"{name} ist am Zug."))
        return events

    def nobody_can_go_out(self) -> bool:
        """Sound stalemate test (RULES.md ``rummy`` "Also a draw"), run when a turn starts.

        A hand shrinks only by melding (3+ cards from one hand) or laying off; swapping a joker
        keeps the hand size and the shape of the meld. So nobody can ever go out when

        1. no card off the table (nor a joker a swap could free) fits any meld - this stays true
           while only swaps happen - and
        2. either no hand can hold 3 cards during a turn (cards at rest + cards taken per turn
           < 3; Rommé knocking can add cards, so it never counts as such), or no three cards
           off the table make a meld and no table joker can be freed.

        Rommé with variant e or f can still end otherwise and is never called a stalemate."""
        if self.is_romme and (self.rules.variant_announce_ten or self.rules.variant_colour_romme):
            return False
        on_table = {i for m in self.table for i in m.ids}
        outside = [i for i in self.all_piece_ids() if i not in on_table]
        by_face = {self.deck[i]: i for i in outside}
        real = [f for f in by_face if not f.is_joker]
        gain = 3 if self.draw_count == 2 else 1
        knocking = self.is_romme and self.rules.variant_knocking
        may_meld = knocking or max(len(r) for r in self.racks) + gain >= 3
        if may_meld and self._outside_meld_exists(outside, real):
            return False
        table_jokers = [i for i in on_table if self.deck[i].is_joker]
        candidates = list(by_face.items()) + [(self.deck[i], i) for i in table_jokers[:1]]
        for meld in self.table:
            real_in_meld = [f for f in self.faces(meld.ids) if not f.is_joker]
            if meld.kind == "group":
                near = [i for f, i in candidates if f.is_joker or f.rank == real_in_meld[0].rank]
            else:
                near = [i for f, i in candidates if f.is_joker or f.suit == real_in_meld[0].suit]
            if any(self._extended(meld, [i]) is not None for i in near):
                return False
        if not may_meld:
            return True
        for meld in self.table:
            if any(self.deck[i].is_joker for i in meld.ids) and any(
                self._swap_position(meld, f) is not None for f in real
            ):
                return False
        return True

    def _outside_meld_exists(self, outside: list[int], real: list[Face]) -> bool:
        """Do some three cards off the table make a meld?"""
        jokers = sum(1 for i in outside if self.deck[i].is_joker)
        if jokers >= 2 and real:
            return True
        by_rank: dict[int, set[int]] = {}
        by_suit: dict[int, set[int]] = {}
        for f in real:
            by_rank.setdefault(f.rank, set()).add(f.suit)
            by_suit.setdefault(f.suit, set()).add(f.rank)
        if any(len(suits) + jokers >= 3 for suits in by_rank.values()):
            return True
        mode = self.rules.run_mode
        for ranks in by_suit.values():
            for start in range(1, 14):
                if _span_ok(mode, start, 3, 13):
                    have = sum(1 for k in range(3) if _pos_rank(mode, start + k) in ranks)
                    if have + jokers >= 3:
                        return True
        return False

    def _finish(self, reason: str, winner: int | None, *, special: bool = False) -> list[Event]:
        """Score the single game (RULES.md): Rommé penalty points (positive = bad), classic Rummy
        winner takes all. Cards of a pending knock count as the knocker's."""
        n = len(self.players)
        lefts_ids = [list(r) for r in self.racks]
        for seat, knock in enumerate(self.knocks):
            if knock:
                lefts_ids[seat] += knock["hidden"]
        lefts = [self.faces(ids) for ids in lefts_ids]
        details: dict[str, Any] = {}
        if reason in ("draw", "stalemate") or (not self.is_romme and winner is None):
            points: list[int] = [0] * n
            ranks = [1] * n
        elif self.is_romme:
            exempt = {s for s in (winner, self.announcer) if s is not None}
            points = romme_penalties(
                lefts,
                hand_romme=special and self.rules.hand_romme_double,
                joker_double=self.rules.variant_joker_double,
                exempt=exempt,
            )
            ranks = _ranks(points, lower_is_better=True)
            if winner is not None:
                ranks[winner] = 1
            details["hand_romme"] = special
            if self.announcer is not None:
                details["announcer"] = self.announcer
            if self.rules.variant_winner_strikes and winner is not None:
                details["strike"] = {"seat": winner, "points": strike_points(special)}
        else:
            assert winner is not None
            points = rummy_points(lefts, winner, rummy=special and self.rules.rummy_bonus_double)
            ranks = [1 if s == winner else 2 for s in range(n)]
            details["rummy"] = special
            target = match_target(self.rules, n)
            if target is not None:
                details["match_target"] = target
        self.status = "finished"
        self.result = Result(
            reason=reason,  # type: ignore[arg-type]
            winner=winner,
            points=[p for p in points],
            ranks=ranks,
            left=[[str(f) for f in sorted(faces, key=sort_key)] for faces in lefts],
            details=details,
        )
        texts = {
            "out": ("The game is over.", "Das Spiel ist beendet."),
            "colour": ("The game is over (colour Rommé).", "Das Spiel ist beendet (Farbenrommé)."),
            "announced": (
                "The round after the announcement is over.",
                "Die Runde nach der Ansage ist vorbei.",
            ),
            "draw": (
                "The talon is exhausted: the hand is a draw and nobody scores.",
                "Der Talon ist aufgebraucht: unentschieden, niemand bekommt Punkte.",
            ),
            "stalemate": (
                "Nobody can go out any more: the hand is a draw and nobody scores.",
                "Niemand kann mehr ausmachen: unentschieden, niemand bekommt Punkte.",
            ),
            "ended": ("The game was ended.", "Das Spiel wurde beendet."),
            "abandoned": ("The game was abandoned.", "Das Spiel wurde aufgegeben."),
        }
        en, de = texts[reason]
        scores = ", ".join(f"{self._name(s)} {p}" for s, p in enumerate(points))
        return [self._event("end", winner, f"{en} {scores}", f"{de} {scores}")]

    def end(self, reason: str = "ended") -> list[Event]:
        """End the game now (organiser's decision or abandonment). The mover's table plays of
        this turn are taken back; Rommé scores every hand's penalty points, classic Rummy (winner
        takes all) scores nothing without a winner."""
        if self.status != "playing":
            raise RummyError("game.over")
        if self.turn["history"]:
            self._restore(self.current, self.turn["history"][0])
            self.turn["history"] = []
        return self._finish(reason, None)

    # ------------------------------------------------------------------ time-out

    def timeout(self) -> list[Event]:
        """The mover's time ran out: this turn's table plays are taken back, a pending knock meld
        is laid, a card is drawn from the talon if none was, and the last card drawn (or the last
        discardable one) is discarded."""
        if self.status != "playing":
            raise RummyError("game.over")
        work = self.copy()
        seat = work.current
        events: list[Event] = []
        if work.turn["history"]:
            work._restore(seat, work.turn["history"][0])
            work.turn["history"] = []
        if work.turn["knock_due"]:
            events += work._auto_knock_meld(seat)
        if not work.turn["drawn"]:
            events += work._cmd_draw(seat, Command("draw"))
        if work.status == "playing":
            rack = work.racks[seat]
            if not rack:
                events += work._go_out(seat, None)
            else:
                choice = next(i for i in reversed(rack) if i != work.turn["picked"])
                events += work._cmd_discard(seat, Command("discard", pieces=(work.deck[choice],)))
        self._adopt(work)
        return events

    def _auto_knock_meld(self, seat: int) -> list[Event]:
        knock = self.knocks[seat]
        card = self.deck[knock["open"]]
        others = [i for i in self.racks[seat] if i != knock["open"]]
        for x, a in enumerate(others):
            for b in others[x + 1 :]:
                if readings([card, self.deck[a], self.deck[b]], self.rules.meld_spec):
                    c = Command("meld", melds=((card, self.deck[a], self.deck[b]),))
                    return self._cmd_meld(seat, c, [[None, None, None]])
        raise RummyError("cards.knock_unusable", card=str(card))  # cannot happen: checked on knock
