"""Bearer tokens: one admin token for the server; per fight, any number of gm and viewer tokens,
each with a name unique in its fight and the time it was issued, each revocable by its name.

`POST /fights` (and a retry of it, or the admin's reissue) hands out the pair named `gm` and
`viewer`, replacing that pair alone; `woundlog share` and `POST /fights/{fight}/tokens/{name}`
add more beside it (a link per player, per table, per screen), and revoking one leaves the rest.

Tokens are 32 random bytes, so a plain sha256 of each is enough to keep them unusable if the
database leaks (no salt or slow hash needed: nothing to brute-force). Only hashes are stored,
so a token is shown once, when issued; a listing gives names, roles and times, never a token.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from woundlog.events import UsageError
from woundlog.events.stores import Side, Store
from woundlog.events.stores.side import KeptToken

from .values import (
    Issued,
    NoSuchToken,
    Role,
    TokenInfo,
    TokenNameTaken,
    check_name,
)

PAIR = (Role.GM, Role.VIEWER)
"""The roles of the pair `POST /fights` hands out, each named for its role."""


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
    """The fights' tokens, kept beside the fights in the store (`Store.side`: side.py), on the
    calling thread's store (`store_of`), so that what is written inside a transaction of that
    store commits with it. `admin_token`: the server's (None for a caller that only hands out
    and revokes fights' tokens, as `woundlog share`)."""

    def __init__(self, store_of: Callable[[], Store], admin_token: str | None = None) -> None:
        self._store_of = store_of
        self._admin = digest(admin_token) if admin_token is not None else None

    @property
    def _side(self) -> Side:
        return self._store_of().side

    # --- the pair of POST /fights ------------------------------------------------------------

    def issue(self, fight: str) -> tuple[str, str]:
        """New gm and viewer tokens for `fight`, replacing the pair it had (not its others)."""
        with self._store_of().transaction():
            return self.issue_in(fight)

    def issue_in(self, fight: str) -> tuple[str, str]:
        """`issue`, inside the caller's transaction of the store."""
        now = time.time()
        tokens = {role: new_token() for role in PAIR}
        forget_passed_on(self._side, fight)
        # One statement per token that replaces the one of its name: two processes issuing the
        # pair at once (a raced POST /fights) queue on the name's row instead of one of them
        # failing on the unique name, and the loser's whole transaction then rolls back
        for role in PAIR:
            kept = KeptToken(digest(tokens[role]), fight, role.value, role.value, now)
            self._side.tokens.put(kept, replace=True)
        return tokens[Role.GM], tokens[Role.VIEWER]

    def revoke(self, fight: str) -> None:
        """Forget every token of `fight` (and what was handed out with them)."""
        with self._store_of().transaction():
            forget(self._side, fight)

    # --- named tokens -------------------------------------------------------------------------

    def add(self, fight: str, role: Role, name: str | None = None) -> Issued:
        """A new `role` token for `fight`, named `name` (None: `ROLE-N`, the first N from 2
        free), beside the tokens it has. A name the fight already holds is refused."""
        if role is Role.ADMIN:
            raise UsageError(
                "a fight's token is a gm or a viewer token; the admin's is the server's"
            )
        if name is not None:
            check_name(name)
        issued = time.time()
        token = new_token()
        with self._store_of().transaction():
            taken = {str(kept.name) for kept in self._side.tokens.of(fight)}
            # The name is claimed by the insert itself, not by the look above: another process
            # may take it in between, and that is a refusal (or the next free name), not a 500
            for candidate in [name] if name is not None else _free(role, taken):
                kept = KeptToken(digest(token), fight, role.value, candidate, issued)
                if self._side.tokens.put(kept):
                    name = candidate
                    break
            else:
                raise TokenNameTaken(
                    f"fight `{fight}` already has a token named `{name or candidate}`: choose "
                    "another name, or revoke that one first"
                )
        when = datetime.fromtimestamp(issued, UTC)
        return Issued(fight=fight, name=name, role=role, issued=when, token=token)

    def named(self, fight: str) -> list[TokenInfo]:
        """The fight's tokens, oldest first: names, roles and times, never the tokens."""
        found = [
            TokenInfo(name=kept.name or kept.role, role=Role(kept.role), issued=_time(kept.issued))
            for kept in self._side.tokens.of(fight)
        ]
        return sorted(found, key=lambda t: (t.issued is not None, t.issued or _EPOCH, t.name))

    def role_of(self, fight: str, name: str) -> Role:
        """The role of the fight's token `name`, or NoSuchToken naming the ones it has."""
        for held in self.named(fight):
            if held.name == name:
                return held.role
        raise self._no_such(fight, name)

    def revoke_named(self, fight: str, name: str) -> None:
        """Revoke the fight's token `name` and the stream tickets issued before (a page whose
        token still works asks again); the other tokens keep working. The kept answers of
        `POST /fights` hold the pair alone, so they go only with a token of the pair: a
        retried create after a player's link was revoked still gets its first answer."""
        with self._store_of().transaction():
            gone = self._side.tokens.remove(fight, name)
            if gone and name in PAIR:
                forget_passed_on(self._side, fight)
            elif gone:
                self._side.tickets.remove_all(fight)
        if not gone:
            raise self._no_such(fight, name)

    def _no_such(self, fight: str, name: str) -> NoSuchToken:
        held = ", ".join(f"`{t.name}` ({t.role})" for t in self.named(fight)) or "none"
        return NoSuchToken(f"fight `{fight}` has no token named `{name}` (it has: {held})")

    # --- checking -----------------------------------------------------------------------------

    def grant(self, token: str) -> Grant | None:
        """What `token` allows, or None for a token nobody issued."""
        hashed = digest(token)
        if self._admin is not None and hmac.compare_digest(hashed, self._admin):
            return Grant(Role.ADMIN, None)
        kept = self._side.tokens.find(hashed)
        if kept is None:
            return None
        return Grant(Role(kept.role), kept.fight)

    def role_kept(self, hashed: str | None) -> Role:
        """The role of the token kept under the hash `hashed` (the admin's too); a viewer's for
        none: what a stream opened with a ticket issued before tickets kept their token reads."""
        if hashed is None:
            return Role.VIEWER
        if self._admin is not None and hmac.compare_digest(hashed, self._admin):
            return Role.ADMIN
        kept = self._side.tokens.find(hashed)
        return Role.VIEWER if kept is None else Role(kept.role)

    def still_valid(self, hashed: str | None, fight: str) -> bool:
        """Whether the token kept under the hash `hashed` still reaches `fight` (the admin's
        always): what a stream it opened asks as it goes. None, a stream ticket issued before
        tickets kept their token: whether the fight still has a token."""
        if hashed is None:
            return bool(self._side.tokens.of(fight))
        if self._admin is not None and hmac.compare_digest(hashed, self._admin):
            return True
        kept = self._side.tokens.find(hashed)
        return kept is not None and kept.fight == fight


def _free(role: Role, taken: set[str]) -> Iterator[str]:
    """The default names of `role`'s tokens not in `taken`, in order: `viewer-2`, `viewer-3`..."""
    free = (f"{role}-{n}" for n in itertools.count(2) if f"{role}-{n}" not in taken)
    return itertools.islice(free, FREE_TRIES)


FREE_TRIES = 16
"""How many free default names one issue tries, each lost only to another process's issue."""


_EPOCH = datetime.fromtimestamp(0, UTC)


def _time(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def forget_passed_on(side: Side, fight: str) -> None:
    """Drop what a fight's tokens open, revoked with any token of its pair: the answers kept
    for a retried `POST /fights` (which hold the pair) and the stream tickets (60 s each: a page
    whose token still works simply asks for a new one)."""
    side.answers.remove_all(fight)
    side.tickets.remove_all(fight)


def forget(side: Side, fight: str) -> None:
    """Drop the fight's tokens and everything that holds or stands for one."""
    side.tokens.remove_all(fight)
    forget_passed_on(side, fight)
