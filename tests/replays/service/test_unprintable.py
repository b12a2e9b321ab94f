"""Issue 24: control and invisible characters in ids and names are refused on the wire (422,
naming the field) by every route and every store, never written, never a 500: a NUL was a
`psycopg.DataError` on PostgreSQL, and the Foundry module retries a 5xx forever."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import new_fight
from .server import ADMIN, Server, bearer
from .test_import import damage

HIT = {"type": "hit", "target": "grim", "damage": 1, "rolls": {"injury": [1]}}
HOSTILE = [
    "\x00",  # NUL
    "\x1b]0;pwned\x07\x1b[2J",  # ESC, BEL
    "\x7f",  # DEL
    "\x9b2J",  # C1 (CSI)
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u200b",  # zero-width space
    "\ufeff",  # byte order mark
]


def requests(fight: str, bad: str) -> list[tuple[str, str, dict[str, Any], str | None]]:
    """(method, path, JSON body, the field refused) for every route that takes an id or name."""
    joined = {"type": "character_joined", "character": "orc", "name": "Orc"}
    return [
        ("POST", "/fights", {"fight": f"{fight}-new", "ruleset": "mordheim", "name": bad},
         "$.name"),
        ("POST", f"/fights/{fight}/events", {**HIT, "id": f"h{bad}"}, "$.id"),
        ("POST", f"/fights/{fight}/events", {**joined, "character": f"o{bad}"}, "$.character"),
        ("POST", f"/fights/{fight}/events", {**joined, "name": f"O{bad}"}, "$.name"),
        ("POST", f"/fights/{fight}/events", {**joined, "side": bad}, "$.side"),
        ("POST", f"/fights/{fight}/events", {**HIT, "attacker": bad}, "$.attacker"),
        ("POST", f"/fights/{fight}/events", {**HIT, "rolls": {f"injury@g{bad}": [1]}},
         "$.rolls"),
        ("POST", f"/fights/{fight}/undo", {"event": f"h{bad}"}, "$.event"),
        ("POST", f"/fights/{fight}/undo", {"event": "grim", "id": f"u{bad}"}, "$.id"),
        ("POST", f"/fights/{fight}/import/foundry",
         {**damage(f"e{bad}", 15, -7), "token": {"uuid": f"t{bad}", "name": "T"}}, None),
        ("POST", f"/fights/{fight}/branch", {"as": f"{fight}-twig", "then": [{**HIT, "id": bad}]},
         "$.id"),
    ]  # fmt: skip


def refuses_everywhere(client: httpx.Client, fight: str, bad: str) -> None:
    tokens = new_fight(client, fight)
    for method, path, body, field in requests(fight, bad):
        headers = bearer(ADMIN) if path == "/fights" else tokens.gm
        answer = client.request(method, path, json=body, headers=headers)
        assert answer.status_code == 422, (path, body, answer.text)
        said = answer.json()
        assert "control and invisible characters" in json.dumps(said), (path, said)
        if field is not None:
            assert [e["field"] for e in said["errors"]] == [field], (path, said)
    state = client.get(f"/fights/{fight}/state", headers=tokens.viewer).json()
    assert state["seq"] == 3 and list(state["characters"]) == ["grim", "snikkit"]
    listed = client.get("/fights", headers=bearer(ADMIN)).json()["fights"]
    assert not [each for each in listed if each["fight"].startswith(f"{fight}-")]


@pytest.mark.parametrize("bad", HOSTILE)
def test_every_route_refuses_control_characters_in_ids_and_names(
    client: httpx.Client, bad: str
) -> None:
    refuses_everywhere(client, f"shown-{HOSTILE.index(bad)}", bad)


def test_a_nul_in_any_id_is_422_on_postgresql_not_a_500(postgres_url: str, tmp_path: Path) -> None:
    with (
        Server(postgres_url, logs=tmp_path) as running,
        httpx.Client(base_url=running.url, timeout=30) as client,
    ):
        refuses_everywhere(client, "nul-pg", "\x00")
