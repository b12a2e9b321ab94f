"""The PostgreSQL store: the same contract (and test suite) as SQLite, for a service that
many tables write to at once, run as several processes on one or more machines.

One row per event, its body the event's JSON as `encode_json` writes it. The database alone
decides seq order: an append locks its fight's row (`SELECT ... FOR UPDATE`), so two processes
appending to one fight take turns and each checks ids and version against what the other
committed; `(fight, seq)` and `(fight, id)` are unique in the database besides. Every committed
append notifies channel `woundlog` with `FIGHT VERSION` (delivered only on commit), which is how
live streams cross processes. The schema is created, and later migrated, by the first store to
open the database, under an advisory lock so two processes starting at once do not race.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import msgspec

from ..codec import canonical
from ..errors import ConflictError, StructuralError, UsageError
from ..fight_ids import check_fight_id
from ..model import Event, type_name
from . import companions
from ._batch import Fresh, plan_append, split_refs
from .base import ClosesOnExit, Stored

SCHEMA_VERSION = 2
"""1: events, fights, snapshots. 2: `fight_tables` (companions.py), and a fight's rows follow a
rename of it (ON UPDATE CASCADE). `_SCHEMA` and `_MIGRATE` can run again harmlessly."""
CHANNEL = "woundlog"
"""LISTEN/NOTIFY channel of committed appends: the payload is `FIGHT VERSION`."""
PAGE_SIZE = 1000
_LOCK = 0x776F756E646C6F67  # "woundlog" as a number: the advisory lock around schema changes
_MAX_SEQ = 2**63 - 1
_decoder = msgspec.json.Decoder(Event)

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS woundlog_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS fights (
    fight   TEXT PRIMARY KEY,
    created BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    version BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    fight TEXT NOT NULL REFERENCES fights (fight) ON DELETE CASCADE,
    seq   BIGINT NOT NULL,
    id    TEXT,
    type  TEXT NOT NULL,
    body  BYTEA NOT NULL,
    PRIMARY KEY (fight, seq),
    UNIQUE (fight, id)
);
CREATE INDEX IF NOT EXISTS events_undo ON events (fight, seq)
    WHERE type IN ('retract', 'amend');
CREATE TABLE IF NOT EXISTS snapshots (
    fight TEXT NOT NULL REFERENCES fights (fight) ON DELETE CASCADE,
    seq   BIGINT NOT NULL,
    data  BYTEA NOT NULL,
    PRIMARY KEY (fight, seq)
);
"""
    + companions.SCHEMA
)
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
    try:
        return _reconnect(url)
    except psycopg.OperationalError as exc:
        raise unreachable(url, exc) from None


def _reconnect(url: str) -> Any:
    """A new connection to `url`, psycopg's OperationalError if the server is not there."""
    import psycopg

    return psycopg.connect(url, autocommit=True)


class PostgresStore(ClosesOnExit):
    """A store in a PostgreSQL database, named by a `postgresql://` URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._closed = False
        self._open_transactions = 0  # reconnecting waits till none is open: see `broken`
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
        try:
            with connection.transaction():
                yield connection
        finally:
            self._open_transactions -= 1

    @property
    def connection(self) -> Any:
        """The store's psycopg connection (autocommit), for the service's tables beside the
        events: statements in a `transaction()` around an `append` commit with it."""
        return self._db

    # -- writing ---------------------------------------------------------------------------------

    def append(
        self, fight: str, events: Sequence[Event], expected_version: int | None = None
    ) -> int:
        with self.transaction():
            version = self._lock_fight(fight)
            fresh = plan_append(
                fight, events, version, expected_version, lambda ids: self._stored_ids(fight, ids)
            )
            if not fresh:
                if version == 0:  # nothing written: no empty fight left behind
                    self._db.execute("DELETE FROM fights WHERE fight = %s", (fight,))
                return version
            self._insert(fight, version, fresh)
            new_version = version + len(fresh)
            self._db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{fight} {new_version}"))
            return new_version

    @contextmanager
    def writing(self, fight: str) -> Iterator[None]:
        """A transaction in which this connection alone, of every process on the database,
        appends to `fight`: an advisory lock on the fight, held to the end of the transaction
        (of the outermost, when an import's is around it), so a writer that reads the version,
        validates against it and appends waits for the writer before it to commit instead of
        losing the race to it (hashed with seed 1: the service's import locks use seed 0).
        Appends that do not use it are still serialised by the fight's
        row lock and checked against their expected version."""
        with self.transaction() as connection:
            connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 1))", (fight,))
            yield

    def delete_fight(self, fight: str) -> bool:
        with self.transaction():
            # events and snapshots go with their fight's row (ON DELETE CASCADE)
            gone = self._db.execute(
                "DELETE FROM fights WHERE fight = %s RETURNING version", (fight,)
            ).fetchone()
            companions.delete_rows(self._db, fight, "%s")
            if gone is None:
                return False
            # streams of the fight, in every process, look again and find it gone
            self._db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{fight} 0"))
            return True

    def rename_fight(self, old: str, new: str) -> int:
        import psycopg

        check_fight_id(new)
        try:
            with self.transaction():
                row = self._db.execute(
                    "SELECT version FROM fights WHERE fight = %s FOR UPDATE", (old,)
                ).fetchone()
                if row is None:
                    raise UsageError(f"no fight `{old}` to rename")
                # events and snapshots follow the fight's row (ON UPDATE CASCADE); `created`
                # is kept, so the fight keeps its place in `fights()`
                self._db.execute("UPDATE fights SET fight = %s WHERE fight = %s", (new, old))
                companions.rename_rows(self._db, old, new, "%s")
                version = int(row[0])
                self._db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{old} 0"))
                self._db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{new} {version}"))
                return version
        except psycopg.errors.UniqueViolation:
            taken = self.version(new)
            raise ConflictError(
                f"fight `{new}` already exists ({taken} events): rename `{old}` to another "
                "id, or delete that fight first",
                current_version=taken,
            ) from None

    def save_snapshot(self, fight: str, seq: int, data: bytes) -> None:
        self._db.execute(
            "INSERT INTO snapshots (fight, seq, data) VALUES (%s, %s, %s)"
            " ON CONFLICT (fight, seq) DO UPDATE SET data = excluded.data",
            (fight, seq, data),
        )

    # -- reading ---------------------------------------------------------------------------------

    def read(self, fight: str, from_seq: int = 1, to_seq: int | None = None) -> Iterator[Stored]:
        # Paged by seq, as the SQLite store does: no statement stays open between pages, so an
        # abandoned stream holds nothing on the server, and written events never change.
        after = max(from_seq, 1) - 1
        last = _MAX_SEQ if to_seq is None else to_seq
        while True:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE fight = %s AND seq > %s AND seq <= %s"
                " ORDER BY seq LIMIT %s",
                (fight, after, last, PAGE_SIZE),
            ).fetchall()
            for seq, body in rows:
                yield _stored(seq, body)
            if len(rows) < PAGE_SIZE:
                return
            after = rows[-1][0]

    def fights(self) -> list[str]:
        rows = self._db.execute("SELECT fight FROM fights ORDER BY created").fetchall()
        return [row[0] for row in rows]

    def version(self, fight: str) -> int:
        row = self._db.execute("SELECT version FROM fights WHERE fight = %s", (fight,)).fetchone()
        return 0 if row is None else int(row[0])

    def lookup(self, fight: str, refs: Iterable[str]) -> dict[str, Stored]:
        by_seq, ids = split_refs(refs)
        found: dict[str, Stored] = {}
        if by_seq:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE fight = %s AND seq = ANY(%s)",
                (fight, list(by_seq)),
            )
            for seq, body in rows:
                found[by_seq[seq]] = _stored(seq, body)
        if ids:
            rows = self._db.execute(
                "SELECT seq, body FROM events WHERE fight = %s AND id = ANY(%s)",
                (fight, list(ids)),
            )
            for seq, body in rows:
                stored = _stored(seq, body)
                assert stored.event.id is not None
                found[stored.event.id] = stored
        return found

    def undo_events(self, fight: str, to_seq: int | None = None) -> list[Stored]:
        rows = self._db.execute(
            "SELECT seq, body FROM events WHERE fight = %s AND type IN ('retract', 'amend')"
            " AND seq <= %s ORDER BY seq",
            (fight, _MAX_SEQ if to_seq is None else to_seq),
        )
        return [_stored(seq, body) for seq, body in rows]

    def snapshot(self, fight: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        row = self._db.execute(
            "SELECT seq, data FROM snapshots WHERE fight = %s AND seq <= %s"
            " ORDER BY seq DESC LIMIT 1",
            (fight, _MAX_SEQ if at_most is None else at_most),
        ).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    # -- inside ----------------------------------------------------------------------------------

    def _lock_fight(self, fight: str) -> int:
        """The fight's version, its row locked until the transaction ends (made if new)."""
        self._db.execute(
            "INSERT INTO fights (fight, version) VALUES (%s, 0) ON CONFLICT (fight) DO NOTHING",
            (fight,),
        )
        row = self._db.execute(
            "SELECT version FROM fights WHERE fight = %s FOR UPDATE", (fight,)
        ).fetchone()
        return int(row[0])

    def _insert(self, fight: str, version: int, fresh: Sequence[Fresh]) -> None:
        with self._db.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO events (fight, seq, id, type, body) VALUES (%s, %s, %s, %s, %s)",
                [
                    (fight, seq, event.id, type_name(event), body)
                    for seq, (event, body) in enumerate(fresh, start=version + 1)
                ],
            )
        self._db.execute(
            "UPDATE fights SET version = %s WHERE fight = %s", (version + len(fresh), fight)
        )

    def _stored_ids(self, fight: str, ids: Collection[str]) -> dict[str, tuple[int, bytes]]:
        found: dict[str, tuple[int, bytes]] = {}
        if not ids:
            return found
        rows = self._db.execute(
            "SELECT seq, body FROM events WHERE fight = %s AND id = ANY(%s)", (fight, list(ids))
        )
        for seq, body in rows:
            event = _stored(seq, body).event
            assert event.id is not None
            found[event.id] = (seq, canonical(event))
        return found

    def _create_schema(self) -> None:
        if self._schema_version() == SCHEMA_VERSION:
            return
        with self.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
            found = self._schema_version()
            if found > SCHEMA_VERSION:
                raise UsageError(
                    f"the database was written by a newer woundlog (store schema {found}, this "
                    f"version knows up to {SCHEMA_VERSION}); upgrade woundlog to open it"
                )
            if found == SCHEMA_VERSION:
                return
            for statement in [*_SCHEMA.split(";"), *_MIGRATE.split(";")]:
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute("DELETE FROM woundlog_schema")
            self._db.execute("INSERT INTO woundlog_schema VALUES (%s)", (SCHEMA_VERSION,))

    def _schema_version(self) -> int:
        exists = self._db.execute("SELECT to_regclass('woundlog_schema')").fetchone()[0]
        if exists is None:
            return 0
        row = self._db.execute("SELECT max(version) FROM woundlog_schema").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])


def _stored(seq: int, body: bytes) -> Stored:
    try:
        return Stored(seq, _decoder.decode(body))
    except msgspec.MsgspecError as exc:
        raise StructuralError(f"stored event is unreadable: {exc}", event=f"#{seq}") from None
