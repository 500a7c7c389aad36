"""The i18n catalogues: both languages hold the same keys with the same placeholders, ``t()``
falls back and fails clearly, every error code the code can raise has a text, and the texts
read exactly as they did before they moved into the catalogues (old_texts.json holds the
sentences of the seven old tables, recorded before the move; since issue 16 the German rack is
"Bank" everywhere, one word per language, where some old sentences said "Steine")."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import string
from pathlib import Path
from types import SimpleNamespace

import pytest

import i18n
from i18n import catalogue, error_dict, error_text, event_text, lang_of, t
from rendering.text import Labels

ROOT = Path(__file__).resolve().parents[2]
OLD = json.loads((Path(__file__).parent / "old_texts.json").read_text(encoding="utf-8"))


def _placeholders(value: object) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    names = set()
    for text in texts:
        assert isinstance(text, str), text
        names |= {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    return names


def test_both_catalogues_hold_the_same_keys():
    assert set(catalogue("en")) == set(catalogue("de"))


@pytest.mark.parametrize("key", sorted(catalogue("en")))
def test_same_placeholders_in_both_languages(key):
    en, de = catalogue("en")[key], catalogue("de")[key]
    assert type(en) is type(de), key
    if isinstance(en, dict):
        assert set(en) == set(de) == {"one", "other"}, key
    assert _placeholders(en) == _placeholders(de), key
    assert not any(name.endswith("_de") for name in _placeholders(de)), key


def test_keys_are_namespaced():
    prefixes = ("error.", "event.", "why.", "discord.", "slash.", "service.", "console.")
    prefixes += ("render.", "variant.", "hint.", "move.", "tools.", "working.", "turns.")
    odd = [k for k in catalogue("en") if not k.startswith(prefixes)]
    assert odd == []


@pytest.mark.parametrize("case", OLD, ids=[c["key"] for c in OLD])
def test_texts_read_as_before_the_move(case):
    key, params = case["key"], case["params"]
    if key.startswith("slash."):
        assert i18n.template(key, "en") == case["en"]
        assert i18n.template(key, "de") == case["de"]
        return
    # the old tables took a German variant ``x_de`` of a free-text param; now each language's
    # caller passes ``x`` worded (or a nested key)
    en = {k: v for k, v in params.items() if not k.endswith("_de")}
    de = {**en, **{k[:-3]: v for k, v in params.items() if k.endswith("_de")}}
    assert t(key, "en", **en) == case["en"]
    assert t(key, "de", **de) == case["de"]


def test_lang_of_reads_locales():
    assert lang_of(None) == "en"
    assert lang_of("de") == lang_of("de-DE") == lang_of("DE") == "de"
    assert lang_of("en-US") == lang_of("fr") == lang_of("") == "en"
    assert lang_of(SimpleNamespace(value="de")) == "de"


def test_german_falls_back_to_english_per_key(monkeypatch):
    de = dict(catalogue("de"))
    del de["discord.ok"]
    monkeypatch.setattr(i18n, "catalogue", lambda lang: de if lang == "de" else _EN)
    assert t("discord.ok", "de") == "Done."
    assert t("discord.internal", "de").startswith("Bei uns")


_EN = catalogue("en")


def test_unknown_key_and_missing_param_fail_clearly():
    with pytest.raises(KeyError, match=r"no text for key 'nope\.nothing'"):
        t("nope.nothing", "en")
    with pytest.raises(KeyError, match=r"'error.game.not_found' \(de\) needs param 'game'"):
        t("error.game.not_found", "de")
    with pytest.raises(KeyError, match=r"no catalogue for language 'fr'"):
        catalogue("fr")


def test_nested_keys_lists_plurals_and_seats(monkeypatch):
    en = {
        **_EN,
        "why.x": "a {what} reason.",
        "error.x": "It failed: {why}",
        "event.x": "{player} takes {n} from {other}: {list}",
        "why.pl": {"one": "{count} tile", "other": "{count} tiles"},
    }
    monkeypatch.setattr(i18n, "catalogue", lambda lang: en)
    assert t("error.x", why={"key": "why.x", "what": "good"}) == "It failed: a good reason."
    assert (
        t("error.x", why={"key": "why.x", "what": "good", "rstrip": "."})
        == "It failed: a good reason"
    )
    assert t("why.pl", count=1) == "1 tile"
    assert t("why.pl", count=3) == "3 tiles"
    with pytest.raises(KeyError, match=r"plural and needs param 'count'"):
        t("why.pl")
    items = {"items": [{"key": "why.pl", "count": 2}, "and more"], "sep": ", "}
    assert t("error.x", why=items) == "It failed: 2 tiles, and more"
    event = SimpleNamespace(kind="x", seat=1, params={"n": 2, "other": {"seat": 0}, "list": "-"})
    assert event_text(event, "en", ["Ann", "Bob"]) == "Bob takes 2 from Ann: -"
    assert event_text(event, "en") == "#2 takes 2 from #1: -"
    keyed = SimpleNamespace(kind="draw", seat=0, params={"key": "why.x", "what": "keyed"})
    assert event_text(keyed, "en", ["Ann"]) == "a keyed reason."
    own = SimpleNamespace(
        kind="x", seat=0, params={"player": "Me", "n": 1, "other": "you", "list": ""}
    )
    assert event_text(own, "en", ["Ann"]) == "Me takes 1 from you: "


def test_error_text_of_real_errors():
    from bot.league.errors import LeagueError
    from bot.service.errors import ServiceError
    from engine.errors import RummyError

    exc = ServiceError("game.not_found", game="g1")
    assert error_text(exc, "en") == "There is no game g1."
    assert error_text(exc, "de-DE") == "Es gibt kein Spiel g1."
    assert error_dict(exc, "de") == {"code": "game.not_found", "message": "Es gibt kein Spiel g1."}
    assert error_text(LeagueError("mp.negative", seat=2, value=-1), "en") == (
        "Seat 2: -1 cannot be negative."
    )
    exc = RummyError("rules.option", why={"key": "why.rules.players", "low": 2, "high": 6})
    assert error_text(exc, "en") == "player counts must be 2-6"
    assert error_text(exc, "de") == "Spielerzahl muss 2-6 sein"


def test_card_wording_is_chosen_for_card_errors():
    from engine.errors import RummyError

    class CardError(RummyError):
        wording = "card"

    plain = RummyError("meld.too_short", where="", pieces="7H 8H")
    card = CardError("meld.too_short", where="", pieces="7H 8H")
    assert error_text(plain, "en") == "7H 8H: a meld needs at least 3 pieces."
    assert error_text(card, "en") == "7H 8H: a meld needs at least 3 cards."
    assert error_text(card, "de") == "7H 8H: eine Kombination braucht mindestens 3 Karten."
    # a code without card wording: the shared text
    assert error_text(CardError("turn.pool_empty"), "en") == "The pool is empty."


# ---------------------------------------------------------------- every raisable code has a text

_ERROR_CALL = re.compile(
    r"\b(?:RummyError|CardRummyError|ServiceError|LeagueError|LeagueServiceError|SettlementError"
    r"|CodedError|_error|_meld_error|error|bad)\(\s*\"([a-z_]+\.[a-z_]+)\""
)
_FAMILIES = "|".join(
    [
        "parse",
        "meld",
        "piece",
        "turn",
        "opening",
        "joker",
        "claim",
        "help",
        "place",
        "solver",
        "rules",
        "cards",
        "settlement",
        "game",
        "lobby",
        "command",
        "service",
        "input",
        "options",
        "mp",
        "result",
        "ladder",
        "season",
        "league",
        "sitting",
        "rummy",
        "tournament",
    ]
)


# literals that look like codes but are not raised: a code prefix, file names
_NOT_CODES = {"joker.freed"}


def _sources() -> list[Path]:
    found = []
    for top in ("engine", "bot", "rummy_tools", "rendering"):
        found += sorted((ROOT / top).rglob("*.py"))
    return found


def test_every_raised_error_code_has_a_text():
    literal = re.compile(r"\"((?:" + _FAMILIES + r")\.[a-z_]+)\"")
    missing = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        codes = set(_ERROR_CALL.findall(text)) | set(literal.findall(text))
        for code in codes:
            if code in _NOT_CODES or code.endswith((".py", ".png", ".json")):
                continue
            if i18n.has(f"error.{code}") or i18n.has(code):  # a code, or a nested reason
                continue
            missing.setdefault(code, str(path.relative_to(ROOT)))
    assert missing == {}


def test_catalogue_merges_area_files_and_refuses_a_key_twice(tmp_path, monkeypatch):
    """Each area keeps its texts in ``i18n/<lang>/<area>.json``; they merge into one catalogue,
    and a key defined in two files is an error naming the file, never a silent override."""
    (tmp_path / "en").mkdir()
    (tmp_path / "en.json").write_text('{"a.one": "1"}', encoding="utf-8")
    (tmp_path / "en" / "area.json").write_text('{"b.two": "2"}', encoding="utf-8")
    monkeypatch.setattr(i18n, "_HERE", tmp_path)
    catalogue.cache_clear()
    try:
        assert dict(catalogue("en")) == {"a.one": "1", "b.two": "2"}
        (tmp_path / "en" / "other.json").write_text('{"a.one": "again"}', encoding="utf-8")
        catalogue.cache_clear()
        with pytest.raises(KeyError, match=r"other\.json.*a\.one"):
            catalogue("en")
    finally:
        monkeypatch.undo()
        catalogue.cache_clear()


def _literals_and_prefixes() -> tuple[set[str], set[str]]:
    """Every string literal of the code, and the leading text of every f-string that ends in a
    dot (``f"turns.{kind}"`` -> ``"turns."``: a key made from a literal at run time)."""
    literals: set[str] = set()
    prefixes: set[str] = set()
    for path in [*_sources(), *sorted((ROOT / "i18n").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values:
                head = node.values[0]
                if isinstance(head, ast.Constant) and str(head.value).endswith("."):
                    prefixes.add(str(head.value))
    return literals, prefixes


def _reached(key: str, literals: set[str], prefixes: set[str]) -> bool:
    """Can the code ask for ``key``? Written in it; a picture label (``render.<field>``); a
    slash text (``slash.<the English text>``, asked for by the translator); a variant's text;
    an error code or event kind (``error.<code>``, ``error.card.<code>``, ``event.<kind>``);
    or an f-string's prefix followed by literals (``turns.added.card``: kind and family)."""
    if key in literals or key.startswith("variant."):
        return True
    if key.startswith("render.") and key.removeprefix("render.") in _LABELS:
        return True
    for prefix in (*prefixes, "slash.", "error.card.", "error.", "event."):
        if key.startswith(prefix):
            rest = key.removeprefix(prefix)
            head, _, tail = rest.rpartition(".")
            if rest in literals or (head in literals and tail in literals):
                return True
    return False


_LABELS = {f.name for f in dataclasses.fields(Labels)}


def test_every_catalogue_key_is_reached_by_the_code():
    """The reverse of the test above: a text no code can ask for is dead (and was once a German
    catalogue entry in English that nobody saw)."""
    literals, prefixes = _literals_and_prefixes()
    dead = sorted(k for k in catalogue("en") if not _reached(k, literals, prefixes))
    assert dead == []
