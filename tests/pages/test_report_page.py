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
    browser: Browser,
    server: Any,
    chasm: Tokens,
    scheme: str,
    size: str,
    request: pytest.FixtureRequest,
) -> None:
    context = opened(browser, size, scheme)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/fights/{chasm.fight}/report.html#viewer={chasm.viewer}")
        expect(page.locator("#report h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)
        assert serious(page, request, f"report {scheme} {size}") == []
    finally:
        context.close()


# Each chart text's fill against what it is drawn on, as the page paints them: the layers under
# the text's centre (elementsFromPoint), an SVG shape's fill or an element's background, blended
# down to the first opaque one. WCAG 2's relative luminance and contrast ratio.
CONTRASTS = """() => {
    const rgba = (text) => {
        const [r, g, b, a = 1] = text.match(/[\\d.]+/g).map(Number);
        return [r, g, b, a];
    };
    const over = (top, under) => top.slice(0, 3).map(
        (c, i) => c * top[3] + under[i] * (1 - top[3])).concat([1]);
    const luminance = ([r, g, b]) => [r, g, b].map((c) => {
        c /= 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }).reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const shapes = new Set(["rect", "circle", "ellipse", "polygon", "path"]);
    return [...document.querySelectorAll("#report svg text")].map((text) => {
        text.scrollIntoView({ block: "center", inline: "center" });
        const box = text.getBoundingClientRect();
        const stack = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2);
        const layers = [];
        for (const el of stack.slice(stack.indexOf(text) + 1)) {
            const style = getComputedStyle(el);
            const paint = el instanceof SVGElement
                ? (shapes.has(el.localName) && style.fill !== "none" ? style.fill : null)
                : style.backgroundColor;
            if (!paint || !paint.startsWith("rgb")) continue;
            const colour = rgba(paint);
            if (colour[3] === 0) continue;
            layers.push(colour);
            if (colour[3] === 1) break;
        }
        const canvas = rgba(getComputedStyle(document.documentElement).backgroundColor);
        const ground = layers.reduceRight((under, top) => over(top, under),
            canvas[3] === 1 ? canvas : [255, 255, 255, 1]);
        const ink = over(rgba(getComputedStyle(text).fill), ground);
        const [light, dark] = [luminance(ink), luminance(ground)].sort((a, b) => b - a);
        return [text.textContent, Math.round(((light + 0.05) / (dark + 0.05)) * 100) / 100];
    });
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_chart_text_stands_at_4_5_to_1_on_what_it_is_drawn_on(
    browser: Browser, server: Any, chasm: Tokens, scheme: str, request: pytest.FixtureRequest
) -> None:
    """The charts' text was black on the dark page (about 1.2:1) and the health chart's names
    drawn in their line's colour (orange on white, 2.5:1)."""
    context = opened(browser, "desk", scheme)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/fights/{chasm.fight}/report.html#viewer={chasm.viewer}")
        expect(page.locator("#report h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)
        measured = page.evaluate(CONTRASTS)
        assert len(measured) > 30  # names, values, axes and legends of the three charts
        least = min(ratio for _, ratio in measured)
        request.node.user_properties.append(
            ("measured", f"report's chart text {scheme}: least contrast {least}:1")
        )
        assert [(text, ratio) for text, ratio in measured if ratio < 4.5] == []
    finally:
        context.close()


def test_a_phone_reads_the_report_without_sideways_scrolling(
    browser: Browser, server: Any, chasm: Tokens
) -> None:
    """The characters' table and the charts were 1,026 pixels wide on a 390 pixel screen: each
    scrolls sideways in its own frame now, the page does not."""
    context = opened(browser, "phone", "light")
    try:
        page = context.new_page()
        page.goto(f"{server.url}/fights/{chasm.fight}/report.html#viewer={chasm.viewer}")
        expect(page.locator("#report h1")).to_have_text("The fire chasm", timeout=REPORT_WAIT)
        widths = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1] == 390
        chart = page.locator("#damage svg").bounding_box()
        assert chart is not None and chart["width"] >= 560  # the charts keep their size
    finally:
        context.close()
