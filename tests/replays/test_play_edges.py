"""`woundlog play`'s lines and completion at their edges (issue 39, found missing by the mutation
run): the README's 64 KiB for a line typed, at exactly 65,536 bytes and one more; a blank line
that ends nothing; completion that hides hidden options, counts the word after a flag as an
argument, and reads past an option it does not know."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app
from woundlog.replays.cli.application import kept_open
from woundlog.replays.cli.run import every_command
from woundlog.replays.cli.session import Session

from .conftest import Run


@pytest.fixture
def session(db: Path, skirmish: str) -> Iterator[Session]:
    """A session on the skirmish (Grim `grim`, one wound; Snitch `snitch`), as `play` opens it."""
    with kept_open(None) as opened:
        yield Session(every_command(), opened, skirmish, None)


def test_a_line_typed_holds_the_readmes_64_kib_and_not_a_byte_more(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    """README, "Bounds": a line typed to `play` is at most 64 KiB; past it, refused and the
    session goes on. Counted in bytes of UTF-8, as typed (not read from a pipe)."""
    at = "hit grim 1 " + " " * (65_536 - len("hit grim 1 "))
    assert session.handle(at)
    assert "Grim loses 1 wound" in capsys.readouterr().out
    assert session.handle("hit grim 1 " + "é" * ((65_537 - len("hit grim 1 ")) // 2))
    refused = capsys.readouterr()
    assert "more than 65,536 bytes" in refused.err and "loses" not in refused.out
    assert session.code == 2


def test_a_blank_line_runs_nothing_and_the_session_goes_on(run: Run, skirmish: str) -> None:
    played = CliRunner().invoke(app, ["play", skirmish], input="\n   \nhit grim 1\n")
    assert played.exit_code == 0, played.output
    assert "#4 hit: Grim loses 1 wound" in played.stdout


def test_completion_offers_no_hidden_option(session: Session) -> None:
    """`tick --start` and `--end` are kept hidden (the same as `start` / `end`)."""
    offered = session.candidates(["tick"], "--")
    assert "--side" in offered
    assert "--start" not in offered and "--end" not in offered


def test_completion_counts_the_word_after_a_flag_as_an_argument(session: Session) -> None:
    """A flag takes no value: in `hit --json grim`, `grim` is the target, so DAMAGE comes next
    (no character offered); an option taking a value skips its value."""
    assert session.candidates(["hit", "--json", "grim"], "") == []
    assert session.candidates(["hit", "--attacker", "snitch"], "g") == ["grim", "Grim"]


def test_completion_reads_past_an_option_it_does_not_know(session: Session) -> None:
    """An option no command has (a typo) is no value-taker: the next word is the target."""
    assert session.candidates(["hit", "--nonsense"], "g") == ["grim", "Grim"]
    assert session.candidates(["hit", "--nonsense", "grim"], "") == []
