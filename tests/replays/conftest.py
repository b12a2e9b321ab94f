"""Fixtures of the CLI tests: a throwaway SQLite store per test, the CLI in-process, and a
small Mordheim fight."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from woundlog.replays.cli import app

Run = Callable[..., Result]


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default store of every command in a test: a fresh SQLite file via $WOUNDLOG_DB."""
    path = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    return path


@pytest.fixture
def run(db: Path) -> Run:
    """`run("hit", "skirmish", "grim", "1")`: the CLI in-process, exactly as typed."""
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return invoke


@pytest.fixture
def skirmish(run: Run) -> str:
    """A Mordheim fight: Grim (1 wound, side reavers) and Snitch (side skaven)."""
    for args in (
        ("new", "skirmish", "--ruleset", "mordheim", "--seed", "7"),
        ("join", "skirmish", "grim", "--name", "Grim", "--side", "reavers", "--stat", "wounds=1"),
        ("join", "skirmish", "snitch", "--name", "Snitch", "--side", "skaven"),
    ):
        result = run(*args)
        assert result.exit_code == 0, result.output
    return "skirmish"


@pytest.fixture
def dungeon(run: Run) -> str:
    """A Warhammer Quest fight, where healing is allowed: Ada (9 wounds, toughness 3)."""
    for args in (
        ("new", "dungeon", "--ruleset", "warhammer_quest", "--seed", "3"),
        ("join", "dungeon", "ada", "--name", "Ada", "--stat", "wounds=9", "--stat", "toughness=3"),
    ):
        result = run(*args)
        assert result.exit_code == 0, result.output
    return "dungeon"
