""" "Odds from here" on the timeline page, in real Chromium against a real `woundlog serve`: a
what-if of hits, heals and turn ticks built step by step, answered per character as the API
answers the same events; a question too large shows the service's 422 and offers an estimate."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.replays.service.server import bearer

from .conftest import Tokens, Watched, bundled_fight, one_place


@pytest.fixture(scope="module")
def ambush(server: Any) -> Tokens:
    """dnd5e: at #24 Mirabel is up at 7 of 18 HP; death saves at the start of her turn."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "odds-ambush", "dnd5e_goblin_ambush.jsonl")


@pytest.fixture(scope="module")
def skirmish(server: Any) -> Tokens:
    """Mordheim: at #4 Hilde, Ulf and Brand have joined, one wound each."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_fight(client, "odds-skirmish", "mordheim_undo.jsonl")


def open_at(watched: Watched, url: str, tokens: Tokens, at: int) -> Page:
    watched.page.goto(f"{url}/fights/{tokens.fight}/?at={at}#viewer={tokens.viewer}")
    expect(watched.page.locator("#then caption")).to_have_text(f"After event #{at}")
    return watched.page


def api_odds(client: httpx.Client, tokens: Tokens, **query: Any) -> httpx.Response:
    if "events" in query:
        query["events"] = json.dumps(query["events"])
    return client.get(f"/fights/{tokens.fight}/odds", params=query, headers=bearer(tokens.viewer))


def add_hit(page: Page, target: str, damage: int, attacker: str = "") -> None:
    page.select_option("#step-kind", "hit")
    page.select_option("#step-target", target)
    page.fill("#step-damage", str(damage))
    page.select_option("#step-attacker", attacker)
    page.click("#step-add")


def add_heal(page: Page, target: str, amount: int, means: str, healer: str) -> None:
    page.select_option("#step-kind", "heal")
    page.select_option("#step-target", target)
    page.fill("#step-amount", str(amount))
    page.fill("#step-means", means)
    page.select_option("#step-healer", healer)
    page.click("#step-add")


def add_tick(page: Page, value: str) -> None:
    page.select_option("#step-kind", "tick")
    page.select_option("#step-tick", value)
    page.click("#step-add")


def shown_odds(page: Page) -> dict[str, list[str]]:
    """Per character row, the text of each state's line."""
    return page.locator("#odds-table tr").evaluate_all(
        """rows => Object.fromEntries(rows.map(r => [r.dataset.character,
            [...r.querySelectorAll('li')].map(li => li.textContent)]))"""
    )


def expected_lines(answer: dict[str, Any], now: dict[str, Any]) -> dict[str, list[str]]:
    """What the page shows for the API's answer: a row for each character whose odds differ
    from how it stands `now` (the state JSON at the position), its states exact (percentage and
    fraction) or estimated (how many of the samples, percentage, 95% interval)."""
    lines: dict[str, list[str]] = {}
    for cid, character in answer["characters"].items():
        outcomes = character["outcomes"]
        current = now["characters"][cid]
        if len(outcomes) == 1 and all(current[k] == v for k, v in outcomes[0]["outcome"].items()):
            continue  # folded: certain to stay as it is
        lines[cid] = []
        for s in character["states"]:
            if answer["exact"]:
                line = f"{s['state']} {one_place(s['percent'])}% ({s['chance']})"
            else:
                top, bottom = map(int, s["chance"].split("/"))
                count = top * answer["samples"] // bottom
                line = (
                    f"{s['state']} in {count} of {answer['samples']} replays "
                    f"({one_place(s['percent'])}%, 95% between {one_place(s['low'])}% and "
                    f"{one_place(s['high'])}%)"
                )
            lines[cid].append(line)
    return lines


def state_at(client: httpx.Client, tokens: Tokens, at: int) -> dict[str, Any]:
    answer = client.get(
        f"/fights/{tokens.fight}/state", params={"at": at}, headers=bearer(tokens.viewer)
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def expect_refused(watched: Watched) -> None:
    """The 422 is the answer these tests ask for: Chromium logs every 4xx response as a console
    error, which the page cannot prevent; anything else logged still fails the test."""
    expected = "the server responded with a status of 422"
    watched.errors[:] = [error for error in watched.errors if expected not in error]


def test_hits_heals_and_ticks_in_order_give_the_apis_odds_for_those_events(
    watched: Watched, server: Any, client: httpx.Client, ambush: Tokens
) -> None:
    page = open_at(watched, server.url, ambush, 24)
    add_heal(page, "mirabel", 1, "potion", "lyra")  # 7 -> 8 HP
    add_hit(page, "mirabel", 10, "g3")  # 0 HP, 2 over: dying
    add_tick(page, "start|character|mirabel")  # her first death save
    add_hit(page, "tordek", 4)  # nobody named as the attacker
    expect(page.locator("#whatif-steps li")).to_have_count(4)
    assert page.locator("#whatif-steps li > span").all_inner_texts() == [
        "Mirabel is healed 1 (potion) by Lyra",
        "Mirabel is hit for 10 by Goblin 3",
        "Mirabel's turn starts",
        "Tordek is hit for 4",
    ]
    page.select_option("#odds-rounds", "1")
    page.click("#odds")
    caption = page.locator("#odds-table caption")
    expect(caption).to_have_text("After #24, 4 step(s) and 1 round(s) of turns, exactly")
    events = [
        {"type": "heal", "target": "mirabel", "amount": 1, "means": "potion", "healer": "lyra"},
        {"type": "hit", "target": "mirabel", "damage": 10, "attacker": "g3"},
        {"type": "turn_started", "character": "mirabel"},
        {"type": "hit", "target": "tordek", "damage": 4},
    ]
    answer = api_odds(client, ambush, at=24, events=events, ticks=1)
    assert answer.status_code == 200, answer.text
    assert shown_odds(page) == expected_lines(answer.json(), state_at(client, ambush, 24))
    mirabel = shown_odds(page)["mirabel"]
    assert len(mirabel) > 1 and all("%" in line and "/" in line for line in mirabel)


def test_removing_a_step_asks_again_without_it(
    watched: Watched, server: Any, client: httpx.Client, ambush: Tokens
) -> None:
    page = open_at(watched, server.url, ambush, 24)
    add_hit(page, "mirabel", 10, "g3")
    add_hit(page, "lyra", 25, "g3")
    page.get_by_role("button", name="Remove step 1: Mirabel is hit for 10 by Goblin 3").click()
    expect(page.locator("#whatif-steps li")).to_have_count(1)
    page.select_option("#odds-rounds", "0")
    page.click("#odds")
    expect(page.locator("#odds-table caption")).to_contain_text("1 step(s) and 0 round(s)")
    events = [{"type": "hit", "target": "lyra", "damage": 25, "attacker": "g3"}]
    answer = api_odds(client, ambush, at=24, events=events)
    assert shown_odds(page) == expected_lines(answer.json(), state_at(client, ambush, 24))


def test_a_question_too_large_shows_the_services_422_and_offers_an_estimate(
    watched: Watched, server: Any, client: httpx.Client, skirmish: Tokens
) -> None:
    page = open_at(watched, server.url, skirmish, 4)
    add_hit(page, "ulf", 8, "hilde")  # eight injury dice on one wound: past the service's bound
    page.select_option("#odds-rounds", "0")
    page.click("#odds")
    events = [{"type": "hit", "target": "ulf", "damage": 8, "attacker": "hilde"}]
    refused = api_odds(client, skirmish, at=4, events=events)
    assert refused.status_code == 422
    expect(page.locator("#odds-error")).to_have_text(refused.json()["message"])
    expect(page.locator("#odds-table")).to_be_hidden()
    expect_refused(watched)
    page.fill("#odds-samples", "1500")
    page.click("#odds-estimate")
    caption = page.locator("#odds-table caption")
    expect(caption).to_have_text(
        "After #4, 1 step(s) and 0 round(s) of turns, estimated from 1500 replays"
    )
    expect(page.locator("#odds-refused")).to_be_hidden()
    estimated = api_odds(client, skirmish, at=4, events=events, samples=1500)
    assert estimated.status_code == 200, estimated.text
    assert shown_odds(page) == expected_lines(estimated.json(), state_at(client, skirmish, 4))
    assert " of 1500 replays (" in shown_odds(page)["ulf"][0]
    assert "289/300" not in page.locator("#odds-table").inner_text()  # no fraction that looks exact


def test_a_step_the_service_cannot_take_shows_its_message_and_no_estimate(
    watched: Watched, server: Any, client: httpx.Client, skirmish: Tokens
) -> None:
    page = open_at(watched, server.url, skirmish, 4)
    page.select_option("#odds-rounds", "0")
    page.click("#odds")  # nothing happens in this what-if: the service says what to ask
    refused = api_odds(client, skirmish, at=4, ticks=0)
    assert refused.status_code == 422
    expect(page.locator("#odds-error")).to_have_text(refused.json()["message"])
    expect(page.locator("#odds-sampling")).to_be_hidden()
    expect_refused(watched)


def test_any_event_as_json_is_a_step_with_its_facts_and_dice(
    watched: Watched, server: Any, client: httpx.Client, ambush: Tokens
) -> None:
    page = open_at(watched, server.url, ambush, 24)
    page.select_option("#step-kind", "event")
    page.fill("#step-json", '{"type": "hit", "target": "mirabel"')  # cut short
    page.click("#step-add")
    expect(page.locator("#step-error")).to_contain_text("not JSON")
    expect(page.locator("#whatif-steps li")).to_have_count(0)
    crit = {"type": "hit", "target": "mirabel", "damage": 7, "attacker": "g3", "critical": True}
    page.fill("#step-json", json.dumps(crit))  # a dnd5e fact: two failed death saves at 0 HP
    page.click("#step-add")
    expect(page.locator("#step-error")).to_be_hidden()
    given = {"type": "turn_started", "character": "mirabel", "rolls": {"death_save": [20]}}
    page.fill("#step-json", json.dumps(given))  # a natural 20, given: she wakes at 1 HP
    page.click("#step-add")
    expect(page.locator("#whatif-steps li")).to_have_count(2)
    page.select_option("#odds-rounds", "1")
    page.click("#odds")
    expect(page.locator("#odds-table caption")).to_contain_text("2 step(s) and 1 round(s)")
    answer = api_odds(client, ambush, at=24, events=[crit, given], ticks=1)
    assert answer.status_code == 200, answer.text
    assert shown_odds(page) == expected_lines(answer.json(), state_at(client, ambush, 24))


def test_the_estimate_offers_as_many_samples_as_the_service_takes_and_it_answers(
    watched: Watched, server: Any, client: httpx.Client, skirmish: Tokens
) -> None:
    """A hit and 3 rounds of turns (each: the round, two sides' turns, the round's end) are 19
    events: the service takes at most 50,000 // (2 * 19) = 1,315 samples of them (its 50,000
    reducer steps, 2 at least per sampled event), fewer than the page's 2,000 of old, which the
    service refused. The page is told so by the refusal, `most_samples`."""
    hit = {"type": "hit", "target": "ulf", "damage": 8, "attacker": "hilde"}
    refused = api_odds(client, skirmish, at=4, events=[hit], ticks=3)
    assert refused.status_code == 422 and refused.json()["most_samples"] == 1315, refused.text
    page = open_at(watched, server.url, skirmish, 4)
    add_hit(page, "ulf", 8, "hilde")
    page.select_option("#odds-rounds", "3")
    page.click("#odds")
    expect(page.locator("#odds-sampling")).to_be_visible()
    expect(page.locator("#odds-samples")).to_have_value("1315")
    page.click("#odds-estimate")  # the page's own offer, untouched
    expect(page.locator("#odds-table caption")).to_have_text(
        "After #4, 1 step(s) and 3 round(s) of turns, estimated from 1315 replays"
    )
    expect_refused(watched)


def test_the_page_holds_to_the_bound_the_service_gives_not_one_of_its_own(
    watched: Watched, server: Any, skirmish: Tokens
) -> None:
    """The service's refusal, with its `most_samples` changed on the way (as another
    configuration of the service would answer): the page offers and enforces that figure."""
    page = open_at(watched, server.url, skirmish, 4)

    def smaller_bound(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        if answer.status == 422:
            body["most_samples"] = 321
        route.fulfill(response=answer, json=body)

    page.route("**/odds?*", smaller_bound)
    add_hit(page, "ulf", 8, "hilde")
    page.select_option("#odds-rounds", "3")
    page.click("#odds")
    expect(page.locator("#odds-samples")).to_have_value("321")
    expect(page.locator("#odds-samples")).to_have_attribute("max", "321")
    page.fill("#odds-samples", "322")
    page.click("#odds-estimate")
    expect(page.locator("#odds-error")).to_have_text(
        "An estimate of this what-if takes 1 to 321 samples."
    )
    add_hit(page, "ulf", 1, "hilde")  # another what-if: the page waits for the service's word
    page.fill("#odds-samples", "400")
    page.click("#odds-estimate")
    expect(page.locator("#odds-table caption")).to_have_text(
        "After #4, 2 step(s) and 3 round(s) of turns, estimated from 400 replays"
    )
    expect_refused(watched)


def test_more_samples_than_the_service_takes_are_refused_on_the_page_at_once(
    watched: Watched, server: Any, skirmish: Tokens
) -> None:
    page = open_at(watched, server.url, skirmish, 4)
    add_hit(page, "ulf", 8, "hilde")
    page.select_option("#odds-rounds", "0")
    page.click("#odds")
    expect(page.locator("#odds-sampling")).to_be_visible()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/odds?" in r.url else None)
    page.fill("#odds-samples", "999999")
    page.click("#odds-estimate")
    expect(page.locator("#odds-error")).to_have_text(
        "An estimate of this what-if takes 1 to 25,000 samples."
    )
    assert asked == []  # refused without asking the service
    expect_refused(watched)


def test_the_panel_says_it_is_working_while_the_service_works(
    watched: Watched, server: Any, skirmish: Tokens
) -> None:
    page = open_at(watched, server.url, skirmish, 4)
    held: list[Any] = []
    page.route("**/odds?*", lambda route: held.append(route))  # the answer waits for the test
    add_hit(page, "ulf", 1, "hilde")
    page.select_option("#odds-rounds", "0")
    page.click("#odds")
    expect(page.locator("#odds-busy")).to_have_text("Working out the odds…")
    expect(page.locator("#odds")).to_be_disabled()
    expect(page.locator("#odds-actions")).to_have_attribute("aria-busy", "true")
    page.wait_for_function("() => true")
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#odds-table caption")).to_contain_text("After #4, 1 step(s)")
    expect(page.locator("#odds-busy")).to_have_text("")
    expect(page.locator("#odds")).to_be_enabled()
    expect(page.locator("#odds-actions")).to_have_attribute("aria-busy", "false")
