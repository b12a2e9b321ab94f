"""`woundlog play` at a terminal with the standard library's readline (issue 42), in process:
the history file read and written as prompt_toolkit's FileHistory reads and writes it, its end
only; what Tab inserts (never cutting what was typed) and what a second Tab lists; readline left
as the session found it; prompt_toolkit where Python has no readline; a command Ctrl-C
interrupts dropped. The real terminal is test_play_terminal.py."""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from woundlog.replays.cli import history as kept
from woundlog.replays.cli.application import kept_open
from woundlog.replays.cli.lines import handled, interactive
from woundlog.replays.cli.readline_editor import Completion, completions, editing, usable
from woundlog.replays.cli.run import every_command
from woundlog.replays.cli.session import MAX_LINE, Session

from .conftest import Run
from .test_cli import ok
from .test_cli_names import events_of

TIME = re.compile(rb"# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\n")


@pytest.fixture
def session(db: Path, skirmish: str, run: Run) -> Iterator[Session]:
    """The skirmish (Grim `grim`, Snitch `snitch`) and Gorbag the Shaman (`gorbag`)."""
    ok(run("join", skirmish, "gorbag", "--name", "Gorbag the Shaman", "--side", "skaven"))
    with kept_open(None) as opened:
        yield Session(every_command(), opened, skirmish, None)


def file_history(path: Path, *entries: str) -> list[str]:
    """`entries` stored by prompt_toolkit's own FileHistory; what it reads back, oldest first."""
    from prompt_toolkit.history import FileHistory

    history = FileHistory(str(path))
    for entry in entries:
        history.store_string(entry)
    return list(reversed(list(FileHistory(str(path)).load_history_strings())))


# --- the history file --------------------------------------------------------------------------

entry = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)


@given(st.lists(entry, max_size=8), st.integers(1, 10))
def test_the_last_entries_are_read_as_prompt_toolkit_reads_them(
    entries: list[str], count: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "play_history"
        path.touch()
        read = file_history(path, *entries)
        assert kept.last(path, count) == read[-count:]


def test_an_entry_appended_is_the_bytes_file_history_writes(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    kept.append(ours, "hit grim 1 --roll injury=3")
    kept.append(ours, "two\nlines é")
    file_history(theirs, "hit grim 1 --roll injury=3", "two\nlines é")
    assert TIME.sub(b"#\n", ours.read_bytes()) == TIME.sub(b"#\n", theirs.read_bytes())
    assert len(TIME.findall(ours.read_bytes())) == 2
    assert kept.last(ours) == file_history(theirs)


class Counted(io.FileIO):
    """A file that counts the bytes read from it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        got = super().read(size)
        self.count += len(got or b"")
        return got or b""


def test_a_history_file_of_any_size_is_read_from_its_end_only(tmp_path: Path) -> None:
    """A quarter of a GiB (a hole, then entries): the newest KEPT entries, reading a block or
    two; a file with no entry in its last MOST bytes: MOST bytes read, and nothing found."""
    path, hole = tmp_path / "play_history", tmp_path / "hole"
    for each in (path, hole):
        with open(each, "wb") as stream:
            stream.truncate(256 * 1024 * 1024)
    lines = [f"hit grim {n}" for n in range(kept.KEPT + 10)]
    file_history(path, *lines)
    with Counted(path) as stream:
        assert kept.last_entries(stream) == lines[-kept.KEPT :]  # type: ignore[arg-type]
    assert stream.count <= 2 * kept.BLOCK
    with Counted(hole) as stream:
        assert kept.last_entries(stream) == []  # type: ignore[arg-type]
    assert stream.count == kept.MOST


def test_reading_from_the_middle_drops_the_entry_cut_in_two(tmp_path: Path) -> None:
    """An entry longer than MOST (three lines of half a MiB: not a session's, which are one
    line, but FileHistory writes them): the read starts inside it, and it is dropped whole."""
    path = tmp_path / "play_history"
    big = "x" * (kept.MOST // 2)
    written = file_history(path, "first", f"a\n{big}\n{big}\n{big}", "last")
    assert len(written) == 3
    assert kept.last(path, 5) == ["last"]
    assert kept.last(path, 1) == ["last"]


def test_no_history_file_reads_as_no_entries(tmp_path: Path) -> None:
    assert kept.last(tmp_path / "none") == []


# --- completion ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "found", "words"),
    [
        ("hi", ["hit"], ["hit"]),
        ("hit GRI", ["grim"], ["grim"]),  # one way on: as the fight writes it
        ("hit Gorb", ["Gorbag", "'Gorbag the Shaman'"], ["gorbag", "Gorbag the Shaman"]),
        ("hit 'Gorb", ["'Gorbag'", "'Gorbag the Shaman'"], ["gorbag", "Gorbag the Shaman"]),
        ("hit 'Gorbag t", ["the Shaman'"], ["Gorbag the Shaman"]),  # what is typed stays
        ('hit "gorbag t', ['the Shaman"'], ["Gorbag the Shaman"]),
        ("hit grim 1 --a", ["--attacker"], ["--attacker"]),
        ("hit nobody", [], []),
    ],
)
def test_tab_inserts_the_candidates_as_a_line_holds_them(
    session: Session, before: str, found: list[str], words: list[str]
) -> None:
    text = before.split(" ")[-1]
    assert completions(session, before, text) == (found, words)


@pytest.mark.parametrize(
    "typed", ["", "g", "G", "gO", "GORB", "'g", "'Gorbag", '"gorbag t', "S", "--", "thor", "'th"]
)
def test_what_several_candidates_have_in_common_never_cuts_what_is_typed(
    session: Session, typed: str, run: Run
) -> None:
    """Readline inserts the common beginning of what the completer offers, when it offers
    several: it must begin with what is typed, or be nothing (readline then keeps what is
    typed). Thorgrim and THOREK as the fight writes them begin with `T` alone: `thor` would
    be cut to `T`."""
    ok(run("join", "skirmish", "t1", "--name", "Thorgrim", "--side", "reavers"))
    ok(run("join", "skirmish", "t2", "--name", "THOREK", "--side", "reavers"))
    text = typed.split(" ")[-1]
    found, _ = completions(session, f"hit {typed}", text)
    common = os.path.commonprefix(found)  # noqa: RUF071 - readline's own, character by character
    assert len(found) < 2 or common == "" or common.startswith(text)


def test_a_second_tab_lists_the_words_and_draws_the_line_again(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    class Line:
        @staticmethod
        def get_line_buffer() -> str:
            return "hit Gorb 1"

        @staticmethod
        def get_endidx() -> int:
            return len("hit Gorb")

    completion = Completion(Line, session, "skirmish> ")  # type: ignore[arg-type]
    assert completion.complete("Gorb", 0) == "Gorbag"
    assert completion.complete("Gorb", 2) is None
    completion.display("", ["Gorbag", "'Gorbag the Shaman'"], 19)
    shown = capsys.readouterr().out
    assert shown.splitlines()[1].split("  ")[0] == "gorbag"
    assert "Gorbag the Shaman" in shown and "'Gorbag" not in shown
    assert shown.endswith("skirmish> hit Gorb 1\x1b[2D")  # the cursor back where it was


# --- readline, the process's own ------------------------------------------------------------


def test_readline_is_left_as_the_session_found_it(session: Session, tmp_path: Path) -> None:
    readline = usable()
    if readline is None:  # pragma: no cover - a Python without readline: nothing to leave
        assert sys.platform == "win32"
        return

    def mine(text: str, state: int) -> str | None:
        return None

    readline.set_completer(mine)
    readline.set_completer_delims(" -")
    readline.clear_history()
    readline.add_history("someone else's line")
    path = tmp_path / "play_history"
    file_history(path, "hit grim 1", "state")
    try:
        completion = Completion(readline, session, "skirmish> ")
        with editing(readline, completion, path) as remember:
            assert readline.get_completer() == completion.complete
            assert readline.get_completer_delims() == " \t\n"
            assert [readline.get_history_item(n) for n in (1, 2)] == ["hit grim 1", "state"]
            remember("log")
        assert readline.get_completer() is mine
        assert readline.get_completer_delims() == " -"
        assert readline.get_current_history_length() == 1
        assert readline.get_history_item(1) == "someone else's line"
    finally:
        readline.set_completer(None)
        readline.clear_history()
    assert kept.last(path) == ["hit grim 1", "state", "log"]


def test_a_line_is_kept_as_prompt_toolkit_keeps_it(
    session: Session, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not empty, not the entry before it again (as FileHistory's buffer keeps lines), and a
    line past MAX_LINE, refused unread, not at all; a history that cannot be written is said
    once, and the session goes on."""
    readline = usable()
    if readline is None:  # pragma: no cover - a Python without readline
        assert sys.platform == "win32"
        return
    path = tmp_path / "play_history"
    file_history(path, "state")
    try:
        with editing(readline, Completion(readline, session, ""), path) as remember:
            for line in ["", "state", "log", "log", "x" * (MAX_LINE + 1), "state"]:
                remember(line)
            assert readline.get_current_history_length() == 3
        assert kept.last(path) == ["state", "log", "state"]
        path.unlink()
        path.mkdir()  # a folder where the file was: it cannot be written
        with editing(readline, Completion(readline, session, ""), path) as remember:
            remember("log")
            remember("state")
            assert readline.get_current_history_length() == 2  # this session's, kept in memory
        assert capsys.readouterr().err.count("history not kept") == 1
    finally:
        readline.clear_history()


def test_without_readline_prompt_toolkit_reads_the_lines(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    """A Python without readline (Windows, or one built without it): `import readline` fails,
    and the session reads with prompt_toolkit (here from its pipe input, as the app session's
    default), its history in the same file."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setitem(sys.modules, "readline", None)  # import readline: ImportError
    path = tmp_path / "play_history"
    with create_pipe_input() as typed, create_app_session(input=typed, output=DummyOutput()):
        typed.send_text("hit grim 1 --roll injury=3\r")
        typed.send_text("\x04")
        interactive(session, path)
    assert [event["type"] for event in events_of(run, "skirmish")][-1] == "hit"
    assert kept.last(path) == ["hit grim 1 --roll injury=3"]


def test_a_command_interrupted_by_ctrl_c_is_dropped_and_the_session_goes_on(
    session: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(line: str) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(session, "handle", interrupted)
    assert handled(session, "odds grim") is True
    assert capsys.readouterr().err.strip() == "error: interrupted"
