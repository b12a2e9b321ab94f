"""Real headless Chromium (Debian's package, driven by Playwright), shared by every test folder.

Playwright cannot download its own browser here, so the system Chromium is launched by path.
Without it the browser tests skip, except under CI, where a missing browser is a failure. One
browser serves the whole session: Playwright's sync API runs its event loop in the main thread
while it is open, so a second `sync_playwright()` beside it would refuse to start.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def launched_browser() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (CI needs it)")
        pytest.skip("no Chromium: `apt-get install chromium` to run the browser tests")
    from playwright.sync_api import sync_playwright  # only the browser tests load Playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
