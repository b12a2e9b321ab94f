"""The JSON Lines store: a directory with one human-readable, diffable file per fight.

`<directory>/<fight>.jsonl` holds one event per line exactly as `encode_json` writes it, so the
file is also the import and export format. Blank lines (a person's edit) are skipped and do not
count as events.

Writers hold an exclusive `flock` on the fight's file from the moment they read it to check ids
and version until their batch is on disk, and write the batch with one write and an fsync, so
processes appending to one fight at once serialise. A reader takes the shared lock only to learn
how far the file is complete, then streams up to there: it never sees half a batch in progress.

A crash in the middle of a write can leave a final line without its newline. That batch was never
acknowledged: reads ignore the torn line, and the next append cuts it off. (A power cut can also
persist the first lines of a batch without the rest; no line-per-event file can rule that out.)

Each append scans the fight's file (decoding only ids), so this store suits fights of thousands of
events, not millions; SQLite is the store for those. Snapshots are not kept. A read of events
`from_seq` on, the version and the undo events seek where `<fight>.jsonl.offsets` (offsets.py,
a cache of where each event's line ends, checked and extended by every read) says their lines
are, so a window of a long fight reads the window; a `lookup` by id is a scan, so callers ask
for many names in one (Fight does, for all of a fold's undo events).

The directory (if the store creates it) is 0700 and each fight's file 0600: a log is for its
owner.

The tables kept beside the fights (side.py: cursors, tokens, kept answers, tickets) are in an
SQLite file of the directory, `service.db` (sqlite.py's `SideFile`), which is no `.jsonl` and so
never taken for a fight. The store is not `transactional`: what is written there commits by
itself, not with the events. A deleted or renamed fight takes its rows along, in a transaction of
that file that commits only once the fight's file is changed.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

import msgspec

from .. import bounded
from ..codec import FIGHT, Family, canonical
from ..errors import ConflictError, StructuralError, UsageError
from ..fight_ids import check_stream_id, is_fight_id
from ..model import Amend, CampaignEvent, Event, EventBase, Retract
from . import companions
from ._batch import family_of, nothing_stored, plan_append, split_refs
from .base import ClosesOnExit, Stored
from .files import PRIVATE_FILE, make_private_directory
from .offsets import UNDO, UNREAD, Offsets, forget, offsets
from .side import Side
from .sqlite import SideFile

SUFFIX = ".jsonl"
COMPANION_DB = "service.db"
"""The SQLite file in the directory that holds the tables kept beside the fights (side.py) and
any other companion table (companions.py): their rows go with a deleted or renamed fight. Not a
`.jsonl`, so never taken for a fight."""
_WINDOW = 4096  # entries of the index read at a time by a read of many events
_TAIL = 4096  # bytes read at a time when looking back for the last newline
_UNDO_TYPES = frozenset(str(kind.__struct_config__.tag) for kind in (Retract, Amend))


class _Head(msgspec.Struct):
    """The two fields a scan needs; msgspec skips the rest of the line without building it."""

    id: str | None = None
    type: str = ""


_head_decoder = msgspec.json.Decoder(_Head)
E = TypeVar("E", bound=EventBase)
E_co = TypeVar("E_co", bound=EventBase, covariant=True)
U = TypeVar("U", bound=EventBase)


class Decode(Protocol[E_co]):
    """A family's checked decode of one line (codec.Family.decode, .decode_undo)."""

    def __call__(self, data: bytes | str, *, line: int | None = None) -> E_co: ...


class JsonlStore(ClosesOnExit):
    """A store in a directory of `<fight>.jsonl` files.

    `fights()` lists fights sorted by name: a file's creation time is not portably known.
    Fight ids must be safe file names: a letter, digit or `_` first, then letters, digits and
    `_.-`, at most 200 characters. `save_snapshot` keeps nothing and `snapshot` returns None.
    """

    transactional = False
    """Appends commit by themselves, whatever transaction of the side tables is open."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        make_private_directory(self.directory)
        self._side_file = SideFile(self.directory / COMPANION_DB)
        self.side = Side(self._side_file)

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.directory)!r})"

    def close(self) -> None:
        """Close the side tables' file; a fight's file is open only during each call (and each
        read's stream)."""
        self._side_file.close()
        self._closed = True

    def transaction(self) -> AbstractContextManager[object]:
        """A transaction of the side tables alone: an append inside commits by itself."""
        return self._side_file.write()

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]:
        """Nothing: one process owns a directory, and keeps its own imports apart."""
        return nullcontext()

    def path(self, fight: str) -> Path:
        """The fight's (or campaign's) file; UsageError if its id cannot safely be a file name."""
        check_stream_id(fight)
        return self.directory / f"{fight}{SUFFIX}"

    # -- writing ---------------------------------------------------------------------------------

    def append(
        self,
        fight: str,
        events: Sequence[Event] | Sequence[CampaignEvent],
        expected_version: int | None = None,
    ) -> int:
        path = self.path(fight)
        # A new fight is planned against the empty log first, so that a first batch that is
        # refused (or has nothing to write) leaves no empty file behind to be listed as a fight.
        if not path.exists():
            planned = plan_append(fight, events, 0, expected_version, nothing_stored)
            if not planned:
                return 0
        with _locked(path) as fd:
            with _naming(path):
                version, end, stored = _scan_for_append(
                    fd, {e.id for e in events if e.id is not None}, family_of(fight)
                )
            if end < os.fstat(fd).st_size:
                os.ftruncate(fd, end)  # a torn last line, left by a crash mid-write
            fresh = plan_append(fight, events, version, expected_version, lambda ids: stored)
            if fresh:
                _write_batch(fd, end, b"".join(body + b"\n" for _, body in fresh))
                if end == 0:
                    _fsync_directory(self.directory)  # so the new file's name survives a crash
            return version + len(fresh)

    @property
    def companion_db(self) -> Path:
        return self.directory / COMPANION_DB

    def delete_fight(self, fight: str) -> bool:
        path = self.path(fight)
        with self._companions() as db, _locked_if_there(path) as fd:
            if db is not None:
                companions.delete_rows(db, fight)
            if fd is None:
                return False
            there = os.fstat(fd).st_size > 0
            os.unlink(path)  # under the lock: no append is half done, and a waiting one reopens
            forget(path)
            _fsync_directory(self.directory)
            return there

    def rename_fight(self, old: str, new: str) -> int:
        source, target = self.path(old), self.path(new)
        with self._companions() as db, _locked_if_there(source) as fd:
            # counted on the locked fd: a shared lock taken by another open of the file would wait
            # for our own exclusive one
            version = _scan_for_append(fd, set(), FIGHT)[0] if fd is not None else 0
            if not version:
                raise UsageError(f"no fight `{old}` to rename")
            if db is not None:
                companions.rename_rows(db, old, new)
            # link, not rename: a link fails if `new` is there (even if it appeared just now),
            # where a rename would silently replace it. An empty `new` file is no fight.
            if target.exists() and target.stat().st_size == 0:
                target.unlink()
            try:
                os.link(source, target)
            except FileExistsError:
                taken = self.version(new)
                raise ConflictError(
                    f"fight `{new}` already exists ({taken} events): rename `{old}` to another "
                    "id, or delete that fight first",
                    current_version=taken,
                ) from None
            os.unlink(source)
            forget(source)
            _fsync_directory(self.directory)
            return version

    @contextmanager
    def _companions(self) -> Iterator[Any | None]:
        """A write of the side tables' file, if there is one, that commits only after the
        files are changed: a failure before that undoes the rows too."""
        if not self._side_file.exists():
            yield None
            return
        with self._side_file.write():
            yield self._side_file.connection()

    def save_snapshot(self, fight: str, seq: int, data: bytes) -> None:
        """Snapshots are an optimisation this store does without."""

    # -- reading ---------------------------------------------------------------------------------

    def fights(self) -> list[str]:
        names = (
            path.name.removesuffix(SUFFIX)
            for path in self.directory.glob(f"*{SUFFIX}")
            if path.is_file() and path.stat().st_size > 0
        )
        return sorted(name for name in names if is_fight_id(name))

    def version(self, fight: str) -> int:
        return len(_indexed(self.path(fight)))

    def _read(
        self, stream: str, from_seq: int, to_seq: int | None, family: Family[E, Any]
    ) -> Iterator[Stored[E]]:
        # the path checks the id now, not on the first next()
        return _read_file(self.path(stream), from_seq, to_seq, family)

    def _lookup(
        self, fight: str, refs: Iterable[str], family: Family[E, Any]
    ) -> dict[str, Stored[E]]:
        by_seq, ids = split_refs(refs)
        found: dict[str, Stored[E]] = {}
        wanted = len(by_seq) + len(ids)
        path = self.path(fight)
        with _naming(path):
            for seq, number, raw in _lines(path):
                if len(found) == wanted:
                    break
                if seq in by_seq:
                    found[by_seq[seq]] = _stored(seq, number, raw, family.decode)
                event_id = _head(raw, number, family).id
                if event_id in ids:
                    found[event_id] = _stored(seq, number, raw, family.decode)
        return found

    def _undo_events(
        self, fight: str, to_seq: int | None, family: Family[Any, U]
    ) -> list[Stored[U]]:
        return _undo_lines(self.path(fight), to_seq, family)

    def snapshot(self, fight: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        return None


def _read_file(
    path: Path, from_seq: int, to_seq: int | None, family: Family[E, Any]
) -> Iterator[Stored[E]]:
    """Events `from_seq` to `to_seq` of the file, read from where its index says the line
    before `from_seq` ends: a window of a long fight is not a scan of all before it."""
    with _naming(path), _opened_indexed(path) as (f, index):
        last = len(index) if to_seq is None else min(to_seq, len(index))
        before = min(max(from_seq, 1) - 1, last)
        end = index.end(before)
        f.seek(end)
        for first in range(before + 1, last + 1, _WINDOW):
            words = index.words(first, min(first + _WINDOW - 1, last))
            for at in range(0, len(words), 2):
                raw = _event_line(f, words[at] - end)
                end = words[at]
                yield _stored(first + at // 2, words[at + 1] >> 2, raw, family.decode)


def _event_line(f: BinaryIO, size: int) -> bytes:
    """The next event's line, `f` standing where the line before it ends and `size` bytes to
    where it ends: the last line of those (blank lines, a person's edit, may come first)."""
    chunk = f.read(size)
    return chunk[chunk.rfind(b"\n", 0, len(chunk) - 1) + 1 :]


def _undo_lines(path: Path, to_seq: int | None, family: Family[Any, U]) -> list[Stored[U]]:
    """The undo events of the file up to `to_seq`, each read where its index says it is."""
    undos: list[Stored[U]] = []
    with _naming(path), _opened_indexed(path) as (f, index):
        for seq in index.flagged(to_seq):
            start, (end, numbered) = index.end(seq - 1), index.words(seq, seq)
            f.seek(start)
            raw, number = _event_line(f, end - start), numbered >> 2
            if _head(raw, number, family).type in _UNDO_TYPES:
                undos.append(_stored(seq, number, raw, family.decode_undo))
    return undos


def _indexed(path: Path) -> Offsets:
    """The index of the fight file `path` (empty if there is no such file)."""
    with _opened_indexed(path) as (_, index):
        return index


@contextmanager
def _opened_indexed(path: Path) -> Iterator[tuple[BinaryIO, Offsets]]:
    """The fight file open, and its index up to its last complete line when it was opened (no
    file: an empty one, and an empty index)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:  # a fight never written to
        yield io.BytesIO(), Offsets()
        return
    with open(fd, "rb") as f, offsets(f, path, _complete_end(f), _flag) as index:
        yield f, index


def _complete_end(f: BinaryIO) -> int:
    """Under the shared lock, where the file's last complete line ends (see _complete_lines)."""
    portalocker = _locks()
    portalocker.lock(f, portalocker.LOCK_SH)
    try:
        return _end_of_last_line(f)
    finally:
        portalocker.unlock(f)


def _flag(raw: bytes) -> int:
    """An event line's flag in the index: an undo, a line whose head does not read, or 0."""
    try:
        kind = _head_decoder.decode(raw).type
    except msgspec.MsgspecError:
        return UNREAD
    return UNDO if kind in _UNDO_TYPES else 0


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """A line of the fight's file that does not read names the file (issue 24): a person who
    edited it by hand, in a store of many fights, must find which one to mend."""
    try:
        yield
    except StructuralError as error:
        error.add_note(f"in {path}: mend or remove that line")
        raise


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(seq, line number, line) of each event line complete when the stream began."""
    try:
        with open(path, "rb") as f:
            yield from _complete_lines(f)
    except FileNotFoundError:
        return  # a fight never written to


def _complete_lines(f: BinaryIO) -> Iterator[tuple[int, int, bytes]]:
    # Under the shared lock no writer is mid-batch, so the end of the last complete line is a
    # batch boundary; whatever is written after lies beyond it and waits for the next read.
    portalocker = _locks()
    portalocker.lock(f, portalocker.LOCK_SH)
    try:
        complete = _end_of_last_line(f)
    finally:
        portalocker.unlock(f)
    f.seek(0)
    yield from _event_lines(f, complete)


def _end_of_last_line(f: BinaryIO) -> int:
    """The offset just past the file's last newline: a torn last line is left outside it."""
    end = os.fstat(f.fileno()).st_size
    while end > 0:
        start = max(0, end - _TAIL)
        f.seek(start)
        newline = f.read(end - start).rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        end = start
    return 0


def _event_lines(f: BinaryIO, limit: int) -> Iterator[tuple[int, int, bytes]]:
    seq = offset = 0
    for number, raw in enumerate(bounded.lines(f, f.name), start=1):
        offset += len(raw)
        if offset > limit:
            return
        if raw.strip():
            seq += 1
            yield seq, number, raw


def _scan_for_append(
    fd: int, ids: set[str], family: Family[E, Any]
) -> tuple[int, int, dict[str, tuple[int, bytes]]]:
    """Under the write lock: the version, the end of the last complete line, and the events
    already stored under `ids`, as (seq, canonical bytes)."""
    version = end = 0
    stored: dict[str, tuple[int, bytes]] = {}
    with open(fd, "rb", closefd=False) as f:
        for number, raw in enumerate(bounded.lines(f, f"fight file (descriptor {fd})"), start=1):
            if not raw.endswith(b"\n"):
                break  # a torn last line: not part of the log
            end += len(raw)
            if not raw.strip():
                continue
            version += 1
            event_id = _head(raw, number, family).id
            if event_id in ids and event_id not in stored:
                stored[event_id] = (
                    version,
                    canonical(_stored(version, number, raw, family.decode).event),
                )
    return version, end, stored


def _write_batch(fd: int, end: int, data: bytes) -> None:
    """Put the batch after the last complete line, all of it on disk or none of it in the file."""
    try:
        os.lseek(fd, end, os.SEEK_SET)
        written = 0
        while written < len(data):  # one write(2) unless the kernel takes the batch in parts
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except BaseException:
        os.ftruncate(fd, end)  # a full disk or an interrupt must not leave half a batch behind
        raise


@contextmanager
def _locked(path: Path) -> Iterator[int]:
    """The fight's file, created if missing, open for writing under an exclusive lock."""
    portalocker = _locks()
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), PRIVATE_FILE)
        try:
            with os.fdopen(fd, "r+b", closefd=False) as f:
                portalocker.lock(f, portalocker.LOCK_EX)
            if _still_named(path, fd):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # deleted or renamed while this waited for the lock: open the name again
    try:
        yield fd
    finally:
        os.close(fd)  # releases the lock


def _still_named(path: Path, fd: int) -> bool:
    """Whether `path` is still the file open as `fd` (a delete or rename may have come first)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(fd))
    except FileNotFoundError:
        return False


@contextmanager
def _locked_if_there(path: Path) -> Iterator[int | None]:
    """The fight's file under the exclusive lock, or None if there is no such file."""
    if not path.exists():
        yield None
        return
    with _locked(path) as fd:
        yield fd


def _locks() -> Any:
    """portalocker, a well-kept lock that works on every OS (flock on POSIX, as before; the
    Windows API there), imported only when a JSON Lines store locks a file: importing the CLI
    needs no `fcntl`, which Windows, where many GMs run their virtual tabletop, lacks."""
    import portalocker

    return portalocker


def _fsync_directory(directory: Path) -> None:
    if os.name != "posix":
        return  # a directory cannot be opened to be synced there; its entries are durable
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _head(raw: bytes, number: int, family: Family[Any, Any]) -> _Head:
    try:
        return _head_decoder.decode(raw)
    except msgspec.MsgspecError:
        # A hand-edited line gone wrong: the full decode says which line and field, as a
        # StructuralError. (It cannot succeed where the head failed; re-raise if it ever does.)
        family.decode(raw, line=number)
        raise


def _stored(seq: int, number: int, raw: bytes, decode: Decode[E]) -> Stored[E]:
    try:
        return Stored(seq, decode(raw, line=number))
    except StructuralError as err:
        raise err.located(event=f"#{seq}") from None
