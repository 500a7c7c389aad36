"""Rule sets: one frozen dataclass, five named presets (RULES.md).

Every "option" of RULES.md is a field; a host changes options with :meth:`RuleSet.with_options`,
which validates them. Presets are frozen values and never change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .errors import RummyError
from .melds import MeldSpec, RunMode, Values
from .pieces import Deck, Family

Game = Literal["stein", "rummikub", "romme", "rummy"]
FirstRoundOut = Literal["split", "equal", "normal"]
TimeoutAction = Literal["penalty", "auto_discard", "pass"]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between presets and options. See RULES.md per preset."""

    preset: str
    name: str
    game: Game
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
        names = {f.name for f in dataclasses.fields(self)} - {"preset", "name", "game", "family"}
        for key in options:
            if key not in names:
                raise RummyError(
                    "rules.option",
                    why=f'unknown option "{key}"',
                    why_de=f'unbekannte Option "{key}"',
                )
        changed = dataclasses.replace(self, **options)
        changed.validate()
        return changed

    def validate(self) -> None:
        def bad(why: str, why_de: str) -> RummyError:
            return RummyError("rules.option", why=why, why_de=why_de)

        if not 2 <= self.min_players <= self.max_players <= 6:
            raise bad("player counts must be 2-6", "Spielerzahl muss 2-6 sein")
        if self.pool_jokers < 0 or self.jokers_per_player < 0 or self.pool_jokers > 6:
            raise bad("joker counts must be 0-6", "Jokeranzahl muss 0-6 sein")
        if self.turn_seconds is not None and not 30 <= self.turn_seconds <= 48 * 3600:
            raise bad(
                "turn time must be 30 seconds to 48 hours",
                "Zugzeit muss 30 Sekunden bis 48 Stunden sein",
            )
        if not 1 <= self.hand_size <= 20:
            raise bad("hand size must be 1-20", "Handgröße muss 1-20 sein")

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that differ from the preset, plus the preset's name: short and stable."""
        base = preset(self.preset)
        out: dict[str, Any] = {"preset": self.preset}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name not in ("preset", "extra") and value != getattr(base, f.name):
                out[f.name] = [list(v) for v in value] if isinstance(value, tuple) else value
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


@lru_cache(maxsize=64)
def _deck(family: Family, copies: int, jokers: int) -> Deck:
    return Deck.build(family, copies, jokers)


STEIN = RuleSet(
    preset="stein",
    name="Stein-Rummy",
    game="stein",
    family="tile",
    min_players=3,
    max_players=4,
    hand_size=14,
    jokers_per_player=1,
    run_mode="wrap",
    max_run=26,
    draws_per_turn=2,
    discard_picks_per_turn=1,
    pick_any_discard=True,
    discard_required=True,
    joker_freed_to_hand=True,
    group_joker_needs_fourth=True,
    take_with_joker=True,
    first_round_out="split",
    timeout_action="auto_discard",
    joker_penalty=1,
)

STEIN_PLUS = dataclasses.replace(STEIN, preset="stein_plus", name="Stein-Rummy Plus", claims=True)

RUMMIKUB = RuleSet(
    preset="rummikub",
    name="Rummikub (30-point opening)",
    game="rummikub",
    family="tile",
    min_players=2,
    max_players=4,
    hand_size=14,
    pool_jokers=4,
    run_mode="linear",
    max_run=13,
    draws_per_turn=1,
    opening_minimum=30,
    joker_freed_to_hand=False,
    joker_meld_no_split=True,
    turn_seconds=120,
    timeout_action="penalty",
    timeout_penalty_tiles=3,
    joker_penalty=30,
)

ROMME = RuleSet(
    preset="romme",
    name="Rommé",
    game="romme",
    family="card",
    min_players=2,
    max_players=6,
    copies=2,
    hand_size=13,
    pool_jokers=6,
    run_mode="wrap",
    max_run=13,
    meld_values="romme",
    draws_per_turn=1,
    discard_required=True,
    opening_minimum=40,
    joker_freed_to_hand=True,
    joker_penalty=20,
    hand_romme_double=True,
)

RUMMY = RuleSet(
    preset="rummy",
    name="Rummy",
    game="rummy",
    family="card",
    min_players=2,
    max_players=4,
    copies=1,
    hand_size=7,
    hand_size_by_players=((2, 10), (3, 7), (4, 7)),
    pool_jokers=0,
    run_mode="linear",
    max_run=13,
    meld_values="rummy",
    draws_per_turn=1,
    discard_required=False,
    upcard=True,
    max_reshuffles=1,
    match_target_by_players=((2, 100), (3, 150), (4, 200)),
    rummy_bonus_double=True,
    joker_penalty=0,
)

PRESETS: dict[str, RuleSet] = {r.preset: r for r in (STEIN, STEIN_PLUS, RUMMIKUB, ROMME, RUMMY)}


def preset(name: str) -> RuleSet:
    """The preset of that name, or a ``rules.unknown_preset`` error listing the choices."""
    key = name.strip().lower().replace("-", "_")
    if key not in PRESETS:
        raise RummyError("rules.unknown_preset", preset=name, choices=", ".join(PRESETS))
    return PRESETS[key]
