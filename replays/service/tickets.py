"""Stream tickets: what a browser's `EventSource` opens the stream with, since it cannot send an
`Authorization` header, and a token must never be put in a URL (URLs end up in logs, histories
and Referer headers).

`POST /fights/{fight}/stream-ticket` (viewer or gm token) gives a ticket that opens
`GET /fights/{fight}/stream?ticket=...` of that one fight, read-only, for `TICKET_S` seconds.
Within them it may open the stream again (an EventSource reconnects by itself after a dropped
connection); after them a page asks for a new one. Kept in the service's tables as hashes, like
tokens, so every process of a PostgreSQL deployment accepts it, and it goes with its fight's
tokens when they are revoked and with its fight when it is deleted.
"""

from __future__ import annotations

import time

from ..application.tokens import digest, new_token
from ..tables import Db

TICKET_S = 60


class Tickets:
    def __init__(self, db: Db) -> None:
        self._db = db

    def issue(self, fight: str) -> str:
        ticket = new_token()
        now = time.time()
        with self._db.transaction() as db:
            db.execute("DELETE FROM service_tickets WHERE expires <= ?", (now,))
            db.execute(
                "INSERT INTO service_tickets (hash, fight, expires) VALUES (?, ?, ?)",
                (digest(ticket), fight, now + TICKET_S),
            )
        return ticket

    def fight_of(self, ticket: str) -> str | None:
        """The fight an unexpired `ticket` opens, or None."""
        rows = self._db.execute(
            "SELECT fight FROM service_tickets WHERE hash = ? AND expires > ?",
            (digest(ticket), time.time()),
        )
        return str(rows[0][0]) if rows else None
