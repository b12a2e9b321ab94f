"""Issue 13 on the service: an imported record the rules refuse no longer sticks the import
cursor behind it. The records are sent one request each, as the Foundry module sends them; the
record the rules refuse is answered 200, named in the answer's warnings, and every later record
arrives."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from woundlog.events.importers.foundry import fight_options

from .server import ADMIN, Server, bearer

DATA = Path(__file__).parents[2] / "data" / "importers"
RECORDS = [
    json.loads(line) for line in (DATA / "foundry_dnd5e_refused.jsonl").read_text().splitlines()
]
BRAKKA = "Scene.sceneMain0000001.Token.tkBrakka00000001"
GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def foundry_fight(client: httpx.Client, fight: str) -> dict[str, str]:
    created = client.post(
        "/fights",
        json={"fight": fight, "ruleset": "dnd5e", "seed": 3, "options": fight_options("dnd5e")},
        headers=bearer(ADMIN),
    )
    assert created.status_code == 201, created.text
    return bearer(created.json()["gm_token"])


def test_a_refused_record_is_named_and_the_records_after_it_arrive(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = foundry_fight(client, "refused-1")
        url = "/fights/refused-1/import/foundry"
        answers = [client.post(url, json=record, headers=gm) for record in RECORDS]
        assert [a.status_code for a in answers] == [200] * len(RECORDS), answers[2].text
        [heal] = answers[2].json()["warnings"]
        assert heal.startswith("record 0 (event `foundry:env00003") and "left out" in heal
        assert "Goblin (1) is dead" in heal and answers[2].json()["changes"] == []
        [blow] = answers[4].json()["warnings"]
        assert "kept without its attacker" in blow
        state = client.get("/fights/refused-1/state", headers=gm).json()
        assert state["characters"][GOBLIN_1]["state"] == "dead"
        assert state["characters"][BRAKKA]["hp"] == 3  # 12 - 4 - 5, as Foundry shows
        events = client.get("/fights/refused-1/events", headers=gm).json()["events"]
        assert events[-1]["event"]["type"] == "turn_started" and events[-1]["event"]["round"] == 2


def test_a_refused_record_sent_again_adds_nothing_and_says_why_again(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = foundry_fight(client, "refused-2")
        url = "/fights/refused-2/import/foundry"
        first = client.post(url, json=RECORDS[:3], headers=gm)
        assert first.status_code == 200, first.text
        assert any("record 2" in w and "left out" in w for w in first.json()["warnings"])
        again = client.post(url, json=RECORDS[:3], headers=gm)  # the module resends its queue
        assert again.status_code == 200, again.text
        assert again.json()["version"] == first.json()["version"]
        assert again.json()["changes"] == []
