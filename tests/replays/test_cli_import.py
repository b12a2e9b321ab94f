"""`woundlog import FILE --from FORMAT`: another program's records into a fight, end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from woundlog.replays.cli import app

DATA = Path(__file__).parent.parent / "data" / "importers"
FOUNDRY = DATA / "foundry_d26.jsonl"
II = DATA / "improved_initiative_mordheim.json"
AVRAE = DATA / "avrae_d26.jsonl"


@pytest.fixture(autouse=True)
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    return path


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def characters(fight: str) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(ok(run("state", fight, "--json")).stdout)
    return state["characters"]


def brief(fight: str, *counters: str) -> dict[str, tuple[Any, ...]]:
    return {cid: (c["state"], *(c[k] for k in counters)) for cid, c in characters(fight).items()}


def test_foundry_hooks_into_a_new_d26_fight() -> None:
    result = ok(run("import", FOUNDRY, "--from", "foundry", "--as", "ambush", "--ruleset", "d26"))
    assert "imported 15 events into fight `ambush`" in result.stdout
    assert brief("ambush", "hp", "fatigued", "injuries") == {
        "brakka0000000001": ("upright", 0, True, ["severe internal"]),  # location die given: 3
        "goblin0000000001": ("upright", 5, False, []),
        "vess000000000001": ("upright", 6, False, []),
    }


def test_improved_initiative_snapshots_into_a_new_mordheim_fight() -> None:
    ok(
        run(
            "import",
            II,
            "--from",
            "improved-initiative",
            "--as",
            "well",
            "--ruleset",
            "mordheim",
            "--seed",
            "7",
        )
    )
    # the injury dice are drawn from seed 7: Clanrat 1 rolls 5, Grim 6
    assert brief("well", "wounds", "side") == {
        "grm1": ("out_of_action", 0, "players"),
        "skv1": ("out_of_action", 0, "monsters"),
        "skv2": ("upright", 1, "monsters"),
        "rat3": ("upright", 1, "monsters"),
    }


def test_avrae_into_an_existing_fight_joins_only_the_newcomers() -> None:
    ok(run("new", "moor", "--ruleset", "d26", "--seed", "1"))
    ok(run("join", "moor", "tali-0001", "--name", "Tali", "--stat", "hp=12"))
    result = ok(run("import", AVRAE, "--from", "avrae", "--as", "moor"))
    assert "imported 14 events" in result.stdout  # Tali was there: her join is not made
    assert brief("moor", "hp") == {
        "tali-0001": ("upright", 9),  # her first snapshot is the baseline, then 5 down, 2 up
        "wolf-0001": ("dead", 0),
        "wolf-0002": ("upright", 9),
    }


def test_reimporting_the_same_file_adds_nothing() -> None:
    ok(run("import", II, "--from", "improved-initiative", "--as", "well", "--ruleset", "mordheim"))
    before = characters("well")
    result = ok(run("import", II, "--from", "improved-initiative", "--as", "well"))
    assert "imported 0 events" in result.stdout and "already there" in result.stdout
    assert characters("well") == before


def test_a_new_fight_needs_a_ruleset() -> None:
    result = run("import", FOUNDRY, "--from", "foundry", "--as", "ambush")
    assert result.exit_code == 2
    assert "give --ruleset" in result.output


def test_the_ruleset_of_an_existing_fight_cannot_change() -> None:
    ok(run("import", FOUNDRY, "--from", "foundry", "--as", "ambush", "--ruleset", "d26"))
    result = run("import", FOUNDRY, "--from", "foundry", "--as", "ambush", "--ruleset", "mordheim")
    assert result.exit_code == 2
    assert "played with `d26`" in result.output


def test_an_unknown_format_names_the_known_ones() -> None:
    result = run("import", FOUNDRY, "--from", "roll20", "--ruleset", "d26")
    assert result.exit_code == 2
    assert "known: foundry, improved-initiative, avrae" in result.output


def test_a_malformed_record_names_its_line_and_field_and_writes_nothing(tmp_path: Path) -> None:
    lines = FOUNDRY.read_text().splitlines()
    bad = json.loads(lines[3])
    bad["prior"]["round"] = "one"
    lines[3] = json.dumps(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    result = run("import", broken, "--from", "foundry", "--ruleset", "d26")
    assert result.exit_code == 3
    assert "line 4" in result.output and "$.prior.round" in result.output
    assert run("state", "broken").exit_code == 2  # not even the fight was created


def test_ruleset_and_seed_go_with_from() -> None:
    result = run("import", FOUNDRY, "--ruleset", "d26")
    assert result.exit_code == 2
    assert "go with --from" in result.output
