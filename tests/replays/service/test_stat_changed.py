"""Issue 41: a `stat_changed` goes through the service's one route for events (`POST
/fights/{fight}/events`), the gm token's alone, as any event does; `GET /rulesets` says which
stats each ruleset lets one set, so a bridge can tell before it sends one."""

from __future__ import annotations

import httpx

from .conftest import Tokens, new_fight
from .server import ADMIN, bearer


def test_a_stat_changed_is_recorded_through_the_events_route(client: httpx.Client) -> None:
    created = client.post(
        "/fights", json={"fight": "aid", "ruleset": "dnd5e", "seed": 1}, headers=bearer(ADMIN)
    )
    assert created.status_code == 201, created.text
    tokens = Tokens("aid", created.json())
    joined = {"type": "character_joined", "character": "mira", "name": "Mira", "stats": {"hp": 20}}
    aid = {"type": "stat_changed", "character": "mira", "stat": "hp", "value": 25, "reason": "Aid"}
    heal = {"type": "heal", "target": "mira", "amount": 5}
    answer = client.post("/fights/aid/events", json=[joined, aid, heal], headers=tokens.gm)
    assert answer.status_code == 200, answer.text
    assert [c["type"] for c in answer.json()["changes"]] == ["character_joined", "stat_changed",
                                                             "heal"]  # fmt: skip
    mira = client.get("/fights/aid/state", headers=tokens.gm).json()["characters"]["mira"]
    assert (mira["hp"], mira["max_hp"]) == (25, 25)
    refused = client.post("/fights/aid/events", json=[aid], headers=tokens.viewer)
    assert refused.status_code in (401, 403)


def test_a_ruleset_that_derives_its_stats_refuses_it_and_says_so_before(
    client: httpx.Client,
) -> None:
    tokens = new_fight(client, "derived")
    change = {"type": "stat_changed", "character": "grim", "stat": "wounds", "value": 3}
    refused = client.post("/fights/derived/events", json=[change], headers=tokens.gm)
    assert refused.status_code == 422, refused.text
    assert "$.stat" in refused.text
    assert client.get("/rulesets/mordheim").json()["changeable_stats"] == {}
    dnd5e = client.get("/rulesets/dnd5e").json()
    assert dnd5e["changeable_stats"] == {"hp": "the hit point maximum"}
    assert (dnd5e["importing"]["maximum"], dnd5e["importing"]["revival"]) == ("hp", "revivify")
