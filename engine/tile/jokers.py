"""The rules on table jokers (RULES.md "Common ground", "Preset rummikub"; docs/DECISIONS.md
"Table jokers stay in their meld"): what the working table breaks of them."""

from __future__ import annotations

from typing import Any

from ..errors import RummyError
from ..melds import (
    Reading,
    meaning_at,
    meaning_words,
    positional_reading,
    spec_of,
)
from ..pieces import format_faces
from .turn import TurnContext, held_jokers

_ALTERNATIVES = {1: "why.stands_for.one", 2: "why.stands_for.two", 3: "why.stands_for.three"}


def stands_for(found: Reading) -> dict[str, Any] | str:
    """What the jokers of a meld stand for, as a nested i18n param that fits "it stands for
    ...": a group joker for any missing colour (``K4 or Y4``), run jokers each for their place,
    in table order (``R5 (the other joker for R6)``)."""
    places = found.joker_positions()
    if found.kind == "group":
        rank = found.stands_for[0].rank
        present = {f.suit for f in found.faces if not f.is_joker}
        missing = [str(type(found.stands_for[0])(s, rank)) for s in range(4) if s not in present]
        return {"key": _ALTERNATIVES[len(missing)], **dict(zip("abc", missing, strict=False))}
    meant = [str(found.stands_for[k]) for k in places]
    first, others = meant[0], meant[1:]
    if not others:
        return first
    if len(others) == 1:
        return {"key": "why.stands_for.other_joker", "first": first, "other": others[0]}
    listed = ", ".join(others[:-1])
    return {
        "key": "why.stands_for.other_jokers",
        "first": first,
        "listed": listed,
        "last": others[-1],
    }


def joker_faults(g: TurnContext, *, final: bool = True) -> list[RummyError]:
    """What the working table breaks of the rules on table jokers, one error per fault:

    - a joker on the table at the start of the turn that was not freed stays with real
      tiles of its meld (docs/DECISIONS.md "Table jokers stay in their meld"; ``joker.left_meld``);
    - its meaning is fixed by where it sits (RULES.md "Common ground"): a group joker stays a
      joker of its value in a group, and where a freed joker may not go back to the rack
      (Rummikub) a table joker means what it meant until it is freed (``joker.meaning_changed``);
    - Rummikub ``joker_meld_no_split``: the tiles of its meld stay together (``joker.locked_meld``);
    - Rummikub: a joker freed this turn lies in a new meld with a tile played from the rack
      (RULES.md "Jokers"; ``joker.freed_unused`` / ``joker.freed_not_new``).

    ``final=False`` checks only what no later command can mend (the meaning of a joker in a
    valid meld, a split joker meld): every command is refused when it adds such a fault."""
    held = held_jokers(g)
    freed_rule = final and not g.rules.joker_freed_to_hand
    if not held and not (freed_rule and g.turn.freed):
        return []  # no table joker to keep, none freed: nothing to break
    spec = spec_of(g.rules)
    table = g.turn.table
    where = {i: no for no, m in enumerate(table, 1) for i in m.ids}
    faults: list[RummyError] = []
    for joker, (index, meaning) in held.items():
        no = where.get(joker)
        if no is None:
            continue  # not on the working table: conservation is checked elsewhere
        home = g.table[index].ids
        ids = table[no - 1].ids
        if final and not any(i in ids for i in home if not g.deck[i].is_joker):
            shown = format_faces(g.faces(home))
            faults.append(RummyError("joker.left_meld", meld=no, home=shown, joker=joker))
        if g.rules.joker_meld_no_split and any(
            where.get(i, no) != no for i in home if i not in g.turn.freed
        ):
            faults.append(RummyError("joker.locked_meld", meld=no, joker=joker))
        strict = not g.rules.joker_freed_to_hand or (meaning and meaning[0] == "group")
        found = positional_reading(g.faces(ids), spec) if strict and meaning else None
        if found is not None:
            now = meaning_at(found, ids.index(joker))
            if now != meaning:
                faults.append(
                    RummyError(
                        "joker.meaning_changed",
                        meld=no,
                        was=meaning_words(meaning),
                        now=meaning_words(now),
                        joker=joker,
                    )
                )
    if freed_rule:
        faults += freed_faults(g, where)
    return faults


def freed_faults(g: TurnContext, where: dict[int, int]) -> list[RummyError]:
    """Rummikub: every joker freed this turn lies in a new meld - not one holding all the
    tiles of a meld that lay on the table at the turn's start - with a rack tile played this
    turn (RULES.md "Preset rummikub", Jokers)."""
    faults: list[RummyError] = []
    played = set(g.turn.played)
    freed = set(g.turn.freed)
    for joker in g.turn.freed:
        no = where.get(joker)
        if no is None:
            faults.append(
                RummyError(
                    "joker.freed_unused",
                    joker=joker,
                    where={"key": "why.freed.on_rack"},
                )
            )
            continue
        ids = set(g.turn.table[no - 1].ids)
        if not any(i in played and not g.deck[i].is_joker for i in ids):
            faults.append(
                RummyError(
                    "joker.freed_unused",
                    joker=joker,
                    where={"key": "why.freed.no_rack_tile", "meld": no},
                )
            )
            continue
        for old in g.table:
            tiles = [i for i in old.ids if i not in freed]
            if tiles and set(tiles) <= ids:
                shown = format_faces(g.faces(old.ids))
                faults.append(RummyError("joker.freed_not_new", meld=no, old=shown, joker=joker))
                break
    return faults


def fault_keys(g: TurnContext) -> set[tuple[str, Any]]:
    return {(f.code, f.params.get("joker")) for f in joker_faults(g, final=False)}


def refuse_split(g: TurnContext, number: int) -> None:
    """After splitting meld ``number``: refuse, naming that meld, when the split parted the
    tiles of a Rummikub joker meld (``joker_meld_no_split``; no command adds such a fault, so
    any is this split's)."""
    if any(f.code == "joker.locked_meld" for f in joker_faults(g, final=False)):
        raise RummyError("joker.locked_meld", meld=number)
