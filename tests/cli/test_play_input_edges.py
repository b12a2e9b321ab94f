"""`woundlog play`'s reading of lines at its edges (issue 39, found missing by the mutation run):
a last line of exactly the bound with no line break run, one byte past the bound refused; a line
skipped in several reads, the session going on up to the skipping bound and ending one byte past
it; lines piped in while the output is a terminal run as a script; the history's folder made;
and whether an event loop already runs, which decides how the prompt reads."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.replays.conftest import Run
from woundlog.events.bounded import TooLong
from woundlog.replays.cli.lines import (
    HISTORY,
    MAX_SKIPPED,
    history_path,
    loop_running,
    piped,
)
from woundlog.replays.cli.session import MAX_LINE


class Endless(io.RawIOBase):
    """A line of `size` bytes of `x` then `\\n` and `rest`, made as it is read (no 128 MiB
    held at once)."""

    def __init__(self, size: int, rest: bytes = b"") -> None:
        self.left = size
        self.tail = b"\n" + rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.left > 0:
            count = min(len(buffer), self.left)
            buffer[:count] = b"x" * count
            self.left -= count
            return count
        count = min(len(buffer), len(self.tail))
        buffer[:count] = self.tail[:count]
        self.tail = self.tail[count:]
        return count


def lines(stream: io.RawIOBase | io.BytesIO) -> list[str | None]:
    return list(piped(io.BufferedReader(stream) if isinstance(stream, Endless) else stream))


def test_a_last_line_of_exactly_the_bound_without_a_line_break_is_read() -> None:
    assert lines(io.BytesIO(b"state\n" + b"x" * MAX_LINE)) == ["state", "x" * MAX_LINE]


def test_a_line_one_byte_past_the_bound_is_refused_by_the_reader() -> None:
    """A longer line is None (piped's own promise, before the session sees it)."""
    assert lines(io.BytesIO(b"x" * (MAX_LINE + 1) + b"\nstate\n")) == [None, "state"]
    assert lines(io.BytesIO(b"x" * (MAX_LINE + 1))) == [None]


def test_a_line_skipped_in_several_reads_is_refused_and_the_session_goes_on() -> None:
    assert lines(Endless(3 * 1024 * 1024, b"state\n")) == [None, "state"]


def test_the_session_ends_one_byte_past_the_skipping_bound() -> None:
    """A line may hold MAX_LINE bytes, and MAX_SKIPPED more are skipped before the session
    gives up: a line of exactly MAX_LINE + MAX_SKIPPED bytes is refused and the session goes
    on; one byte more ends it."""
    assert lines(Endless(MAX_LINE + MAX_SKIPPED, b"state\n")) == [None, "state"]
    with pytest.raises(TooLong, match="a line of more than 128 MiB"):
        lines(Endless(MAX_LINE + MAX_SKIPPED + 1, b"state\n"))


def test_lines_piped_in_run_as_a_script_even_when_the_output_is_a_terminal(
    run: Run, skirmish: str, db: Path
) -> None:
    """Lines piped in (not a terminal) run one by one; the exit status is that of the last
    refused line: a terminal for the output alone does not make a session at the table."""
    woundlog = shutil.which("woundlog", path=str(Path(sys.executable).parent))
    assert woundlog is not None
    terminal, far = os.openpty()
    try:
        played = subprocess.run(
            [woundlog, "--db", str(db), "play", skirmish],
            input=b"hit nobody 1\n",
            stdout=far,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(far)
        os.close(terminal)
    assert played.returncode == 3, played.stderr  # a refused event, as the CLI exits
    assert b"no character `nobody`" in played.stderr


def test_the_history_is_kept_in_a_folder_made_with_its_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "not" / "yet"))
    first = history_path()
    assert first is not None and first.name == HISTORY
    assert first.parent.is_dir() and first.parent.is_relative_to(tmp_path / "not" / "yet")
    assert history_path() == first  # the folder already there: the same file


def test_an_event_loop_running_is_told_from_none() -> None:
    """In a thread of its own: a test before may leave a loop running in this one."""

    async def inside() -> bool:
        return loop_running()

    with ThreadPoolExecutor(1) as thread:
        assert thread.submit(loop_running).result() is False
        assert thread.submit(asyncio.run, inside()).result() is True
