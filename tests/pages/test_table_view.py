"""The live table view in real Chromium, and the timeline endpoint's token check."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import expect

from tests.replays.service.server import bearer

from .conftest import Watched, bundled_fight, page_fight

BOSS = "Scene.sceneMain0000001.Token.tkGoblinBoss0000001"
GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def test_table_view_shows_each_character_and_updates_as_events_arrive(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "table-fight", "mordheim_undo.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    cards = page.locator(".cards li")
    expect(cards).to_have_count(3)
    expect(page.locator("li[data-character='hilde'] .state-word")).to_have_text("stunned")
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
    expect(page.locator("#just")).to_have_text("Brand is now out of action, wounds 1 → 0.")
    # the card the live event changed is the one highlighted, and it alone
    expect(page.locator("li.changed")).to_have_count(1)
    expect(page.locator("li.changed")).to_have_attribute("data-character", "brand")


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


def test_table_view_says_what_the_newest_event_did_on_opening_in_plain_words(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "table-opening", "mordheim_undo.jsonl")
    watched.page.goto(f"{server.url}/fights/{tokens.fight}/table#viewer={tokens.viewer}")
    expect(watched.page.locator("#just")).to_have_text(
        "The GM takes back an earlier event (it hit after all: retracting the retract restores "
        "the hit). Hilde is now stunned, wounds 1 → 0."
    )


def open_table(watched: Watched, url: str, fight: str, viewer: str, query: str = "") -> Any:
    watched.page.goto(f"{url}/fights/{fight}/table{query}#viewer={viewer}")
    expect(watched.page.locator(".cards li").first).to_be_visible()
    return watched.page


def test_cards_are_grouped_by_side_with_the_round_and_whose_turn(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "table-sides", "roadside.jsonl")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer)
    sides = page.locator("section.side").evaluate_all(
        """ss => ss.map(s => [s.dataset.side,
            [...s.querySelectorAll('li')].map(li => li.querySelector('h3').textContent)])"""
    )
    assert sides == [["party", ["Tordek", "Mirabel"]], ["goblins", ["Goblin Boss", "Goblin 1"]]]
    # round 1 was given once, at Tordek's turn; Mirabel's turn, without a round, is in it
    expect(page.locator("#turn")).to_have_text("Round 1 · Mirabel's turn")
    expect(page.locator("li[data-character='mirabel']")).to_have_class(re.compile(r"\bacting\b"))
    # the newest event (Mirabel's death save) changed her card alone
    changed = page.locator("li.changed").evaluate_all("ls => ls.map(l => l.dataset.character)")
    assert changed == ["mirabel"]
    expect(page.locator("#just")).to_have_text(
        "Mirabel's turn starts. Mirabel has 1 of 3 death saves failed."
    )
    assert "turn_started" not in page.locator("#just").inner_text()


def test_a_long_token_id_is_never_a_heading_the_name_is_and_the_id_on_hover(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "table-ids", "roadside.jsonl")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer)
    boss = page.locator(f"li[data-character='{BOSS}'] h3")
    expect(boss).to_have_text("Goblin Boss")
    expect(boss).to_have_attribute("title", BOSS)
    assert BOSS not in page.locator("body").inner_text()
    headings = page.locator("h1, h2, h3").all_inner_texts()
    assert max(len(text) for text in headings) < 40, headings


def test_death_saves_are_pips_and_dying_and_stable_look_different(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "table-saves", "roadside.jsonl")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer)
    mirabel = page.locator("li[data-character='mirabel']")
    expect(mirabel.locator(".glance")).to_have_text("dying")
    saves = mirabel.locator(".saves")
    expect(saves).to_have_attribute("aria-label", "Death saves: 0 of 3 passed, 1 of 3 failed")
    assert saves.locator(".failures .pip").count() == 3
    assert saves.locator(".failures .pip.on").count() == 1
    assert saves.locator(".successes .pip.on").count() == 0
    dying = mirabel.evaluate("li => getComputedStyle(li).borderTopStyle")
    medicine = {
        "type": "heal",
        "target": "mirabel",
        "amount": 0,
        "means": "medicine",
        "check": 14,
        "healer": "tordek",
    }
    assert client.post(
        f"/fights/{tokens.fight}/events", json=medicine, headers=bearer(tokens.gm)
    ).is_success
    expect(mirabel).to_have_attribute("data-state", "stabilised")
    expect(mirabel.locator(".glance")).to_have_text("stable")
    expect(mirabel.locator(".saves")).to_have_count(0)
    stable = mirabel.evaluate("li => getComputedStyle(li).borderTopStyle")
    assert (dying, stable) == ("solid", "dashed")
    expect(page.locator("#just")).to_have_text(
        "Mirabel is now stabilised, clears the failed death saves."
    )


def test_monsters_hp_is_banded_for_players_as_improved_initiative_does(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    """Improved Initiative 3.11.8, GetHPDisplay: under half the maximum "Bloodied", under the
    maximum "Hurt", else "Healthy"; the player characters' HP shown. The boss is at 9 of 21."""
    tokens = page_fight(client, "table-bands", "roadside.jsonl")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer)
    expect(page.locator(f"li[data-character='{BOSS}'] .band")).to_have_text("Bloodied")
    expect(page.locator(f"li[data-character='{GOBLIN}'] .band")).to_have_text("Healthy")
    assert "9 of 21" not in page.locator("#sides").inner_text()
    expect(page.locator("li[data-character='tordek']")).to_contain_text("hp28 of 28")
    hit = {"type": "hit", "target": GOBLIN, "damage": 3, "attacker": "tordek"}
    assert client.post(
        f"/fights/{tokens.fight}/events", json=hit, headers=bearer(tokens.gm)
    ).is_success
    expect(page.locator(f"li[data-character='{GOBLIN}'] .band")).to_have_text("Hurt")
    expect(page.locator("#just")).to_have_text("Goblin 1 is hurt.")  # no number for players
    # the GM chooses, and the server keeps it: hidden, or shown (no link carries it)
    set_view(client, tokens, "hidden")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer, "?monsters=shown")
    expect(page.locator(f"li[data-character='{BOSS}'] h3")).to_be_visible()
    expect(page.locator(".band")).to_have_count(0)
    assert "of 21" not in page.locator("#sides").inner_text()  # a link's ?monsters= is no key
    set_view(client, tokens, "shown")
    page = open_table(watched, server.url, tokens.fight, tokens.viewer)
    expect(page.locator(f"li[data-character='{BOSS}']")).to_contain_text("hp9 of 21")


def set_view(client: httpx.Client, tokens: Any, monsters: str) -> None:
    answer = client.put(
        f"/fights/{tokens.fight}/players-view",
        json={"monsters": monsters},
        headers=bearer(tokens.gm),
    )
    assert answer.status_code == 200, answer.text


def test_the_timeline_sets_what_players_see_of_monsters_hp_for_the_gm_alone(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "table-link", "roadside.jsonl")
    page = watched.page
    page.goto(f"{server.url}/fights/{tokens.fight}/#gm={tokens.gm}")
    link = page.get_by_role("link", name="Table view for players")
    expect(link).to_have_attribute("href", f"/fights/{tokens.fight}/table")
    choice = page.get_by_label("players see monsters' HP")
    expect(choice).to_have_value("bands")
    with page.expect_response(lambda answer: answer.request.method == "PUT") as put:
        choice.select_option("hidden")
    assert put.value.status == 200
    expect(link).to_have_attribute("href", f"/fights/{tokens.fight}/table")
    asked = f"/fights/{tokens.fight}/players-view"
    assert client.get(asked, headers=bearer(tokens.viewer)).json()["monsters"] == "hidden"
    viewer = watched.page.context.new_page()
    viewer.goto(f"{server.url}/fights/{tokens.fight}/#viewer={tokens.viewer}")
    expect(viewer.locator("#players-view")).to_be_hidden()  # a viewer sets nothing
