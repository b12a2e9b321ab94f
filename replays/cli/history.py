"""A `woundlog play` session's history file, in the format prompt_toolkit's `FileHistory`
writes and reads (prompt_toolkit 3.0.53, `prompt_toolkit/history.py`), so that either line
editor (lines.py) reads what the other wrote and a history carries over from one to the other:

    (an empty line)
    # 2026-12-08 00:05:09.123456
    +hit grim 1 --roll injury=3

Each entry is a line `# TIME` (the local time, `datetime.now()`), then each of its lines after a
`+`; any line not starting with `+` ends an entry. `FileHistory` reads the whole file; a session
that reads it with readline (readline_editor.py) reads its end only (`last`), a block at a time
back from the end, so a history of any size costs a session's start what its last `KEPT` entries
cost.

Decisions where FileHistory says nothing, since it reads every byte: reading from the middle of
the file, the partial first line and the lines up to the first line that ends an entry are
dropped (they may be an entry's last lines); an entry of several lines (prompt_toolkit's
multi-line input, which `play` never asks for) is read whole and left for the caller to skip.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

KEPT = 200
"""Entries a session reads back from its history at start (the newest): each costs its start
about 47,000 instructions (read here, then handed to readline, which encodes it for the
locale): 200 cost 9.4 M, 3.5% of a one-shot `woundlog hit` (tests/benchmarks/README.md)."""
BLOCK = 64 * 1024
"""Bytes read at a time, back from the end, until KEPT entries are in."""
MOST = 1024 * 1024
"""Bytes read back at most, whatever the entries: a file without `# TIME` lines (written by
hand, or something else) costs no more than this."""


def last(path: Path, count: int = KEPT) -> list[str]:
    """The newest `count` entries of the history file at `path`, oldest first; none when there
    is no file or it cannot be read."""
    try:
        with open(path, "rb") as stream:
            return last_entries(stream, count)
    except OSError:
        return []


def last_entries(stream: BinaryIO, count: int = KEPT) -> list[str]:
    """The newest `count` entries of a history (a seekable binary stream), oldest first, each
    read as `FileHistory.load_history_strings` reads it: its `+` lines joined, the `+`s and the
    last line break dropped, decoded as UTF-8 with errors replaced."""
    end = stream.seek(0, os.SEEK_END)
    start = end
    blocks: list[bytes] = []
    headers = 0
    while start > 0 and end - start < MOST and headers <= count:
        step = min(BLOCK, start, MOST - (end - start))
        start -= step
        stream.seek(start)
        block = stream.read(step)
        blocks.append(block)
        headers += block.count(b"\n#")
    lines = b"".join(reversed(blocks)).split(b"\n")
    ended = lines[-1] == b""  # the file ends in a line break: no line after it
    if ended:
        lines.pop()
    lowest = 1 if start > 0 else 0  # read from the middle: the first line is a part of one
    entries: list[str] = []
    at = len(lines) - 1
    while at >= lowest and len(entries) < count:  # back from the end, an entry at a time
        if not lines[at].startswith(b"+"):
            at -= 1
            continue
        last_line = at
        while at > lowest and lines[at - 1].startswith(b"+"):
            at -= 1
        if start > 0 and at == lowest:  # it may be an entry's end, its start not read: dropped
            break
        entry = b"\n".join(line[1:] for line in lines[at : last_line + 1])
        text = entry.decode("utf-8", errors="replace")
        # FileHistory drops each entry's last line break, or the last character of an entry the
        # file ends in without one
        entries.append(text[:-1] if last_line == len(lines) - 1 and not ended else text)
        at -= 1
    entries.reverse()
    return entries


def append(path: Path, entry: str) -> None:
    """Add `entry` to the history file at `path` as `FileHistory.store_string` does: a blank
    line, `# ` and the local time, then each line of the entry after a `+`; one write."""
    import datetime

    text = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in entry.split("\n"))
    with open(path, "ab") as stream:
        stream.write(text.encode("utf-8", errors="replace"))
