"""The terminal (issue 16 item 9): computer players' moves named, Ctrl-C ends cleanly (exit 130,
no traceback, the worker process gone, no Enter needed), pictures only when asked and one file
per turn showing the working table, no turn time limit unless asked, the rack sorted as in the
picture, and every text in German when asked (``--lang de`` or ``LANG``)."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli import build_parser
from bot.console import run_console

ROOT = Path(__file__).resolve().parents[2]
RUMMY_BOT = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())"]


async def console(text: str, **kw) -> str:
    out = io.StringIO()
    kw.setdefault("preset", "rummikub")
    kw.setdefault("bots", 1)
    kw.setdefault("seed", 1)
    kw.setdefault("level", "easy")
    code = await run_console(stdin=io.StringIO(text), stdout=out, **kw)
    assert code == 0
    return out.getvalue()


async def test_computer_moves_are_named_in_words() -> None:
    said = await console("draw\n" * 12 + "quit\n", bots=2, seed=4, level="medium")
    turns = [line for line in said.splitlines() if re.match(r"Computer \d (drew|laid|add)", line)]
    assert len(turns) >= 12, said
    assert all(re.search(r" · \d+ tiles? left$", line) for line in turns), turns
    # pieces put on the table are named with their meld ("laid R5 R6 R7 (meld 4)", "added B7 to
    # meld 1")
    assert any(re.search(r" laid .+ \(meld \d+\)| added .+ to meld \d+", line) for line in turns)
    assert not re.search(r"^Computer \d has opened\.$", said, re.M)  # the old bare line


async def test_rack_is_sorted_as_in_the_picture() -> None:
    said = await console("rack\nquit\n")
    line = next(x for x in said.splitlines() if x.startswith("Your rack: "))
    pieces = line.removeprefix("Your rack: ").split()
    colours = "BRYK"
    key = [(2, 0) if p == "J" else (0, colours.index(p[0]), int(p[1:])) for p in pieces]
    assert key == sorted(key) and len(pieces) == 14


async def test_german_terminal() -> None:
    said = await console("help\ntable\nrack\ndraw\nquit\n", lang="de")
    assert "Tippe help für die Befehle." in said
    assert "Deine Bank" in said
    assert "hat einen Stein gezogen · noch" in said
    for english in ("Type help", "Your rack", "tiles left", "drew a tile", "is to move"):
        assert english not in said, english


async def test_no_pictures_unless_asked(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    await console("draw\nquit\n")
    assert list(tmp_path.rglob("*.png")) == []


async def test_pictures_one_file_per_turn_showing_the_working_table(tmp_path: Path) -> None:
    """Seed 1 deals the player B9 B10 B11 in Rummikub (a 30-point opening)."""
    pictures = tmp_path / "pictures"
    said = await console("meld B9 B10 B11\nundo\nmeld B9 B10 B11\ndone\nquit\n", pictures=pictures)
    files = sorted(p.name for p in pictures.iterdir())
    turns = [f for f in files if "-turn-" in f]
    racks = [f for f in files if f.endswith("-rack.png")]
    assert len(racks) == 1
    # turn 0 (computer's? no: seed 1 lets the player start), each turn one file
    assert len(turns) == len(set(turns)) >= 2
    assert said.count("(picture: ") == len(files)  # each file named once, then overwritten
    # the working table: while the player's turn goes on, the text table shows the meld laid
    assert "B9 B10 B11" in said


async def test_the_working_table_is_shown_while_the_turn_goes_on() -> None:
    said = await console("meld B9 B10 B11\ntable\nreset\nquit\n")
    table_after_meld = said.split("> meld B9 B10 B11\n", 1)[1].split("> reset", 1)[0]
    assert "1: B9 B10 B11" in table_after_meld  # the working table, not the committed one


def test_turn_time_and_lang_are_documented_and_parsed(monkeypatch) -> None:
    parser = build_parser()
    text = parser.format_help()
    assert "--turn-time" in text and "--pictures" in text and "LANG" in text
    assert parser.parse_args(["--turn-time", "off"]).turn_time is None
    assert parser.parse_args(["--turn-time", "90"]).turn_time == 90
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert build_parser().parse_args([]).lang == "de"
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert build_parser().parse_args([]).lang == "en"


def test_a_bad_turn_time_is_refused_in_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, LANG="de_DE.UTF-8", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [*RUMMY_BOT, "--console", "--turn-time", "soon"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "--turn-time nimmt ganze Sekunden" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_no_turn_limit_unless_asked(tmp_path: Path) -> None:
    """Rummikub's 2-minute limit does not run in the terminal; asked for, it does."""
    from bot.console import turn_options
    from bot.service import ServiceConfig
    from bot.wiring import open_service

    wired = await open_service(tmp_path / "t.sqlite3", config=ServiceConfig(pictures=False))
    try:
        service = wired.service
        await service.start(run_timers=False)
        await service.register_player("p", "P")
        free, _ = await service.create_game("p", "rummikub", turn_options(None), seed=1)
        timed, _ = await service.create_game("p", "rummikub", turn_options(45), seed=1)
        for game in (free, timed):
            await service.add_bot(game, "p", "easy")
            await service.start_game(game, "p")
        assert service.deadline(free) is None
        assert service.deadline(timed) is not None
    finally:
        await wired.close()


def _children(pid: int) -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(") ", 1)[1].split()[1] == str(pid):
            found[int(entry)] = cmd
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_ctrl_c_ends_cleanly_and_stops_the_worker(tmp_path: Path) -> None:
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group, while the console
    waits for a line (stdin stays open) and the computer players' worker is running."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), LANG="C.UTF-8")
    proc = subprocess.Popen(
        [*RUMMY_BOT, "--console", "--preset", "rummikub", "--bots", "3", "--level", "strong"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
        start_new_session=True,
    )
    try:
        said = ""
        while "Type help" not in said:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            said += line
        workers: dict[int, str] = {}
        for _ in range(600):  # until the worker process has started (it warms up on demand)
            workers = {k: v for k, v in _children(proc.pid).items() if "spawn_main" in v}
            if workers:
                break
            proc.stdin.write("draw\n")  # the player's turns keep the computer players busy
            proc.stdin.flush()
            time.sleep(0.1)
        assert workers, "the worker process started"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Stopped." in out
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or "spawn_main" not in (
            Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        ), "the worker process was left running"
