"""Issue 24: the access log holds no secret: a token sent in a URL is refused (in any case of the
parameter's name) and not written, and a stream ticket is never written."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from .conftest import new_fight
from .server import Server
from .test_stream_ticket import first_messages, ticket_for

SECRET = "s3cret-token-in-the-url-0123456789"


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("logged") / "logged.db") as running:
        yield running


def log_once_written(server: Server, mark: str) -> str:
    """The server's log, once the access line of a request to `mark` is in it."""
    for _ in range(100):
        text = server.log.read_text()
        if mark in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"no access line for {mark} in {server.log.read_text()}")


@pytest.mark.parametrize("name", ["token", "Token", "TOKEN", "Access_Token", "gm_token"])
def test_a_token_in_the_url_is_refused_in_any_case_and_never_logged(
    logged: Server, name: str
) -> None:
    with httpx.Client(base_url=logged.url, timeout=30) as client:
        fight = f"logged-{name}"
        tokens = new_fight(client, fight)
        path = f"/fights/{fight}/state?{name}={SECRET}&at=1"
        refused = client.get(path, headers=tokens.viewer)
        assert refused.status_code == 401, refused.text
        assert "never goes in a URL" in refused.json()["message"]
    text = log_once_written(logged, f"/fights/{fight}/state?")
    assert SECRET not in text
    assert "[redacted]" in text and "at=1" in text


def test_a_stream_ticket_is_never_logged(logged: Server) -> None:
    with httpx.Client(base_url=logged.url, timeout=30) as client:
        tokens = new_fight(client, "ticket-log")
        ticket = ticket_for(client, "ticket-log", tokens.viewer)
    assert first_messages(logged, ticket["stream"] + "&from=1", 1)
    text = log_once_written(logged, "/fights/ticket-log/stream?")
    assert ticket["ticket"] not in text
