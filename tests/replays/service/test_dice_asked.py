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


def test_the_next_turn_asks_for_the_dying_characters_death_save_by_name(
    client: httpx.Client,
) -> None:
    from .server import ADMIN, bearer

    made = client.post(
        "/fights", json={"fight": "dice-next", "ruleset": "dnd5e", "seed": 3},
        headers=bearer(ADMIN),
    )  # fmt: skip
    gm = bearer(made.json()["gm_token"])
    events = [
        {"type": "character_joined", "character": "mira", "name": "Mira", "stats": {"hp": 5},
         "initiative": 12},
        {"type": "character_joined", "character": "gob", "kind": "monster", "stats": {"hp": 5},
         "initiative": 15},
        {"type": "hit", "target": "mira", "damage": 5, "attacker": "gob"},
    ]  # fmt: skip
    assert client.post("/fights/dice-next/events", json=events, headers=gm).status_code == 200
    assert client.post("/fights/dice-next/next", headers=gm).status_code == 200  # the goblin's
    url = "/fights/dice-next/next/dice-asked"
    asked = client.post(url, json={}, headers=gm)
    assert asked.status_code == 200, asked.text
    assert asked.json()["die"] == {
        "purpose": "death_save", "sides": 20, "character": "mira", "key": "death_save@mira",
        "label": "Death save", "whose": "mira",
    }  # fmt: skip
    rolls = {"death_save@mira": [12]}
    assert client.post(url, json={"rolls": rolls}, headers=gm).json()["die"] is None
    done = client.post("/fights/dice-next/next", json={"rolls": rolls}, headers=gm).json()
    assert [die["source"] for change in done["changes"] for die in change["dice"]] == ["given"]
