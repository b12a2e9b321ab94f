"""Issue 24: requests an attacker (or a careless client) sends, refused cleanly: an undo that
would be reported done without doing anything, keys given twice, strings where numbers go,
control characters in ids and names, bounds past JavaScript's integers."""

from __future__ import annotations

import httpx
import pytest

from .conftest import new_fight

HIT = {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [1]}}


def test_an_undo_under_the_id_of_another_event_is_409_and_retracts_nothing(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "undo-clash", wounds=3)
    for name in ("h1", "h2"):
        sent = client.post("/fights/undo-clash/events", json={**HIT, "id": name}, headers=fight.gm)
        assert sent.status_code == 200, sent.text
    clash = client.post(
        "/fights/undo-clash/undo", json={"event": "h1", "id": "h2"}, headers=fight.gm
    )
    assert clash.status_code == 409, clash.text
    assert "already used by another event" in clash.json()["message"]
    newest = client.post("/fights/undo-clash/undo", json={"id": "h1"}, headers=fight.gm)
    assert newest.status_code == 409, newest.text  # the id of a hit, the newest-live default
    state = client.get("/fights/undo-clash/state", headers=fight.viewer).json()
    assert state["seq"] == 5  # nothing retracted


def test_an_undo_id_reused_for_another_target_is_409_and_its_retry_undoes_once(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "undo-reused", wounds=3)
    for name in ("h1", "h2"):
        client.post("/fights/undo-reused/events", json={**HIT, "id": name}, headers=fight.gm)
    first = client.post(
        "/fights/undo-reused/undo", json={"event": "h1", "id": "u1"}, headers=fight.gm
    )
    assert first.status_code == 200 and first.json()["version"] == 6
    again = client.post(
        "/fights/undo-reused/undo", json={"event": "h1", "id": "u1"}, headers=fight.gm
    )
    assert again.status_code == 200 and again.json()["skipped"] == ["u1"]
    other = client.post(
        "/fights/undo-reused/undo", json={"event": "h2", "id": "u1"}, headers=fight.gm
    )
    assert other.status_code == 409, other.text
    newest = client.post("/fights/undo-reused/undo", json={"id": "u2"}, headers=fight.gm)
    retried = client.post("/fights/undo-reused/undo", json={"id": "u2"}, headers=fight.gm)
    assert newest.status_code == retried.status_code == 200
    assert retried.json()["skipped"] == ["u2"] and retried.json()["version"] == 7


@pytest.mark.parametrize(
    ("method", "path", "raw"),
    [
        ("POST", "undo", b'{"event": "h1", "event": "h2"}'),
        ("GET", "odds", b'{"hit": ["grim:1"], "hit": ["grim:2"]}'),
    ],
)
def test_a_key_given_twice_in_an_undo_or_odds_body_is_refused(
    client: httpx.Client, method: str, path: str, raw: bytes
) -> None:
    fight = new_fight(client, f"twice-{path}")
    client.post(f"/fights/twice-{path}/events", json={**HIT, "id": "h1"}, headers=fight.gm)
    client.post(f"/fights/twice-{path}/events", json={**HIT, "id": "h2"}, headers=fight.gm)
    headers = {**fight.gm, "Content-Type": "application/json"}
    answer = client.request(method, f"/fights/twice-{path}/{path}", content=raw, headers=headers)
    assert answer.status_code == 422, answer.text
    assert "given twice" in answer.json()["message"]
    state = client.get(f"/fights/twice-{path}/state", headers=fight.viewer).json()
    assert state["seq"] == 5  # the undo did not happen


def test_an_undo_with_no_body_still_undoes_the_newest_live_event(client: httpx.Client) -> None:
    fight = new_fight(client, "undo-bare")
    assert client.post("/fights/undo-bare/undo", headers=fight.gm).status_code == 200
    state = client.get("/fights/undo-bare/state", headers=fight.viewer).json()
    assert list(state["characters"]) == ["grim"]


def test_a_die_scoped_to_a_character_not_in_the_fight_is_refused_with_the_nearest(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "stranger-die")
    blow = {**HIT, "rolls": {"injury@gim": [6]}}
    refused = client.post("/fights/stranger-die/events", json=blow, headers=fight.gm)
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["errors"]
    assert error["field"] == "$.rolls.injury@gim"
    assert "did you mean `grim`?" in error["message"]
    tick = {"type": "turn_started", "side": "reavers", "rolls": {"recovery@snikit": [1]}}
    refused = client.post("/fights/stranger-die/events", json=tick, headers=fight.gm)
    assert refused.status_code == 422 and "did you mean `snikkit`?" in refused.text
    own = {**HIT, "rolls": {"injury@grim": [1]}}
    assert client.post("/fights/stranger-die/events", json=own, headers=fight.gm).status_code == 200
