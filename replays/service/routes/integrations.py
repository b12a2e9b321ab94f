"""The bridge modules other software installs, served by `woundlog serve`.

A Foundry VTT GM pastes `http://HOST:PORT/integrations/foundry/module.json` into Foundry's
"Install Module": Foundry reads the manifest, then downloads the zip its `download` names and
checks the zip's manifest again. Both URLs must be absolute, and they are made from the request's
own base URL, so whatever name the GM's browser reaches the service by is what Foundry is told
(a port forwarded, a host name on the table's network). The zip is built in memory from the
package data (replays/integrations/foundry/), so the files in the wheel are the only copy.
"""

from __future__ import annotations

import io
import json
import zipfile
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from litestar import Controller, Request, Response, get

from ...release import RELEASE

FOUNDRY = "/integrations/foundry"
MANIFEST = "module.json"
ZIP = "woundlog.zip"


def foundry_files() -> Traversable:
    return files("woundlog.replays") / "integrations" / "foundry"


def manifest(base: str) -> dict[str, Any]:
    """The module's manifest with woundlog's version (so Foundry offers an update when woundlog
    has one; the release constant, not `importlib.metadata`, which walks site-packages) and its
    `manifest` and `download` URLs under `base`."""
    data: dict[str, Any] = json.loads((foundry_files() / MANIFEST).read_text(encoding="utf-8"))
    root = base.rstrip("/") + FOUNDRY
    data["version"] = RELEASE
    data["manifest"] = f"{root}/{MANIFEST}"
    data["download"] = f"{root}/{ZIP}"
    return data


def module_files() -> list[str]:
    """The module's ES modules: the entry module.json names imports the others."""
    return sorted(f.name for f in foundry_files().iterdir() if f.name.endswith(".mjs"))


def module_zip(base: str) -> bytes:
    """The module as Foundry installs it: its manifest (as served) and its ES modules, at the
    zip's root."""
    data = manifest(base)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, json.dumps(data, indent=2) + "\n")
        for name in module_files():
            archive.writestr(name, (foundry_files() / name).read_bytes())
    return buffer.getvalue()


def base_url(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url)


class IntegrationsController(Controller):
    """The Foundry VTT module: its manifest and its zip, no token (they hold nothing of any
    fight)."""

    path = FOUNDRY
    tags = ("integrations",)

    @get(f"/{MANIFEST}")
    async def foundry_manifest(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """The Foundry VTT module's manifest, for Foundry's "Install Module" (no token: it holds
        nothing of any fight)."""
        return manifest(base_url(request))

    @get(f"/{ZIP}", media_type="application/zip")
    async def foundry_zip(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        """The Foundry VTT module, as the zip its manifest's `download` names."""
        return Response(
            module_zip(base_url(request)),
            media_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="{ZIP}"'},
        )
