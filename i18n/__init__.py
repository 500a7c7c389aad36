"""Every sentence and label the game shows, in English and German: one ``t()``, one catalogue per
language (``i18n/en.json``, ``i18n/de.json``, plus the files of ``i18n/en/`` and ``i18n/de/``, one
per area, merged; a key may be defined only once per language).

The engine, the service and the league produce data (error codes with params, events with a kind
and params); text is made here, at the edge, in the language of the person who reads it.

- Keys are flat and dotted: ``error.<code>``, ``error.card.<code>`` (card wording of a shared
  code), ``event.<kind>`` (or the key an event names in ``params["key"]``), ``hint.*``,
  ``why.*`` / ``move.*`` / ``working.*`` (parts used inside other sentences), ``variant.<name>.*``,
  ``discord.*``, ``slash.<English>`` (slash command names and descriptions), ``service.*``,
  ``console.*``, ``tools.*`` (the ``rummy`` tool) and ``render.*`` (labels drawn into pictures).
- Templates use :meth:`str.format`. A template may also be ``{"one": ..., "other": ...}``,
  chosen by the param ``count``.
- A param that is a dict with ``"key"`` is worded first (recursively, same language), so errors
  and events stay pure data: ``why={"key": "why.rules.players", "low": 2, "high": 6}``; its
  optional ``"rstrip"`` strips the worded end. ``{"items": [...], "sep": " "}`` words a list
  and joins it. ``{"seat": n}`` is the name of seat ``n`` (:func:`event_text`'s ``names``;
  ``#n+1`` without them).

This package imports nothing else of the project.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "LANGS",
    "error_dict",
    "error_text",
    "event_text",
    "has",
    "lang_of",
    "render_labels",
    "t",
    "template",
]

LANGS: tuple[str, ...] = ("en", "de")

_HERE = Path(__file__).resolve().parent


@cache
def catalogue(lang: str) -> Mapping[str, Any]:
    """The catalogue of ``lang`` ("en" or "de"): key -> template (str or plural dict), merged
    from ``<lang>.json`` and ``<lang>/*.json`` (KeyError if two files define one key)."""
    if lang not in LANGS:
        raise KeyError(f"i18n: no catalogue for language {lang!r} (known: {', '.join(LANGS)})")
    merged: dict[str, Any] = {}
    for path in (_HERE / f"{lang}.json", *sorted((_HERE / lang).glob("*.json"))):
        with path.open(encoding="utf-8") as file:
            part = json.load(file)
        twice = sorted(set(part) & set(merged))
        if twice:
            raise KeyError(f"i18n: {path.name} repeats keys of another {lang} file: {twice}")
        merged.update(part)
    return merged


def lang_of(locale: Any) -> str:
    """``"de"`` for any German locale (``discord.Locale.german``, ``"de-DE"``, ``"DE"``), else
    ``"en"`` (also for ``None``)."""
    value = getattr(locale, "value", locale)
    return "de" if str(value or "").lower().startswith("de") else "en"


def has(key: str) -> bool:
    """Whether the catalogues hold ``key``."""
    return key in catalogue("en")


def _template(key: str, lang: str) -> Any:
    found = catalogue(lang).get(key)
    if found is None:
        found = catalogue("en").get(key)
    if found is None:
        raise KeyError(f"i18n: no text for key {key!r}")
    return found


def template(key: str, lang: str = "en") -> str:
    """The raw template of ``key`` in ``lang`` (English when German lacks it), unformatted."""
    found = _template(key, lang_of(lang))
    if not isinstance(found, str):
        raise TypeError(f"i18n: {key!r} is a plural text, not one template")
    return found


def _seat_name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"


def _word(value: Any, lang: str, names: Sequence[str] | None) -> Any:
    if isinstance(value, Mapping):
        if "key" in value:
            sub = {k: v for k, v in value.items() if k not in ("key", "rstrip")}
            text = _t(value["key"], lang, sub, names)
            strip = value.get("rstrip")
            return text.rstrip(strip) if strip else text
        if "items" in value:
            return str(value.get("sep", " ")).join(
                str(_word(item, lang, names)) for item in value["items"]
            )
        if "seat" in value:
            return _seat_name(value["seat"], names or ())
    return value


def _t(key: str, lang: str, params: Mapping[str, Any], names: Sequence[str] | None) -> str:
    found = _template(key, lang)
    if isinstance(found, Mapping):
        count = params.get("count")
        if count is None:
            raise KeyError(f"i18n: text {key!r} is a plural and needs param 'count'")
        found = found["one"] if count == 1 else found["other"]
    worded = {name: _word(value, lang, names) for name, value in params.items()}
    try:
        return found.format(**worded)
    except KeyError as missing:
        raise KeyError(f"i18n: text {key!r} ({lang}) needs param {missing.args[0]!r}") from None
    except (IndexError, ValueError) as bad:
        raise ValueError(f"i18n: text {key!r} ({lang}) cannot be formatted: {bad}") from None


def t(key: str, lang: str = "en", /, **params: Any) -> str:
    """The text ``key`` in ``lang`` (any locale; German falls back to English per key), formatted
    with ``params`` (nested keys worded first)."""
    return _t(key, lang_of(lang), params, None)


def _error_keys(exc: Any) -> list[str]:
    keys = [f"error.{exc.code}"]
    wording = getattr(exc, "wording", None)
    if wording:
        keys.insert(0, f"error.{wording}.{exc.code}")
    return keys


def error_text(exc: Any, lang: str = "en") -> str:
    """The sentence for an error with ``.code`` and ``.params`` (engine, service, league,
    settlement). Card errors (``wording = "card"``) use their card wording where there is one."""
    keys = _error_keys(exc)
    key = next((k for k in keys if has(k)), keys[-1])
    return _t(key, lang_of(lang), dict(exc.params), None)


def error_dict(exc: Any, lang: str = "en") -> dict[str, str]:
    """``{"code": ..., "message": ...}``: the JSON form of an error (CLIs, the service)."""
    return {"code": exc.code, "message": error_text(exc, lang)}


def event_text(event: Any, lang: str = "en", names: Sequence[str] = ()) -> str:
    """The sentence for an event (``kind``, ``seat``, ``params``) in ``lang``: the catalogue key is
    ``params["key"]`` when the event names one (a kind worded per game or case), else
    ``event.<kind>``. Unless the event carries ``player`` itself, it is ``names[seat]``; any
    ``{"seat": n}`` param is ``names[n]``."""
    params = dict(event.params)
    key = params.pop("key", None) or f"event.{event.kind}"
    seat = getattr(event, "seat", None)
    if seat is not None and "player" not in params:
        params["player"] = _seat_name(seat, names)
    return _t(key, lang_of(lang), params, list(names))


def render_labels(lang: str = "en") -> dict[str, Any]:
    """The picture labels in ``lang`` (``render.*`` templates without the prefix, and
    ``presets``: each game's name, ``variant.<name>.name``), for
    ``rendering.Labels(**render_labels(lang))``."""
    lang = lang_of(lang)
    keys = catalogue("en")
    labels: dict[str, Any] = {k[7:]: template(k, lang) for k in keys if k.startswith("render.")}
    labels["presets"] = {
        k.split(".")[1]: template(k, lang)
        for k in keys
        if k.startswith("variant.") and k.endswith(".name") and k.count(".") == 2
    }
    return labels
