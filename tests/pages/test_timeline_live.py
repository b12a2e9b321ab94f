"""The timeline page follows its fight from the stream (issue 42): each new event is added to
the grid, the state at the newest event kept up from its `now` message and Undo offered as the
server names it, with no GET; the page then shows what a page opened afresh shows. An undo
rewrites what earlier events did (their marks, the grid's columns): that one event the page
reads the timeline again for. A page pinned to an earlier event stays there, and asks nothing."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import httpx
from playwright.sync_api import Page, expect

from tests.replays.service.server import bearer

from .conftest import Tokens, Watched, page_fight

GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"
BLOWS = [
    {"type": "hit", "id": "cut", "target": GOBLIN, "damage": 3, "attacker": "tordek"},
    {"type": "heal", "id": "potion", "target": "mirabel", "amount": 4, "means": "potion"},
    {"type": "turn_ended", "character": "mirabel"},
]


def at(page: Page, seq: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-seq", str(seq), timeout=5000)


def shown(page: Page) -> dict[str, str]:
    parts = ("#grid", "#position", "#details", "#then", "#gm-actions")
    return {part: page.locator(part).inner_html() for part in parts}


def asked(page: Page) -> list[str]:
    paths: list[str] = []
    page.on("request", lambda request: paths.append(urlparse(request.url).path))
    return paths


def opening(paths: list[str]) -> list[str]:
    """What the page asked for, less what it opens with last (its stream, the GM's setting),
    which a loaded machine may send after the page has drawn the fight."""
    return [path for path in paths if not path.endswith(("/stream", "/players-view"))]


def record(client: httpx.Client, tokens: Tokens, event: dict[str, Any]) -> int:
    answer = client.post(f"/fights/{tokens.fight}/events", json=event, headers=bearer(tokens.gm))
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def test_a_followed_timeline_adds_each_event_without_a_get_and_reads_again_for_an_undo(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "live-timeline", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/#gm={tokens.gm}")
    at(page, 12)
    paths = asked(page)
    fresh = page.context.new_page()
    for event in BLOWS:
        version = record(client, tokens, event)
        at(page, version)
        expect(page.locator("#position")).to_have_text(f"event {version} of {version} (live)")
        expect(page.locator("#undo")).to_contain_text(f"#{version}")
        fresh.goto(f"{server.url}/fights/{tokens.fight}/#gm={tokens.gm}")
        at(fresh, version)
        expect(fresh.locator("#then caption")).to_be_visible()
        expect(page.locator("#then caption")).to_be_visible()
        assert shown(page) == shown(fresh)
    assert opening(paths) == []  # no GET
    version = record(client, tokens, {"type": "retract", "event": "cut", "reason": "missed"})
    at(page, version)
    expect(page.locator("#grid th[data-seq='13'] s")).to_be_visible()  # marked as undone
    assert [p for p in paths if p.endswith("/timeline")]  # read again, for the undo alone


def test_a_timeline_pinned_to_an_earlier_event_stays_there_and_asks_nothing(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "pinned-timeline", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/?at=5#viewer={tokens.viewer}")
    at(page, 12)
    expect(page.locator("#position")).to_have_text("event 5 of 12")
    paths = asked(page)
    for event in BLOWS:
        at(page, record(client, tokens, event))
    expect(page.locator("#position")).to_have_text("event 5 of 15")
    assert opening(paths) == []
