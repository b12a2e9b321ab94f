"""The fights behind the service: every blocking store call, run in a worker thread.

Each worker thread opens its own store (an SQLite connection must stay in the thread that made
it). Appends from many threads, or many processes, to one fight are serialised by the store's
write lock and revalidated by `Fight.append`, which retries when another writer got in first; an
append with `expected_version` is refused instead (409), so the client decides.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from woundlog.events import (
    WIRE_VERSION,
    BatchRefused,
    ConflictError,
    Event,
    FightStarted,
    RefusedError,
    StructuralError,
    UsageError,
    convert,
)
from woundlog.events.importers import IMPORTERS, convert_records
from woundlog.events.stores import Store, open_store

from ..fight import Appended, Fight, State
from .cursors import ImportCursors
from .database import ServiceDb, service_db_path
from .schemas import EventsPage, NewFight
from .tokens import Tokens

PAGE_MAX = 5000
"""The most events one `GET /events` returns."""


class FightNotFound(UsageError):
    """The fight named in the path is not in the store (404)."""


class UnknownFormat(UsageError):
    """No importer for the format named in the path (404)."""


class TooLarge(UsageError):
    """A request over one of the service's limits (413)."""


class Fights:
    def __init__(self, store_url: str | None, admin_token: str, *, max_batch: int) -> None:
        self.store_url = store_url
        self.max_batch = max_batch
        self._local = threading.local()
        self._import_locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self.db = ServiceDb(service_db_path(self.store()))  # opening also checks the URL
        self.tokens = Tokens(self.db, admin_token)
        self.cursors = ImportCursors(self.db)

    def store(self) -> Store:
        """This thread's store, opened on first use."""
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = open_store(self.store_url)
        return store

    def close(self) -> None:
        self.db.close()

    def fight(self, fight: str) -> Fight:
        store = self.store()
        if store.version(fight) == 0:
            raise FightNotFound(f"no fight `{fight}`")
        return Fight(store, fight)

    def exists(self, fight: str) -> bool:
        return self.store().version(fight) > 0

    # --- writing ---------------------------------------------------------------------------

    def create(self, new: NewFight) -> tuple[Appended, int]:
        seed = secrets.randbelow(2**31) if new.seed is None else new.seed
        fields = {
            "type": "fight_started",
            "ruleset": new.ruleset,
            "seed": seed,
            "options": new.options,
            "tables": new.tables,
            "name": new.name,
            "by": new.by,
            "note": new.note,
            "version": WIRE_VERSION,
        }
        started = convert({k: v for k, v in fields.items() if v is not None}, index=0)
        assert isinstance(started, FightStarted)
        store = self.store()
        if store.version(new.fight):
            raise ConflictError(
                f"fight `{new.fight}` already exists", current_version=store.version(new.fight)
            )
        created = Fight.create(store, new.fight, started)
        return Appended(created.version, list(created.changes_from(1))), seed

    def append(self, fight: str, body: object, expected_version: int | None) -> Appended:
        events = self.decode_batch(body)
        return self.fight(fight).append(events, expected_version=expected_version)

    def undo(self, fight: str, event: str | None, reason: str, by: str | None) -> Appended:
        return self.fight(fight).undo(event, reason=reason, by=by)

    def decode_batch(self, body: object) -> list[Event]:
        """One event or a list of them, each validated; every structural error is reported."""
        items = body if isinstance(body, list) else [body]
        self.check_batch_size(len(items))
        events: list[Event] = []
        errors: list[RefusedError] = []
        for index, item in enumerate(items):
            try:
                events.append(convert(item, index=index))
            except StructuralError as error:
                errors.append(error)
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise BatchRefused(errors)
        return events

    def check_batch_size(self, count: int) -> None:
        if count > self.max_batch:
            raise TooLarge(
                f"{count} events in one batch; at most {self.max_batch}: send them in batches"
            )
        if count == 0:
            raise StructuralError("an empty batch: send one event or a list of events")

    # --- importing -------------------------------------------------------------------------

    def import_records(self, fight: str, fmt: str, body: object) -> Appended:
        """Convert another program's records with its importer and append the events.

        One import at a time per fight and format: the importer's cursor (`previous`) must be
        read, used and replaced in turn. The cursor is saved after the append; if the server dies
        in between, the records' stable ids make their resend harmless.
        """
        if fmt not in IMPORTERS:
            raise UnknownFormat(f"no import format `{fmt}` (known: {', '.join(IMPORTERS)})")
        records = body if isinstance(body, list) else [body]
        self.check_batch_size(len(records))
        with self._import_lock(fight, fmt):
            opened = self.fight(fight)
            now = opened.state()
            converted = convert_records(
                fmt,
                records,
                ruleset=now.ruleset,
                joined=list(now.characters),
                previous=self.cursors.get(fight, fmt),
            )
            if converted.events:  # not limited again: a record makes at most a few events
                appended = opened.append(converted.events)
            else:  # records that changed nothing (a snapshot like the last one)
                appended = Appended(opened.version, [])
            self.cursors.put(fight, fmt, converted.previous)
            return appended

    def _import_lock(self, fight: str, fmt: str) -> threading.Lock:
        with self._locks_guard:
            return self._import_locks.setdefault((fight, fmt), threading.Lock())

    # --- reading ---------------------------------------------------------------------------

    def state(self, fight: str, at: int | None) -> State:
        opened = self.fight(fight)
        version = opened.version
        if at is not None and at > version:
            raise UsageError(f"at={at}: fight `{fight}` has events 1 to {version}")
        return opened.state(at)

    def events(self, fight: str, first: int, limit: int) -> EventsPage:
        opened = self.fight(fight)
        version = opened.version
        first = max(first, 1)
        last = min(version, first + min(limit, PAGE_MAX) - 1)
        events = list(opened.events(first, last)) if first <= last else []
        return EventsPage(version=version, events=events, next=last + 1 if last < version else None)

    def changes_from(self, fight: str, first: int, limit: int) -> list[Any]:
        """Up to `limit` events' changes from seq `first`, as each was appended (for the stream)."""
        opened = self.fight(fight)
        last = min(opened.version, first + limit - 1)
        return list(opened.changes_from(first, last)) if first <= last else []

    def version(self, fight: str) -> int:
        return self.fight(fight).version
