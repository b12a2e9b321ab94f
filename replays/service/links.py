"""Where a fight's pages are, and a link that opens one with its token.

The token goes in the fragment (`#viewer=...`, `#gm=...`): a browser never sends the fragment
to the server, so no access log, history sync or Referer carries it, and the page's auth.js
moves it into the tab's sessionStorage and clears it from the address bar. Kept apart from
pages.py so that `woundlog share` builds links without loading the web stack.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit

import msgspec

from woundlog.events import UsageError

from .tokens import Issued

TIMELINE = "/fights/{fight}/"
"""The timeline page: every event, time travel, undo (a gm token writes)."""
TABLE = "/fights/{fight}/table"
"""The large-print live view for players."""
DEFAULT_BASE = "http://127.0.0.1:8000"
"""Where `woundlog serve` listens when given no --host or --port."""


class Shared(msgspec.Struct, frozen=True, kw_only=True):
    """What `woundlog share` hands out: the tokens issued and the pages' links with them."""

    fight: str
    base: str
    viewer: Issued
    gm: Issued | None
    timeline: str  # the timeline with the gm token if one was issued, else the viewer's
    table: str  # the table view with the viewer token: the link the QR code holds


def base_url(given: str) -> str:
    """`given` as the base of the pages' links (`http://host:port`, no trailing slash), or a
    UsageError saying what a base is."""
    parts = urlsplit(given.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url {given!r}: give the service's base, as {DEFAULT_BASE}")
    if parts.query or parts.fragment:
        raise UsageError(f"--url {given!r}: the service's base takes no ? or # part")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def link(base: str, page: str, fight: str, tokens: dict[str, str]) -> str:
    """`page` of `fight` under `base`, opening with `tokens` ({role: token}) in the fragment."""
    return f"{base}{page.format(fight=quote(fight, safe=''))}#{urlencode(tokens)}"


def shared(base: str, fight: str, viewer: Issued, gm: Issued | None) -> Shared:
    opener = {"gm": gm.token} if gm is not None else {"viewer": viewer.token}
    return Shared(
        fight=fight,
        base=base,
        viewer=viewer,
        gm=gm,
        timeline=link(base, TIMELINE, fight, opener),
        table=link(base, TABLE, fight, {"viewer": viewer.token}),
    )
