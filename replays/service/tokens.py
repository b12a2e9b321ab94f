"""Bearer tokens: one admin token for the server, a gm and a viewer token per fight.

Tokens are 32 random bytes, so a plain sha256 of each is enough to keep them unusable if the
database leaks (no salt or slow hash needed: nothing to brute-force). Only hashes are stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from enum import StrEnum

from .database import Db, Writer

PASSED_ON = ("service_tokens", "service_answers", "service_tickets")
"""What a fight's tokens open, all replaced or revoked with them: the tokens, answers kept for a
retried `POST /fights` (which hold tokens) and the stream tickets issued with them."""


class Role(StrEnum):
    VIEWER = "viewer"  # reads the fight
    GM = "gm"  # reads and writes it
    ADMIN = "admin"  # creates fights; may read and write every fight


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Grant:
    """What a token allows: a role, on one fight (None: on every fight, the admin's)."""

    def __init__(self, role: Role, fight: str | None) -> None:
        self.role = role
        self.fight = fight

    def covers(self, fight: str) -> bool:
        return self.fight is None or self.fight == fight

    def allows(self, needed: Role) -> bool:
        if self.role is Role.ADMIN:
            return True
        return needed is Role.VIEWER or self.role is needed


class Tokens:
    def __init__(self, db: Db, admin_token: str) -> None:
        self._db = db
        self._admin = digest(admin_token)

    def issue(self, fight: str) -> tuple[str, str]:
        """New gm and viewer tokens for `fight`, replacing any it had."""
        with self._db.transaction() as db:
            return self.issue_in(db, fight)

    def issue_in(self, db: Writer, fight: str) -> tuple[str, str]:
        """`issue`, inside the caller's transaction `db`."""
        gm, viewer = new_token(), new_token()
        forget(db, fight)
        db.executemany(
            "INSERT INTO service_tokens (hash, fight, role) VALUES (?, ?, ?)",
            [(digest(gm), fight, Role.GM.value), (digest(viewer), fight, Role.VIEWER.value)],
        )
        return gm, viewer

    def revoke(self, fight: str) -> None:
        """Forget every token of `fight` (and what was handed out with them)."""
        with self._db.transaction() as db:
            forget(db, fight)

    def grant(self, token: str) -> Grant | None:
        """What `token` allows, or None for a token nobody issued."""
        hashed = digest(token)
        if hmac.compare_digest(hashed, self._admin):
            return Grant(Role.ADMIN, None)
        rows = self._db.execute("SELECT fight, role FROM service_tokens WHERE hash = ?", (hashed,))
        if not rows:
            return None
        fight, role = rows[0]
        return Grant(Role(role), str(fight))


def forget(db: Writer, fight: str) -> None:
    """Drop the fight's tokens and everything that holds or stands for one."""
    for table in PASSED_ON:
        db.execute(f"DELETE FROM {table} WHERE fight = ?", (fight,))
