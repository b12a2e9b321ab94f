"""`POST /fights/{fight}/dice-asked`: the next die the rules would ask for an event, for a table
that rolls its own dice; nothing written, a refusal told as an append's, gm tokens only."""

from __future__ import annotations

import httpx

from .conftest import new_fight

PAST = {"type": "hit", "target": "snikkit", "damage": 2, "attacker": "grim"}
"""Snikkit's last wound and one more: two injury rolls."""


def test_the_rules_ask_for_each_die_by_name_and_sides_until_none_is_needed(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "dice-1")
    url = "/fights/dice-1/dice-asked"
    first = client.post(url, json=PAST, headers=fight.gm)
    assert first.status_code == 200, first.text
    assert first.json() == {
        "die": {
            "purpose": "injury", "sides": 6, "character": None, "key": "injury",
            "label": "Injury roll", "whose": "snikkit",
        },
        "version": 3,
    }  # fmt: skip
    second = client.post(url, json={**PAST, "rolls": {"injury": [2]}}, headers=fight.gm)
    assert second.json()["die"]["key"] == "injury"
    done = client.post(url, json={**PAST, "rolls": {"injury": [2, 3]}}, headers=fight.gm)
    assert done.json() == {"die": None, "version": 3}
    assert client.get("/fights/dice-1/events", headers=fight.gm).json()["version"] == 3


def test_an_event_the_rules_refuse_is_refused_naming_its_field(client: httpx.Client) -> None:
    fight = new_fight(client, "dice-2")
    refused = client.post(
        "/fights/dice-2/dice-asked", json={**PAST, "target": "gim"}, headers=fight.gm
    )
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == "$.target"
    out_of_range = client.post(
        "/fights/dice-2/dice-asked", json={**PAST, "rolls": {"injury": [7]}}, headers=fight.gm
    )
    assert out_of_range.status_code == 422
    assert out_of_range.json()["errors"][0]["field"] == "$.rolls.injury[0]"


def test_a_viewer_may_not_ask(client: httpx.Client) -> None:
    fight = new_fight(client, "dice-3")
    asked = client.post("/fights/dice-3/dice-asked", json=PAST, headers=fight.viewer)
    assert asked.status_code == 403
