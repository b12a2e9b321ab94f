"""The file readers' bounds at exactly N where a line has no newline, each test written against
a plausible slip no test noticed (issue 39, `tests/mutation/handwritten.py`): the last line of a
file may lack its newline, and then it is read by its bytes alone, by both readers alike."""

from __future__ import annotations

import io

import pytest

from woundlog.events.bounded import TooLong, blocks, lines


@pytest.mark.parametrize("size", [16, 64, 1 << 20])
def test_a_last_line_of_exactly_the_bound_without_its_newline_is_read_by_both_readers(
    size: int,
) -> None:
    limit = 64
    last = b"{}\n" + b"c" * limit  # no newline: its `limit` bytes are all the line
    assert list(lines(io.BytesIO(last), "f.jsonl", limit=limit)) == [b"{}\n", b"c" * limit]
    assert b"".join(blocks(io.BytesIO(last), "f.jsonl", size, limit=limit)) == last
    with pytest.raises(TooLong, match=r"f\.jsonl, line 2: longer than 64 bytes"):
        list(blocks(io.BytesIO(last + b"c"), "f.jsonl", size, limit=limit))
