"""The Owlbear Rodeo extension: node's test runner runs tests/integrations/owlbear/ against a real
`woundlog serve` on loopback, from which the extension installs (its manifest, pages and
scripts, the vendored Owlbear Rodeo SDK among them); and the routes that serve it.

Without node these tests skip on a developer's machine and fail under CI (`$CI` set), which must
have it (`.ci/run` installs it from the system's packages)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path

import httpx
import pytest

from tests.integrations.test_foundry_module import NODE_TIMEOUT_S, node
from tests.replays.service.server import ADMIN, Server

NODE_TESTS = Path(__file__).parent / "owlbear"
EXTENSION = files("woundlog.replays") / "integrations" / "owlbear"
OWLBEAR = "https://www.owlbear.rodeo"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("owlbear") / "fights.db") as running:
        yield running


def test_the_extension_works_against_a_real_server(server: Server) -> None:
    program = node()
    env = {**os.environ, "WOUNDLOG_URL": server.url, "WOUNDLOG_ADMIN_TOKEN": ADMIN}
    done = subprocess.run(
        [program, "--test", str(NODE_TESTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


def test_the_manifest_names_its_pages_by_the_address_asked_with_woundlogs_version(
    server: Server,
) -> None:
    manifest = httpx.get(f"{server.url}/integrations/owlbear/manifest.json").json()
    root = f"{server.url}/integrations/owlbear"
    assert manifest["version"] == version("woundlog")
    assert manifest["manifest_version"] == 2  # background_url, as Stat Bubbles 1.9.13's
    assert (manifest["background_url"], manifest["icon"]) == (
        f"{root}/background.html",
        f"{root}/icon.svg",
    )
    assert manifest["action"]["popover"] == f"{root}/popover.html"
    # a browser that reaches the service by another name is told that name
    named = server.url.replace("127.0.0.1", "localhost")
    other = httpx.get(f"{named}/integrations/owlbear/manifest.json").json()
    assert other["background_url"] == f"{named}/integrations/owlbear/background.html"


def test_only_owlbear_rodeo_may_read_and_frame_the_extension(server: Server) -> None:
    """Owlbear Rodeo's page fetches the manifest and icon from its own origin and frames the
    pages; the API itself answers no other origin (same origin: the pages are the service's)."""
    for name in ("manifest.json", "icon.svg", "background.html", "bridge.mjs"):
        answer = httpx.get(f"{server.url}/integrations/owlbear/{name}", headers={"Origin": OWLBEAR})
        assert answer.status_code == 200, name
        assert answer.headers["access-control-allow-origin"] == OWLBEAR
        policy = answer.headers["content-security-policy"]
        assert policy == (
            "default-src 'self'; frame-ancestors https://www.owlbear.rodeo https://owlbear.rodeo"
        )
    api = httpx.get(f"{server.url}/rulesets", headers={"Origin": OWLBEAR})
    assert "access-control-allow-origin" not in api.headers


def test_every_file_is_served_as_the_package_holds_it_and_nothing_else(server: Server) -> None:
    for name in ("background.mjs", "bridge.mjs", "obr-sdk-3.1.0.mjs", "popover.html", "NOTICE"):
        answer = httpx.get(f"{server.url}/integrations/owlbear/{name}")
        assert answer.content == (EXTENSION / name).read_bytes(), name
    assert (
        httpx.get(f"{server.url}/integrations/owlbear/obr-sdk-3.1.0.mjs")
        .headers["content-type"]
        .startswith("text/javascript")
    )
    for name in ("nothing.mjs", "..%2F..%2Fpyproject.toml", "README.md.bak"):
        assert httpx.get(f"{server.url}/integrations/owlbear/{name}").status_code == 404, name


def test_the_vendored_sdk_names_its_release_and_ships_its_licences() -> None:
    sdk = (EXTENSION / "obr-sdk-3.1.0.mjs").read_text(encoding="utf-8")
    assert sdk.startswith("// @owlbear-rodeo/sdk 3.1.0 (MIT, Owlbear Rodeo)")
    notice = (EXTENSION / "NOTICE").read_text(encoding="utf-8")
    for package in ("@owlbear-rodeo/sdk 3.1.0", "events", "immer", "js-base64", "uuid"):
        assert f"== {package}" in notice
    assert 'from "./obr-sdk-3.1.0.mjs"' in (EXTENSION / "background.mjs").read_text()
