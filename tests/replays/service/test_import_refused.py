"""Issue 13 on the service: an imported record the rules refuse no longer sticks the import
cursor behind it. The records are sent one request each, as the Foundry module sends them; the
record the rules refuse is answered 200, named in the answer's warnings, and every later record
arrives."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from woundlog.events.importers import IMPORTERS

from .server import ADMIN, Server, bearer

FOUNDRY_OPTIONS = IMPORTERS["foundry"].fight_options("dnd5e")  # death saves from the table

DATA = Path(__file__).parents[2] / "data" / "importers"
RECORDS = [
    json.loads(line) for line in (DATA / "foundry_dnd5e_refused.jsonl").read_text().splitlines()
]
BRAKKA = "Actor.actBrakka0000001"  # a linked actor: its world uuid
GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def foundry_fight(client: httpx.Client, fight: str) -> dict[str, str]:
    created = client.post(
        "/fights",
        json={
            "fight": fight,
            "ruleset": "dnd5e",
            "seed": 3,
            "options": FOUNDRY_OPTIONS,
        },
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


def test_improved_initiative_restoring_a_dead_goblins_hp_does_not_stop_the_import(
    server: Server,
) -> None:
    """Improved Initiative 3.x autosaves (tests/data/importers/improved_initiative_autosaves.json):
    the goblin killed in round 1 (dead at 0 HP in dnd5e) is set back to 3 HP by the GM; each
    later snapshot still shows 3 HP. The heal is named and left out; Grim's wound and the turns
    of round 2 still arrive."""
    saves = json.loads((DATA / "improved_initiative_autosaves.json").read_text())[:30]
    killed = next(
        i for i, s in enumerate(saves)
        if any(c["Id"] == "k2gob" and c["CurrentHP"] == 0 for c in s["Combatants"])
    )  # fmt: skip
    for save in saves[killed + 1 :]:
        [goblin] = [c for c in save["Combatants"] if c["Id"] == "k2gob"]
        goblin["CurrentHP"] = 3
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = foundry_fight(client, "refused-ii")
        url = "/fights/refused-ii/import/improved-initiative"
        answers = [client.post(url, json=save, headers=gm) for save in saves]
        assert [a.status_code for a in answers] == [200] * len(saves), answers[killed + 1].text
        [restored] = answers[killed + 1].json()["warnings"]
        assert restored.startswith("record 0 (event `ii:") and "k2gob:heal" in restored
        assert "left out: Goblin 1 is dead" in restored
        # the cursor moved past it: the next save, still at 3 HP, is no second heal to refuse
        assert answers[killed + 2].json()["warnings"] == []
        state = client.get("/fights/refused-ii/state", headers=gm).json()
        assert state["characters"]["k2gob"]["state"] == "dead"
        assert state["characters"]["grim-pc"]["hp"] == 10  # the wound of round 1 arrived
        events = client.get("/fights/refused-ii/events", headers=gm).json()["events"]
        assert any(e["event"].get("round") == 2 for e in events)  # and round 2's turns
