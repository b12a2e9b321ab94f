"""The GM console (issue 40) in real Chromium on a phone's 390 x 844 screen: a fight run through
the console alone, the table's dice typed in as the rules ask for each, ends in the log the
same fight entered with the CLI ends in; a refusal is shown as the CLI words it, nothing
written; undo shows what it changed; the table view follows live."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.replays.service.server import ADMIN, bearer

PHONE = {"width": 390, "height": 844}


class Opened:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def phone(browser: Browser) -> Any:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def new_fight(
    client: httpx.Client, fight: str, ruleset: str, events: list[dict[str, Any]], **options: Any
) -> dict[str, str]:
    made = client.post(
        "/fights",
        json={"fight": fight, "ruleset": ruleset, "seed": 11, **options},
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    tokens: dict[str, str] = made.json()
    if events:
        joined = client.post(
            f"/fights/{fight}/events", json=events, headers=bearer(tokens["gm_token"])
        )
        assert joined.status_code == 200, joined.text
    return tokens


def log_of(client: httpx.Client, fight: str, token: str) -> list[dict[str, Any]]:
    events = client.get(f"/fights/{fight}/events", headers=bearer(token)).json()["events"]
    return [{k: v for k, v in e["event"].items() if k not in ("id", "at")} for e in events]


def console(context: Any, url: str, fight: str, gm: str) -> Opened:
    opened = Opened(context.new_page())
    opened.page.goto(f"{url}/fights/{fight}/console#gm={gm}")
    expect(opened.page.locator("#roster li").first).to_be_visible()
    return opened


MORDHEIM = [
    {"type": "character_joined", "character": "grim", "name": "Grim", "side": "reavers",
     "stats": {"wounds": 1}},
    {"type": "character_joined", "character": "snik", "name": "Snik", "side": "eshin",
     "stats": {"wounds": 2}},
]  # fmt: skip


def test_a_hit_with_the_tables_dice_asks_for_each_die_by_name_and_sides(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-dice", "mordheim", MORDHEIM)
    opened = console(phone, server.url, "console-dice", tokens["gm_token"])
    page = opened.page
    page.get_by_text("Dice and initiative").click()
    page.get_by_label("The table rolls").check()
    page.locator("#roster li[data-character='grim'] .pick").click()
    page.get_by_role("button", name="Hit", exact=True).click()
    page.get_by_label("Damage", exact=True).fill("2")
    page.get_by_label("Attacker (optional)").select_option("snik")
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#die-heading")).to_have_text("Injury roll for Grim, d6")
    page.get_by_role("button", name="1 on the d6").click()
    expect(page.locator("#die-heading")).to_have_text("Injury roll for Grim, d6")
    page.get_by_label("The d6 shows").fill("4")
    page.get_by_label("The d6 shows").press("Enter")
    expect(page.locator("#status")).to_contain_text("#4 hit:")
    expect(page.locator("#status")).to_contain_text("injury d6=4 given")
    expect(page.locator("li[data-character='grim']")).to_have_attribute("data-state", "stunned")
    assert log_of(client, "console-dice", tokens["gm_token"])[-1] == {
        "type": "hit", "target": "grim", "damage": 2, "attacker": "snik",
        "rolls": {"injury": [1, 4]},
    }  # fmt: skip
    assert opened.errors == []


def test_a_refused_event_is_shown_as_the_cli_words_it_and_nothing_is_written(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [*MORDHEIM, {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [6]}}]
    tokens = new_fight(client, "console-refused", "mordheim", events)
    opened = console(phone, server.url, "console-refused", tokens["gm_token"])
    page = opened.page
    page.keyboard.press("2")  # Snik
    page.keyboard.press("h")
    page.get_by_label("Damage", exact=True).fill("1")
    page.get_by_label("Attacker (optional)").select_option("grim")  # out of action: cannot act
    page.get_by_role("button", name="Record").click()
    expect(page.locator("#act-error")).to_contain_text("Refused, nothing written: event #5")
    expect(page.locator("#act-error")).to_contain_text("field $.attacker")
    assert len(log_of(client, "console-refused", tokens["gm_token"])) == 4
    # the browser logs the refused request itself; the page had no error of its own
    assert [e for e in opened.errors if "status of 422" not in e] == []


def test_undo_names_the_event_and_shows_each_character_before_and_after(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    events = [*MORDHEIM, {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [6]}}]
    tokens = new_fight(client, "console-undo", "mordheim", events)
    opened = console(phone, server.url, "console-undo", tokens["gm_token"])
    page = opened.page
    page.keyboard.press("u")
    expect(page.locator("#confirm-heading")).to_have_text("Undo #4 hit on Grim (1 damage)?")
    page.get_by_label("Reason (optional)").fill("a mistaken hit")
    page.get_by_role("button", name="Undo it").click()
    expect(page.locator("#status")).to_have_text(
        "Undid #4 hit on Grim (1 damage): Grim: out_of_action -> upright (wounds 0 -> 1)"
    )
    assert log_of(client, "console-undo", tokens["gm_token"])[-1] == {
        "type": "retract", "event": "#4", "reason": "a mistaken hit",
    }  # fmt: skip
    assert opened.errors == []


def test_the_console_fits_a_phone_and_its_actions_sit_under_the_thumb(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-fit", "mordheim", MORDHEIM)
    page = console(phone, server.url, "console-fit", tokens["gm_token"]).page
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    for name in ("Hit", "Heal", "Next turn", "Undo"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box is not None and box["height"] >= 44 and box["y"] > PHONE["height"] * 0.8, name


def test_the_timeline_links_the_console_for_a_gm_token_only(
    server: Any, client: httpx.Client, phone: Any
) -> None:
    tokens = new_fight(client, "console-linked", "mordheim", MORDHEIM)
    page = phone.new_page()
    page.goto(f"{server.url}/fights/console-linked/#gm={tokens['gm_token']}")
    link = page.get_by_role("link", name="GM console")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("#roster li")).to_have_count(2)  # the GM's token came along
    viewer = phone.new_page()
    viewer.goto(f"{server.url}/fights/console-linked/#viewer={tokens['viewer_token']}")
    expect(viewer.locator("#then caption")).to_be_visible()
    expect(viewer.get_by_role("link", name="GM console")).to_be_hidden()
