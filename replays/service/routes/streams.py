"""`/fights/{fight}/stream`: a fight's changes as they happen (server-sent events, stream.py),
and the ticket a browser's EventSource opens it with."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from litestar import Controller, Request, get, post
from litestar.di import NamedDependency
from litestar.params import Parameter
from litestar.response import ServerSentEvent

from woundlog.events.model import SAFE_INT

from ...application import Application, FightId
from ...application.tokens import digest
from ...application.values import Role
from ..guards import SECURITY, Service, authorize, bearer, run
from ..openapi import STREAM, problems
from ..schemas import StreamTicket
from ..stream import changes_stream, first_streamed
from ..tickets import TICKET_S


class StreamsController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post(
        "/stream-ticket",
        status_code=200,
        role=Role.VIEWER,
        responses=problems(401, 403, 404, 422, 503),
    )
    async def stream_ticket(
        self, request: Request[Any, Any, Any], service: NamedDependency[Service], fight: FightId
    ) -> StreamTicket:
        """A ticket that opens this fight's stream, read-only, for a short while (viewer or gm):
        `new EventSource("/fights/FIGHT/stream?ticket=...")`. A browser's EventSource cannot send
        an Authorization header, and a token must never be in a URL. A stream it opens ends when
        the token it was asked with is revoked."""
        ticket = await run(service.fights.tickets.issue, fight, bearer(request))
        return StreamTicket(
            ticket=ticket,
            expires_in=TICKET_S,
            stream=f"/fights/{quote(fight, safe='')}/stream?ticket={ticket}",
        )

    @get(
        "/stream",
        role=Role.VIEWER,
        ticket=True,
        media_type="text/event-stream",
        responses={200: STREAM, **problems(401, 403, 404, 422, 503)},
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        ticket: Annotated[
            str | None,
            Parameter(
                description="A stream ticket (POST /fights/{fight}/stream-ticket), for a client "
                "that cannot send an Authorization header: a browser's EventSource. Never a token.",
                max_length=200,
            ),
        ] = None,
        from_: Annotated[int | None, Parameter(query="from", ge=1, le=SAFE_INT)] = None,
        last_event_id: Annotated[
            int | None, Parameter(header="Last-Event-ID", ge=0, le=SAFE_INT)
        ] = None,
    ) -> ServerSentEvent:
        """Server-sent events (viewer, or a stream ticket): one `changes` message per event, its
        `id` the event's seq, in order. From `from`, else after `Last-Event-ID`, else from the next
        append on. A `deleted` message ends the stream of a fight that was deleted, a `revoked`
        message one whose token (or the token its ticket was issued for) was revoked, within a
        second. A viewer's stream (a viewer token's, or a ticket's that one asked for) is
        redacted as the fight's players' view says."""
        first = first_streamed(await run(app.version, fight), fight, from_, last_event_id)
        if ticket and "authorization" not in request.headers:  # as the guard let it in
            opened_by = await run(service.fights.tickets.issued_for, ticket)
        else:
            opened_by = digest(bearer(request))
        allowed = partial(service.fights.tokens.still_valid, opened_by, fight)
        viewer = await run(service.fights.tokens.role_kept, opened_by) is Role.VIEWER
        return ServerSentEvent(
            changes_stream(app, service.notifier, fight, first, allowed, viewer=viewer)
        )
