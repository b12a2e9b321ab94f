"""The CLI's file bounds at exactly N and at N + 1 (issue 39): what `replay`, `import`,
`--tables` and `--admin-token-file` read goes through `events.bounded`, and each bound takes a
file or a line of exactly its size and refuses one byte more, naming the file, the line and the
bound. The real constants, where a file of that size is cheap to make (8 MiB, 4 MiB, 4 KiB)."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest

from woundlog.events.bounded import MAX_LINE, MAX_SECRET, MAX_TABLES, TooLong, blocks, lines, read


@pytest.mark.parametrize("limit", [MAX_TABLES, MAX_SECRET])
def test_a_file_of_exactly_its_bound_is_read_and_one_byte_more_is_refused(
    tmp_path: Path, limit: int
) -> None:
    at = tmp_path / "at"
    at.write_bytes(b"x" * limit)
    assert len(read(at, limit=limit)) == limit
    over = tmp_path / "over"
    over.write_bytes(b"x" * (limit + 1))
    with pytest.raises(TooLong, match=f"{over}: more than "):
        read(over, limit=limit, what="a tables file")


def test_a_pipe_of_exactly_the_bound_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    """A pipe has no size to look at first: the reader counts what it reads."""
    limit = 4096
    for size, refused in ((limit, False), (limit + 1, True)):
        fifo = tmp_path / f"fifo-{size}"
        os.mkfifo(fifo)

        def feed(path: Path = fifo, count: int = size) -> None:
            with open(path, "wb") as writer:
                writer.write(b"y" * count)

        writer = threading.Thread(target=feed)
        writer.start()
        try:
            if refused:
                with pytest.raises(TooLong, match="more than 4,096 bytes"):
                    read(fifo, limit=limit)
            else:
                assert read(fifo, limit=limit) == b"y" * limit
        finally:
            writer.join(timeout=10)


def test_a_line_of_exactly_max_line_bytes_is_read_and_one_byte_more_is_refused() -> None:
    at = b"a" * (MAX_LINE - 1) + b"\n"  # the newline counts
    assert [len(line) for line in lines(io.BytesIO(at + b"{}\n"), "f.jsonl")] == [MAX_LINE, 3]
    over = b"{}\n" + b"a" * MAX_LINE + b"\n"
    with pytest.raises(TooLong, match=r"f\.jsonl, line 2: longer than 8 MiB"):
        list(lines(io.BytesIO(over), "f.jsonl"))


@pytest.mark.parametrize("size", [16, 64, 1 << 20])
def test_a_block_read_takes_a_line_of_exactly_the_bound_and_refuses_one_byte_more(
    size: int,
) -> None:
    """However the reads fall (blocks smaller, equal or larger than the bound), a line of
    exactly `limit` bytes passes and one of `limit + 1` is refused, naming its line."""
    limit = 64
    at = b"{}\n" + b"b" * (limit - 1) + b"\n" + b"{}\n"
    assert b"".join(blocks(io.BytesIO(at), "f.jsonl", size, limit=limit)) == at
    over = b"{}\n" + b"b" * limit + b"\n" + b"{}\n"
    with pytest.raises(TooLong, match=r"f\.jsonl, line 2: longer than 64 bytes"):
        list(blocks(io.BytesIO(over), "f.jsonl", size, limit=limit))
