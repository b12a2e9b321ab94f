"""`woundlog import FORMAT FILE --into FIGHT --campaign NAME` in-process, as typed, over a real
SQLite file: the fight lands on the roster once, however often the file is imported again."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Run
from .test_campaign_import import BRAKKA, damage, turn


def ok(run: Run, *args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def test_an_import_naming_a_campaign_records_the_fight_once(run: Run, tmp_path: Path) -> None:
    records = tmp_path / "foundry.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in (turn("e1"), damage("e2", 7, 5))))
    ok(run, "campaign", "new", "world", "--ruleset", "dnd5e")
    ok(run, "campaign", "join", "world", BRAKKA, "--name", "Brakka", "--stat", "hp=12")
    into = ("import", "foundry", str(records), "--into", "ambush", "--campaign", "world")
    first = ok(run, *into)
    assert "recorded fight `ambush` in campaign `world`" in first
    again = ok(run, *into)
    assert "recorded" not in again
    shown = json.loads(ok(run, "campaign", "show", "world", "--json"))
    assert shown["fights"] == ["ambush"]
    assert [m["member"] for m in shown["members"]] == [BRAKKA]  # the goblin stays off
    assert shown["members"][0]["current_hp"] == 7  # 12 - 5


def test_a_campaign_not_there_is_refused_and_no_fight_is_made(run: Run, tmp_path: Path) -> None:
    records = tmp_path / "foundry.jsonl"
    records.write_text(json.dumps(turn("e1")) + "\n")
    refused = run("import", "foundry", str(records), "--into", "ambush", "--campaign", "nowhere")
    assert refused.exit_code != 0 and "nowhere" in refused.output
    assert run("state", "ambush").exit_code != 0  # no fight `ambush`
