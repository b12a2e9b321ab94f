"""`POST /fights/{fight}/import/{format}`: another program's records, converted and appended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from typer.testing import CliRunner

from woundlog.replays.cli import app

from .server import ADMIN, Server, bearer


def fight_of(client: httpx.Client, fight: str, ruleset: str) -> dict[str, str]:
    created = client.post(
        "/fights", json={"fight": fight, "ruleset": ruleset, "seed": 3}, headers=bearer(ADMIN)
    )
    assert created.status_code == 201, created.text
    return bearer(created.json()["gm_token"])


def damage(envelope: str, hp: int, change: int) -> dict[str, Any]:
    return {
        "hook": "dnd5e.damageActor",
        "id": envelope,
        "token": {"uuid": "brakka", "name": "Brakka"},
        "actor": {
            "id": "brakka",
            "name": "Brakka",
            "type": "character",
            "hp": {"value": hp, "max": 22, "temp": 0},
        },
        "changes": {"hp": change, "temp": 0, "total": change},
    }


def snapshot(round_: int, hp: int) -> dict[str, Any]:
    return {
        "RoundCounter": round_,
        "ActiveCombatantId": "gob1",
        "Combatants": [
            {
                "Id": "gob1",
                "StatBlock": {"Name": "Goblin", "Player": "", "HP": {"Value": 3, "Notes": ""}},
                "IndexLabel": 1,
                "CurrentHP": hp,
                "TemporaryHP": 0,
                "RoundCounter": round_,  # alone, it has had a turn each round
            }
        ],
    }


def test_foundry_hooks_are_converted_appended_and_a_resend_is_harmless(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = fight_of(client, "foundry-1", "d26")
        first = client.post(
            "/fights/foundry-1/import/foundry", json=damage("e1", 15, -7), headers=gm
        )
        assert first.status_code == 200, first.text
        body = first.json()
        assert [c["type"] for c in body["changes"]] == ["character_joined", "hit"]
        again = client.post(
            "/fights/foundry-1/import/foundry", json=[damage("e1", 15, -7)], headers=gm
        )
        assert again.status_code == 200
        assert again.json()["version"] == body["version"] and again.json()["changes"] == []
        state = client.get("/fights/foundry-1/state", headers=gm).json()
        assert state["characters"]["brakka"]["hp"] == 15


def test_a_malformed_record_is_422_and_an_unknown_format_404(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = fight_of(client, "foundry-2", "d26")
        bad = client.post(
            "/fights/foundry-2/import/foundry", json=[damage("e1", 15, -7), {"hook": 5}], headers=gm
        )
        assert bad.status_code == 422
        assert bad.json()["errors"][0]["index"] == 1
        unknown = client.post("/fights/foundry-2/import/roll20", json={}, headers=gm)
        assert unknown.status_code == 404 and "foundry" in unknown.json()["message"]


def test_the_importers_cursor_is_kept_between_requests(server: Server) -> None:
    """Improved Initiative snapshots are compared pairwise: the second request's snapshot is
    compared with the first request's, which the server kept."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = fight_of(client, "ii-1", "d26")
        url = "/fights/ii-1/import/improved-initiative"
        assert client.post(url, json=snapshot(1, 3), headers=gm).status_code == 200
        hurt = client.post(url, json=snapshot(1, 1), headers=gm)
        assert hurt.status_code == 200, hurt.text
        assert [c["type"] for c in hurt.json()["changes"]] == ["hit"]
        state = client.get("/fights/ii-1/state", headers=gm).json()
        assert state["characters"]["gob1"]["hp"] == 1


def cli_import(db: Path, fight: str, records: list[Any], file: Path) -> str:
    """`woundlog --db DB import improved-initiative FILE --into FIGHT`, on the server's store."""
    file.write_text(json.dumps(records))
    args = ["--db", str(db), "import", "improved-initiative", str(file), "--into", fight]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    return done.stdout


def test_a_cli_import_and_a_service_import_of_one_fight_share_the_cursor(
    server: Server, tmp_path: Path
) -> None:
    """The CLI keeps the importer's cursor where the service keeps it: an autosave posted to the
    service after a CLI import is compared with the CLI's last one, and the other way round."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        gm = fight_of(client, "ii-shared", "dnd5e")
        cli_import(Path(server.db), "ii-shared", [snapshot(1, 3)], tmp_path / "first.json")
        url = "/fights/ii-shared/import/improved-initiative"
        hurt = client.post(url, json=snapshot(1, 1), headers=gm)
        assert hurt.status_code == 200, hurt.text
        assert [c["type"] for c in hurt.json()["changes"]] == ["hit"]  # 3 -> 1, from the CLI's
        said = cli_import(Path(server.db), "ii-shared", [snapshot(2, 0)], tmp_path / "third.json")
        # the blow of 1 measured from the service's state, and the turn into round 2
        assert "imported 4 events" in said
        state = client.get("/fights/ii-shared/state", headers=gm).json()
        assert state["characters"]["gob1"]["hp"] == 0
