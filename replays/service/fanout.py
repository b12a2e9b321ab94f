"""One change fanned out once (issue 42): each event of a fight is read from the store, folded,
redacted and encoded as a stream's `changes` message once per view (the GM's, and each
players' view a viewer is shown), in this process, and the bytes are handed to every stream of
the fight. A follower's own work per event is the check that its token still holds and the
write of those bytes.

Across processes (PostgreSQL, several `woundlog serve`), the store's NOTIFY wakes each
process's streams (stream.py's `Listener`) and each process makes its messages once: the
messages are a cache of what the log says, never a second truth sent between processes.

Each fight keeps its newest `KEEP` events (a follower that reconnects within them is served
from memory); the `FIGHTS` fights followed most recently are kept. A stream that starts before
what is kept (a page opened long after, `from=1`) is served from the store, as before, and
makes nothing kept. What is kept is of one log: a stream that opens checks that the fight's
first event is the one they were made from (a fight deleted and made again under its id by
another process is another log), and a delete, a rename or a change of the players' view
through this server forgets them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from litestar.response import ServerSentEventMessage

from ..application import Application
from ..application.following import followed, hiding
from ..application.redaction import MonsterHp
from ..fight import Applied

KEEP = 200
"""How many of a fight's newest events are kept, with the messages made of them."""
FIGHTS = 256
"""How many fights are kept; the one followed least recently goes first."""
GM = "gm"
"""The view of a GM's token: the whole of each event."""
VIEWER = "viewer"
"""The view of a viewer's token: each event as the players' view stood when it was read."""


@dataclass
class Shared(ServerSentEventMessage):
    """An event's `now` and `changes` messages, their bytes made once and written to every
    stream that is sent them."""

    block: bytes = b""

    def encode(self) -> bytes:
        return self.block


def shared(seq: int, now: bytes, changes: bytes) -> Shared:
    """Event `seq`'s two messages in one write: `now` without an id, then `changes` with it."""
    block = b"event: now\r\ndata: %s\r\n\r\nid: %d\r\nevent: changes\r\ndata: %s\r\n\r\n" % (
        now,
        seq,
        changes,
    )
    return Shared(data=None, id=seq, event="changes", block=block)


class Batch(NamedTuple):
    """A stream's next messages, and whether there may be more right behind them (else the
    stream waits till it is woken)."""

    messages: list[Shared]
    more: bool


NOTHING = Batch([], more=False)


@dataclass
class Feed:
    """One fight's newest events, each with the players' view it was read under, and the
    messages made of them by view."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    steps: dict[int, Applied] = field(default_factory=dict)
    monsters: dict[int, MonsterHp] = field(default_factory=dict)
    made: dict[tuple[int, str], Shared] = field(default_factory=dict)
    origin: Any = None  # the fight's first event as stored, which tells its log from another
    version: int = 0  # the fight's version when the store was last read
    heard: int = -1  # how many appends the notifier had heard of when the store was last read
    encoded: int = 0  # how many messages were made: what the tests and the benchmark count

    def message(self, seq: int, view: str) -> Shared:
        """The message of event `seq` as `view` (GM, or a viewer: the players' view of the
        event) shows it, made the first time it is asked for."""
        if view == VIEWER:
            view = self.monsters[seq].value
        found = self.made.get((seq, view))
        if found is not None:
            return found
        applied = self.steps[seq]
        redaction = None if view == GM else hiding(MonsterHp(view), applied)
        if redaction is None and view != GM:
            made = self.message(seq, GM)  # nothing hidden: the GM's very bytes
        else:
            made = shared(seq, *followed(applied, redaction))
            self.encoded += 1
        self.made[(seq, view)] = made
        return made

    def keep(self, steps: list[Applied], monsters: MonsterHp) -> None:
        for applied in steps:
            self.steps[applied.stored.seq] = applied
            self.monsters[applied.stored.seq] = monsters
        newest = max(self.steps)
        for seq in [seq for seq in self.steps if seq <= newest - KEEP]:
            del self.steps[seq], self.monsters[seq]
            for view in (GM, *(m.value for m in MonsterHp)):
                self.made.pop((seq, view), None)

    def forget(self) -> None:
        self.steps.clear()
        self.monsters.clear()
        self.made.clear()
        self.origin = None
        self.version, self.heard = 0, -1


class Fanout:
    """Every fight's `Feed` in this process; its methods are called from worker threads."""

    def __init__(self, fights: int = FIGHTS) -> None:
        self.fights = fights
        self._feeds: OrderedDict[str, Feed] = OrderedDict()
        self._lock = threading.Lock()
        self.made = 0
        """How many messages were made (folded, redacted, encoded): what the tests and the
        benchmark count."""

    def _feed(self, fight: str) -> Feed:
        with self._lock:
            feed = self._feeds.get(fight)
            if feed is None:
                feed = self._feeds[fight] = Feed()
                while len(self._feeds) > self.fights:
                    self._feeds.popitem(last=False)
            self._feeds.move_to_end(fight)
            return feed

    def forget(self, fight: str) -> None:
        """Drop what was made of the fight (deleted, renamed, its players' view changed)."""
        with self._lock:
            feed = self._feeds.pop(fight, None)
        if feed is not None:
            with feed.lock:
                feed.forget()

    def read(
        self,
        app: Application,
        fight: str,
        first: int,
        limit: int,
        view: str,
        *,
        heard: int,
        opening: bool = False,
        poll: bool = False,
    ) -> Batch:
        """In a worker thread: the messages of events `first` on (at most `limit`) as `view`
        (GM, or VIEWER: each event's players' view) is shown them, none when there are none
        yet, and whether there may be more. `heard` is how many appends to the fight the
        caller's notifier had heard of when the caller began to wait (`Notifier.heard`): the
        store is read only if it was not read since, or if the caller `poll`s (appends by
        processes not heard of) or is `opening`
        (then what is kept is first checked to be of the fight's log). FightNotFound for a
        fight not there."""
        feed = self._feed(fight)
        with feed.lock:
            encoded = feed.encoded
            try:
                return self._read(app, feed, fight, first, limit, view, heard, opening, poll)
            finally:
                self.made += feed.encoded - encoded

    def _read(
        self,
        app: Application,
        feed: Feed,
        fight: str,
        first: int,
        limit: int,
        view: str,
        heard: int,
        opening: bool,
        poll: bool,
    ) -> Batch:
        if opening:
            origin = app.origin(fight)
            if origin != feed.origin:
                feed.forget()
                feed.origin = origin
        if first not in feed.steps:
            if first > feed.version and feed.heard >= heard and not (opening or poll):
                return NOTHING  # the store was read since the caller last heard of an append
            following = app.following(fight, first, limit)
            feed.heard = max(feed.heard, heard)
            feed.version = max(feed.version, following.version)
            if not following.steps:
                return NOTHING
            newest = max(feed.steps, default=0)
            if feed.steps and first < min(feed.steps):  # before what is kept: not kept
                apart = Feed(origin=feed.origin)
                apart.keep(following.steps, following.monsters)
                sent = [apart.message(a.stored.seq, view) for a in following.steps]
                self.made += apart.encoded
                return Batch(sent, more=True)
            if feed.steps and first > newest + 1:  # what is kept is old: start again here
                feed.steps.clear()
                feed.monsters.clear()
                feed.made.clear()
            feed.keep(following.steps, following.monsters)
        out: list[Shared] = []
        seq = first
        while seq in feed.steps and len(out) < limit:
            out.append(feed.message(seq, view))
            seq += 1
        # the store was read since the caller began to wait, and it had no more: nothing to
        # read again before the caller is woken
        return Batch(out, more=seq <= feed.version or feed.heard < heard)
