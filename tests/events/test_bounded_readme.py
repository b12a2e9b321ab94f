"""The file bounds are the ones the README's "Bounds" table gives (issue 39, found missing by the
mutation run, which moved each constant by one unnoticed: the other tests take the bound from
the code): another program's file 128 MiB, a `--tables` file 4 MiB, a token file 4,096 bytes
(`bounded.MAX_SECRET`'s own words), each at N + 1 refused with the bound in its words; and a
stream with no size is read no further than one byte past its bound."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import bounded
from woundlog.events.bounded import MAX_SECRET, MAX_TABLES, TooLong, read

MIB = 1024 * 1024


def test_another_programs_file_of_128_mib_and_a_byte_is_refused_unread(tmp_path: Path) -> None:
    """Sparse: its size alone refuses it, before a byte is read."""
    big = tmp_path / "export.json"
    with open(big, "wb") as f:
        f.truncate(128 * MIB + 1)
    with pytest.raises(TooLong, match=r"more than 128 MiB, the most a file may hold"):
        read(big)


@pytest.mark.parametrize(
    ("limit", "size", "words"),
    [(MAX_TABLES, 4 * MIB, "4 MiB"), (MAX_SECRET, 4096, "4,096 bytes")],
)
def test_a_tables_file_and_a_token_file_hold_what_the_readme_says(
    tmp_path: Path, limit: int, size: int, words: str
) -> None:
    at = tmp_path / "at"
    at.write_bytes(b"x" * size)
    assert len(read(at, limit=limit)) == size
    over = tmp_path / "over"
    over.write_bytes(b"x" * (size + 1))
    with pytest.raises(TooLong, match=f"more than {words}"):
        read(over, limit=limit)


def test_a_stream_with_no_size_is_read_no_further_than_a_byte_past_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`/dev/zero` has no size to look at: read once, `limit + 1` bytes at most, then refused."""
    asked: list[int] = []

    class Counted:
        def __init__(self, *args: Any) -> None:
            self.f = builtins.open(*args)  # noqa: SIM115 (closed by __exit__)

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *_: object) -> None:
            self.f.close()

        def fileno(self) -> int:
            return int(self.f.fileno())

        def read(self, size: int = -1) -> bytes:
            asked.append(size)
            return bytes(self.f.read(size))

    monkeypatch.setattr(bounded, "open", Counted, raising=False)
    with pytest.raises(TooLong, match="more than 4,096 bytes"):
        read("/dev/zero", limit=4096)
    assert asked and max(asked) <= 4097
