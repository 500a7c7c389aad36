"""Stein-Rummy Plus (RULES.md "Preset stein_plus"): Stein with claims on groups of four; SMP by
place plus one MP per claim standing."""

from __future__ import annotations

import dataclasses

from . import Ladder, Variant
from .stein import RULES as STEIN

RULES = dataclasses.replace(STEIN, preset="stein_plus", name="Stein-Rummy Plus", claims=True)

VARIANT = Variant(RULES, ladder=Ladder.STEIN_PLUS_MP, tournaments=True)
