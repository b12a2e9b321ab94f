"""Issue 13: `POST /fights` with an `Idempotency-Key` answers a retry with the first answer itself,
the same tokens, through a crash and across processes; a retry without one keeps today's
behaviour (200, a new pair: test_create.py)."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from .server import ADMIN, Server, bearer
from .test_errors import logged

KEY = "Idempotency-Key"


def create(client: httpx.Client, fight: str, key: str | None, **settings: object) -> httpx.Response:
    headers = {**bearer(ADMIN), **({KEY: key} if key else {})}
    body = {"fight": fight, "ruleset": "mordheim", **settings}
    return client.post("/fights", json=body, headers=headers)


def reads(client: httpx.Client, fight: str, token: str) -> bool:
    return client.get(f"/fights/{fight}/state", headers=bearer(token)).status_code == 200


def test_a_retry_with_the_same_key_gets_the_same_answer_and_tokens(client: httpx.Client) -> None:
    key = str(uuid.uuid4())
    first = create(client, "keyed-1", key)
    again = create(client, "keyed-1", key)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert reads(client, "keyed-1", first.json()["gm_token"])
    assert reads(client, "keyed-1", first.json()["viewer_token"])


def test_a_retry_without_a_seed_gets_the_seed_the_first_answer_drew(client: httpx.Client) -> None:
    key = str(uuid.uuid4())
    first = create(client, "keyed-seed", key).json()
    assert create(client, "keyed-seed", key).json()["seed"] == first["seed"]


def test_the_same_key_with_another_request_is_422_and_changes_nothing(
    client: httpx.Client,
) -> None:
    key = str(uuid.uuid4())
    first = create(client, "keyed-2", key).json()
    other = create(client, "keyed-2", key, ruleset="d26")
    assert other.status_code == 422
    assert other.headers["content-type"].startswith("application/problem+json")
    assert "Idempotency-Key was sent with another request" in other.json()["detail"]
    assert reads(client, "keyed-2", first["gm_token"])


def test_a_key_of_255_characters_is_taken_and_answers_its_retry(client: httpx.Client) -> None:
    """255 is the bound itself, not past it (256 is refused below)."""
    key = "k" * 254 + uuid.uuid4().hex[:1]
    assert len(key) == 255
    first = create(client, "keyed-255", key)
    assert first.status_code == 201, first.text
    assert create(client, "keyed-255", key).json() == first.json()


def test_a_key_past_255_characters_or_not_ascii_is_refused_and_makes_no_fight(
    client: httpx.Client,
) -> None:
    for key in (b"k" * 256, "clé".encode()):
        refused = client.post(
            "/fights",
            json={"fight": "keyed-bad", "ruleset": "mordheim"},
            headers=[(b"Authorization", f"Bearer {ADMIN}".encode()), (KEY.encode(), key)],
        )
        assert refused.status_code == 422, refused.text
    assert client.get("/fights/keyed-bad/state", headers=bearer(ADMIN)).status_code == 404


def test_the_first_answer_survives_a_crash_of_the_server(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    key = str(uuid.uuid4())
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        first = create(client, "keyed-crash", key).json()
        running.kill()  # SIGKILL: the answer was on its way; the client never saw it
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        again = create(client, "keyed-crash", key)
        assert again.status_code == 201
        assert again.json() == first
        assert reads(client, "keyed-crash", first["gm_token"])


def test_the_kept_answer_holds_no_token_in_the_clear(tmp_path: Path) -> None:
    db = tmp_path / "clear.db"
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        first = create(client, "keyed-clear", str(uuid.uuid4())).json()
    wal = tmp_path / "clear.db-wal"
    raw = db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert first["gm_token"].encode() not in raw
    assert first["viewer_token"].encode() not in raw


def test_after_reissued_tokens_a_retry_with_the_key_is_not_given_the_dead_pair(
    client: httpx.Client,
) -> None:
    key = str(uuid.uuid4())
    first = create(client, "keyed-reissued", key).json()
    client.post("/fights/keyed-reissued/tokens", headers=bearer(ADMIN)).raise_for_status()
    again = create(client, "keyed-reissued", key)
    assert again.status_code == 200  # the fight is there: a new pair, as without a key
    assert again.json()["gm_token"] != first["gm_token"]
    assert reads(client, "keyed-reissued", again.json()["gm_token"])


def test_a_kept_answer_whose_expiry_was_altered_in_the_table_is_not_served(
    tmp_path: Path,
) -> None:
    """The expiry is sealed with the answer: moved back in the table by hand, the row no longer
    opens, and the retry is answered as one without a key (never the first tokens)."""
    db = tmp_path / "expired.db"
    key = str(uuid.uuid4())
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        first = create(client, "keyed-old", key).json()
        with sqlite3.connect(db) as raw:
            raw.execute("UPDATE service_answers SET expires = expires - 86400")
        again = create(client, "keyed-old", key)
        assert again.status_code == 200  # answered as a retry without a key
        assert again.json()["gm_token"] != first["gm_token"]


def test_a_kept_answer_is_given_back_until_its_day_is_out_and_then_forgotten(
    tmp_path: Path,
) -> None:
    """Time passes as the service reads it (its clock), the row left as it was written: the
    answer stands one second before its 24 hours are out, and is gone one second after."""
    from woundlog.events.stores import open_store
    from woundlog.replays.service.idempotency import KEEP_S, Answers

    now = [1_700_000_000.0]
    with open_store(str(tmp_path / "answers.db")) as store:
        answers = Answers(lambda: store, b"s" * 32, clock=lambda: now[0])
        with store.transaction():
            answers.keep_in("key-1", "POST /fights yard", "yard", 201, b'{"gm_token":"g1"}')
        now[0] += KEEP_S - 1
        kept = answers.recall("key-1", "POST /fights yard", lambda: True)
        assert kept == (201, b'{"gm_token":"g1"}')
        now[0] += 2  # its day is out
        assert answers.recall("key-1", "POST /fights yard", lambda: True) is None


def test_a_deleted_fight_created_again_with_the_same_key_is_a_new_fight(
    client: httpx.Client,
) -> None:
    key = str(uuid.uuid4())
    first = create(client, "keyed-gone", key, seed=1).json()
    assert client.delete("/fights/keyed-gone", headers=bearer(ADMIN)).status_code == 204
    again = create(client, "keyed-gone", key, seed=1)
    assert again.status_code == 201
    assert again.json()["gm_token"] != first["gm_token"]
    assert reads(client, "keyed-gone", again.json()["gm_token"])


def test_a_retry_through_another_process_on_postgresql_gets_the_same_answer(
    postgres_url: str, tmp_path: Path
) -> None:
    key = str(uuid.uuid4())
    with (
        Server(postgres_url, logs=tmp_path) as one,
        Server(postgres_url, logs=tmp_path) as other,
        httpx.Client(base_url=one.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        first = create(a, "keyed-pg", key)
        again = create(b, "keyed-pg", key)
        assert first.status_code == again.status_code == 201
        assert again.json() == first.json()
        assert reads(b, "keyed-pg", first.json()["gm_token"])


PAIRS = 10


def at_once(clients: list[httpx.Client], fight: str, key: str) -> list[httpx.Response]:
    """The same keyed request through each client, released together."""
    together = threading.Barrier(len(clients))
    answers: dict[int, httpx.Response] = {}

    def send(index: int) -> None:
        together.wait()
        answers[index] = create(clients[index], fight, key, seed=3)

    racers = [threading.Thread(target=send, args=(i,)) for i in range(len(clients))]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(60)
    return [answers[i] for i in range(len(clients))]


def test_one_key_sent_to_two_postgresql_processes_at_once_gets_one_answer_and_live_tokens(
    postgres_url: str, tmp_path: Path
) -> None:
    """Issue 24: the loser of the race reads the kept answer again; before, 14 of 15 pairs got
    201 and 200 with different tokens, and the 201's gm token was already dead."""
    with (
        Server(postgres_url, logs=tmp_path) as one,
        Server(postgres_url, logs=tmp_path) as other,
        httpx.Client(base_url=one.url, timeout=30) as a,
        httpx.Client(base_url=other.url, timeout=30) as b,
    ):
        for pair in range(PAIRS):
            fight = f"raced-{pair}"
            answers = at_once([a, b], fight, str(uuid.uuid4()))
            assert answers[0].status_code == answers[1].status_code == 201, answers
            assert answers[0].json() == answers[1].json()
            assert reads(a, fight, answers[0].json()["gm_token"])
            assert reads(b, fight, answers[1].json()["viewer_token"])


def test_the_loser_of_a_race_for_one_key_with_another_request_is_422_never_a_500(
    postgres_url: str, tmp_path: Path
) -> None:
    """One Idempotency-Key sent at once, with two requests (two fights), to two processes, both
    past their look-up of the key before either keeps its answer: the table of kept answers is
    locked for writing (SHARE: their reads go on) until both wait on it. The second to keep
    finds the first's answer there (idempotency.AnswerTaken), rolls back, and is answered as a
    key sent with another request, 422; its fight is not made. Before, AnswerTaken could not
    even be made (a TypeError: ConflictError wants `current_version`), and the loser got 500."""
    import psycopg

    key = str(uuid.uuid4())
    fights = ("taken-one", "taken-other")
    with (
        Server(postgres_url, logs=tmp_path) as one,
        Server(postgres_url, logs=tmp_path) as other,
        httpx.Client(base_url=one.url, timeout=60) as a,
        httpx.Client(base_url=other.url, timeout=60) as b,
        psycopg.connect(postgres_url) as holder,
    ):
        answers: dict[str, httpx.Response] = {}

        def send(client: httpx.Client, fight: str) -> None:
            answers[fight] = create(client, fight, key, seed=3)

        racers = [
            threading.Thread(target=send, args=(client, fight))
            for client, fight in zip((a, b), fights, strict=True)
        ]
        holder.execute("LOCK TABLE service_answers IN SHARE MODE")
        for racer in racers:
            racer.start()
        _wait_for_lock_waiters(postgres_url, 2)
        holder.rollback()  # let go: one keeps its answer, the other finds it kept
        for racer in racers:
            racer.join(60)
        codes = sorted(answer.status_code for answer in answers.values())
        assert codes == [201, 422], {fight: answer.text for fight, answer in answers.items()}
        [(won, first)] = [(f, r) for f, r in answers.items() if r.status_code == 201]
        [(lost, refused)] = [(f, r) for f, r in answers.items() if r.status_code == 422]
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert "Idempotency-Key was sent with another request" in refused.json()["detail"]
        assert reads(a, won, first.json()["gm_token"])
        assert a.get(f"/fights/{lost}/state", headers=bearer(ADMIN)).status_code == 404
        retried = create(b, won, key, seed=3)
        assert (retried.status_code, retried.json()) == (201, first.json())


def _wait_for_lock_waiters(url: str, count: int, timeout_s: float = 30.0) -> None:
    """Return once `count` connections of the database wait on a lock, seen three times in a
    row; AssertionError after `timeout_s`."""
    import psycopg

    deadline = time.monotonic() + timeout_s
    seen = 0
    with psycopg.connect(url, autocommit=True) as watcher:
        while time.monotonic() < deadline:
            (waiting,) = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone() or (0,)
            seen = seen + 1 if waiting >= count else 0
            if seen == 3:
                return
            time.sleep(0.05)
    raise AssertionError(f"{count} requests never waited on the locked table of kept answers")


def test_a_kept_answer_cannot_be_read_by_one_who_knows_the_key_and_not_the_server(
    tmp_path: Path,
) -> None:
    """Before issue 24 the answer was XORed with SHAKE-256 of a constant and the key: the
    database and a guessed key gave the gm token back."""
    db = tmp_path / "guessed.db"
    key = "order-1"  # a guessable key
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        first = create(client, "keyed-guessed", key).json()
    with sqlite3.connect(db) as raw:
        [(row, sealed)] = raw.execute("SELECT key, answer FROM service_answers").fetchall()
    assert row != hashlib.sha256(b"woundlog idempotency key\0" + key.encode()).hexdigest()
    stream = hashlib.shake_256(b"woundlog idempotency answer\0" + key.encode()).digest(len(sealed))
    for start in range(len(sealed)):  # the old pad, tried at every offset
        opened = bytes(x ^ y for x, y in zip(sealed[start:], stream, strict=False))
        assert first["gm_token"].encode() not in opened


def test_a_rewritten_answer_is_sealed_under_a_fresh_nonce(tmp_path: Path) -> None:
    db = tmp_path / "nonce.db"
    key = str(uuid.uuid4())
    sealed: list[bytes] = []
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        for _ in range(2):  # a fight deleted and made again under the same key and body
            assert create(client, "keyed-nonce", key, seed=2).status_code == 201
            with sqlite3.connect(db) as raw:
                sealed.append(raw.execute("SELECT answer FROM service_answers").fetchone()[0])
            client.delete("/fights/keyed-nonce", headers=bearer(ADMIN)).raise_for_status()
    assert sealed[0][1:13] != sealed[1][1:13]  # the nonces
    assert sealed[0][13:] != sealed[1][13:]


@pytest.mark.parametrize("column", ["answer", "status", "fight"])
def test_a_tampered_kept_answer_is_never_served_nor_a_500(tmp_path: Path, column: str) -> None:
    db = tmp_path / "tampered.db"
    key = str(uuid.uuid4())
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        first = create(client, "keyed-tampered", key).json()
        with sqlite3.connect(db) as raw:
            if column == "answer":  # one flipped bit, in the middle of the sealed answer
                (sealed,) = raw.execute("SELECT answer FROM service_answers").fetchone()
                middle = len(sealed) // 2
                flipped = sealed[:middle] + bytes([sealed[middle] ^ 1]) + sealed[middle + 1 :]
                raw.execute("UPDATE service_answers SET answer = ?", (flipped,))
            elif column == "status":
                raw.execute("UPDATE service_answers SET status = 200")
            else:
                raw.execute("UPDATE service_answers SET fight = 'elsewhere'")
        again = create(client, "keyed-tampered", key)
        assert again.status_code == 200, again.text  # answered as a retry with no answer kept
        assert again.json()["gm_token"] != first["gm_token"]
        assert reads(client, "keyed-tampered", again.json()["gm_token"])
        assert "does not open" in logged(running, "does not open")  # the log is a thread's


def test_revoking_a_named_token_keeps_the_first_answer_for_a_retry(client: httpx.Client) -> None:
    """The kept answer holds the pair `gm` and `viewer` alone: a player's link revoked leaves
    it true, so a retry still gets it; revoking the pair's viewer token makes it false."""
    key = str(uuid.uuid4())
    first = create(client, "keyed-named", key)
    gm = bearer(first.json()["gm_token"])
    assert client.post("/fights/keyed-named/tokens/phone", headers=gm).status_code == 201
    assert client.delete("/fights/keyed-named/tokens/phone", headers=gm).status_code == 204
    again = create(client, "keyed-named", key)
    assert (again.status_code, again.json()) == (201, first.json())
    assert client.delete("/fights/keyed-named/tokens/viewer", headers=gm).status_code == 204
    renewed = create(client, "keyed-named", key)
    assert renewed.json()["viewer_token"] != first.json()["viewer_token"]
    assert reads(client, "keyed-named", renewed.json()["viewer_token"])
