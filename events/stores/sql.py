"""One store over SQL, the database a parameter: what the SQLite and PostgreSQL stores share.

Both keep one row per event (its body the event's JSON as `encode_json` writes it), a `fights` row
per fight (its version, and `created`: its place in `fights()`), snapshots, the companion
tables (companions.py) and the tables kept beside the fights (side.py: cursors, tokens, kept
answers, tickets), these on the store's own connection, so that a `transaction()` holds them and
the events appended inside it alike. Every statement is written here once, with `?` placeholders.
A store says only what its database does differently: its placeholder and column types
(`Dialect`), how a write transaction takes its lock, how it finds many rows at once, where it
records its schema version, and whom a commit must tell.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import msgspec

from ..codec import Family, canonical
from ..errors import ConflictError, StructuralError, UsageError
from ..fight_ids import check_fight_id, is_fight_id
from ..model import Amend, CampaignEvent, Event, EventBase, Retract, type_name
from . import companions
from ._batch import family_of, plan_append, split_refs
from .base import ClosesOnExit, Stored
from .dialect import Dialect
from .side import Side, make_tables

_MAX_SEQ = 2**63 - 1
"""No event is later: the upper bound of a range left open."""
_UNDO_TYPES = tuple(str(kind.__struct_config__.tag) for kind in (Retract, Amend))
# Written out as literals, not bound: SQLite can use a partial index only for a query whose WHERE
# visibly implies the index's own.
_IS_UNDO = f"type IN ({', '.join(repr(name) for name in _UNDO_TYPES)})"

E = TypeVar("E", bound=EventBase)
U = TypeVar("U", bound=EventBase)


def store_schema(dialect: Dialect, *, created: str, of_fight: str, clustered: str) -> str:
    """The store's tables in `dialect`: `created` is the type of the column that orders
    `fights()`, `of_fight` what ties a row of events or snapshots to its fight's row, and
    `clustered` what keeps a fight's events together on disk."""
    return f"""
CREATE TABLE IF NOT EXISTS fights (
    fight   TEXT PRIMARY KEY,
    created {created} UNIQUE,
    version {dialect.integer} NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    fight TEXT NOT NULL{of_fight},
    seq   {dialect.integer} NOT NULL,
    id    TEXT,
    type  TEXT NOT NULL,
    body  {dialect.blob} NOT NULL,
    PRIMARY KEY (fight, seq),
    UNIQUE (fight, id)
){clustered};
CREATE INDEX IF NOT EXISTS events_undo ON events (fight, seq) WHERE {_IS_UNDO};
CREATE TABLE IF NOT EXISTS snapshots (
    fight TEXT NOT NULL{of_fight},
    seq   {dialect.integer} NOT NULL,
    data  {dialect.blob} NOT NULL,
    PRIMARY KEY (fight, seq)
);
{companions.SCHEMA};
"""


class SqlStore(ClosesOnExit):
    """The store contract (base.py's `Store`) over one connection of a SQL database.

    A subclass opens `_db` (a DB-API connection whose `execute` returns a cursor, outside any
    transaction of its own) and says what its database does differently, in the methods and class
    attributes below marked "the database's"."""

    dialect: ClassVar[Dialect]
    schema_version: ClassVar[int]
    _FOR_UPDATE: ClassVar[str]
    """The database's: what a SELECT adds to lock the fight's row till the transaction ends."""
    _UNDO_INDEX: ClassVar[str]
    """The database's: what names the index of undo events to the planner, if it must be told."""
    _FOLLOW_BY_HAND: ClassVar[tuple[str, ...]]
    """The database's: the tables whose rows it does not delete or rename with the fight's row."""

    transactional = True
    """Events appended inside `transaction()` commit with it (base.py's `Store.transactional`)."""

    _db: Any
    _side: Side | None = None

    @property
    def side(self) -> Side:
        """The tables kept beside the fights, in the store's database (side.py)."""
        if self._side is None:
            self._side = Side(_OwnDatabase(self))
        return self._side

    def transaction(self) -> AbstractContextManager[object]:
        """One write transaction around several appends and writes of the side tables, which
        commit together or not at all: each write inside is a savepoint of it."""
        raise NotImplementedError

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]:
        """A transaction in which an import reads its cursor, appends and keeps the new cursor,
        committed together; in SQLite it holds the database's write lock, so no other process
        imports (or writes) in between. A savepoint of a transaction already open."""
        return self._write()

    # -- writing ---------------------------------------------------------------------------------

    def append(
        self,
        fight: str,
        events: Sequence[Event] | Sequence[CampaignEvent],
        expected_version: int | None = None,
    ) -> int:
        with self._write():
            version = self._lock_version(fight)
            fresh = plan_append(
                fight, events, version, expected_version, lambda ids: self._stored_ids(fight, ids)
            )
            if not fresh:
                if version == 0:  # nothing written: no empty fight left behind by the lock
                    self._run("DELETE FROM fights WHERE fight = ?", (fight,))
                return version
            new_version = version + len(fresh)
            self._executemany(
                self.dialect.sql(
                    "INSERT INTO events (fight, seq, id, type, body) VALUES (?, ?, ?, ?, ?)"
                ),
                (  # rows made as the database takes them: a million-event import holds no list
                    (fight, seq, event.id, type_name(event), body)
                    for seq, (event, body) in enumerate(fresh, start=version + 1)
                ),
            )
            self._set_version(fight, new_version)
            self._announce(fight, new_version)
            return new_version

    def delete_fight(self, fight: str) -> bool:
        with self._write():
            gone = self._run(
                "DELETE FROM fights WHERE fight = ? RETURNING version", (fight,)
            ).fetchall()
            for table in self._FOLLOW_BY_HAND:
                self._run(f"DELETE FROM {table} WHERE fight = ?", (fight,))
            companions.delete_rows(self._db, fight, self.dialect.mark)
            if not gone:
                return False
            self._announce(fight, 0)  # streams of the fight look again and find it gone
            return True

    def rename_fight(self, old: str, new: str) -> int:
        check_fight_id(new)
        try:
            with self._write():
                row = self._run(
                    f"SELECT version FROM fights WHERE fight = ?{self._FOR_UPDATE}", (old,)
                ).fetchone()
                if row is None:
                    raise UsageError(f"no fight `{old}` to rename")
                taken = self.version(new)
                if taken:
                    raise _taken(old, new, taken)
                # `created` is kept: the renamed fight keeps its place in `fights()`
                for table in ("fights", *self._FOLLOW_BY_HAND):
                    self._run(f"UPDATE {table} SET fight = ? WHERE fight = ?", (new, old))
                companions.rename_rows(self._db, old, new, self.dialect.mark)
                version = int(row[0])
                self._announce(old, 0)
                self._announce(new, version)
                return version
        except self._lost_race():
            raise _taken(old, new, self.version(new)) from None

    def save_snapshot(self, fight: str, seq: int, data: bytes) -> None:
        # in a write of its own: inside a transaction (an import's) a snapshot that fails is
        # undone alone, and the transaction goes on (PostgreSQL's would be aborted)
        with self._write():
            self._run(
                "INSERT INTO snapshots (fight, seq, data) VALUES (?, ?, ?)"
                " ON CONFLICT (fight, seq) DO UPDATE SET data = excluded.data",
                (fight, seq, data),
            )

    # -- reading ---------------------------------------------------------------------------------

    def _read(
        self, fight: str, from_seq: int, to_seq: int | None, family: Family[E, Any]
    ) -> Iterator[Stored[E]]:
        # Page by seq rather than hold one cursor open: between pages no statement is pending, so a
        # half-consumed (or abandoned) stream holds nothing in the database (no read transaction
        # holding back SQLite's WAL checkpoints), and the store can append while a caller is still
        # reading. Events never change once written, so the pages join into a consistent prefix.
        after = max(from_seq, 1) - 1
        last = _MAX_SEQ if to_seq is None else to_seq
        page = self._page_size()
        while True:
            rows = self._run(
                "SELECT seq, body FROM events WHERE fight = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq LIMIT ?",
                (fight, after, last, page),
            ).fetchall()
            for seq, body in rows:
                yield _stored(seq, body, family.decoder)
            if len(rows) < page:
                return
            after = rows[-1][0]

    def fights(self) -> list[str]:
        rows = self._run("SELECT fight FROM fights ORDER BY created").fetchall()
        return [row[0] for row in rows if is_fight_id(row[0])]  # a campaign's log is no fight

    def version(self, fight: str) -> int:
        row = self._run("SELECT version FROM fights WHERE fight = ?", (fight,)).fetchone()
        return 0 if row is None else int(row[0])

    def _lookup(
        self, fight: str, refs: Iterable[str], family: Family[E, Any]
    ) -> dict[str, Stored[E]]:
        by_seq, ids = split_refs(refs)
        found: dict[str, Stored[E]] = {}
        for seq, body in self._rows_where(fight, "seq", by_seq):
            found[by_seq[seq]] = _stored(seq, body, family.decoder)
        for seq, body in self._rows_where(fight, "id", ids):
            stored = _stored(seq, body, family.decoder)
            assert stored.event.id is not None
            found[stored.event.id] = stored
        return found

    def _undo_events(
        self, fight: str, to_seq: int | None, family: Family[Any, U]
    ) -> list[Stored[U]]:
        rows = self._run(
            f"SELECT seq, body FROM events{self._UNDO_INDEX}"
            f" WHERE fight = ? AND {_IS_UNDO} AND seq <= ? ORDER BY seq",
            (fight, _MAX_SEQ if to_seq is None else to_seq),
        )
        return [_stored(seq, body, family.undo_decoder) for seq, body in rows]

    def snapshot(self, fight: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        row = self._run(
            "SELECT seq, data FROM snapshots WHERE fight = ? AND seq <= ?"
            " ORDER BY seq DESC LIMIT 1",
            (fight, _MAX_SEQ if at_most is None else at_most),
        ).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    # -- inside ----------------------------------------------------------------------------------

    def _run(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Execute `sql`, written with `?` placeholders; the cursor."""
        return self._db.execute(self.dialect.sql(sql), params)

    def _create_schema(self) -> None:
        if self._schema_version() == self.schema_version:
            return  # the usual case: no need to wait for the write lock just to open
        with self._write():
            self._lock_schema()
            found = self._schema_version()
            if found > self.schema_version:
                raise UsageError(
                    f"{self._database()} was written by a newer woundlog (store schema {found}, "
                    f"this version knows up to {self.schema_version}); upgrade woundlog to open it"
                )
            if found == self.schema_version:
                return  # another process made it while this one waited for the lock
            for statement in self._schema().split(";"):
                if statement.strip():
                    self._db.execute(statement)
            make_tables(self._db, self.dialect)
            self._record_schema_version()

    def _stored_ids(self, fight: str, ids: Collection[str]) -> dict[str, tuple[int, bytes]]:
        found: dict[str, tuple[int, bytes]] = {}
        decoder = family_of(fight).decoder
        for seq, body in self._rows_where(fight, "id", ids):
            event = _stored(seq, body, decoder).event
            assert event.id is not None
            found[event.id] = (seq, canonical(event))
        return found

    # -- the database's --------------------------------------------------------------------------

    def _write(self) -> AbstractContextManager[object]:
        """One write transaction, holding what keeps other writers of the fight out till its end
        (at the latest from the first statement that reads the fight's version)."""
        raise NotImplementedError

    def _lock_version(self, fight: str) -> int:
        """Inside `_write`: the fight's version (0 if new), no other writer can change it before
        the transaction ends. It may leave a `fights` row at version 0 (`append` deletes it if
        nothing is written)."""
        raise NotImplementedError

    def _set_version(self, fight: str, version: int) -> None:
        """Inside `_write`, after `_lock_version`: record the fight's new version (and, for a new
        fight, its place in `fights()`)."""
        raise NotImplementedError

    def _announce(self, fight: str, version: int) -> None:
        """Inside `_write`: tell live streams in other processes, once the transaction commits,
        that the fight is at `version` (0: gone)."""

    def _executemany(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        """Execute `sql` (in the database's placeholders) once for each of `rows`."""
        raise NotImplementedError

    def _rows_where(
        self, fight: str, column: str, values: Collection[Any]
    ) -> Iterable[tuple[int, bytes]]:
        """(seq, body) of the fight's events whose `column` is one of `values`."""
        raise NotImplementedError

    def _page_size(self) -> int:
        """Rows fetched per query while streaming a read."""
        raise NotImplementedError

    def _lost_race(self) -> tuple[type[Exception], ...]:
        """The errors by which the database says a rename's new id was taken by a writer that got
        in between the check and the update."""
        return ()

    def _database(self) -> str:
        """The database, as a message names it."""
        raise NotImplementedError

    def _schema(self) -> str:
        """The statements, `;`-separated, that make (or migrate) the tables; harmless to run
        again."""
        raise NotImplementedError

    def _lock_schema(self) -> None:
        """Inside `_write`: keep other processes from changing the schema till it commits."""

    def _file(self) -> Path | None:
        """The database's: the local file it is, or None for a server's."""
        return None

    def _check_file(self) -> None:
        """The database's: read the whole file for damage (side.py's `SideDb.check`)."""

    def _schema_version(self) -> int:
        raise NotImplementedError

    def _record_schema_version(self) -> None:
        raise NotImplementedError


def _stored(seq: int, body: bytes, decoder: msgspec.json.Decoder[E]) -> Stored[E]:
    try:
        return Stored(seq, decoder.decode(body))
    except msgspec.MsgspecError as exc:
        # Only a database changed behind woundlog's back (or by a newer woundlog) gets here.
        raise StructuralError(f"stored event is unreadable: {exc}", event=f"#{seq}") from None


def _taken(old: str, new: str, taken: int) -> ConflictError:
    return ConflictError(
        f"fight `{new}` already exists ({taken} events): rename `{old}` to another "
        "id, or delete that fight first",
        current_version=taken,
    )


class _OwnDatabase:
    """The side tables in the store's own database, on its connection (side.py's `SideDb`): its
    transactions hold them, and its schema lock keeps two processes from making them at once."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    @property
    def dialect(self) -> Dialect:
        return self._store.dialect

    @property
    def path(self) -> Path | None:
        return self._store._file()

    def connection(self) -> Any:
        return self._store._db

    def write(self) -> AbstractContextManager[object]:
        return self._store._write()

    def lock(self) -> None:
        self._store._lock_schema()

    def check(self) -> None:
        self._store._check_file()
