"""Where each event's line of a JSON Lines fight file ends, kept beside it, so that a window of a
long fight (`read(fight, 99_000, 99_100)`), its version and its undo events are read by seeking,
not by scanning every line before them (100,000 events: 0.9 million lines scanned per timeline
window).

`<fight>.jsonl.offsets` (not a `.jsonl`: never taken for a fight) holds a header (a magic, the
fight file's inode, a hash of its first line) and, per event in order, where its line ends and
its line number with a flag: an undo (`retract`, `amend`), or a line whose head does not read
(decoded in full when asked for, to say why, as a scan would). It is only ever a cache of the
file: every read checks it against the file and extends it from where it stops to the end of
the file's last complete line (what the reader's shared lock saw), so

- events another process appended since are indexed by the next read, which scans only them;
- a torn last line (a crash mid-write) is outside the complete part, never indexed; the append
  that cuts it off writes after the last entry, which stays right;
- entries past the complete part (another reader saw a longer file) are not used;
- an index of another file (the fight deleted and made again, renamed, edited by hand: another
  inode or first line, an entry not ending at a newline, or past the file's end) is replaced
  by one made again. The store removes a fight's index with the fight.

A reader reads only the entries it needs. The index is checked and extended under its own
exclusive lock; entries once written never change in place (an index made again replaces the
file), so a reader holding it open reads a consistent one. A store whose directory cannot be
written (or on an OS without `pread`, Windows) reads the same, scanning as it did before.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from .. import bounded
from .files import PRIVATE_FILE

SUFFIX = ".offsets"
_MAGIC = b"WLOFFS01"
_HEADER = 32  # magic (8), inode (8), blake2b of the first line (16)
_WORD = 8
_ENTRY = 2  # words per event: the end of its line; its line number << 2 | flag
UNDO = 1
UNREAD = 2
"""Flags of an entry: the line is an undo event; its head does not read (the full decode says
why when it is asked for)."""

Flag = Callable[[bytes], int]
"""The flag of one event line (`UNDO`, `UNREAD` or 0)."""


class Offsets:
    """The index of one fight file up to a complete end: `len()` events, the first `on_disk`
    of them read from the index file `fd` when asked for, the rest held in `tail`."""

    def __init__(self, fd: int | None = None, on_disk: int = 0, tail: array[int] | None = None):
        self.fd = fd
        self.on_disk = on_disk
        self.tail = tail if tail is not None else array("Q")

    def __len__(self) -> int:
        return self.on_disk + len(self.tail) // _ENTRY

    def words(self, first: int, last: int) -> array[int]:
        """The entries of events `first` to `last` (1-based, inclusive), two words each."""
        got = array("Q")
        if first > last:
            return got
        if first <= self.on_disk and self.fd is not None:
            upto = min(last, self.on_disk)
            got.frombytes(_pread(self.fd, _ENTRY * _WORD * (upto - first + 1), _at(first)))
        start = max(first, self.on_disk + 1)
        if start <= last:
            got.extend(
                self.tail[_ENTRY * (start - self.on_disk - 1) : _ENTRY * (last - self.on_disk)]
            )
        return got

    def end(self, seq: int) -> int:
        """Where event `seq`'s line ends (0 for seq 0: the start of the file)."""
        return self.words(seq, seq)[0] if seq > 0 else 0

    def flagged(self, to_seq: int | None = None) -> Iterator[int]:
        """The seqs, up to `to_seq`, whose lines are undos or do not read."""
        last = len(self) if to_seq is None else min(to_seq, len(self))
        step = 65_536
        for first in range(1, last + 1, step):
            words = self.words(first, min(first + step - 1, last))
            for at in range(1, len(words), _ENTRY):
                if words[at] & (UNDO | UNREAD):
                    yield first + at // _ENTRY


def _at(seq: int) -> int:
    """Where event `seq`'s entry starts in the index file."""
    return _HEADER + _ENTRY * _WORD * (seq - 1)


def _pread(fd: int, size: int, offset: int) -> bytes:
    data = os.pread(fd, size, offset)
    if len(data) != size:  # the index was cut short under us: what the scan would have said
        raise OSError(f"index cut short at {offset + len(data)}")
    return data


def index_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def forget(path: Path) -> None:
    """Remove the index of the fight file `path` (deleted or renamed)."""
    with suppress(FileNotFoundError):
        os.unlink(index_path(path))


@contextmanager
def offsets(f: BinaryIO, path: Path, complete: int, flag: Flag) -> Iterator[Offsets]:
    """The index of the fight file open as `f` (at `path`) up to `complete`, the end of its
    last complete line: read from beside it, checked, extended by scanning what follows it,
    and written back (when it can be); open for as long as the context lasts."""
    if complete == 0:
        yield Offsets()
        return
    header = _header(f)
    fd = _locked_index(index_path(path)) if hasattr(os, "pread") else None  # POSIX: Windows scans
    if fd is None:  # cannot be written: a scan, as before
        yield Offsets(tail=_scan(f, complete, 0, 0, array("Q"), flag))
        return
    try:
        fd, index = _brought_up(fd, index_path(path), f, header, complete, flag)
        _unlock(fd)  # entries are never changed in place: reading needs no lock
        yield index
    finally:
        os.close(fd)


def _brought_up(
    fd: int, path: Path, f: BinaryIO, header: bytes, complete: int, flag: Flag
) -> tuple[int, Offsets]:
    """The index file `fd` checked and extended to `complete` (or made again, in a new file
    whose descriptor replaces `fd`), and the index read from it."""
    usable = _usable(fd, f, header, complete)
    if usable is not None:
        known, on_disk = usable
        last = Offsets(fd, known).words(known, known) if known else array("Q", [0, 0])
        new = _scan(f, complete, last[0], last[1] >> 2, array("Q"), flag)
        if not new:
            return fd, Offsets(fd, known)
        if known == on_disk:
            try:
                os.pwrite(fd, new.tobytes(), _at(known + 1))
            except OSError:  # a full disk: the next read scans again
                return fd, Offsets(fd, known, new)
            return fd, Offsets(fd, known + len(new) // _ENTRY)
    made = _scan(f, complete, 0, 0, array("Q"), flag)
    replaced = _replaced(fd, path, header, made)
    if replaced == fd:  # could not be written: held in memory
        return fd, Offsets(tail=made)
    return replaced, Offsets(replaced, len(made) // _ENTRY)


def _unlock(fd: int) -> None:
    import portalocker

    with os.fdopen(fd, "rb", closefd=False) as opened:
        portalocker.unlock(opened)


def _locked_index(index: Path) -> int | None:
    """The index file, made if missing, open under an exclusive lock (None: it cannot be)."""
    import portalocker  # loaded when a JSON Lines store locks a file, as jsonl.py does

    while True:
        try:
            fd = os.open(index, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), PRIVATE_FILE)
        except OSError:
            return None
        with os.fdopen(fd, "r+b", closefd=False) as opened:
            portalocker.lock(opened, portalocker.LOCK_EX)
        try:
            if os.path.samestat(os.stat(index), os.fstat(fd)):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # replaced or removed while this waited: open the name again


def _usable(fd: int, f: BinaryIO, header: bytes, complete: int) -> tuple[int, int] | None:
    """How many entries of the index `fd` hold for the file `f` up to `complete`, and how
    many it holds; None when it is of another file (or none yet) and must be made again."""
    size = os.fstat(fd).st_size
    if size < _HEADER or os.pread(fd, _HEADER, 0) != header:
        return None
    count = (size - _HEADER) // (_ENTRY * _WORD)
    index = Offsets(fd, count)
    low, high = 0, count  # the number of entries ending within `complete`: ends increase
    while low < high:
        middle = (low + high + 1) // 2
        if index.end(middle) <= complete:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return 0, count
    last, before = index.end(low), index.end(low - 1)
    f.seek(last - 1)
    if last <= before or f.read(1) != b"\n":
        return None
    return low, count


def _replaced(fd: int, index: Path, header: bytes, words: array[int]) -> int:
    """A new index file in place of `fd`'s, holding `words`: written beside it and renamed
    over it, so that a reader of the old one reads it whole. Its descriptor, still locked."""
    fresh = index.with_name(f"{index.name}.{os.getpid()}.new")
    try:
        new = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    except OSError:
        return fd
    try:
        import portalocker

        with os.fdopen(new, "r+b", closefd=False) as opened:
            portalocker.lock(opened, portalocker.LOCK_EX)
        os.write(new, header + words.tobytes())
        os.replace(fresh, index)
    except OSError:
        os.close(new)
        with suppress(OSError):
            os.unlink(fresh)
        return fd
    os.close(fd)
    return new


def _header(f: BinaryIO) -> bytes:
    """The header an index of the file `f` has: its inode and its first line's hash."""
    f.seek(0)
    first = f.readline(bounded.MAX_LINE + 1)
    inode = os.fstat(f.fileno()).st_ino
    return _MAGIC + inode.to_bytes(8, "little") + hashlib.blake2b(first, digest_size=16).digest()


def _scan(
    f: BinaryIO, complete: int, offset: int, number: int, words: array[int], flag: Flag
) -> array[int]:
    """`words` extended with the event lines from `offset` (line `number` ending there) up to
    `complete`, two words each."""
    f.seek(offset)
    limit = bounded.MAX_LINE
    while raw := f.readline(limit + 1):
        if len(raw) > limit:  # as bounded.lines says it, of the line's number in the file
            raise bounded._long_line(f.name, number + 1, limit)
        offset += len(raw)
        if offset > complete:
            break
        number += 1
        if raw.strip():
            words.append(offset)
            words.append(number << 2 | flag(raw))
    return words
