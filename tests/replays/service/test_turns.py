"""Issue 40: the turn order and the next turn over HTTP, each one call of the application,
for the gm token alone, safe to retry."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import Tokens
from .server import ADMIN, bearer


def dnd_fight(client: httpx.Client, fight: str) -> Tokens:
    """A dnd5e fight: Mirabel (initiative 12), a goblin (15), Brakk (12, joined after her)."""
    created = client.post(
        "/fights", json={"fight": fight, "ruleset": "dnd5e", "seed": 3}, headers=bearer(ADMIN)
    )
    assert created.status_code == 201, created.text
    tokens = Tokens(fight, created.json())
    joins: list[dict[str, Any]] = [
        {"type": "character_joined", "character": "mirabel", "name": "Mirabel", "kind": "pc",
         "stats": {"hp": 10}, "initiative": 12},
        {"type": "character_joined", "character": "gob", "name": "Goblin", "kind": "monster",
         "stats": {"hp": 7}, "initiative": 15},
        {"type": "character_joined", "character": "brakk", "kind": "pc", "stats": {"hp": 12},
         "initiative": 12},
    ]  # fmt: skip
    joined = client.post(f"/fights/{fight}/events", json=joins, headers=tokens.gm)
    assert joined.status_code == 200, joined.text
    return tokens


def turn(client: httpx.Client, tokens: Tokens) -> dict[str, Any]:
    state = client.get(f"/fights/{tokens.fight}/state", headers=tokens.viewer)
    assert state.status_code == 200, state.text
    found: dict[str, Any] = state.json()["turn"]
    return found


def test_the_state_shows_the_order_by_initiative_ties_by_join_order_and_no_turn_yet(
    client: httpx.Client,
) -> None:
    tokens = dnd_fight(client, "turns-state")
    shown = turn(client, tokens)
    assert shown["order"] == ["gob", "mirabel", "brakk"]
    assert shown["current"] is None and shown["round"] == 0
    assert shown["initiative"] == {"mirabel": 12, "gob": 15, "brakk": 12}


def test_next_ends_the_turn_and_starts_the_next_wrapping_rounds(client: httpx.Client) -> None:
    tokens = dnd_fight(client, "turns-next")
    seen = []
    for _ in range(4):
        answer = client.post("/fights/turns-next/next", headers=tokens.gm)
        assert answer.status_code == 200, answer.text
        shown = turn(client, tokens)
        seen.append((shown["round"], shown["current"]))
    assert seen == [(1, "gob"), (1, "mirabel"), (1, "brakk"), (2, "gob")]
    last = client.post("/fights/turns-next/next", headers=tokens.gm).json()
    assert [c["type"] for c in last["changes"]] == ["turn_ended", "turn_started"]
    events = client.get("/fights/turns-next/events", params={"from": 12}, headers=tokens.gm)
    ended, started = (e["event"] for e in events.json()["events"])
    assert ended == {"type": "turn_ended", "round": 2, "character": "gob"}
    assert started == {"type": "turn_started", "round": 2, "character": "mirabel"}


def test_a_retried_next_moves_the_turn_on_once(client: httpx.Client) -> None:
    tokens = dnd_fight(client, "turns-retry")
    key = {**tokens.gm, "Idempotency-Key": "5f0c1d9e-next"}
    for _ in range(2):
        assert client.post("/fights/turns-retry/next", headers=key).status_code == 200
    assert turn(client, tokens)["current"] == "gob"
    for _ in range(2):
        again = client.post("/fights/turns-retry/next", json={"id": "n2"}, headers=tokens.gm)
        assert again.status_code == 200, again.text
    assert turn(client, tokens)["current"] == "mirabel"
    assert client.get("/fights/turns-retry/events", headers=tokens.gm).json()["version"] == 7


def test_the_turn_order_by_ids_or_by_initiative_values_keeps_whose_turn_it_is(
    client: httpx.Client,
) -> None:
    tokens = dnd_fight(client, "turns-order")
    client.post("/fights/turns-order/next", headers=tokens.gm)
    body = {"order": ["Brakk", "gob"], "id": "o1"}
    for _ in range(2):  # a retry with its id is the same event, skipped
        answer = client.post("/fights/turns-order/turn-order", json=body, headers=tokens.gm)
        assert answer.status_code == 200, answer.text
    shown = turn(client, tokens)
    assert shown["order"] == ["brakk", "gob", "mirabel"] and shown["current"] == "gob"
    by_value = {"initiative": {"mirabel": 3, "brakk": 3, "gob": 9}}
    answer = client.post("/fights/turns-order/turn-order", json=by_value, headers=tokens.gm)
    assert answer.status_code == 200, answer.text
    assert turn(client, tokens)["order"] == ["gob", "mirabel", "brakk"]
    assert client.get("/fights/turns-order/events", headers=tokens.gm).json()["version"] == 7


def test_a_turn_order_naming_nobody_or_someone_twice_is_refused_naming_the_field(
    client: httpx.Client,
) -> None:
    tokens = dnd_fight(client, "turns-refused")
    twice = {"order": ["gob", "brakk", "gob"]}
    answer = client.post("/fights/turns-refused/turn-order", json=twice, headers=tokens.gm)
    assert answer.status_code == 422, answer.text
    assert answer.json()["errors"][0]["field"] == "$.order[2]"
    nobody = client.post(
        "/fights/turns-refused/turn-order", json={"order": ["zed"]}, headers=tokens.gm
    )
    assert nobody.status_code == 422, nobody.text
    assert "zed" in nobody.text
    both = {"order": ["gob"], "initiative": {"gob": 1}}
    assert (
        client.post("/fights/turns-refused/turn-order", json=both, headers=tokens.gm).status_code
        == 422
    )


def test_a_viewer_may_not_move_the_turn_nor_order_it(client: httpx.Client) -> None:
    tokens = dnd_fight(client, "turns-viewer")
    assert client.post("/fights/turns-viewer/next", headers=tokens.viewer).status_code == 403
    order = {"order": ["gob"]}
    refused = client.post("/fights/turns-viewer/turn-order", json=order, headers=tokens.viewer)
    assert refused.status_code == 403
    assert turn(client, tokens)["current"] is None


def test_next_takes_the_tables_dice_a_dying_pcs_death_save_at_her_turn_start(
    client: httpx.Client,
) -> None:
    tokens = dnd_fight(client, "turns-dice")
    client.post("/fights/turns-dice/next", headers=tokens.gm)  # the goblin's turn
    hit = {"type": "hit", "target": "mirabel", "damage": 10, "attacker": "gob"}
    assert client.post("/fights/turns-dice/events", json=hit, headers=tokens.gm).status_code == 200
    dice = {"rolls": {"death_save@mirabel": [1]}}  # a 1: two failures
    answer = client.post("/fights/turns-dice/next", json=dice, headers=tokens.gm)
    assert answer.status_code == 200, answer.text
    started = answer.json()["changes"][-1]
    assert started["dice"][0]["value"] == 1 and started["dice"][0]["source"] == "given"
    state = client.get("/fights/turns-dice/state", headers=tokens.gm).json()
    assert state["characters"]["mirabel"]["failures"] == 2
