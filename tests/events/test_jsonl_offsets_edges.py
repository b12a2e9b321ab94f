"""The JSON Lines index of line ends at its edges (issue 39, found missing by the mutation run):
a fight read from its first event; a line of exactly the bound read through the index and one
byte more refused; a file of blank lines only, then its first event; an index whose entries do
not increase made again; a full disk, with the new entries held in memory; and the scan without
`pread` naming a line as the file numbers it, a blank line first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from woundlog.events import FightStarted, Hit
from woundlog.events.bounded import MAX_LINE, TooLong
from woundlog.events.stores.jsonl import JsonlStore
from woundlog.events.stores.offsets import index_path

EVENTS = 50
HEADER = 32  # the index's magic, inode and first line's hash (offsets.py)


def hits(first: int, count: int) -> list[Hit]:
    return [Hit(id=f"h{n}", target="grim", damage=1) for n in range(first, first + count)]


@pytest.fixture
def store(tmp_path: Path) -> JsonlStore:
    made = JsonlStore(tmp_path / "store")
    made.append("f", [FightStarted(id="start", ruleset="mordheim"), *hits(2, EVENTS - 1)])
    return made


def ids(store: JsonlStore, first: int, last: int | None = None) -> list[str | None]:
    return [stored.event.id for stored in store.read("f", first, last)]


def test_a_fight_read_from_its_first_event_starts_at_the_start_of_the_file(
    store: JsonlStore,
) -> None:
    assert store.version("f") == EVENTS  # the index is made
    assert ids(store, 1, 3) == ["start", "h2", "h3"]
    assert len(ids(store, 1)) == EVENTS


def test_an_event_line_of_exactly_the_bound_is_read_and_one_byte_more_is_refused(
    store: JsonlStore,
) -> None:
    """A line is at most MAX_LINE bytes, its newline counted (events/bounded.py)."""
    assert store.version("f") == EVENTS
    line = b'{"type":"hit","id":"wide","target":"grim","damage":1}'
    with open(store.path("f"), "ab") as f:
        f.write(line + b" " * (MAX_LINE - len(line) - 1) + b"\n")
    assert store.version("f") == EVENTS + 1
    assert ids(store, EVENTS + 1) == ["wide"]
    with open(store.path("f"), "ab") as f:
        f.write(line.replace(b"wide", b"over") + b" " * (MAX_LINE - len(line)) + b"\n")
    with pytest.raises(TooLong, match=f"line {EVENTS + 2}: longer than 8 MiB"):
        store.version("f")


def test_a_file_of_blank_lines_reads_as_no_events_until_its_first_is_written(
    tmp_path: Path,
) -> None:
    """Blank lines (a person's edit) may come before an event: a file holding only them has no
    event, however often it is read (the index then holds none), and its first event is read
    once it is written."""
    store = JsonlStore(tmp_path / "store")
    store.append("f", [FightStarted(id="start", ruleset="mordheim")])
    store.path("f").write_bytes(b"\n\n")
    for _ in range(3):
        assert store.version("f") == 0
        assert ids(store, 1) == []
    with open(store.path("f"), "ab") as f:
        f.write(b'{"type":"fight_started","id":"again","ruleset":"mordheim"}\n')
    assert store.version("f") == 1
    assert ids(store, 1) == ["again"]
    assert store.version("f") == 1


def test_an_index_whose_last_entries_do_not_increase_is_made_again(store: JsonlStore) -> None:
    """Each event's line ends after the one before it: an index saying otherwise is of another
    file (or damaged), and is made again rather than read."""
    assert store.version("f") == EVENTS
    index = index_path(store.path("f"))
    words = bytearray(index.read_bytes())
    last, before = HEADER + 16 * (EVENTS - 1), HEADER + 16 * (EVENTS - 2)
    words[last : last + 8] = words[before : before + 8]  # the last line ends where the one before
    index.write_bytes(bytes(words))
    assert store.version("f") == EVENTS
    assert ids(store, EVENTS - 1) == [f"h{EVENTS - 1}", f"h{EVENTS}"]


def test_on_a_full_disk_the_events_the_index_cannot_take_are_read(
    store: JsonlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index cannot be extended (a full disk): the events past it are scanned and held
    in memory for the read, which reads them all the same."""
    assert store.version("f") == EVENTS
    store.append("f", hits(EVENTS + 1, 5))

    def full(*_: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    assert ids(store, EVENTS + 3, EVENTS + 4) == [f"h{EVENTS + 3}", f"h{EVENTS + 4}"]
    assert ids(store, EVENTS - 1) == [f"h{n}" for n in range(EVENTS - 1, EVENTS + 6)]
    assert store.version("f") == EVENTS + 5


def test_without_pread_a_bad_line_is_named_by_its_line_in_the_file(
    store: JsonlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan without an index (Windows) numbers lines as the file does, blank ones too."""
    path = store.path("f")
    path.write_bytes(
        b"\n" + path.read_bytes() + b'{"type":"hit","id":"bad","target":"grim","damage":-1}\n'
    )
    monkeypatch.delattr("os.pread")
    assert store.version("f") == EVENTS + 1
    assert ids(store, 1, 2) == ["start", "h2"]
    with pytest.raises(Exception, match="damage") as refused:
        ids(store, EVENTS + 1)
    assert f"line {EVENTS + 2}" in str(refused.value) + "".join(refused.value.__notes__)
