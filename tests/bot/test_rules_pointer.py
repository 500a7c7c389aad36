"""The rules live in the repository (issue 13): ``/rummy rules`` and the console's ``help`` point
to docs/RULES.md, which exists and covers every preset."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from bot.console import count_pieces, run_console
from engine.rules import PRESETS
from tests.bot.conftest import CHANNEL_ID, PLAYER_ID
from tests.bot.discord_helpers import make_bot, slash
from tests.bot.fakediscord import FakeDiscord, option, running, subcommand

ROOT = Path(__file__).resolve().parents[2]


def test_docs_rules_exists_and_covers_every_preset() -> None:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    for name in PRESETS:
        assert f"`{name}`" in text, name
    assert "docs/RULES.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("locale", "start", "pointer"),
    [
        ("en-US", "Stein-Rummy Plus: as Stein-Rummy", "All the rules, with every option and "),
        ("de", "Stein-Rummy Plus: wie Stein-Rummy", "Alle Regeln mit allen Optionen und "),
    ],
)
async def test_rummy_rules_points_to_docs_rules(
    fake_discord: FakeDiscord, tmp_path: Path, locale: str, start: str, pointer: str
) -> None:
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        rules = subcommand("rules", option("preset", "stein_plus"))
        _, said = await slash(fake_discord, PLAYER_ID, CHANNEL_ID, "rummy", [rules], locale=locale)
    assert said.startswith(start)
    assert pointer in said and "docs/RULES.md" in said
    assert "4, 3, 2, 1" in said or "4, dann 3, 2, 1" in said or "4, then 3, 2, 1" in said


async def test_rummy_rules_of_every_preset_names_docs_rules(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    bot = make_bot(tmp_path / "db.sqlite3")
    async with running(bot):
        for name in PRESETS:
            rules = subcommand("rules", option("preset", name))
            _, said = await slash(fake_discord, PLAYER_ID, CHANNEL_ID, "rummy", [rules])
            assert "docs/RULES.md" in said, name


@pytest.mark.parametrize(
    ("lang", "fragment"),
    [("en", "All the rules, every preset"), ("de", "Alle Regeln, jedes Spiel")],
)
async def test_console_help_points_to_docs_rules(lang: str, fragment: str) -> None:
    out = io.StringIO()
    code = await run_console(
        preset="rummikub",
        bots=1,
        seed=1,
        level="easy",
        pictures=None,
        lang=lang,
        stdin=io.StringIO("help\nquit\n"),
        stdout=out,
    )
    assert code == 0
    text = out.getvalue()
    assert fragment in text and "docs/RULES.md" in text
    assert "';' or '|'" in text or "';' oder '|'" in text


def test_counts_of_pieces_are_singular_or_plural_and_name_cards() -> None:
    assert count_pieces(1, "tile") == "1 tile"
    assert count_pieces(14, "tile") == "14 tiles"
    assert count_pieces(1, "card") == "1 card"
    assert count_pieces(0, "card") == "0 cards"
    assert count_pieces(1, "tile", "de") == "1 Stein"
    assert count_pieces(2, "card", "de") == "2 Karten"


@pytest.mark.parametrize(
    ("preset", "lang", "seat_line", "rack"),
    [
        ("romme", "en", "(you): 13 cards", "Your hand: "),
        ("romme", "de", "(du): 13 Karten", "Deine Karten: "),
        ("rummikub", "de", "(du): 14 Steine", "Deine Bank: "),
    ],
)
async def test_console_table_speaks_of_cards_or_tiles(
    preset: str, lang: str, seat_line: str, rack: str
) -> None:
    out = io.StringIO()
    await run_console(
        preset=preset,
        bots=1,
        seed=1,
        level="easy",
        pictures=None,
        lang=lang,
        stdin=io.StringIO("table\nrack\nquit\n"),
        stdout=out,
    )
    text = out.getvalue()
    assert seat_line in text and rack in text
    assert " pieces" not in text


def test_nothing_in_the_repository_points_outside_it() -> None:
    """The rules live in docs/RULES.md; no tracked text refers to the shared folder beside the
    repository (issue 13)."""
    git = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if git.returncode == 0:
        listed = git.stdout.split()
    else:  # not a git checkout (an unpacked archive): every file but the virtualenv
        skip = (".venv", ".git", "build")
        listed = [
            str(f.relative_to(ROOT))
            for f in ROOT.rglob("*")
            if f.relative_to(ROOT).parts[0] not in skip and ".egg-info" not in str(f)
        ]
    outside = ("../" + "shared", "shared/" + "RULES")  # split so this file does not match itself
    offenders = []
    for name in listed:
        path = ROOT / name
        if path.suffix not in (".md", ".py", ".toml", ".txt", ".cfg") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(pointer in text for pointer in outside):
            offenders.append(name)
    assert offenders == []


@pytest.mark.parametrize(
    ("preset", "lang", "present", "absent"),
    [
        ("romme", "en", "discard CARD", "take N PIECE"),
        ("romme", "de", "discard KARTE", "claim N"),
        ("stein_plus", "en", "claim N, unclaim N", "CARD"),
    ],
)
async def test_console_help_fits_the_game(preset: str, lang: str, present: str, absent: str):
    out = io.StringIO()
    await run_console(
        preset=preset,
        bots=2,
        seed=3,
        level="easy",
        pictures=None,
        lang=lang,
        stdin=io.StringIO("help\nquit\n"),
        stdout=out,
    )
    text = out.getvalue()
    assert present in text and absent not in text and "docs/RULES.md" in text
