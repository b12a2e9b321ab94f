"""Who may do what, for every route, and what every route is given: the token or stream ticket
a request brings, checked by a guard before its body is read; the application and the service's
own state, injected into each handler (Litestar's dependency injection); a blocking call run in
a worker thread.

Each controller (routes/) sets its guard once: `authorize` for a fight's routes, with the role
each route needs in its `opt["role"]`, `authorize_campaign` for a campaign's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from anyio import to_thread
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import (
    NotAuthorizedException,
    NotFoundException,
    PermissionDeniedException,
)
from litestar.handlers import BaseRouteHandler

from woundlog.events.fight_ids import campaign_stream, check_fight_id

from ..application import Application
from ..application.tokens import Grant
from ..application.values import Role
from .access_log import TOKEN_PARAMS
from .fights import Fights
from .limits import Stop, WorkGate, budget_of
from .stream import Notifier
from .tickets import TICKET_S

T = TypeVar("T")
SECURITY: list[dict[str, list[str]]] = [{"bearer": []}]
FIGHT_TOKEN = "Woundlog-Fight-Token"
"""The header of a second token: one of the fight a campaign's request reads."""
CAMPAIGN_TOKEN = "Woundlog-Campaign-Token"
"""The header of a second token: one of the campaign a fight's request reads or writes."""


@dataclass
class Service:
    """What the app holds for its guards and handlers (its state's `service`): the application
    and what the HTTP layer keeps beside it (`Fights`), the streams' notifier, the gate that
    work growing with its input runs through (limits.py)."""

    fights: Fights
    notifier: Notifier
    gate: WorkGate = field(default_factory=WorkGate)

    @property
    def app(self) -> Application:
        return self.fights.app


def service(connection: ASGIConnection[Any, Any, Any, Any]) -> Service:
    found: Service = connection.app.state.service
    return found


def _application(state: State) -> Application:
    found: Service = state.service
    return found.app


def _service(state: State) -> Service:
    found: Service = state.service
    return found


DEPENDENCIES = {
    "app": Provide(_application, sync_to_thread=False),
    "service": Provide(_service, sync_to_thread=False),
}
"""What a handler is given by naming it: `app` (the Application), `service` (`Service`)."""


async def run(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """A blocking call, in a worker thread."""
    return await to_thread.run_sync(partial(call, *args, **kwargs))


async def gated(request: Request[Any, Any, Any], work: Callable[[Stop], T]) -> T:
    """`work(stop)` through the gate, within the budget its route declares (limits.budgets),
    in a worker thread of the budget's lane; `stop` raises past the budget's time or once the
    client has gone."""
    gate = service(request).gate
    return await gate.run(bearer(request), work, budget_of(request.scope), request.receive)


def held(request: Request[Any, Any, Any]) -> AbstractAsyncContextManager[Stop]:
    """A slot of the gate for the request, within the budget its route declares: for work
    that runs its own worker-thread calls (a write that then wakes streams)."""
    gate = service(request).gate
    return gate.held(bearer(request), budget_of(request.scope), request.receive)


# --- who may do what -------------------------------------------------------------------------


def bearer(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotAuthorizedException(
            "send `Authorization: Bearer TOKEN`", headers={"WWW-Authenticate": "Bearer"}
        )
    return token.strip()


TOKEN_IN_URL = (
    "a token never goes in a URL (logs, history and Referer headers keep it): send it as "
    "`Authorization: Bearer TOKEN`; a browser's EventSource opens the stream with a ticket, "
    "from POST /fights/{fight}/stream-ticket, as `?ticket=...`"
)


async def credentials(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> Grant:
    """What the request may do: by its bearer token, or on the stream by its ticket."""
    fights = service(connection).fights
    if any(name.lower() in TOKEN_PARAMS for name in connection.query_params):
        raise NotAuthorizedException(TOKEN_IN_URL, headers={"WWW-Authenticate": "Bearer"})
    ticket = connection.query_params.get("ticket")
    if ticket and handler.opt.get("ticket") and "authorization" not in connection.headers:
        opens = await run(fights.tickets.fight_of, ticket)
        if opens is not None:
            return Grant(Role.VIEWER, opens)  # read-only, one fight
        if await run(fights.tokens.grant, ticket) is not None:
            raise NotAuthorizedException(TOKEN_IN_URL, headers={"WWW-Authenticate": "Bearer"})
        raise NotAuthorizedException(
            "unknown or expired stream ticket: ask for a new one (POST "
            "/fights/{fight}/stream-ticket); a ticket opens the stream for "
            f"{TICKET_S} seconds",
            headers={"WWW-Authenticate": "Bearer"},
        )
    grant = await run(fights.tokens.grant, bearer(connection))
    if grant is None:
        raise NotAuthorizedException("unknown token", headers={"WWW-Authenticate": "Bearer"})
    return grant


async def authorize(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """The guard of a fight's routes: 401 no or unknown token, 404 unknown fight, 403 a token
    of another fight or role. A guard runs before the body is read, so an unauthorised request
    learns nothing of what its body would have done. The grant is left in
    `connection.state.grant`."""
    needed: Role = handler.opt["role"]
    fight: str | None = connection.path_params.get("fight")
    grant = await credentials(connection, handler)
    connection.state.grant = grant
    if fight is None:  # creating or listing fights
        if needed is Role.ADMIN and grant.role is not Role.ADMIN:
            raise PermissionDeniedException("creating a fight takes the admin token")
        return
    check_fight_id(fight)
    if not await run(service(connection).app.exists, fight):
        raise NotFoundException(f"no fight `{fight}`")
    if not grant.covers(fight):
        raise PermissionDeniedException(f"this token is for another fight, not `{fight}`")
    if not grant.allows(needed):
        raise PermissionDeniedException(f"a {grant.role.value} token cannot do this")


async def authorize_campaign(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """The guard of a campaign's routes: 401 no or unknown token, 404 unknown campaign, 403 a
    token of another fight or campaign, or of a role that cannot do this."""
    needed: Role = handler.opt["role"]
    grant = await credentials(connection, handler)
    connection.state.grant = grant
    campaign: str | None = connection.path_params.get("campaign")
    if campaign is None:
        if grant.role is not Role.ADMIN:
            raise PermissionDeniedException("starting a campaign takes the admin token")
        return
    stream = campaign_stream(campaign)
    if not await run(_version, service(connection).app, stream):
        raise NotFoundException(f"no campaign `{campaign}`")
    if not grant.covers(stream):
        raise PermissionDeniedException(f"this token is not one of campaign `{campaign}`")
    if not grant.allows(needed):
        raise PermissionDeniedException(f"a {grant.role.value} token cannot do this")


def _version(app: Application, stream: str) -> int:
    return app.store.version(stream)  # the store of the worker thread this runs in


def grant_of(request: Request[Any, Any, Any]) -> Grant:
    found: Grant = request.state.grant
    return found


def as_seen(request: Request[Any, Any, Any], app: Application, fight: str) -> Callable[[T], Any]:
    """What the request's token is shown of a value read from `fight`: the value whole for the
    GM and the admin, as the players' view redacts it for a viewer (application/redaction.py).
    Called in the worker thread that read it."""
    if grant_of(request).role is not Role.VIEWER:
        return lambda value: value
    return partial(app.seen_by_viewer, fight)


def as_campaign_seen(
    request: Request[Any, Any, Any], app: Application, campaign: str
) -> Callable[[T], Any]:
    """`as_seen`, of a value read from a campaign (its members of a GM's kind)."""
    if grant_of(request).role is not Role.VIEWER:
        return lambda value: value
    return partial(app.seen_by_campaign_viewer, campaign)


async def also_allowed(
    request: Request[Any, Any, Any],
    header: str,
    stream: str,
    what: str,
    needed: Role = Role.VIEWER,
) -> None:
    """The request's bearer token covers one stream; the token in `header` must cover `stream`,
    the other one it reads (or, `needed` GM, writes), in that role (the admin's bearer token
    covers both)."""
    if grant_of(request).role is Role.ADMIN:
        return
    token = request.headers.get(header, "").strip()
    verb = "reads" if needed is Role.VIEWER else "writes"
    if not token:
        raise PermissionDeniedException(
            f"this {verb} {what}: send a {needed.value} token of it in `{header}`"
        )
    other: Grant | None = await run(service(request).fights.tokens.grant, token)
    if other is None or not other.covers(stream):
        raise PermissionDeniedException(f"the token in `{header}` is not one of {what}")
    if not other.allows(needed):
        raise PermissionDeniedException(
            f"the token in `{header}` is a {other.role.value} token; this {verb} {what}: "
            f"send its {needed.value} token"
        )
