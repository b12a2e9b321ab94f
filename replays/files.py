"""Replaying a `.jsonl` fight file with no store: two streaming passes, memory held flat.

The first pass reads only what undo needs: the undo events themselves and the events that carry
an id. The second folds every event once. Memory
grows with the number of explicit ids and undo events, never with the rest of the log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain, count, islice, starmap
from operator import length_hint
from pathlib import Path
from typing import Any, NamedTuple

from woundlog.core import Changes, FightState
from woundlog.events import Event, UsageError, WoundlogError, bounded, decode_json
from woundlog.events.codec import Decoded, read_jsonl, read_jsonl_decoded
from woundlog.events.stores import SQLiteStore, Stored

from .fight import Fight
from .fold import fold, fold_pairs
from .undo import Undo, resolve

BLOCK = 1 << 16
"""Bytes the first pass reads at a time."""
_UNDO_WORDS = (b'"id"', b'"event"', b"\\")
"""A line holding none of these carries no id and is no undo event: a `retract` and an `amend`
name the event they undo in the field `event`, which no other event has (one search for both,
cheaper than one for each of their types). A backslash is among them because a JSON escape can
spell any of the words (`"\\u0065vent"`): a line with one is decoded, which costs little, since
woundlog and most programs escape only quotes and controls."""
_BLANK_START = re.compile(rb"\n[ \t\r\n\x0b\x0c]")
"""How a blank line (only whitespace) begins after the line before it, if there is one."""


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last line may lack its newline), each line
    bounded."""
    with open(path, "rb") as f:
        yield from bounded.blocks(f, path, BLOCK)


def _undo_lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(seq, line number, raw line) of the lines undo needs: the first event line, and every
    line holding one of the words an id or an undo event is written with (or an escape).

    The words are searched for in whole blocks, so the lines without them cost next to
    nothing. A block that may hold a blank line (it has no event, so the seq falls behind the
    line number) is read line by line instead.
    """
    seq = number = 0
    for block in _blocks(path):
        if block[:1].isspace() or _BLANK_START.search(block):
            for raw in _split(block):
                number += 1
                if raw.strip():
                    seq += 1
                    if seq == 1 or any(word in raw for word in _UNDO_WORDS):
                        yield seq, number, raw
            continue
        starts = {block.rfind(b"\n", 0, hit) + 1 for hit in _hits(block)}
        if seq == 0:
            starts.add(0)  # the first event, `fight_started`
        counted = before = 0  # newlines in block[:counted]
        for start in sorted(starts):
            before += block.count(b"\n", counted, start)
            counted = start
            end = block.find(b"\n", start)
            raw = block[start:] if end < 0 else block[start : end + 1]
            yield seq + before + 1, number + before + 1, raw
        lines = block.count(b"\n") + (not block.endswith(b"\n"))
        seq += lines
        number += lines


def _split(block: bytes) -> list[bytes]:
    """The lines of a block split at newlines only, each keeping its newline (as a file does)."""
    lines = block.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def _hits(block: bytes) -> Iterator[int]:
    """Where in the block any of the undo words is written."""
    for word in _UNDO_WORDS:
        at = block.find(word)
        while at >= 0:
            yield at
            at = block.find(word, at + 1)


def scan_undo(path: Path, at: int | None = None) -> Undo:
    """Pass one: resolve the file's undo events, checking ids are unique and targets exist."""

    def named_or_undo() -> Iterator[tuple[int, int | None, Event]]:
        # a line with neither an id nor an undo is nothing undo needs: not even decoded
        for seq, number, raw in _undo_lines(path):
            if at is not None and seq > at:
                return
            yield seq, number, decode_json(raw, line=number)

    return resolve(named_or_undo())


class Void(NamedTuple):
    """An event of a file that the rules refused on replay, so it did nothing."""

    seq: int
    event: str  # its id, or `#N`
    line: int
    reason: str

    def __str__(self) -> str:
        name = self.event if self.event == f"#{self.seq}" else f"{self.event} (#{self.seq})"
        return f"line {self.line}: event {name} is void: {self.reason}"


def replay_file(
    path: str | Path,
    *,
    at: int | None = None,
    strict: bool = False,
    on_void: Callable[[Void], None] | None = None,
) -> Iterator[tuple[FightState[Any], Changes]]:
    """Each event's state and changes, as the fight stands: every undo in the file applied.
    `on_void` hears of each event the rules void, with its line."""
    path = Path(path)
    undo = scan_undo(path, at)
    events = _Events(path, at)
    try:
        for state, changes in fold(events, undo, strict=strict):
            if changes.void is not None and on_void is not None:
                on_void(Void(changes.seq, changes.event, events.line, changes.void))
            yield state, changes
    except WoundlogError as exc:
        raise exc.located(line=events.line) from None


def replay_file_state(
    path: str | Path,
    *,
    at: int | None = None,
    strict: bool = False,
    on_void: Callable[[Void], None] | None = None,
) -> FightState[Any] | None:
    """The state `replay_file` ends in (None: the file holds no event), refusing what it refuses,
    without working out each event's changes."""
    path = Path(path)
    undo = scan_undo(path, at)
    events = _Events(path, at)

    def voided(seq: int, event: str, reason: str) -> None:
        assert on_void is not None
        on_void(Void(seq, event, events.line, reason))

    try:
        return fold_pairs(
            events.pairs(), undo, strict=strict, on_void=None if on_void is None else voided
        )
    except WoundlogError as exc:
        raise exc.located(line=events.line) from None


FILE_FIGHT = "file"
"""The id a file's events have in the private store `file_fight` reads them into."""


@contextmanager
def file_fight(path: str | Path) -> Iterator[Fight]:
    """A `.jsonl` log as a fight of its own, in a private in-memory store while the context
    lasts: every use case that reads a stored fight reads it. No rule is checked on the way in
    (a file is replayed, so what the rules refuse becomes void, as `replay_file` has it); a
    line that is not an event is refused with its line, as everywhere."""
    path = Path(path)
    events = [event for _, event in read_jsonl(path)]
    if not events:
        raise UsageError(f"{path} holds no events")
    with SQLiteStore(":memory:") as store:
        store.append(FILE_FIGHT, events)
        yield Fight(store, FILE_FIGHT)


class _Events:
    """Pass two: the file's events up to seq `at`; `line` is where the latest one came from."""

    def __init__(self, path: Path, at: int | None) -> None:
        self.path = path
        self.at = at
        # the block the latest event came from: a plain one's list and what is left of it
        # (its lines worked out from the place taken), else the line set as each is taken
        self._plain: list[Event] | None = None
        self._left: Iterator[Event] = iter(())
        self._start = 0
        self._line = 0

    @property
    def line(self) -> int:
        """The line the latest event taken came from (0: none yet)."""
        plain = self._plain
        if plain is None:
            return self._line
        return self._start + len(plain) - length_hint(self._left) - 1

    def __iter__(self) -> Iterator[Stored[Event]]:
        return starmap(Stored, self.pairs())

    def pairs(self) -> Iterator[tuple[int, Event]]:
        """(seq, event) of each event: what `fold_pairs` takes, no `Stored` made for it.

        Made in C from each block's events (`_taken`), so taking an event resumes no Python
        frame: a generator here cost a replay about 700 instructions an event. It stops right
        after event `at`, so no line past it is refused (or folded)."""
        at = self.at
        if at is not None and at <= 0:
            return iter(())
        events = chain.from_iterable(map(self._taken, read_jsonl_decoded(self.path)))
        pairs = zip(count(1), events)
        return pairs if at is None else islice(pairs, at)

    def _taken(self, block: Decoded) -> Iterator[Event]:
        """A block's events, as the fold takes them: a plain block's straight from its list
        (where each came from is its place in it), another's one by one, each line noted."""
        if block.plain is not None:
            self._plain, self._start = block.plain, block.start
            self._left = iter(block.plain)
            return self._left
        self._plain = None
        return self._noted(block.events)

    def _noted(self, events: Iterator[tuple[int, Event]]) -> Iterator[Event]:
        for line, event in events:
            self._line = line
            yield event
