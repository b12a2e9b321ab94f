"""`woundlog play` at a real pseudo-terminal (Python's pty): a command typed and answered,
Ctrl-C cancelling a half-typed line, Ctrl-D leaving with exit 0, the history kept.

The test side plays the terminal, as a terminal emulator would: it answers prompt_toolkit's
cursor position requests (ESC[6n), and it types a control key only while the line editor is
reading. Between two prompts prompt_toolkit gives the terminal back its cooked mode, where the
line discipline, not the program, takes the control keys: a Ctrl-C typed then is a SIGINT and
a Ctrl-D turns into a NUL byte. A person sees the prompt before typing; the test waits for the
pty to be in raw mode, which prompt_toolkit enters before it draws the prompt."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .conftest import Run
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


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_a_session_at_a_terminal_answers_cancels_with_ctrl_c_and_leaves_with_ctrl_d(
    run: Run, skirmish: str, db: Path, tmp_path: Path
) -> None:
    terminal = Terminal()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "TERM": "xterm"}
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
