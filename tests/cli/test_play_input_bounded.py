"""`woundlog play` reads standard input in bounded lines (issue 37): a line past the bound is
refused with a message naming it and the session goes on; `play < /dev/zero` ends at the bound
instead of reading gigabytes; and a line is split into words in time linear in its length, the
same words and errors as `shlex.split`."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.replays.conftest import Run
from woundlog.replays.cli import app
from woundlog.replays.cli.session import MAX_LINE
from woundlog.replays.cli.words import split


def test_a_line_past_the_bound_is_refused_naming_it_and_the_session_goes_on(
    run: Run, skirmish: str
) -> None:
    typed = "x" * (MAX_LINE + 1) + "\nhit grim 1\n" + "y" * (3 * MAX_LINE) + "\nstate\n"
    played = CliRunner().invoke(app, ["play", skirmish], input=typed)
    assert played.exit_code == 2, played.output  # a refused line: the script failed
    assert played.stderr.count(f"more than {MAX_LINE:,} bytes") == 2
    assert "#4 hit: Grim loses 1 wound" in played.stdout and "wounds 1" in played.stdout


def test_a_line_at_the_bound_is_run(run: Run, skirmish: str) -> None:
    line = "hit grim 1 " + " " * (MAX_LINE - len("hit grim 1 "))
    played = CliRunner().invoke(app, ["play", skirmish], input=line + "\n")
    assert played.exit_code == 0, played.output
    assert "#4 hit: Grim loses 1 wound" in played.stdout


def test_play_of_an_endless_line_ends_at_the_bound(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    woundlog = shutil.which("woundlog", path=str(Path(sys.executable).parent))
    assert woundlog is not None
    with open("/dev/zero", "rb") as zero:
        played = subprocess.run(
            [woundlog, "--db", str(db), "play", skirmish],
            stdin=zero,
            capture_output=True,
            timeout=120,  # before: 2.9 GB in 8 s and growing, never ending
            check=False,
        )
    assert played.returncode == 2, played.stderr
    assert b"more than 128 MiB" in played.stderr and b"the session ends" in played.stderr
    assert b"Traceback" not in played.stderr


@given(st.text(alphabet=" \t\r\n'\"\\ab#\x0bé", max_size=24))
def test_a_line_splits_into_the_words_shlex_gives(line: str) -> None:
    try:
        expected: object = shlex.split(line)
    except ValueError as error:
        expected = str(error)
    try:
        got: object = split(line)
    except ValueError as error:
        got = str(error)
    assert got == expected


@pytest.mark.parametrize("shape", ["a" * 60_000, "a " * 30_000, '"' + 'a\\"' * 20_000 + '"'])
def test_a_long_line_splits_as_shlex_splits_it(shape: str) -> None:
    assert split(shape) == shlex.split(shape)
