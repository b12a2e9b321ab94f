"""`GET /fights/{fight}/stream`: every event's changes, in seq order, as server-sent events.

The stream reads the log, not a queue of messages: each SSE message is one event's changes,
its `id` the event's seq, recomputed from the store (`Fight.changes_from`). So the order is the
log's order whatever order concurrent appends finish in, a client that reconnects with
`Last-Event-ID` (or `?from=N`) misses nothing, and appends made by another process (the CLI) show
up too. An append through this server wakes the fight's streams at once; anything else is seen
by polling every `POLL_S` seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec
from anyio import to_thread
from litestar.response import ServerSentEventMessage

from .fights import Fights

POLL_S = 1.0
HEARTBEAT_S = 15.0  # a comment now and then, so proxies and clients see the line is alive
CHUNK = 200  # events' changes computed per read


class Notifier:
    """Wakes the streams of a fight when an append through this server has been written.

    Lives on the event loop: `notify` and `waiter` are called from it only.
    """

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def waiter(self, fight: str) -> asyncio.Event:
        """Take this before reading: it is set by any append notified after that."""
        return self._events.setdefault(fight, asyncio.Event())

    def notify(self, fight: str) -> None:
        event = self._events.pop(fight, None)
        if event is not None:
            event.set()


async def changes_stream(
    fights: Fights, notifier: Notifier, fight: str, first: int
) -> AsyncIterator[ServerSentEventMessage]:
    """SSE messages from seq `first` on, forever (until the client goes away)."""
    quiet = 0.0
    while True:
        wake = notifier.waiter(fight)
        batch = await to_thread.run_sync(fights.changes_from, fight, first, CHUNK)
        for changes in batch:
            yield ServerSentEventMessage(
                data=msgspec.json.encode(changes).decode(), event="changes", id=changes.seq
            )
            first = changes.seq + 1
        if batch:
            quiet = 0.0
            continue  # there may be more right behind
        try:
            await asyncio.wait_for(wake.wait(), timeout=POLL_S)
        except TimeoutError:
            quiet += POLL_S
            if quiet >= HEARTBEAT_S:
                quiet = 0.0
                yield ServerSentEventMessage(comment="still here", data=None)
