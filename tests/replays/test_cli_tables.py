"""The state table at 100 columns (issue 18, in part): a fight of each ruleset, with its long
counter names, stays readable (no `…`, no line past the width, every name whole, every column
named or in the legend), and `--wide` shows every column unabridged in one table."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

import pytest

from woundlog.core import RULESETS

from .conftest import Run
from .test_cli import ok

DATA = Path(str(files("woundlog.replays") / "data"))
ONE_OF_EACH = {
    "contractor": "contractor_salvage",  # wound_counter, max_constitution, gear_damage
    "d26": "d26_ossuary_gate",  # fatal_location, last_stand_at
    "dnd5e": "dnd5e_goblin_ambush",
    "dragonquest": "dragonquest_house_table",  # stunned_this_pulse
    "mordheim": "mordheim_skirmish",
    "warhammer_quest": "warhammer_quest_fire_chasm",  # 19 columns: internal_bleeding, ...
}


def test_every_ruleset_has_a_fight_here() -> None:
    assert set(ONE_OF_EACH) == set(RULESETS)


@pytest.fixture
def hundred(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


@pytest.mark.parametrize("fight", ONE_OF_EACH.values())
def test_the_state_table_stays_readable_at_100_columns(run: Run, hundred: None, fight: str) -> None:
    ok(run("import", str(DATA / f"{fight}.jsonl")))
    table = ok(run("state", fight)).stdout
    assert "…" not in table
    assert max(len(line.rstrip()) for line in table.splitlines()) <= 100
    words = set(table.split())
    for name in character_names(fight):  # whole (a name may wrap at a space)
        assert set(name.split()) <= words, name
    named = set(re.findall(r"[a-z_]+", table))  # in the header, the legend or below the table
    state = run("state", fight, "--json").stdout
    for column in set(re.findall(r'"([a-z_]+)":', state)) & columns_of(run, fight):
        assert column in named, column


def character_names(fight: str) -> list[str]:
    events = [json.loads(line) for line in (DATA / f"{fight}.jsonl").read_text().splitlines()]
    return [e.get("name") or e["character"] for e in events if e["type"] == "character_joined"]


def columns_of(run: Run, fight: str) -> set[str]:
    """Every column of the wide table: its header line's words."""
    wide = ok(run("state", fight, "--wide")).stdout.splitlines()
    return set(wide[2].replace("┃", " ").split())


@pytest.mark.parametrize("fight", ["warhammer_quest_fire_chasm", "contractor_salvage"])
def test_wide_shows_every_column_unabridged_in_one_table(
    run: Run, hundred: None, fight: str
) -> None:
    ok(run("import", str(DATA / f"{fight}.jsonl")))
    wide = ok(run("state", fight, "--wide")).stdout
    assert "…" not in wide and "legend:" not in wide and "--wide" not in wide
    header = set(wide.splitlines()[2].replace("┃", " ").split())
    assert {"id", "name", "state", "injuries", "stats"} <= header
    if fight.startswith("warhammer"):
        assert {"internal_bleeding", "starting_wounds", "weapon_skill", "retired"} <= header
        assert "Magnus the Bright Wizard" in wide  # nothing wraps
    assert max(len(line) for line in wide.splitlines()) > 100


def test_a_table_that_fits_is_left_as_it_is(run: Run, skirmish: str, hundred: None) -> None:
    table = ok(run("state", skirmish)).stdout
    assert "legend:" not in table and "--wide" not in table
    assert "half_rate" in table and "injuries" in table


def test_replay_fits_the_table_too(run: Run, hundred: None) -> None:
    replayed = ok(run("replay", str(DATA / "warhammer_quest_fire_chasm.jsonl"))).stdout
    assert "…" not in replayed and "ib = internal_bleeding" in replayed
    assert "Grundi the Trollslayer" in replayed


def test_foundry_length_ids_leave_the_table_whole_with_names_beside_them(
    run: Run, hundred: None
) -> None:
    """Issue 26: Foundry's token ids (`Scene.<16>.Token.<16>`, 45 characters) never break the
    CLI table: each row one line within 100 columns, the id whole (it is what a command takes),
    the display name beside it, and the event lines name the character, never the id."""
    brakka = "Scene.Xq7mP2aZ0kLw9BcD.Token.h7Qk2aZ0rT5yUvWx"
    boss = "Scene.Xq7mP2aZ0kLw9BcD.Token.Gob1inB0ss9aaQ3e"
    ok(run("new", "road", "--ruleset", "dnd5e"))
    ok(run("join", "road", brakka, "--name", "Brakka", "--side", "party", "--stat", "hp=22"))
    ok(run("join", "road", boss, "--name", "Goblin Boss", "--side", "goblins", "--stat", "hp=21"))
    hit = ok(run("hit", "road", "Brakka", "5", "--attacker", "Goblin Boss")).stdout
    assert hit.splitlines()[0] == "#4 hit: Brakka takes 5 (22 -> 17 HP)"
    table = ok(run("state", "road")).stdout
    assert "…" not in table
    assert max(len(line.rstrip()) for line in table.splitlines()) <= 100
    rows = {line.split()[0]: line for line in table.splitlines() if " upright " in line}
    assert set(rows) == {brakka, boss}
    assert "Brakka" in rows[brakka] and "Goblin Boss" in rows[boss]
    assert "Scene." not in ok(run("log", "road")).stdout
