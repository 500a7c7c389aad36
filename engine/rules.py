"""Rule sets: one frozen dataclass whose fields decide every rule the engine plays (RULES.md).

Every "option" of RULES.md is a field; a host changes options with :meth:`RuleSet.with_options`,
which validates them. The structural fields (:data:`STRUCTURAL`: which game, its turn shape and its
scoring) belong to the preset and are no options. The presets themselves are declared by the variant
registry (``engine/variants/<name>.py``); :func:`preset` and :data:`PRESETS` ask it. Presets are
frozen values and never change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .errors import RummyError
from .melds import MeldSpec, RunMode, Values
from .pieces import Deck, Family
from .variants import variant, variant_names

Game = Literal["stein", "rummikub", "romme", "rummy"]
Scoring = Literal["places", "rack_points", "penalty", "card_points"]
FirstRoundOut = Literal["split", "equal", "normal"]
TimeoutAction = Literal["penalty", "auto_discard", "pass"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between presets and options. See RULES.md per preset."""

    preset: str
    name: str
    game: Game  # the kind of game, for people and tools; no code branches on it
    family: Family
    min_players: int
    max_players: int
    copies: int = 2
    hand_size: int = 14
    # jokers: dealt one per player (Stein), shuffled into the pool/deck, or none
    jokers_per_player: int = 0
    pool_jokers: int = 0
    # melds
    run_mode: RunMode = "linear"
    max_run: int = 13
    meld_values: Values = "face"
    # turn structure
    draws_per_turn: int = 1
    discard_picks_per_turn: int = 1
    pick_any_discard: bool = False
    discard_required: bool = False
    # opening
    opening_minimum: int = 0
    opening_may_add_after_minimum: bool = False
    # jokers on the table
    joker_freed_to_hand: bool = True
    joker_meld_no_split: bool = False
    group_joker_needs_fourth: bool = False
    take_with_joker: bool = False
    # Stein Plus
    claims: bool = False
    # end and scoring
    first_round_out: FirstRoundOut = "normal"
    joker_penalty: int = 30
    # time limit per turn (None: none) and what happens when it runs out
    turn_seconds: int | None = None
    timeout_action: TimeoutAction = "pass"
    timeout_penalty_tiles: int = 3
    # player help (place / hint), switched by the host
    help_allowed: bool = True
    ranked: bool = True
    # card games (RULES.md "romme" and "rummy"); hand size by player count overrides hand_size
    hand_size_by_players: tuple[tuple[int, int], ...] = ()
    upcard: bool = False
    max_reshuffles: int | None = None  # None: reshuffle the discards whenever the stock runs out
    match_target_by_players: tuple[tuple[int, int], ...] = ()
    hand_romme_double: bool = False
    rummy_bonus_double: bool = False
    variant_knocking: bool = False  # Rommé a)
    variant_declared_joker: bool = False  # Rommé b)
    variant_announce_ten: bool = False  # Rommé e)
    variant_colour_romme: bool = False  # Rommé f)
    variant_end_without_discard: bool = False  # Rommé g)
    variant_joker_double: bool = False  # Rommé h)
    variant_winner_strikes: bool = False  # Rommé i)
    variant_draw_two: bool = False  # Rommé j)
    # structural (STRUCTURAL: the preset's, not options): the turn's shape and the scoring
    draw_first: bool = (
        False  # tiles: the turn starts with the draws and ends with a discard (Stein)
    )
    start_by_lot: bool = False  # tiles: everybody draws a tile, the highest starts (Rummikub)
    discard_pile: bool = True  # there is a discard pile (not in Rummikub)
    # places: Stein MP/SMP by tiles left (+ claims); rack_points: Rummikub; penalty: Rommé's
    # penalty points; card_points: classic Rummy, the winner takes the others' card points
    scoring: Scoring = "places"
    must_open: bool = (
        False  # cards: no lay-off/swap before opening, which comes in one turn (Rommé)
    )
    melds_owned: bool = False  # cards: every table meld belongs to the seat that laid it (Rommé)
    reshuffle_keeps_top: bool = (
        False  # cards: the dry talon is rebuilt from all discards but the top
    )
    final_discard: bool = (
        False  # cards: going out needs a final discard (Rommé; variant g lifts it)
    )
    romme_variants: bool = False  # cards: the Rommé variants a)-j) (variant_* fields) take effect
    deal_range: tuple[int, int] | None = None  # cards: the hand sizes allowed (Rommé 10 to 13)

    @property
    def meld_spec(self) -> MeldSpec:
        return MeldSpec(self.run_mode, self.max_run, 3, 4, self.meld_values)

    def deck(self, n_players: int) -> Deck:
        return _deck(
            self.family, self.copies, self.pool_jokers + self.jokers_per_player * n_players
        )

    def check_players(self, count: int) -> None:
        if not self.min_players <= count <= self.max_players:
            raise RummyError(
                "rules.players",
                preset=self.name,
                minimum=self.min_players,
                maximum=self.max_players,
                count=count,
            )

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with options changed; unknown or nonsensical options are a ``rules.option``
        error naming the option."""
        names = {f.name for f in dataclasses.fields(self)} - STRUCTURAL
        for key in options:
            if key not in names:
                raise RummyError(
                    "rules.option", why={"key": "why.rules.unknown_option", "option": key}
                )
        changed = dataclasses.replace(self, **options)
        changed.validate()
        return changed

    def validate(self) -> None:
        def bad(why: str, **params: Any) -> RummyError:
            return RummyError("rules.option", why={"key": f"why.rules.{why}", **params})

        if not 2 <= self.min_players <= self.max_players <= 6:
            raise bad("players", low=2, high=6)
        if self.pool_jokers < 0 or self.jokers_per_player < 0 or self.pool_jokers > 6:
            raise bad("jokers", low=0, high=6)
        if self.turn_seconds is not None and not 30 <= self.turn_seconds <= 48 * 3600:
            raise bad("turn_time")
        if not 1 <= self.hand_size <= 20:
            raise bad("hand_size", low=1, high=20)

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that differ from the preset, plus the preset's name: short and stable."""
        base = preset(self.preset)
        out: dict[str, Any] = {"preset": self.preset}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name != "preset" and value != getattr(base, f.name):
                out[f.name] = _listed(value)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        base = preset(data["preset"])
        options = {k: v for k, v in data.items() if k not in ("preset", "game", "family")}
        for key, value in options.items():
            if isinstance(value, list):
                options[key] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        return dataclasses.replace(base, **options)

    def hand_size_for(self, n_players: int) -> int:
        return dict(self.hand_size_by_players).get(n_players, self.hand_size)


def _listed(value: Any) -> Any:
    """A field's JSON form: tuples (of tuples) become lists (of lists)."""
    if isinstance(value, tuple):
        return [list(v) if isinstance(v, tuple) else v for v in value]
    return value


@lru_cache(maxsize=64)
def _deck(family: Family, copies: int, jokers: int) -> Deck:
    return Deck.build(family, copies, jokers)


STRUCTURAL = frozenset(
    {
        "preset",
        "name",
        "game",
        "family",
        "draw_first",
        "start_by_lot",
        "discard_pile",
        "scoring",
        "must_open",
        "melds_owned",
        "reshuffle_keeps_top",
        "final_discard",
        "romme_variants",
        "deal_range",
    }
)
"""The fields a preset fixes: :meth:`RuleSet.with_options` refuses them as unknown options."""


def preset(name: str) -> RuleSet:
    """The preset of that name (any registered variant), or a ``rules.unknown_preset`` error
    listing the choices."""
    return variant(name).rules


class _Presets(Mapping[str, RuleSet]):
    """Preset name -> RuleSet of every registered variant, read live from the registry."""

    def __getitem__(self, name: str) -> RuleSet:
        if name not in variant_names():
            raise KeyError(name)
        return variant(name).rules

    def __iter__(self) -> Iterator[str]:
        return iter(variant_names())

    def __len__(self) -> int:
        return len(variant_names())

    def __repr__(self) -> str:
        return f"PRESETS({', '.join(self)})"


PRESETS: Mapping[str, RuleSet] = _Presets()

_CONSTANTS = {
    "STEIN": "stein",
    "STEIN_PLUS": "stein_plus",
    "RUMMIKUB": "rummikub",
    "ROMME": "romme",
    "RUMMY": "rummy",
}


def __getattr__(name: str) -> RuleSet:
    """``engine.rules.STEIN`` ... ``RUMMY``: the built-in presets under their old names (a published
    contract: tests and tools import them from here); they are declared in engine/variants/."""
    if name in _CONSTANTS:
        return preset(_CONSTANTS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
