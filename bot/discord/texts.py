"""TRANSITIONAL (D, issue 15): the Discord adapter's sentences now live in the i18n catalogues
(``i18n/en.json``, ``i18n/de.json``) under ``discord.<key>``; slash command names and
descriptions under ``slash.<English>``.

Callers should use ``i18n.t("discord.<key>", lang, ...)`` and ``i18n.lang_of`` directly; this module
only forwards until they do, then it goes.
"""

from __future__ import annotations

from typing import Any

import i18n
from i18n import lang_of

__all__ = ["lang_of", "t"]


def t(key: str, lang: str = "en", **params: Any) -> str:
    """TRANSITIONAL: ``i18n.t("discord." + key, lang, **params)`` (``rules_<preset>`` is
    ``variant.<preset>.rules``)."""
    if key.startswith("rules_") and key != "rules_more":
        return i18n.t(f"variant.{key[6:]}.rules", lang, **params)
    return i18n.t(f"discord.{key}", lang, **params)
