"""The `/campaigns` routes over real HTTP on loopback and a real SQLite file: a dnd5e campaign
whose hit points carry from fight to fight (SRD 5.1: damage is subtracted from current hit
points), an undo in fight 1 that flows into the record fight 2 began from, and the tokens model:
a campaign's gm and viewer tokens, and a second token for a request that reads a fight into a
campaign or a campaign into a fight."""

from __future__ import annotations

from typing import Any

import httpx

from .server import ADMIN, bearer

FIGHT_TOKEN = "Woundlog-Fight-Token"
CAMPAIGN_TOKEN = "Woundlog-Campaign-Token"


def new_campaign(client: httpx.Client, campaign: str) -> dict[str, Any]:
    made = client.post(
        "/campaigns", json={"campaign": campaign, "ruleset": "dnd5e"}, headers=bearer(ADMIN)
    )
    assert made.status_code == 201, made.text
    tokens: dict[str, Any] = made.json()
    joined = client.post(
        f"/campaigns/{campaign}/members",
        json={"member": "mira", "name": "Mira", "side": "party", "stats": {"hp": 20}},
        headers=bearer(tokens["gm_token"]),
    )
    assert joined.status_code == 200, joined.text
    return tokens


def new_fight(client: httpx.Client, fight: str) -> dict[str, Any]:
    made = client.post("/fights", json={"fight": fight, "ruleset": "dnd5e"}, headers=bearer(ADMIN))
    assert made.status_code == 201, made.text
    tokens: dict[str, Any] = made.json()
    return tokens


def join(client: httpx.Client, fight: dict[str, Any], campaign: dict[str, Any]) -> httpx.Response:
    """Mira joins the fight as character `m`, from the campaign's roster."""
    return client.post(
        f"/fights/{fight['fight']}/join",
        json={"campaign": campaign["campaign"], "character": "m", "member": "mira"},
        headers={**bearer(fight["gm_token"]), CAMPAIGN_TOKEN: campaign["viewer_token"]},
    )


def played(client: httpx.Client, campaign: dict[str, Any], fight: dict[str, Any]) -> None:
    recorded = client.post(
        f"/campaigns/{campaign['campaign']}/fights",
        json={"fight": fight["fight"], "members": {"mira": "m"}},
        headers={**bearer(campaign["gm_token"]), FIGHT_TOKEN: fight["viewer_token"]},
    )
    assert recorded.status_code == 200, recorded.text


def hit(client: httpx.Client, fight: dict[str, Any], damage: int, id: str) -> None:
    sent = client.post(
        f"/fights/{fight['fight']}/events",
        json={"type": "hit", "id": id, "target": "m", "damage": damage},
        headers=bearer(fight["gm_token"]),
    )
    assert sent.status_code == 200, sent.text


def mira(client: httpx.Client, campaign: dict[str, Any]) -> dict[str, Any]:
    shown = client.get(
        f"/campaigns/{campaign['campaign']}/record", headers=bearer(campaign["viewer_token"])
    )
    assert shown.status_code == 200, shown.text
    [record] = shown.json()["members"]
    assert record["member"] == "mira"
    found: dict[str, Any] = record
    return found


def test_hit_points_carry_and_an_undo_in_fight_one_flows_into_fight_two(
    client: httpx.Client,
) -> None:
    west = new_campaign(client, "west")
    f1 = new_fight(client, "west-1")
    assert join(client, f1, west).status_code == 200
    hit(client, f1, 5, "h")  # fight west-1 is now at version 3: started, joined, the hit
    played(client, west, f1)
    assert mira(client, west)["current_hp"] == 15  # 20 - 5

    f2 = new_fight(client, "west-2")
    assert join(client, f2, west).status_code == 200  # with the 15 the record holds
    hit(client, f2, 3, "h2")
    played(client, west, f2)
    assert mira(client, west)["current_hp"] == 12  # 15 - 3

    undone = client.post("/fights/west-1/undo", json={"event": "h"}, headers=bearer(f1["gm_token"]))
    assert undone.status_code == 200, undone.text
    assert mira(client, west)["current_hp"] == 17  # 20 - 3: fight 1 never hurt her

    asked = client.get(
        "/campaigns/west/consequences",
        params={"since": "west-1:3"},
        headers=bearer(west["viewer_token"]),
    )
    assert asked.status_code == 200, asked.text
    report = asked.json()
    assert {
        "member": "mira", "name": "Mira", "stat": "current_hp", "before": 15, "after": 20,
        "from_fight": "west-2",
    }.items() <= report["changes"][0].items()  # fmt: skip
    assert [p["fight"] for p in report["stale"]] == ["west-2"]

    history = client.get(
        "/campaigns/west/history", params={"member": "mira"}, headers=bearer(west["gm_token"])
    )
    assert history.status_code == 200, history.text
    kinds = [(e["event"]["type"], e["event"].get("fight")) for e in history.json()["entries"]]
    assert kinds == [
        ("member_joined", None),
        ("fight_played", "west-1"),
        ("fight_played", "west-2"),
    ]


def test_a_dead_member_is_refused_a_fight_with_the_reason(client: httpx.Client) -> None:
    east = new_campaign(client, "east")
    died = client.post(
        "/campaigns/east/between",
        json={"type": "died", "member": "mira", "cause": "fell into the chasm"},
        headers=bearer(east["gm_token"]),
    )
    assert died.status_code == 200, died.text
    refused = join(client, new_fight(client, "east-1"), east)
    assert refused.status_code == 422, refused.text
    assert "Mira is dead" in refused.json()["message"]
    assert "fell into the chasm" in refused.json()["message"]


def test_each_token_reaches_its_own_campaign_in_its_own_role(client: httpx.Client) -> None:
    north = new_campaign(client, "north")
    south = new_campaign(client, "south")
    fight = new_fight(client, "north-1")
    member = {"member": "brakk", "stats": {"hp": 9}}
    assert client.get("/campaigns/north/record").status_code == 401
    assert client.get("/campaigns/nowhere/record", headers=bearer(ADMIN)).status_code == 404
    for token in (south["gm_token"], fight["gm_token"]):  # another campaign's, a fight's
        other = client.get("/campaigns/north/record", headers=bearer(token))
        assert other.status_code == 403, other.text
    viewer = client.post(
        "/campaigns/north/members", json=member, headers=bearer(north["viewer_token"])
    )
    assert viewer.status_code == 403, viewer.text
    made = client.post("/campaigns", json={"campaign": "west2", "ruleset": "dnd5e"},
                       headers=bearer(north["gm_token"]))  # fmt: skip
    assert made.status_code == 403, made.text


def test_reading_one_log_into_another_takes_a_token_of_both(client: httpx.Client) -> None:
    hills = new_campaign(client, "hills")
    fight = new_fight(client, "hills-1")
    assert join(client, fight, hills).status_code == 200
    unseen = client.post(
        "/campaigns/hills/fights",
        json={"fight": "hills-1", "members": {"mira": "m"}},
        headers=bearer(hills["gm_token"]),
    )
    assert unseen.status_code == 403 and FIGHT_TOKEN in unseen.json()["message"]
    wrong = client.post(
        "/fights/hills-1/join",
        json={"campaign": "hills", "character": "n", "member": "mira"},
        headers={**bearer(fight["gm_token"]), CAMPAIGN_TOKEN: fight["viewer_token"]},
    )
    assert wrong.status_code == 403 and CAMPAIGN_TOKEN in wrong.json()["message"]


def test_the_campaign_report_sums_mira_over_both_fights_for_a_viewer(client: httpx.Client) -> None:
    rep = new_campaign(client, "rep")
    fights = [new_fight(client, "rep-1"), new_fight(client, "rep-2")]
    for fight, damage in zip(fights, (5, 3), strict=True):
        assert join(client, fight, rep).status_code == 200
        hit(client, fight, damage, f"h{damage}")
        played(client, rep, fight)
    asked = client.get("/campaigns/rep/report", headers=bearer(rep["viewer_token"]))
    assert asked.status_code == 200, asked.text
    report = asked.json()
    [member] = report["members"]
    # 5 in rep-1, 3 in rep-2, each by no one of the fight; each fight: started, joined, hit
    assert (member["member"], member["fights"]) == ("mira", ["rep-1", "rep-2"])
    assert (member["tally"]["hits_taken"], member["tally"]["damage_taken"]) == (2, 8)
    assert report["total"]["damage_taken"] == 8 and report["length"]["events"] == 6
    assert [f["members"] for f in report["fights"]] == [{"mira": "m"}, {"mira": "m"}]
    other = client.get("/campaigns/rep/report", headers=bearer(fights[0]["viewer_token"]))
    assert other.status_code == 403, other.text
    assert client.get("/campaigns/nowhere/report", headers=bearer(ADMIN)).status_code == 404
