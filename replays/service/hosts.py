"""What request heads the service answers: which `Host` headers (DNS rebinding: a page whose
name was rebound to 127.0.0.1 sends its own name), compared as host names are, without regard
to case (RFC 4343): `LOCALHOST` is `localhost`; and how large a head may be
(`--max-header-bytes`). Refused with the one problem body every error has (errors.py).

Litestar's own allowed-hosts check compares case-sensitively and answers a bare
`{"message": ...}`; `HostCheck` replaces it.

uvicorn bounds a head only while it is incomplete (h11's `max_incomplete_event_size`: 400 at
once, before the head's timeout): a whole head of 64 KB that arrived in one read was answered.
`HeadBound` bounds the head as the app receives it: 431, Request Header Fields Too Large. Which
of the two a head past the bound gets depends on how its bytes arrive; it is refused either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from litestar.types import ASGIApp, HTTPResponseStartEvent, Receive, Scope, Send

from .schemas import ErrorBody


def _problem(status: int, title: str, error: str, said: str) -> bytes:
    return msgspec.json.encode(
        ErrorBody(title=title, status=status, detail=said, error=error, message=said)
    )


TOO_LARGE = 431, "Request Header Fields Too Large"


def _head_too_large(bound: int) -> bytes:
    return _problem(
        *TOO_LARGE,
        "HeadersTooLarge",
        f"the request's head (its request line and headers) is larger than {bound} bytes "
        "(see `woundlog serve --max-header-bytes`)",
    )


def head_bytes(scope: Mapping[str, Any]) -> int:
    """The size of an HTTP request's head as sent (HTTP/1.1), from its ASGI scope: its request
    line, each header line and the blank line that ends it."""
    query: bytes = scope.get("query_string", b"")
    path: bytes = scope.get("raw_path") or str(scope["path"]).encode()
    target = len(path) + (len(query) + 1 if query else 0)
    line = len(str(scope["method"])) + 1 + target + len(" HTTP/1.1\r\n")
    headers: Iterable[tuple[bytes, bytes]] = scope["headers"]
    return line + sum(len(name) + len(value) + 4 for name, value in headers) + 2


class HeadBound:
    """An ASGI app around the service's: a request whose head is larger than `bound` bytes
    gets 431 before the service sees it."""

    def __init__(self, app: ASGIApp, bound: int) -> None:
        self.app = app
        self.bound = bound

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw: Mapping[str, Any] = scope  # uvicorn's: its lifespan's too, no request's head
        if raw["type"] != "http" or head_bytes(raw) <= self.bound:
            await self.app(scope, receive, send)
            return
        body = _head_too_large(self.bound)
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": TOO_LARGE[0],
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})


class HostCheck:
    """An ASGI middleware: requests whose Host is not one of `allowed` get 400."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(host.lower() for host in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not self.allowed:
            await self.app(scope, receive, send)
            return
        host = next((v for k, v in scope["headers"] if k == b"host"), b"").decode("latin-1")
        if host.lower() in self.allowed:
            await self.app(scope, receive, send)
            return
        said = (
            "this server does not answer to that Host header (see `woundlog serve --allowed-host`)"
        )
        body = _problem(400, "Bad Request", "InvalidHost", said)
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})
