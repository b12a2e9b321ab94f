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


def _spooled_text() -> IO[str]:
    """Text as it is written: UTF-8, its line ends as they are (`newline=""`)."""
    return tempfile.SpooledTemporaryFile(max_size=SPOOLED, mode="w+", encoding="utf-8", newline="")


class ChronicleSpool:
    """The chronicle as it is told (`chronicle.Written`), read back chapter by chapter
    (`chapters`). A context manager: the file goes when it closes.

    What is written is the chronicle's text as the renderers write it, each chapter's lines
    one after the other with a space between (`SpooledChapter.text`, read in blocks: no work a line
    when it is written out), and, aside, each chapter's round and size and each line's event
    and size (`Ints`), from which its lines are read back one by one where they are asked
    for (`SpooledChapter.__iter__`)."""

    def __init__(self) -> None:
        self.file = _spooled_text()
        self.held: list[str] = []  # text told, not yet written to the file
        self.size = 0  # characters held
        self.count = 0  # chapters begun
        self.rounds = Ints()  # per chapter: its round, lines and characters
        self.lines = Ints()  # per line: its event's seq and characters
        self.round: int | None = None  # the chapter being told: its round, lines, characters
        self.told = self.characters = 0
        self.tracks: list[TrackPoints] = []  # the health tracks, where a report spools them

    def chapter(self, round: int) -> None:
        self._close_chapter()
        self.count += 1
        self.round = round

    def line(self, line: Line) -> None:
        text, held = line.text, self.held
        if self.told:
            held.append(" ")
            self.characters += 1
        held.append(text)
        self.told += 1
        self.characters += len(text)
        self.lines.append(line.seq)
        self.lines.append(len(text))
        self.size += len(text)
        if self.size >= HELD:
            self._write_held()

    def _write_held(self) -> None:
        self.file.write("".join(self.held))
        self.held, self.size = [], 0

    def _close_chapter(self) -> None:
        if self.round is not None:
            for number in (self.round, self.told, self.characters):
                self.rounds.append(number)
        self.round, self.told, self.characters = None, 0, 0

    def chapters(self) -> Iterator[tuple[int, SpooledChapter]]:
        """Each chapter's round and its lines (`SpooledChapter`), in the order told; a chapter is
        read as it is iterated (read each before the next chapter: what is left of one is
        passed over when the next is asked for)."""
        self._close_chapter()
        self._write_held()
        self.file.flush()
        self.file.seek(0)
        first_line = 0
        numbers = iter(self.rounds)
        for round_, lines, characters in zip(numbers, numbers, numbers, strict=True):
            chapter = SpooledChapter(self, first_line, lines, characters)
            yield round_, chapter
            chapter.pass_over()
            first_line += lines

    def close(self) -> None:
        self.file.close()
        self.rounds.close()
        self.lines.close()
        for track in self.tracks:
            track.close()

    def __enter__(self) -> ChronicleSpool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


HELD = 1 << 16
"""Characters of the chronicle held before they are written to its spool: one write a block."""


class SpooledChapter:
    """One chapter of a `ChronicleSpool` as it is read back: its lines (`Line`) as it is
    iterated, or its text (`text`: the lines with a space between, in blocks of at most HELD
    characters); what one way has read, the other does not read again."""

    def __init__(self, spool: ChronicleSpool, first_line: int, lines: int, characters: int):
        self.spool = spool
        self.first_line = first_line
        self.lines = lines
        self.taken = 0  # lines read
        self.left = characters  # characters not yet read

    def text(self) -> Iterator[str]:
        self.taken = self.lines
        read = self.spool.file.read
        while self.left > 0:
            block = read(min(self.left, HELD))
            self.left -= len(block)
            yield block

    def __iter__(self) -> Iterator[Line]:
        read = self.spool.file.read
        numbers = self.spool.lines.read_from(2 * (self.first_line + self.taken))
        while self.taken < self.lines:
            seq, size = next(numbers), next(numbers)
            if self.taken:
                read(1)  # the space between two lines
                self.left -= 1
            text = read(size)
            self.left -= size
            self.taken += 1
            yield Line(seq=seq, text=text)

    def pass_over(self) -> None:
        """Read what is left of the chapter, so that the next one begins where it should."""
        for _ in self.text():
            pass


class Ints:
    """Integers appended in order, read back in order from any position, once or again:
    BUFFERED in memory, the rest written aside to a spool's file as they come."""

    BUFFERED = 4096

    def __init__(self) -> None:
        self.buffer = array("q")
        self.written = 0  # integers in the file
        self.file: IO[bytes] | None = None

    def append(self, number: int) -> None:
        buffer = self.buffer
        buffer.append(number)
        if len(buffer) >= self.BUFFERED:
            if self.file is None:
                self.file = _spooled()
            self.file.seek(0, 2)
            buffer.tofile(self.file)
            self.written += len(buffer)
            self.buffer = array("q")

    def __iter__(self) -> Iterator[int]:
        return self.read_from(0)

    def read_from(self, index: int) -> Iterator[int]:
        """The integers from the `index`-th on (0: the first)."""
        if self.file is not None and index < self.written:
            file = self.file
            file.flush()
            at = 8 * index
            while at < 8 * self.written:
                file.seek(at)
                block = file.read(min(8 * self.BUFFERED, 8 * self.written - at))
                at += len(block)
                yield from array("q", block)
        yield from self.buffer[max(0, index - self.written) :]

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


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
