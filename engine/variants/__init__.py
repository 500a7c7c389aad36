"""The variant registry: every game the bot offers is one :class:`Variant`, declared in one module.

A variant names its preset :class:`~engine.rules.RuleSet` (whose fields decide every rule the engine
plays, its scoring included: ``RuleSet.scoring``), its family (tiles or cards), its game class, how a
finished game counts on the ladder (:class:`Ladder`), whether tournaments use it, and the keys of its
texts (``variant.<name>.name``, ``.summary``, ``.rules`` in the i18n catalogues). Everything else asks
the registry (:func:`variant`, :func:`variants`) instead of comparing preset names.

The five built-in presets live in ``engine/variants/<name>.py``; they are loaded on the first lookup,
so this module imports nothing but :mod:`engine.errors` and :mod:`engine.rules` may use it. Tests (and
later plug-ins) add variants with :func:`register` and take them away with :func:`unregister`.
"""

from __future__ import annotations

import enum
import functools
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import RummyError

if TYPE_CHECKING:
    from ..rules import RuleSet

__all__ = [
    "DEFAULT_TOURNAMENT_VARIANT",
    "DEFAULT_VARIANT",
    "Ladder",
    "Variant",
    "adopt",
    "normalise",
    "plugins",
    "register",
    "tournament_variants",
    "unregister",
    "variant",
    "variant_names",
    "variants",
]

DEFAULT_VARIANT = "rummikub"
"""The preset a new game, the soak and the tools use when nobody names one."""

DEFAULT_TOURNAMENT_VARIANT = "stein"
"""The preset a tournament uses when its organiser names none."""

BUILTIN: tuple[str, ...] = ("stein", "stein_plus", "rummikub", "romme", "rummy")
"""The built-in variants, one module each in this package, in the order they are offered."""

_GAME_CLASSES = {"tile": "engine.tiles:TileGame", "card": "engine.cards:CardGame"}


class Ladder(enum.Enum):
    """How a finished game of a variant counts on the league's ladder."""

    STEIN_MP = "stein_mp"
    """Match points n+1-k by tiles left, the winner first (Stein; three players at least)."""
    STEIN_PLUS_MP = "stein_plus_mp"
    """Stein Plus: SMP by tiles left plus one MP per claim standing (``details["claims"]``)."""
    PLACE_BY_POINTS = "place_by_points"
    """Place match points by the game's points, higher is better (Rummikub)."""
    PLACE_BY_PENALTY = "place_by_penalty"
    """A sitting of games; its penalty table, lower is better, gives the places (Rommé)."""
    MATCH_WINNER = "match_winner"
    """A match of games up to ``RuleSet.match_target_by_players`` gives one ladder result (Rummy)."""


@dataclass(frozen=True)
class Variant:
    """One game the bot offers. ``rules`` is its preset; the rest says how the layers above treat
    it. ``text_key`` defaults to ``variant.<name>``; ``game_path`` (``"module:Class"``) to the
    family's game class."""

    rules: RuleSet
    ladder: Ladder
    tournaments: bool = False
    ranked: bool = True
    text_key: str = ""
    game_path: str = ""

    def __post_init__(self) -> None:
        if not self.text_key:
            object.__setattr__(self, "text_key", f"variant.{self.name}")
        if not self.game_path:
            object.__setattr__(self, "game_path", _GAME_CLASSES[self.rules.family])

    @property
    def name(self) -> str:
        """The preset key (``rules.preset``), e.g. ``"stein_plus"``."""
        return self.rules.preset

    @property
    def family(self) -> str:
        """``"tile"`` or ``"card"``."""
        return self.rules.family

    @property
    def scoring(self) -> str:
        """How a finished game scores (``RuleSet.scoring``)."""
        return self.rules.scoring

    @property
    def game_class(self) -> type:
        """The game class (``engine.tiles.TileGame``, ``engine.cards.CardGame``), imported on first
        use: the game modules import the rules, which use this registry."""
        return _import_class(self.game_path)

    @property
    def name_key(self) -> str:
        """i18n key of the display name (``variant.rummikub.name``)."""
        return f"{self.text_key}.name"

    @property
    def summary_key(self) -> str:
        """i18n key of the one-line summary."""
        return f"{self.text_key}.summary"

    @property
    def rules_key(self) -> str:
        """i18n key of the rules text that ``/rummy rules`` shows."""
        return f"{self.text_key}.rules"


@functools.cache
def _import_class(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


_REGISTRY: dict[str, Variant] = {}


def _load_builtins() -> dict[str, Variant]:
    """The registry, with the built-in variants' modules imported on the first call."""
    if not _REGISTRY:
        for name in BUILTIN:
            module = importlib.import_module(f"{__name__}.{name}")
            found: Variant = module.VARIANT
            if found.name != name:
                raise ValueError(f"engine/variants/{name}.py declares variant {found.name!r}")
            _REGISTRY.setdefault(name, found)
    return _REGISTRY


def normalise(name: str) -> str:
    """The registry key of a preset name as people type it: ``"Stein-Plus"`` -> ``"stein_plus"``."""
    return name.strip().lower().replace("-", "_")


def variant(name: str) -> Variant:
    """The variant of that name, or a ``rules.unknown_preset`` error listing the choices."""
    registry = _load_builtins()
    found = registry.get(normalise(name))
    if found is None:
        raise RummyError("rules.unknown_preset", preset=name, choices=", ".join(registry))
    return found


def variants() -> tuple[Variant, ...]:
    """Every variant, the built-in ones first, then the registered ones in registration order."""
    return tuple(_load_builtins().values())


def variant_names() -> tuple[str, ...]:
    """The names of :func:`variants`."""
    return tuple(_load_builtins())


def tournament_variants() -> tuple[str, ...]:
    """The names of the variants tournaments may use."""
    return tuple(v.name for v in variants() if v.tournaments)


def register(new: Variant) -> Variant:
    """Add a variant (its name must be new and already normalised); returns it."""
    registry = _load_builtins()
    if new.name in registry:
        raise ValueError(f"variant {new.name!r} is already registered")
    if normalise(new.name) != new.name:
        raise ValueError(f"variant name {new.name!r} is not normalised ({normalise(new.name)!r})")
    registry[new.name] = new
    return new


def unregister(name: str) -> None:
    """Take away a registered variant (the built-in ones stay)."""
    key = normalise(name)
    if key in BUILTIN:
        raise ValueError(f"the built-in variant {key!r} cannot be unregistered")
    registry = _load_builtins()
    if key not in registry:
        raise RummyError("rules.unknown_preset", preset=name, choices=", ".join(registry))
    del registry[key]


def plugins() -> tuple[Variant, ...]:
    """The registered variants beyond the built-in ones: what a worker process (which imports the
    built-ins itself) must :func:`adopt` to play the same games."""
    return tuple(v for v in variants() if v.name not in BUILTIN)


def adopt(found: Iterable[Variant]) -> None:
    """Register each of ``found`` not registered yet (in a worker process: the parent's
    :func:`plugins`, passed to its initializer)."""
    registry = _load_builtins()
    for v in found:
        if v.name not in registry:
            register(v)
