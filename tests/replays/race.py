"""Making two writers race for real (issue 11, item 10): hold the store's write lock while both
read the fight and validate their batches against it, wait until both are blocked on the lock,
then let go. One commits; the other finds the fight moved on and must revalidate against what
the first wrote. No hook in woundlog: the lock is the store's own, and "blocked" is read from
the kernel (/proc), so the writers can be any processes: CLI runs, a `woundlog serve`."""

from __future__ import annotations

import fcntl
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

BLOCK_TIMEOUT_S = 30.0
_pause = threading.Event()  # never set


def store_url(kind: str, directory: Path) -> str:
    """The store a race runs on: an SQLite file, or a JSON Lines directory (created; named
    `jsonl:DIR`, since a bare directory that holds no store yet is none)."""
    if kind == "sqlite":
        return str(directory / "fights.db")
    (directory / "log").mkdir(exist_ok=True)
    return f"jsonl:{directory / 'log'}"


@contextmanager
def write_lock_held(kind: str, url: str, fight: str) -> Iterator[None]:
    """Hold what a writer of `fight` must take, leaving readers free.

    SQLite: a write transaction (WAL readers go on; writers wait in SQLite's busy handler).
    JSON Lines: a shared `flock` on the fight's file (readers share it; a writer's exclusive lock
    waits in the kernel)."""
    if kind == "sqlite":
        db = sqlite3.connect(url, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("ROLLBACK")
        finally:
            db.close()
    else:
        with open(Path(url.removeprefix("jsonl:")) / f"{fight}.jsonl", "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH)
            yield  # closing the file releases the lock


def wait_until_blocked(kind: str, pids: Collection[int], writers: int) -> None:
    """Return once `writers` threads of the processes `pids` wait for the write lock, seen
    three times in a row; AssertionError after BLOCK_TIMEOUT_S."""
    deadline = time.monotonic() + BLOCK_TIMEOUT_S
    seen = 0
    while time.monotonic() < deadline:
        waiting = _waiting_on_sqlite(pids) if kind == "sqlite" else _waiting_on_flock(pids)
        seen = seen + 1 if waiting >= writers else 0
        if seen == 3:
            return
        _pause.wait(0.05)  # a futex wait: time.sleep would look like a writer in SQLite's wait
    raise AssertionError(f"{writers} writers of {sorted(pids)} never blocked on the write lock")


def _waiting_on_sqlite(pids: Collection[int]) -> int:
    """Threads asleep in SQLite's busy handler, the only thing in a writer that sleeps."""
    count = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                if "nanosleep" in (task / "wchan").read_text():
                    count += 1
            except OSError:
                continue  # a thread that just ended
    return count


def _waiting_on_flock(pids: Collection[int]) -> int:
    """Blocked exclusive `flock` requests of `pids`, as /proc/locks lists them (`->`)."""
    count = 0
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "->" and fields[2] == "FLOCK" and fields[4] == "WRITE":
            count += int(fields[5]) in pids
    return count
