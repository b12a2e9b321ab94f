"""Reading a file a person names, with a bound on what it can make woundlog hold (without one, a
`replay`, `import`, `--then-file`, `--tables` or `--admin-token-file` of `/dev/zero` grows
until memory runs out). One reader for every file the CLI and the JSON Lines store read, so
every one of them stops at the same bounds with the same words:

- a line of JSON Lines (one event, or one record of another program) is at most MAX_LINE bytes,
  eight times the largest request body the service takes;
- a file read whole (another program's JSON export, a tables file, a token) is at most its
  `limit` bytes, MAX_DOCUMENT by default.

A file past a bound is refused with `TooLong`, naming the file, the line and the bound, as soon
as the bound is reached: a stream without a newline (`/dev/zero`) is read no further than it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import UsageError

MAX_LINE = 8 * 1024 * 1024
"""Bytes of one line of JSON Lines."""
MAX_DOCUMENT = 128 * 1024 * 1024
"""Bytes of a file read whole: a 50 MB Foundry export fits, twice over."""
MAX_TABLES = 4 * 1024 * 1024
"""Bytes of a `--tables` file (a fight's tables hold at most 10,000 values)."""
MAX_SECRET = 4096
"""Bytes of a token file."""


class TooLong(UsageError):
    """A file, or one of its lines, past its bound."""


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB" if size >= 1024 * 1024 else f"{size:,} bytes"


def read(path: str | Path, *, limit: int | None = None, what: str = "a file") -> bytes:
    """The whole of the file at `path`, refused past `limit` bytes (default MAX_DOCUMENT;
    `what` it is, for the message) before more than `limit + 1` bytes are read."""
    limit = limit or MAX_DOCUMENT
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size  # 0 for a device or a pipe: read to find out
        if size <= limit:
            data = f.read(limit + 1)
            size = len(data)
    if size > limit:
        raise TooLong(f"{path}: more than {_mib(limit)}, the most {what} may hold")
    return data


def lines(f: BinaryIO, where: str | Path, *, limit: int | None = None) -> Iterator[bytes]:
    """Each line of `f`, newline kept, as iterating the file gives them; a line past `limit`
    bytes (default MAX_LINE) is refused, naming `where` and the line."""
    limit = limit or MAX_LINE
    number = 0
    while raw := f.readline(limit + 1):
        number += 1
        if len(raw) > limit:
            raise _long_line(where, number, limit)
        yield raw


def blocks(
    f: BinaryIO, where: str | Path, size: int, *, limit: int | None = None
) -> Iterator[bytes]:
    """`f` in blocks of about `size` bytes, each ending at the end of a line (the last may lack
    its newline); a line past `limit` bytes (default MAX_LINE) is refused, naming `where` and
    the line.

    The lines before a refused one are counted only then, reading `f` again from where this
    began up to that line, when `f` can seek (a file): not once a block, which costs a replay
    a pass over every byte it reads. From a stream that cannot seek (a pipe), block by block."""
    limit = limit or MAX_LINE
    size = min(size, limit)  # only a line that spans reads is measured: no read may hold one
    pending: list[bytes] = []  # the start of a line the next read ends
    held = 0
    origin = f.tell() if f.seekable() else None
    read_out = lines_before = 0  # the bytes yielded; their lines, when `f` cannot seek

    def refused() -> TooLong:
        number = lines_before if origin is None else _lines_in(f, origin, read_out)
        return _long_line(where, number + 1, limit)

    while data := f.read(size):
        end = data.rfind(b"\n") + 1
        if not end:
            pending.append(data)
            held += len(data)
            if held > limit:
                raise refused()
            continue
        block = b"".join([*pending, data[:end]])
        if held + data.find(b"\n") + 1 > limit:
            raise refused()
        if origin is None:
            lines_before += block.count(b"\n")
        read_out += len(block)
        yield block
        pending = [data[end:]]
        held = len(data) - end
    if last := b"".join(pending):
        yield last


def _lines_in(f: BinaryIO, origin: int, size: int) -> int:
    """The lines of the `size` bytes of `f` from `origin` (read again: a refusal's message)."""
    f.seek(origin)
    lines = 0
    while size > 0 and (data := f.read(min(size, 1 << 20))):
        lines += data.count(b"\n")
        size -= len(data)
    return lines


def _long_line(where: str | Path, number: int, limit: int) -> TooLong:
    return TooLong(
        f"{where}, line {number}: longer than {_mib(limit)} (one event or record a line is "
        "far shorter: is this a JSON Lines file?)"
    )
