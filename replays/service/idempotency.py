"""`POST /fights` with an `Idempotency-Key` header: a retry gets the first answer again, tokens
and all (issue 13; the header of draft-ietf-httpapi-idempotency-key-header).

The first answer holds the fight's only copy of its tokens, and the service keeps tokens only as
hashes; so the answer is kept with its key, for `KEEP_S`, and is written in the same transaction
as the tokens (section "Writing" of fights.py says how that makes it exactly the answer of the
fight the store holds). It is kept encrypted under the key itself: the row is found by a hash of
the key, and its answer is XORed with a SHAKE-256 stream drawn from the key, a one-time pad
since each key encrypts one answer. Someone who reads the database without knowing a key learns
no token from it; which is why a key should be random (a UUID), as the draft asks.

The same key with another request is refused (422, as the draft says); a key whose fight is no
longer there (deleted; or a creation that crashed before its events were written), or whose
tokens were reissued or revoked since, is forgotten and the request is made anew.
"""

from __future__ import annotations

import hashlib
import time

from woundlog.events import UsageError

from .database import Db, Writer

KEEP_S = 24 * 3600
"""How long a first answer is kept for its retries."""
MAX_KEY = 255
HEADER = "Idempotency-Key"


class KeyReused(UsageError):
    """An Idempotency-Key sent again with another request (422)."""


def check_key(key: str) -> str:
    if not 1 <= len(key) <= MAX_KEY or not key.isascii() or not key.isprintable():
        raise UsageError(
            f"{HEADER} must be 1 to {MAX_KEY} printable ASCII characters (a UUID is best)"
        )
    return key


def request_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _key_hash(key: str) -> str:
    return hashlib.sha256(b"woundlog idempotency key\0" + key.encode()).hexdigest()


def _pad(key: str, data: bytes) -> bytes:
    stream = hashlib.shake_256(b"woundlog idempotency answer\0" + key.encode()).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


class Answers:
    def __init__(self, db: Db) -> None:
        self._db = db

    def recall(self, key: str, request: str, fight_there: bool) -> tuple[int, bytes] | None:
        """(status, answer) first given to this key's request, or None if none is kept (or
        the one kept no longer holds: `fight_there` is whether its fight is in the store)."""
        rows = self._db.execute(
            "SELECT request, status, answer FROM service_answers WHERE key = ? AND expires > ?",
            (_key_hash(key), time.time()),
        )
        if not rows:
            return None
        sent, status, answer = rows[0]
        if sent != request:
            raise KeyReused(
                f"this {HEADER} was sent with another request: a key stands for one request; "
                "send a new key for a new request"
            )
        if not fight_there:  # a creation that never finished, or a fight deleted since
            self._db.execute("DELETE FROM service_answers WHERE key = ?", (_key_hash(key),))
            return None
        return int(status), _pad(key, bytes(answer))

    def keep_in(
        self, db: Writer, key: str, request: str, fight: str, status: int, answer: bytes
    ) -> None:
        """Keep `answer` for the key's retries, in the caller's transaction `db`; drop what has
        expired on the way, so the table holds a day of keys at most."""
        now = time.time()
        db.execute("DELETE FROM service_answers WHERE expires <= ?", (now,))
        db.execute(
            "INSERT INTO service_answers (key, fight, request, status, answer, expires)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET fight = excluded.fight,"
            " request = excluded.request, status = excluded.status,"
            " answer = excluded.answer, expires = excluded.expires",
            (_key_hash(key), fight, request, status, _pad(key, answer), now + KEEP_S),
        )
