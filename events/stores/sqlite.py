"""The SQLite store, woundlog's embedded default (`$WOUNDLOG_DB`, else the user data directory).

The statements are sql.py's; this module says what SQLite does its own way. The file is in WAL
mode, so readers never wait for a writer; writers take `BEGIN IMMEDIATE`, so two processes
appending to one fight serialise on the database's write lock and each checks ids and version
against what the other committed. Open one store per process (and per thread): a connection must
not cross a fork. A new file (and the directories the store makes for it) is readable only by its
owner.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from .dialect import SQLITE, Dialect
from .files import OPEN_ERRORS, create_private_file, make_private_directory, unusable_file
from .side import make_tables
from .sql import SqlStore, store_schema

SCHEMA_VERSION = 5
"""1: events, fights, snapshots. 2: `fight_tables`, the companion tables (companions.py). 3: the
tables kept beside the fights (side.py). 4: among them, cached campaign contributions. 5: a
fight's settings (what its viewer tokens are shown). Every statement of `_SCHEMA` is `IF NOT
EXISTS`, and side.py's `make_tables` can run again, so running them again is the migration."""
BUSY_TIMEOUT_S = 30.0
PAGE_SIZE = 1000
"""Rows fetched per query while streaming a read."""

_CHUNK = 500  # ids per `IN (...)`, well under SQLite's limit on bound parameters

_SCHEMA = store_schema(SQLITE, created="INTEGER NOT NULL", of_fight="", clustered=" WITHOUT ROWID")
# `events` is WITHOUT ROWID so a fight's rows sit together in seq order: a replay reads them as
# one range of the table instead of jumping between an index and the rows. `events_undo` indexes
# the few undo events alone, already in seq order, so `undo_events` reads nothing else. No foreign
# keys: a fight's events and snapshots are deleted and renamed with it by hand (_FOLLOW_BY_HAND).

_BY_COLUMN = {"seq": "", "id": " INDEXED BY sqlite_autoindex_events_2"}
"""How `_rows_where` finds rows by each column. By id, through the index of UNIQUE (fight, id)
(the name SQLite gives it, the second constraint of `events`): without statistics, for an IN of
two ids or more the planner walks the whole fight by its primary key instead, so each lookup of
an import's batch read every event written before it, and a streamed import was quadratic
(issue 28). By seq the primary key is the index."""


class SQLiteStore(SqlStore):
    """A store in one SQLite file; `":memory:"` gives a private in-memory one (for tests)."""

    dialect = SQLITE
    schema_version = SCHEMA_VERSION
    _FOR_UPDATE = ""  # BEGIN IMMEDIATE has locked the whole database already
    # INDEXED BY: without statistics the planner prefers walking the whole fight by its primary
    # key (already in seq order) to the far smaller partial index.
    _UNDO_INDEX = " INDEXED BY events_undo"
    _FOLLOW_BY_HAND = ("events", "snapshots")

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
        self._closed = True

    # -- what SQLite does its own way ------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction around several appends, which commit together or not at all
        (an import streamed in batches): each append inside is a savepoint of it, and what it
        wrote is read back by the store's reads till the end, when all of it commits."""
        with write_transaction(self._db) as db:
            yield db

    def _write(self) -> AbstractContextManager[object]:
        return savepoint(self._db) if self._db.in_transaction else write_transaction(self._db)

    def _lock_version(self, fight: str) -> int:
        return self.version(fight)  # the write transaction holds the database's lock

    def _set_version(self, fight: str, version: int) -> None:
        self._db.execute(
            "INSERT INTO fights (fight, created, version)"
            " VALUES (?, (SELECT coalesce(max(created), 0) + 1 FROM fights), ?)"
            " ON CONFLICT (fight) DO UPDATE SET version = excluded.version",
            (fight, version),
        )

    def _executemany(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        self._db.executemany(sql, rows)

    def _rows_where(
        self, fight: str, column: str, values: Collection[Any]
    ) -> Iterator[tuple[int, bytes]]:
        ordered = list(values)
        index = _BY_COLUMN[column]
        for start in range(0, len(ordered), _CHUNK):
            chunk = ordered[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            yield from self._db.execute(
                f"SELECT seq, body FROM events{index} WHERE fight = ? AND {column} IN ({marks})",
                (fight, *chunk),
            )

    def _page_size(self) -> int:
        return PAGE_SIZE

    def _database(self) -> str:
        return str(self.path)

    def _file(self) -> Path | None:
        return None if str(self.path) == ":memory:" else self.path

    def _check_file(self) -> None:
        quick_check(self._db)

    def _schema(self) -> str:
        return _SCHEMA

    def _schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _record_schema_version(self) -> None:
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on `db` (opened with isolation_level=None), holding the database's
    write lock from its first statement.

    IMMEDIATE, not the default DEFERRED: a deferred transaction that reads and then writes can
    fail with SQLITE_BUSY when another writer got in between, instead of waiting its turn.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # some errors (a full disk) have rolled back already
            db.execute("ROLLBACK")
        raise


@contextmanager
def savepoint(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write inside `transaction()`: undone alone if it fails, committed with the rest."""
    db.execute("SAVEPOINT woundlog_write")
    try:
        yield db
        db.execute("RELEASE woundlog_write")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK TO woundlog_write")
            db.execute("RELEASE woundlog_write")
        raise


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


def quick_check(db: sqlite3.Connection) -> None:
    """Read the whole file of `db` for damage: sqlite3.DatabaseError if it is not sound."""
    found = db.execute("PRAGMA quick_check").fetchone()[0]
    if found != "ok":
        raise sqlite3.DatabaseError(f"quick_check: {found}")


class SideFile:
    """An SQLite file holding only the tables kept beside the fights (side.py's `SideDb`), for a
    store that keeps no SQL database of its own (JSON Lines: `service.db` in its directory).

    Created readable by its owner only (it holds token hashes; SQLite gives its journal the same
    mode), and opened on first use, when its tables are made or brought up to date: a store that
    never reads them makes no file. One connection, for the thread that uses the store. What is
    written in it commits by itself, never with the store's events."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._db: sqlite3.Connection | None = None

    @property
    def dialect(self) -> Dialect:
        return SQLITE

    @property
    def path(self) -> Path:
        return self._path

    def exists(self) -> bool:
        """Whether the file is there (a store that never kept a row has none)."""
        return self._db is not None or self._path.exists()

    def connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def write(self) -> AbstractContextManager[object]:
        db = self.connection()
        return savepoint(db) if db.in_transaction else write_transaction(db)

    def lock(self) -> None:
        pass  # the write transaction holds the file's write lock already

    def check(self) -> None:
        quick_check(self.connection())

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _open(self) -> sqlite3.Connection:
        """The file, open, its tables made; what goes wrong is a StoreUnusable that names it."""
        try:
            create_private_file(self._path)
            db = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            try:
                db.execute("PRAGMA synchronous = FULL")  # a token handed out is on disk
                with write_transaction(db):  # one process at a time makes the tables
                    make_tables(db, SQLITE)
            except BaseException:
                db.close()
                raise
        except OPEN_ERRORS as error:
            raise unusable_file(self._path, error) from None
        return db
