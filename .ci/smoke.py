"""CI's smoke step, run from the installed wheel before the suite: what a user tries first works.

`woundlog demo`; a bundled fight imported from the package's own data; `report` as Markdown and
HTML; `campaign report`; then `woundlog serve` on loopback, where every page, every file a page
loads, the OpenAPI document, Swagger UI, the Foundry module's manifest and zip, and the report
and campaign routes answer 200. Each step names itself; the first failure ends the run with its
output. Run by .ci/run with the CI's virtual environment active, never from the tree: the
working directory is a scratch folder, so nothing of the clone can stand in for the package."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path
from urllib.parse import urljoin

import httpx

ADMIN = "smoke-admin-token-0123456789"
FIGHT, CAMPAIGN = "chasm", "quest"
ADDRESS = re.compile(r'<meta name="woundlog-page" content="([^"]+)">')
PAGES = tuple(  # every page the wheel ships, at the address its head names
    ADDRESS.findall(page.read_text(encoding="utf-8"))[0].format(fight=FIGHT, campaign=CAMPAIGN)
    for page in (files("woundlog.replays") / "web").iterdir()
    if page.name.endswith(".html")
)
ROUTES = (
    "/schema/openapi.json",
    "/schema/swagger",
    "/integrations/foundry/module.json",
    "/integrations/foundry/woundlog.zip",
    f"/fights/{FIGHT}/report",
    f"/campaigns/{CAMPAIGN}/report",
)
LOADED = re.compile(r"""(?:src|href)=["'](/[^"'#?]+)""")  # what a page asks of the service
IMPORTED = re.compile(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""")  # a module's modules


def woundlog(*args: str) -> str:
    print(f"smoke: woundlog {' '.join(args)}", flush=True)
    done = subprocess.run(["woundlog", *args], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"smoke: woundlog {' '.join(args)} exited {done.returncode}\n{done.stdout}\n"
                 f"{done.stderr}")  # fmt: skip
    return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def served(base: str, client: httpx.Client) -> None:
    """Every page and route answers 200, and so does each file a page loads, and each module
    those scripts import, followed to the end."""
    auth = {"Authorization": f"Bearer {ADMIN}"}
    queue, seen = [*PAGES, *ROUTES], set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        answer = client.get(base + path, headers=auth)
        print(f"smoke: GET {path} {answer.status_code}", flush=True)
        if answer.status_code != 200:
            sys.exit(f"smoke: GET {path} answered {answer.status_code}: {answer.text[:500]}")
        if path.endswith(".js"):
            queue += [urljoin(path, module) for module in IMPORTED.findall(answer.text)]
        elif "html" in answer.headers.get("content-type", ""):
            queue += LOADED.findall(answer.text)
    if not any(path.endswith(".js") for path in seen):
        sys.exit("smoke: the pages load no script of the service's: not the pages")


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="woundlog-smoke-"))
    os.chdir(scratch)
    os.environ["WOUNDLOG_DB"] = str(scratch / "fights.db")
    bundled = files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"
    woundlog("demo")
    woundlog("import", str(bundled), "--as", FIGHT)
    woundlog("report", FIGHT, "-o", "chasm.md")
    woundlog("report", FIGHT, "-o", "chasm.html")
    woundlog("campaign", "new", CAMPAIGN, "--ruleset", "warhammer_quest")
    woundlog("campaign", "join", CAMPAIGN, "grundi", "--stat", "wounds=10")
    woundlog("campaign", "record", CAMPAIGN, FIGHT)
    if "grundi" not in woundlog("campaign", "report", CAMPAIGN):
        sys.exit("smoke: the campaign report does not name its member")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    print(f"smoke: woundlog serve --port {port}", flush=True)
    server = subprocess.Popen(
        ["woundlog", "serve", "--port", str(port)],
        env={**os.environ, "WOUNDLOG_ADMIN_TOKEN": ADMIN},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        with httpx.Client(timeout=30) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get(base + "/")
                    break
                except httpx.TransportError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        server.kill()
                        said = server.communicate(timeout=30)[0]
                        sys.exit(f"smoke: woundlog serve did not answer\n{said}")
                    time.sleep(0.2)
            served(base, client)
    finally:
        if server.poll() is None:
            server.terminate()
            server.communicate(timeout=30)
    print("smoke: the wheel's demo, report, campaign report and service answer", flush=True)


if __name__ == "__main__":
    main()
