"""`woundlog serve` says where it is (issue 26): the front page, the API docs, the Foundry
module's manifest and the Owlbear Rodeo extension's, each under the address and port it is
bound to, once it answers there; a real `woundlog serve` on loopback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from woundlog.replays.service.serve import served_urls

from .service.server import ADMIN

CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]
URL = re.compile(
    r"^(front page|API docs|Foundry module|Owlbear extension) +(http://\S+)", re.MULTILINE
)
WAIT_S = 20.0


def said_urls(log: Path, process: subprocess.Popen[bytes]) -> dict[str, str]:
    """The URLs the server said, once it has said all four (or exited)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = dict(URL.findall(log.read_text()))
        if len(found) == 4:
            return found
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"no URLs said in {WAIT_S}s: {log.read_text()}")


def test_serve_on_port_0_says_the_urls_it_serves_with_the_port_it_got(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    env = {**os.environ, "WOUNDLOG_ADMIN_TOKEN": ADMIN}
    command = [*CLI, "--db", str(tmp_path / "f.db"), "serve", "--host", "127.0.0.1", "--port", "0"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
    try:
        urls = said_urls(log, process)
        ports = {re.fullmatch(r"http://127\.0\.0\.1:(\d+)/.*", url)[1] for url in urls.values()}  # type: ignore[index]
        assert len(ports) == 1 and ports != {"0"}, urls
        # said once it answers: each URL is served at once, as what it says it is
        home = httpx.get(urls["front page"])
        assert home.status_code == 200 and "<h1>woundlog</h1>" in home.text
        docs = httpx.get(urls["API docs"])
        assert docs.status_code == 200 and "swagger" in docs.text.lower()
        manifest = httpx.get(urls["Foundry module"])
        assert manifest.status_code == 200 and manifest.json()["manifest"] == urls["Foundry module"]
        extension = httpx.get(urls["Owlbear extension"])
        assert extension.status_code == 200
        assert extension.json()["background_url"].startswith(urls["front page"])
        assert len(URL.findall(log.read_text())) == 4  # said once
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_an_ipv6_address_is_bracketed_in_the_urls() -> None:
    [(_, home, _), *_] = served_urls(("::1", 8123, 0, 0))
    assert home == "http://[::1]:8123/"
