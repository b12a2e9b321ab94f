"""The report page (issue 30) in real Chromium against a real server: reached from the
timeline and back, its three SVG charts drawn from the bundled fire chasm fight, no serious
accessibility violation (axe-core, as test_accessibility.py pins it)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from .conftest import Tokens, Watched, bundled_fight
from .test_accessibility import opened, serious

# The report folds the fight again for each moment's odds: on a loaded two-core machine that
# takes seconds, more than Playwright's default wait of five.
REPORT_WAIT = 30_000


@pytest.fixture(scope="module")
def chasm(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "report-chasm", "warhammer_quest_fire_chasm.jsonl")


def test_report_page_is_linked_from_the_timeline_and_back(
    watched: Watched, server: Any, chasm: Tokens
) -> None:
    page = watched.page
    # the GM's report, whole: a viewer's leaves out the monsters' numbers (test_players_view)
    page.goto(f"{server.url}/fights/{chasm.fight}/#gm={chasm.gm}")
    page.locator("#report-link").click()
    expect(page).to_have_url(f"{server.url}/fights/{chasm.fight}/report.html")
    report = page.locator("#report")
    expect(report.locator("h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)
    # one bar per character and way (dealt, taken), one line per character, ten luck columns
    expect(report.locator("#damage svg rect.bar")).to_have_count(16)
    expect(report.locator("#health svg polyline.track")).to_have_count(8)
    expect(report.locator("#luck svg rect.column")).to_have_count(10)
    expect(report).to_contain_text("The GM took back: Skarsnik hits Elwen the Ranger for 3")
    expect(report).to_contain_text("1/36")
    page.locator("#timeline-link").click()
    expect(page).to_have_url(f"{server.url}/fights/{chasm.fight}/")
    expect(page.locator("#report-link")).to_be_visible()


def test_report_page_asks_for_a_token_it_does_not_have(
    watched: Watched, server: Any, chasm: Tokens
) -> None:
    page = watched.page
    page.goto(f"{server.url}/fights/{chasm.fight}/report.html")
    expect(page.locator("#token-form")).to_be_visible()
    page.locator("#viewer").fill(chasm.viewer)
    page.locator("#token-form button").click()
    expect(page.locator("#report h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)


@pytest.mark.parametrize("size", ["desk", "phone"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_report_page_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, chasm: Tokens, scheme: str, size: str
) -> None:
    context = opened(browser, size, scheme)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/fights/{chasm.fight}/report.html#viewer={chasm.viewer}")
        expect(page.locator("#report h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)
        assert serious(page) == []
    finally:
        context.close()
