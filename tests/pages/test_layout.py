"""The timeline's rounds, names and layout in real Chromium: a turn without a round stays in
its round, long ids stay out of headings, hover and selection agree, and a phone reads the
page without a page-long grid; screenshots at a desk's 1280x800 and a phone's 390x844."""

from __future__ import annotations

import struct
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Tokens, Watched, bundled_fight, page_fight

BOSS = "Scene.sceneMain0000001.Token.tkGoblinBoss0000001"
HURT = f"foundry:combatRoadside0001:1:0:cmbBoss000000001:{BOSS}:hurt"


@pytest.fixture(scope="module")
def roadside(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return page_fight(client, "layout-roadside", "roadside.jsonl")


@pytest.fixture(scope="module")
def chasm(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "layout-chasm", "warhammer_quest_fire_chasm.jsonl")


def timeline(page: Page, url: str, tokens: Tokens, at: int | None = None) -> Page:
    query = f"?at={at}" if at else ""
    page.goto(f"{url}/fights/{tokens.fight}/{query}#viewer={tokens.viewer}")
    expect(page.locator("#then caption")).to_be_visible()
    return page


def test_a_turn_without_a_round_stays_in_the_last_round_and_says_whose_turn(
    watched: Watched, server: Any, roadside: Tokens
) -> None:
    """Round 1 is given at Tordek's turn only: the boss's and Mirabel's turns, without a
    round, were headed "Round undefined"."""
    page = timeline(watched.page, server.url, roadside)
    rounds = page.locator("#grid th.round").evaluate_all(
        "ths => ths.map(th => [th.textContent, th.colSpan])"
    )
    assert rounds == [["Setup", 5], ["Round 1", 7]]
    whose = page.locator("#grid thead th[data-seq] small.who").evaluate_all(
        "ws => ws.map(w => [w.parentElement.dataset.seq, w.textContent])"
    )
    assert whose == [
        ["6", "Tordek"],
        ["8", "Tordek"],
        ["9", "Goblin Boss"],
        ["11", "Goblin Boss"],
        ["12", "Mirabel"],
    ]
    expect(page.locator("#details h2")).to_have_text("#12 turn_started: Mirabel")


def test_long_ids_are_shown_as_names_with_the_id_on_hover(
    watched: Watched, server: Any, roadside: Tokens
) -> None:
    page = timeline(watched.page, server.url, roadside, at=7)
    row = page.locator("#grid tbody th", has_text="Goblin Boss")
    expect(row).to_have_attribute("title", BOSS)
    details = page.locator("#details")
    expect(details.locator("h2")).to_have_text("#7 hit")
    expect(details.locator(".event-id")).to_have_attribute("title", HURT)
    expect(details.get_by_text("target: Goblin Boss")).to_have_attribute("title", BOSS)
    headings = page.locator("h1, h2, h3, th").all_inner_texts()
    assert max(len(text) for text in headings) < 40, headings
    assert BOSS not in page.locator("#then").inner_text()
    box = details.locator(".event-id").bounding_box()
    panel = details.bounding_box()
    assert box is not None and panel is not None and box["width"] <= panel["width"]


def test_hover_and_selection_show_the_same_event(
    watched: Watched, server: Any, roadside: Tokens
) -> None:
    page = timeline(watched.page, server.url, roadside, at=10)
    page.locator("#grid td[data-seq='7'][data-character='tordek']").hover()
    expect(page.locator("#grid td.hover[data-seq='7']")).to_have_count(4)  # the column marked
    expect(page.locator("#details")).to_have_attribute("data-seq", "10")
    expect(page.locator("#then caption")).to_have_text("After event #10")
    page.locator("#grid td[data-seq='7'][data-character='tordek']").click()
    expect(page.locator("#details")).to_have_attribute("data-seq", "7")
    expect(page.locator("#then caption")).to_have_text("After event #7")
    page.locator("#grid td[data-seq='9'][data-character='mirabel']").hover()
    expect(page.locator("#details h2")).to_have_text("#7 hit")


def phone(browser: Browser) -> Any:
    return browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)


def test_a_phone_reads_the_timeline_with_the_grid_in_its_own_frame_and_the_table_stacked(
    browser: Browser, server: Any, chasm: Tokens
) -> None:
    context = phone(browser)
    page = timeline(context.new_page(), server.url, chasm, at=24)
    size = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert size[0] <= 390
    assert size[1] < 3000, size  # was 4,000 pixels and more
    frame = page.evaluate(
        """() => { const f = document.getElementById('grid-wrap');
            return [f.clientWidth, f.scrollWidth, f.clientHeight]; }"""
    )
    assert frame[1] > frame[0]  # the grid scrolls sideways inside its frame
    assert frame[2] <= 844
    # the state table stacks: one block per character, name and state on its first line
    first = page.locator("#then tr[data-character]").first
    expect(first).to_have_css("display", "grid")
    expect(page.locator("#then tr.head")).to_be_hidden()
    table = page.locator("#then").bounding_box()
    assert table is not None and table["width"] <= 390
    context.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
@pytest.mark.parametrize("view", ["", "table"])
def test_screenshots_of_each_page_at_a_desk_and_on_a_phone(
    browser: Browser, server: Any, chasm: Tokens, tmp_path: Any, view: str, width: int, height: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/fights/{chasm.fight}/{view}#viewer={chasm.viewer}")
    expect(page.locator("#then caption" if not view else ".cards li").first).to_be_visible()
    shot = page.screenshot(path=tmp_path / "page.png", full_page=True)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    shot_width, shot_height = struct.unpack(">II", shot[16:24])
    assert shot_width == width  # nothing wider than the screen
    assert shot_height == page.evaluate("document.documentElement.scrollHeight")
    assert errors == []
    context.close()


def test_dark_mode_repaints_the_page_and_its_states(
    browser: Browser, server: Any, roadside: Tokens
) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)  # type: ignore[arg-type]
        page = context.new_page()
        page.goto(f"{server.url}/fights/{roadside.fight}/table#viewer={roadside.viewer}")
        card = page.locator("li[data-character='tordek']")
        expect(card).to_be_visible()
        colours[scheme] = page.evaluate(
            """() => [getComputedStyle(document.documentElement).backgroundColor,
                getComputedStyle(document.querySelector("li[data-character='tordek']"))
                    .backgroundColor]"""
        )
        context.close()
    assert colours["light"][0] != colours["dark"][0]
    assert colours["light"][1] != colours["dark"][1]
