"""What a client may cost the server: connections, time to send a request, file descriptors.

uvicorn gives the connection limit (`limit_concurrency`: past it, a request is answered 503 and
its connection closed), the idle time between requests (`timeout_keep_alive`) and the size of a
request's head (`h11_max_incomplete_event_size`). It has no deadline for *receiving* a request:
`timeout_keep_alive` only runs between requests and any byte stops it, so a client that sends
half a header, or a body a byte at a time, holds its connection, and its file descriptor,
forever (uvicorn issue #157 plans `--timeout-request-start`; its PR #1685 was closed unmerged).
The documented way in is uvicorn's `http` setting, which takes a protocol class: `Deadlines`
below is uvicorn's own h11 protocol plus two timers, one for the request's head and one for its
body, disarmed as soon as the request is complete. So a slow or stalled client is dropped while
every other is served, and a response that takes long (a live stream) is never cut.

A connection opened while the server already holds its limit gets `OVER_LIMIT_GRACE_S` to send
its request (answered 503 by uvicorn), so connections past the limit cannot pile up either. And
one client address holds at most a tenth of the connections unfinished (`SLOW_SHARE`): past
that, a new connection from it is answered 429 and closed at once, so one client reopening slow
connections as fast as they are dropped cannot take the rest from everyone else. (Behind a
proxy every client has the proxy's address; a proxy that buffers whole requests, as nginx does
by default, sends none slowly.)

File descriptors: the connection limit is kept within what the process may open (`ulimit -n`,
raised to its hard limit at start), leaving room for the store's files, so the server never
reaches "Too many open files"; if a flood still gets there, the accept loop says so in one line
now and then (`quiet_accept_errors`) instead of a traceback per attempt.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..serving import Limits

log = logging.getLogger("woundlog.service")

OVER_LIMIT_GRACE_S = 1.0
WORKER_THREADS = 40  # anyio's default worker-thread limit: each may hold a store open
FDS_PER_WORKER = 4  # an SQLite store: the database, its -wal and -shm, and one to spare
FDS_SPARE = 32  # listening socket, standard streams, the event loop's own, service.db
ACCEPT_ERROR_EVERY_S = 10.0


def fd_budget() -> int:
    """How many connections the process can hold open with room to spare for its stores,
    after raising the soft limit on open files to the hard one. A connection past the limit
    holds a descriptor for up to OVER_LIMIT_GRACE_S too, so half of what is left."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass  # some systems cap it lower (macOS): keep the soft limit
    room = soft - WORKER_THREADS * FDS_PER_WORKER - FDS_SPARE
    return max(room // 2, 1)


def protocol_class(limits: Limits, connections: int | None = None) -> type[H11Protocol]:
    """uvicorn's h11 protocol with these limits' request deadlines, and at most a tenth of the
    `connections` the server holds (default: `limits.max_connections`) still sending their
    request from any one client address."""

    class Limited(Deadlines):
        header_timeout_s = limits.header_timeout_s
        body_timeout_s = limits.body_timeout_s
        slow_per_client = max(
            MIN_SLOW_PER_CLIENT, (connections or limits.max_connections) // SLOW_SHARE
        )
        slow: ClassVar[dict[str, int]] = {}

    return Limited


SLOW_SHARE = 10
"""One client address may hold at most 1/SLOW_SHARE of the server's connections unfinished
(its request's head or body not all sent): so a client reopening a thousand slow connections
as fast as they are dropped leaves the rest for everyone else, `/health` included."""
MIN_SLOW_PER_CLIENT = 4


class Deadlines(H11Protocol):
    """uvicorn's h11 protocol, plus: the head of a request must arrive within
    `header_timeout_s` of its first byte (or of the connection's opening), and its body within
    `body_timeout_s` of the head; else the connection is answered 408 and closed."""

    header_timeout_s = 10.0
    body_timeout_s = 30.0
    slow_per_client = 100
    slow: ClassVar[dict[str, int]] = {}
    """Per client address, its connections whose request is not all there yet (event loop only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: object = None  # h11.IDLE: the head; h11.SEND_BODY: the body
        self._address = ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = self.client[0] if self.client else ""
        if self.slow.get(self._address, 0) >= self.slow_per_client:
            _DROPS.count(self.loop, "refused: their address held too many unfinished requests")
            transport.write(_BUSY_RESPONSE)
            transport.close()
            return
        over = self.limit_concurrency is not None and len(self.connections) > self.limit_concurrency
        self._arm(h11.IDLE, OVER_LIMIT_GRACE_S if over else self.header_timeout_s)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # between requests uvicorn's keep-alive timeout runs instead

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Set the timer for what the client still owes, after bytes came in."""
        if self.transport.is_closing():
            self._disarm()
            return
        state = self.conn.their_state
        if state is h11.IDLE:  # the head is not all there (maybe the next request's first bytes)
            if self._waiting_for is not h11.IDLE:
                self._arm(h11.IDLE, self.header_timeout_s)
        elif state is h11.SEND_BODY:
            if self._waiting_for is not h11.SEND_BODY:
                self._arm(h11.SEND_BODY, self.body_timeout_s)
        else:  # the request is complete (or the connection is over)
            self._disarm()

    def _arm(self, waiting_for: object, seconds: float) -> None:
        self._disarm()
        self._waiting_for = waiting_for
        self._deadline = self.loop.call_later(seconds, self._expired)
        self.slow[self._address] = self.slow.get(self._address, 0) + 1

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._slow_done()
        self._deadline = None
        self._waiting_for = None

    def _slow_done(self) -> None:
        left = self.slow.get(self._address, 0) - 1
        if left > 0:
            self.slow[self._address] = left
        else:
            self.slow.pop(self._address, None)

    def _expired(self) -> None:
        self._deadline = None
        self._slow_done()
        if self.transport.is_closing():
            return
        what = "head" if self._waiting_for is h11.IDLE else "body"
        _DROPS.count(self.loop, f"too slow to send a request's {what}")
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(_TIMEOUT_RESPONSE)
        self.transport.close()


class _Drops:
    """Connections closed as too slow, said in one line every ACCEPT_ERROR_EVERY_S at most: a
    flood of them must not become a flood of log lines."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.pending: asyncio.TimerHandle | None = None

    def count(self, loop: asyncio.AbstractEventLoop, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        if self.pending is None:
            self.pending = loop.call_later(ACCEPT_ERROR_EVERY_S, self.say)

    def say(self) -> None:
        counts, self.counts, self.pending = self.counts, {}, None
        said = ", ".join(f"{n} {what}" for what, n in counts.items())
        log.warning("closed connections in the last %s s: %s", ACCEPT_ERROR_EVERY_S, said)


_DROPS = _Drops()

_TIMEOUT_BODY = b'{"error":"RequestTimeout","message":"the request was not sent in time"}'
_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n\r\n"
    + _TIMEOUT_BODY
)  # fmt: skip


_BUSY_BODY = (
    b'{"error":"TooManyRequests","message":"this address has too many connections still '
    b'sending their request: finish or close one first"}'
)
_BUSY_RESPONSE = (
    b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    b"connection: close\r\ncontent-length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n"
    + _BUSY_BODY
)  # fmt: skip


def quiet_accept_errors() -> None:
    """On the running loop: "out of file descriptors" on accept is said once every
    ACCEPT_ERROR_EVERY_S, without a traceback (asyncio logs one per try, thousands a second);
    every other loop error goes to the default handler."""
    loop = asyncio.get_running_loop()
    last = [-ACCEPT_ERROR_EVERY_S]

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - last[0] >= ACCEPT_ERROR_EVERY_S:
            last[0] = now
            log.warning(
                "cannot accept connections: %s (the process's open files, `ulimit -n`, are all "
                "in use); waiting connections are accepted as others close",
                context.get("exception"),
            )

    loop.set_exception_handler(handle)
