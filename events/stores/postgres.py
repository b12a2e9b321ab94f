"""The PostgreSQL store: the same contract (and test suite) as SQLite, for a service that
many tables write to at once, run as several processes on one or more machines.

The statements are sql.py's; this module says what PostgreSQL does its own way. The database
alone decides seq order: an append locks its fight's row (`SELECT ... FOR UPDATE`), so two
processes appending to one fight take turns and each checks ids and version against what the
other committed; `(fight, seq)` and `(fight, id)` are unique in the database besides. Every
committed append notifies channel `woundlog` with `FIGHT VERSION` (delivered only on commit), which
is how live streams cross processes. The schema is created, and later migrated, by the first store
to open the database, under an advisory lock so two processes starting at once do not race.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import UsageError
from .base import HearingLost
from .dialect import POSTGRES
from .sql import SqlStore, store_schema

SCHEMA_VERSION = 5
"""1: events, fights, snapshots. 2: `fight_tables` (companions.py), and a fight's rows follow a
rename of it (ON UPDATE CASCADE). 3: the tables kept beside the fights (side.py). 4: among them,
cached campaign contributions. 5: a fight's settings (what its viewer tokens are shown).
`_SCHEMA`, `_MIGRATE` and side.py's `make_tables` can run again harmlessly."""
CHANNEL = "woundlog"
"""LISTEN/NOTIFY channel of committed appends: the payload is `FIGHT VERSION`."""
PAGE_SIZE = 1000
_LOCK = 0x776F756E646C6F67  # "woundlog" as a number: the advisory lock around schema changes

_SCHEMA = "CREATE TABLE IF NOT EXISTS woundlog_schema (version INTEGER NOT NULL);" + store_schema(
    POSTGRES,
    created="BIGINT GENERATED ALWAYS AS IDENTITY",
    of_fight=" REFERENCES fights (fight) ON DELETE CASCADE ON UPDATE CASCADE",
    clustered="",
)
# A database of schema 1 made its foreign keys without ON UPDATE CASCADE: _MIGRATE makes them again.
_MIGRATE = """
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_fight_fkey;
ALTER TABLE events ADD CONSTRAINT events_fight_fkey FOREIGN KEY (fight)
    REFERENCES fights (fight) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE snapshots DROP CONSTRAINT IF EXISTS snapshots_fight_fkey;
ALTER TABLE snapshots ADD CONSTRAINT snapshots_fight_fkey FOREIGN KEY (fight)
    REFERENCES fights (fight) ON DELETE CASCADE ON UPDATE CASCADE
"""


class DatabaseUnreachable(UsageError):
    """The PostgreSQL server a store URL names cannot be reached, or went away in the middle of a
    command (not running, restarting, a wrong host or port): exit 2, with what to check."""


def unreachable(url: str, error: BaseException) -> DatabaseUnreachable:
    """Say what a person can act on: which database (its URL without a password) and what the
    server or the network said; what to check is the error's note (the CLI's `hint:`)."""
    said = _first_line(error)
    lowered = said.lower()
    if "authentication" in lowered or "does not exist" in lowered or "permission" in lowered:
        # it is running, and answered: the URL's user, password or database is what is wrong
        found = DatabaseUnreachable(f"cannot open the database at {shown_url(url)}: {said}")
        found.add_note("check the user, password and database that --db or $WOUNDLOG_DB names")
        return found
    lost = DatabaseUnreachable(f"cannot reach the database at {shown_url(url)}: {said}")
    lost.add_note("is the PostgreSQL server running, at the host and port --db names?")
    return lost


def database_gone(url: str | None, error: BaseException) -> DatabaseUnreachable | None:
    """`unreachable` for a psycopg error that means the connection was lost or never made (the
    server stopped or restarted under a running command); None for any other error. psycopg is
    not imported for it: if it was never loaded, no error of its can have been raised."""
    import os
    import sys

    psycopg = sys.modules.get("psycopg")
    if psycopg is None or not isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return None
    return unreachable(url or os.environ.get("WOUNDLOG_DB", "postgresql://"), error)


def shown_url(url: str) -> str:
    """`url` as it may be printed: without its password (in the user part or `password=`)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}@{host}"
    query = "&".join(
        pair for pair in parts.query.split("&") if pair and not pair.lower().startswith("password=")
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _first_line(error: BaseException) -> str:
    """What psycopg said, in short: libpq's first line, past its `connection to server at ...
    failed:` preamble (the URL says where), without the hints on the lines after it."""
    text = str(error).strip()
    if not text:
        return type(error).__name__
    line = text.splitlines()[0].strip()
    return line.rsplit(" failed: ", 1)[-1].strip() or line


def _connect(url: str) -> Any:
    """A connection to `url`; psycopg loads only for a PostgreSQL store."""
    try:
        import psycopg
    except ImportError:  # pragma: no cover: psycopg is a dependency
        raise UsageError(
            "a PostgreSQL store needs psycopg: pip install 'psycopg[binary]'"
        ) from None
    _driver_log_kept_from_stderr()
    try:
        return _reconnect(url)
    except psycopg.OperationalError as exc:
        raise unreachable(url, exc) from None


def _driver_log_kept_from_stderr() -> None:
    """psycopg's own log lines reach the program's handlers, never Python's last-resort
    printing to stderr. A connection lost in the middle of `executemany` (a pipeline) makes
    psycopg log "error ignored terminating <Pipeline>" while the error itself goes on up; with no
    logging set up, Python would print that line raw, before the program's own one-line error.
    A NullHandler of psycopg's logger stops that printing alone: its records still go up to any
    handler a program (the service, an embedding program) sets on the root logger."""
    import logging

    driver = logging.getLogger("psycopg")
    if not any(isinstance(handler, logging.NullHandler) for handler in driver.handlers):
        driver.addHandler(logging.NullHandler())


def _reconnect(url: str) -> Any:
    """A new connection to `url`, psycopg's OperationalError if the server is not there."""
    import psycopg

    return psycopg.connect(url, autocommit=True)


class PostgresStore(SqlStore):
    """A store in a PostgreSQL database, named by a `postgresql://` URL."""

    dialect = POSTGRES
    schema_version = SCHEMA_VERSION
    _FOR_UPDATE = " FOR UPDATE"
    _UNDO_INDEX = ""  # the planner finds the partial index itself
    _FOLLOW_BY_HAND = ()  # events and snapshots follow their fight's row (ON ... CASCADE)

    def __init__(self, url: str) -> None:
        self.url = url
        self._closed = False
        self._open_transactions = 0  # reconnecting waits till none is open: see `broken`
        # The versions appends set, one dict for each open transaction, innermost last: written
        # to `fights` when the outermost commits (see `_set_version`).
        self._versions: list[dict[str, int]] = []
        self._db = _connect(url)
        try:
            self._create_schema()
        except BaseException:
            self._db.close()
            raise

    def __repr__(self) -> str:
        return "PostgresStore(...)"  # the URL may hold a password

    def close(self) -> None:
        self._closed = True
        self._db.close()

    @property
    def broken(self) -> bool:
        """Whether the store is of no more use: only once it is closed.

        A connection lost to a restart of the server (or ended by it) is opened again here, so
        that whoever checks before using the store (the service, at each request) goes on with
        it; while the server is not back, psycopg's OperationalError says so (the service answers
        503 with Retry-After), where opening a new store would be a UsageError, a refusal.

        Never inside a `transaction()`: the rest of it would commit alone on the new connection
        (an append without the tokens written before it); the next statement fails instead, and
        with it the whole transaction."""
        if self._closed:
            return True
        if self._open_transactions == 0 and (self._db.broken or self._db.closed):
            self._db.close()
            self._db = _reconnect(self.url)
        return False

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A transaction on the store's connection, yielding it: an `append` inside commits with
        the statements around it (psycopg makes the append's own transaction a savepoint)."""
        connection = self._db
        self._open_transactions += 1
        self._versions.append({})
        try:
            with connection.transaction():
                yield connection
                versions = self._versions.pop()
                if self._versions:  # a savepoint: what it set commits with the transaction
                    self._versions[-1].update(versions)
                else:
                    self._write_versions(versions)
        finally:
            if len(self._versions) == self._open_transactions:  # undone: what it set goes
                self._versions.pop()
            self._open_transactions -= 1

    @property
    def connection(self) -> Any:
        """The store's psycopg connection (autocommit): statements in a `transaction()` around
        an `append` commit with it (the side tables are written on it: side.py)."""
        return self._db

    @contextmanager
    def import_lock(self, fight: str, fmt: str) -> Iterator[None]:
        """One import of the fight and format at a time across every process on the database:
        a transaction holding an advisory lock on the pair (hashed with seed 0), in which the
        cursor is read, the events appended and the new cursor written, all committed
        together."""
        with self.transaction() as connection:
            connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{fight}\n{fmt}",)
            )
            yield

    @contextmanager
    def writing(self, fight: str) -> Iterator[None]:
        """A transaction in which this connection alone, of every process on the database,
        appends to `fight`: an advisory lock on the fight, held to the end of the transaction
        (of the outermost, when an import's is around it), so a writer that reads the version,
        validates against it and appends waits for the writer before it to commit instead of
        losing the race to it (hashed with seed 1: `import_lock` uses seed 0).
        Appends that do not use it are still serialised by the fight's
        row lock and checked against their expected version."""
        with self.transaction() as connection:
            connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", (fight,))
            yield

    # -- what PostgreSQL does its own way --------------------------------------------------------

    def _write(self) -> AbstractContextManager[object]:
        return self.transaction()

    def _lock_version(self, fight: str) -> int:
        # a new fight's row is made to be locked: `append` deletes it again if nothing is written
        self._db.execute(
            "INSERT INTO fights (fight, version) VALUES (%s, 0) ON CONFLICT (fight) DO NOTHING",
            (fight,),
        )
        row = self._db.execute(
            "SELECT version FROM fights WHERE fight = %s FOR UPDATE", (fight,)
        ).fetchone()
        return self._set(fight, int(row[0]))

    def _set_version(self, fight: str, version: int) -> None:
        # Kept till the outermost transaction commits, then written once: each UPDATE of the
        # row makes a version of it that no one can prune before the commit, and each event
        # inserted after it checks its foreign key by walking them all, so a streamed import
        # (one transaction, an append a batch) that updated the row each batch was quadratic.
        self._versions[-1][fight] = version

    def _write_versions(self, versions: dict[str, int]) -> None:
        for fight, version in versions.items():
            self._db.execute("UPDATE fights SET version = %s WHERE fight = %s", (version, fight))

    def delete_fight(self, fight: str) -> bool:
        gone = super().delete_fight(fight)
        if self._versions:  # inside a transaction: what it set for the fight went with its row
            self._versions[-1][fight] = 0
        return gone

    def rename_fight(self, old: str, new: str) -> int:
        # the row moves with its version: the one the transaction set, written first
        every: dict[str, int] = {}
        for versions in self._versions:
            every.update(versions)
        self._write_versions(every)
        version = super().rename_fight(old, new)
        if self._versions:
            self._versions[-1].update({old: 0, new: version})
        return version

    def _set(self, fight: str, stored: int) -> int:
        """The fight's version: as an open transaction set it, else `stored`, the row's."""
        for versions in reversed(self._versions):
            if fight in versions:
                return versions[fight]
        return stored

    def version(self, fight: str) -> int:
        return self._set(fight, super().version(fight))

    def _announce(self, fight: str, version: int) -> None:
        self._db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{fight} {version}"))

    def _executemany(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with self._db.cursor() as cursor:
            cursor.executemany(sql, rows)

    def _rows_where(
        self, fight: str, column: str, values: Collection[Any]
    ) -> list[tuple[int, bytes]]:
        if not values:
            return []
        rows: list[tuple[int, bytes]] = self._db.execute(
            f"SELECT seq, body FROM events WHERE fight = %s AND {column} = ANY(%s)",
            (fight, list(values)),
        ).fetchall()
        return rows

    def _page_size(self) -> int:
        return PAGE_SIZE

    def _lost_race(self) -> tuple[type[Exception], ...]:
        import psycopg

        return (psycopg.errors.UniqueViolation,)

    def _database(self) -> str:
        return "the database"

    def _schema(self) -> str:
        return _SCHEMA + ";" + _MIGRATE

    def _lock_schema(self) -> None:
        self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))

    def _schema_version(self) -> int:
        exists = self._db.execute("SELECT to_regclass('woundlog_schema')").fetchone()[0]
        if exists is None:
            return 0
        row = self._db.execute("SELECT max(version) FROM woundlog_schema").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    def _record_schema_version(self) -> None:
        self._db.execute("DELETE FROM woundlog_schema")
        self._db.execute("INSERT INTO woundlog_schema VALUES (%s)", (SCHEMA_VERSION,))


async def hear_appends(url: str) -> AsyncIterator[str | None]:
    """The appends any process commits to the database at `url`, as each commits (its NOTIFY
    on `CHANNEL`, heard by a LISTEN of this connection of its own): first None, once listening
    (what was committed before is not told: read the log), then the id of each fight appended
    to. A lost connection raises HearingLost; hear again to go on."""
    import psycopg

    try:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
            await connection.execute(f"LISTEN {CHANNEL}")
            yield None
            async for note in connection.notifies():
                fight, _, _ = note.payload.rpartition(" ")
                yield fight
    except psycopg.Error as error:
        raise HearingLost(str(error).strip()) from error
