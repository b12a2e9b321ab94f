from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .server import ADMIN, Server, bearer


class Tokens:
    def __init__(self, fight: str, created: dict[str, Any]) -> None:
        self.fight = fight
        self.gm = bearer(created["gm_token"])
        self.viewer = bearer(created["viewer_token"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("service") / "fights.db") as running:
        yield running


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        yield http


def new_fight(client: httpx.Client, fight: str, *, wounds: int = 3) -> Tokens:
    """A Mordheim fight with Grim (reavers) and Snikkit (eshin) joined."""
    created = client.post(
        "/fights", json={"fight": fight, "ruleset": "mordheim", "seed": 7}, headers=bearer(ADMIN)
    )
    assert created.status_code == 201, created.text
    tokens = Tokens(fight, created.json())
    joined = client.post(
        f"/fights/{fight}/events",
        json=[
            {
                "type": "character_joined",
                "id": "grim",
                "character": "grim",
                "side": "reavers",
                "stats": {"wounds": wounds},
            },
            {
                "type": "character_joined",
                "id": "snikkit",
                "character": "snikkit",
                "side": "eshin",
                "stats": {"wounds": 1},
            },
        ],
        headers=tokens.gm,
    )
    assert joined.status_code == 200, joined.text
    return tokens
