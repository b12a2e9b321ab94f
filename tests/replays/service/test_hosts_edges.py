"""The service's request heads at their edges (issue 39, found missing by the mutation run): a
head's size counted as it is sent, with and without a query; a head of exactly the bound
answered and one byte more refused 431, a whole response; a Host not allowed refused 400 and an
allowed one, in any case, served; what is not a request (the lifespan) passed on unchecked."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from woundlog.replays.service.hosts import HeadBound, HostCheck, head_bytes

T = TypeVar("T")


def run(work: Coroutine[Any, Any, T]) -> T:
    """`work` run to its end in a thread of its own: a test before may leave a loop running in
    this one (a sync Playwright), where `asyncio.run` refuses to start."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


def scope(path: str = "/fights", query: bytes = b"", host: bytes = b"localhost") -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": [(b"host", host), (b"accept", b"*/*")],
    }


def as_sent(path: str, query: bytes, host: bytes) -> bytes:
    target = path.encode() + (b"?" + query if query else b"")
    return b"GET " + target + b" HTTP/1.1\r\nhost: " + host + b"\r\naccept: */*\r\n\r\n"


def test_a_heads_size_is_its_bytes_as_sent() -> None:
    for path, query in (("/fights", b""), ("/fights/f1/state", b"at=3")):
        assert head_bytes(scope(path, query)) == len(as_sent(path, query, b"localhost"))
    sent = scope("/fights/a%20b")  # the path as sent, not as decoded
    sent["path"] = "/fights/a b"
    assert head_bytes(sent) == len(as_sent("/fights/a%20b", b"", b"localhost"))
    del sent["raw_path"]  # optional in ASGI: the path then
    assert head_bytes(sent) == len(as_sent("/fights/a b", b"", b"localhost"))


async def served(app: Any, asked: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(asked, receive, send)
    return sent


async def inner(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok", "more_body": False})


def test_a_head_of_exactly_the_bound_is_served_and_a_byte_more_is_431() -> None:
    asked = scope()
    size = head_bytes(asked)
    assert run(served(HeadBound(inner, size), asked))[0]["status"] == 200
    refused = run(served(HeadBound(inner, size - 1), asked))
    assert refused[0]["status"] == 431
    assert b"larger than" in refused[-1]["body"]
    assert refused[-1]["more_body"] is False  # the whole answer: nothing more follows


def test_a_host_not_allowed_is_400_and_an_allowed_one_in_any_case_is_served() -> None:
    app = HostCheck(inner, ["LocalHost"])
    assert run(served(app, scope(host=b"LOCALHOST")))[0]["status"] == 200
    refused = run(served(app, scope(host=b"evil.example")))
    assert refused[0]["status"] == 400
    assert b"InvalidHost" in refused[-1]["body"] and refused[-1]["more_body"] is False


def test_with_no_host_list_every_host_is_served() -> None:
    """No list of hosts (`create_app`'s `allowed_hosts`: "none: every one"): the check is off."""
    assert run(served(HostCheck(inner, []), scope(host=b"any.example")))[0]["status"] == 200


def test_what_is_not_a_request_is_passed_on_unchecked() -> None:
    passed: list[str] = []

    async def lifespan(scope: Any, receive: Any, send: Any) -> None:
        passed.append(scope["type"])

    for app in (HostCheck(lifespan, ["localhost"]), HeadBound(lifespan, 1)):
        run(app({"type": "lifespan"}, None, None))  # type: ignore[arg-type]
    assert passed == ["lifespan", "lifespan"]
