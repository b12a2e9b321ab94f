"""The live table view in real Chromium, and the timeline endpoint's token check."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

from tests.replays.service.server import bearer

from .conftest import Watched, bundled_fight


def test_table_view_shows_each_character_and_updates_as_events_arrive(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "table-fight", "mordheim_undo.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    cards = page.locator("#cards li")
    expect(cards).to_have_count(3)
    expect(page.locator("li[data-character='hilde'] .state")).to_have_text("stunned")
    expect(page.locator("li[data-character='brand']")).to_contain_text("wounds1 of 1")
    hit = {
        "type": "hit",
        "target": "brand",
        "damage": 1,
        "attacker": "a falling beam",
        "rolls": {"injury": [6]},
    }
    assert client.post(
        f"/fights/{tokens.fight}/events", json=hit, headers=bearer(tokens.gm)
    ).is_success
    expect(page.locator("li[data-character='brand']")).to_have_attribute(
        "data-state", "out_of_action", timeout=1000
    )
    expect(page.locator("#just")).to_contain_text("#10 hit")


def test_timeline_endpoint_takes_a_token_of_the_fight(client: httpx.Client) -> None:
    tokens = bundled_fight(client, "guarded", "mordheim_undo.jsonl")
    assert client.get("/fights/guarded/timeline").status_code == 401
    answer = client.get("/fights/guarded/timeline", headers=bearer(tokens.viewer))
    assert answer.status_code == 200
    moments = answer.json()["moments"]
    assert [m["seq"] for m in moments] == list(range(1, 10))
    assert moments[4]["changes"]["undone"] == "amended by #6"
    assert client.get("/fights/nobody/timeline", headers=bearer(tokens.viewer)).status_code == 404


def test_pages_are_served_without_a_token_and_hold_no_data(client: httpx.Client) -> None:
    for path in (
        "/fights/anything/",
        "/fights/anything/table",
        "/web/timeline.js",
        "/web/style.css",
    ):
        answer = client.get(path)
        assert answer.status_code == 200, path
    page = client.get("/fights/anything/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"


def test_table_view_says_what_the_newest_event_did_on_opening(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "table-opening", "mordheim_undo.jsonl")
    watched.page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    expect(watched.page.locator("#just")).to_have_text(
        "#9 retract: retracts #8 (it hit after all: retracting the retract restores the hit); "
        "Hilde: upright -> stunned (wounds 1 -> 0)"
    )
