"""The service's own tables (tokens, import cursors), kept beside the fights so they survive a
restart.

With the SQLite store they live in the same database file, in tables prefixed `service_` that the
store never reads; with a JSON Lines store, in `service.db` inside its directory (the store only
reads `*.jsonl`). One connection guarded by a lock: these are tiny, rare statements, and the
lock lets the worker threads of the server share it.

A new `service.db` is created readable by its owner only (it holds the token hashes); SQLite
gives its -wal and -shm files the same mode. Opening checks the whole file (`quick_check`), so a
damaged database stops `woundlog serve` at its start, with exit 2, instead of failing requests.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from woundlog.events.stores import JsonlStore, SQLiteStore, Store
from woundlog.events.stores.locate import OPEN_ERRORS, unusable
from woundlog.events.stores.sqlite import BUSY_TIMEOUT_S

_SCHEMA = """
CREATE TABLE IF NOT EXISTS service_tokens (
    hash  TEXT PRIMARY KEY,
    fight TEXT NOT NULL,
    role  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS service_cursors (
    fight  TEXT NOT NULL,
    format TEXT NOT NULL,
    cursor BLOB NOT NULL,
    PRIMARY KEY (fight, format)
);
"""


def service_db_path(store: Store) -> Path:
    if isinstance(store, SQLiteStore):
        return store.path
    if isinstance(store, JsonlStore):
        return store.directory / "service.db"
    raise TypeError(f"no place for the service's tables beside {store!r}")


class ServiceDb:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            _create_private(path)
            # check_same_thread=False: the lock, not the thread, keeps statements apart.
            self._db = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            try:
                self._db.execute("PRAGMA synchronous = FULL")  # a token handed out is on disk
                self._db.executescript(_SCHEMA)
                found = self._db.execute("PRAGMA quick_check").fetchone()[0]
            except BaseException:
                self._db.close()
                raise
        except OPEN_ERRORS as error:
            raise unusable(path, error) from None
        if found != "ok":
            self._db.close()
            raise unusable(path, sqlite3.DatabaseError(f"quick_check: {found}"))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist; SQLite then fills it in."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
