"""The table view on a phone (390 x 844, issue 40), in real Chromium against a real server: the
page never scrolls sideways, whatever the names; the round and whose turn it is stay on screen
while the cards scroll under them; and eight characters fit one screen below that header (the
fire chasm's four warriors, with their injuries, and four monsters), measured in the test."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Tokens, bundled_fight, logged_fight
from .test_accessibility import opened

LONG = "Szczebrzeszynski" * 6  # a name of 96 letters and no space to break at


@pytest.fixture(scope="module")
def chasm(server: Any) -> Tokens:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "phone-chasm", "warhammer_quest_fire_chasm.jsonl")


@pytest.fixture(scope="module")
def long_names(server: Any) -> Tokens:
    """dnd5e: a hero and a side whose names do not break, hit on his own turn."""
    events = [
        {"type": "fight_started", "ruleset": "dnd5e", "name": f"The ambush at {LONG}"},
        {"type": "character_joined", "character": "hero", "name": LONG, "side": "x" * 60,
         "kind": "pc", "stats": {"hp": 12}},
        {"type": "character_joined", "character": "gob", "name": "Goblin", "kind": "monster",
         "stats": {"hp": 7}},
        {"type": "turn_started", "round": 1, "character": "hero"},
        {"type": "hit", "target": "hero", "damage": 3, "attacker": "gob",
         "note": LONG},
    ]  # fmt: skip
    text = "\n".join(httpx.Response(200, json=e).text for e in events)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return logged_fight(client, "phone-long-names", text)


def table(browser: Browser, url: str, tokens: Tokens, count: int, scheme: str = "light") -> Page:
    page = opened(browser, "phone", scheme).new_page()
    page.goto(f"{url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    expect(page.locator(".cards li")).to_have_count(count)
    expect(page.locator("#just")).not_to_be_empty()
    return page


def test_a_phone_never_scrolls_the_table_sideways_whatever_the_names(
    browser: Browser, server: Any, long_names: Tokens, chasm: Tokens
) -> None:
    for tokens, count in ((long_names, 2), (chasm, 8)):
        page = table(browser, server.url, tokens, count)
        widths = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1] == 390, tokens.fight
        page.context.close()


def test_the_round_and_whose_turn_stay_on_screen_while_the_cards_scroll(
    browser: Browser, server: Any, chasm: Tokens
) -> None:
    """A phone on its side (844 x 390): the eight cards are taller than the screen."""
    context = browser.new_context(viewport={"width": 844, "height": 390}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{server.url}/fights/{chasm.fight}/table#viewer={chasm.viewer}")
    expect(page.locator(".cards li")).to_have_count(8)
    turn = page.locator("#turn")
    expect(turn).to_have_text("Round 2 is over")
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    assert page.evaluate("scrollY") > 300  # the page did scroll, further than the header
    box = turn.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 390
    # drawn on top: the turn line is what the screen shows at its place, not a card
    on_top = page.evaluate(
        """() => { const r = document.getElementById('turn').getBoundingClientRect();
            return document.elementFromPoint(r.x + 5, r.y + r.height / 2)?.closest('#turn')
                !== null; }"""
    )
    assert on_top
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_eight_characters_fit_one_phone_screen_below_the_header(
    browser: Browser, server: Any, chasm: Tokens, scheme: str, request: pytest.FixtureRequest
) -> None:
    """Scrolled so the first card starts under the header that stays, the eighth card ends on
    the screen: were 1,571 pixels from the first card's top to the eighth's bottom."""
    page = table(browser, server.url, chasm, 8, scheme)
    page.evaluate(
        """() => { const head = document.querySelector('header').getBoundingClientRect();
            const first = document.querySelector('.cards li').getBoundingClientRect();
            window.scrollBy(0, first.top - head.bottom); }"""
    )
    header, first, eighth = page.evaluate(
        """() => [document.querySelector('header'), ...document.querySelectorAll('.cards li')]
            .map((e) => e.getBoundingClientRect()).filter((_, i) => i === 0 || i === 1 || i === 8)
            .map((r) => [r.top, r.bottom])"""
    )
    assert first[0] >= header[1] - 1  # the first card is not under the header
    request.node.user_properties.append(
        (
            "measured",
            f"table on a phone, {scheme}: header {header[1]:.0f} px, eight cards "
            f"{eighth[1] - first[0]:.0f} px, the eighth ends at {eighth[1]:.0f} of 844",
        )
    )
    assert eighth[1] <= 844
    page.context.close()
