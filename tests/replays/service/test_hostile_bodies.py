"""Bodies no schema catches (issue 11): JSON nested a thousand levels deep is a 422 like any
structural error, never a 500; a key given twice is refused, not "last one wins"."""

from __future__ import annotations

import httpx
import pytest

from .conftest import new_fight
from .server import ADMIN, bearer

DEEP = b"[" * 1000 + b"]" * 1000
JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("fight_id", "path"),
    [
        ("hostile-1", "/fights/hostile-1/events"),
        ("hostile-3", "/fights/hostile-3/import/foundry"),
        ("hostile-4", "/fights"),
    ],
)
def test_a_body_nested_a_thousand_deep_is_refused_as_structural(
    client: httpx.Client, fight_id: str, path: str
) -> None:
    fight = new_fight(client, fight_id)
    headers = {**JSON, **(bearer(ADMIN) if path == "/fights" else fight.gm)}
    refused = client.post(path, content=DEEP, headers=headers)
    assert refused.status_code == 422, refused.text
    assert "nested too deeply" in refused.json()["message"]
    tables = b'{"fight":"deep-' + fight_id.encode() + b'","ruleset":"mordheim","tables":'
    tables += b'{"a":' * 1000 + b"1"
    tables += b"}" * 1001
    assert (
        client.post("/fights", content=tables, headers={**JSON, **bearer(ADMIN)}).status_code == 422
    )


def test_an_event_with_a_key_given_twice_is_refused_and_nothing_is_written(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "hostile-2")
    twice = b'{"type":"character_joined","character":"a","side":"x","side":"y"}'
    refused = client.post("/fights/hostile-2/events", content=twice, headers={**JSON, **fight.gm})
    assert refused.status_code == 422
    assert "`side` is given twice" in refused.json()["message"]
    state = client.get("/fights/hostile-2/state", headers=fight.viewer).json()
    assert "a" not in state["characters"]


def test_an_undo_retried_with_its_id_undoes_once(client: httpx.Client) -> None:
    fight = new_fight(client, "retry-undo")
    for damage in (1, 1):
        hit = {"type": "hit", "target": "grim", "damage": damage, "rolls": {"injury": [1]}}
        assert client.post("/fights/retry-undo/events", json=hit, headers=fight.gm).is_success
    before = client.get("/fights/retry-undo/state", headers=fight.viewer).json()["seq"]
    first = client.post("/fights/retry-undo/undo", json={"id": "u1"}, headers=fight.gm).json()
    again = client.post("/fights/retry-undo/undo", json={"id": "u1"}, headers=fight.gm).json()
    assert len(first["changes"]) == 1 and first["version"] == before + 1
    assert again == {"version": before + 1, "changes": [], "skipped": ["u1"], "warnings": []}
