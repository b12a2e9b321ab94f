"""`/fights/{fight}/report` and `/timeline`: a fight told after the fact, as the report (JSON,
or the HTML fragment the report page shows) and as the timeline page's windows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import Parameter
from litestar.response import Stream

from woundlog.events.model import SAFE_INT

from ...application import TIMELINE_MAX, Application, FightId, TimelinePage
from ...application.values import Role
from ...report import ChronicleSpool, Report
from ..guards import SECURITY, as_seen, authorize, gated, grant_of
from ..limits import REPORT_MAX


class ReportsController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @get("/report", role=Role.VIEWER)
    async def fight_report(
        self, request: Request[Any, Any, Any], app: NamedDependency[Application], fight: FightId
    ) -> Report:
        """The fight's report (viewer: the GM's characters' numbers as the players' view says,
        those withheld named in `withheld`): each character's and side's numbers, the exact luck
        of its dice, and its chronicle round by round; 413 past REPORT_MAX (50,000) events. Its
        moments are weighed within one budget for the whole report: those past it are left out,
        and `luck.why_left_out` says so."""
        return await reported(request, app, fight)

    @get("/report/fragment", role=Role.VIEWER, media_type="text/html")
    async def fight_report_fragment(
        self, request: Request[Any, Any, Any], app: NamedDependency[Application], fight: FightId
    ) -> Stream:
        """The report as an HTML fragment with its SVG charts (viewer): what the report page
        shows, made by the same code as `woundlog report -o report.html`, streamed: the fight
        is read within the report's budget, its chronicle written aside as it is told, then
        sent as it is written out."""
        from ...render.html import fragment_pieces
        from ...render.markdown import chapters_of

        if grant_of(request).role is Role.VIEWER:
            made = await reported(request, app, fight)  # redacted whole: REPORT_MAX bounds it
            return Stream(
                chunked(fragment_pieces(made, chapters_of(made), timeline="./")), media_type=HTML
            )
        made, spool = await gated(
            request,
            lambda stop: app.report_spooled(fight, most=REPORT_MAX, stop=stop, tracks=True),
        )
        pieces = fragment_pieces(made, spool.chapters(), timeline="./", tracks=spool.tracks)
        return Stream(chunked(pieces, spool), media_type=HTML)

    @get("/timeline", role=Role.VIEWER)
    async def timeline(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        fight: FightId,
        from_: Annotated[int, Parameter(query="from", ge=1, le=SAFE_INT)] = 1,
        limit: Annotated[int, Parameter(ge=1, le=TIMELINE_MAX)] = TIMELINE_MAX,
    ) -> Response[TimelinePage]:
        """Events from seq `from`, at most `limit` (1000), each with what it did as it happened
        (viewer: as the players' view says): each undo with its consequences, each undone event
        with what undid it; page on with `next`. What the timeline page draws."""
        seen = as_seen(request, app, fight)
        return Response(await gated(request, lambda stop: seen(app.timeline(fight, from_, limit))))


async def reported(request: Request[Any, Any, Any], app: Application, fight: str) -> Report:
    """The report, run as odds are: through the gate, at most a few at once per token, stopped
    at its deadline; a viewer's as the players' view says."""
    if grant_of(request).role is Role.VIEWER:
        return await gated(
            request, lambda stop: app.viewer_report(fight, most=REPORT_MAX, stop=stop)
        )
    return await gated(request, lambda stop: app.report(fight, most=REPORT_MAX, stop=stop))


HTML = "text/html; charset=utf-8"
CHUNK = 1 << 16
"""Characters a streamed report sends at a time (each chunk is taken in a worker thread)."""


def chunked(pieces: Iterable[str], closing: ChronicleSpool | None = None) -> Iterator[bytes]:
    """`pieces` in chunks of about CHUNK characters as they are made; `closing` closed once
    they are sent or the client goes."""
    try:
        held: list[str] = []
        size = 0
        for piece in pieces:
            held.append(piece)
            size += len(piece)
            if size >= CHUNK:
                yield "".join(held).encode()
                held, size = [], 0
        if held:
            yield "".join(held).encode()
    finally:
        if closing is not None:
            closing.close()
