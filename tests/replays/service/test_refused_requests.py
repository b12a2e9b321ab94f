"""Issue 24: requests an attacker (or a careless client) sends, refused cleanly: an undo that
would be reported done without doing anything, keys given twice, strings where numbers go,
control characters in ids and names, bounds past JavaScript's integers."""

from __future__ import annotations

import httpx
import pytest

from .conftest import new_fight
from .server import ADMIN, bearer

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


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/fights", {"fight": "strict-1", "ruleset": "mordheim", "seed": "7"}, "$.seed"),
        ("/fights/strict-0/branch", {"as": "strict-2", "at": "3"}, "$.at"),
    ],
)
def test_a_number_sent_as_a_string_is_refused(
    client: httpx.Client, path: str, body: dict[str, object], field: str
) -> None:
    if "strict-0" in path:
        new_fight(client, "strict-0")
    answer = client.post(path, json=body, headers=bearer(ADMIN))
    assert answer.status_code == 422, answer.text
    assert "Expected `int" in answer.json()["message"] and field in answer.json()["message"]
    listed = client.get("/fights", headers=bearer(ADMIN)).json()["fights"]
    assert {"strict-1", "strict-2"}.isdisjoint(each["fight"] for each in listed)


@pytest.mark.parametrize(
    "query",
    [
        "events?from=1000000000000000000000000000000",
        "state?at=1000000000000000000000000000000",
        "stream?from=9007199254740992",
        "events?expected_version=1",  # not a parameter of a read: ignored, answered 200
    ],
)
def test_a_number_past_javascripts_integers_in_the_query_is_422(
    client: httpx.Client, query: str
) -> None:
    fight = new_fight(client, f"huge-{len(query)}")
    answer = client.get(f"/fights/{fight.fight}/{query}", headers=fight.viewer)
    if "expected_version" in query:
        assert answer.status_code == 200, answer.text
        return
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"


def test_a_byte_order_mark_over_http_is_named(client: httpx.Client) -> None:
    fight = new_fight(client, "bom-http")
    raw = b'\xef\xbb\xbf{"fight": "bom-new", "ruleset": "mordheim"}'
    for path, headers in (("/fights", bearer(ADMIN)), ("/fights/bom-http/events", fight.gm)):
        answer = client.post(
            path, content=raw, headers={**headers, "Content-Type": "application/json"}
        )
        assert answer.status_code == 422, answer.text
        assert "byte order mark" in answer.json()["message"], answer.text


def test_a_routing_miss_is_the_one_problem_body_saying_what_was_missed(
    client: httpx.Client,
) -> None:
    missed = client.get("/fightz/f/state")
    assert missed.status_code == 404
    assert missed.headers["content-type"] == "application/problem+json"
    body = missed.json()
    assert body["title"] == "Not Found" and body["status"] == 404
    assert body["message"] == body["detail"]
    assert "no such path: GET /fightz/f/state" in body["detail"] and "/schema" in body["detail"]
    wrong = client.put("/health")
    assert wrong.status_code == 405
    assert "PUT /health: this path takes GET" in wrong.json()["detail"], wrong.text
