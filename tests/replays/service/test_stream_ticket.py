"""Issue 13: a stream a browser's EventSource can open (it sends no Authorization header): a
short-lived, read-only ticket of one fight in the query string, never a token in a URL. Over real
HTTP on loopback; test_browser.py opens one in Chromium."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx

from .conftest import new_fight
from .server import ADMIN, Server, bearer
from .sse import messages


def ticket_for(client: httpx.Client, fight: str, headers: dict[str, str]) -> dict[str, Any]:
    answer = client.post(f"/fights/{fight}/stream-ticket", headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def first_messages(server: Server, path: str, count: int) -> list[tuple[int, dict[str, Any]]]:
    timeout = httpx.Timeout(30, read=15)
    got: list[tuple[int, dict[str, Any]]] = []
    with httpx.stream("GET", f"{server.url}{path}", timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for message in messages(response):
            got.append(message)
            if len(got) == count:
                break
    return got


def opened(client: httpx.Client, path: str, **params: Any) -> httpx.Response:
    """The answer to opening a stream, read with a deadline. A refusal's body is read whole; a
    stream wrongly opened is closed at once without reading it (its body never ends, and its
    heartbeats beat any read timeout), so a test that expects a refusal fails instead of
    hanging."""
    with client.stream("GET", path, params=params or None, timeout=httpx.Timeout(10)) as answer:
        if answer.status_code != 200:
            answer.read()
    return answer


def test_a_viewer_tickets_stream_opens_without_an_authorization_header(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "ticketed")
    ticket = ticket_for(client, "ticketed", tokens.viewer)
    assert ticket["expires_in"] == 60
    assert ticket["stream"] == f"/fights/ticketed/stream?ticket={ticket['ticket']}"
    got = first_messages(server, ticket["stream"] + "&from=1", 3)
    assert [seq for seq, _ in got] == [1, 2, 3]


def test_a_gm_token_also_gets_a_ticket_and_the_ticket_opens_the_stream_again(
    server: Server, client: httpx.Client
) -> None:
    tokens = new_fight(client, "ticketed-gm")
    path = ticket_for(client, "ticketed-gm", tokens.gm)["stream"] + "&from=2"
    assert [seq for seq, _ in first_messages(server, path, 1)] == [2]
    # an EventSource reconnects by itself with the same URL: within the minute it still opens
    assert [seq for seq, _ in first_messages(server, path, 1)] == [2]


def test_a_ticket_reads_only_its_own_fights_stream(client: httpx.Client) -> None:
    tokens = new_fight(client, "ticket-own")
    new_fight(client, "ticket-other")
    ticket = ticket_for(client, "ticket-own", tokens.viewer)["ticket"]
    other = opened(client, "/fights/ticket-other/stream", ticket=ticket, **{"from": 1})
    assert other.status_code == 403
    # and nothing but the stream: a ticket is no token
    state = client.get("/fights/ticket-own/state", params={"ticket": ticket})
    assert state.status_code == 401


def test_a_gm_token_in_the_query_string_is_refused_saying_to_use_a_ticket(
    client: httpx.Client,
) -> None:
    tokens = new_fight(client, "no-token-urls")
    gm = tokens.gm["Authorization"].removeprefix("Bearer ")
    for params in ({"ticket": gm}, {"token": gm}, {"access_token": gm}):
        refused = opened(client, "/fights/no-token-urls/stream", **params)
        assert refused.status_code == 401, params
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert "stream-ticket" in refused.json()["detail"]
        assert "never goes in a URL" in refused.json()["detail"]


def test_an_unknown_ticket_is_401_saying_to_ask_for_a_new_one(client: httpx.Client) -> None:
    new_fight(client, "ticket-unknown")
    refused = opened(client, "/fights/ticket-unknown/stream", ticket="made-up")
    assert refused.status_code == 401
    assert "ask for a new one" in refused.json()["detail"]


def test_an_expired_ticket_no_longer_opens_the_stream(tmp_path: Path) -> None:
    db = tmp_path / "tickets.db"
    with Server(db) as running, httpx.Client(base_url=running.url, timeout=30) as client:
        tokens = new_fight(client, "ticket-late")
        ticket = ticket_for(client, "ticket-late", tokens.viewer)
        with sqlite3.connect(db) as raw:  # a minute goes by
            raw.execute("UPDATE service_tickets SET expires = expires - 61")
        late = opened(client, ticket["stream"])
        assert late.status_code == 401
        assert "expired" in late.json()["detail"]


def test_revoked_tokens_take_their_tickets_with_them(client: httpx.Client) -> None:
    tokens = new_fight(client, "ticket-revoked")
    ticket = ticket_for(client, "ticket-revoked", tokens.viewer)
    client.delete("/fights/ticket-revoked/tokens", headers=bearer(ADMIN)).raise_for_status()
    assert opened(client, ticket["stream"]).status_code == 401
