"""`woundlog serve`: the fights over HTTP, for other software and the pages; `woundlog share`: a
fight's pages handed out, with tokens of their own.

Both reach the HTTP service (replays/service/) through its one entry alone, `run(Serving)`, in
`start_service`: the one import of one front end by another that pyproject.toml's import
contracts allow. The settings are values (replays/serving.py), and `share`'s tokens are the
application's (`Application.kept_tokens`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from woundlog.events import UsageError, bounded

from ..application import Application
from ..application.redaction import MonsterHp
from ..application.sharing import DEFAULT_BASE, Shared, SharedCampaign, TokenKeeper, base_url
from ..application.values import Role, TokenInfo
from ..serving import ADMIN_ENV, CORS_ENV, Limits, Serving, private_token_file
from .application import application
from .options import AsJson, Context, Db, valid_fight_id
from .output import console, print_json, say, shown


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
    limits = Limits(max_connections, header_timeout, body_timeout, keep_alive, max_header_bytes)
    admin = given_admin_token(ctx, admin_token, admin_token_file)
    start_service(
        Serving(
            db,
            host,
            port,
            limits,
            extra_hosts=allowed_host or [],
            admin=admin,
            cors_origins=cors_origin or [],
        )
    )


def start_service(serving: Serving) -> None:
    """Run the HTTP service as `serving` says, in the foreground, till it is stopped.

    The one import of the service by the CLI (pyproject.toml's import contracts name it):
    `woundlog serve` is the service's launcher, and `run` its one entry. Imported here, when
    the service runs, not with this module: `woundlog -h` builds every command, this one
    included, and must not load the web stack."""
    from ..service import run

    run(serving)


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


# --- share --------------------------------------------------------------------------------


def share(
    ctx: Context,
    fight: Annotated[
        str | None,
        typer.Argument(
            metavar="FIGHT",
            show_default=False,
            help="The fight's id in the store.",
            callback=lambda given: None if given is None else valid_fight_id(given),
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--campaign", metavar="CAMPAIGN", help="A campaign's page in place of a fight's."
        ),
    ] = None,
    monsters: Annotated[
        MonsterHp | None,
        typer.Option(
            "--monsters",
            help="What viewer links show of monsters' hit points (kept for the fight).",
            show_default=False,
        ),
    ] = None,
    gm: Annotated[
        bool, typer.Option("--gm", help="Also a gm token: the timeline link then writes.")
    ] = False,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="The viewer token's name (its gm token: NAME-gm). Default: viewer-N.",
        ),
    ] = None,
    serve_too: Annotated[
        bool,
        typer.Option("--serve", help="Then start the service here, unless one answers at --url."),
    ] = False,
    url: Annotated[
        str, typer.Option("--url", metavar="BASE", help="The service's address in the links.")
    ] = DEFAULT_BASE,
    list_: Annotated[
        bool, typer.Option("--list", help="List the fight's tokens (names, roles, issued).")
    ] = False,
    revoke: Annotated[
        str | None,
        typer.Option("--revoke", metavar="NAME", help="Revoke the fight's token NAME."),
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Hand out a fight's pages: a new viewer token (with --gm a gm token too), beside the
    tokens already out, and the timeline and table links that open with it, with a QR code
    of the table view for players' phones. --list and --revoke NAME manage the tokens;
    --monsters hidden|bands|shown sets what viewer tokens see of monsters' hit points (bands,
    Healthy to Defeated, till it is set); --campaign C hands out a campaign's page instead."""
    base = base_url(url)
    if (fight is None) == (campaign is None):
        raise UsageError("name a fight, or a campaign with --campaign (one of them)")
    if campaign is not None:
        asked = ["--list"] * list_ + ["--revoke"] * (revoke is not None)
        if asked:
            raise UsageError(f"--campaign and {' and '.join(asked)}: give them with a fight")
        return share_campaign(ctx, db, campaign, base, gm=gm, name=name, monsters=monsters,
                              serve_too=serve_too, as_json=as_json)  # fmt: skip
    assert fight is not None
    if list_ or revoke is not None:
        asked = [
            flag for flag, on in (("--gm", gm), ("--name", name), ("--serve", serve_too)) if on
        ]
        asked += ["--monsters"] * (monsters is not None)
        if (list_ and revoke is not None) or asked:
            given = ["--list"] * list_ + ["--revoke"] * (revoke is not None) + asked
            raise UsageError(f"{' and '.join(given)}: give --list or --revoke NAME alone")
    with fight_tokens(db, fight) as (app, keeper):
        if list_:
            held = app.tokens_of(fight, keeper)
            return print_json(held) if as_json else print_tokens(fight, held)
        if revoke is not None:
            role = app.revoke_token(fight, keeper, revoke, HOLDER)
            if as_json:
                return print_json({"fight": fight, "revoked": revoke, "role": role})
            return say(f"revoked the {role} token `{revoke}` of `{fight}`: its links stop working")
        view = app.set_players_view(fight, monsters) if monsters is not None else None
        handed = app.share(fight, keeper, base=base, gm=gm, name=name)
    if as_json:
        print_json(handed)
    else:
        if view is not None:
            say(f"viewer tokens of `{fight}` now see monsters' hit points {WORDS[view.monsters]}")
        print_shared(handed)
    if serve_too:
        serve_unless_answering(ctx, db, base)


WORDS = {
    MonsterHp.HIDDEN: "not at all",
    MonsterHp.BANDS: "as Healthy, Hurt, Bloodied or Defeated",
    MonsterHp.SHOWN: "as numbers",
}


def share_campaign(
    ctx: Context,
    db: str | None,
    campaign: str,
    base: str,
    *,
    gm: bool,
    name: str | None,
    monsters: MonsterHp | None,
    serve_too: bool,
    as_json: bool,
) -> None:
    """`woundlog share --campaign C`: a campaign page's link with a new token (and with
    `--monsters`, what its viewer tokens see of its members of a GM's kind)."""
    with application(db, create=False) as app, app.kept_tokens() as keeper:
        view = None
        if monsters is not None:
            view = app.set_campaign_players_view(campaign, monsters)
        handed = app.share_campaign(campaign, keeper, base=base, gm=gm, name=name)
    if as_json:
        print_json(handed)
    else:
        if view is not None:
            say(f"viewer tokens of campaign `{campaign}` now see its monsters' hit points "
                f"{WORDS[view.monsters]}")  # fmt: skip
        print_campaign_shared(handed)
    if serve_too:
        serve_unless_answering(ctx, db, base)


def print_campaign_shared(handed: SharedCampaign) -> None:
    names = f"viewer token `{handed.viewer.name}`"
    if handed.gm is not None:
        names += f" and gm token `{handed.gm.name}`"
    say(f"{names} for campaign `{handed.campaign}` (shown this once)")
    say(f"page      {handed.page}")


HOLDER = Role.ADMIN
"""Whoever runs the CLI on a store holds the store itself, and so every token of its fights."""


@contextmanager
def fight_tokens(db: str | None, fight: str) -> Iterator[tuple[Application, TokenKeeper]]:
    """The application over the store `db` names, and the tokens kept beside it
    (`Application.kept_tokens`: those `woundlog serve` reads, so a token handed out here works
    there at once)."""
    with application(db, create=False) as app:
        app.fight(fight)  # a fight not there is said as by every command, before any table
        with app.kept_tokens() as keeper:
            yield app, keeper


def print_tokens(fight: str, held: Sequence[TokenInfo]) -> None:
    from rich.table import Table

    table = Table(title=f"tokens of {shown(fight)}", title_justify="left")
    for column in ("name", "role", "issued"):
        table.add_column(column)
    for each in held:
        issued = "-" if each.issued is None else each.issued.isoformat(timespec="seconds")
        table.add_row(shown(each.name), each.role.value, issued)
    console().print(table)


def print_shared(handed: Shared) -> None:
    import segno  # the QR code, only when one is shown

    names = f"viewer token `{handed.viewer.name}`"
    if handed.gm is not None:
        names += f" and gm token `{handed.gm.name}`"
    say(f"{names} for `{handed.fight}` (shown this once; the tokens already out still work)")
    opens = "GM: reads and writes" if handed.gm is not None else "reads"
    say(f"timeline  {handed.timeline}  ({opens})")
    say(f"table     {handed.table}  (players: reads)")
    if handed.console is not None:
        say(f"console   {handed.console}  (GM: run the fight from a phone)")
    segno.make_qr(handed.table).terminal(out=sys.stdout, compact=True)
    say(
        f"the QR code is the table link; `woundlog share {handed.fight} --revoke "
        f"{handed.viewer.name}` ends it, `--list` lists the tokens"
    )


def serve_unless_answering(ctx: Context, db: str | None, base: str) -> None:
    """`woundlog serve` on the host and port of `base`, in the foreground, unless a service
    already answers its health route there."""
    import httpx

    try:
        if httpx.get(f"{base}/health", timeout=HEALTH_TIMEOUT_S).status_code == 200:
            return say(f"a service answers at {base}: the links work now")
    except httpx.HTTPError:
        pass
    parts = urlsplit(base)
    if parts.scheme != "http" or parts.path:
        raise UsageError(
            f"nothing answers at {base}, and `--serve` serves plain http://HOST:PORT only: "
            "start the service behind that address yourself"
        )
    admin = os.environ.get(ADMIN_ENV)  # else a new one, kept beside the store, as `serve`
    host = parts.hostname or "127.0.0.1"
    start_service(Serving(db, host, parts.port or 80, admin=admin))


HEALTH_TIMEOUT_S = 2.0
