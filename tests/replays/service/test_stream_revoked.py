"""Issue 37: a live stream ends when what opened it is revoked. A stream opened with a token, or
with a ticket of a token, kept delivering every later event after the token was revoked, the
fight's tokens deleted or reissued. Now it looks again at each delivery and at least every
`REVOKED_WITHIN_S`: it ends with a `revoked` message, and delivers nothing appended after."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import httpx

from .conftest import new_fight
from .server import ADMIN, Server, bearer
from .test_stream_ticket import ticket_for

ENDED_WITHIN_S = 10.0  # generous: the promise is a second; heartbeats come every 15 s
HIT = {"type": "hit", "target": "grim", "damage": 1, "attacker": "snikkit"}


class Following:
    """A stream read line by line in a thread of its own, until it ends."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self.status: int | None = None
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(url, headers or {}), daemon=True)
        self.thread.start()

    def _read(self, url: str, headers: dict[str, str]) -> None:
        timeout = httpx.Timeout(30, read=60)
        with httpx.stream("GET", url, headers=headers, timeout=timeout) as response:
            self.status = response.status_code
            for line in response.iter_lines():
                self.lines.append(line)
                if line == "id: 3":
                    self.opened.set()

    def delivered(self) -> list[int]:
        return [int(line[4:]) for line in self.lines if line.startswith("id: ")]

    def ended_within(self, seconds: float) -> bool:
        self.thread.join(seconds)
        return not self.thread.is_alive()


def follow_then_revoke(
    follow_url: str,
    headers: dict[str, str] | None,
    revoke: httpx.Client,
    method: str,
    path: str,
    appender: httpx.Client,
    fight: str,
) -> Following:
    following = Following(follow_url, headers)
    assert following.opened.wait(30), following.lines
    assert revoke.request(method, path, headers=bearer(ADMIN)).status_code in (200, 204)
    started = time.monotonic()
    appended = appender.post(f"/fights/{fight}/events", json=HIT, headers=bearer(ADMIN))
    assert appended.status_code == 200, appended.text
    assert following.ended_within(ENDED_WITHIN_S - (time.monotonic() - started)), following.lines
    assert following.delivered() == [1, 2, 3]  # nothing appended after the revocation
    assert "event: revoked" in following.lines
    return following


def test_a_stream_opened_with_a_token_ends_when_the_fights_tokens_are_deleted(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "revoked-all")
    follow_then_revoke(
        f"{server.url}/fights/revoked-all/stream?from=1", tokens.viewer, client, "DELETE",
        "/fights/revoked-all/tokens", client, "revoked-all",
    )  # fmt: skip
    again = client.get("/fights/revoked-all/stream", headers=tokens.viewer)
    assert again.status_code == 401


def test_a_stream_opened_with_a_gm_token_ends_when_the_pair_is_reissued(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "revoked-reissued")
    follow_then_revoke(
        f"{server.url}/fights/revoked-reissued/stream?from=1", tokens.gm, client, "POST",
        "/fights/revoked-reissued/tokens", client, "revoked-reissued",
    )  # fmt: skip


def test_a_stream_opened_with_a_ticket_ends_when_its_token_is_revoked_and_others_go_on(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "revoked-named")
    issued = client.post(
        "/fights/revoked-named/tokens/screen", json={"role": "viewer"}, headers=tokens.gm
    )
    screen = bearer(issued.json()["token"])
    ticket = ticket_for(client, "revoked-named", screen)["stream"]
    other = Following(f"{server.url}/fights/revoked-named/stream?from=1", tokens.viewer)
    assert other.opened.wait(30)
    follow_then_revoke(
        f"{server.url}{ticket}&from=1", None, client, "DELETE",
        "/fights/revoked-named/tokens/screen", client, "revoked-named",
    )  # fmt: skip
    for _ in range(100):  # the stream of a token still valid delivers the hit and goes on
        if 4 in other.delivered():
            break
        time.sleep(0.1)
    assert other.delivered() == [1, 2, 3, 4]
    assert other.thread.is_alive()
    client.delete("/fights/revoked-named/tokens", headers=bearer(ADMIN)).raise_for_status()
    assert other.ended_within(ENDED_WITHIN_S)


def test_a_stream_ends_when_another_process_revokes_its_token_on_postgresql(
    postgres_url: str, tmp_path: Path
) -> None:
    with (
        Server(postgres_url, logs=tmp_path) as streaming,
        Server(postgres_url, logs=tmp_path) as revoking,
        httpx.Client(base_url=streaming.url, timeout=30) as first,
        httpx.Client(base_url=revoking.url, timeout=30) as other,
    ):
        tokens = new_fight(first, "revoked-elsewhere")
        follow_then_revoke(
            f"{streaming.url}/fights/revoked-elsewhere/stream?from=1", tokens.viewer, other,
            "DELETE", "/fights/revoked-elsewhere/tokens", other, "revoked-elsewhere",
        )  # fmt: skip


def test_a_ticket_from_before_tickets_kept_their_token_opens_a_stream_that_ends_with_them(
    tmp_path: Path,
) -> None:
    """A tickets table made before (no `token` column) is brought up to date when the store is
    opened; a ticket issued then (a minute's life) opens a stream that lives while the fight has
    a token, and ends when its tokens are deleted."""
    db = tmp_path / "old-tickets.db"
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        tokens = new_fight(client, "old-tickets")
        ticket = ticket_for(client, "old-tickets", tokens.viewer)
    with sqlite3.connect(db) as old:  # back to the table of before: the same row, no token
        rows = old.execute("SELECT hash, fight, expires FROM service_tickets").fetchall()
        old.execute("DROP TABLE service_tickets")
        old.execute(OLD_TICKETS)
        old.executemany("INSERT INTO service_tickets VALUES (?, ?, ?)", rows)
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        follow_then_revoke(
            f"{running.url}{ticket['stream']}&from=1", None, client, "DELETE",
            "/fights/old-tickets/tokens", client, "old-tickets",
        )  # fmt: skip


OLD_TICKETS = """
CREATE TABLE service_tickets (hash TEXT PRIMARY KEY, fight TEXT NOT NULL, expires REAL NOT NULL)
"""
