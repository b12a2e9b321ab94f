"""Issue 37: what a hostile client sends is answered, never a 500 and never a secret kept: ids
checked before any store call (a NUL on PostgreSQL), tokens in URLs refused and never logged,
`/events?from=` past the end refused as the stream refuses it, request heads held to
`--max-header-bytes`."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from woundlog.replays.service.hosts import HeadBound, head_bytes

from .conftest import new_fight
from .server import ADMIN, Server, bearer
from .test_access_log import log_once_written

NUL_ID = "u\u0000"


def test_an_undo_id_with_a_nul_is_422_on_postgresql_not_a_500(
    postgres_url: str, tmp_path: Path
) -> None:
    """The store was asked whether the id was there before the id was checked: psycopg's
    DataError (PostgreSQL cannot hold a NUL), a 500."""
    with (
        Server(postgres_url, logs=tmp_path) as running,
        httpx.Client(base_url=running.url, timeout=30) as client,
    ):
        fight = new_fight(client, "nul-undo")
        for body in ({"id": NUL_ID}, {"id": NUL_ID, "event": "grim"}, {"event": NUL_ID}):
            refused = client.post("/fights/nul-undo/undo", json=body, headers=fight.gm)
            assert refused.status_code == 422, (body, refused.text)
            assert "$.id" in refused.text or "$.event" in refused.text
        still = client.get("/fights/nul-undo/events", headers=fight.viewer).json()
        assert still["version"] == 3  # nothing undone


def test_a_token_name_with_a_nul_is_422_before_the_store_is_asked(client: httpx.Client) -> None:
    fight = new_fight(client, "nul-token-name")
    for method in ("POST", "DELETE"):
        refused = client.request(method, "/fights/nul-token-name/tokens/a%00", headers=fight.gm)
        assert refused.status_code == 422, (method, refused.text)
        assert "token name" in refused.json()["detail"]


@pytest.mark.parametrize(
    "name", ["bearer", "Bearer", "authorization", "AUTHORIZATION", "api_key", "auth_token"]
)
def test_a_bearer_or_authorization_in_the_url_is_refused_and_never_logged(
    tmp_path: Path, name: str
) -> None:
    secret = "s3cret-bearer-in-the-url-0123456789"
    with Server(tmp_path / "urls.db") as running:
        with httpx.Client(base_url=running.url, timeout=30) as client:
            fight = new_fight(client, "url-secret")
            path = f"/fights/url-secret/state?{name}={secret}&at=1"
            refused = client.get(path, headers=fight.viewer)
            assert refused.status_code == 401, refused.text
            assert "Authorization: Bearer" in refused.json()["detail"]
            # with no other credential: refused the same, not "send a token"
            bare = client.get(f"/fights/url-secret/events?{name}={secret}")
            assert bare.status_code == 401 and "never goes in a URL" in bare.json()["detail"]
        text = log_once_written(running, "/fights/url-secret/events?")
    assert secret not in text
    assert "[redacted]" in text and "at=1" in text


def test_events_from_past_the_next_seq_is_422_and_from_the_next_is_an_empty_page(
    client: httpx.Client,
) -> None:
    """The stream refuses `from` past the next append (stream.py's `first_streamed`); the log
    now does the same, and `from` the next seq (a client polling for what comes next) is an
    empty page, as before."""
    fight = new_fight(client, "events-past")
    polled = client.get("/fights/events-past/events", params={"from": 4}, headers=fight.viewer)
    assert polled.status_code == 200
    assert polled.json() == {"version": 3, "events": [], "next": None}
    for past in (5, 2**53 - 1):
        refused = client.get(
            "/fights/events-past/events", params={"from": past}, headers=fight.viewer
        )
        assert refused.status_code == 422, refused.text
        assert "events 1 to 3" in refused.json()["detail"]


def raw_request(server: Server, head: bytes) -> bytes:
    """`head` sent in one write on a new connection; the answer's first line and headers."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


REFUSED_HEAD = (b"HTTP/1.1 400 ", b"HTTP/1.1 431 ")
"""A head past the bound: 431 once it is whole, or 400 at once if it grew past the bound while
incomplete (uvicorn's, test_limits.py): which depends on how its bytes arrive."""


@pytest.mark.parametrize("size", [20 * 1024, 40 * 1024, 64 * 1024])
def test_a_request_head_past_max_header_bytes_is_refused_even_in_one_packet(
    tmp_path: Path, size: int
) -> None:
    """h11's bound is on a head still incomplete: a whole head of 20 to 64 KB that arrived in one
    read passed `--max-header-bytes 16384`."""
    with Server(tmp_path / "heads.db", args=("--max-header-bytes", "16384")) as running:
        filler = b"x" * size
        head = (
            b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + filler + b"\r\n"
            b"Connection: close\r\n\r\n"
        )
        assert raw_request(running, head).startswith(REFUSED_HEAD)
        # a head within the bound is answered
        small = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + b"x" * 8000
        assert raw_request(running, small + b"\r\nConnection: close\r\n\r\n").startswith(
            b"HTTP/1.1 200 "
        )
        with httpx.Client(base_url=running.url, timeout=30) as client:
            many = {f"X-H{n}": "y" * 1000 for n in range(24)}  # 24 KB in many headers
            assert client.get("/health", headers=many).status_code in (400, 431)
            assert client.get("/fights", headers=bearer(ADMIN)).status_code == 200


def test_a_whole_head_past_the_bound_is_431_with_the_problem_body() -> None:
    """What the service answers a whole head past the bound, whatever its route."""
    headers = [(b"host", b"127.0.0.1"), (b"x", b"y" * 100)]
    scope = {"type": "http", "method": "GET", "path": "/health", "raw_path": b"/health",
             "query_string": b"a=1", "headers": headers}  # fmt: skip
    assert head_bytes(scope) == len(
        b"GET /health?a=1 HTTP/1.1\r\nhost: 127.0.0.1\r\nx: " + b"y" * 100 + b"\r\n\r\n"
    )
    sent: list[dict[str, object]] = []

    async def never(*_: object) -> None:
        raise AssertionError("the service was called")

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    answering = HeadBound(never, 100)(scope, never, send)  # type: ignore[arg-type]
    with pytest.raises(StopIteration):  # it never waits: run here, with no event loop
        answering.send(None)
    assert sent[0]["status"] == 431
    body = json.loads(sent[1]["body"])  # type: ignore[arg-type]
    assert body["status"] == 431 and "--max-header-bytes" in body["detail"]


def test_a_retry_after_a_crash_gets_the_first_answer_with_no_admin_token_configured(
    tmp_path: Path,
) -> None:
    """With no admin token given, `serve` makes a new one at each start; the key the answers
    are kept under was derived from it, so after a crash a retried `POST /fights` got 200 with a
    new pair and the first gm token answered 401."""
    db = tmp_path / "generated.db"
    token_file = tmp_path / "generated.db.admin-token"
    key = {"Idempotency-Key": "order-37"}
    body = {"fight": "kept-through", "ruleset": "mordheim"}
    with Server(db, admin=None) as running, httpx.Client(base_url=running.url) as client:
        admin = token_file.read_text().strip()
        first = client.post("/fights", json=body, headers={**bearer(admin), **key})
        assert first.status_code == 201, first.text
        running.kill()  # SIGKILL: the answer was on its way; the client never saw it
    with Server(db, admin=None) as running, httpx.Client(base_url=running.url) as client:
        admin = token_file.read_text().strip()  # another one: made at this start
        again = client.post("/fights", json=body, headers={**bearer(admin), **key})
        assert again.status_code == 201, again.text
        assert again.json() == first.json()
        gm = bearer(first.json()["gm_token"])
        assert client.get("/fights/kept-through/state", headers=gm).status_code == 200
    assert (tmp_path / "generated.db.answers-key").stat().st_mode & 0o777 == 0o600
