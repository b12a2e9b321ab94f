"""Importers: the interface, and Foundry hooks become woundlog events with stable ids, joins at
first sight, given dice, and turn and round ticks. Improved Initiative and Avrae have their own
files: test_import_improved_initiative.py and test_import_avrae.py."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    StructuralError,
    TurnEnded,
    TurnStarted,
    UsageError,
    type_name,
)
from woundlog.events.importers import IMPORTERS, Converted, convert_records
from woundlog.events.stores import SQLiteStore, Store
from woundlog.replays import Fight

DATA = Path(__file__).parent.parent / "data" / "importers"


def jsonl(name: str) -> list[Any]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


FOUNDRY = jsonl("foundry_d26.jsonl")


def ids(converted: Converted) -> list[str]:
    return [e.id or "" for e in converted.events]


def summary(events: list[Event]) -> list[tuple[str, ...]]:
    """(type, subject, amount-or-round) per event: what a reader checks the rules against."""
    rows: list[tuple[str, ...]] = []
    for e in events:
        if isinstance(e, CharacterJoined):
            rows.append(("joined", e.character, f"{e.kind}/{e.side}/{e.stats}"))
        elif isinstance(e, Hit):
            rows.append(("hit", e.target, str(e.damage)))
        elif isinstance(e, Heal):
            rows.append(("heal", e.target, str(e.amount)))
        elif isinstance(e, TurnStarted | TurnEnded):
            rows.append((type_name(e), e.character or "round", str(e.round)))
    return rows


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = SQLiteStore(tmp_path / "fights.db")
    yield opened
    opened.close()


# --- the interface -------------------------------------------------------------------------------


def test_importers_are_named_by_format() -> None:
    assert list(IMPORTERS) == ["foundry", "improved-initiative", "avrae"]


def test_unknown_format_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(UsageError, match="known: foundry, improved-initiative, avrae"):
        convert_records("roll20", [], ruleset="d26")


def test_ruleset_without_hit_points_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError, match="Fatigue and Endurance"):
        convert_records("foundry", FOUNDRY, ruleset="dragonquest")
    with pytest.raises(UsageError, match="importable: d26, mordheim"):
        convert_records("foundry", FOUNDRY, ruleset="chess")


# --- Foundry -------------------------------------------------------------------------------------


def test_foundry_hooks_become_joins_hits_heals_and_ticks() -> None:
    converted = convert_records("foundry", FOUNDRY, ruleset="d26")
    assert summary(converted.events) == [
        ("joined", "brakka0000000001", "pc/players/{'hp': 22}"),
        ("turn_started", "brakka0000000001", "1"),
        ("joined", "goblin0000000001", "npc/monsters/{'hp': 7}"),
        ("hit", "goblin0000000001", "5"),
        ("turn_ended", "brakka0000000001", "1"),
        ("turn_started", "goblin0000000001", "1"),
        ("joined", "vess000000000001", "pc/players/{'hp': 14}"),
        ("hit", "vess000000000001", "5"),  # already hurt when first seen: 9 of 14 before the blow
        ("hit", "vess000000000001", "3"),
        ("hit", "brakka0000000001", "26"),  # 22 to reach 0, and the 4 of overflow past it
        ("heal", "goblin0000000001", "3"),
        ("turn_ended", "goblin0000000001", "1"),
        ("turn_ended", "round", "1"),
        ("turn_started", "brakka0000000001", "2"),
    ]
    assert converted.previous is None


def test_foundry_ids_come_from_the_envelope_and_the_actor() -> None:
    assert ids(convert_records("foundry", FOUNDRY, ruleset="d26")) == [
        "foundry:brakka0000000001:joined",
        "foundry:tc0001:brakka0000000001:turn_started",
        "foundry:goblin0000000001:joined",
        "foundry:dm0001:hit",
        "foundry:tc0002:brakka0000000001:turn_ended",
        "foundry:tc0002:goblin0000000001:turn_started",
        "foundry:vess000000000001:joined",
        "foundry:vess000000000001:hurt",
        "foundry:dm0003:hit",
        "foundry:dm0004:hit",
        "foundry:hl0001:heal",
        "foundry:tc0003:goblin0000000001:turn_ended",
        "foundry:tc0003:round_ended",
        "foundry:tc0003:brakka0000000001:turn_started",
    ]


def test_foundry_attacker_and_recorder_are_kept() -> None:
    hit = convert_records("foundry", FOUNDRY[1:2], ruleset="d26").events[1]
    assert isinstance(hit, Hit)
    assert (hit.attacker, hit.by) == ("brakka0000000001", "foundry")


def test_damage_absorbed_by_temporary_hp_is_no_hit() -> None:
    converted = convert_records("foundry", FOUNDRY[2:3], ruleset="d26")
    assert summary(converted.events) == [("joined", "brakka0000000001", "pc/players/{'hp': 22}")]


def test_roll_dice_are_its_active_results_given_for_the_purpose() -> None:
    hit = convert_records("foundry", FOUNDRY[5:6], ruleset="d26").events[-1]
    # the rerolled 1 is inactive; the dice are the target's own
    assert hit.rolls == {"location@brakka0000000001": [3]}


def test_rolls_of_pool_terms_and_several_purposes_count_in_order() -> None:
    record = copy.deepcopy(FOUNDRY[5])
    d6 = {"class": "Die", "faces": 6, "results": [{"result": 2, "active": True}]}
    pool = {"class": "PoolTerm", "rolls": [{"terms": [d6]}, {"terms": [d6]}]}
    record["rolls"] = {"injury": [{"terms": [pool, {"class": "OperatorTerm", "operator": "+"}]}]}
    hit = convert_records("foundry", [record], ruleset="d26").events[-1]
    assert hit.rolls == {"location@brakka0000000001": [3], "injury@brakka0000000001": [2, 2]}


def test_a_roll_without_purpose_is_refused() -> None:
    record = {k: v for k, v in FOUNDRY[5].items() if k != "purpose"}
    with pytest.raises(StructuralError) as caught:
        convert_records("foundry", [FOUNDRY[0], record], ruleset="d26")
    assert (caught.value.index, caught.value.field) == (1, "$.purpose")


def test_turn_changes_backwards_or_before_round_one_make_nothing() -> None:
    both = ["brakka0000000001", "goblin0000000001"]
    assert convert_records("foundry", FOUNDRY[8:9], ruleset="d26", joined=both).events == []
    start = convert_records("foundry", FOUNDRY[0:1], ruleset="d26", joined=both)
    assert summary(start.events) == [("turn_started", "brakka0000000001", "1")]


def test_first_sight_joins_once_and_known_characters_do_not_join() -> None:
    joined = ["brakka0000000001", "goblin0000000001", "vess000000000001"]
    converted = convert_records("foundry", FOUNDRY, ruleset="d26", joined=joined)
    assert not any(isinstance(e, CharacterJoined) for e in converted.events)
    assert "foundry:vess000000000001:hurt" not in ids(converted)


def test_mordheim_maps_hp_to_wounds_and_ignores_healing() -> None:
    converted = convert_records("foundry", FOUNDRY[1:2] + FOUNDRY[6:7], ruleset="mordheim")
    assert summary(converted.events) == [
        ("joined", "goblin0000000001", "/monsters/{'wounds': 7}"),
        ("hit", "goblin0000000001", "5"),
    ]


def test_warhammer_quest_and_contractor_kinds_and_stats() -> None:
    quest = convert_records("foundry", FOUNDRY[:2], ruleset="warhammer_quest").events
    assert summary(quest)[0] == ("joined", "brakka0000000001", "warrior/warriors/{'wounds': 22}")
    assert summary(quest)[2] == ("joined", "goblin0000000001", "monster/monsters/{'wounds': 7}")
    contractor = convert_records("foundry", FOUNDRY[:1], ruleset="contractor").events
    assert summary(contractor)[0] == ("joined", "brakka0000000001", "/players/{'constitution': 22}")


def test_an_actors_side_overrides_the_default() -> None:
    record = copy.deepcopy(FOUNDRY[1])
    record["actor"]["side"] = "goblins"
    joined = convert_records("foundry", [record], ruleset="mordheim").events[0]
    assert isinstance(joined, CharacterJoined) and joined.side == "goblins"


@pytest.mark.parametrize(
    ("change", "field", "match"),
    [
        (lambda r: r.pop("id"), "$.id", "missing required field"),
        (lambda r: r["changes"].pop("hp"), "$.changes.hp", "missing required field"),
        (lambda r: r["changes"].update(hp="-5"), "$.changes.hp", "Expected `int`"),
        (lambda r: r.update(hook="updateActor"), "$.hook", "known: dnd5e.damageActor"),
        (lambda r: r["actor"].update(id="two words"), "$.actor.id", "matching regex"),
        (lambda r: r.update(overflow=-1), "$.overflow", ">= 0"),
    ],
)
def test_malformed_envelopes_name_the_record_and_field(change: Any, field: str, match: str) -> None:
    record = copy.deepcopy(FOUNDRY[1])
    change(record)
    with pytest.raises(StructuralError, match=match) as caught:
        convert_records("foundry", [FOUNDRY[0], FOUNDRY[2], record], ruleset="d26")
    assert (caught.value.index, caught.value.field) == (2, field)


def test_a_die_the_event_cannot_hold_is_refused_with_the_record() -> None:
    record = copy.deepcopy(FOUNDRY[5])
    record["roll"]["terms"][0]["results"][1]["result"] = 1001
    with pytest.raises(StructuralError, match="invalid event") as caught:
        convert_records("foundry", [record], ruleset="d26")
    assert caught.value.index == 0
    assert caught.value.field is not None and caught.value.field.startswith("$.rolls")


def hp_envelope(hook: str, hp: dict[str, int], change: int, **more: Any) -> dict[str, Any]:
    """A Foundry HP hook on Brakka (max 22 unless `hp` says) with `hp` as after the change."""
    record = copy.deepcopy(FOUNDRY[2])
    record.update(hook=hook, id="probe1", **more)
    record["actor"]["hp"] = {"max": 22, "temp": 0, "tempmax": 0, **hp}
    record["changes"] = {"hp": change, "temp": 0, "total": change}
    return record


@pytest.mark.parametrize(
    ("record", "field", "match"),
    [
        # a gain of 10 on an actor at full HP would end above its maximum: dnd5e cannot
        (hp_envelope("dnd5e.healActor", {"value": 32}, 10), "$.actor.hp.value", "above"),
        # a loss of 10 that leaves the actor at full HP: it was above its maximum before
        (hp_envelope("dnd5e.damageActor", {"value": 22}, -10), "$.changes.hp", "0 to 22"),
        (hp_envelope("dnd5e.healActor", {"value": 5}, 10), "$.changes.hp", "-5 HP before"),
        (hp_envelope("dnd5e.damageActor", {"value": -3}, -5), "$.actor.hp.value", "below 0"),
        (hp_envelope("dnd5e.damageActor", {"value": 4}, -5, overflow=3), "$.overflow", "at 0 HP"),
        (hp_envelope("dnd5e.healActor", {"value": 22}, 0, overflow=3), "$.overflow", "at 0 HP"),
    ],
)
def test_foundry_refuses_an_hp_change_the_actors_hp_contradicts(
    record: dict[str, Any], field: str, match: str
) -> None:
    with pytest.raises(StructuralError, match=match) as caught:
        convert_records("foundry", [FOUNDRY[0], record], ruleset="d26")
    assert (caught.value.index, caught.value.field) == (1, field)


def test_foundry_hp_changes_that_fit_the_actors_hp_are_taken() -> None:
    records = [
        hp_envelope("dnd5e.healActor", {"value": 22}, 10),  # 12 -> 22: hurt 10 at sight, heal 10
        hp_envelope("dnd5e.damageActor", {"value": 0}, -12, overflow=30),  # 12 -> 0, 30 more
        hp_envelope("dnd5e.healActor", {"value": 25, "tempmax": 5}, 25),  # above max: tempmax
    ]
    records[1]["id"], records[2]["id"] = "probe2", "probe3"
    assert summary(convert_records("foundry", records, ruleset="d26").events)[1:] == [
        ("hit", "brakka0000000001", "10"),
        ("heal", "brakka0000000001", "10"),
        ("hit", "brakka0000000001", "42"),
        ("heal", "brakka0000000001", "25"),
    ]


def test_foundry_refuses_hp_past_the_wires_bounds_naming_the_field() -> None:
    record = hp_envelope("dnd5e.damageActor", {"value": 0, "max": 10**12}, -(10**12))
    with pytest.raises(StructuralError, match="<= 1000000") as caught:
        convert_records("foundry", [record], ruleset="mordheim")
    assert caught.value.field == "$.actor.hp.max"


def test_foundry_rolls_nested_a_thousand_pools_deep_are_a_structural_error() -> None:
    record = copy.deepcopy(FOUNDRY[5])
    roll: dict[str, Any] = {"terms": []}
    for _ in range(1000):
        roll = {"terms": [{"class": "PoolTerm", "rolls": [roll]}]}
    record["roll"] = roll
    with pytest.raises(StructuralError, match="nested") as caught:
        convert_records("foundry", [record], ruleset="d26")
    assert caught.value.index == 0


# --- into a fight --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "records", "ruleset"),
    [
        ("foundry", FOUNDRY, "d26"),
        ("foundry", FOUNDRY, "warhammer_quest"),
    ],
)
def test_reimporting_the_same_records_is_a_no_op(
    store: Store, fmt: str, records: list[Any], ruleset: str
) -> None:
    fight = Fight.create(store, "f", FightStarted(ruleset=ruleset, seed=3))
    first = fight.append(convert_records(fmt, records, ruleset=ruleset).events)
    before = fight.state()
    # again, as the CLI does: knowing who joined, no cursor
    again = convert_records(fmt, records, ruleset=ruleset, joined=list(before.characters))
    second = fight.append(again.events)
    assert second.version == first.version
    assert second.changes == []
    # and again without `joined`: the joins are the same events, skipped too
    third = fight.append(convert_records(fmt, records, ruleset=ruleset).events)
    assert third.version == first.version
    assert fight.state() == before
