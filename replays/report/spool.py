"""What a report writes aside as it reads a fight, so that its memory does not grow with the
fight: the chronicle, line by line, each character's health track (for the HTML chart), and
the events of the fight as played (the luck's what-if),
each in a temporary file that stays in memory while it is small (`SPOOLED` bytes) and goes to
disk past it. Read back in the order written, once or again.

Decisions where the issue is silent:
- The what-if's first `head` events are kept as objects (FIGHT_STEPS + 1, or the most a
  fight may have and still be sampled, SAMPLE_STEPS // FEWEST_SAMPLES, whichever is more):
  the odds engine reads them again for each sample, and an exact answer spends at least a
  reducer step on each event before the ticks that end the fight (`core.odds.exact`), so it
  gives up within them. Past them, only the ticks at the very end could be reached (when
  they rest): those are held while no other event has come after them, and dropped once
  one does; a run of more than TICKS_HELD of them is written aside as MessagePack (before,
  every tick past the head was encoded and written, and a new spool made after each other
  event: about 10,000 instructions an event of the benchmark fight).
- Past the head, an index answers with an event of the same kind, a tick or not, rather than
  the event itself: what the engine reads by index is where the ticks at the end begin
  (`core.odds._ticks_from`), and a fight of a million events read back by index would cost a
  pass of the file per event.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from itertools import groupby
from typing import IO, Any, overload

import msgspec

from woundlog.events import Event, TurnEnded, TurnStarted

from .values import Line

SPOOLED = 1 << 20
"""Bytes a spool holds in memory before it goes to a file on disk."""
HEAD = 10_001
"""What-if events kept as objects by default: one more than the reducer steps an exact answer
may take (luck.FIGHT_STEPS), each event at least one; a report works its own out as it begins
(one_pass.OnePass)."""


def _spooled() -> IO[bytes]:
    return tempfile.SpooledTemporaryFile(max_size=SPOOLED, mode="w+b")


class ChronicleSpool:
    """The chronicle as it is told (`chronicle.Written`), read back chapter by chapter
    (`chapters`). A context manager: the file goes when it closes."""

    def __init__(self) -> None:
        self.file = _spooled()
        self.count = 0  # chapters begun
        self.tracks: list[TrackPoints] = []  # the health tracks, where a report spools them

    def chapter(self, round: int) -> None:
        self.count += 1
        self.file.write(b"c%d\n" % round)

    def line(self, line: Line) -> None:
        self.file.write(b"l%d %s\n" % (line.seq, msgspec.json.encode(line.text)))

    def chapters(self) -> Iterator[tuple[int, Iterator[Line]]]:
        """Each chapter's round and its lines, in the order told; a chapter's lines are read
        as its iterator is (read each before the next chapter)."""
        self.file.flush()
        self.file.seek(0)
        numbered = groupby(_records(self.file), key=lambda record: record[0])
        for _, records in numbered:
            _, first = next(records)
            assert isinstance(first, int), "a chapter begins with its round"
            yield first, (line for _, line in records if isinstance(line, Line))

    def close(self) -> None:
        self.file.close()
        for track in self.tracks:
            track.close()

    def __enter__(self) -> ChronicleSpool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _records(file: IO[bytes]) -> Iterator[tuple[int, int | Line]]:
    """(chapter number, its round or one of its lines) of each record written."""
    number = 0
    for raw in file:
        if raw[:1] == b"c":
            number += 1
            yield number, int(raw[1:])
        else:
            seq, _, text = raw[1:].partition(b" ")
            yield number, Line(seq=int(seq), text=msgspec.json.decode(text, type=str))


def _as_given(event: Event) -> Event:
    return event


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Event).decode


TICKS_HELD = 1_024
"""Ticks past the head held as they came, before they are written aside: most runs of ticks
end with another event, which drops them, before they reach it."""
TICKS = (TurnStarted, TurnEnded)


class EventSpool(Sequence[Event]):
    """Events added one by one (`add`), iterated in that order: the first `head` as objects,
    then the ticks that end the fight, held as they come (TICKS_HELD at most) and written
    aside past them (the module's docstring says why). By index past the head, an event of
    the same kind."""

    def __init__(self, head: int | None = None) -> None:
        self.head: list[Event] = []
        self.most = HEAD if head is None else head
        self.file: IO[bytes] | None = None
        self.ticks: list[Event] = []  # the newest ticks past the head, not yet written aside
        self.freed: Callable[[Event], Event] = _as_given
        self.length = 0
        self.last_tick: Event | None = None
        self.last_other: Event | None = None
        self.ticks_from = 0  # the index past the last event that is not a tick

    def add(self, event: Event, freed: Callable[[Event], Event]) -> None:
        """`event`, as `freed` makes it where it is kept (its given dice left out): past the
        head, when it is read back (most ticks are dropped before then)."""
        tick = type(event) in TICKS
        if tick:
            self.last_tick = event
        else:
            self.last_other = event
            self.ticks_from = self.length + 1
        self.length += 1
        if len(self.head) < self.most:
            self.head.append(freed(event))
        elif not tick:
            if self.ticks:
                self.ticks = []
            self.close()  # the ticks before it can no longer be reached
        else:
            self.freed = freed
            ticks = self.ticks
            ticks.append(event)
            if len(ticks) >= TICKS_HELD:
                self._write_aside()

    def _write_aside(self) -> None:
        if self.file is None:
            self.file = _spooled()
        for tick in self.ticks:
            data = _encode(self.freed(tick))
            self.file.write(len(data).to_bytes(4, "little") + data)
        self.ticks = []

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[Event]:
        yield from self.head
        if self.length == len(self.head):
            return
        if self.ticks_from > len(self.head):
            raise AssertionError(
                f"the what-if's events past {len(self.head):,} were not kept: an exact answer "
                "gives up before them"
            )
        if self.file is not None:
            self.file.flush()
            at = 0
            while True:
                self.file.seek(at)
                size = self.file.read(4)
                if not size:
                    break
                data = self.file.read(int.from_bytes(size, "little"))
                at = self.file.tell()
                yield _decode(data)
        yield from map(self.freed, self.ticks)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Event]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError(index)
        if index < len(self.head):
            return self.head[index]
        return self.last_tick if index >= self.ticks_from else self.last_other

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


class TrackPoints:
    """One character's health track (`values.Track`), its points written aside as they come:
    `character`, `counter`, and `points`, read back in order (once or again)."""

    BUFFERED = 4096
    """Points held in memory before they go to the file."""

    def __init__(self, character: str, counter: str) -> None:
        self.character = character
        self.counter = counter
        self.buffer = array("q")  # seq, value, seq, value, ...
        self.file: IO[bytes] | None = None

    def add(self, seq: int, value: int) -> None:
        self.buffer.append(seq)
        self.buffer.append(value)
        if len(self.buffer) >= 2 * self.BUFFERED:
            if self.file is None:
                self.file = _spooled()
            self.file.seek(0, 2)
            self.buffer.tofile(self.file)
            self.buffer = array("q")

    @property
    def points(self) -> Iterator[tuple[int, int]]:
        if self.file is not None:
            self.file.flush()
            at = 0
            while True:
                self.file.seek(at)
                block = self.file.read(2 * 8 * self.BUFFERED)
                if not block:
                    break
                at = self.file.tell()
                read = array("q", block)
                yield from zip(read[::2], read[1::2], strict=True)
        yield from zip(self.buffer[::2], self.buffer[1::2], strict=True)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
