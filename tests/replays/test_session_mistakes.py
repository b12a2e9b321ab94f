"""`woundlog play` at its edges, in one process, each test written against a plausible slip no
test noticed (issue 39, `tests/mutation/handwritten.py`): a line's bound in bytes, what is
refused as the fight typed by habit and what is not, `meanwhile`, the words a line splits into,
completion, and a piped script's end and exit status. What is expected is the README's and
replays/cli/session.py's own documentation."""

from __future__ import annotations

import io
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.replays.cli.application import kept_open
from woundlog.replays.cli.lines import piped
from woundlog.replays.cli.run import every_command
from woundlog.replays.cli.session import MAX_LINE, Session
from woundlog.replays.cli.words import split

from .conftest import Run
from .test_cli import ok


@pytest.fixture
def session(db: Path, skirmish: str) -> Iterator[Session]:
    """A session on the skirmish (Grim `grim`, one wound; Snitch `snitch`), as `play` opens it."""
    with kept_open(None) as opened:
        yield Session(every_command(), opened, skirmish, None)


def handled(session: Session, capsys: pytest.CaptureFixture[str], line: str) -> tuple[str, str]:
    capsys.readouterr()
    assert session.handle(line), line
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_line_past_the_bound_in_bytes_is_refused_however_few_its_characters(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    # "a line of more than 64 KiB": bytes (UTF-8), so 32,769 two-byte letters are past it
    version = session.app.version("skirmish")
    line = "note " + "\u00e9" * (MAX_LINE // 2)
    assert len(line) < MAX_LINE < len(line.encode())
    _, err = handled(session, capsys, line)
    assert f"a line of more than {MAX_LINE:,} bytes" in err
    assert session.app.version("skirmish") == version


def test_the_fight_typed_by_habit_is_refused_but_not_diffs_fight_nor_a_character_of_its_id(
    session: Session, capsys: pytest.CaptureFixture[str], run: Run
) -> None:
    _, err = handled(session, capsys, "hit skirmish grim 1")
    assert "the fight is `skirmish` already: `hit grim 1`" in err
    session.code = 0
    _, err = handled(session, capsys, "diff skirmish")  # this fight against the one named
    assert "already" not in err and session.code == 0, err
    ok(run("join", "skirmish", "skirmish", "--name", "Skirmisher", "--side", "skaven"))
    version = session.app.version("skirmish")
    out, err = handled(session, capsys, "hit skirmish 1 --roll injury=1")
    assert "already" not in err, err
    assert session.app.version("skirmish") == version + 1
    assert "Skirmisher" in out


def test_exit_leaves_as_quit_does(session: Session) -> None:
    assert session.handle("exit") is False
    assert session.handle("quit") is False


def test_an_option_given_with_its_value_after_equals_takes_no_next_word(session: Session) -> None:
    # `hit TARGET DAMAGE`: after `--attacker=snitch grim`, DAMAGE is next, which no word completes
    assert session.candidates(["hit", "--attacker=snitch", "grim"], "") == []
    assert session.candidates(["hit", "--attacker", "snitch", "grim"], "") == []
    assert session.candidates(["hit", "--attacker=snitch"], "g") == ["grim", "Grim"]


def test_a_line_of_exactly_the_bound_and_its_newline_is_piped_whole() -> None:
    line = b"n" * MAX_LINE
    assert list(piped(io.BytesIO(line + b"\nstate\n"))) == [line.decode(), "state"]
    assert list(piped(io.BytesIO(line + b"n\nstate\n"))) == [None, "state"]


@pytest.mark.parametrize(
    ("line", "words"),
    [("note ''", ["note", ""]), ('note ""', ["note", ""]), ("a '' b", ["a", "", "b"])],
)
def test_an_empty_quoted_word_is_a_word_last_or_not(line: str, words: list[str]) -> None:
    assert split(line) == words == shlex.split(line)
