"""`GET /fights/{fight}/stream`: every event's changes, in seq order, as server-sent events.

The stream reads the log, not a queue of messages: each event is sent as two SSE messages, `now`
(what the event made of the fight, for a page to apply: application/following.py) and `changes`
(its changes, as the append answered them; its `id` the event's seq), made from the store. So
the order is the log's order whatever order concurrent appends finish in, a client that
reconnects with `Last-Event-ID` (or `?from=N`) misses nothing, and appends made by another
process (the CLI) show up too. Each event's messages are made once per view for every stream of
the fight in this process (`Notifier.fanout`, fanout.py): a stream's own work per event is the
check that its token still holds and the write. An append through this server wakes the fight's
streams at once. On a PostgreSQL store so does every append committed by any process (the
store's NOTIFY, heard by one LISTEN connection per server: `Listener`), and the streams only
look again every `HEARTBEAT_S` in case a notification was lost with a connection; on other
stores, appends by other processes are seen by polling every `POLL_S` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import NamedTuple

import msgspec
from anyio import to_thread
from litestar.response import ServerSentEventMessage

from woundlog.events import UsageError
from woundlog.events.stores import Hearing, HearingLost
from woundlog.events.stores.reach import OutOfReach

from ..application import Application, FightNotFound
from .fanout import GM, NOTHING, VIEWER, Batch, Fanout

log = logging.getLogger("woundlog.service")

POLL_S = 1.0
RECONNECT_S = 1.0  # a lost LISTEN connection is opened again after this
RECONNECT_MS = 1000  # what a stream ended by a lost database tells a client to wait
HEARTBEAT_S = 15.0  # a comment now and then, so proxies and clients see the line is alive
CHUNK = 200  # events' changes computed per read
REVOKED_WITHIN_S = 0.5
"""How often a waiting stream asks whether what opened it is still allowed: a token revoked by
another process (another `woundlog serve` on the same PostgreSQL database, `woundlog share
--revoke`) ends its streams within this (and the time to ask); one revoked through this server
wakes them at once (`Notifier.notify`)."""


class Notifier:
    """Wakes the streams of a fight when an append through this server has been written, and
    keeps what was made of the fight's events for all of them (`fanout`: fanout.py).

    Lives on the event loop: `notify`, `waiter` and `heard` are called from it only.
    """

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._heard: dict[str, int] = {}
        self.hears_every_process = False  # set while a Listener is connected
        self.fanout = Fanout()

    @property
    def poll_s(self) -> float:
        """How long a stream waits before it looks at the store again unwoken."""
        return HEARTBEAT_S if self.hears_every_process else POLL_S

    def waiter(self, fight: str) -> asyncio.Event:
        """Take this before reading: it is set by any append notified after that."""
        return self._events.setdefault(fight, asyncio.Event())

    def heard(self, fight: str) -> int:
        """How many times the fight's streams were woken so far (`Fanout.read` reads the store
        again only for a stream woken since it last did)."""
        return self._heard.get(fight, 0)

    def notify(self, fight: str) -> None:
        self._heard[fight] = self._heard.get(fight, 0) + 1
        event = self._events.pop(fight, None)
        if event is not None:
            event.set()

    def notify_all(self) -> None:
        for fight in list(self._events):
            self.notify(fight)

    def seen_otherwise(self, fight: str) -> None:
        """The fight was deleted or renamed, or what its viewers see changed: what was made of
        its events is forgotten, and its streams look again now."""
        self.fanout.forget(fight)
        self.notify(fight)


class Listener:
    """Hears the appends any process commits to a store several processes write to (the
    store's `Hearing`: PostgreSQL's LISTEN) and wakes the streams of each fight appended to;
    hears again by itself when the connection is lost."""

    def __init__(self, hear: Hearing, notifier: Notifier) -> None:
        self.hear = hear
        self.notifier = notifier
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            try:
                async for fight in self.hear():
                    if fight is None:  # listening now
                        self.notifier.hears_every_process = True
                        self.notifier.notify_all()  # whatever was missed while not listening
                    else:
                        self.notifier.notify(fight)
            except HearingLost as error:
                log.warning("live streams: LISTEN connection lost (%s); reconnecting", error)
            self.notifier.hears_every_process = False
            self.notifier.notify_all()
            await asyncio.sleep(RECONNECT_S)


def first_streamed(version: int, fight: str, from_: int | None, last_event_id: int | None) -> int:
    """The seq a stream of a fight of `version` events starts at: `from`, else after
    `Last-Event-ID`, else the next append. Past the next append is refused: a stream would
    wait, silently, for events that may never come."""
    if from_ is not None:
        first = from_
    elif last_event_id is not None:
        first = last_event_id + 1
    else:
        first = version + 1
    if first > version + 1:
        asked = f"from={from_}" if from_ is not None else f"Last-Event-ID {last_event_id}"
        raise UsageError(
            f"{asked}: fight `{fight}` has events 1 to {version}; a stream starts at one of "
            f"them, or at {version + 1} for the next"
        )
    return first


def _always() -> bool:
    return True


def _look(
    app: Application,
    fanout: Fanout,
    fight: str,
    first: int,
    allowed: Callable[[], bool],
    view: str,
    read: Read,
    heard: int,
) -> Batch | None:
    """In a worker thread: None if what opened the stream no longer allows it; else the next
    messages as the stream's `view` shows them (none unless the stream `read`s). The check
    comes first, so nothing is delivered after a revocation the check could see.
    FightNotFound for a fight deleted."""
    if not allowed():
        if not app.exists(fight):
            raise FightNotFound(fight)
        return None
    if not read.read:
        return NOTHING
    return fanout.read(
        app, fight, first, CHUNK, view, heard=heard, opening=read.opening, poll=read.poll
    )


class Read(NamedTuple):
    """Whether a stream reads this time (else only the check), and how (`Fanout.read`)."""

    read: bool
    opening: bool = False
    poll: bool = False


async def changes_stream(
    app: Application,
    notifier: Notifier,
    fight: str,
    first: int,
    allowed: Callable[[], bool] = _always,
    *,
    viewer: bool = False,
) -> AsyncIterator[ServerSentEventMessage]:
    """SSE messages from seq `first` on, until the client goes away, or the fight is deleted:
    then a `deleted` message ends the stream (a client must not reconnect to a fight that is no
    more, nor to another one made later under its id); or until what opened it no longer
    `allowed` (its token revoked, in this process or another): then a `revoked` message ends it,
    asked before every delivery and every `REVOKED_WITHIN_S` while the stream waits; or until
    the database is lost (a PostgreSQL restart): then the stream ends whole, for the client to
    reconnect. Each event's message is made once for every stream of the fight in this process
    (`notifier.fanout`), as a `viewer` is shown it (redacted: application/following.py) or
    whole."""
    view = VIEWER if viewer else GM
    quiet = 0.0  # since the last message or comment
    unread = 0.0  # since the store was last read
    read = Read(True, opening=True)
    while True:
        wake = notifier.waiter(fight)
        heard = notifier.heard(fight)  # after the waiter: any append after this sets it
        try:
            batch = await to_thread.run_sync(
                _look, app, notifier.fanout, fight, first, allowed, view, read, heard
            )
        except FightNotFound:
            notifier.fanout.forget(fight)
            yield ServerSentEventMessage(
                data=msgspec.json.encode({"fight": fight}).decode(), event="deleted"
            )
            return
        except OutOfReach as error:
            # The database restarted (AdminShutdown) or is out of reach: the response's head is
            # long sent, so no 503 can be answered; the stream ends whole instead of with its
            # body cut mid-chunk, and the client reconnects (EventSource by itself, after
            # `retry` ms, with Last-Event-ID; any client with `from`), missing nothing.
            log.warning("a stream of `%s` ended: the database is out of reach (%s)", fight,
                        str(error).strip())  # fmt: skip
            yield ServerSentEventMessage(
                comment=f"the database is out of reach: reconnect from {first}",
                retry=RECONNECT_MS,
                data=None,
            )
            return
        if batch is None:
            log.info("a stream of `%s` ended: the token that opened it was revoked", fight)
            yield ServerSentEventMessage(
                data=msgspec.json.encode({"fight": fight}).decode(), event="revoked"
            )
            return
        for message in batch.messages:
            yield message
            first = int(message.id or 0) + 1
        if batch.messages:
            quiet = unread = 0.0
        if batch.more:
            read = Read(True)  # there may be more right behind
            continue
        if read.read:
            unread = 0.0
        try:
            await asyncio.wait_for(wake.wait(), timeout=REVOKED_WITHIN_S)
            read = Read(True)
        except TimeoutError:
            quiet += REVOKED_WITHIN_S
            unread += REVOKED_WITHIN_S
            # else only the check, the store's log unread
            read = Read(unread >= notifier.poll_s, poll=True)
            if quiet >= HEARTBEAT_S:
                quiet = 0.0
                yield ServerSentEventMessage(comment="still here", data=None)
