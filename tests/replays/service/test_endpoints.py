"""Every endpoint of `woundlog serve` and every error code, over real HTTP on loopback."""

from __future__ import annotations

import stat

import httpx

from .conftest import new_fight
from .server import ADMIN, Server, bearer

HIT = {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [1]}}


def test_health_needs_no_token(client: httpx.Client) -> None:
    assert client.get("/health").json() == {"status": "ok"}


def test_openapi_schema_is_served_at_schema(client: httpx.Client) -> None:
    schema = client.get("/schema/openapi.json").json()
    assert {"/fights", "/fights/{fight}/events", "/fights/{fight}/stream"} <= set(schema["paths"])


def test_creating_a_fight_takes_the_admin_token_and_gives_gm_and_viewer_tokens(
    client: httpx.Client,
) -> None:
    body = {"fight": "create-1", "ruleset": "mordheim"}
    assert client.post("/fights", json=body).status_code == 401
    assert client.post("/fights", json=body, headers=bearer("wrong")).status_code == 401
    created = client.post("/fights", json=body, headers=bearer(ADMIN))
    assert created.status_code == 201
    answer = created.json()
    assert answer["version"] == 1 and answer["gm_token"] != answer["viewer_token"]
    again = client.post("/fights", json=body, headers=bearer(ADMIN))  # a retry: new tokens
    assert again.status_code == 200 and again.json()["gm_token"] != answer["gm_token"]
    other = client.post("/fights", json={**body, "ruleset": "d26"}, headers=bearer(ADMIN))
    assert other.status_code == 409 and other.json()["current_version"] == 1
    gm = bearer(again.json()["gm_token"])  # the retry's pair replaced the first
    as_gm = client.post("/fights", json={**body, "fight": "x"}, headers=gm)
    assert as_gm.status_code == 403


def test_creating_a_fight_with_an_unknown_ruleset_or_field_is_422(client: httpx.Client) -> None:
    unknown = client.post(
        "/fights", json={"fight": "bad-1", "ruleset": "chess"}, headers=bearer(ADMIN)
    )
    assert unknown.status_code == 422
    assert unknown.json()["errors"][0]["field"] == "$.ruleset"
    extra = client.post(
        "/fights", json={"fight": "bad-2", "ruleset": "mordheim", "x": 1}, headers=bearer(ADMIN)
    )
    assert extra.status_code == 422


def test_appending_returns_the_version_and_every_events_changes(client: httpx.Client) -> None:
    fight = new_fight(client, "append-1")
    answer = client.post("/fights/append-1/events", json={**HIT, "id": "h1"}, headers=fight.gm)
    assert answer.status_code == 200
    body = answer.json()
    assert body["version"] == 4
    assert [c["seq"] for c in body["changes"]] == [4]
    assert body["changes"][0]["characters"][0]["character"] == "grim"


def test_resending_the_same_events_is_200_with_the_same_version(client: httpx.Client) -> None:
    fight = new_fight(client, "resend-1")
    batch = [{**HIT, "id": "a"}, {**HIT, "id": "b"}]
    first = client.post("/fights/resend-1/events", json=batch, headers=fight.gm).json()
    again = client.post(
        "/fights/resend-1/events", params={"expected_version": 3}, json=batch, headers=fight.gm
    )
    assert again.status_code == 200
    assert again.json() == {
        "version": first["version"],
        "changes": [],
        "skipped": ["a", "b"],
        "warnings": [],
    }


def test_an_id_reused_with_other_content_is_409_with_the_current_version(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "conflict-1")
    client.post("/fights/conflict-1/events", json={**HIT, "id": "h"}, headers=fight.gm)
    other = client.post(
        "/fights/conflict-1/events", json={**HIT, "id": "h", "damage": 2}, headers=fight.gm
    )
    assert other.status_code == 409
    assert other.json()["current_version"] == 4
    assert other.json()["errors"][0]["event"] == "h"


def test_a_wrong_expected_version_is_409_with_the_current_version(client: httpx.Client) -> None:
    fight = new_fight(client, "expected-1")
    stale = client.post(
        "/fights/expected-1/events", params={"expected_version": 1}, json=HIT, headers=fight.gm
    )
    assert stale.status_code == 409 and stale.json()["current_version"] == 3
    fresh = client.post(
        "/fights/expected-1/events", params={"expected_version": 3}, json=HIT, headers=fight.gm
    )
    assert fresh.status_code == 200 and fresh.json()["version"] == 4


def test_refused_events_are_422_naming_each_index_id_and_field_and_nothing_is_written(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "refused-1")
    batch = [
        {**HIT, "id": "fine"},
        {**HIT, "id": "negative", "damage": -1},  # structural
        {"type": "hit", "id": "stranger", "target": "nobody", "damage": 1},  # rule
        {"type": "teleport", "id": "unknown-type"},  # structural
    ]
    refused = client.post("/fights/refused-1/events", json=batch, headers=fight.gm)
    assert refused.status_code == 422
    errors = refused.json()["errors"]
    assert [(e["index"], e["event"], e["field"]) for e in errors] == [
        (1, "negative", "$.damage"),
        (2, "stranger", "$.target"),  # the rule errors of the readable events are named too
        (3, "unknown-type", "$.type"),
    ]
    assert all(e["message"] for e in errors)
    rule = client.post("/fights/refused-1/events", json=batch[2:3], headers=fight.gm).json()
    assert rule["errors"] == [
        {"error": "RuleError", "message": rule["errors"][0]["message"], "index": 0,
         "event": "stranger", "field": "$.target"},
    ]  # fmt: skip
    assert client.get("/fights/refused-1/state", headers=fight.viewer).json()["seq"] == 3


def test_a_batch_over_the_limit_is_413_and_a_body_over_1_mib_is_413(client: httpx.Client) -> None:
    fight = new_fight(client, "limits-1")
    many = client.post("/fights/limits-1/events", json=[HIT] * 1001, headers=fight.gm)
    assert many.status_code == 413 and "at most 1000" in many.json()["message"]
    huge = {**HIT, "note": "x" * (1024 * 1024)}
    assert client.post("/fights/limits-1/events", json=huge, headers=fight.gm).status_code == 413
    assert client.get("/fights/limits-1/state", headers=fight.viewer).json()["seq"] == 3


def test_state_now_and_at_an_earlier_event(client: httpx.Client) -> None:
    fight = new_fight(client, "state-1", wounds=1)
    client.post("/fights/state-1/events", json=HIT, headers=fight.gm)
    now = client.get("/fights/state-1/state", headers=fight.viewer).json()
    assert now["seq"] == 4 and now["characters"]["grim"]["state"] == "knocked_down"
    then = client.get("/fights/state-1/state", params={"at": 2}, headers=fight.viewer).json()
    assert then["seq"] == 2 and then["characters"]["grim"]["state"] == "upright"
    beyond = client.get("/fights/state-1/state", params={"at": 9}, headers=fight.viewer)
    assert beyond.status_code == 422


def test_events_come_with_their_seq_from_a_given_seq(client: httpx.Client) -> None:
    fight = new_fight(client, "events-1")
    page = client.get("/fights/events-1/events", params={"from": 2}, headers=fight.viewer).json()
    assert page["version"] == 3 and page["next"] is None
    assert [(e["seq"], e["event"]["id"]) for e in page["events"]] == [(2, "grim"), (3, "snikkit")]
    first = client.get("/fights/events-1/events", params={"limit": 1}, headers=fight.viewer).json()
    assert first["events"][0]["event"]["type"] == "fight_started" and first["next"] == 2


def test_undo_retracts_the_newest_live_event_or_the_named_one(client: httpx.Client) -> None:
    fight = new_fight(client, "undo-1", wounds=1)
    client.post("/fights/undo-1/events", json={**HIT, "id": "blow"}, headers=fight.gm)
    newest = client.post("/fights/undo-1/undo", headers=fight.gm)
    assert newest.status_code == 200
    undone = newest.json()["changes"][0]
    assert undone["type"] == "retract"
    assert undone["consequences"][0]["after"] == "upright"
    named = client.post(
        "/fights/undo-1/undo", json={"event": "snikkit", "reason": "never came"}, headers=fight.gm
    )
    assert named.status_code == 200
    state = client.get("/fights/undo-1/state", headers=fight.viewer).json()
    assert list(state["characters"]) == ["grim"]
    unknown = client.post("/fights/undo-1/undo", json={"event": "nope"}, headers=fight.gm)
    assert unknown.status_code == 422


def test_a_viewer_token_reads_but_cannot_write(client: httpx.Client) -> None:
    fight = new_fight(client, "viewer-1")
    assert client.get("/fights/viewer-1/state", headers=fight.viewer).status_code == 200
    for path in ("events", "undo", "import/foundry"):
        answer = client.post(f"/fights/viewer-1/{path}", json=HIT, headers=fight.viewer)
        assert answer.status_code == 403, path


ROUTES = [
    ("POST", "events"),
    ("GET", "state"),
    ("GET", "events"),
    ("POST", "undo"),
    ("GET", "stream"),
    ("POST", "import/foundry"),
]


def status(client: httpx.Client, method: str, url: str, headers: dict[str, str]) -> int:
    body = HIT if method == "POST" else None
    return client.request(method, url, json=body, headers=headers).status_code


def test_tokens_are_checked_401_wrong_403_other_fight_404_unknown_fight(
    client: httpx.Client,
) -> None:
    mine = new_fight(client, "mine-1")
    new_fight(client, "theirs-1")
    for method, path in ROUTES:
        assert status(client, method, f"/fights/mine-1/{path}", {}) == 401, path
        assert status(client, method, f"/fights/mine-1/{path}", bearer("not-a-token")) == 401
        assert status(client, method, f"/fights/mine-1/{path}", {"Authorization": "Basic a"}) == 401
        assert status(client, method, f"/fights/theirs-1/{path}", mine.gm) == 403, path
        assert status(client, method, f"/fights/theirs-1/{path}", mine.viewer) == 403, path
        assert status(client, method, f"/fights/nobody-1/{path}", mine.gm) == 404, path


def test_an_unknown_import_format_is_404(client: httpx.Client) -> None:
    fight = new_fight(client, "import-unknown-1")
    answer = client.post("/fights/import-unknown-1/import/chess-clock", json={}, headers=fight.gm)
    assert answer.status_code == 404


def test_tokens_survive_a_restart(tmp_path_factory: object, server: Server) -> None:
    db = server.db.parent / "restart.db"
    with Server(db) as first, httpx.Client(base_url=first.url, timeout=30) as http:
        fight = new_fight(http, "kept-1")
    with Server(db) as second, httpx.Client(base_url=second.url, timeout=30) as http:
        assert http.get("/fights/kept-1/state", headers=fight.viewer).status_code == 200
        assert http.post("/fights/kept-1/events", json=HIT, headers=fight.gm).status_code == 200


def test_without_an_admin_token_in_the_environment_one_is_generated_into_a_private_file(
    server: Server,
) -> None:
    db = server.db.parent / "generated.db"
    generated = Server(db, admin=None)
    with generated:
        token_file = db.with_name("generated.db.admin-token")
        token = token_file.read_text().strip()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        printed = generated.log.read_text()
        assert token not in printed and str(token_file) in printed
        body = {"fight": "g-1", "ruleset": "mordheim"}
        answer = httpx.post(f"{generated.url}/fights", json=body, headers=bearer(token))
        assert answer.status_code == 201


def test_origins_in_woundlog_cors_origins_may_call_from_a_browser(server: Server) -> None:
    foundry = "http://localhost:30000"
    env = {"WOUNDLOG_CORS_ORIGINS": foundry}
    with Server(server.db.parent / "cors.db", env=env) as running:
        preflight = httpx.options(
            f"{running.url}/fights/f/events",
            headers={
                "Origin": foundry,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert preflight.headers["access-control-allow-origin"] == foundry
