"""What only the HTTP layer keeps beside the application: the worker threads' stores, the
service's tables (tokens, import cursors, kept answers, stream tickets), creating a fight or a
branch with its tokens safely retried (creation locks, Idempotency-Key), one import of a fight
and format at a time, and the fold cache. Every call here blocks, and runs in a worker thread;
every use case is the application's (`app`), which the routes call directly.

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

import msgspec

from woundlog.events import (
    ConflictError,
    Event,
    FightStarted,
    WoundlogError,
    canonical,
    convert,
)
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.stores import Store, open_store
from woundlog.events.stores.side import ImportCursors

from ..application import Application, NewFight
from ..application.tokens import Tokens
from ..foldcache import FoldCache
from .idempotency import Answers, AnswerTaken, answer_gone, answers_secret
from .limits import BRANCH_MAX
from .schemas import BranchRequest, Created
from .tickets import Tickets

log = logging.getLogger("woundlog.service")

CREATE_LOCKS = 16
CREATED, OK = 201, 200


class Keyed(msgspec.Struct, frozen=True):
    """A request's Idempotency-Key, and a digest of the request it came with."""

    key: str
    request: str


Keep = Callable[[str, str], None]
"""Writes, in the transaction of a new fight's tokens, what a retry with its key is answered."""


class Fights:
    """The application over the service's store, and what the HTTP layer keeps beside it."""

    def __init__(self, store_url: str | None, admin_token: str, *, max_batch: int) -> None:
        self.store_url = store_url
        self._local = threading.local()
        self._import_locks: dict[tuple[str, str], threading.Lock] = {}
        self._create_locks = [threading.Lock() for _ in range(CREATE_LOCKS)]
        self._locks_guard = threading.Lock()
        self.folded = FoldCache()
        self.store().side.check()  # opening checks the URL; this, the tables beside the fights
        self.tokens = Tokens(self.store, admin_token)
        self.answers = Answers(self.store, answers_secret(self.store().side.path, admin_token))
        self.tickets = Tickets(self.store)
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
        if store is not None and store.broken:
            store.close()  # its PostgreSQL connection was lost: reconnect
            store = None
        if store is None:
            store = self._local.store = open_store(self.store_url)
        return store

    def close(self) -> None:
        pass  # each worker thread's store is its own, with the tables beside its fights

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

        def keep(gm: str, viewer: str) -> None:
            answer = Created(fight=fight, version=1, seed=seed, gm_token=gm, viewer_token=viewer)
            self.answers.keep_in(key.key, key.request, fight, status, msgspec.json.encode(answer))

        return keep

    def _made_with_tokens(
        self, fight: str, make: Callable[[], int], keep: Keep | None = None
    ) -> tuple[str, str, int] | None:
        """Write a new fight (`make` appends its first events and returns its version) and
        issue its tokens: (gm, viewer, version), or None when another process made the fight in
        between (the caller answers as to a retry). `keep` writes, with the tokens, the answer
        for a retry with the same Idempotency-Key.

        Where the store's transactions hold its events (`Store.transactional`: SQLite,
        PostgreSQL) all commit together or not at all. Elsewhere (JSON Lines) the tokens (and
        kept answer) are written first and the fight's events last: that append is the one
        commit that makes the fight exist, so a crash at any point leaves either no fight (the
        tokens written for it name a fight nobody can reach, the answer kept is of no fight and
        is forgotten, and the retry replaces them) or a fight with its tokens and answer.
        Without a key the tokens cannot be shown twice (only their hashes are kept), so a retry
        gets a new pair and the earlier pair stops working.
        """
        store = self.store()
        if store.transactional:
            try:
                with store.transaction():
                    gm, viewer = self.tokens.issue_in(fight)
                    version = make()
                    if keep is not None:
                        keep(gm, viewer)
            except WoundlogError:
                if not store.version(fight):
                    raise
                return None
            return gm, viewer, version
        with store.transaction():
            gm, viewer = self.tokens.issue_in(fight)
            if keep is not None:
                keep(gm, viewer)
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
        self.app.fight(fight)  # an unknown fight is 404, as on every route
        with self._creation_lock(asked.as_):
            store = self.store()
            wanted = self.app.branch_log(fight, at=asked.at, then=then, most=BRANCH_MAX)
            if not store.version(asked.as_):
                made = self._made_with_tokens(
                    asked.as_,
                    lambda: (
                        self.app.branch(
                            fight, asked.as_, at=asked.at, then=then, most=BRANCH_MAX
                        ).version
                    ),
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
        opened = self.app.fight(new.fight)
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
        with self.store().transaction():
            gm, viewer = self.tokens.issue_in(new.fight)
            answer = Created(
                fight=new.fight, version=opened.version, seed=first.seed, gm_token=gm,
                viewer_token=viewer,
            )  # fmt: skip
            if key is not None:
                encoded = msgspec.json.encode(answer)
                self.answers.keep_in(key.key, key.request, new.fight, OK, encoded)
        return answer

    def _creation_lock(self, fight: str) -> threading.Lock:
        """One creation of a fight at a time in this process, so two requests for one new fight
        cannot interleave between its tokens and its first event (a few locks, shared by hash:
        creations are rare, and the set stays the same size however many fights there are)."""
        return self._create_locks[hash(fight) % CREATE_LOCKS]

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
        opened = self.app.fight(fight)
        gm, viewer = self.tokens.issue(fight)
        return self._answer(fight, opened.version, gm, viewer)

    def revoke(self, fight: str) -> None:
        """Revoke the fight's gm and viewer pair, and its stream tickets."""
        self.app.fight(fight)
        self.tokens.revoke(fight)

    # --- importing -------------------------------------------------------------------------

    @contextmanager
    def _held_cursors(self, store: Store, fight: str, fmt: str) -> Iterator[ImportCursors]:
        """One import at a time per fight and format: in this process by a lock, in every
        process on a PostgreSQL database by the store's (`Store.import_lock`, where the cursor
        also commits with the events)."""
        with self._import_lock(fight, fmt), store.import_lock(fight, fmt):
            yield store.side.cursors

    def _import_lock(self, fight: str, fmt: str) -> threading.Lock:
        with self._locks_guard:
            return self._import_locks.setdefault((fight, fmt), threading.Lock())


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
