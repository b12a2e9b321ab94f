"""Each page checked with axe-core's rules, run in real Chromium from a pinned local copy
(tests/pages/vendor/axe.min.js: axe-core 4.10.2 from the npm registry, `npm pack
axe-core@4.10.2`, its axe.min.js kept whole with its licence header, MPL-2.0), in light and dark
colour schemes, at a desk's and a phone's size: no serious or critical violation."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Campaign, Tokens, bundled_campaign, page_fight

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_VERSION = "4.10.2"
AXE_SHA256 = "b511cd9dec01c76f4b2ad1723b66b6db37d4c2eb4ed199076e1829d9ee7b75e3"
SIZES = {"desk": (1280, 800), "phone": (390, 844)}


@pytest.fixture(scope="module")
def roadside(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return page_fight(client, "axe-roadside", "roadside.jsonl")


@pytest.fixture(scope="module")
def chasm(server: Any) -> Campaign:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_campaign(client, "axe-chasm", "warhammer_quest_fire_chasm.jsonl")


def test_the_pinned_axe_core_is_the_one_named() -> None:
    text = AXE.read_bytes()
    assert hashlib.sha256(text).hexdigest() == AXE_SHA256
    assert text.startswith(f"/*! axe v{AXE_VERSION}".encode())
    assert b"Mozilla Public" in text[:600]  # the licence header is kept


def serious(page: Page) -> list[str]:
    """axe's violations of impact serious or critical, each as `rule: target (summary)`."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, { resultTypes: ['violations'] });
            return result.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .flatMap(v => v.nodes.map(
                    n => `${v.id}: ${n.target.join(' ')} (${n.failureSummary})`));
        }"""
    )
    return list(found)


def opened(browser: Browser, size: str, scheme: str) -> Any:
    width, height = SIZES[size]
    # the pages' Content-Security-Policy allows only their own scripts: the test's axe needs in
    return browser.new_context(
        viewport={"width": width, "height": height},
        color_scheme=scheme,
        bypass_csp=True,
        is_mobile=size == "phone",
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_timeline_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, roadside: Tokens, size: str, scheme: str
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{roadside.fight}/?at=10#gm={roadside.gm}")
    expect(page.locator("#then caption")).to_have_text("After event #10")
    assert serious(page) == []
    page.get_by_role("button", name="Amend this event…").click()
    expect(page.locator("#amend-dialog")).to_be_visible()
    assert serious(page) == []  # the amend form too
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_table_view_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, roadside: Tokens, size: str, scheme: str
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{roadside.fight}/table#viewer={roadside.viewer}")
    expect(page.locator(".cards li")).to_have_count(4)
    assert serious(page) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_front_page_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, size: str, scheme: str
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/")
    expect(page.get_by_label("Fight id")).to_be_visible()
    assert serious(page) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_token_forms_have_no_serious_accessibility_violation(
    browser: Browser, server: Any, roadside: Tokens, scheme: str
) -> None:
    context = opened(browser, "desk", scheme)
    page = context.new_page()
    for path in ("", "table"):
        page.goto(f"{server.url}/fights/{roadside.fight}/{path}")
        expect(page.get_by_label("Viewer token")).to_be_visible()
        assert serious(page) == [], path
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_campaign_page_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, chasm: Campaign, size: str, scheme: str
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/campaigns/{chasm.campaign}/")
    expect(page.get_by_label("Viewer token")).to_be_visible()
    assert serious(page) == []  # its token form
    page = context.new_page()  # a fragment alone would not load the page again
    page.goto(f"{server.url}/campaigns/{chasm.campaign}/#viewer={chasm.viewer}")
    expect(page.locator("#history li").first).to_be_visible()
    assert serious(page) == []
    context.close()
