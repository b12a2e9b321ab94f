"""The Avrae importer is one pass over its records (issue 23): a file of a long combat, resent
and delivered out of order, costs about the same per record however many records it has.

Counted, not timed: records read into snapshots, summary lines parsed, snapshots compared
(`saved_encounters.step`), and the warnings list scanned (each late record is reported once)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events.importers import avrae, base, saved_encounters

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "importers"))
from avrae_fixtures import Combat, Combatant, Group


def long_combat(turns: int) -> list[dict[str, Any]]:
    """A player and a group of three wolves trading blows and heals for `turns` turns, in
    Avrae's own model (avrae_fixtures.py)."""
    combat = Combat("1700100000-long", 1700100000.0)
    tali = Combatant("tali-0000", "Tali", "player", 18, None, sheet_max=40)
    wolves = Group("wolves-0000", "Wolves", 12)
    combat.add(tali)
    combat.add(wolves)
    for n in range(3):
        wolf = Combatant(f"wolf-{n}", f"WO{n + 1}", "monster", 12, 10_000)
        wolf.group = wolves
        wolves.members.append(wolf)
    for turn in range(turns):
        combat.advance(deathdelete=False)
        combat.commit()
        target = wolves.members[turn % 3]
        target.modify_hp(-3)
        tali.modify_hp(-2 if turn % 2 else 2, overflow=False)
        combat.commit()
    return combat.records


class Counted:
    def __init__(self) -> None:
        self.snapshots = self.steps = self.lines = self.scanned = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Counted:
    counted = Counted()
    real_snapshot, real_step, real_summary = avrae.snapshot, saved_encounters.step, avrae.summary_hp

    def snapshot(record: object, index: int) -> Any:
        counted.snapshots += 1
        return real_snapshot(record, index)

    def step(*args: Any) -> Any:
        counted.steps += 1
        return real_step(*args)

    def summary_hp(summary: str) -> Any:
        counted.lines += summary.count("\n") + 1
        return real_summary(summary)

    class Scanned(list[str]):
        def __contains__(self, item: object) -> bool:
            counted.scanned += len(self)
            return super().__contains__(item)

    real_init = base.Batch.__init__

    def init(self: base.Batch, *args: Any) -> None:
        real_init(self, *args)
        self.warnings = Scanned()

    monkeypatch.setattr(avrae, "snapshot", snapshot)
    monkeypatch.setattr(saved_encounters, "step", step)
    monkeypatch.setattr(avrae, "summary_hp", summary_hp)
    monkeypatch.setattr(base.Batch, "__init__", init)
    return counted


def resent(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every record, and every state again, shuffled: half the work is late or repeated."""
    states = [r for r in records if r["event_type"] == "combat_state_update"]
    mixed = records + states
    random.Random(9).shuffle(mixed)
    return mixed


@pytest.mark.parametrize("turns", [100, 400])
def test_each_record_costs_the_same_however_long_the_combat(work: Counted, turns: int) -> None:
    records = resent(long_combat(turns))
    converted = convert_records("avrae", records, ruleset="dnd5e")
    states = 2 * turns
    assert len([w for w in converted.warnings if "skipped" in w]) == states  # each resend
    assert work.snapshots == len(records)
    assert work.steps == states  # each state compared once, the resends not at all
    assert work.lines <= 8 * len(records)  # each summary read once: 7 lines here
    assert work.scanned <= len(records)  # warnings looked up, not searched
