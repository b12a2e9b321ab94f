"""`woundlog hit` and `woundlog heal` read without typer (replays/cli/quick.py): what a person
sees and what the store keeps are what typer's commands give, the line read quickly or left to
typer; and a hit read quickly loads neither typer, click nor rich.

Each line runs in a process of its own, once through the console script's `main` and once
through the typer app with every command built (as test_cli_startup.py compares them), each on
its own copy of one store: the exit status, stdout and stderr of every line must be the same, and
so must the two stores' rows afterwards.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from woundlog.replays.cli import quick
from woundlog.replays.cli.pipes import CLOSED_PIPE
from woundlog.replays.cli.quick import read

from .test_cli_startup import RICH, loaded_by, top_level

MAIN = "from woundlog.replays.cli import main; main()"
TYPER = "from woundlog.replays.cli import app; app(prog_name='woundlog')"

QUICK: list[tuple[str, ...]] = [  # each line a hit or a heal quick.py reads itself
    ("hit", "skirmish", "snitch", "1", "--attacker", "grim", "--roll", "injury=1"),
    ("hit", "skirmish", "snitch", "0"),
    ("hit", "--json", "skirmish", "Grim", "1", "--roll", "injury=3"),  # a display name
    ("--db", "DB", "hit", "skirmish", "grim", "1", "--roll=injury=1", "--roll", "injury=2"),
    ("--db=DB", "hit", "skirmish", "grim", "1", "--json"),
    ("hit", "dungeon", "ada", "3", "--note", "a troll's club", "--id", "troll-1"),
    ("hit", "dungeon", "ada", "3", "--id=troll-1", "--note="),  # the same id: nothing appended
    ("hit", "dungeon", "ada", "2", "--fact", "magic=true", "--json"),
    ("heal", "dungeon", "ada", "2", "--healer", "ada", "--means", "bandage", "--id", "h1"),
    ("heal", "dungeon", "ada", "1", "--json", "--note", "potion"),
    ("heal", "skirmish", "grim", "1"),  # refused: no healing during a Mordheim battle
    ("hit", "nope", "grim", "1"),  # no such fight
    ("hit", "skirmish", "nobody", "1"),  # no such character
    ("hit", "skirmish", "grim", "1", "--roll", "injury"),  # --roll without KEY=VALUE
    ("hit", "skirmish", "grim", "1", "--fact", "damage=3"),  # an own field, not a fact
    ("hit", "skirmish", "grim", "1", "--fact", "nonsense=3"),  # a field no hit has
    ("hit", "skirmish", "grim", "1", "--roll", "injury=x"),  # a die that is no number
    ("hit", "skirmish", "grim", "99999999999999999999999"),  # a number past any field's
    ("heal", "dungeon", "ada", "1", "--fact", "means=x"),
    ("--db", "MISSING", "hit", "skirmish", "grim", "1"),  # a store not there
]
TYPER_READS: list[tuple[str, ...]] = [  # each left to typer, for its own message
    ("hit", "skirmish", "grim", "x"),
    ("hit", "skirmish", "grim", "-1"),
    ("hit", "skirmish", "grim", "1_000"),
    ("hit", "skirmish", "grim", "9" * 5000),  # past the digits Python's int() converts
    ("hit", "skirmish", "grim", "1", "--attacker", "snitch", "--attacker", "ulf"),
    ("hit", "skirmish", "grim", "1", "--json", "--json"),
    ("hit", "skirmish", "grim", "1", "--json=1"),
    ("hit", "skirmish", "grim", "1", "--nope"),
    ("hit", "skirmish", "grim", "1", "--attacker"),
    ("hit", "skirmish", "grim", "1", "--attacker", "--json"),
    ("hit", "skirmish", "grim", "1", "-h"),
    ("hit", "--help"),
    ("hit", "skirmish", "grim"),
    ("hit", "skirmish", "grim", "1", "2"),
    ("hit", "skirmish", "grim", "1", "--", "x"),
    ("hit", "bad/id", "grim", "1"),
    ("hit", "skirmish", "grim", "1", "--db", "DB"),  # the old place of --db: a warning
    ("heal", "skirmish", "grim", "1", "--attacker", "snitch"),  # a hit's option
    ("hit", "skirmish", "grim", "1", "--means", "bandage"),  # a heal's option
    ("--db", "DB", "--db", "DB", "hit", "skirmish", "grim", "1"),
    ("--db", "", "hit", "skirmish", "grim", "1"),
    ("--version", "hit", "skirmish", "grim", "1"),
    ("hti", "skirmish", "grim", "1"),
]


@pytest.fixture
def store(db: Path, skirmish: str, dungeon: str) -> Path:
    """The conftest's Mordheim skirmish and Warhammer Quest dungeon, in the same SQLite file."""
    return db


def filled(args: tuple[str, ...], db: Path) -> list[str]:
    """`args` with DB the store's path and MISSING a store not there."""
    missing = db.with_name("missing.db")
    return [w.replace("MISSING", str(missing)).replace("DB", str(db)) for w in args]


def answer(entry: str, args: list[str], db: Path, **env: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `woundlog ARGS...` run by `entry` on the store `db`
    (its folder written DIR in them)."""
    code = f"import sys; sys.argv = ['woundlog', *sys.argv[1:]]; {entry}"
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "COLUMNS": "120",
            "WOUNDLOG_DB": str(db),
            "XDG_DATA_HOME": str(db.parent / "data"),  # never the user's own store
            **env,
        },
        check=False,
    )
    here = str(db.parent)
    return done.returncode, done.stdout.replace(here, "DIR"), done.stderr.replace(here, "DIR")


def rows(db: Path) -> list[tuple[object, ...]]:
    """Every fight and event the store keeps."""
    with sqlite3.connect(db) as connection:
        fights = connection.execute("SELECT * FROM fights ORDER BY fight").fetchall()
        events = connection.execute("SELECT * FROM events ORDER BY fight, seq").fetchall()
    return [*fights, *events]


def both_ways(
    store: Path, tmp_path: Path, lines: list[tuple[str, ...]], **env: str
) -> dict[str, list[tuple[int, str, str]]]:
    """Every line through `main` and through typer, each way on its own copy of `store`, in
    order: the same answers, line by line, and the same rows at the end. The answers."""
    answers, kept = {}, {}
    for way, entry in (("main", MAIN), ("typer", TYPER)):
        db = tmp_path / way / "fights.db"
        db.parent.mkdir()
        shutil.copyfile(store, db)
        answers[way] = [answer(entry, filled(args, db), db, **env) for args in lines]
        kept[way] = rows(db)
    for args, by_main, by_typer in zip(lines, answers["main"], answers["typer"], strict=True):
        assert by_main == by_typer, args
    assert kept["main"] == kept["typer"]
    return answers


@pytest.mark.parametrize(("lines", "quickly"), [(QUICK, True), (TYPER_READS, False)])
def test_quick_py_reads_a_plain_hit_or_heal_and_leaves_any_other_line_to_typer(
    lines: list[tuple[str, ...]], quickly: bool, tmp_path: Path
) -> None:
    db = tmp_path / "fights.db"
    assert [args for args in lines if (read(filled(args, db)) is not None) != quickly] == []


@pytest.mark.parametrize(
    "args",
    [
        ("--db", "", "hit", "skirmish", "grim", "1"),
        ("--db=", "hit", "skirmish", "grim", "1"),
        ("hit", "skirmish", "grim", "1", "--note", ""),
        ("hit", "skirmish", "grim", "1", "--note", "-x"),
        ("heal", "skirmish", "grim", "1", "--roll"),
        ("hit", "", "grim", "1"),
        ("hit", "skirmish", "grim", ""),
        ("hit", "skirmish", "grim", "٣"),  # a digit of another script
        ("hit",),
        ("state", "skirmish"),
        (),
    ],
)
def test_quick_py_leaves_empty_values_and_other_commands_to_typer(args: tuple[str, ...]) -> None:
    assert read(list(args)) is None


def test_shell_completion_is_left_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_WOUNDLOG_COMPLETE", "complete_bash")
    assert read(["hit", "skirmish", "grim", "1"]) is None


@pytest.mark.parametrize("word", ["~/x", "$HOME", "%HOME%", "*", "a?", "[ab]"])
def test_a_word_typer_expands_on_windows_is_left_to_typer(
    monkeypatch: pytest.MonkeyPatch, word: str
) -> None:
    """Typer expands `~`, variables and wildcards in the words of a Windows command line."""
    monkeypatch.setattr(quick, "EXPANDED", "~$%*?[")
    assert read(["hit", "skirmish", "grim", "1", "--note", word]) is None
    assert read(["hit", "skirmish", "grim", "1", "--note", "plain"]) is not None


def test_hits_and_heals_read_quickly_answer_and_store_as_typer_does(
    store: Path, tmp_path: Path
) -> None:
    answers = both_ways(store, tmp_path, QUICK)
    codes = [code for code, _, _ in answers["main"]]
    assert 0 in codes and 2 in codes and 3 in codes, codes  # successes and both refusals


def test_lines_left_to_typer_answer_as_typer_does(store: Path, tmp_path: Path) -> None:
    both_ways(store, tmp_path, TYPER_READS)


def test_a_refusal_read_quickly_is_coloured_as_typer_colours_it(
    store: Path, tmp_path: Path
) -> None:
    """rich colours `error: ...` red where colour is forced (or on a terminal): the quick
    line's error is printed by the same rich call."""
    lines = [("hit", "nope", "grim", "1"), ("hit", "skirmish", "grim", "1", "--fact", "damage=3")]
    answers = both_ways(store, tmp_path, lines, FORCE_COLOR="1")
    assert all("\x1b[" in err for _, _, err in answers["main"])


def test_a_hit_read_quickly_loads_neither_typer_nor_click_nor_rich(
    tmp_path: Path, store: Path
) -> None:
    modules = loaded_by(
        tmp_path, "hit", "skirmish", "snitch", "1", "--attacker", "grim", "--roll", "injury=1"
    )
    assert {"typer", "click", RICH} & top_level(modules) == set()
    assert "woundlog.replays.cli.fight" not in modules, "typer's commands are not loaded"


def test_a_heal_read_quickly_loads_no_typer(tmp_path: Path, store: Path) -> None:
    modules = loaded_by(tmp_path, "heal", "dungeon", "ada", "1", "--json")
    assert "typer" not in top_level(modules)


def test_a_refused_hit_read_quickly_loads_rich_but_no_typer(tmp_path: Path, store: Path) -> None:
    """The error is printed by rich, as every error is; typer still never loads."""
    modules = loaded_by(tmp_path, "hit", "nope", "grim", "1", exit_code=2)
    assert "typer" not in top_level(modules)
    assert RICH in top_level(modules)


def test_without_quick_py_a_hit_loads_typer(tmp_path: Path, store: Path) -> None:
    """The line quick.py does not read goes to typer: what the tests above tell apart."""
    modules = loaded_by(tmp_path, "hit", "skirmish", "snitch", "1", "--attacker=grim", "-h")
    assert "typer" in top_level(modules)


def closed_pipe_answer(entry: str, args: list[str], db: Path) -> tuple[int, bytes]:
    """Exit status and stderr of `woundlog ARGS...` run by `entry`, its stdout a pipe nobody
    reads any more."""
    code = f"import sys; sys.argv = ['woundlog', *sys.argv[1:]]; {entry}"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            env={**os.environ, "WOUNDLOG_DB": str(db)},
            check=False,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "args", [("hit", "skirmish", "snitch", "1"), ("heal", "dungeon", "ada", "1")]
)
def test_a_closed_pipe_ends_a_quick_hit_as_it_ends_typers(
    store: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Recorded, then nobody to tell: exit status 141 and nothing on stderr, either way."""
    answers, kept = {}, {}
    for way, entry in (("main", MAIN), ("typer", TYPER)):
        db = tmp_path / way / "fights.db"
        db.parent.mkdir()
        shutil.copyfile(store, db)
        answers[way] = closed_pipe_answer(entry, list(args), db)
        kept[way] = rows(db)
    assert answers["main"] == answers["typer"] == (CLOSED_PIPE, b"")
    assert kept["main"] == kept["typer"] != rows(store)
