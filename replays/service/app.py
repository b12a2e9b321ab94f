"""The HTTP service: an ASGI app over the same stores as the CLI, its routes one controller per
resource (routes/), each handler given the application.

Handlers are async and hand every store call to a worker thread (`anyio.to_thread`), so a slow
fold or a wait for SQLite's write lock never blocks the event loop, and the live streams keep
flowing while appends run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from litestar import Litestar, get
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.config.cors import CORSConfig
from litestar.datastructures import State as AppState
from litestar.exceptions import HTTPException
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.types import ControllerRouterHandler

from woundlog.events import WoundlogError
from woundlog.events.stores import appends_heard
from woundlog.events.stores.reach import OutOfReach

from .bodies import as_sent
from .errors import (
    database_unavailable,
    http_error,
    internal_error,
    nested_too_deeply,
    woundlog_error,
)
from .fights import Fights
from .guards import DEPENDENCIES, Service
from .hosts import HostCheck
from .idempotency import HEADER
from .limits import MAX_BATCH, MAX_BODY
from .openapi import SCHEMA_PATH, assets_router, complete, render_plugins
from .routes.campaigns import CampaignsController
from .routes.dice import DiceController
from .routes.events import EventsController
from .routes.fights import FightsController, delete_fight
from .routes.integrations import IntegrationsController
from .routes.owlbear import OwlbearController
from .routes.pages import page_routes
from .routes.players_view import PlayersViewController
from .routes.reports import ReportsController
from .routes.rulesets import RulesetsController
from .routes.streams import StreamsController
from .routes.tokens import TokensController
from .routes.turns import TurnsController
from .routes.whatifs import WhatIfsController
from .schemas import Health
from .stream import Listener, Notifier


@get("/health", tags=["service"])
async def health() -> Health:
    """Liveness."""
    return Health()


API_DESCRIPTION = """Send a fight's events, get authoritative state back.

Tokens: the admin token (`$WOUNDLOG_ADMIN_TOKEN`) creates, lists and deletes fights and reissues
or revokes a fight's tokens; each fight has gm tokens (read and write) and viewer tokens (read),
each named: `POST /fights` hands out the pair `gm` and `viewer`, `POST
/fights/{fight}/tokens/{name}` more (a gm token, viewer ones), `GET /fights/{fight}/tokens` lists
them and `DELETE /fights/{fight}/tokens/{name}` revokes one. Send a token as `Authorization:
Bearer TOKEN`, never in a URL. A browser's EventSource, which cannot send that header, opens
the stream with a ticket: `POST /fights/{fight}/stream-ticket`, then `GET
/fights/{fight}/stream?ticket=...` within 60 seconds.

Campaigns (`/campaigns/...`) have the same model: the admin token starts one, which answers with
its gm and viewer tokens. A request that reads one log into another takes a token of each:
recording a fight into a campaign, a token of the fight in `Woundlog-Fight-Token`; joining a
fight from a campaign's roster, a token of the campaign in `Woundlog-Campaign-Token`.

Every POST is safe to retry: events by their ids, an undo by its `id`, an import by its records'
identity, `POST /fights` by an `Idempotency-Key` (the same answer, tokens included, for 24 hours).

Every error is an RFC 9457 problem (`application/problem+json`) with `error` (its kind) and
`message`, and for refused events each of them in `errors`. A request that sends its head or body
too slowly is answered 408 and closed."""


def complete_openapi(app: Litestar) -> None:
    """Once, at startup: the document Litestar drew, completed (openapi.py) before anyone reads
    it (it is kept, and served, as this dict)."""
    complete(app.plugins.get(OpenAPIPlugin).provide_openapi_schema())


def routes() -> list[ControllerRouterHandler]:
    """Every route of the service, one line a resource (routes/). Litestar routes by path, so
    their order is no matter."""
    return [
        health,
        FightsController,
        delete_fight,
        EventsController,
        DiceController,
        TurnsController,
        StreamsController,
        TokensController,
        PlayersViewController,
        WhatIfsController,
        ReportsController,
        CampaignsController,
        IntegrationsController,
        OwlbearController,
        RulesetsController,
        *page_routes(),
        assets_router(),
    ]


def create_app(
    store_url: str | None,
    admin_token: str,
    *,
    max_body: int = MAX_BODY,
    max_batch: int = MAX_BATCH,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = (),
    on_startup: Sequence[Callable[[], object]] = (),
) -> Litestar:
    """The app over the store at `store_url`. `cors_origins`: web pages allowed to call it from a
    browser (a Foundry VTT bridge module runs in the page at Foundry's own origin).
    `allowed_hosts`: the `Host` headers answered (`host` or `host:port`; none: every one), so a
    page whose name was rebound to 127.0.0.1 (DNS rebinding) is refused with 400."""
    fights = Fights(store_url, admin_token, max_batch=max_batch)
    notifier = Notifier()
    hear = appends_heard(store_url)
    listeners = [Listener(hear, notifier)] if hear is not None else []
    cors = (
        CORSConfig(
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID", HEADER],
        )
        if cors_origins
        else None
    )
    openapi = OpenAPIConfig(
        title="woundlog",
        version="1",
        description=API_DESCRIPTION,
        path=SCHEMA_PATH,
        render_plugins=render_plugins(),
        components=Components(
            security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}
        ),
    )
    return Litestar(
        route_handlers=routes(),
        dependencies=DEPENDENCIES,
        state=AppState({"service": Service(fights, notifier)}),
        exception_handlers={
            OutOfReach: database_unavailable,
            RecursionError: nested_too_deeply,
            WoundlogError: woundlog_error,
            HTTPException: http_error,
            Exception: internal_error,
        },
        middleware=[DefineMiddleware(HostCheck, allowed=allowed_hosts)] if allowed_hosts else [],
        on_startup=[
            *on_startup,
            *(listener.start for listener in listeners),
            complete_openapi,
        ],
        request_max_body_size=max_body,
        before_request=as_sent,
        openapi_config=openapi,
        on_shutdown=[*(listener.stop for listener in listeners), fights.close],
        cors_config=cors,
    )
