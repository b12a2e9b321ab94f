"""The SQLite store, woundlog's embedded default (`$WOUNDLOG_DB`, else the user data directory).

One row per event, its body the event's JSON as `encode_json` writes it. The file is in WAL mode,
so readers never wait for a writer; writers take `BEGIN IMMEDIATE`, so two processes appending to
one fight serialise on the database's write lock and each checks ids and version against what the
other committed. Open one store per process (and per thread): a connection must not cross a fork.
A new file (and the directories the store makes for it) is readable only by its owner.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from ..codec import canonical
from ..errors import ConflictError, StructuralError, UsageError
from ..fight_ids import check_fight_id
from ..model import Amend, Event, Retract, type_name
from . import companions
from ._batch import Fresh, plan_append, split_refs
from .base import ClosesOnExit, Stored, create_private_file, make_private_directory

SCHEMA_VERSION = 2
"""1: events, fights, snapshots. 2: `fight_tables`, the companion tables (companions.py).
Every statement of `_SCHEMA` is `IF NOT EXISTS`, so running it again is the migration."""
BUSY_TIMEOUT_S = 30.0
PAGE_SIZE = 1000
"""Rows fetched per query while streaming a read."""

_CHUNK = 500  # ids per `IN (...)`, well under SQLite's limit on bound parameters
_MAX_SEQ = 2**63 - 1
_UNDO_TYPES = tuple(str(kind.__struct_config__.tag) for kind in (Retract, Amend))
# Written out as literals, not bound: SQLite can use a partial index only for a query whose WHERE
# visibly implies the index's own.
_IS_UNDO = f"type IN ({', '.join(repr(name) for name in _UNDO_TYPES)})"
_decoder = msgspec.json.Decoder(Event)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS fights (
    fight   TEXT PRIMARY KEY,
    created INTEGER NOT NULL UNIQUE,
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    fight TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    id    TEXT,
    type  TEXT NOT NULL,
    body  BLOB NOT NULL,
    PRIMARY KEY (fight, seq),
    UNIQUE (fight, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_undo ON events (fight, seq) WHERE {_IS_UNDO};
CREATE TABLE IF NOT EXISTS snapshots (
    fight TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    data  BLOB NOT NULL,
    PRIMARY KEY (fight, seq)
);
{companions.SCHEMA};
"""
# `events` is WITHOUT ROWID so a fight's rows sit together in seq order: a replay reads them as
# one range of the table instead of jumping between an index and the rows. `events_undo` indexes
# the few undo events alone, already in seq order, so `undo_events` reads nothing else.


class SQLiteStore(ClosesOnExit):
    """A store in one SQLite file; `":memory:"` gives a private in-memory one (for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        in_memory = str(path) == ":memory:"
        if not in_memory:
            make_private_directory(self.path.parent)
            # SQLite creates its file, and then its -wal and -shm with the same mode, readable by
            # all under the usual umask; an empty file made first is a valid empty database.
            create_private_file(self.path)
        # timeout is SQLite's busy_timeout: wait that long for another writer before giving up.
        # isolation_level=None: the module opens no transactions of its own; we say when.
        self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            if not in_memory:
                _use_wal(self._db)
            # FULL: an append that returned is on disk, as the JSON Lines store's fsync promises.
            self._db.execute("PRAGMA synchronous = FULL")
            self._create_schema()
        except BaseException:
            self._db.close()
            raise

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def close(self) -> None:
        self._db.close()

    # -- writing ---------------------------------------------------------------------------------

    def append(
        self, fight: str, events: Sequence[Event], expected_version: int | None = None
    ) -> int:
        with self._write():
            version = self.version(fight)
            fresh = plan_append(
                fight, events, version, expected_version, lambda ids: self._stored_ids(fight, ids)
            )
            if fresh:
                self._insert(fight, version, fresh)
            return version + len(fresh)

    def delete_fight(self, fight: str) -> bool:
        with self._write():
            there = self.version(fight) > 0
            for table in ("events", "snapshots", "fights"):
                self._db.execute(f"DELETE FROM {table} WHERE fight = ?", (fight,))
            companions.delete_rows(self._db, fight)
            return there

    def rename_fight(self, old: str, new: str) -> int:
        check_fight_id(new)
        with self._write():
            version = self.version(old)
            if not version:
                raise UsageError(f"no fight `{old}` to rename")
            taken = self.version(new)
            if taken:
                raise ConflictError(
                    f"fight `{new}` already exists ({taken} events): rename `{old}` to another "
                    "id, or delete that fight first",
                    current_version=taken,
                )
            # fights.created is kept: the renamed fight keeps its place in `fights()`
            for table in ("events", "snapshots", "fights"):
                self._db.execute(f"UPDATE {table} SET fight = ? WHERE fight = ?", (new, old))
            companions.rename_rows(self._db, old, new)
            return version

    def save_snapshot(self, fight: str, seq: int, data: bytes) -> None:
        self._db.execute(
            "INSERT INTO snapshots (fight, seq, data) VALUES (?, ?, ?)"
            " ON CONFLICT (fight, seq) DO UPDATE SET data = excluded.data",
            (fight, seq, data),
        )

    # -- reading ---------------------------------------------------------------------------------

    def read(self, fight: str, from_seq: int = 1, to_seq: int | None = None) -> Iterator[Stored]:
        # Page by seq rather than hold one cursor open: between pages no statement is pending, so a
        # half-consumed (or abandoned) stream keeps no read transaction alive to hold back WAL
        # checkpoints, and the same store can append while a caller is still reading. Events never
        # change once written, so the pages join into a consistent prefix of the log.
        after = max(from_seq, 1) - 1
        last = _MAX_SEQ if to_seq is None else to_seq
        while True:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE fight = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq LIMIT ?",
                (fight, after, last, PAGE_SIZE),
            ).fetchall()
            for seq, body in rows:
                yield _stored(seq, body)
            if len(rows) < PAGE_SIZE:
                return
            after = rows[-1][0]

    def fights(self) -> list[str]:
        return [row[0] for row in self._db.execute("SELECT fight FROM fights ORDER BY created")]

    def version(self, fight: str) -> int:
        row = self._db.execute("SELECT version FROM fights WHERE fight = ?", (fight,)).fetchone()
        return 0 if row is None else int(row[0])

    def lookup(self, fight: str, refs: Iterable[str]) -> dict[str, Stored]:
        by_seq, ids = split_refs(refs)
        found: dict[str, Stored] = {}
        for seq, body in self._rows_where(fight, "seq", by_seq):
            found[by_seq[seq]] = _stored(seq, body)
        for seq, body in self._rows_where(fight, "id", ids):
            stored = _stored(seq, body)
            assert stored.event.id is not None
            found[stored.event.id] = stored
        return found

    def undo_events(self, fight: str, to_seq: int | None = None) -> list[Stored]:
        rows = self._db.execute(
            # INDEXED BY: without statistics the planner prefers walking the whole fight by its
            # primary key (already in seq order) to the far smaller partial index.
            f"SELECT seq, body FROM events INDEXED BY events_undo"
            f" WHERE fight = ? AND {_IS_UNDO} AND seq <= ? ORDER BY seq",
            (fight, _MAX_SEQ if to_seq is None else to_seq),
        )
        return [_stored(seq, body) for seq, body in rows]

    def snapshot(self, fight: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        row = self._db.execute(
            "SELECT seq, data FROM snapshots WHERE fight = ? AND seq <= ?"
            " ORDER BY seq DESC LIMIT 1",
            (fight, _MAX_SEQ if at_most is None else at_most),
        ).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    # -- inside ----------------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction holding the database's write lock from its first statement.

        IMMEDIATE, not the default DEFERRED: a deferred transaction that reads and then writes can
        fail with SQLITE_BUSY when another writer got in between, instead of waiting its turn.
        """
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # some errors (a full disk) have rolled back already
                self._db.execute("ROLLBACK")
            raise

    def _create_schema(self) -> None:
        if self._schema_version() == SCHEMA_VERSION:
            return  # the usual case: no need to wait for the write lock just to open
        with self._write():
            found = self._schema_version()
            if found > SCHEMA_VERSION:
                raise UsageError(
                    f"{self.path} was written by a newer woundlog (store schema {found}, this "
                    f"version knows up to {SCHEMA_VERSION}); upgrade woundlog to open it"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _insert(self, fight: str, version: int, fresh: Sequence[Fresh]) -> None:
        self._db.executemany(
            "INSERT INTO events (fight, seq, id, type, body) VALUES (?, ?, ?, ?, ?)",
            (
                (fight, seq, event.id, type_name(event), body)
                for seq, (event, body) in enumerate(fresh, start=version + 1)
            ),
        )
        self._db.execute(
            "INSERT INTO fights (fight, created, version)"
            " VALUES (?, (SELECT coalesce(max(created), 0) + 1 FROM fights), ?)"
            " ON CONFLICT (fight) DO UPDATE SET version = excluded.version",
            (fight, version + len(fresh)),
        )

    def _stored_ids(self, fight: str, ids: Collection[str]) -> dict[str, tuple[int, bytes]]:
        found: dict[str, tuple[int, bytes]] = {}
        for seq, body in self._rows_where(fight, "id", ids):
            event = _stored(seq, body).event
            assert event.id is not None
            found[event.id] = (seq, canonical(event))
        return found

    def _rows_where(
        self, fight: str, column: str, values: Collection[Any]
    ) -> Iterator[tuple[int, bytes]]:
        """(seq, body) of the fight's events whose `column` is one of `values`."""
        ordered = list(values)
        for start in range(0, len(ordered), _CHUNK):
            chunk = ordered[start : start + _CHUNK]
            yield from self._db.execute(
                f"SELECT seq, body FROM events WHERE fight = ? AND {column} IN ({_marks(chunk)})",
                (fight, *chunk),
            )


def _use_wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL, waiting out other processes doing the same.

    Changing the journal mode needs a lock that SQLite does not wait for with busy_timeout: two
    processes opening a new file at once can see "database is locked" here, so retry by hand.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _stored(seq: int, body: bytes) -> Stored:
    try:
        return Stored(seq, _decoder.decode(body))
    except msgspec.MsgspecError as exc:
        # Only a file changed behind woundlog's back (or by a newer woundlog) gets here.
        raise StructuralError(f"stored event is unreadable: {exc}", event=f"#{seq}") from None


def _marks(values: Collection[object]) -> str:
    return ", ".join("?" * len(values))
