"""The Foundry VTT module: node's test runner runs tests/integrations/foundry/ against a real
`woundlog serve` on loopback, and the module installs from the manifest the service serves.

Without node these tests skip on a developer's machine and fail under CI (`$CI` set), which must
have it (`.ci/run` installs it from the system's packages)."""

from __future__ import annotations

import io
import json
import os
import re
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
# The origin the service allows, as a GM starts it (`WOUNDLOG_CORS_ORIGINS`): Foundry's default
# address. The stand-in's browsers at it pass the service's real CORS checks; one at
# http://127.0.0.1:30000, the same Foundry by another name, is refused (reach.test.mjs).
FOUNDRY_ORIGIN = "http://localhost:30000"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed, and CI must run the Foundry module's tests")
        pytest.skip("node is not installed: the Foundry module's tests need it")
    return found


def test_the_module_works_against_a_real_server(tmp_path: Path) -> None:
    program = node()
    with Server(tmp_path / "fights.db", env={"WOUNDLOG_CORS_ORIGINS": FOUNDRY_ORIGIN}) as server:
        installed = Path(str(MODULE / "woundlog.mjs")).as_uri()  # the package's, not the tree's
        env = {
            "WOUNDLOG_MODULE": installed,  # unless the environment names another build
            **os.environ,
            "WOUNDLOG_URL": server.url,
            "WOUNDLOG_ADMIN_TOKEN": ADMIN,
            "WOUNDLOG_FOUNDRY_ORIGIN": FOUNDRY_ORIGIN,
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
    # v12 to v14 are what the node tests' port of Foundry plays (releases.test.mjs)
    assert manifest["compatibility"] == {"minimum": "12", "verified": "14", "maximum": "14"}
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
        "reach.mjs",
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


def stand_in_releases() -> tuple[list[int], dict[str, dict[str, str]]]:
    """The Foundry and dnd5e releases the node tests' stand-in ports (standin.mjs)."""
    code = (
        f"const m = await import({json.dumps((NODE_TESTS / 'standin.mjs').as_uri())}); "
        "console.log(JSON.stringify([m.FOUNDRY_RELEASES, m.DND5E_RELEASES]));"
    )
    done = subprocess.run(
        [node(), "--input-type=module", "-e", code], capture_output=True, text=True, check=True
    )
    foundry, dnd5e = json.loads(done.stdout)
    return foundry, dnd5e


GUIDE = MODULE / "README.md"  # the GM's steps, shipped with the module


def test_every_release_the_gms_steps_name_is_one_the_node_tests_play() -> None:
    foundry, dnd5e = stand_in_releases()
    text = GUIDE.read_text(encoding="utf-8")
    named = sorted({int(v) for v in re.findall(r"\bv(\d+)\b", text)})
    assert named == sorted(foundry)
    pairs = re.findall(r"(\d+\.\d+\.\d+) on\s+v(\d+)", text)
    assert sorted(pairs) == sorted((release, c["verified"]) for release, c in dnd5e.items())
    manifest = json.loads((MODULE / "module.json").read_text(encoding="utf-8"))
    assert manifest["compatibility"]["verified"] == str(max(foundry))


def test_the_gms_steps_use_only_commands_and_options_woundlog_has() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    # a command line of a code block, or a command in backticks, with its variables before it
    command = r"(?:^ {4,}|`)(?:[A-Z_]+=\S+ )*woundlog (\w+)((?: [^`\n]*)?)"
    commands = re.findall(command, text, flags=re.MULTILINE)
    assert {name for name, _ in commands} >= {"new", "share", "serve"}
    for name, rest in commands:
        helped = subprocess.run(
            [sys.executable, "-c", "from woundlog.replays.cli import main; main()", name, "-h"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert helped.returncode == 0, (name, helped.stderr)
        for option in re.findall(r"--[a-z][a-z-]*", rest):
            assert option in helped.stdout, (name, option)
