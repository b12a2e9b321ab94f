"""Where each importer left off, per fight and format: the `previous` an importer hands back
(the last snapshot it took in, for formats compared pairwise), kept as JSON beside the fights.

One table for every front end, `service_cursors` (named for the service, which made it first),
in the database of the service's tables (`tables_path`: the SQLite store's own file, `service.db`
in a JSON Lines directory, the PostgreSQL store's database). So `woundlog import FORMAT FILE`
and `POST /fights/{fight}/import/{format}` continue from the same cursor, whichever came first,
and a deleted or renamed fight takes its cursors along (a companion table, `companions.py`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any, Protocol

import msgspec

from woundlog.events.stores import JsonlStore, SQLiteStore, Store, companions
from woundlog.events.stores.locate import OPEN_ERRORS, unusable
from woundlog.events.stores.postgres import PostgresStore
from woundlog.events.stores.sql import POSTGRES, SQLITE, Dialect
from woundlog.events.stores.sqlite import BUSY_TIMEOUT_S

TABLE = "service_cursors"


def schema(dialect: Dialect) -> str:
    """The cursors' table, in `dialect`'s words."""
    return f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    fight  TEXT NOT NULL,
    format TEXT NOT NULL,
    cursor {dialect.blob} NOT NULL,
    PRIMARY KEY (fight, format)
)"""


TABLES_LOCK = 0x776F756E64736576  # "woundsev": the advisory lock around the tables' creation


class Executes(Protocol):
    """A database of the service's tables, as far as cursors need it (sqlite3's `?`)."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


class ImportCursors:
    def __init__(self, db: Executes) -> None:
        self._db = db

    def get(self, fight: str, fmt: str) -> object | None:
        rows = self._db.execute(
            f"SELECT cursor FROM {TABLE} WHERE fight = ? AND format = ?", (fight, fmt)
        )
        return msgspec.json.decode(rows[0][0]) if rows else None

    def put(self, fight: str, fmt: str, cursor: object | None) -> None:
        self._db.execute(
            f"INSERT INTO {TABLE} (fight, format, cursor) VALUES (?, ?, ?)"
            " ON CONFLICT (fight, format) DO UPDATE SET cursor = excluded.cursor",
            (fight, fmt, msgspec.json.encode(cursor)),
        )


def tables_path(store: Store) -> Path:
    """The SQLite file of the service's tables beside a SQLite or JSON Lines store."""
    if isinstance(store, SQLiteStore):
        return store.path
    if isinstance(store, JsonlStore):
        return store.companion_db
    raise TypeError(f"no place for the service's tables beside {store!r}")


def create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist (the service keeps token hashes
    in it); SQLite then fills it in."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def import_lock(store: Store, fight: str, fmt: str) -> AbstractContextManager[object]:
    """One import per fight and format at a time across every process on a PostgreSQL
    database: a transaction holding an advisory lock on the pair, in which the cursor is read,
    the events appended and the new cursor written, all committed together. A SQLite file or
    JSON Lines directory has no such lock (the service serialises its own imports)."""
    if isinstance(store, PostgresStore):
        return _advisory(store, fight, fmt)
    return nullcontext()


@contextmanager
def _advisory(store: PostgresStore, fight: str, fmt: str) -> Iterator[object]:
    with store.transaction() as connection:
        connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{fight}\n{fmt}",)
        )
        yield connection


@contextmanager
def cursors_beside(store: Store) -> Iterator[ImportCursors]:
    """The cursors of `store`'s fights, for one import from a front end that keeps no database
    of its own open (the CLI); the table is made if this is its first use."""
    if isinstance(store, PostgresStore):
        with store.transaction() as connection:
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (TABLES_LOCK,))
            connection.execute(schema(POSTGRES))
            companions.register(connection, [TABLE], POSTGRES.mark)
        yield ImportCursors(_Postgres(store))
        return
    path = tables_path(store)
    try:
        create_private(path)
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except OPEN_ERRORS as error:
        raise unusable(path, error) from None
    try:
        try:
            db.execute("PRAGMA synchronous = FULL")
            db.execute(schema(SQLITE))
            companions.register(db, [TABLE])
        except OPEN_ERRORS as error:
            raise unusable(path, error) from None
        yield ImportCursors(_Sqlite(db))
    finally:
        db.close()


class _Sqlite:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._db.execute(sql, params).fetchall()


class _Postgres:
    """On the store's own connection, so that inside `import_lock` the cursor commits with the
    events."""

    def __init__(self, store: PostgresStore) -> None:
        self._store = store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        cursor = self._store.connection.execute(POSTGRES.sql(sql), params)
        return list(cursor.fetchall()) if cursor.description else []
