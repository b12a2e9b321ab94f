"""`woundlog serve`: the fights over HTTP, for other software and the pages."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError, bounded

from ..service.environment import ADMIN_ENV, CORS_ENV
from .options import Context, Db
from .output import console, say


def serve(
    ctx: Context,
    db: Db = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    max_connections: Annotated[
        int, typer.Option(min=1, help="Connections at once; past them, 503.")
    ] = 1000,
    header_timeout: Annotated[
        float, typer.Option(min=0.1, metavar="SECONDS", help="To send a request's head.")
    ] = 10.0,
    body_timeout: Annotated[
        float, typer.Option(min=0.1, metavar="SECONDS", help="To send a request's body.")
    ] = 30.0,
    keep_alive: Annotated[
        int, typer.Option(min=1, metavar="SECONDS", help="Idle time between requests.")
    ] = 5,
    max_header_bytes: Annotated[
        int,
        typer.Option(min=1024, metavar="BYTES", help="Of a head held unfinished; past it, 400."),
    ] = 16 * 1024,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            metavar="HOST", help="Also answer this Host header (repeatable; default: loopback)."
        ),
    ] = None,
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            metavar="TOKEN",
            envvar=ADMIN_ENV,
            show_envvar=True,
            show_default=False,
            help="The admin token (16 characters or more). Set the variable or use "
            "--admin-token-file: a command line is visible to others in `ps`. Default: a "
            "random one, written to a private file beside a SQLite store.",
        ),
    ] = None,
    admin_token_file: Annotated[
        Path | None,
        typer.Option("--admin-token-file", metavar="FILE", help="Read the admin token from FILE."),
    ] = None,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--cors-origin",
            metavar="ORIGIN",
            envvar=CORS_ENV,
            show_envvar=True,
            help="A page allowed to call the service from a browser, e.g. Foundry's "
            "http://localhost:30000 (repeatable; in the variable, comma-separated).",
        ),
    ] = None,
) -> None:
    """Serve the fights over HTTP for other software."""
    # The web stack loads here, when the service runs, not with this module: `woundlog -h`
    # builds every command, this one included.
    from ..service.limits import Limits
    from ..service.serve import serve as run_service

    limits = Limits(max_connections, header_timeout, body_timeout, keep_alive, max_header_bytes)
    admin = given_admin_token(ctx, admin_token, admin_token_file)
    run_service(
        db, host, port, limits, allowed_host or [], admin=admin, cors_origins=cors_origin or []
    )


def given_admin_token(ctx: Context, typed: str | None, file: Path | None) -> str | None:
    """The admin token from `--admin-token` (or its variable) or from `--admin-token-file`.

    Never printed, not even in an error; a token typed on the command line is taken, with a
    warning, since every user of the machine can read it in `ps`."""
    typed_here = getattr(ctx.get_parameter_source("admin_token"), "name", "") == "COMMANDLINE"
    if file is None:
        if typed and typed_here:
            say(
                "warning: --admin-token on the command line is visible to other users (`ps`): "
                "set $WOUNDLOG_ADMIN_TOKEN or use --admin-token-file",
                out=console(stderr=True),
            )
        return typed
    if typed and typed_here:  # the file wins over the variable, as any option does
        raise UsageError("give the admin token once: --admin-token or --admin-token-file")
    from ..service.serve import private_token_file  # the web stack: see `serve`

    private_token_file(file)
    kept = bounded.read(file, limit=bounded.MAX_SECRET, what="a token file")
    try:
        token = kept.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise UsageError(f"--admin-token-file {file} is not text (UTF-8): a token is") from None
    if not token:
        raise UsageError(f"--admin-token-file {file} is empty")
    if not token.isascii() or not token.isprintable():
        raise UsageError(
            f"--admin-token-file {file} holds more than one line of printable ASCII: a token "
            "is sent in an HTTP header"
        )
    return token
