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

KEPT = 1000
"""Entries a session reads back from its history at start (the newest)."""
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
    data = b"".join(reversed(blocks))
    lines = data.split(b"\n")
    if start > 0:  # read from the middle: up to the first line that ends an entry is dropped
        lines = lines[1:]
        first = next((at for at, line in enumerate(lines) if not line.startswith(b"+")), None)
        lines = lines[first:] if first is not None else []
    entries: list[str] = []
    entry: list[str] = []
    for at, raw in enumerate(lines):
        if at == len(lines) - 1 and not raw:  # after the file's last line break: no line
            break
        # each line with its line break, as iterating the file gives it; the last one, if the
        # file does not end in a line break, without (FileHistory then drops its last character)
        line = raw.decode("utf-8", errors="replace") + ("\n" if at < len(lines) - 1 else "")
        if line.startswith("+"):
            entry.append(line[1:])
        else:
            if entry:
                entries.append("".join(entry)[:-1])
            entry = []
    if entry:  # the entry the file ends in
        entries.append("".join(entry)[:-1])
    return entries[-count:] if count else []


def append(path: Path, entry: str) -> None:
    """Add `entry` to the history file at `path` as `FileHistory.store_string` does: a blank
    line, `# ` and the local time, then each line of the entry after a `+`; one write."""
    import datetime

    text = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in entry.split("\n"))
    with open(path, "ab") as stream:
        stream.write(text.encode("utf-8", errors="replace"))
