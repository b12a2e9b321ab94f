"""The campaign page in real Chromium against a real `woundlog serve`: the roster as the API
gives it (the page adds nothing of its own to a record), each injury with the fight it was
taken in linked to that fight's timeline, and a member's history across fights."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.replays.service.server import bearer

from .conftest import Campaign, Watched, bundled_campaign


@pytest.fixture(scope="module")
def chasm(server: Any) -> Campaign:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        return bundled_campaign(client, "chasm", "warhammer_quest_fire_chasm.jsonl")


def record(server: Any, chasm: Campaign) -> dict[str, Any]:
    shown = httpx.get(f"{server.url}/campaigns/chasm/record", headers=bearer(chasm.viewer))
    assert shown.status_code == 200, shown.text
    found: dict[str, Any] = shown.json()
    return found


def test_the_roster_shows_each_members_injuries_and_links_each_fight(
    watched: Watched, server: Any, chasm: Campaign
) -> None:
    page = watched.page
    page.goto(f"{server.url}/campaigns/chasm/#viewer={chasm.viewer}")
    members = record(server, chasm)["members"]
    rows = page.locator("#roster tbody tr")
    expect(rows).to_have_count(4)  # the fire chasm's four warriors
    assert "viewer=" not in page.url  # the token left the address bar
    injured = [m for m in members if m.get("injuries")]
    assert injured, "the fire chasm leaves a warrior with a Serious Injury"
    for member in members:
        row = page.locator(
            "#roster tbody tr", has=page.get_by_role("rowheader", name=member["name"])
        )
        for injury in member.get("injuries", []):
            expect(row).to_contain_text(injury["name"])
            link = row.get_by_role("link", name=injury["fight"]).first
            expect(link).to_have_attribute("href", f"/fights/{injury['fight']}/")
        expect(row).to_contain_text(f"dead: {member['dead']}" if member.get("dead") else "active")
    page.locator("#roster tbody tr").first.get_by_role("link", name="chasm-1").last.click()
    expect(page).to_have_url(f"{server.url}/fights/chasm-1/")
    expect(page.get_by_label("Viewer token")).to_be_visible()  # its own token: not the campaign's


RECORD_FIELDS = {"member", "name", "side", "kind", "stats", "gear", "injuries", "conditions",
                 "fights", "retired", "dead"}  # fmt: skip


def test_the_roster_shows_each_members_stats_now_from_the_records_top_level(
    watched: Watched, server: Any, chasm: Campaign
) -> None:
    """A record gives the stats the next fight joins a member with at its top level, each under
    its own name, as a fight's character does (DESIGN section 8): "Stats now" shows each."""
    page = watched.page
    page.goto(f"{server.url}/campaigns/chasm/#viewer={chasm.viewer}")
    members = record(server, chasm)["members"]
    expect(page.locator("#roster tbody tr")).to_have_count(len(members))
    for member in members:
        now = {key: value for key, value in member.items() if key not in RECORD_FIELDS}
        assert now and "current" not in member, member
        row = page.locator(
            "#roster tbody tr", has=page.get_by_role("rowheader", name=member["name"])
        )
        stats_now = row.locator("td").first
        expect(stats_now).to_have_text(", ".join(f"{key} {value}" for key, value in now.items()))


def test_a_members_history_lists_their_fights(
    watched: Watched, server: Any, chasm: Campaign
) -> None:
    page = watched.page
    page.goto(f"{server.url}/campaigns/chasm/#viewer={chasm.viewer}")
    page.get_by_label("Member", exact=True).select_option(label="Brakk the Barbarian")
    history = page.locator("#history li")
    expect(history).to_have_count(2)  # he joined, he played the fire chasm
    expect(history.nth(0)).to_contain_text("member joined")
    expect(history.nth(1)).to_contain_text("fight played: chasm-1")
    expect(history.nth(1).get_by_role("link", name="chasm-1")).to_have_attribute(
        "href", "/fights/chasm-1/"
    )


def test_a_token_of_another_campaign_is_refused_and_asked_again(
    watched: Watched, server: Any, chasm: Campaign
) -> None:
    page = watched.page
    page.goto(f"{server.url}/campaigns/chasm/#viewer={chasm.fight.viewer}")  # the fight's
    expect(page.locator("#status")).to_contain_text("give a token of this campaign")
    page.get_by_label("Viewer token").fill(chasm.viewer)
    page.get_by_role("button", name="Open the campaign").click()
    expect(page.locator("#roster tbody tr")).to_have_count(4)
    # the 403 is the answer asked for: Chromium logs every 4xx as a console error
    refused = "the server responded with a status of 403"
    watched.errors[:] = [error for error in watched.errors if refused not in error]
