"""What a store keeps beside its fights: import cursors, tokens, kept answers, stream tickets,
cached campaign contributions, settings.

The CLI and the service keep rows of their own next to the fights, so that the rows survive a
restart and every process on the store sees them: where each importer left off
(`ImportCursors`), the fights' tokens (`KeptTokens`), the first answers kept for a retried
`POST /fights` (`KeptAnswers`), the tickets a page opens a live stream with
(`StreamTickets`), what each fight's log, folded, brings the campaigns that record it
(`CampaignContributions`: a cache of that fold, one row per fight, checked by whoever reads
it) and the settings a GM gives a fight that are not rules, so not in its log
(`FightSettings`: what its viewer tokens are shown of monsters' hit points). Every row belongs
to a fight: deleting or renaming the fight carries its rows, in the store's transaction (each
table is registered in companions.py's `fight_tables`, so that a store carries the rows of
tables another program made, a `woundlog delete` those of a service).

Written once, in SQL, for every store. SQLite and PostgreSQL keep these tables in their own
database, on the store's own connection: a store's `transaction()` holds the events appended
inside it and these rows alike, which commit together or not at all (a fight's first event and
its tokens, an import's events and its cursor). A store that keeps no SQL database of its own
(JSON Lines) keeps them in an SQLite file beside its fights (`sqlite.SideFile`), where they
commit by themselves: the store says which it is (`Store.transactional`).

Each write below is one write of the database (`SideDb.write`): a transaction, or a savepoint
inside the one already open, so a write that fails is undone alone and the transaction around
it goes on (an import whose cursor cannot be kept still commits its events). The tables are made,
or brought up to date, with the store's own tables (`make_tables`); `Side.check` does it again and
checks the whole file, for a program that keeps running (the service) at its start.

What the rows mean is the application's and the service's: the store keeps what it is given and
finds it again. It hashes no token, seals no answer and reads no clock (`now` is given).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import msgspec

from . import companions
from .dialect import Dialect
from .files import OPEN_ERRORS, unusable_file

CURSORS = "service_cursors"
TOKENS = "service_tokens"
ANSWERS = "service_answers"
TICKETS = "service_tickets"
CONTRIBUTIONS = "campaign_contributions"
SETTINGS = "fight_settings"
TABLES = (TOKENS, CURSORS, ANSWERS, TICKETS, CONTRIBUTIONS, SETTINGS)
"""The tables, each of rows of a fight (companions.py carries them with it). The first four are
named for the service, which made them first: databases written before keep their rows."""
_CHUNK = 500
"""Fights per `IN (...)`, well under SQLite's limit on bound parameters."""


def _schema(dialect: Dialect) -> str:
    """The tables in `dialect`, `;`-separated; every statement can run again."""
    return f"""
CREATE TABLE IF NOT EXISTS {TOKENS} (
    hash   TEXT PRIMARY KEY,
    fight  TEXT NOT NULL,
    role   TEXT NOT NULL,
    name   TEXT,
    issued {dialect.real}
);
CREATE INDEX IF NOT EXISTS {TOKENS}_fight ON {TOKENS} (fight);
CREATE TABLE IF NOT EXISTS {CURSORS} (
    fight  TEXT NOT NULL,
    format TEXT NOT NULL,
    cursor {dialect.blob} NOT NULL,
    PRIMARY KEY (fight, format)
);
CREATE TABLE IF NOT EXISTS {ANSWERS} (
    key     TEXT PRIMARY KEY,
    fight   TEXT NOT NULL,
    request TEXT NOT NULL,
    status  INTEGER NOT NULL,
    answer  {dialect.blob} NOT NULL,
    expires {dialect.real} NOT NULL
);
CREATE TABLE IF NOT EXISTS {TICKETS} (
    hash    TEXT PRIMARY KEY,
    fight   TEXT NOT NULL,
    expires {dialect.real} NOT NULL
);
CREATE TABLE IF NOT EXISTS {CONTRIBUTIONS} (
    fight   TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    digest TEXT NOT NULL,
    data    {dialect.blob} NOT NULL
);
CREATE TABLE IF NOT EXISTS {SETTINGS} (
    fight TEXT NOT NULL,
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (fight, name)
)"""


def _named_tokens(dialect: Dialect, has: set[str]) -> list[str]:
    """The statements that bring a tokens table whose columns are `has` up to date with named
    tokens (issue 26), for a database made before them: the missing columns, each old token
    named for its role (a fight held one pair then, so the names are unique), and the index that
    keeps a name unique in its fight."""
    columns = {"name": "TEXT", "issued": dialect.real}
    return [
        *(f"ALTER TABLE {TOKENS} ADD COLUMN {name} {kind}"
          for name, kind in columns.items() if name not in has),
        f"UPDATE {TOKENS} SET name = role WHERE name IS NULL",
        f"CREATE UNIQUE INDEX IF NOT EXISTS {TOKENS}_name ON {TOKENS} (fight, name)",
    ]  # fmt: skip


def _ticket_tokens(db: Any, dialect: Dialect) -> None:
    """Bring a tickets table made before tickets kept the token they were issued for (issue 37)
    up to date: the column, NULL in the tickets already there (each lives a minute)."""
    rows = db.execute(dialect.sql(dialect.columns), (TICKETS,)).fetchall()
    if "token" not in {str(row[0]) for row in rows}:
        db.execute(f"ALTER TABLE {TICKETS} ADD COLUMN token TEXT")


class SideDb(Protocol):
    """The database the tables are in, as a store offers it: its own (sql.py), or a file of
    their own beside a store that has none (sqlite.py's `SideFile`)."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def path(self) -> Path | None:
        """The local file the tables are in; None in a database server's, which several
        processes share."""
        ...

    def connection(self) -> Any:
        """The open DB-API connection (sqlite3's or psycopg's), in autocommit outside `write`."""
        ...

    def write(self) -> AbstractContextManager[object]:
        """One write transaction, or a savepoint of the transaction already open."""
        ...

    def lock(self) -> None:
        """Inside `write`: keep other processes from making the tables at the same time."""
        ...

    def check(self) -> None:
        """Read the whole file for damage, raising what its driver raises (nothing to do for a
        database server's)."""
        ...


class KeptToken(msgspec.Struct, frozen=True):
    """A fight's token as kept: a hash of it (never the token), its role, its name in the fight
    (None only in a database made before tokens had names, till it is opened), when it was
    issued (seconds since the epoch; None for one issued before times were kept)."""

    hash: str
    fight: str
    role: str
    name: str | None = None
    issued: float | None = None


class KeptAnswer(msgspec.Struct, frozen=True):
    """A first answer, kept for the retries of the request it answered till `expires`: found by
    `key` (what the service derives from an Idempotency-Key), `request` the digest of the request
    it answered, `answer` the bytes to give again (sealed by the service)."""

    key: str
    fight: str
    request: str
    status: int
    answer: bytes
    expires: float


class StreamTicket(msgspec.Struct, frozen=True):
    """What opens the fight's live stream till `expires`, kept as a hash; `token`, the hash of
    the token it was issued for (None: issued before tickets kept it), so that a stream it
    opened ends when that token is revoked."""

    hash: str
    fight: str
    expires: float
    token: str | None = None


class KeptContribution(msgspec.Struct, frozen=True):
    """What a fight's log, folded at `version`, brings a campaign (`data`, encoded by whoever
    folded it), with `digest`, what that reader derives from the log and the data to know the
    row still holds (the store only keeps it)."""

    fight: str
    version: int
    digest: str
    data: bytes


class Side:
    """The tables kept beside a store's fights, in `db`: `cursors`, `tokens`, `answers`,
    `tickets`, `contributions`, `settings`. Each store has one (`Store.side`), used by whatever
    uses the store."""

    def __init__(self, db: SideDb) -> None:
        self._db = db
        self.cursors = ImportCursors(self)
        self.tokens = KeptTokens(self)
        self.answers = KeptAnswers(self)
        self.tickets = StreamTickets(self)
        self.contributions = CampaignContributions(self)
        self.settings = FightSettings(self)

    @property
    def path(self) -> Path | None:
        """The local file the tables are in (a SQLite store's own, `service.db` in a JSON Lines
        directory); None in a database server's (PostgreSQL), which several processes share."""
        return self._db.path

    def check(self) -> None:
        """Make the tables again if they are missing or out of date (a database changed behind
        the store's back), and check the whole file they are in: what a program that keeps
        running does at its start, so that a damaged file stops it there (a StoreUnusable,
        exit 2) rather than failing its requests one by one."""
        try:
            with self._db.write():
                self._db.lock()
                make_tables(self._db.connection(), self._db.dialect)
            self._db.check()
        except OPEN_ERRORS as error:
            if self._db.path is None:
                raise
            raise unusable_file(self._db.path, error) from None

    def run(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Execute `sql`, written with `?` placeholders; the cursor."""
        return self._db.connection().execute(self._db.dialect.sql(sql), params)

    def write(self) -> AbstractContextManager[object]:
        """One write: a transaction, or a savepoint of the one open."""
        return self._db.write()


def make_tables(db: Any, dialect: Dialect) -> None:
    """Make the tables where they are missing and bring them up to date, on the DB-API
    connection `db`, inside a write transaction that keeps other processes from doing the same
    (the store's own making of its schema, or `Side.check`)."""
    for statement in _schema(dialect).split(";"):
        db.execute(statement)
    rows = db.execute(dialect.sql(dialect.columns), (TOKENS,)).fetchall()
    for statement in _named_tokens(dialect, {str(row[0]) for row in rows}):
        db.execute(statement)
    _ticket_tokens(db, dialect)
    companions.register(db, TABLES, dialect.mark)


class _Rows:
    """One of the side's tables."""

    def __init__(self, side: Side) -> None:
        self._side = side


class ImportCursors(_Rows):
    """Where each importer left off, per fight and format: the `previous` an importer hands
    back (the last snapshot it took in, for formats compared pairwise), kept as JSON. One table
    for every front end, so `woundlog import FORMAT FILE` and `POST
    /fights/{fight}/import/{format}` go on from the same cursor, whichever came first."""

    def get(self, fight: str, fmt: str) -> object | None:
        row = self._side.run(
            f"SELECT cursor FROM {CURSORS} WHERE fight = ? AND format = ?", (fight, fmt)
        ).fetchone()
        return None if row is None else msgspec.json.decode(row[0])

    def put(self, fight: str, fmt: str, cursor: object | None) -> None:
        with self._side.write():
            self._side.run(
                f"INSERT INTO {CURSORS} (fight, format, cursor) VALUES (?, ?, ?)"
                " ON CONFLICT (fight, format) DO UPDATE SET cursor = excluded.cursor",
                (fight, fmt, msgspec.json.encode(cursor)),
            )


class KeptTokens(_Rows):
    """The fights' tokens, as hashes, each with a name unique in its fight."""

    def of(self, fight: str) -> list[KeptToken]:
        """The fight's tokens, in no set order."""
        rows = self._side.run(
            f"SELECT hash, fight, role, name, issued FROM {TOKENS} WHERE fight = ?", (fight,)
        ).fetchall()
        return [_token(row) for row in rows]

    def find(self, hashed: str) -> KeptToken | None:
        """The token kept under the hash `hashed`, or None."""
        row = self._side.run(
            f"SELECT hash, fight, role, name, issued FROM {TOKENS} WHERE hash = ?", (hashed,)
        ).fetchone()
        return None if row is None else _token(row)

    def put(self, token: KeptToken, *, replace: bool = False) -> bool:
        """Keep `token`; whether it was kept. A token of its name already in its fight is
        replaced with `replace`, else left as it is (False). One statement per token, claiming
        the name itself: two processes after one name queue on it, and neither fails."""
        on_conflict = (
            "DO UPDATE SET hash = excluded.hash, role = excluded.role, issued = excluded.issued"
            if replace
            else "DO NOTHING"
        )
        with self._side.write():
            written = self._side.run(
                f"INSERT INTO {TOKENS} (hash, fight, role, name, issued) VALUES (?, ?, ?, ?, ?)"
                f" ON CONFLICT (fight, name) {on_conflict}",
                (token.hash, token.fight, token.role, token.name, token.issued),
            )
            return bool(written.rowcount == 1)

    def remove(self, fight: str, name: str) -> bool:
        """Forget the fight's token `name`; whether it was there."""
        with self._side.write():
            gone = self._side.run(
                f"DELETE FROM {TOKENS} WHERE fight = ? AND name = ?", (fight, name)
            )
            return bool(gone.rowcount > 0)

    def remove_all(self, fight: str) -> None:
        """Forget every token of the fight."""
        with self._side.write():
            self._side.run(f"DELETE FROM {TOKENS} WHERE fight = ?", (fight,))


def _token(row: Any) -> KeptToken:
    hashed, fight, role, name, issued = row
    return KeptToken(
        hash=str(hashed),
        fight=str(fight),
        role=str(role),
        name=None if name is None else str(name),
        issued=None if issued is None else float(issued),
    )


class KeptAnswers(_Rows):
    """First answers kept for their retries, each till it expires."""

    def find(self, key: str, now: float) -> KeptAnswer | None:
        """The answer kept under `key` that has not expired at `now`, or None."""
        row = self._side.run(
            f"SELECT key, fight, request, status, answer, expires FROM {ANSWERS}"
            " WHERE key = ? AND expires > ?",
            (key, now),
        ).fetchone()
        if row is None:
            return None
        key, fight, request, status, answer, expires = row
        return KeptAnswer(
            key=str(key), fight=str(fight), request=str(request), status=int(status),
            answer=bytes(answer), expires=float(expires),
        )  # fmt: skip

    def put(self, answer: KeptAnswer, now: float) -> bool:
        """Keep `answer`, dropping on the way every answer expired at `now` (so the table holds
        no more than their time's worth); whether it was kept. One already kept under its key
        (another process answered it in between) is left as it is: False."""
        with self._side.write():
            self._side.run(f"DELETE FROM {ANSWERS} WHERE expires <= ?", (now,))
            written = self._side.run(
                f"INSERT INTO {ANSWERS} (key, fight, request, status, answer, expires)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                (
                    answer.key, answer.fight, answer.request, answer.status, answer.answer,
                    answer.expires,
                ),
            )  # fmt: skip
            return bool(written.rowcount == 1)

    def remove(self, key: str) -> None:
        with self._side.write():
            self._side.run(f"DELETE FROM {ANSWERS} WHERE key = ?", (key,))

    def remove_all(self, fight: str) -> None:
        """Forget every answer kept for the fight."""
        with self._side.write():
            self._side.run(f"DELETE FROM {ANSWERS} WHERE fight = ?", (fight,))


class StreamTickets(_Rows):
    """Tickets that open a fight's live stream, each till it expires."""

    def put(self, ticket: StreamTicket, now: float) -> None:
        """Keep `ticket`, dropping on the way every ticket expired at `now`."""
        with self._side.write():
            self._side.run(f"DELETE FROM {TICKETS} WHERE expires <= ?", (now,))
            self._side.run(
                f"INSERT INTO {TICKETS} (hash, fight, expires, token) VALUES (?, ?, ?, ?)",
                (ticket.hash, ticket.fight, ticket.expires, ticket.token),
            )

    def fight_of(self, hashed: str, now: float) -> str | None:
        """The fight the ticket kept under the hash `hashed` opens at `now`, or None."""
        row = self._side.run(
            f"SELECT fight FROM {TICKETS} WHERE hash = ? AND expires > ?", (hashed, now)
        ).fetchone()
        return None if row is None else str(row[0])

    def find(self, hashed: str, now: float) -> StreamTicket | None:
        """The ticket kept under the hash `hashed`, unexpired at `now`, or None."""
        row = self._side.run(
            f"SELECT hash, fight, expires, token FROM {TICKETS} WHERE hash = ? AND expires > ?",
            (hashed, now),
        ).fetchone()
        if row is None:
            return None
        hashed, fight, expires, token = row
        return StreamTicket(
            str(hashed), str(fight), float(expires), None if token is None else str(token)
        )

    def remove_all(self, fight: str) -> None:
        """Forget every ticket of the fight."""
        with self._side.write():
            self._side.run(f"DELETE FROM {TICKETS} WHERE fight = ?", (fight,))


class CampaignContributions(_Rows):
    """Each fight's contribution to the campaigns that record it, as last folded: one row per
    fight, replaced when the fight is folded at another version. A cache: the reader checks a
    row against the log before it uses it (`replays.campaign`), and folds again where it fails."""

    def of(self, fights: Iterable[str]) -> dict[str, KeptContribution]:
        """The rows kept for `fights`, by fight (a fight with none is left out)."""
        wanted = list(dict.fromkeys(fights))
        found: dict[str, KeptContribution] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            rows = self._side.run(
                f"SELECT fight, version, digest, data FROM {CONTRIBUTIONS}"
                f" WHERE fight IN ({marks})",
                tuple(chunk),
            ).fetchall()
            for fight, version, digest, data in rows:
                found[str(fight)] = KeptContribution(
                    fight=str(fight), version=int(version), digest=str(digest), data=bytes(data)
                )
        return found

    def put(self, kept: KeptContribution) -> None:
        """Keep `kept` as its fight's row, in place of the one there."""
        with self._side.write():
            self._side.run(
                f"INSERT INTO {CONTRIBUTIONS} (fight, version, digest, data) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (fight) DO UPDATE SET version = excluded.version,"
                " digest = excluded.digest, data = excluded.data",
                (kept.fight, kept.version, kept.digest, kept.data),
            )

    def remove(self, fight: str) -> None:
        with self._side.write():
            self._side.run(f"DELETE FROM {CONTRIBUTIONS} WHERE fight = ?", (fight,))


class FightSettings(_Rows):
    """A fight's settings that are not rules (so not in its log), each a name and a text value,
    as the application keeps them: what its viewer tokens are shown of monsters' hit points."""

    def get(self, fight: str, name: str) -> str | None:
        """The fight's setting `name`, or None if none was given."""
        row = self._side.run(
            f"SELECT value FROM {SETTINGS} WHERE fight = ? AND name = ?", (fight, name)
        ).fetchone()
        return None if row is None else str(row[0])

    def put(self, fight: str, name: str, value: str) -> None:
        """Keep `value` as the fight's setting `name`, in place of the one there."""
        with self._side.write():
            self._side.run(
                f"INSERT INTO {SETTINGS} (fight, name, value) VALUES (?, ?, ?)"
                " ON CONFLICT (fight, name) DO UPDATE SET value = excluded.value",
                (fight, name, value),
            )
