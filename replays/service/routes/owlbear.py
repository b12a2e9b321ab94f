"""The Owlbear Rodeo extension, served by `woundlog serve`.

A GM adds `http://HOST:PORT/integrations/owlbear/manifest.json` in Owlbear Rodeo's
Extensions: Owlbear Rodeo's page (at https://www.owlbear.rodeo) fetches the manifest, shows its
icon, and loads the pages it names in frames of its own: the popover (the fight and the GM
token) and the background page (the bridge). The pages then talk to this service from its own
origin, so the API needs no CORS; only what Owlbear Rodeo's page itself fetches (the manifest,
the icon) says that origin may read it, and every file of the extension may be framed by it
and by nothing else. The manifest's addresses are made from the request's own base URL, as the
Foundry module's are (integrations.py). Files come from the package data
(replays/integrations/owlbear/), the only copy.
"""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.exceptions import NotFoundException

from ...release import RELEASE
from ..openapi import problems

OWLBEAR = "/integrations/owlbear"
MANIFEST = "manifest.json"
OWLBEAR_ORIGIN = "https://www.owlbear.rodeo"
FRAMED_BY = f"{OWLBEAR_ORIGIN} https://owlbear.rodeo"
TYPES = {
    ".html": "text/html",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".md": "text/plain",
}
HEADERS = {
    # framed by Owlbear Rodeo alone; its scripts its own; it talks to this service only
    "Content-Security-Policy": f"default-src 'self'; frame-ancestors {FRAMED_BY}",
    "Access-Control-Allow-Origin": OWLBEAR_ORIGIN,  # its page fetches the manifest and icon
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",  # a stale page after an upgrade would misread the API
}


def owlbear_files() -> Traversable:
    return files("woundlog.replays") / "integrations" / "owlbear"


def extension_files() -> dict[str, str]:
    """The files the extension's pages load, by name, with their media types (NOTICE, the
    bundled SDK's licences, as text)."""
    found = {"NOTICE": "text/plain"}
    for each in owlbear_files().iterdir():
        suffix = "." + each.name.rsplit(".", 1)[-1] if "." in each.name else ""
        if suffix in TYPES:
            found[each.name] = TYPES[suffix]
    return found


def owlbear_manifest(base: str) -> dict[str, Any]:
    """The manifest with woundlog's version and every address under `base`."""
    data: dict[str, Any] = json.loads((owlbear_files() / MANIFEST).read_text(encoding="utf-8"))
    root = base.rstrip("/") + OWLBEAR
    data["version"] = RELEASE
    data["icon"] = f"{root}/{data['icon']}"
    data["background_url"] = f"{root}/{data['background_url']}"
    action = data["action"]
    action["icon"] = f"{root}/{action['icon']}"
    action["popover"] = f"{root}/{action['popover']}"
    return data


class OwlbearController(Controller):
    """The Owlbear Rodeo extension: its manifest and its files, no token (they hold nothing
    of any fight: the GM enters the fight and token in its popover)."""

    path = OWLBEAR
    tags = ("integrations",)

    @get(f"/{MANIFEST}", response_headers=HEADERS)
    async def owlbear_manifest(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """The Owlbear Rodeo extension's manifest, for Owlbear Rodeo's "Add Extension"."""
        return owlbear_manifest(str(request.base_url))

    @get("/{name:str}", response_headers=HEADERS, responses=problems(404))
    async def owlbear_file(self, name: str) -> Response[bytes]:
        """A file of the Owlbear Rodeo extension: its pages, their scripts (the Owlbear Rodeo
        SDK among them), its icon."""
        media_type = extension_files().get(name)
        if media_type is None or name == MANIFEST:
            raise NotFoundException(f"the Owlbear Rodeo extension has no file `{name[:100]}`")
        return Response((owlbear_files() / name).read_bytes(), media_type=media_type)
