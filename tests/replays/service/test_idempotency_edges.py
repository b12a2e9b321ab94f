"""Kept answers of `Idempotency-Key` at their edges (issue 39, found missing by the mutation
run): a key of one character and of 255 taken, none and 256 refused; an answer kept a day (86,400
seconds, the clock's own); a row whose format byte alone was changed never served; the row's
layout (a format byte, AES-GCM's 12-byte nonce, the answer sealed with its 16-byte tag); and the
key beside a local store, a file of 32 bytes, mode 0600, read again at the next start."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from woundlog.events import UsageError
from woundlog.events.stores import open_store
from woundlog.replays.service.idempotency import Answers, answers_secret, check_key

ANSWER = b'{"gm_token":"g1"}'
SENT = "POST /fights yard"


def test_a_key_of_one_to_255_printable_ascii_characters_is_taken() -> None:
    for key in ("k", "k" * 255, "~ !"):
        assert check_key(key) == key
    for bad in ("", "k" * 256, "clé", "a\tb"):
        with pytest.raises(UsageError, match="1 to 255 printable ASCII"):
            check_key(bad)


def test_an_answer_is_kept_for_a_day_by_the_clock(tmp_path: Path) -> None:
    now = [1_700_000_000.0]
    with open_store(str(tmp_path / "answers.db")) as store:
        answers = Answers(lambda: store, b"s" * 32, clock=lambda: now[0])
        with store.transaction():
            answers.keep_in("key-1", SENT, "yard", 201, ANSWER)
        now[0] += 86_400 - 1
        assert answers.recall("key-1", SENT, lambda: True) == (201, ANSWER)
        now[0] += 2
        assert answers.recall("key-1", SENT, lambda: True) is None


def sealed_rows(db: Path) -> list[bytes]:
    with sqlite3.connect(db) as raw:
        return [bytes(row[0]) for row in raw.execute("SELECT answer FROM service_answers")]


def test_a_kept_row_is_a_format_byte_a_12_byte_nonce_and_the_sealed_answer(
    tmp_path: Path,
) -> None:
    db = tmp_path / "answers.db"
    with open_store(str(db)) as store:
        answers = Answers(lambda: store, b"s" * 32)
        with store.transaction():
            answers.keep_in("key-1", SENT, "yard", 201, ANSWER)
    [sealed] = sealed_rows(db)
    assert sealed[:1] == b"\x02"
    assert len(sealed) == 1 + 12 + len(ANSWER) + 16  # AES-GCM: nonce, then answer and tag


def test_a_row_whose_format_byte_alone_was_changed_is_never_served(tmp_path: Path) -> None:
    """The format byte is not under the seal: a row that does not say it is sealed is not
    opened, though the rest of it would open."""
    db = tmp_path / "answers.db"
    with open_store(str(db)) as store:
        answers = Answers(lambda: store, b"s" * 32)
        with store.transaction():
            answers.keep_in("key-1", SENT, "yard", 201, ANSWER)
        [sealed] = sealed_rows(db)
        with sqlite3.connect(db) as raw:
            raw.execute("UPDATE service_answers SET answer = ?", (b"\x03" + sealed[1:],))
        assert answers.recall("key-1", SENT, lambda: True) is None
        assert sealed_rows(db) == []  # dropped


def test_the_key_beside_a_local_store_is_32_bytes_kept_0600_and_read_again(
    tmp_path: Path,
) -> None:
    side = tmp_path / "fights.db"
    first = answers_secret(side, "admin-1")
    kept = tmp_path / "fights.db.answers-key"
    assert len(kept.read_bytes()) == 32
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert answers_secret(side, "admin-2") == first  # another start, another admin token
    made_before = tmp_path / "old.db.answers-key"  # as an earlier process made it
    made_before.write_bytes(bytes(range(32)))
    assert answers_secret(tmp_path / "old.db", "admin") == answers_secret(
        tmp_path / "old.db", "admin"
    )
    made_before.write_bytes(bytes(range(31)))
    with pytest.raises(UsageError, match="31 bytes, not 32"):
        answers_secret(tmp_path / "old.db", "admin")
