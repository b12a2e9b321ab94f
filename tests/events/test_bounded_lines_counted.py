"""The block reader names the line a refused line is, whether it counted the lines as it went
(a stream that cannot seek) or counts them only when it refuses one (a file, read again from
where the reading began: issue 42, a replay no longer pays a pass over every byte for it)."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest

from woundlog.events.bounded import TooLong, blocks

LIMIT = 40
BEFORE = b"".join(b"{%d}\n" % i for i in range(200))  # 200 lines, several blocks of 64 bytes
LONG = b"x" * (LIMIT + 1) + b"\n"


class Unseekable(io.RawIOBase):
    """A pipe's end as a reader sees it: bytes in order, no seeking back."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("size", [16, 64, 1000])
def test_a_long_line_of_a_file_is_named_by_its_line_counted_when_refused(
    tmp_path: Path, size: int
) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(BEFORE + LONG + b"{}\n")
    with open(path, "rb") as f, pytest.raises(TooLong, match=r"line 201: longer than 40 bytes"):
        list(blocks(f, "f.jsonl", size, limit=LIMIT))


def test_lines_are_counted_from_where_the_reading_began_not_from_the_files_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"{}\n" * 7 + BEFORE + LONG)
    with open(path, "rb") as f:
        f.seek(3 * 7)  # a reader that has taken the first seven lines already
        with pytest.raises(TooLong, match=r"line 201: longer than 40 bytes"):
            list(blocks(f, "f.jsonl", 64, limit=LIMIT))


@pytest.mark.parametrize("size", [16, 64, 1000])
def test_a_long_line_of_a_stream_that_cannot_seek_is_named_by_the_lines_counted_as_read(
    size: int,
) -> None:
    stream = io.BufferedReader(Unseekable(BEFORE + LONG + b"{}\n"))
    assert not stream.seekable()
    with pytest.raises(TooLong, match=r"line 201: longer than 40 bytes"):
        list(blocks(stream, "f.jsonl", size, limit=LIMIT))  # type: ignore[arg-type]


def test_a_long_line_from_a_pipe_is_named_by_its_line() -> None:
    reading, writing = os.pipe()

    def feed() -> None:
        with open(writing, "wb") as writer:
            writer.write(BEFORE + LONG)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        with open(reading, "rb") as f, pytest.raises(TooLong, match=r"line 201: longer"):
            list(blocks(f, "pipe", 64, limit=LIMIT))
    finally:
        writer.join(timeout=10)


def test_a_file_of_lines_within_the_bound_is_read_whole_in_blocks(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(BEFORE + b"{}")
    with open(path, "rb") as f:
        assert b"".join(blocks(f, "f.jsonl", 64, limit=LIMIT)) == BEFORE + b"{}"
