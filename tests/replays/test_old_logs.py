"""Logs written before draw version 2 replay exactly as they did (DESIGN.md section 4).

`tests/data/v1/` holds version-1 logs (every bundled example as it shipped, and the test
suite's own logs) with `NAME.trace.jsonl` beside each: what `woundlog replay NAME.jsonl --trace
--json` printed before dice were scoped to characters, made by that code and never by hand
(`tests/data/v1/README.md` says how). Every value the old output held must come out the same,
die for die, state for state. Later output may add fields (a die's `character`), and an
explanation may be worded anew (an attacker from outside the fight is now named), but no
value the old output held changes, except where a rule fix of issue 10 changed an event's
effect on purpose (`RULE_FIXES`, each with its reason).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from woundlog.replays.cli import app

V1 = Path(__file__).parent.parent / "data" / "v1"
LOGS = sorted(p for p in V1.glob("*.jsonl") if not p.name.endswith(".trace.jsonl"))
REWORDED = {"explanation"}
"""Text for people, which may be worded anew; every other old value must stand."""

_STATS = "`stats` stays as joined; a stat the rules change is a counter of its own"
_PULSE = "a stunned figure first tries to recover at the end of the pulse after the stun"
RULE_FIXES: dict[tuple[str, int], str] = {
    ("contractor_salvage", 13): "a location-10 wound's counter counts when it is rolled, not "
    "when the Foreman chooses its location",
    ("dragonquest_skirmish", 11): _PULSE + ": Ysolde's 71 is no longer rolled",
    ("dragonquest_skirmish", 19): _PULSE + ": Ysolde recovers here with her 12, Brannoc waits",
    ("dragonquest_skirmish", 23): _PULSE + ": Brannoc recovers here",
    ("dragonquest_skirmish", 27): _PULSE + ": so Cinderwing, stunned last, ends stunned",
    ("warhammer_quest_fire_chasm", 21): _STATS + " (Ignore Pain)",
    ("warhammer_quest_fire_chasm", 24): _STATS + " (Starting Wounds)",
    ("warhammer_quest_fire_chasm", 34): _STATS + " (the fight's end)",
}
"""Events whose effect a rule fix of issue 10 changed on purpose, each with the fix: the test
passes over them. Every other event of every old log must hold every old value."""


def held(old: Any, new: Any, path: str = "$") -> list[str]:
    """Where `new` does not hold every value `old` held (fields `new` adds are allowed)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [f"{path}: {new!r} is no longer an object"]
        wrong: list[str] = []
        for key, value in old.items():
            if key in REWORDED:
                continue
            if key not in new:
                wrong.append(f"{path}.{key}: gone")
            else:
                wrong += held(value, new[key], f"{path}.{key}")
        return wrong
    if isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            return [f"{path}: {old!r} became {new!r}"]
        return [
            w
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for w in held(a, b, f"{path}[{i}]")
        ]
    return [] if old == new else [f"{path}: {old!r} became {new!r}"]


def test_every_old_log_is_here_with_its_trace() -> None:
    assert len(LOGS) >= 13
    for log in LOGS:
        assert log.with_suffix(".trace.jsonl").exists(), log.name
        first = json.loads(log.read_text().splitlines()[0])
        assert first["type"] == "fight_started" and first.get("version", 1) == 1, log.name


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_a_version_1_log_replays_as_it_did_before_dice_were_scoped(log: Path) -> None:
    result = CliRunner().invoke(app, ["replay", str(log), "--trace", "--json"])
    assert result.exit_code == 0, result.output
    new = [json.loads(line) for line in result.stdout.splitlines()]
    old = [json.loads(line) for line in log.with_suffix(".trace.jsonl").read_text().splitlines()]
    assert len(new) == len(old)
    for seq, (was, now) in enumerate(zip(old, new, strict=True), start=1):
        if (log.stem, seq) in RULE_FIXES:
            continue
        assert not held(was, now), (seq, held(was, now))


def test_a_recorded_die_for_someone_not_in_the_fight_still_replays_as_it_did(
    tmp_path: Path,
) -> None:
    """Issue 24 refuses `injury@gim` on append; a log recorded before keeps it as an unused die
    and draws the injury die, as it always did."""
    log = tmp_path / "stranger.jsonl"
    events = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 7, "version": 2},
        {"type": "character_joined", "character": "grim", "side": "a", "stats": {"wounds": 1}},
        {"type": "hit", "id": "h1", "target": "grim", "damage": 1, "rolls": {"injury@gim": [6]}},
    ]
    log.write_text("".join(json.dumps(event) + "\n" for event in events))
    result = CliRunner().invoke(app, ["replay", str(log), "--trace", "--json"])
    assert result.exit_code == 0, result.output
    hit = [json.loads(line) for line in result.stdout.splitlines()][2]
    assert hit["void"] is None and hit["unused"] == {"injury@gim": [6]}
    assert [die["source"] for die in hit["dice"]] == ["drawn"]
