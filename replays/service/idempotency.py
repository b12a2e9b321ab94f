"""`POST /fights` with an `Idempotency-Key` header: a retry gets the first answer again, tokens
and all (the header of draft-ietf-httpapi-idempotency-key-header).

The first answer holds the fight's only copy of its tokens, and the service keeps tokens only as
hashes; so the answer is kept with its key, for `KEEP_S`, and is written in the same transaction
as the tokens (section "Writing" of fights.py says how that makes it exactly the answer of the
fight the store holds).

Kept encrypted, authenticated, under a secret the database does not hold (tests/README.md,
"Secrets, hostile names and takeovers", says why this way and not another):

- the server's secret is kept beside the store and never in its database: beside a local store
  (SQLite, JSON Lines) a random key in a file of its own (`fights.db.answers-key`, 0600), made
  once, so that it survives restarts whatever the admin token (made anew at each start when
  none is given); on PostgreSQL, derived (HKDF-SHA256) from the admin token every process of the
  deployment is given (`answers_secret`);
- the row is found by an HMAC of the key under that secret, so a guessable key cannot be
  tried against a stolen database;
- the answer is sealed with AES-256-GCM (`cryptography`), its key derived from the secret and
  the Idempotency-Key, a fresh random nonce on every write (a row rewritten, reissued tokens,
  a fight deleted and made again: never one key stream twice), and the row's other columns
  (fight, request, status, expiry) bound to it as associated data.

A row that does not open (changed bytes, another admin token, rows of the unauthenticated
format of earlier releases, whose lookup hash is another anyway) is never served: it is logged,
dropped, and the request is answered as one that came with no key kept.

The same key with another request is refused (422, as the draft says); a key whose fight is no
longer there (deleted; or a creation that crashed before its events were written), or whose
tokens were reissued or revoked since, is forgotten and the request is made anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from woundlog.events import ConflictError, UsageError
from woundlog.events.stores import Side, Store
from woundlog.events.stores.side import KeptAnswer

KEEP_S = 24 * 3600
"""How long a first answer is kept for its retries."""
MAX_KEY = 255
HEADER = "Idempotency-Key"
NONCE_BYTES = 12  # AES-GCM's own nonce size: random, 2**-32 collision odds after 2**32 writes
SEALED = b"\x02"  # the format byte of a sealed answer (the unsealed rows before it had none)

log = logging.getLogger("woundlog.service")


class KeyReused(UsageError):
    """An Idempotency-Key sent again with another request (422)."""


class AnswerTaken(Exception):
    """Another request with this key was answered in between (another process): its answer,
    now kept, is the one to give. A signal from `keep_in` to its caller, who rolls back and
    gives that answer (or, if it is gone, says so: `answer_gone`); never an answer itself."""


def answer_gone(fight_version: int) -> ConflictError:
    """What a request is told when another with its key kept an answer in between that is
    no longer kept (its fight is not there): try again."""
    return ConflictError(
        f"this {HEADER} was answered by another request in between, for a fight that is not "
        "there: send the request again",
        current_version=fight_version,
    )


def check_key(key: str) -> str:
    if not 1 <= len(key) <= MAX_KEY or not key.isascii() or not key.isprintable():
        raise UsageError(
            f"{HEADER} must be 1 to {MAX_KEY} printable ASCII characters (a UUID is best)"
        )
    return key


def request_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def server_secret(admin_token: str) -> bytes:
    """The secret the kept answers are sealed and found under, the same in every process that
    holds the admin token: a store with no local file (PostgreSQL), whose processes are all
    given the same admin token."""
    return _hkdf(admin_token.encode(), b"woundlog kept answers: server secret")


KEY_FILE = ".answers-key"
"""The suffix of the file beside a local store (`fights.db.answers-key`) that holds the key."""
KEY_BYTES = 32


def answers_secret(side: Path | None, admin_token: str) -> bytes:
    """The secret the kept answers are sealed and found under, for the store whose side tables
    are in `side` (`Side.path`). Beside a local store, a random key of its own in a file next to
    it (mode 0600), made once by the first process that needs it: never in the database, and
    not the admin token, which `serve` makes anew at each start when none is given, so that a
    retry after a crash opens the answer kept before it. On a database server (None), the
    admin token, which every process is given: `server_secret`."""
    if side is None:
        return server_secret(admin_token)
    return _hkdf(_key_beside(side.with_name(side.name + KEY_FILE)), b"woundlog kept answers")


def _key_beside(path: Path) -> bytes:
    """The key in `path`, made there first if there is none. Written whole under a temporary
    name, synced, then linked to `path`, which never replaces a file already there: two
    processes starting at once both read the one that was linked first."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
        _sync_folder(path.parent)
        return _read_key(path)
    except OSError as error:
        if isinstance(error, FileNotFoundError) and path.exists():
            return _read_key(path)
        raise UsageError(
            f"cannot keep the key of {HEADER} answers in {path}: {error.strerror}"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _read_key(path: Path) -> bytes:
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise UsageError(
            f"{path} holds no key of {HEADER} answers ({len(key)} bytes, not {KEY_BYTES}): "
            "remove it, and the answers kept under it are forgotten (a retry makes a new pair)"
        )
    return key


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _hkdf(material: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material)


class Answers:
    """The first answers, kept beside the fights in the calling thread's store (`store_of`)."""

    def __init__(
        self, store_of: Callable[[], Store], secret: bytes, clock: Callable[[], float] = time.time
    ) -> None:
        self._store_of = store_of
        self._secret = secret
        self._clock = clock  # the wall clock; a test's own, to age a row as time does

    @property
    def _side(self) -> Side:
        return self._store_of().side

    def _row(self, key: str) -> str:
        return hmac.new(self._secret, b"row\0" + key.encode(), hashlib.sha256).hexdigest()

    def _aead(self, key: str) -> AESGCM:
        return AESGCM(_hkdf(self._secret, b"woundlog kept answer\0" + key.encode()))

    @staticmethod
    def _bound(row: str, fight: str, request: str, status: int, expires: float) -> bytes:
        """What the seal covers besides the answer: the row's other columns."""
        return "\0".join([row, fight, request, str(int(status)), repr(float(expires))]).encode()

    def recall(
        self, key: str, request: str, fight_there: Callable[[], bool]
    ) -> tuple[int, bytes] | None:
        """(status, answer) first given to this key's request, or None if none is kept (or the
        one kept no longer holds: `fight_there` says whether its fight is in the store, asked
        after the row is read, since the row commits with the fight)."""
        row = self._row(key)
        kept = self._side.answers.find(row, self._clock())
        if kept is None:
            return None
        sent, status = kept.request, kept.status
        answer = self._open(key, row, kept.fight, sent, status, kept.expires, kept.answer)
        if answer is None:
            log.warning("a kept answer for an %s does not open: dropped, never served", HEADER)
            self._forget(row)
            return None
        if sent != request:
            raise KeyReused(
                f"this {HEADER} was sent with another request: a key stands for one request; "
                "send a new key for a new request"
            )
        if not fight_there():  # a creation that never finished, or a fight deleted since
            self._forget(row)
            return None
        return int(status), answer

    def _open(
        self, key: str, row: str, fight: str, sent: str, status: int, expires: float, sealed: bytes
    ) -> bytes | None:
        sealed = bytes(sealed)
        if len(sealed) <= 1 + NONCE_BYTES or sealed[:1] != SEALED:
            return None
        nonce, ciphertext = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
        try:
            return self._aead(key).decrypt(
                nonce, ciphertext, self._bound(row, fight, sent, status, expires)
            )
        except InvalidTag:
            return None

    def _forget(self, row: str) -> None:
        self._side.answers.remove(row)

    def keep_in(self, key: str, request: str, fight: str, status: int, answer: bytes) -> None:
        """Keep `answer` for the key's retries, in the caller's transaction of the store; drop
        what has expired on the way, so the table holds a day of keys at most. A row already
        kept for the key (another process answered it in between) is left as it is:
        AnswerTaken, so the caller rolls back and gives that answer."""
        now = self._clock()
        row, expires = self._row(key), now + KEEP_S
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._aead(key).encrypt(
            nonce, answer, self._bound(row, fight, request, status, expires)
        )
        kept = KeptAnswer(row, fight, request, status, SEALED + nonce + sealed, expires)
        if not self._side.answers.put(kept, now):
            raise AnswerTaken(f"this {HEADER} was answered by another request in between")
