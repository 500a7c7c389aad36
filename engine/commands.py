"""The command language players type (DESIGN.md, "Notation").

:func:`parse_commands` turns a message into :class:`Command` values; ``str(command)`` prints the
canonical form. The command log stores the message as the player typed it (stripped), except that
a ``place`` the legal search resolved is kept written out, with the table it made
(``place PIECES = TABLE``, :meth:`engine.game.PieceGame.log_form`); a replay parses it again: what
this module accepts must keep its meaning. Every parse error names the token at fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import RummyError
from .pieces import Face, Family, format_faces, format_melds, parse_faces, parse_melds

# canonical verb -> accepted spellings
VERBS: dict[str, tuple[str, ...]] = {
    "draw": ("draw", "ziehen"),
    "pick": ("pick", "nehmen"),
    "meld": ("meld", "play", "auslegen"),
    "add": ("add", "lay", "anlegen"),
    "move": ("move",),
    "split": ("split",),
    "join": ("join",),
    "swap": ("swap",),
    "take": ("take",),
    "claim": ("claim",),
    "unclaim": ("unclaim",),
    "place": ("place",),
    "hint": ("hint", "tipp"),
    "undo": ("undo",),
    "reset": ("reset",),
    "discard": ("discard", "ablegen"),
    "done": ("done", "end", "fertig"),
    "knock": ("knock", "klopfen"),
}
ALIASES = {spelling: verb for verb, spellings in VERBS.items() for spelling in spellings}
VERB_LIST = ", ".join(VERBS)

Target = int | Literal["new"]


@dataclass(frozen=True, slots=True)
class Command:
    """One parsed instruction. Fields not used by a verb stay empty."""

    verb: str
    meld: int | None = None  # the meld number N (1-based)
    pieces: tuple[Face, ...] = ()
    melds: tuple[tuple[Face, ...], ...] = ()  # for meld; for place: the table it makes
    target: Target | None = None  # for move (M or "new") and join (M)

    def __str__(self) -> str:
        v = self.verb
        if v == "meld":
            return f"meld {format_melds(self.melds)}"
        if v == "move":
            return f"move {self.meld} {format_faces(self.pieces)} > {self.target}"
        if v == "join":
            return f"join {self.meld} {self.target}"
        if v == "place" and self.melds:
            return f"place {format_faces(self.pieces)} = {format_melds(self.melds)}"
        parts = [v]
        if self.meld is not None:
            parts.append(str(self.meld))
        if self.pieces:
            parts.append(format_faces(self.pieces))
        return " ".join(parts)


@dataclass(slots=True)
class _Segment:
    verb: str
    words: list[str]
    rest: str
    extra_melds: list[str] = field(default_factory=list)


def _arg_error(command: str, why: dict[str, Any]) -> RummyError:
    """A ``parse.arguments`` error; ``why`` is the nested reason (an i18n ``why.*`` key)."""
    return RummyError("parse.arguments", command=command, why=why)


def _meld_number(token: str, command: str) -> int:
    if not token.isdigit() or int(token) < 1:
        raise _arg_error(command, {"key": "why.meld_number", "token": token})
    return int(token)


def _need(words: list[str], count: int, command: str, family: Family) -> None:
    if len(words) < count:
        raise _usage(command, family)


# the verbs with a usage line (i18n ``why.usage.<verb>``, with the family's word for a piece)
_USAGE = frozenset(
    [
        "pick",
        "meld",
        "add",
        "move",
        "split",
        "join",
        "swap",
        "take",
        "claim",
        "unclaim",
        "place",
        "discard",
    ]
)


def _usage(verb: str, family: Family) -> RummyError:
    """How ``verb`` is typed, as the reason of a ``parse.arguments`` error."""
    line: dict[str, Any] | str = verb
    if verb in _USAGE:
        line = {
            "key": f"why.usage.{verb}",
            "p": {"key": f"why.word.piece.{family}"},
            "ps": {"key": f"why.word.pieces.{family}"},
        }
    return _arg_error(verb, {"key": "why.usage", "usage": line})


def _exactly_one(verb: str, family: Family) -> RummyError:
    return _arg_error(verb, {"key": f"why.exactly_one.{family}"})


def _not_expected(verb: str, token: str) -> RummyError:
    return _arg_error(verb, {"key": "why.not_expected", "token": token})


def _build(seg: _Segment, family: Family) -> Command:
    verb, words, text = seg.verb, seg.words, seg.rest
    if verb in ("draw", "hint", "undo", "reset", "done", "knock"):
        if words:
            raise _not_expected(verb, words[0])
        return Command(verb)
    if verb in ("pick", "discard"):
        if verb == "pick" and not words:
            return Command("pick")
        _need(words, 1, verb, family)
        meld = None
        if verb == "discard" and family == "tile" and len(words) == 2 and words[0].isdigit():
            # discard N PIECE: the last tile to go out, taken from table meld N (Stein, RULES.md)
            meld, text = _meld_number(words[0], verb), words[1]
        pieces = tuple(parse_faces(text, family))
        if len(pieces) != 1:
            raise _exactly_one(verb, family)
        return Command(verb, meld=meld, pieces=pieces)
    if verb == "meld":
        melds = [tuple(m) for m in parse_melds("|".join([text, *seg.extra_melds]), family)]
        if not melds:
            raise _usage(verb, family)
        return Command("meld", melds=tuple(melds))
    if verb in ("claim", "unclaim"):
        _need(words, 1, verb, family)
        if len(words) > 1:
            raise _not_expected(verb, words[1])
        return Command(verb, meld=_meld_number(words[0], verb))
    if verb == "place":
        _need(words, 1, verb, family)
        named, written_out, table = text.partition("=")
        if not written_out:
            return Command(verb, pieces=tuple(parse_faces(text, family)))
        # place PIECES = TABLE: the table it makes, written out (the command log's form of a
        # place the legal search resolved, engine/tile/help.py place_as_written)
        pieces = tuple(parse_faces(named, family)) if named.strip() else ()
        melds = [tuple(m) for m in parse_melds("|".join([table, *seg.extra_melds]), family)]
        if not pieces or not melds:
            raise _usage(verb, family)
        return Command(verb, pieces=pieces, melds=tuple(melds))
    if verb == "join":
        _need(words, 2, verb, family)
        if len(words) > 2:
            raise _usage(verb, family)
        return Command(verb, meld=_meld_number(words[0], verb), target=_meld_number(words[1], verb))
    if verb == "move":
        # move N PIECE [PIECE...] > M|new   ('>' may be left out before the last word)
        _need(words, 3, verb, family)
        meld = _meld_number(words[0], verb)
        body = words[1:]
        if ">" in body:
            at = body.index(">")
            piece_words, target_words = body[:at], body[at + 1 :]
        else:
            piece_words, target_words = body[:-1], body[-1:]
        if len(target_words) != 1 or not piece_words:
            raise _usage(verb, family)
        target_word = target_words[0].lower()
        target: Target = "new" if target_word in ("new", "neu") else _meld_number(target_word, verb)
        pieces = tuple(parse_faces(" ".join(piece_words), family))
        return Command(verb, meld=meld, pieces=pieces, target=target)
    # add, split, swap, take: N PIECES
    _need(words, 2, verb, family)
    meld = _meld_number(words[0], verb)
    pieces = tuple(parse_faces(" ".join(words[1:]), family))
    if verb in ("split", "take") and len(pieces) != 1:
        raise _exactly_one(verb, family)
    return Command(verb, meld=meld, pieces=pieces)


# Commands are separated by ";", "|" or a new line, with or without spaces around them (DESIGN.md
# "Notation"). "|" also separates the melds of one ``meld``: a segment that does not start with a
# command word continues the ``meld`` before it.
SEPARATORS = (";", "|", "\n")
_SEGMENTS = re.compile(r"[;|\r\n]")


def _segments(text: str) -> list[list[str]]:
    """The words of each non-empty segment; ``>`` is a word of its own (``move 1 R5>new``)."""
    out = []
    for raw in _SEGMENTS.split(text):
        words = raw.replace(">", " > ").split()
        if words:
            out.append(words)
    return out


def first_verb(text: str) -> str | None:
    """The canonical verb of the first command in ``text`` (``"draw"`` for ``"draw;draw"``), or
    None when the text is empty or does not start with a command word. Reads no arguments."""
    segments = _segments(text)
    return ALIASES.get(segments[0][0].lower()) if segments else None


_PIECE_BREAKS = re.compile(r",+")  # pieces may also be separated by commas: R1,R2,R3


def _no_command_word_inside(words: list[str], skip: int) -> None:
    """A command word among the arguments means a separator is missing (``meld R1 R2 R3 done``,
    also ``meld R1 R2 R3,done``): say so rather than reading ``done`` as a piece."""
    tokens = [t for word in words for t in _PIECE_BREAKS.split(word) if t]
    skip = len([t for word in words[:skip] for t in _PIECE_BREAKS.split(word) if t])
    for at in range(skip, len(tokens)):
        if tokens[at].lower() in ALIASES:
            before = " ".join(tokens[:at])
            raise RummyError(
                "parse.missing_separator",
                token=tokens[at],
                command=" ".join(words),
                suggestion=f"{before}; {' '.join(tokens[at:])}",
            )


def parse_commands(text: str, family: Family = "tile") -> list[Command]:
    """Parse a message of one or more commands, separated by ``;``, ``|`` or new lines (spaces
    around them optional: ``draw;draw;discard B4``).

    A segment that does not start with a verb continues a preceding ``meld`` as a further meld,
    so ``meld R5 R6 R7; B9 Y9 K9`` and ``meld R5 R6 R7|B9 Y9 K9`` lay two melds (and likewise
    the table of a written-out ``place PIECES = TABLE``). A command word
    among the arguments of a command is a missing separator and is reported as such.
    """
    segments: list[_Segment] = []
    for words in _segments(text):
        head = words[0].lower()
        if head in ALIASES:
            _no_command_word_inside(words, 1)
            segments.append(_Segment(ALIASES[head], words[1:], " ".join(words[1:])))
        elif segments and _takes_melds(segments[-1]):
            _no_command_word_inside(words, 0)
            segments[-1].extra_melds.append(" ".join(words))
        else:
            raise RummyError("parse.command", token=words[0], verbs=VERB_LIST)
    if not segments:
        raise RummyError("parse.empty")
    return [_build(seg, family) for seg in segments]


def _takes_melds(seg: _Segment) -> bool:
    """Does a segment without a verb continue this one (as a further meld)?"""
    return seg.verb == "meld" or (seg.verb == "place" and "=" in seg.rest)


def parse_command(text: str, family: Family = "tile") -> Command:
    commands = parse_commands(text, family)
    if len(commands) != 1:
        raise _arg_error(text.strip(), {"key": "why.one_command"})
    return commands[0]
