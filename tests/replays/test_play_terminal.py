"""`woundlog play` at a real pseudo-terminal (Python's pty): a command typed and answered,
Ctrl-C cancelling a half-typed line, Ctrl-D leaving with exit 0, the history kept; Tab
completion and the history read back; with the standard library's readline (the line editor
where Python has it) and with prompt_toolkit (where it has not: a `readline` that fails to import
put first on the child's PYTHONPATH, as on Windows or a Python built without it).

The test side plays the terminal, as a terminal emulator would: it answers prompt_toolkit's
cursor position requests (ESC[6n), and it types a control key only while the line editor is
reading. Between two prompts either editor gives the terminal back its cooked mode, where the
line discipline, not the program, takes the control keys: a Ctrl-C typed then is a SIGINT and
a Ctrl-D turns into a NUL byte. A person sees the prompt before typing; the test waits for the
pty to be in raw mode, which either editor enters before it draws the prompt. Readline leaves
the terminal's signals on: its Ctrl-C is a SIGINT, so the pty is made the session's controlling
terminal, as a shell makes it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from woundlog.replays.cli.session import MAX_LINE

from .conftest import Run
from .test_cli import ok
from .test_cli_names import events_of

CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]
CURSOR_REQUEST = b"\x1b[6n"
LIMIT = 30.0
"""Seconds any one wait may take before the test fails, showing what the terminal holds."""


class Terminal:
    """The master side of a pty, 24 rows by 100 columns, keeping everything the program wrote."""

    def __init__(self) -> None:
        self.fd, self.child = pty.openpty()
        fcntl.ioctl(self.child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        self.seen = bytearray()
        self.answered = 0

    def pump(self, wait: float) -> None:
        """Read what is there (waiting up to `wait` s); answer each new cursor position
        request as a terminal would (the cursor at row 1, column 1)."""
        ready, _, _ = select.select([self.fd], [], [], wait)
        if ready:
            try:
                self.seen += os.read(self.fd, 65536)
            except OSError:  # the program closed its side: it has left
                return
        while self.seen.count(CURSOR_REQUEST) > self.answered:
            os.write(self.fd, b"\x1b[1;1R")
            self.answered += 1

    def until(self, word: bytes, after: int = 0) -> int:
        """Read until `word` is written after position `after`; where it ends."""
        deadline = time.monotonic() + LIMIT
        while (at := self.seen.find(word, after)) < 0:
            assert time.monotonic() < deadline, bytes(self.seen)[-2000:]
            self.pump(0.2)
        return at + len(word)

    def reading(self) -> None:
        """Wait until the line editor holds the terminal in raw mode (its prompt is up)."""
        deadline = time.monotonic() + LIMIT
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            assert time.monotonic() < deadline, bytes(self.seen)[-2000:]
            self.pump(0.02)

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)


def without_readline(tmp_path: Path) -> dict[str, str]:
    """The environment with a `readline` that cannot be imported first on PYTHONPATH: Python
    as on Windows, or built without readline; the session reads with prompt_toolkit."""
    shadow = tmp_path / "no-readline"
    shadow.mkdir()
    (shadow / "readline.py").write_text('raise ImportError("no readline in this Python")\n')
    path = os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_a_session_at_a_terminal_answers_cancels_with_ctrl_c_and_leaves_with_ctrl_d(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    terminal = Terminal()
    # prompt_toolkit's own path: readline is made unavailable
    env = {**without_readline(tmp_path), "XDG_STATE_HOME": str(tmp_path), "TERM": "xterm"}
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)  # the terminal answers cursor requests
    child = terminal.child
    played = subprocess.Popen(
        [*CLI, "--db", str(db), "play", skirmish],
        stdin=child, stdout=child, stderr=child, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(child)
    try:
        at = terminal.until(b"skirmish>")
        terminal.reading()
        terminal.type(b"hit grim 1 --roll injury=3\r")
        at = terminal.until(b"#4 hit: Grim", at)
        at = terminal.until(b"down: Grim (stunned)", at)
        terminal.reading()  # the next prompt
        terminal.type(b"hit snitch 1 --roll injury=6")
        terminal.type(b"\x03")  # Ctrl-C: the half-typed line is dropped
        terminal.type(b"state\r")
        at = terminal.until(b"skirmish: mordheim, seq 4", at)
        terminal.reading()
        terminal.type(b"\x04")  # Ctrl-D on an empty line: the session ends
        assert played.wait(timeout=LIMIT) == 0, bytes(terminal.seen)[-2000:]
        terminal.pump(0)
    finally:
        if played.poll() is None:
            played.kill()
            played.wait()
        os.close(terminal.fd)
    shown = bytes(terminal.seen)
    assert b"out of action" not in shown and b"#5" not in shown  # the cancelled hit never ran
    assert shown.count(CURSOR_REQUEST) == terminal.answered > 0
    kept = (tmp_path / "woundlog" / "play_history").read_text()
    assert "hit grim 1 --roll injury=3" in kept and "+state" in kept
    assert "snitch" not in kept
    assert [event["type"] for event in events_of(run, skirmish)][3:] == ["hit"]


WATCHED = [
    sys.executable,
    "-c",
    "import sys\n"
    "try:\n"
    "    from woundlog.replays.cli import main; main()\n"
    "finally:\n"
    "    print('prompt_toolkit loaded:', 'prompt_toolkit' in sys.modules)",
]
"""The console script's `main`, saying as it ends whether prompt_toolkit was ever imported."""
READLINE = b"prompt_toolkit loaded: False"


class Readline(Terminal):
    """A `woundlog play` session at a terminal where Python has readline, the pty its
    controlling terminal (so that Ctrl-C is a SIGINT, as at a shell)."""

    def __init__(
        self, db: Path, fight: str, state: Path, sigint: signal.Handlers = signal.SIG_DFL
    ) -> None:
        super().__init__()
        env = {**os.environ, "XDG_STATE_HOME": str(state), "TERM": "xterm"}
        child = self.child

        def start() -> None:  # in the child: SIGINT as `sigint` says, the pty its terminal
            signal.signal(signal.SIGINT, sigint)
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.played = subprocess.Popen(
            [*WATCHED, "--db", str(db), "play", fight],
            stdin=child, stdout=child, stderr=child, env=env, start_new_session=True,
            preexec_fn=start,
        )  # fmt: skip
        os.close(child)

    def waiting(self) -> None:
        """Wait until the session sleeps, waiting for a key (Linux: its state in /proc): a
        SIGINT that comes while readline handles a key is only seen once the line is entered
        (CPython's readline.c checks signals when its select() is interrupted), so a Ctrl-C is
        typed when the session waits, as a person's comes."""
        stat = Path(f"/proc/{self.played.pid}/stat")
        deadline = time.monotonic() + LIMIT
        asleep = 0
        while stat.exists() and asleep < 3:
            assert time.monotonic() < deadline, bytes(self.seen)[-2000:]
            asleep = asleep + 1 if stat.read_text().rpartition(")")[2].split()[0] == "S" else 0
            self.pump(0.01)

    def paste(self, keys: bytes) -> None:
        """Type `keys` as a terminal passes a paste on, reading what the session echoes
        meanwhile (a pty's queues are a few KiB: writing all first would wait for ever)."""
        deadline = time.monotonic() + LIMIT
        os.set_blocking(self.fd, False)
        try:
            while keys:
                assert time.monotonic() < deadline, bytes(self.seen)[-2000:]
                readable, writable, _ = select.select([self.fd], [self.fd], [], 0.2)
                if readable:
                    self.pump(0)
                if writable:
                    with contextlib.suppress(BlockingIOError):  # the queue filled meanwhile
                        keys = keys[os.write(self.fd, keys[:4096]) :]
        finally:
            os.set_blocking(self.fd, True)

    def leave(self) -> bytes:
        """Ctrl-D at the next prompt; everything the session wrote (it must end with 0)."""
        try:
            self.reading()
            self.type(b"\x04")
            assert self.played.wait(timeout=LIMIT) == 0, bytes(self.seen)[-2000:]
            self.until(READLINE)
        finally:
            if self.played.poll() is None:
                self.played.kill()
                self.played.wait()
            os.close(self.fd)
        return bytes(self.seen)


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_a_session_answers_cancels_with_ctrl_c_leaves_with_ctrl_d_and_keeps_history(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    terminal = Readline(db, skirmish, tmp_path)
    at = terminal.until(b"skirmish> ")
    terminal.reading()
    terminal.type(b"hit grim 1 --roll injury=3\r")
    at = terminal.until(b"#4 hit: Grim", at)
    at = terminal.until(b"down: Grim (stunned)", at)
    terminal.reading()  # the next prompt
    terminal.type(b"hit snitch 1 --roll injury=6")
    at = terminal.until(b"injury=6", at)
    terminal.waiting()
    terminal.type(b"\x03")  # Ctrl-C: the half-typed line is dropped
    at = terminal.until(b"skirmish> ", at)
    terminal.reading()
    terminal.type(b"state\r")
    at = terminal.until(b"skirmish: mordheim, seq 4", at)
    shown = terminal.leave()
    assert b"out of action" not in shown and b"#5" not in shown  # the cancelled hit never ran
    assert CURSOR_REQUEST not in shown  # prompt_toolkit asks for the cursor; readline never
    kept = (tmp_path / "woundlog" / "play_history").read_text()
    assert re.fullmatch(
        r"\n# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\n\+hit grim 1 --roll injury=3\n"
        r"\n# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\n\+state\n",
        kept,
    ), kept  # FileHistory's format, entry for entry
    assert [event["type"] for event in events_of(run, skirmish)][3:] == ["hit"]


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_ctrl_c_cancels_the_line_where_the_session_began_with_sigint_ignored(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    """Started as a program's background job is (its shell ignores SIGINT for it): the
    terminal's Ctrl-C still cancels the line, as prompt_toolkit's did, and nothing runs."""
    terminal = Readline(db, skirmish, tmp_path, sigint=signal.SIG_IGN)
    at = terminal.until(b"skirmish> ")
    terminal.reading()
    terminal.type(b"hit snitch 1 --roll injury=6")
    at = terminal.until(b"injury=6", at)
    terminal.waiting()
    terminal.type(b"\x03")  # Ctrl-C: the half-typed line is dropped
    at = terminal.until(b"skirmish> ", at)
    terminal.reading()
    terminal.type(b"state\r")
    terminal.until(b"skirmish: mordheim, seq 3", at)
    shown = terminal.leave()
    assert b"#4" not in shown and b"out of action" not in shown  # the cancelled hit never ran
    assert [event["type"] for event in events_of(run, skirmish)][3:] == []


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_tab_completes_a_command_and_a_name_of_two_words_and_lists_the_words(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    ok(run("join", skirmish, "gorbag", "--name", "Gorbag the Shaman", "--side", "skaven"))
    terminal = Readline(db, skirmish, tmp_path)
    at = terminal.until(b"skirmish> ")
    terminal.reading()
    terminal.type(b"hi\t")  # the one command starting so
    at = terminal.until(b"hit", at)
    terminal.type(b" Gorb\t")  # gorbag and 'Gorbag the Shaman': a common beginning, no more
    terminal.type(b"\t")  # a second Tab lists them: the words, not the lines
    at = terminal.until(b"gorbag", at)
    at = terminal.until(b"Gorbag the Shaman", at)
    assert b"'Gorbag the Shaman'" not in terminal.seen[at - 40 : at + 5]
    terminal.type(b"\x15")  # Ctrl-U: the line is emptied
    terminal.type(b"hit 'Gorbag t\t 0\r")  # in a quote: the one name, quoted
    at = terminal.until(b"#5 hit: Gorbag the Shaman", at)
    terminal.reading()
    terminal.type(b'hit "Gorbag t\t 0\r')  # a quote opened before the blank: it is closed
    at = terminal.until(b"#6 hit: Gorbag the Shaman", at)
    terminal.reading()
    terminal.type(b"hit GRI\t 0\r")  # one candidate: written as the fight has it
    at = terminal.until(b"grim 0\r", terminal.until(b"GRI", at))  # GRI rewritten: grim
    at = terminal.until(b"#7 hit: Grim", at)
    terminal.leave()
    hits = events_of(run, skirmish)[-3:]
    assert [hit["target"] for hit in hits] == ["gorbag", "gorbag", "grim"]


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_the_history_prompt_toolkit_wrote_is_read_back_and_added_to(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    from prompt_toolkit.history import FileHistory

    kept = tmp_path / "woundlog" / "play_history"
    kept.parent.mkdir()
    written = FileHistory(str(kept))
    written.store_string("hit grim 1 --roll injury=3")
    written.store_string("log")
    terminal = Readline(db, skirmish, tmp_path)
    at = terminal.until(b"skirmish> ")
    terminal.reading()
    terminal.type(b"\x1b[A\x1b[A\r")  # Up twice: the entry before the last, run again
    at = terminal.until(b"#4 hit: Grim", at)
    terminal.reading()
    terminal.type(b"state\r")
    at = terminal.until(b"skirmish: mordheim, seq 4", at)
    terminal.leave()
    read = list(FileHistory(str(kept)).load_history_strings())  # newest first
    assert read == ["state", "hit grim 1 --roll injury=3", "log", "hit grim 1 --roll injury=3"]
    assert [event["type"] for event in events_of(run, skirmish)][3:] == ["hit"]


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_with_readline_a_line_typed_past_the_bound_is_refused_and_the_session_goes_on(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    """README, "Bounds": a line typed is at most 64 KiB, whichever editor reads it; past it,
    refused unread (and not kept in the history), and the session goes on."""
    terminal = Readline(db, skirmish, tmp_path)
    at = terminal.until(b"skirmish> ")
    terminal.reading()
    line = b"hit grim 1 " + b" " * (MAX_LINE + 1 - len(b"hit grim 1 ")) + b"\r"
    terminal.paste(line)
    at = terminal.until(b"more than 65,536 bytes", at)
    terminal.reading()
    terminal.type(b"state\r")
    terminal.until(b"skirmish: mordheim, seq 3", at)
    terminal.leave()
    assert len(events_of(run, skirmish)) == 3
    assert kept_entries(tmp_path) == ["state"]


def kept_entries(state: Path) -> list[str]:
    """The session's history as prompt_toolkit's FileHistory reads it, oldest first."""
    from prompt_toolkit.history import FileHistory

    path = state / "woundlog" / "play_history"
    return list(reversed(list(FileHistory(str(path)).load_history_strings())))
