"""The table view draws what each ruleset declares (issue 36), not what the page knows of games:
the declarations come from `GET /rulesets`, fetched once, and a page served other declarations
draws other pools and pips."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page, Route, expect

from tests.replays.service.server import bearer

from .conftest import Watched, bundled_fight, page_fight


def serve_rulesets(page: Page, change: Callable[[dict[str, Any]], None]) -> None:
    """Answer the page's `GET /rulesets` with the server's own answer, each ruleset's
    declarations passed through `change` first."""

    def handle(route: Route) -> None:
        answer = route.fetch()
        rulesets = answer.json()
        for ruleset in rulesets:
            change(ruleset)
        route.fulfill(response=answer, body=json.dumps(rulesets))

    page.route("**/rulesets", handle)


def fetches_of_rulesets(page: Page) -> list[str]:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/rulesets") else None)
    return asked


def open_table(page: Page, url: str, fight: str, viewer: str) -> None:
    page.goto(f"{url}/fights/{fight}/table#viewer={viewer}")
    expect(page.locator(".cards li").first).to_be_visible()


def test_a_warhammer_quest_wounds_pool_is_drawn_from_the_declaration(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = bundled_fight(client, "declared-wq", "warhammer_quest_fire_chasm.jsonl")
    page = watched.page
    asked = fetches_of_rulesets(page)
    open_table(page, server.url, tokens.fight, tokens.viewer)
    grundi = page.locator("li[data-character='grundi']")
    expect(grundi).to_contain_text("wounds6 of 10")  # the declared pool: x of max
    expect(page.locator("li[data-character='gorbag'] .band")).to_have_text("Healthy")  # GM's
    assert len(asked) == 1

    def renamed(ruleset: dict[str, Any]) -> None:
        if ruleset["name"] == "warhammer_quest":  # another pool, and no kind the GM's
            ruleset["presentation"].update(pools=["starting_wounds"], gm_kinds=[])

    other = page.context.new_page()
    serve_rulesets(other, renamed)
    # the gm token's state is whole (a viewer's hides Gorbag's numbers whatever the page is told)
    open_table(other, server.url, tokens.fight, tokens.gm)
    grundi = other.locator("li[data-character='grundi']")
    expect(grundi).to_contain_text("wounds6 (was 10)")  # a stat the rules changed, no pool
    expect(grundi).to_contain_text("starting wounds10")
    expect(other.locator("li[data-character='gorbag'] .band")).to_have_count(0)
    expect(other.locator("li[data-character='gorbag']")).to_contain_text("wounds5")


def test_a_pool_shows_the_maximum_the_rules_hold_now_not_the_one_joined_with(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    """Elwen joined with Starting Wounds 9 and stands at 11 now (What Doesn't Kill Me): her
    card said "wounds 1 of 9" beside "starting wounds 11"."""
    tokens = bundled_fight(client, "declared-wq-max", "warhammer_quest_fire_chasm.jsonl")
    answer = client.get(f"/fights/{tokens.fight}/state", headers=bearer(tokens.viewer)).json()
    elwen = answer["characters"]["elwen"]
    assert (elwen["stats"]["wounds"], elwen["starting_wounds"], elwen["wounds"]) == (9, 11, 1)
    page = watched.page
    open_table(page, server.url, tokens.fight, tokens.viewer)
    card = page.locator("li[data-character='elwen']")
    expect(card.locator("dl")).to_have_text("wounds1 of 11")  # its maximum once, in the pool
    page.goto(f"{server.url}/fights/{tokens.fight}/")  # the timeline's table says the same
    expect(page.locator("#then tr[data-character='elwen'] td[data-label='Counters']")).to_have_text(
        "wounds 1 of 11"
    )


def test_dnd5e_death_save_pips_are_drawn_from_the_declaration_fetched_once(
    watched: Watched, server: Any, client: httpx.Client
) -> None:
    tokens = page_fight(client, "declared-saves", "roadside.jsonl")
    page = watched.page
    asked = fetches_of_rulesets(page)

    def five(ruleset: dict[str, Any]) -> None:
        pips = ruleset["presentation"]["pips"]
        if pips is not None:
            pips.update(name="saving throws", out_of=5, counters={"successes": "kept",
                                                                  "failures": "lost"})  # fmt: skip

    serve_rulesets(page, five)
    open_table(page, server.url, tokens.fight, tokens.viewer)
    saves = page.locator("li[data-character='mirabel'] .saves")
    expect(saves).to_have_attribute("aria-label", "Saving throws: 0 of 5 kept, 1 of 5 lost")
    assert saves.locator(".failures .pip").count() == 5
    assert saves.locator(".failures .pip.on").count() == 1
    expect(page.locator("#just")).to_have_text(
        "Mirabel's turn starts. Mirabel has 1 of 5 saving throws lost."
    )
    hit = {"type": "hit", "target": "tordek", "damage": 3, "attacker": "goblin"}
    assert client.post(
        f"/fights/{tokens.fight}/events", json=hit, headers={"Authorization": f"Bearer {tokens.gm}"}
    ).is_success
    expect(page.locator("#just")).to_have_text("Tordek loses 3 HP.")  # the declared unit
    assert len(asked) == 1, "the declarations are fetched once, not at every redraw"
