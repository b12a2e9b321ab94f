"""Which `Host` headers the service answers (DNS rebinding: a page whose name was rebound to
127.0.0.1 sends its own name), compared as host names are, without regard to case (RFC 4343):
`LOCALHOST` is `localhost`. Refused with the one problem body every error has (errors.py).

Litestar's own allowed-hosts check compares case-sensitively and answers a bare
`{"message": ...}`; this middleware replaces it.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from litestar.types import ASGIApp, HTTPResponseStartEvent, Receive, Scope, Send

from .schemas import ErrorBody


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
        body = msgspec.json.encode(
            ErrorBody(
                title="Bad Request", status=400, detail=said, error="InvalidHost", message=said
            )
        )
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
