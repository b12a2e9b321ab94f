"""`POST /fights/{fight}/import/{format}?campaign=NAME` over real HTTP on loopback and a real
SQLite file: the imported fight is recorded on the campaign's roster once, and, as the import
writes into the campaign, it takes the campaign's gm token in `Woundlog-Campaign-Token`."""

from __future__ import annotations

from typing import Any

import httpx

from ..test_campaign_import import BRAKKA, damage, turn
from .server import ADMIN, bearer
from .test_campaigns import CAMPAIGN_TOKEN, new_campaign


def setup(client: httpx.Client, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Campaign `name` with Mira (test_campaigns) and Brakka on its roster, and the dnd5e fight
    `name-ambush`."""
    campaign = new_campaign(client, name)
    joined = client.post(
        f"/campaigns/{name}/members",
        json={"member": BRAKKA, "name": "Brakka", "stats": {"hp": 12}},
        headers=bearer(campaign["gm_token"]),
    )
    assert joined.status_code == 200, joined.text
    fight = client.post(
        "/fights", json={"fight": f"{name}-ambush", "ruleset": "dnd5e"}, headers=bearer(ADMIN)
    )
    assert fight.status_code == 201, fight.text
    return campaign, fight.json()


def test_an_import_naming_a_campaign_records_the_fight_there_once(client: httpx.Client) -> None:
    campaign, fight = setup(client, "imported-world")
    headers = {**bearer(fight["gm_token"]), CAMPAIGN_TOKEN: campaign["gm_token"]}
    records = [turn("e1"), damage("e2", 7, 5)]
    url = "/fights/imported-world-ambush/import/foundry?campaign=imported-world"
    first = client.post(url, json=records, headers=headers)
    assert first.status_code == 200, first.text
    assert first.json()["recorded_in"] == "imported-world"
    again = client.post(url, json=records, headers=headers)
    assert again.status_code == 200, again.text
    assert "recorded_in" not in again.json()
    record = "/campaigns/imported-world/record"
    shown = client.get(record, headers=bearer(campaign["viewer_token"]))
    assert shown.status_code == 200, shown.text
    assert shown.json()["fights"] == ["imported-world-ambush"]
    mira, brakka = shown.json()["members"]
    assert brakka["current_hp"] == 7  # 12 - 5
    assert "fights" not in mira  # a member who is no character of the fight took no part
    assert brakka["fights"] == ["imported-world-ambush"]


def test_the_import_takes_the_campaigns_gm_token(client: httpx.Client) -> None:
    campaign, fight = setup(client, "imported-guarded")
    url = "/fights/imported-guarded-ambush/import/foundry?campaign=imported-guarded"
    for sent, said in (
        ({}, CAMPAIGN_TOKEN),
        ({CAMPAIGN_TOKEN: campaign["viewer_token"]}, "gm token"),
        ({CAMPAIGN_TOKEN: fight["gm_token"]}, "not one of campaign `imported-guarded`"),
    ):
        refused = client.post(url, json=[turn("e1")],
                              headers={**bearer(fight["gm_token"]), **sent})  # fmt: skip
        assert refused.status_code == 403, refused.text
        assert said in refused.json()["message"]
    too_long = "/fights/imported-guarded-ambush/import/foundry?campaign=" + "w" * 191
    long = client.post(too_long, json=[turn("e1")], headers=bearer(ADMIN))
    assert long.status_code in (400, 422), long.text
    record = "/campaigns/imported-guarded/record"
    shown = client.get(record, headers=bearer(campaign["viewer_token"]))
    assert shown.json()["fights"] == []
    events = client.get("/fights/imported-guarded-ambush/events", headers=bearer(fight["gm_token"]))
    assert len(events.json()["events"]) == 1  # only its fight_started: nothing imported
