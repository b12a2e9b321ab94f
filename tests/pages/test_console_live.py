"""The GM console follows its fight from the stream alone (issue 42): events another program
records and the console's own actions are shown with no GET of the state or the timeline, and
what it shows is what a console opened afresh shows; an undo, which rewrites what earlier
events did, is the one event it reads the fight again for."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import httpx
from playwright.sync_api import Page, expect

from tests.replays.service.server import bearer

from .conftest import Watched, page_fight

GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def at(page: Page, seq: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-seq", str(seq), timeout=5000)


def shown(page: Page) -> dict[str, str]:
    """What the console shows of the fight, with Tordek picked."""
    page.locator("#roster li[data-character='tordek'] .pick").click()
    parts = ("#title", "#turn", "#roster", "#recent")
    return {part: page.locator(part).inner_html() for part in parts}


def test_a_console_shows_each_event_from_the_stream_and_reads_the_fight_again_for_an_undo(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "live-console", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/console#gm={tokens.gm}")
    at(page, 12)
    paths: list[str] = []
    page.on("request", lambda request: paths.append(urlparse(request.url).path))
    gm = bearer(tokens.gm)
    cut = {"type": "hit", "id": "cut", "target": GOBLIN, "damage": 3, "attacker": "tordek"}
    assert client.post(f"/fights/{tokens.fight}/events", json=cut, headers=gm).is_success
    at(page, 13)
    expect(page.locator("#recent")).to_contain_text("Goblin 1")
    # the console's own action: sent, then shown when the stream brings it
    page.locator("#roster li[data-character='tordek'] .pick").click()
    page.get_by_role("button", name="Hit", exact=True).click()
    page.get_by_label("Damage", exact=True).fill("2")
    page.get_by_role("button", name="Record").click()
    at(page, 14)
    expect(page.locator("#status")).to_contain_text("#14 hit:")
    expect(page.locator("li[data-character='tordek']")).to_contain_text("26")
    sent = [p for p in paths if not p.endswith("/stream")]  # opened last, maybe after the draw
    assert sent == [f"/fights/{tokens.fight}/events"], paths  # its POST alone
    fresh = page.context.new_page()
    fresh.goto(f"{server.url}/fights/{tokens.fight}/console#gm={tokens.gm}")
    at(fresh, 14)
    assert shown(page) == shown(fresh)
    # an undo: what the earlier event did is rewritten, so the console reads the fight again
    retract = {"type": "retract", "event": "cut", "reason": "missed"}
    assert client.post(f"/fights/{tokens.fight}/events", json=retract, headers=gm).is_success
    at(page, 15)
    assert [p for p in paths if p.endswith("/state")] == [f"/fights/{tokens.fight}/state"]
    fresh.reload()
    at(fresh, 15)
    assert shown(page) == shown(fresh)
