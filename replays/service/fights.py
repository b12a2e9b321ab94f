"""The fights behind the service: every blocking store call, run in a worker thread.

Each worker thread opens its own store (an SQLite connection must stay in the thread that made
it). Appends from many threads, or many processes, to one fight are serialised by the store's
write lock and revalidated by `Fight.append`, which retries when another writer got in first; an
append with `expected_version` is refused instead (409), so the client decides.
"""

from __future__ import annotations

import logging
import secrets
import threading
from typing import Any

import msgspec

from woundlog.events import (
    WIRE_VERSION,
    ConflictError,
    Event,
    FightStarted,
    RefusedError,
    StructuralError,
    UsageError,
    WoundlogError,
    canonical,
    convert,
)
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.importers import IMPORTERS, convert_records
from woundlog.events.stores import Store, open_store

from ..fight import Appended, Fight, State
from .cursors import ImportCursors
from .database import open_service_db
from .foldcache import FoldCache
from .schemas import Created, EventsPage, NewFight
from .tokens import Tokens

log = logging.getLogger("woundlog.service")

PAGE_MAX = 5000
"""The most events one `GET /events` returns."""
CREATE_LOCKS = 16


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
        self._create_locks = [threading.Lock() for _ in range(CREATE_LOCKS)]
        self._locks_guard = threading.Lock()
        self.folded = FoldCache()
        self.db = open_service_db(self.store(), self.store)  # opening also checks the URL
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

    def fight(self, fight: str, *, cached: bool = True) -> Fight:
        """The fight, its folded state kept in memory unless not `cached` (an append inside a
        transaction that may yet roll back must not leave its state behind)."""
        check_fight_id(fight)
        store = self.store()
        if store.version(fight) == 0:
            raise FightNotFound(f"no fight `{fight}`")
        return Fight(store, fight, self.folded if cached else None)

    def exists(self, fight: str) -> bool:
        check_fight_id(fight)
        return self.store().version(fight) > 0

    # --- writing ---------------------------------------------------------------------------

    def create(self, new: NewFight) -> tuple[Created, bool]:
        """Start the fight `new` describes and issue its tokens; or, when that fight is already
        there with the same settings (a retry after a lost answer or a crash), issue it new
        tokens. Returns the answer and whether the fight is new.

        The tokens are written first and the fight's first event last: that event is the one
        commit that makes the fight exist, so a crash at any point leaves either no fight (the
        tokens written for it name a fight nobody can reach, and the retry replaces them) or a
        fight with its tokens. The tokens cannot be shown twice (only their hashes are kept), so
        a retry gets a new pair and the pair of any earlier answer stops working.
        """
        check_fight_id(new.fight)
        started = self._started(new)
        with self._creation_lock(new.fight):
            store = self.store()
            if self.db.shares_transactions:
                return self._create_in_one_transaction(store, new, started)
            if not store.version(new.fight):
                gm, viewer = self.tokens.issue(new.fight)
                try:
                    created = Fight.create(store, new.fight, started)
                except BaseException as error:
                    if not (isinstance(error, WoundlogError) and store.version(new.fight)):
                        self.tokens.revoke(new.fight)  # no fight: its tokens are of no use
                        raise
                    # another process created it in between: answered as a retry, below
                else:
                    answer = Created(
                        fight=new.fight, version=created.version, seed=started.seed,
                        gm_token=gm, viewer_token=viewer,
                    )  # fmt: skip
                    return answer, True
            return self._recreate(new, started), False

    def _create_in_one_transaction(
        self, store: Store, new: NewFight, started: FightStarted
    ) -> tuple[Created, bool]:
        """`create` where the service's tables share the store's transactions (PostgreSQL): the
        tokens and the first event commit together or not at all, so no crash leaves one without
        the other, and of two processes creating one fight, one wins and the other answers it as
        a retry (its rows rolled back with its refused first event)."""
        if not store.version(new.fight):
            try:
                with self.db.transaction():
                    gm, viewer = self.tokens.issue(new.fight)
                    created = Fight.create(store, new.fight, started)
            except WoundlogError:
                if not store.version(new.fight):
                    raise
            else:
                answer = Created(
                    fight=new.fight, version=created.version, seed=started.seed,
                    gm_token=gm, viewer_token=viewer,
                )  # fmt: skip
                return answer, True
        return self._recreate(new, started), False

    def _started(self, new: NewFight) -> FightStarted:
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
        return started

    def _recreate(self, new: NewFight, started: FightStarted) -> Created:
        """A `POST /fights` for a fight already in the store: new tokens if it asks for what the
        fight is (a request that gave no seed takes the fight's), else 409."""
        opened = self.fight(new.fight)
        first = next(opened.events(1, 1)).event
        if new.seed is None and isinstance(first, FightStarted):
            started = msgspec.structs.replace(started, seed=first.seed)
        differs = _differences(first, started)
        if differs:
            raise ConflictError(
                f"fight `{new.fight}` already exists with other settings ({differs}): choose "
                "another id, or send its own settings to get new tokens for it",
                current_version=opened.version,
            )
        assert isinstance(first, FightStarted)
        gm, viewer = self.tokens.issue(new.fight)
        return Created(
            fight=new.fight, version=opened.version, seed=first.seed, gm_token=gm,
            viewer_token=viewer,
        )  # fmt: skip

    def _creation_lock(self, fight: str) -> threading.Lock:
        """One creation of a fight at a time in this process, so two requests for one new fight
        cannot interleave between its tokens and its first event (a few locks, shared by hash:
        creations are rare, and the set stays the same size however many fights there are)."""
        return self._create_locks[hash(fight) % CREATE_LOCKS]

    def append(self, fight: str, body: object, expected_version: int | None) -> Appended:
        items = self.read_batch(body)
        if any(isinstance(item, RefusedError) for item in items):
            # every refused event is named: the unreadable ones and the rule errors of the rest
            self.fight(fight).refuse(items)
        events = [item for item in items if not isinstance(item, RefusedError)]
        return self.fight(fight).append(events, expected_version=expected_version)

    def read_batch(self, body: object) -> list[Event | RefusedError]:
        """One event or a list of them, each validated: its Event, or why it is refused."""
        items = body if isinstance(body, list) else [body]
        self.check_batch_size(len(items))
        read: list[Event | RefusedError] = []
        for index, item in enumerate(items):
            try:
                read.append(convert(item, index=index))
            except StructuralError as error:
                read.append(error)
        return read

    def undo(self, fight: str, event: str | None, reason: str, by: str | None) -> Appended:
        return self.fight(fight).undo(event, reason=reason, by=by)

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
        read, used and replaced in turn (in every process on a PostgreSQL database, where the
        cursor also commits with the events). Elsewhere the cursor is saved after the append; if
        the server dies in between, the records' stable ids make their resend harmless.
        """
        if fmt not in IMPORTERS:
            raise UnknownFormat(f"no import format `{fmt}` (known: {', '.join(IMPORTERS)})")
        records = body if isinstance(body, list) else [body]
        self.check_batch_size(len(records))
        with self._import_lock(fight, fmt), self.db.import_lock(fight, fmt):
            opened = self.fight(fight, cached=not self.db.shares_transactions)
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
            try:
                self.cursors.put(fight, fmt, converted.previous)
            except Exception:
                # The events are committed: that must not be answered as a failure. The next
                # import compares against an older cursor; the records' ids make it harmless.
                log.exception("import to `%s` (%s) committed; cursor not saved", fight, fmt)
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


def _differences(stored: Event, asked: FightStarted) -> str:
    """The settings in which the fight's `fight_started` and a request for it differ, as
    `ruleset: mordheim, not d26`; empty when they are the same."""
    if canonical(stored) == canonical(asked):
        return ""
    have = msgspec.to_builtins(stored)
    want = msgspec.to_builtins(asked)
    fields = sorted(set(have) | set(want))
    return "; ".join(
        f"{name}: {have.get(name)!r}, not {want.get(name)!r}"
        for name in fields
        if have.get(name) != want.get(name)
    )
