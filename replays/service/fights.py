"""The fights behind the service: the application layer, with what only the service adds
(tokens, idempotency, creation locks, the worker threads' stores). Every call here blocks, and
runs in a worker thread.

Each worker thread opens its own store (an SQLite connection must stay in the thread that made
it). Appends from many threads, or many processes, to one fight are serialised by the store's
write lock and revalidated by `Fight.append`, which retries when another writer got in first; an
append with `expected_version` is refused instead (409), so the client decides.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from woundlog.core import Changes, FightState
from woundlog.core.odds import LIMIT as ODDS_LIMIT
from woundlog.core.odds import Budget
from woundlog.core.odds import TooLarge as OddsTooLarge
from woundlog.events import (
    ConflictError,
    Event,
    FightStarted,
    RefusedError,
    UsageError,
    WoundlogError,
    canonical,
    convert,
)
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.stores import Store, open_store

from ..application import (
    Application,
    EventsPage,
    FightsPage,
    NewFight,
    NothingAsked,
)
from ..application.tokens import Grant, Tokens
from ..application.values import Issued, Role, TokenInfo
from ..fight import Appended, Fight
from ..foldcache import FoldCache
from ..import_cursors import ImportCursors
from ..tables import Writer, open_service_db
from ..whatif import Odds
from .idempotency import Answers, AnswerTaken, answer_gone, server_secret
from .schemas import BranchRequest, Created, OddsRequest
from .tickets import Tickets

log = logging.getLogger("woundlog.service")

WORK_LIMIT = ODDS_LIMIT // 10
"""The most reducer steps (an evaluation of an event, or a die handed to it) one odds request may
take, exact or estimated: a tenth of what the CLI allows, so that no viewer holds a worker
thread, or the server, for long. A larger question is refused, as soon as the work
gets there, with the figure and what would be answered."""
ODDS_LIVE = WORK_LIMIT
"""The most dice paths and fight states one odds request holds at once (each a few hundred
bytes)."""
SAMPLE_STEPS = 2
"""What a sampled event costs at least (its evaluation and one die): `samples` past
WORK_LIMIT // (SAMPLE_STEPS * events) is refused before any work."""
PAGE_MAX = 5000
"""The most events one `GET /events` returns."""
LIST_MAX = 200
"""The most fights one `GET /fights` lists (each costs two small reads)."""
CREATE_LOCKS = 16
CREATED, OK = 201, 200


class Keyed(msgspec.Struct, frozen=True):
    """A request's Idempotency-Key, and a digest of the request it came with."""

    key: str
    request: str


Keep = Callable[[Writer, str, str], None]
"""Writes, in the transaction of a new fight's tokens, what a retry with its key is answered."""


class Fights:
    def __init__(self, store_url: str | None, admin_token: str, *, max_batch: int) -> None:
        self.store_url = store_url
        self._local = threading.local()
        self._import_locks: dict[tuple[str, str], threading.Lock] = {}
        self._create_locks = [threading.Lock() for _ in range(CREATE_LOCKS)]
        self._locks_guard = threading.Lock()
        self.folded = FoldCache()
        self.db = open_service_db(self.store(), self.store)  # opening also checks the URL
        self.tokens = Tokens(self.db, admin_token)
        self.cursors = ImportCursors(self.db)
        self.answers = Answers(self.db, server_secret(admin_token))
        self.tickets = Tickets(self.db)
        self.app = Application(
            self.store,
            cache=self.folded,
            cursors=self._held_cursors,
            cursor_lost=_cursor_lost,
            max_batch=max_batch,
        )

    def store(self) -> Store:
        """This thread's store, opened on first use (and again if its connection was lost)."""
        store: Store | None = getattr(self._local, "store", None)
        if store is not None and getattr(store, "broken", False):
            store.close()  # its PostgreSQL connection was lost: reconnect
            store = None
        if store is None:
            store = self._local.store = open_store(self.store_url)
        return store

    def close(self) -> None:
        self.db.close()

    def fight(self, fight: str) -> Fight:
        return self.app.fight(fight)

    def exists(self, fight: str) -> bool:
        return self.app.exists(fight)

    # --- writing ---------------------------------------------------------------------------

    def create(self, new: NewFight, key: Keyed | None = None) -> tuple[Created, bool]:
        """Start the fight `new` describes and issue its tokens; or, when that fight is already
        there with the same settings (a retry after a lost answer or a crash), issue it new
        tokens. Returns the answer and whether the fight is new.

        With an Idempotency-Key (`key`), a retry instead gets the first answer again, the same
        tokens (idempotency.py): it is kept with the tokens, in their transaction."""
        check_fight_id(new.fight)
        started = self.app.started(new)
        with self._creation_lock(new.fight):
            store = self.store()
            kept = self._recall(key, new.fight)
            if kept is not None:
                return kept
            try:
                if not store.version(new.fight):
                    made = self._made_with_tokens(
                        new.fight,
                        lambda: self.app.create(new.fight, started).version,
                        keep=self._keeper(key, new.fight, started.seed, CREATED),
                    )
                    if made is not None:
                        gm, viewer, version = made
                        answer = Created(
                            fight=new.fight, version=version, seed=started.seed, gm_token=gm,
                            viewer_token=viewer,
                        )  # fmt: skip
                        return answer, True
                # The fight is there. Made in between by a request with this key (another
                # process, on PostgreSQL)? Then its answer, committed with the fight, is ours.
                kept = self._recall(key, new.fight)
                if kept is not None:
                    return kept
                return self._recreate(new, started, key), False
            except AnswerTaken as taken:  # answered for this key in between: that answer
                kept = self._recall(key, new.fight)
                if kept is None:
                    raise answer_gone(self.store().version(new.fight)) from taken
                return kept

    def _recall(self, key: Keyed | None, fight: str) -> tuple[Created, bool] | None:
        """The answer kept for `key` (and whether it was a creation), or None."""
        if key is None:
            return None
        kept = self.answers.recall(
            key.key, key.request, fight_there=lambda: bool(self.store().version(fight))
        )
        if kept is None:
            return None
        status, first = kept
        return msgspec.json.decode(first, type=Created), status == CREATED

    def _keeper(self, key: Keyed | None, fight: str, seed: int, status: int) -> Keep | None:
        """What keeps the answer of a new fight (version 1: its `fight_started`) for `key`."""
        if key is None:
            return None

        def keep(db: Writer, gm: str, viewer: str) -> None:
            answer = Created(fight=fight, version=1, seed=seed, gm_token=gm, viewer_token=viewer)
            self.answers.keep_in(
                db, key.key, key.request, fight, status, msgspec.json.encode(answer)
            )

        return keep

    def _made_with_tokens(
        self, fight: str, make: Callable[[], int], keep: Keep | None = None
    ) -> tuple[str, str, int] | None:
        """Write a new fight (`make` appends its first events and returns its version) and
        issue its tokens: (gm, viewer, version), or None when another process made the fight in
        between (the caller answers as to a retry). `keep` writes, with the tokens, the answer
        for a retry with the same Idempotency-Key.

        Where the service's tables share the store's transactions (PostgreSQL) all commit
        together or not at all. Elsewhere the tokens (and kept answer) are written first and the
        fight's events last: that append is the one commit that makes the fight exist, so a
        crash at any point leaves either no fight (the tokens written for it name a fight nobody
        can reach, the answer kept is of no fight and is forgotten, and the retry replaces
        them) or a fight with its tokens and answer. Without a key the tokens cannot be shown
        twice (only their hashes are kept), so a retry gets a new pair and the earlier pair
        stops working.
        """
        store = self.store()
        if self.db.shares_transactions:
            try:
                with self.db.transaction() as db:
                    gm, viewer = self.tokens.issue_in(db, fight)
                    version = make()
                    if keep is not None:
                        keep(db, gm, viewer)
            except WoundlogError:
                if not store.version(fight):
                    raise
                return None
            return gm, viewer, version
        with self.db.transaction() as db:
            gm, viewer = self.tokens.issue_in(db, fight)
            if keep is not None:
                keep(db, gm, viewer)
        try:
            version = make()
        except BaseException as error:
            if not (isinstance(error, WoundlogError) and store.version(fight)):
                self.tokens.revoke(fight)  # no fight: its tokens are of no use
                raise
            return None  # another process created it in between
        return gm, viewer, version

    def branch(self, fight: str, asked: BranchRequest, owner: bool = False) -> tuple[Created, bool]:
        """The new fight `asked.as_`: `fight`'s log up to `asked.at`, then `asked.then`, with
        its own tokens (`replays.branch`). A fight already there under that name is 409 unless
        the caller's token covers it (`owner`: the admin's): then, as `create`, a branch there
        with exactly the log this one would write gets new tokens (200), another log is 409.
        A gm of `fight` may not re-token a fight of the same log the admin gave to others."""
        check_fight_id(asked.as_)
        if asked.then:
            self.app.check_batch_size(len(asked.then))
        then = [convert(item, index=index) for index, item in enumerate(asked.then)]
        self.fight(fight)  # an unknown fight is 404, as on every route
        with self._creation_lock(asked.as_):
            store = self.store()
            wanted = self.app.branch_log(fight, at=asked.at, then=then)
            if not store.version(asked.as_):
                made = self._made_with_tokens(
                    asked.as_,
                    lambda: self.app.branch(fight, asked.as_, at=asked.at, then=then).version,
                )
                if made is not None:
                    gm, viewer, version = made
                    return self._answer(asked.as_, version, gm, viewer), True
            if not owner:
                raise ConflictError(
                    f"fight `{asked.as_}` already exists: a branch never replaces or re-tokens "
                    "another fight; branch into a new name (a branch of yours whose answer was "
                    "lost: the admin can give it new tokens)",
                    current_version=store.version(asked.as_),
                )
            existing = [stored.event for stored in store.read(asked.as_)]
            if [canonical(e) for e in existing] != [canonical(e) for e in wanted]:
                raise ConflictError(
                    f"fight `{asked.as_}` already exists and is not this branch (of `{fight}` "
                    f"at #{asked.at or 'its end'}, then {len(then)} events): branch into "
                    "another name",
                    current_version=len(existing),
                )
            gm, viewer = self.tokens.issue(asked.as_)
            return self._answer(asked.as_, len(existing), gm, viewer), False

    def _answer(self, fight: str, version: int, gm: str, viewer: str) -> Created:
        first = next(self.store().read(fight, 1, 1)).event
        assert isinstance(first, FightStarted)
        return Created(
            fight=fight, version=version, seed=first.seed, gm_token=gm, viewer_token=viewer
        )

    def _recreate(self, new: NewFight, started: FightStarted, key: Keyed | None) -> Created:
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
        with self.db.transaction() as db:
            gm, viewer = self.tokens.issue_in(db, new.fight)
            answer = Created(
                fight=new.fight, version=opened.version, seed=first.seed, gm_token=gm,
                viewer_token=viewer,
            )  # fmt: skip
            if key is not None:
                encoded = msgspec.json.encode(answer)
                self.answers.keep_in(db, key.key, key.request, new.fight, OK, encoded)
        return answer

    def _creation_lock(self, fight: str) -> threading.Lock:
        """One creation of a fight at a time in this process, so two requests for one new fight
        cannot interleave between its tokens and its first event (a few locks, shared by hash:
        creations are rare, and the set stays the same size however many fights there are)."""
        return self._create_locks[hash(fight) % CREATE_LOCKS]

    def append(self, fight: str, body: object, expected_version: int | None) -> Appended:
        items = self.read_batch(body)
        return self.app.record(fight, items, expected_version=expected_version)

    def read_batch(self, body: object) -> list[Event | RefusedError]:
        """One event or a list of them, each validated: its Event, or why it is refused."""
        return self.app.read(body if isinstance(body, list) else [body])

    def undo(
        self, fight: str, event: str | None, reason: str, by: str | None, undo_id: str | None
    ) -> Appended:
        return self.app.undo(fight, event, reason=reason, by=by, undo_id=undo_id)

    # --- managing ---------------------------------------------------------------------------

    def delete(self, fight: str) -> bool:
        """Delete the fight with its tokens, cursors, kept answers and tickets (one store
        transaction: `Store.delete_fight`); False if it was not there."""
        check_fight_id(fight)
        with self._creation_lock(fight):  # not between a creation's tokens and its events
            gone = self.app.delete(fight)
        self.folded.forget(fight)  # a later fight of the same id starts from nothing
        return gone

    def reissue(self, fight: str) -> Created:
        """A new gm and viewer pair for the fight; the old pair stops working."""
        opened = self.fight(fight)
        gm, viewer = self.tokens.issue(fight)
        return self._answer(fight, opened.version, gm, viewer)

    def revoke(self, fight: str) -> None:
        self.fight(fight)
        self.tokens.revoke(fight)

    def hand_out(self, fight: str, name: str, role: Role, by: Grant) -> Issued:
        return self.app.hand_out(fight, self.tokens, role, name, by.role)

    def tokens_of(self, fight: str) -> list[TokenInfo]:
        return self.app.tokens_of(fight, self.tokens)

    def revoke_named(self, fight: str, name: str, by: Grant) -> None:
        self.app.revoke_token(fight, self.tokens, name, by.role)

    def listing(self, only: str | None, offset: int, limit: int) -> FightsPage:
        """The fights, in the store's order, from `offset`, at most `limit` (`only`: that one
        fight alone, for a token of one fight)."""
        return self.app.fights(offset, min(limit, LIST_MAX), only=only)

    # --- importing -------------------------------------------------------------------------

    def import_records(
        self, fight: str, fmt: str, body: object, campaign: str | None = None
    ) -> Appended:
        """Convert another program's records with its importer and append the events, then
        record the fight in `campaign` if named (`Application.import_records`)."""
        records = body if isinstance(body, list) else [body]
        return self.app.import_records(fight, fmt, records, campaign=campaign)

    @contextmanager
    def _held_cursors(self, store: Store, fight: str, fmt: str) -> Iterator[ImportCursors]:
        """One import at a time per fight and format: in this process by a lock, in every
        process on a PostgreSQL database by the service database's (where the cursor also
        commits with the events)."""
        with self._import_lock(fight, fmt), self.db.import_lock(fight, fmt):
            yield self.cursors

    def _import_lock(self, fight: str, fmt: str) -> threading.Lock:
        with self._locks_guard:
            return self._import_locks.setdefault((fight, fmt), threading.Lock())

    # --- reading ---------------------------------------------------------------------------

    def state(self, fight: str, at: int | None) -> FightState[Any]:
        return self.app.state(fight, at)

    def events(self, fight: str, first: int, limit: int) -> EventsPage:
        return self.app.events(fight, first, min(limit, PAGE_MAX))

    def changes_from(self, fight: str, first: int, limit: int) -> list[Changes]:
        """Up to `limit` events' changes from seq `first`, as each was appended (for the stream)."""
        return self.app.changes_from(fight, first, limit)

    def version(self, fight: str) -> int:
        return self.app.version(fight)

    def odds(self, fight: str, asked: OddsRequest, stop: Callable[[], None] | None = None) -> Odds:
        """The odds of a what-if from the fight now (or at `asked.at`), within WORK_LIMIT reducer
        steps and ODDS_LIVE paths held, exact or estimated; a question past either is refused
        (422) when the work reaches it, saying what would be answered. `stop` is called as the
        work goes and may raise to end it (the request's deadline)."""
        state = self.state(fight, asked.at)
        events = [convert(item, index=index) for index, item in enumerate(asked.events)]
        try:
            whatif = self.app.whatif(state, events, hits=asked.hit, ticks=asked.ticks)
        except NothingAsked:
            raise UsageError("say what happens: `events`, `hit` or `ticks`") from None
        self.app.check_batch_size(len(whatif))
        most = max(1, WORK_LIMIT // (SAMPLE_STEPS * len(whatif)))
        if asked.samples is not None and asked.samples > most:
            raise OddsRefused(
                f"samples={asked.samples}: a what-if of {len(whatif)} events is estimated from "
                f"at most {most:,} samples here (ask for fewer, or about fewer events)",
                most_samples=most,
            )
        budget = Budget(WORK_LIMIT, live=ODDS_LIVE, stop=stop)
        try:
            return self.app.odds(
                state, whatif, characters=asked.character, samples=asked.samples, budget=budget
            )
        except OddsTooLarge as too_large:
            way_out = (
                "ask for fewer samples, or about fewer events"
                if asked.samples is not None
                else f"ask about fewer events, or estimate it with samples=N (at most {most:,} "
                "here)"
            )
            raise OddsRefused(
                f"this what-if takes {too_large.figure}: {way_out}", most_samples=most
            ) from None


class OddsRefused(UsageError):
    """An odds question past the service's bound, with the most samples an estimate of the
    same what-if may take here (`most_samples` of the 422): the page offers that figure, so
    WORK_LIMIT and SAMPLE_STEPS have no copy outside this module."""

    def __init__(self, message: str, *, most_samples: int) -> None:
        super().__init__(message)
        self.most_samples = most_samples


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


def _cursor_lost(fight: str, fmt: str, error: Exception) -> None:
    """The service's import answer is of the events alone: a cursor not kept is the operator's
    to see, in the log."""
    log.error("import to `%s` (%s) committed; cursor not saved", fight, fmt, exc_info=error)
