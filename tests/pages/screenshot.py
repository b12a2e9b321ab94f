"""Remake the README's picture of the timeline page: `python -m tests.pages.screenshot OUT.png`.

A real `woundlog serve` on loopback with the bundled fire chasm fight, the page opened in
headless Chromium at event 24 (a turn's end, where the dice fall), saved as a PNG.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

from tests.chromium import ARGS, CHROMIUM

from .conftest import bundled_fight
from .server import PagesServer

FIGHT = "warhammer_quest_fire_chasm.jsonl"
AT = 24


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "timeline.png")
    with (
        tempfile.TemporaryDirectory() as scratch,
        PagesServer(Path(scratch) / "fights.db") as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
        sync_playwright() as playwright,
    ):
        tokens = bundled_fight(client, "fire-chasm", FIGHT)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}/fights/fire-chasm/?at={AT}#viewer={tokens.viewer}")
        page.locator("#then caption").wait_for()
        page.locator(f"#grid td[data-seq='{AT}']").nth(3).hover()
        page.screenshot(path=out, full_page=True)
        browser.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
