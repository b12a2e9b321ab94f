"""The table view follows a fight from its stream alone (issue 42): after opening it asks the
server for nothing but the stream, event after event (hits, a heal, turns, undos: retract and
amend, a joining retracted and given back), resumes after a reconnect, and shows what a page
opened afresh shows; a viewer's page shows the redacted view, and reads the fight again when
the GM changes what players see."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.replays.service.server import ADMIN, bearer

from .conftest import Tokens, Watched, logged_fight, page_fight
from .server import PagesServer

BOSS = "Scene.sceneMain0000001.Token.tkGoblinBoss0000001"
GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"

LATER: list[dict[str, Any]] = [
    {"type": "hit", "id": "cut", "target": GOBLIN, "damage": 3, "attacker": "tordek"},
    {"type": "heal", "id": "potion", "target": "mirabel", "amount": 4, "means": "potion"},
    {"type": "retract", "event": "cut", "reason": "missed after all"},
    {"type": "amend", "event": "#7", "reason": "less", "replacement": {
        "type": "hit", "target": BOSS, "damage": 5, "attacker": "tordek"}},
    {"type": "turn_ended", "character": "mirabel"},
    {"type": "character_joined", "id": "late", "character": "wolf", "name": "Wolf",
     "side": "goblins", "kind": "monster", "stats": {"hp": 11, "ac": 13}},
    {"type": "hit", "id": "bite", "target": "tordek", "damage": 6, "attacker": "wolf"},
    {"type": "retract", "id": "gone", "event": "late", "reason": "not here yet"},
    {"type": "retract", "event": "gone", "reason": "here after all"},
]  # fmt: skip


def asked(page: Page) -> list[str]:
    """The path of every request the page makes from now on."""
    paths: list[str] = []
    page.on("request", lambda request: paths.append(urlparse(request.url).path))
    return paths


def shown(page: Page) -> dict[str, str]:
    return {
        part: page.locator(part).inner_html() for part in ("#title", "#turn", "#just", "#sides")
    }


def at(page: Page, seq: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-seq", str(seq), timeout=5000)


def record(client: httpx.Client, tokens: Tokens, event: dict[str, Any]) -> int:
    answer = client.post(f"/fights/{tokens.fight}/events", json=event, headers=bearer(tokens.gm))
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def fresh(page: Page, url: str, tokens: Tokens, token: str, seq: int) -> dict[str, str]:
    other = page.context.new_page()
    other.goto(f"{url}/fights/{tokens.fight}/table#viewer={token}")
    at(other, seq)
    seen = shown(other)
    other.close()
    return seen


def test_a_followed_table_asks_for_nothing_but_the_stream_and_stays_a_fresh_load(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "live-table", "roadside.jsonl")
    for token in (tokens.viewer, tokens.gm):  # the players' view, then the GM's whole one
        page = watched.page.context.new_page()
        page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={token}")
        version = client.get(f"/fights/{tokens.fight}/state", headers=bearer(token)).json()["seq"]
        at(page, version)
        paths = asked(page)
        for event in LATER if token == tokens.viewer else LATER[:2]:
            event = {**event, "id": f"{event['id']}-{token[:4]}"} if "id" in event else event
            if event["type"] == "retract" and event["event"] in ("cut", "late", "gone"):
                event = {**event, "event": f"{event['event']}-{token[:4]}"}
            version = record(client, tokens, event)
            at(page, version)
            assert shown(page) == fresh(page, server.url, tokens, token, version), event
        assert [path for path in paths if not path.endswith("/stream")] == []  # no GET, ever
        if token == tokens.viewer:
            sides = page.locator("#sides").inner_text()
            assert "of 21" not in sides and "of 11" not in sides  # the monsters' numbers
            expect(page.locator(f"li[data-character='{BOSS}'] .band")).to_be_visible()
        else:
            expect(page.locator(f"li[data-character='{BOSS}']")).to_contain_text("of 21")
        page.close()


def test_a_viewers_table_reads_the_fight_again_when_the_gm_shows_the_numbers(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "live-view", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    at(page, 12)
    paths = asked(page)
    at(page, record(client, tokens, LATER[0]))
    assert not [path for path in paths if path.endswith("/state")]  # applied from the stream
    expect(page.locator(f"li[data-character='{BOSS}'] .band")).to_have_text("Bloodied")
    answer = client.put(
        f"/fights/{tokens.fight}/players-view",
        json={"monsters": "shown"},
        headers=bearer(tokens.gm),
    )
    assert answer.status_code == 200
    at(page, record(client, tokens, LATER[1]))
    expect(page.locator(f"li[data-character='{BOSS}']")).to_contain_text("hp9 of 21")
    assert len([path for path in paths if path.endswith("/state")]) == 1
    assert shown(page) == fresh(page, server.url, tokens, tokens.viewer, 14)


def test_a_table_that_lost_its_server_resumes_after_its_newest_event_and_misses_none(
    browser: Browser, tmp_path: Path
) -> None:
    """The server killed while the page follows (its requests fail meanwhile, so this page is
    not `watched` for console errors); events written by another process while it is down; the
    server started again: the page's stream resumes from the event after its newest, and the
    page applies what it missed without reading the fight again."""
    with PagesServer(tmp_path / "fights.db") as server, httpx.Client(base_url=server.url) as client:
        text = (Path(__file__).parent / "data" / "roadside.jsonl").read_text()
        tokens = logged_fight(client, "resumed", text)
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
        at(page, 12)
        paths = asked(page)
        at(page, record(client, tokens, LATER[0]))
        server.kill()
        server.start()
        for event in LATER[1:4]:
            version = record(client, tokens, event)
        at(page, version)
        assert shown(page) == fresh(page, server.url, tokens, tokens.viewer, version)
        streams = [path for path in paths if path.endswith("/stream")]
        assert paths == streams and len(streams) >= 1, paths  # reconnected; no GET of state
        assert errors == []
        context.close()


def test_a_table_whose_fight_is_deleted_says_so_and_stops_following(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    """The stream's `deleted` ends it for good (stream.py): the page says the fight is gone and
    does not reconnect, where it used to retry every second for ever."""
    tokens = page_fight(client, "live-deleted", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    at(page, 12)
    paths = asked(page)
    assert client.delete(f"/fights/{tokens.fight}", headers=bearer(ADMIN)).status_code == 204
    expect(page.locator("#status")).to_contain_text("this fight was deleted", timeout=10000)
    page.wait_for_timeout(2500)  # more than two of the reconnects it would have made
    assert not [path for path in paths if path.endswith("/stream")]


def test_a_table_whose_token_is_revoked_asks_for_a_token_and_stops_following(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "live-revoked", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    at(page, 12)
    paths = asked(page)
    revoked = client.delete(f"/fights/{tokens.fight}/tokens", headers=bearer(ADMIN))
    assert revoked.status_code == 204
    expect(page.locator("#status")).to_contain_text("was revoked", timeout=10000)
    expect(page.locator("#token-form")).to_be_visible()
    page.wait_for_timeout(2500)
    assert not [path for path in paths if path.endswith("/stream")]
