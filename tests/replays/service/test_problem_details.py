"""Issue 13: every error is an RFC 9457 problem (`application/problem+json`: `type`, `title`,
`status`, `detail`) that still carries the fields woundlog's clients read (`error`, `message`,
`current_version`, `errors`: the Foundry module shows `detail`, the pages `message`)."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import new_fight
from .server import ADMIN, bearer

PROBLEM = "application/problem+json"


def problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == "about:blank"
    assert body["title"]  # the status's own name
    assert body["detail"] == body["message"]
    return body


def test_a_conflict_is_a_problem_with_the_current_version(client: httpx.Client) -> None:
    tokens = new_fight(client, "problem-409")
    stale = client.post(
        "/fights/problem-409/events",
        params={"expected_version": 1},
        json={"type": "hit", "target": "grim", "damage": 1},
        headers=tokens.gm,
    )
    body = problem(stale, 409)
    assert (body["title"], body["error"], body["current_version"]) == (
        "Conflict", "ConflictError", 3,
    )  # fmt: skip


def test_refused_events_are_a_problem_naming_each_event(client: httpx.Client) -> None:
    tokens = new_fight(client, "problem-422")
    refused = client.post(
        "/fights/problem-422/events",
        json=[
            {"type": "hit", "target": "nobody", "damage": 1},
            {"type": "hit", "target": "grim", "damage": -1},
        ],
        headers=tokens.gm,
    )
    body = problem(refused, 422)
    assert body["error"] == "BatchRefused"
    assert [item["index"] for item in body["errors"]] == [0, 1]


def test_guard_refusals_are_problems(client: httpx.Client) -> None:
    tokens = new_fight(client, "problem-guard")
    assert problem(client.get("/fights/problem-guard/state"), 401)["title"] == "Unauthorized"
    other = client.post(
        "/fights/problem-guard/events",
        json={"type": "hit", "target": "grim", "damage": 0},
        headers=tokens.viewer,
    )
    assert problem(other, 403)["detail"] == "a viewer token cannot do this"
    assert problem(client.get("/fights/nobody/state", headers=bearer(ADMIN)), 404)


def test_an_unreadable_body_is_a_problem(client: httpx.Client) -> None:
    broken = client.post(
        "/fights",
        content=b"{not json",
        headers={**bearer(ADMIN), "Content-Type": "application/json"},
    )
    assert problem(broken, 400)["error"] == "ClientException"
