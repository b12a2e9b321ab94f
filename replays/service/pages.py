"""The pages `woundlog serve` serves: the front page, a fight's timeline and its live table view,
a campaign's roster.

The pages are static files (`replays/web/`: HTML, CSS, ES modules, no build step) that read the
same JSON as any other client, with the token the person gives them (kept in the tab's
`sessionStorage`, never in a URL the server sees). The one thing the API lacked is a fight's
history, each event beside what it did and what undid it: `GET /fights/{fight}/timeline`
(viewer), a window of at most TIMELINE_MAX events at a time (the whole of a long fight in one
answer would hold the server's time and memory for all of it), its `next` saying where the next
window starts (`Application.timeline`).

`pages_router(guards)` takes the API's own guards from `create_app`, so the timeline endpoint is
checked exactly as the others are and this module need not import app.py (which imports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from anyio import to_thread
from litestar import Request, Router, get
from litestar.params import Parameter
from litestar.response import File
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler, Guard

from woundlog.events.model import SAFE_INT

from ..application import TIMELINE_MAX, FightId, TimelinePage
from ..application.values import Role
from .fights import Fights

WEB = Path(__file__).resolve().parent.parent / "web"
"""`woundlog/replays/web/`, shipped as package data."""
STATIC = "/web"
HOME = "/"
"""The front page (`home.html`)."""


PAGE_HEADERS = {
    # a page holds a token in its tab: it runs only its own scripts, talks only to this server,
    # is never framed by another site, and names no page of it in a Referer
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    # a page is tiny, and a stale one after an upgrade would call an API it misreads
    "Cache-Control": "no-cache",
}


def page(name: str) -> File:
    return File(WEB / name, filename=name, content_disposition_type="inline")


AS_PAGE: dict[str, Any] = {
    "media_type": "text/html",
    "include_in_schema": False,
    "response_headers": PAGE_HEADERS,
}


def pages_router(guards: Sequence[Guard]) -> Router:
    """The pages, their static files and the timeline endpoint; `guards`: the API's token check
    (it reads the role the endpoint needs from `opt["role"]`)."""

    @get(HOME, **AS_PAGE)
    async def home_page() -> File:
        """What woundlog is, how to open a fight's pages, the API docs; no fight listed."""
        return page("home.html")

    @get("/fights/{fight:str}/", **AS_PAGE)
    async def timeline_page(fight: FightId) -> File:
        """The timeline page; it asks for a token and reads the API itself."""
        return page("timeline.html")

    @get("/fights/{fight:str}/report.html", **AS_PAGE)
    async def report_page(fight: FightId) -> File:
        """The report page beside the timeline (viewer token): numbers, luck, chronicle."""
        return page("report.html")

    @get("/fights/{fight:str}/table", **AS_PAGE)
    async def table_page(fight: FightId) -> File:
        """The large-print live view for players (viewer token)."""
        return page("table.html")

    @get("/campaigns/{campaign:str}/", **AS_PAGE)
    async def campaign_page(campaign: str) -> File:
        """A campaign's roster and each member's history across fights (its viewer token)."""
        return page("campaign.html")

    @get(
        "/fights/{fight:str}/timeline",
        role=Role.VIEWER,
        guards=list(guards),
        security=[{"bearer": []}],
        tags=["fights"],
    )
    async def timeline(
        request: Request[Any, Any, Any],
        fight: FightId,
        from_: Annotated[int, Parameter(query="from", ge=1, le=SAFE_INT)] = 1,
        limit: Annotated[int, Parameter(ge=1, le=TIMELINE_MAX)] = TIMELINE_MAX,
    ) -> TimelinePage:
        """Events from seq `from`, at most `limit` (1000), each with what it did as it happened
        (viewer): each undo with its consequences, each undone event with what undid it; page
        on with `next`. What the timeline page draws."""
        fights: Fights = request.app.state.service.fights
        return await to_thread.run_sync(fights.app.timeline, fight, from_, limit)

    static = create_static_files_router(
        path=STATIC, directories=[WEB], include_in_schema=False, name="web"
    )
    handlers: list[ControllerRouterHandler] = [
        home_page, timeline_page, report_page, table_page, campaign_page, timeline, static
    ]  # fmt: skip
    return Router(path="/", route_handlers=handlers)
