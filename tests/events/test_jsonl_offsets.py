"""A JSON Lines store reads a window of a long fight by offset (issue 37): the index of line
ends kept beside the file is used, not a scan of every line before the window (100,000 events:
3.2 s a timeline window), and it stays right when another process appends, after a torn last
line, a fight deleted and made again, renamed, edited by hand, or an index gone bad."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from woundlog.events import FightStarted, Hit, Retract
from woundlog.events.stores.jsonl import JsonlStore

EVENTS = 20_000


def index_path(path: Path) -> Path:
    from woundlog.events.stores.offsets import index_path as beside

    return beside(path)


def hits(first: int, count: int, damage: int = 1) -> list[Hit]:
    return [Hit(id=f"h{n}", target="grim", damage=damage) for n in range(first, first + count)]


@pytest.fixture
def store(tmp_path: Path) -> JsonlStore:
    made = JsonlStore(tmp_path / "store")
    made.append("f", [FightStarted(ruleset="mordheim"), *hits(2, EVENTS - 1)])
    return made


def ids(store: JsonlStore, first: int, last: int | None = None) -> list[str | None]:
    return [stored.event.id for stored in store.read("f", first, last)]


def bytes_read() -> int:
    """What this process has read by system calls so far (Linux's /proc/self/io)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="reads counted by Linux alone")
def test_a_window_of_a_long_fight_reads_far_less_than_the_log(store: JsonlStore) -> None:
    size = store.path("f").stat().st_size
    assert ids(store, EVENTS - 99, EVENTS - 90)[0] == f"h{EVENTS - 99}"  # the index is made
    before = bytes_read()
    window = ids(store, EVENTS - 99, EVENTS)
    version = store.version("f")
    read = bytes_read() - before
    assert window == [f"h{n}" for n in range(EVENTS - 99, EVENTS + 1)]
    assert version == EVENTS
    assert read < size / 2, (read, size)  # before: the whole log, twice


def test_events_another_process_appends_are_read(store: JsonlStore) -> None:
    assert store.version("f") == EVENTS
    script = (
        "import sys; from woundlog.events import Hit; "
        "from woundlog.events.stores.jsonl import JsonlStore; "
        "JsonlStore(sys.argv[1]).append('f', [Hit(id=f'late{n}', target='grim', damage=1) "
        "for n in range(5)])"
    )
    subprocess.run([sys.executable, "-c", script, str(store.directory)], check=True)
    assert store.version("f") == EVENTS + 5
    assert ids(store, EVENTS, EVENTS + 5) == [f"h{EVENTS}", *(f"late{n}" for n in range(5))]


def test_a_torn_last_line_is_not_read_and_the_next_append_cuts_it(store: JsonlStore) -> None:
    assert store.version("f") == EVENTS
    with open(store.path("f"), "ab") as f:
        f.write(b'{"type":"hit","id":"torn","tar')  # a crash mid-write
    assert store.version("f") == EVENTS
    assert ids(store, EVENTS - 1) == [f"h{EVENTS - 1}", f"h{EVENTS}"]
    store.append("f", hits(EVENTS + 1, 2))
    assert ids(store, EVENTS - 1) == [f"h{n}" for n in range(EVENTS - 1, EVENTS + 3)]
    assert store.version("f") == EVENTS + 2


def test_a_fight_deleted_and_made_again_reads_as_made(store: JsonlStore) -> None:
    assert store.version("f") == EVENTS
    store.delete_fight("f")
    assert not index_path(store.path("f")).exists()
    store.append("f", [FightStarted(ruleset="mordheim"), *hits(2, 9, damage=2)])
    assert store.version("f") == 10
    assert [s.event.damage for s in store.read("f", 2) if isinstance(s.event, Hit)] == [2] * 9


def test_a_fight_renamed_reads_under_its_new_name(store: JsonlStore) -> None:
    assert ids(store, 5, 5) == ["h5"]
    store.rename_fight("f", "g")
    assert [stored.event.id for stored in store.read("g", 5, 6)] == ["h5", "h6"]
    assert store.version("f") == 0 and store.version("g") == EVENTS


def test_a_file_edited_by_hand_in_place_is_read_as_it_now_is(store: JsonlStore) -> None:
    assert store.version("f") == EVENTS
    path = store.path("f")
    lines = path.read_bytes().splitlines(keepends=True)
    edited = [lines[0], b"\n", b"  \n", *lines[1:10], b"\n", *lines[10:100]]
    with open(path, "r+b") as f:  # the same file (inode), shorter, with blank lines
        f.write(b"".join(edited))
        f.truncate()
    assert store.version("f") == 100
    assert ids(store, 9, 12) == ["h9", "h10", "h11", "h12"]


@pytest.mark.parametrize("garbage", [b"", b"WLOFFS01" + b"\xff" * 100, b"\x00" * 4096])
def test_an_index_gone_bad_is_made_again(store: JsonlStore, garbage: bytes) -> None:
    assert store.version("f") == EVENTS
    index_path(store.path("f")).write_bytes(garbage)
    assert store.version("f") == EVENTS
    assert ids(store, 1000, 1001) == ["h1000", "h1001"]


def test_undo_events_and_a_bad_line_in_a_window_are_found_by_the_index(
    store: JsonlStore,
) -> None:
    store.append("f", [Retract(id="u1", event="h7")])
    assert store.version("f") == EVENTS + 1
    with open(store.path("f"), "ab") as f:
        f.write(b'{"type":"hit","id":"bad","target":"grim","damage":-1}\n')
    assert store.version("f") == EVENTS + 2
    assert ids(store, EVENTS + 1, EVENTS + 1) == ["u1"]
    with pytest.raises(Exception, match="damage") as refused:
        ids(store, EVENTS + 2)
    assert f"line {EVENTS + 2}" in str(refused.value) + "".join(refused.value.__notes__)


def test_without_pread_a_window_is_read_by_a_scan(
    store: JsonlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr("os.pread")  # Windows has none: no index, the scan of before
    assert ids(store, EVENTS - 1) == [f"h{EVENTS - 1}", f"h{EVENTS}"]
    assert store.version("f") == EVENTS
    assert not index_path(store.path("f")).exists()
