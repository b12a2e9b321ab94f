"""The Foundry VTT module: node's test runner runs tests/integrations/foundry/ against a real
`woundlog serve` on loopback, and the module installs from the manifest the service serves.

Without node these tests skip on a developer's machine and fail under CI (`$CI` set), which must
have it (`.ci/run` installs it from the system's packages)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path

import httpx
import pytest

from tests.replays.service.server import ADMIN, START_TIMEOUT_S, Server, free_port

HERE = Path(__file__).parent
NODE_TESTS = HERE / "foundry"
NODE_TIMEOUT_S = 120
MODULE = files("woundlog.replays") / "integrations" / "foundry"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed, and CI must run the Foundry module's tests")
        pytest.skip("node is not installed: the Foundry module's tests need it")
    return found


def test_the_module_works_against_a_real_server(tmp_path: Path) -> None:
    program = node()
    with Server(tmp_path / "fights.db") as server:
        installed = Path(str(MODULE / "woundlog.mjs")).as_uri()  # the package's, not the tree's
        env = {
            "WOUNDLOG_MODULE": installed,  # unless the environment names another build
            **os.environ,
            "WOUNDLOG_URL": server.url,
            "WOUNDLOG_ADMIN_TOKEN": ADMIN,
        }
        done = subprocess.run(
            [program, "--test", str(NODE_TESTS)],
            env=env,
            capture_output=True,
            text=True,
            timeout=NODE_TIMEOUT_S,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout


@pytest.fixture(scope="module")
def integrations_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The integrations router alone under uvicorn on loopback, a real HTTP server (the same
    router `woundlog serve` registers)."""
    port = free_port()
    code = (
        "import uvicorn; from litestar import Litestar; "
        "from woundlog.replays.service.routes.integrations import IntegrationsController; "
        "uvicorn.run(Litestar(route_handlers=[IntegrationsController]), host='127.0.0.1', "
        f"port={port})"
    )
    url = f"http://127.0.0.1:{port}"
    tmp_path = tmp_path_factory.mktemp("integrations")
    with open(tmp_path / "integrations.log", "wb") as log:
        process = subprocess.Popen([sys.executable, "-c", code], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/integrations/foundry/module.json", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None:
                    raise RuntimeError((tmp_path / "integrations.log").read_text()) from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_manifest_names_itself_and_its_zip_by_the_address_asked(integrations_url: str) -> None:
    manifest = httpx.get(f"{integrations_url}/integrations/foundry/module.json").json()
    assert manifest["manifest"] == f"{integrations_url}/integrations/foundry/module.json"
    assert manifest["download"] == f"{integrations_url}/integrations/foundry/woundlog.zip"
    # v12 and v13 are what the node tests' port of Foundry covers
    assert manifest["compatibility"] == {"minimum": "12", "verified": "13", "maximum": "13"}
    assert manifest["esmodules"] == ["woundlog.mjs"]
    # a GM's browser that reaches the service by another name is told that name
    other = httpx.get(
        f"{integrations_url}/integrations/foundry/module.json",
        headers={"Host": "woundlog.table.lan:8000"},
    ).json()
    assert other["download"] == "http://woundlog.table.lan:8000/integrations/foundry/woundlog.zip"


def test_the_manifest_carries_woundlogs_version(integrations_url: str) -> None:
    """Foundry offers an update when the manifest's version is newer than the one installed:
    the module's version is the installed woundlog's."""
    manifest = httpx.get(f"{integrations_url}/integrations/foundry/module.json").json()
    assert manifest["version"] == version("woundlog")


def test_the_zip_holds_the_served_manifest_and_every_module_file(integrations_url: str) -> None:
    manifest = httpx.get(f"{integrations_url}/integrations/foundry/module.json").json()
    download = httpx.get(manifest["download"])
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(download.content))
    modules = [
        "damage.mjs",
        "maximum.mjs",
        "outbox.mjs",
        "reading.mjs",
        "stream.mjs",
        "woundlog.mjs",
    ]
    assert sorted(archive.namelist()) == sorted(["module.json", *modules])
    assert json.loads(archive.read("module.json")) == manifest
    for name in modules:
        assert archive.read(name) == (MODULE / name).read_bytes()
    # every module the entry imports is in the zip, so Foundry can load it
    entry = archive.read("woundlog.mjs").decode()
    for name in modules[:-1]:
        assert f'from "./{name}"' in entry
