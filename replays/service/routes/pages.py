"""The pages `woundlog serve` serves: the front page, a fight's timeline, report and live table
view, a campaign's roster.

The pages are static files (`replays/web/`: HTML, CSS, ES modules, no build step) that read the
same JSON as any other client, with the token the person gives them (kept in the tab's
`sessionStorage`, never in a URL the server sees).

A page says where it is served in its own head, `<meta name="woundlog-page"
content="/fights/{fight}/table">`, and this module serves every `web/*.html` at the address it
names: adding a page is its HTML and its script, nothing here. A page that names no address
fails the service's start, not a user's visit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from litestar import get
from litestar.handlers import HTTPRouteHandler
from litestar.response import File
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

WEB = Path(__file__).resolve().parent.parent.parent / "web"
"""`woundlog/replays/web/`, shipped as package data."""
STATIC = "/web"
HOME = "/"
"""The front page's address (`home.html` names it), which `woundlog serve` prints."""
ADDRESS = re.compile(r'<meta name="woundlog-page" content="([^"]+)">')

PAGE_HEADERS = {
    # a page holds a token in its tab: it runs only its own scripts, talks only to this server,
    # is never framed by another site, and names no page of it in a Referer
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    # a page is tiny, and a stale one after an upgrade would call an API it misreads
    "Cache-Control": "no-cache",
}


class PageWithoutAddress(RuntimeError):
    """A page in `web/` that does not say where it is served."""


@dataclass(frozen=True)
class Page:
    file: str
    address: str
    """Where it is served, as its head names it: `/fights/{fight}/table`."""


def pages() -> tuple[Page, ...]:
    """Every page in `web/` with the address it names, in file order."""
    found = []
    for html in sorted(WEB.glob("*.html")):
        named = ADDRESS.search(html.read_text(encoding="utf-8"))
        if named is None:
            raise PageWithoutAddress(
                f"{html.name} names no address: add "
                '<meta name="woundlog-page" content="/its/address"> to its head'
            )
        found.append(Page(html.name, named[1]))
    return tuple(found)


def page(name: str) -> File:
    return File(WEB / name, filename=name, content_disposition_type="inline")


def _served(found: Page) -> HTTPRouteHandler:
    """The GET handler of one page. A page is the same file for every fight or campaign: it
    reads the id from its own address and asks the API, which checks it."""

    async def served() -> File:
        return page(found.file)

    return get(
        found.address.replace("}", ":str}"),
        name=f"page:{found.file}",
        media_type="text/html",
        include_in_schema=False,
        response_headers=PAGE_HEADERS,
    )(served)


def page_routes() -> list[ControllerRouterHandler]:
    """Every page at its address, and what the pages load (scripts, styles) under `STATIC`."""
    routes: list[ControllerRouterHandler] = [_served(found) for found in pages()]
    routes.append(
        create_static_files_router(
            path=STATIC, directories=[WEB], include_in_schema=False, name="web"
        )
    )
    return routes
