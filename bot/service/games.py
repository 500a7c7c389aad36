"""The games the service hosts, as front ends see them: the variant registry's names and defaults.

Front ends (Discord, the console, ``rummy-bot``) list the games for choices and defaults from here
and import nothing of the engine (the adapter contract of ``pyproject.toml``); everything that plays
stays behind the service. The registry itself is :mod:`engine.variants`.
"""

from __future__ import annotations

from engine.variants import (
    DEFAULT_TOURNAMENT_VARIANT,
    DEFAULT_VARIANT,
    Variant,
    tournament_variants,
    variant,
    variant_names,
    variants,
)

__all__ = [
    "DEFAULT_TOURNAMENT_VARIANT",
    "DEFAULT_VARIANT",
    "Variant",
    "tournament_variants",
    "variant",
    "variant_names",
    "variants",
]
