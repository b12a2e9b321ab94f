"""Stream tickets: what a browser's `EventSource` opens the stream with, since it cannot send an
`Authorization` header, and a token must never be put in a URL (URLs end up in logs, histories
and Referer headers).

`POST /fights/{fight}/stream-ticket` (viewer or gm token) gives a ticket that opens
`GET /fights/{fight}/stream?ticket=...` of that one fight, read-only, for `TICKET_S` seconds.
Within them it may open the stream again (an EventSource reconnects by itself after a dropped
connection); after them a page asks for a new one. Kept beside the fights in the store
(`Store.side`) as hashes, like tokens, so every process of a PostgreSQL deployment accepts it,
and it goes with its fight's tokens when they are revoked and with its fight when it is deleted.
It keeps the hash of the token it was issued for: a stream it opened ends when that token is
revoked (stream.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from woundlog.events.stores import Store
from woundlog.events.stores.side import StreamTicket

from ..application.tokens import digest, new_token

TICKET_S = 60


class Tickets:
    """The tickets, kept beside the fights in the calling thread's store (`store_of`)."""

    def __init__(self, store_of: Callable[[], Store]) -> None:
        self._store_of = store_of

    def issue(self, fight: str, token: str) -> str:
        """A new ticket of `fight`, issued for the bearer `token`: a stream it opens ends when
        that token is revoked."""
        ticket = new_token()
        now = time.time()
        kept = StreamTicket(digest(ticket), fight, now + TICKET_S, digest(token))
        self._store_of().side.tickets.put(kept, now)
        return ticket

    def issued_for(self, ticket: str) -> str | None:
        """The hash of the token an unexpired `ticket` was issued for; None if it is not known
        (expired, or issued before tickets kept it)."""
        kept = self._store_of().side.tickets.find(digest(ticket), time.time())
        return None if kept is None else kept.token

    def fight_of(self, ticket: str) -> str | None:
        """The fight an unexpired `ticket` opens, or None."""
        return self._store_of().side.tickets.fight_of(digest(ticket), time.time())
