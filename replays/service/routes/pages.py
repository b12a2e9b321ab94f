"""The pages `woundlog serve` serves: the front page, a fight's timeline and its live table view,
a campaign's roster.

The pages are static files (`replays/web/`: HTML, CSS, ES modules, no build step) that read the
same JSON as any other client, with the token the person gives them (kept in the tab's
`sessionStorage`, never in a URL the server sees). The one thing the API lacked is a fight's
history, each event beside what it did and what undid it: `GET /fights/{fight}/timeline`
(viewer), a window of at most TIMELINE_MAX events at a time (the whole of a long fight in one
answer would hold the server's time and memory for all of it), its `next` saying where the next
window starts (`Application.timeline`).

The timeline's windows are a fight's route like any other (reports.py).
"""

from __future__ import annotations

from pathlib import Path

from litestar import Controller, get
from litestar.response import File
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

from ...application import FightId

WEB = Path(__file__).resolve().parent.parent.parent / "web"
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


class PagesController(Controller):
    """The pages: static files a browser opens, none in the OpenAPI document. A fight's own
    address, `/fights/{fight}/`, opens its timeline page (`FightController`, fights.py)."""

    path = "/"
    include_in_schema = False
    response_headers = PAGE_HEADERS

    @get(HOME, media_type="text/html")
    async def home_page(self) -> File:
        """What woundlog is, how to open a fight's pages, the API docs; no fight listed."""
        return page("home.html")

    @get("/fights/{fight:str}/report.html", media_type="text/html")
    async def report_page(self, fight: FightId) -> File:
        """The report page beside the timeline (viewer token): numbers, luck, chronicle."""
        return page("report.html")

    @get("/fights/{fight:str}/table", media_type="text/html")
    async def table_page(self, fight: FightId) -> File:
        """The large-print live view for players (viewer token)."""
        return page("table.html")

    @get("/campaigns/{campaign:str}/", media_type="text/html")
    async def campaign_page(self, campaign: str) -> File:
        """A campaign's roster and each member's history across fights (its viewer token)."""
        return page("campaign.html")


def static_files() -> ControllerRouterHandler:
    """What the pages load (scripts, styles), from `WEB`, under `STATIC`."""
    return create_static_files_router(
        path=STATIC, directories=[WEB], include_in_schema=False, name="web"
    )
