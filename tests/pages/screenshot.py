"""Remake the README's pictures of the pages: `python -m tests.pages.screenshot DIR`.

A real `woundlog serve` on loopback with the bundled fire chasm fight, opened in headless
Chromium: the timeline at event 24 (a turn's end, where the dice fall) as DIR/timeline-page.png,
the table view as DIR/table-page.png.
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
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    with (
        tempfile.TemporaryDirectory() as scratch,
        PagesServer(Path(scratch) / "fights.db") as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
        sync_playwright() as playwright,
    ):
        tokens = bundled_fight(client, "fire-chasm", FIGHT)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{server.url}/fights/fire-chasm/?at={AT}#viewer={tokens.viewer}")
        page.locator("#then caption").wait_for()
        page.screenshot(path=out / "timeline-page.png", full_page=True)
        page.goto(f"{server.url}/fights/fire-chasm/table#viewer={tokens.viewer}")
        page.locator(".cards li").first.wait_for()
        page.screenshot(path=out / "table-page.png", full_page=True)
        browser.close()
    print(f"wrote {out / 'timeline-page.png'} and {out / 'table-page.png'}")


if __name__ == "__main__":
    main()
