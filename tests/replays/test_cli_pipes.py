"""A reader that stops reading (`woundlog log FIGHT | head`) ends the command quietly, as it
ends `seq` or `git log`: no `error: Broken pipe`, exit status 141 (issue 26, section 4)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from woundlog.replays.cli.pipes import CLOSED_PIPE

from .test_cli import woundlog, woundlog_command

TICKS = 3000
"""Enough events that `log` writes far more than a pipe holds (64 KiB on Linux)."""


@pytest.fixture
def long_fight(tmp_path: Path) -> Path:
    """A store holding `long`: a Mordheim fight of two characters and TICKS turn starts."""
    lines = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 1},
        {"type": "character_joined", "character": "grim", "name": "Grim", "side": "reavers"},
        {"type": "character_joined", "character": "snik", "name": "Snik", "side": "skaven"},
        *({"type": "turn_started", "round": n} for n in range(1, TICKS + 1)),
    ]
    log = tmp_path / "long.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "fights.db"
    done = woundlog(db, "import", str(log), "--as", "long")
    assert done.returncode == 0, done.stderr
    return db


def first_line_then_close(db: Path, *args: str) -> tuple[bytes, int, bytes]:
    """Run `woundlog ARGS | head -1`: read one line, close the pipe, and wait."""
    env = {**os.environ, "WOUNDLOG_DB": str(db)}
    with subprocess.Popen(
        [*woundlog_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as running:
        assert running.stdout is not None and running.stderr is not None
        line = running.stdout.readline()
        running.stdout.close()
        stderr = running.stderr.read()
        return line, running.wait(timeout=60), stderr


@pytest.mark.parametrize(
    "command", [("log", "long"), ("log", "long", "--json"), ("export", "long")], ids=" ".join
)
def test_a_closed_pipe_ends_the_command_quietly(long_fight: Path, command: tuple[str]) -> None:
    line, status, stderr = first_line_then_close(long_fight, *command)
    assert line  # it did print, until nobody read
    assert stderr == b""  # no "error: Broken pipe", no "Exception ignored" at the exit flush
    assert status == CLOSED_PIPE
