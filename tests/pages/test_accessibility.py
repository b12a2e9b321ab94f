"""Each page checked with axe-core's rules, run in real Chromium from a pinned local copy
(tests/pages/vendor/axe.min.js: axe-core 4.14.1 from the npm registry, `npm pack
axe-core@4.14.1`, tarball https://registry.npmjs.org/axe-core/-/axe-core-4.14.1.tgz, integrity
sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==,
its axe.min.js kept whole with its licence header, MPL-2.0), in light and dark
colour schemes, at a desk's and a phone's size: no serious or critical violation. Every page
checked says its counts by impact in the test output (a line per page, scheme and size, under
"axe-core" at the end of the run; tests/pages/conftest.py prints them)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Campaign, Tokens, bundled_campaign, page_fight

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_VERSION = "4.14.1"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
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


IMPACTS = ("critical", "serious", "moderate", "minor")


def violations(page: Page) -> list[tuple[str, str]]:
    """axe's violations, one per element: `(impact, "rule: target (summary)")`."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, { resultTypes: ['violations'] });
            return result.violations.flatMap(v => v.nodes.map(
                n => [v.impact, `${v.id}: ${n.target.join(' ')} (${n.failureSummary})`]));
        }"""
    )
    return [(impact, text) for impact, text in found]


def serious(page: Page, request: pytest.FixtureRequest | None = None, what: str = "") -> list[str]:
    """axe's violations of impact serious or critical, each as `rule: target (summary)`; with
    the test's `request`, the counts by impact are kept for the run's summary as `what`'s."""
    found = violations(page)
    if request is not None:
        counts = ", ".join(f"{sum(i == impact for i, _ in found)} {impact}" for impact in IMPACTS)
        request.node.user_properties.append(("axe", f"{what}: {counts}"))
    return [text for impact, text in found if impact in ("serious", "critical")]


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
    browser: Browser,
    server: Any,
    roadside: Tokens,
    size: str,
    scheme: str,
    request: pytest.FixtureRequest,
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{roadside.fight}/?at=10#gm={roadside.gm}")
    expect(page.locator("#then caption")).to_have_text("After event #10")
    assert serious(page, request, f"timeline {scheme} {size}") == []
    page.get_by_role("button", name="Amend this event…").click()
    expect(page.locator("#amend-dialog")).to_be_visible()
    assert serious(page, request, f"timeline's amend form {scheme} {size}") == []
    page.keyboard.press("Escape")
    expect(page.locator("#amend-dialog")).to_be_hidden()
    page.click("#odds")  # odds from here, with their answer
    expect(page.locator("#odds-table caption")).to_contain_text("After #10")
    assert serious(page, request, f"timeline's odds {scheme} {size}") == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_table_view_has_no_serious_accessibility_violation(
    browser: Browser,
    server: Any,
    roadside: Tokens,
    size: str,
    scheme: str,
    request: pytest.FixtureRequest,
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{roadside.fight}/table#viewer={roadside.viewer}")
    expect(page.locator(".cards li")).to_have_count(4)
    assert serious(page, request, f"table {scheme} {size}") == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_front_page_has_no_serious_accessibility_violation(
    browser: Browser, server: Any, size: str, scheme: str, request: pytest.FixtureRequest
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/")
    expect(page.get_by_label("Fight id")).to_be_visible()
    assert serious(page, request, f"home {scheme} {size}") == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_token_forms_have_no_serious_accessibility_violation(
    browser: Browser,
    server: Any,
    roadside: Tokens,
    size: str,
    scheme: str,
    request: pytest.FixtureRequest,
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    for path in ("", "table", "report.html"):
        page.goto(f"{server.url}/fights/{roadside.fight}/{path}")
        expect(page.get_by_label("Viewer token")).to_be_visible()
        name = path.removesuffix(".html") or "timeline"
        assert serious(page, request, f"{name}'s token form {scheme} {size}") == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_campaign_page_has_no_serious_accessibility_violation(
    browser: Browser,
    server: Any,
    chasm: Campaign,
    size: str,
    scheme: str,
    request: pytest.FixtureRequest,
) -> None:
    context = opened(browser, size, scheme)
    page = context.new_page()
    page.goto(f"{server.url}/campaigns/{chasm.campaign}/")
    expect(page.get_by_label("Viewer token")).to_be_visible()
    assert serious(page, request, f"campaign's token form {scheme} {size}") == []
    page = context.new_page()  # a fragment alone would not load the page again
    page.goto(f"{server.url}/campaigns/{chasm.campaign}/#viewer={chasm.viewer}")
    expect(page.locator("#history li").first).to_be_visible()
    assert serious(page, request, f"campaign {scheme} {size}") == []
    context.close()


def test_each_grid_cells_name_begins_with_the_text_it_shows(
    browser: Browser, server: Any, roadside: Tokens
) -> None:
    """WCAG 2.5.3, Label in Name (axe-core 4.14's label-content-name-mismatch): a cell showed
    `up ◆` and was named "Tordek after #2 ...". Its marks are symbols said in words in the name,
    hidden from the name's comparison; the state's short label begins the name."""
    context = opened(browser, "desk", "light")
    page = context.new_page()
    page.goto(f"{server.url}/fights/{roadside.fight}/?at=10#gm={roadside.gm}")
    expect(page.locator("#then caption")).to_have_text("After event #10")
    cells = page.locator("#grid td[role='gridcell']").evaluate_all(
        """tds => tds.map(td => {
            const shown = [...td.childNodes].filter(n => n.nodeType === Node.TEXT_NODE)
                .map(n => n.textContent).join('').trim();
            const marks = [...td.querySelectorAll('span')].map(
                s => [s.textContent.trim(), s.getAttribute('aria-hidden')]);
            return [shown, td.getAttribute('aria-label'), marks];
        })"""
    )
    assert len(cells) > 40
    for shown, name, marks in cells:
        assert name.startswith(f"{shown}: " if shown else ""), (shown, name)
        for mark, hidden in marks:
            assert hidden == "true"
            said = {"◆": "a die was rolled", "±": "counters changed"}[mark]
            assert said in name, (mark, name)
    assert any(marks for _, _, marks in cells)  # the fight has marks to check
    context.close()
