"""Running the service under uvicorn, as `woundlog serve` does: `run`, the service's one entry
(replays/serving.py says why one)."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

from woundlog.events import UsageError
from woundlog.events.stores import open_store

from ..application.tokens import new_token
from ..serving import ADMIN_ENV, Serving
from .access_log import keep_secrets_out_of_the_access_log
from .app import create_app
from .connections import fd_budget, protocol_class, quiet_accept_errors
from .hosts import HeadBound
from .openapi import DOCS_PATH
from .routes.integrations import FOUNDRY, MANIFEST
from .routes.owlbear import MANIFEST as OWLBEAR_MANIFEST
from .routes.owlbear import OWLBEAR
from .routes.pages import HOME

ADMIN_MIN_CHARS = 16  # a token a person chose: long enough not to be guessed over HTTP
GRACE_S = 3  # open streams never end by themselves: on shutdown, close them after this
BACKLOG = 2048
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def admin_token(token_file: Path, given: str | None) -> tuple[str, bool]:
    """The admin token `given` (`--admin-token`, `--admin-token-file`, `$WOUNDLOG_ADMIN_TOKEN`),
    else a new one written to `token_file` (mode 0600, never to the log); and whether it is new."""
    given = (given or "").strip()
    if given:
        if len(given) < ADMIN_MIN_CHARS:
            raise UsageError(
                f"the admin token (${ADMIN_ENV}, --admin-token or --admin-token-file) has "
                f"{len(given)} characters; it needs at least {ADMIN_MIN_CHARS} (or give none, "
                "and a random one is made)"
            )
        return given, False
    token = new_token()
    write_private(token_file, token + "\n")
    return token, True


def shared_admin_token(given: str | None) -> str:
    """The admin token of a service on a PostgreSQL database: every process serving it must
    accept the same one, and no file beside the database can hold it, so it is given."""
    if not (given or "").strip():
        raise UsageError(
            f"a service on a PostgreSQL database takes its admin token from ${ADMIN_ENV} or "
            "--admin-token-file (the same in every process serving it): a secret of at least "
            f"{ADMIN_MIN_CHARS} characters"
        )
    token, _ = admin_token(Path(os.devnull), given)  # given, so checked and never written
    return token


def write_private(path: Path, text: str) -> None:
    """Replace `path` by `text`, readable by its owner only, with no moment where another user
    could open it (created 0600 under a temporary name, then renamed over)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise UsageError(f"cannot write the admin token to {path}: {error.strerror}") from None


def allowed_hosts(host: str, port: int, extra: Sequence[str]) -> list[str]:
    """The Host headers to answer: bound to loopback, only loopback's names (a page whose name
    was rebound to 127.0.0.1 sends its own) plus `extra`; bound elsewhere, `extra` or any."""
    names = [*LOOPBACK_NAMES, *extra] if is_loopback(host) else list(extra)
    return [form for name in names for form in (name, f"{name}:{port}")]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so the port is known (port 0: any free one) before the
    app is made, and so a port in use is a usage error, not a traceback.

    `IPPROTO_TCP` said outright: asyncio sets TCP_NODELAY only on connections whose socket says
    it is TCP, and a socket made without it says 0, which costs every request a 40 ms wait
    (Nagle's algorithm against delayed ACKs)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock


def run(serving: Serving) -> None:
    """Serve the fights of the store `serving` names, as it says (serving.py's `Serving`)."""
    store_url, host, port, limits = serving.store_url, serving.host, serving.port, serving.limits
    admin, cors_origins = serving.admin, serving.cors_origins
    with open_store(store_url) as store:
        token_file = store.side.path  # None: a database server's, shared by processes
    if token_file is None:
        token, generated = shared_admin_token(admin), False
    else:
        token_file = token_file.with_name(token_file.name + ".admin-token")
        token, generated = admin_token(token_file, admin)
    connections = min(limits.max_connections, fd_budget())
    if connections < limits.max_connections:
        say(
            f"serving at most {connections} connections, not {limits.max_connections}: the "
            "process may open too few files for more (`ulimit -n`)"
        )
    sock = listen(host, port)
    bound_port = int(sock.getsockname()[1])
    origins = [o.strip() for each in cors_origins for o in each.split(",") if o.strip()]
    app = create_app(
        store_url,
        token,
        cors_origins=origins,
        allowed_hosts=allowed_hosts(host, bound_port, serving.extra_hosts),
        on_startup=[quiet_accept_errors],
    )
    if generated:
        say(
            f"admin token written to {token_file} (readable by you only; ${ADMIN_ENV} or "
            "--admin-token-file sets one)"
        )
    config = uvicorn.Config(
        HeadBound(app, limits.max_header_bytes),
        http=protocol_class(limits, connections),
        limit_concurrency=connections,
        timeout_keep_alive=limits.keep_alive_s,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_graceful_shutdown=GRACE_S,
        backlog=BACKLOG,
        log_level="info",
    )
    keep_secrets_out_of_the_access_log()
    Announcing(config, served_urls(sock.getsockname())).run(sockets=[sock])


def served_urls(bound: tuple[Any, ...]) -> list[tuple[str, str, str]]:
    """What a person opens or pastes, under the address and port the socket is bound to (port
    0 asked: the one the system chose): (what, URL, where it goes)."""
    address, port = str(bound[0]), int(bound[1])
    base = f"http://{f'[{address}]' if ':' in address else address}:{port}"
    return [
        ("front page", f"{base}{HOME}", "what woundlog is, how to open a fight's pages"),
        ("API docs", f"{base}{DOCS_PATH}", "Swagger UI, served from this package"),
        ("Foundry module", f"{base}{FOUNDRY}/{MANIFEST}", "for Foundry VTT's Install Module"),
        (
            "Owlbear extension",
            f"{base}{OWLBEAR}/{OWLBEAR_MANIFEST}",
            "for Owlbear Rodeo's Add Extension",
        ),
    ]


class Announcing(uvicorn.Server):
    """The server, saying where it is once it answers there.

    Given sockets, uvicorn logs no "Uvicorn running on" line of its own (uvicorn 0.54.0,
    server.py, `Server.startup`: `_log_started_message` only when `sockets is None`), and its
    startup runs the app's lifespan first and serves the sockets last, setting `started`: so
    the URLs are said after it, never for a server whose startup failed."""

    def __init__(self, config: uvicorn.Config, urls: list[tuple[str, str, str]]) -> None:
        super().__init__(config)
        self.urls = urls

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            width = max(len(what) for what, _, _ in self.urls)
            say("\n".join(f"{what:<{width}}  {url}  ({why})" for what, url, why in self.urls))


def say(text: str) -> None:
    # stderr, flushed: what a person (or a test) reads before the server's own log
    print(text, file=sys.stderr, flush=True)
