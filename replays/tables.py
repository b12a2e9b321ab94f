"""The service's own tables (tokens, import cursors, idempotent answers, stream tickets), kept
beside the fights so they survive a restart: written by the HTTP service (replays/service/) and
by the CLI, which hands out and revokes tokens in them (`woundlog share`, through
`Application.kept_tokens`), so they sit below both front ends.

With the PostgreSQL store they live in its database (`PostgresServiceDb`), written on the
connection of the calling thread's store: so a fight's first event and its tokens, or an import's
events and its cursor, commit in one transaction, and several processes share them.

With the SQLite store they live in the same database file, in tables prefixed `service_` that the
store never reads; with a JSON Lines store, in `service.db` inside its directory (the store only
reads `*.jsonl`). One connection guarded by a lock: these are tiny, rare statements, and the
lock lets the worker threads of the server share it.

A new `service.db` is created readable by its owner only (it holds the token hashes); SQLite
gives its -wal and -shm files the same mode. Opening checks the whole file (`quick_check`), so a
damaged database stops `woundlog serve` at its start, with exit 2, instead of failing requests.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, Protocol

from woundlog.events.stores import Store, companions
from woundlog.events.stores.locate import OPEN_ERRORS, unusable
from woundlog.events.stores.postgres import PostgresStore
from woundlog.events.stores.sql import POSTGRES, SQLITE, Dialect
from woundlog.events.stores.sqlite import BUSY_TIMEOUT_S, write_transaction

from . import import_cursors as cursors
from .import_cursors import create_private
from .import_cursors import tables_path as service_db_path


def _schema(dialect: Dialect) -> str:
    """The service's tables in `dialect`, `;`-separated; every statement can run again."""
    return f"""
CREATE TABLE IF NOT EXISTS service_tokens (
    hash   TEXT PRIMARY KEY,
    fight  TEXT NOT NULL,
    role   TEXT NOT NULL,
    name   TEXT,
    issued {dialect.real}
);
CREATE INDEX IF NOT EXISTS service_tokens_fight ON service_tokens (fight);
{cursors.schema(dialect)};
CREATE TABLE IF NOT EXISTS service_answers (
    key     TEXT PRIMARY KEY,
    fight   TEXT NOT NULL,
    request TEXT NOT NULL,
    status  INTEGER NOT NULL,
    answer  {dialect.blob} NOT NULL,
    expires {dialect.real} NOT NULL
);
CREATE TABLE IF NOT EXISTS service_tickets (
    hash    TEXT PRIMARY KEY,
    fight   TEXT NOT NULL,
    expires {dialect.real} NOT NULL
);
"""


def _named_tokens(dialect: Dialect, has: set[str]) -> list[str]:
    """The statements that bring a `service_tokens` table whose columns are `has` up to date
    with named tokens (issue 26), for a database made before them: the missing columns, each
    old token named for its role (a fight held one pair then, so the names are unique), and the
    index that keeps a name unique in its fight."""
    columns = {"name": "TEXT", "issued": dialect.real}
    return [
        *(f"ALTER TABLE service_tokens ADD COLUMN {name} {kind}"
          for name, kind in columns.items() if name not in has),
        "UPDATE service_tokens SET name = role WHERE name IS NULL",
        "CREATE UNIQUE INDEX IF NOT EXISTS service_tokens_name ON service_tokens (fight, name)",
    ]  # fmt: skip


FIGHT_TABLES = ("service_tokens", cursors.TABLE, "service_answers", "service_tickets")
"""The tables whose rows are a fight's: deleting or renaming it in the store carries them
(woundlog.events.stores.companions), in the store's own transaction."""


class Writer(Protocol):
    """What a transaction of the service's tables offers: sqlite3's two statements."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, params: Any, /) -> Any: ...


class Db(Protocol):
    """The service's tables, whichever database holds them."""

    shares_transactions: bool
    """Whether `transaction()` is the store's own transaction, so that the events appended inside
    it commit (or roll back) with the service's rows."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    def transaction(self) -> AbstractContextManager[Writer]: ...

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]: ...

    def close(self) -> None: ...


def open_service_db(store: Store, this_threads_store: Callable[[], Store]) -> Db:
    """The service's tables beside `store`: in its database for PostgreSQL (reached through
    `this_threads_store`), else in an SQLite file (`service_db_path`)."""
    if isinstance(store, PostgresStore):
        return PostgresServiceDb(store, this_threads_store)
    return ServiceDb(service_db_path(store))


class ServiceDb:
    shares_transactions = False

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            create_private(path)
            # check_same_thread=False: the lock, not the thread, keeps statements apart.
            self._db = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            try:
                self._db.execute("PRAGMA synchronous = FULL")  # a token handed out is on disk
                self._db.executescript(_schema(SQLITE))
                with write_transaction(self._db) as db:  # one process at a time adds columns
                    has = {row[1] for row in db.execute("PRAGMA table_info(service_tokens)")}
                    for statement in _named_tokens(SQLITE, has):
                        db.execute(statement)
                companions.register(self._db, FIGHT_TABLES)
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
        with self._lock, write_transaction(self._db) as db:
            yield db

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]:
        # one process per SQLite file or JSON Lines directory: the service's own lock suffices
        return nullcontext()

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Translated:
    """sqlite3's `?` placeholders on a psycopg connection (`%s`): the service's statements are
    written once, for both databases."""

    def __init__(self, connection: Any) -> None:
        self._db = connection

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Any:
        return self._db.execute(POSTGRES.sql(sql), params)

    def executemany(self, sql: str, params: Any, /) -> Any:
        with self._db.cursor() as cursor:
            cursor.executemany(POSTGRES.sql(sql), params)
        return cursor


class PostgresServiceDb:
    """The service's tables in the PostgreSQL store's database, on the calling thread's store
    connection: a transaction here is the store's, so what an append inside it writes commits
    with these rows (psycopg makes the store's own transaction a savepoint of it)."""

    shares_transactions = True

    def __init__(self, store: PostgresStore, this_threads_store: Callable[[], Store]) -> None:
        self._store = this_threads_store
        with store.transaction() as connection:
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SERVICE_LOCK,))
            for statement in _schema(POSTGRES).split(";"):
                if statement.strip():
                    connection.execute(statement)
            has = {
                row[0]
                for row in connection.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name ="
                    " 'service_tokens' AND table_schema = current_schema()"
                ).fetchall()
            }
            for statement in _named_tokens(POSTGRES, has):
                connection.execute(statement)
            companions.register(connection, FIGHT_TABLES, POSTGRES.mark)

    def _this_threads(self) -> PostgresStore:
        store = self._store()
        assert isinstance(store, PostgresStore)
        return store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        cursor = _Translated(self._this_threads().connection).execute(sql, params)
        return list(cursor.fetchall()) if cursor.description else []

    @contextmanager
    def transaction(self) -> Iterator[Writer]:
        with self._this_threads().transaction() as connection:
            yield _Translated(connection)

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]:
        return cursors.import_lock(self._this_threads(), fight, fmt)  # the CLI takes it too

    def close(self) -> None:
        pass  # the connections are the stores' own, closed with them


_SERVICE_LOCK = cursors.TABLES_LOCK  # the advisory lock around the tables' creation
