"""The Foundry VTT importer, on the envelopes woundlog's module sends in dnd5e 5.3.3's shapes
(tests/data/importers/foundry_fixtures.py): tokens, the whole damage, drift, dice, turns keyed
by their place in the combat, and death saves."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.core.importing import convert_records
from woundlog.events import (
    CharacterJoined,
    Check,
    FightStarted,
    Heal,
    Hit,
    StructuralError,
    TurnEnded,
    TurnStarted,
)
from woundlog.events.importers import IMPORTERS, foundry
from woundlog.events.stores import SQLiteStore, Store
from woundlog.replays import Fight

FOUNDRY_OPTIONS = IMPORTERS["foundry"].fight_options("dnd5e")  # death saves from the table

DATA = Path(__file__).parent.parent / "data" / "importers"
RECORDS = [json.loads(line) for line in (DATA / "foundry_dnd5e.jsonl").read_text().splitlines()]
BRAKKA = "Actor.actBrakka0000001"  # a linked actor: the world actor's uuid
GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001"
GOBLIN_2 = "Scene.sceneMain0000001.Token.tkGoblin00000002"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = SQLiteStore(tmp_path / "fights.db")
    yield opened
    opened.close()


def dnd5e_fight(store: Store) -> Fight:
    started = FightStarted(ruleset="dnd5e", seed=1, options=FOUNDRY_OPTIONS)
    return Fight.create(store, "f", started)


def states(fight: Fight) -> dict[str, str]:
    return {c.name: c.state for c in fight.state().characters.values()}


def record(index: int, **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(RECORDS[index])
    changed.update(changes)
    return changed


# --- tokens --------------------------------------------------------------------------------------


def test_unlinked_tokens_of_one_actor_are_two_characters_and_a_linked_actor_one() -> None:
    joined = convert_records("foundry", RECORDS[:1], ruleset="dnd5e").events[:3]
    assert [(e.character, e.name) for e in joined] == [  # type: ignore[union-attr]
        (BRAKKA, "Brakka"),
        (GOBLIN_1, "Goblin (1)"),
        (GOBLIN_2, "Goblin (2)"),
    ]


def test_the_fight_matches_what_foundry_showed(store: Store) -> None:
    fight = dnd5e_fight(store)
    fight.append(convert_records("foundry", RECORDS[:7], ruleset="dnd5e").events)
    assert states(fight) == {"Brakka": "downed", "Goblin (1)": "dead", "Goblin (2)": "upright"}
    fight.append(convert_records("foundry", RECORDS, ruleset="dnd5e").events)
    brakka = fight.state().characters[BRAKKA]
    assert (brakka.state, brakka.hp) == ("upright", 5)  # type: ignore[attr-defined]


# --- the whole damage ----------------------------------------------------------------------------


def test_damage_past_zero_arrives_whole_and_decides_instant_death(store: Store) -> None:
    hits = [e for e in convert_records("foundry", RECORDS, ruleset="dnd5e").events]
    blow = next(e for e in hits if e.id == f"foundry:env00007:{BRAKKA}:hit")
    assert (blow.damage, blow.critical) == (14, True)  # type: ignore[union-attr]
    fight = dnd5e_fight(store)
    killing = record(6, amount=19, changes={"hp": -7, "temp": 0, "total": -7})
    fight.append(convert_records("foundry", [*RECORDS[:6], killing], ruleset="dnd5e").events)
    assert states(fight)["Brakka"] == "dead"  # 12 past 0 on a 12-HP maximum


def test_a_blow_whose_hp_hook_came_after_it_is_one_hit(store: Store) -> None:
    """What the module of manifest 1.0.0 sent in dnd5e 4.0 and later, when a blow made the
    Bloodied effect: `applyDamage` without the change (dnd5e's own HP hook had not come yet),
    then that hook as a change of its own. One blow, not a drift and a second blow."""
    blow = record(3)  # 5 on Brakka, 12 -> 7
    del blow["changes"]
    late = {**record(3), "hook": "dnd5e.damageActor", "id": "env-late"}
    del late["amount"], late["attacker"]
    late["changes"] = {"hp": -5, "temp": 0, "total": -5}
    first = convert_records("foundry", [RECORDS[0], blow], ruleset="dnd5e")
    cursor = msgspec.json.decode(msgspec.json.encode(first.previous))  # the next POST
    second = convert_records("foundry", [late], ruleset="dnd5e", previous=cursor,
                             joined=[BRAKKA, GOBLIN_1, GOBLIN_2])  # fmt: skip
    assert (first.warnings, second.warnings, second.events) == ([], [], [])
    fight = dnd5e_fight(store)
    fight.append(first.events)
    assert fight.state().characters[BRAKKA].hp == 7  # type: ignore[attr-defined]


def test_a_blow_at_zero_hp_with_no_hp_hook_is_a_hit(store: Store) -> None:
    events = convert_records("foundry", RECORDS, ruleset="dnd5e").events
    at_zero = next(e for e in events if e.id == f"foundry:env00010:{BRAKKA}:hit")
    assert isinstance(at_zero, Hit) and at_zero.damage == 3


def test_temporary_hp_taken_is_no_hit_in_a_ruleset_without_it() -> None:
    shielded = record(3, changes={"hp": -2, "temp": -3, "total": -5})
    shielded["actor"]["hp"] |= {"value": 10}
    events = convert_records("foundry", [RECORDS[0], shielded], ruleset="d26").events
    assert [e.damage for e in events if isinstance(e, Hit)] == [2]  # type: ignore[union-attr]


def test_temporary_hp_taken_is_taken_once_in_a_ruleset_that_keeps_it(store: Store) -> None:
    """dnd5e keeps temporary HP itself: the hit is all of `amount` (5), and the rules take the 3
    temporary HP off first, as Foundry did (dnd5e release-5.3.3 module/documents/actor/actor.mjs
    `applyDamage`: `deltaTemp = Math.min(hp.temp, amount)`, the rest off `hp.value`); taking
    them off the hit too would leave Brakka at 12, not Foundry's 10."""
    shielded = record(3, changes={"hp": -2, "temp": -3, "total": -5})
    shielded["actor"]["hp"] |= {"value": 10}
    events = convert_records("foundry", [shielded], ruleset="dnd5e").events  # first seen here
    assert [e.damage for e in events if isinstance(e, Hit)] == [5]  # type: ignore[union-attr]
    granted = [e.amount for e in events if isinstance(e, Heal) and e.means == "temporary"]
    assert granted == [3]  # he had them before the blow: 3 taken, 0 left
    fight = dnd5e_fight(store)
    fight.append(events)
    brakka = fight.state().characters[BRAKKA]
    assert (brakka.hp, brakka.temp_hp) == (10, 0)


def test_an_envelope_that_loses_more_hp_than_it_dealt_is_refused() -> None:
    bad = record(3, changes={"hp": -9, "temp": 0, "total": -9})
    with pytest.raises(StructuralError, match=r"takes more than the `amount` 5 dealt"):
        convert_records("foundry", [RECORDS[0], bad], ruleset="dnd5e")


def heal_to(value: int, change: int) -> dict[str, Any]:
    """Brakka's heal (maximum 12), as if it left him at `value` after gaining `change`."""
    heal = copy.deepcopy(next(r for r in RECORDS if r["hook"] == "dnd5e.healActor"))
    heal["actor"]["hp"]["value"] = value
    heal["changes"] = {"hp": change, "temp": 0, "total": change}
    return heal


def test_an_hp_value_no_foundry_actor_can_have_is_refused() -> None:
    # a gain of 10 that leaves him 10 above his maximum is no heal of 10: it contradicts dnd5e
    with pytest.raises(StructuralError, match=r"hp.value 22 is outside 0 to 12") as caught:
        convert_records("foundry", [RECORDS[0], heal_to(22, 10)], ruleset="dnd5e")
    assert (caught.value.index, caught.value.field) == (1, "$.actor.hp.value")


def test_an_hp_change_the_hp_it_carries_contradicts_is_refused() -> None:
    # at 5 HP after gaining 10, he was at -5 before: dnd5e never goes below 0
    with pytest.raises(StructuralError, match=r"means -5 HP before it") as caught:
        convert_records("foundry", [RECORDS[0], heal_to(5, 10)], ruleset="dnd5e")
    assert caught.value.field == "$.changes.hp"
    assert convert_records("foundry", [RECORDS[0], heal_to(12, 10)], ruleset="dnd5e").events


def test_hp_above_the_maximum_by_tempmax_is_taken_in(store: Store) -> None:
    aided = record(3)  # Brakka under Aid (tempmax +5): 17 HP of 12, a blow of 5 leaves 12
    aided["actor"]["hp"] |= {"value": 12, "tempmax": 5}
    aided["changes"] = {"hp": -5, "temp": 0, "total": -5}
    converted = convert_records("foundry", [aided], ruleset="dnd5e")
    joined = next(
        e for e in converted.events if isinstance(e, CharacterJoined) and e.character == BRAKKA
    )
    assert joined.stats == {"hp": 17}  # dnd5e's effectiveMax, max + tempmax
    fight = dnd5e_fight(store)
    fight.append(converted.events)
    assert fight.state().characters[BRAKKA].hp == 12  # type: ignore[attr-defined]


# --- drift ---------------------------------------------------------------------------------------


def test_hp_changed_unseen_is_reported_and_brought_in_line(store: Store) -> None:
    rested = record(3)  # Brakka took 5 at 12 HP; a rest before it, unseen, had healed nothing...
    rested["actor"]["hp"]["value"] = 4  # ...but Foundry says 4 after 5 damage: he was at 9
    rested["changes"] = {"hp": -5, "temp": 0, "total": -5}
    converted = convert_records("foundry", [RECORDS[0], rested], ruleset="dnd5e")
    assert converted.warnings == [
        "record 1 (dnd5e.applyDamage `env00004`): Brakka was at 12 HP after the last record "
        "and Foundry says 9 before this one: -3 HP changed unseen (a rest, a lost send, an edit "
        "with the module off); woundlog follows Foundry"
    ]
    drift = next(e for e in converted.events if e.id == f"foundry:env00004:{BRAKKA}:drift")
    assert isinstance(drift, Hit) and drift.damage == 3 and "drift" in (drift.note or "")
    fight = dnd5e_fight(store)
    fight.append(converted.events)
    assert fight.state().characters[BRAKKA].hp == 4  # type: ignore[attr-defined]


def test_drift_is_found_across_imports_through_the_cursor() -> None:
    first = convert_records("foundry", RECORDS[:4], ruleset="dnd5e")
    cursor = msgspec.json.decode(msgspec.json.encode(first.previous))  # as the service keeps it
    healed = record(12, changes={"hp": 2, "temp": 0, "total": 2})
    healed["actor"]["hp"]["value"] = 12  # 7 + 2 is 9, not 12: 3 HP healed unseen (a rest)
    later = convert_records("foundry", [healed], ruleset="dnd5e", previous=cursor,
                            joined=[BRAKKA, GOBLIN_1, GOBLIN_2])  # fmt: skip
    assert "+3 HP changed unseen" in later.warnings[0]


def test_a_resend_makes_nothing_and_reports_no_drift() -> None:
    first = convert_records("foundry", RECORDS[:4], ruleset="dnd5e")
    again = convert_records("foundry", RECORDS[:4], ruleset="dnd5e", previous=first.previous)
    assert (again.events, again.warnings) == ([], [])


# --- dice ----------------------------------------------------------------------------------------


def test_dice_are_roll_dice_results_without_the_discarded_ones() -> None:
    advantage = {
        "formula": "2d20kh",
        "dice": [
            {
                "faces": 20,
                "results": [
                    {"result": 4, "active": False, "discarded": True},
                    {"result": 20, "active": True},
                ],
            }
        ],
    }
    pool = {"formula": "{1d6,(1d4+1d4)}kh", "dice": [
        {"faces": 6, "results": [{"result": 5, "active": True}]},
        {"faces": 4, "results": [{"result": 1, "active": False, "rerolled": True},
                                 {"result": 3, "active": True}]},
        {"faces": 4, "results": [{"result": 2, "active": True}]}]}  # fmt: skip
    hit = record(1, purpose="location", roll=pool, rolls={"location": [advantage]})
    events = convert_records("foundry", [RECORDS[0], hit], ruleset="d26").events
    blow = next(e for e in events if isinstance(e, Hit))
    assert blow.rolls == {f"location@{GOBLIN_1}": [5, 3, 2, 20]}


def test_a_roll_without_purpose_is_refused() -> None:
    hit = record(1, roll={"dice": []})
    with pytest.raises(StructuralError, match="needs the `purpose`"):
        convert_records("foundry", [hit], ruleset="d26")


# --- turns ---------------------------------------------------------------------------------------


def ticks(events: list[Any]) -> list[tuple[str, str | None, int]]:
    return [
        (type(e).__name__, e.character, e.round)
        for e in events
        if isinstance(e, TurnStarted | TurnEnded)
    ]


def test_previous_turn_then_next_turn_is_a_resend(store: Store) -> None:
    fight = dnd5e_fight(store)
    first = fight.append(convert_records("foundry", RECORDS[:4], ruleset="dnd5e").events)
    back_and_on = convert_records(
        "foundry", RECORDS[4:6], ruleset="dnd5e", joined=[BRAKKA, GOBLIN_1, GOBLIN_2]
    )
    assert fight.append(back_and_on.events).changes == []
    assert fight.version == first.version


def test_a_jump_ends_and_starts_every_turn_it_crosses() -> None:
    events = convert_records("foundry", RECORDS[10:11], ruleset="dnd5e").events
    assert ticks(events) == [
        ("TurnEnded", BRAKKA, 2),
        ("TurnStarted", GOBLIN_1, 2), ("TurnEnded", GOBLIN_1, 2),
        ("TurnStarted", GOBLIN_2, 2), ("TurnEnded", GOBLIN_2, 2),
        ("TurnEnded", None, 2),
        ("TurnStarted", BRAKKA, 3),
    ]  # fmt: skip


def test_turn_ids_are_the_combat_round_turn_and_combatant() -> None:
    events = convert_records("foundry", RECORDS[2:3], ruleset="dnd5e").events
    assert [e.id for e in events if isinstance(e, TurnStarted)] == [
        f"foundry:combat0000000001:1:1:cb-gob1:{GOBLIN_1}:turn_started",
        f"foundry:combat0000000001:1:2:cb-gob2:{GOBLIN_2}:turn_started",
    ]


def test_a_turn_change_back_or_before_round_one_makes_no_tick() -> None:
    assert ticks(convert_records("foundry", RECORDS[4:5], ruleset="dnd5e").events) == []
    unstarted = record(0, current={"round": 0, "turn": None, "combatantId": None})
    assert ticks(convert_records("foundry", [unstarted], ruleset="dnd5e").events) == []


def test_deleting_the_combatant_whose_turn_it_is_starts_the_next_ones_turn() -> None:
    converted = convert_records("foundry", RECORDS[13:15], ruleset="dnd5e")
    assert ticks(converted.events)[-2:] == [
        ("TurnEnded", GOBLIN_1, 3),
        ("TurnStarted", GOBLIN_2, 3),  # the same turn index, Goblin (2)'s now
    ]


def test_a_turn_change_whose_prior_was_overwritten_starts_where_the_last_one_left() -> None:
    # Foundry v13 fires the first of two quick changes late, its `prior` overwritten by the
    # second update: it reads (1, 1) -> (1, 1). The move is taken from where record 0 left.
    late = record(2, current={**RECORDS[2]["current"], "turn": 1, "combatantId": "cb-gob1"})
    late["prior"] = dict(late["current"])
    second = record(2, id="env-second", prior=dict(late["current"]))
    converted = convert_records("foundry", [RECORDS[0], late, second], ruleset="dnd5e")
    assert ticks(converted.events) == [
        ("TurnStarted", BRAKKA, 1), ("TurnEnded", BRAKKA, 1),
        ("TurnStarted", GOBLIN_1, 1), ("TurnEnded", GOBLIN_1, 1),
        ("TurnStarted", GOBLIN_2, 1),
    ]  # fmt: skip


def test_where_a_combat_was_is_kept_across_imports() -> None:
    first = convert_records("foundry", RECORDS[:1], ruleset="dnd5e")
    cursor = msgspec.json.decode(msgspec.json.encode(first.previous))
    late = record(2, current={**RECORDS[2]["current"], "turn": 1, "combatantId": "cb-gob1"})
    late["prior"] = dict(late["current"])
    later = convert_records("foundry", [late], ruleset="dnd5e", previous=cursor,
                            joined=[BRAKKA, GOBLIN_1, GOBLIN_2])  # fmt: skip
    assert ticks(later.events) == [("TurnEnded", BRAKKA, 1), ("TurnStarted", GOBLIN_1, 1)]


def test_a_jump_of_many_rounds_ticks_only_its_ends() -> None:
    far = record(10, current={**RECORDS[10]["current"], "round": 500})
    converted = convert_records("foundry", [far], ruleset="dnd5e")
    assert "jumps 498 rounds" in converted.warnings[0]
    assert len([e for e in converted.events if isinstance(e, TurnStarted | TurnEnded)]) < 10


# --- death saves ---------------------------------------------------------------------------------


def test_a_death_save_rolled_in_foundry_is_a_dnd5e_check_with_foundrys_outcome() -> None:
    events = convert_records("foundry", RECORDS[8:9], ruleset="dnd5e").events
    check = events[-1]
    assert isinstance(check, Check)
    assert msgspec.to_builtins(check) == {
        "type": "check", "id": f"foundry:env00009:{BRAKKA}:death_save", "by": "foundry",
        "character": BRAKKA, "check": "death_save", "bonus": 3, "rolls": {"death_save": [7]},
    }  # fmt: skip


def save(natural: int, bonus: int, **roll: Any) -> dict[str, Any]:
    """Record 8 (Brakka's death save at 0 HP) with another roll."""
    d20 = {"faces": 20, "results": [{"result": natural, "active": True}]}
    rolled = {"formula": f"1d20 + {bonus}", "total": natural + bonus, "target": 10,
              "isCritical": natural == 20, "isFumble": natural == 1, "dice": [d20]}  # fmt: skip
    return record(8, roll=rolled | roll)


@pytest.mark.parametrize(
    ("natural", "bonus", "successes", "failures", "hp"),
    [
        (8, 3, 1, 0, 0),  # 11: a success, though the die is below 10
        (12, -4, 0, 1, 0),  # 8: a failure, though the die is 10 or more
        (1, 12, 1, 0, 0),  # 13: a natural 1 that succeeds is no fumble
        (1, 0, 0, 2, 0),  # a fumble: two failures
        (20, 0, 0, 0, 1),  # a critical: back at 1 HP
    ],
)
def test_a_death_saves_outcome_is_its_total_against_10_with_natural_20_and_1_aside(
    store: Store, natural: int, bonus: int, successes: int, failures: int, hp: int
) -> None:
    fight = dnd5e_fight(store)
    fight.append(
        convert_records("foundry", [*RECORDS[:8], save(natural, bonus)], ruleset="dnd5e").events
    )
    brakka = fight.state().characters[BRAKKA]
    assert (brakka.successes, brakka.failures, brakka.hp) == (successes, failures, hp)  # type: ignore[attr-defined]


def test_a_fight_made_from_foundry_in_dnd5e_takes_death_saves_from_the_table() -> None:
    # and follows dnd5e's revivals (a heal above 0 HP clears the death saves): issue 41
    assert FOUNDRY_OPTIONS == {"death_saves": "table", "revival": True}
    assert IMPORTERS["foundry"].fight_options("d26") == {}


def test_a_death_save_in_another_ruleset_is_reported_not_recorded() -> None:
    converted = convert_records("foundry", RECORDS[8:9], ruleset="d26")
    assert not any(isinstance(e, Check) for e in converted.events)
    assert "a death save rolled in Foundry is a dnd5e rule" in converted.warnings[0]


class Counted(str):
    """An envelope id that counts the comparisons made with it."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_recognising_a_resend_is_one_look_up_not_a_scan_of_every_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, not timed: each envelope's id is compared with the ids seen before it; a scan
    of a list of them is n * n / 2 comparisons for n envelopes, a set's look-up about none."""
    real = foundry.envelope

    def counted(record: object, index: int) -> Any:
        hook = real(record, index)
        return msgspec.structs.replace(hook, id=Counted(hook.id))

    real_cursor = foundry.Conversion.cursor

    def plain_cursor(self: foundry.Conversion) -> object:  # the cursor holds plain strings
        self.seen = [str(i) for i in self.seen]
        return real_cursor(self)

    monkeypatch.setattr(foundry, "envelope", counted)
    monkeypatch.setattr(foundry.Conversion, "cursor", plain_cursor)
    heal = next(r for r in RECORDS if r["hook"] == "dnd5e.healActor")
    n = 2000
    records = [
        {**heal, "id": f"h{i}", "changes": {"hp": 0, "temp": 0, "total": 0}} for i in range(n)
    ]
    for r in records:
        r["actor"] = {**heal["actor"], "hp": {**heal["actor"]["hp"], "value": 5}}
    Counted.compared = 0
    converted = convert_records("foundry", records + records[:10], ruleset="dnd5e")
    assert len(converted.previous["seen"]) == foundry.SEEN_KEPT  # type: ignore[index]
    assert Counted.compared < n  # a list's scan: about n * n / 2, 2 000 000 here


def test_reimporting_the_whole_fight_is_a_no_op(store: Store) -> None:
    fight = dnd5e_fight(store)
    fight.append(convert_records("foundry", RECORDS, ruleset="dnd5e").events)
    before = fight.state()
    again = convert_records("foundry", RECORDS, ruleset="dnd5e", joined=list(before.characters))
    assert fight.append(again.events).changes == []
    assert fight.state() == before


def test_the_cli_creates_a_dnd5e_fight_that_takes_foundrys_death_saves(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from woundlog.replays.cli import main; main()",
         "--db", str(tmp_path / "f.db"), "import", "foundry", str(DATA / "foundry_dnd5e.jsonl"),
         "--into", "foundry_dnd5e"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


# --- other rulesets, first sight, malformed envelopes (moved from test_importers.py) -----------


def joins(events: list[Any]) -> list[tuple[str, str, str, dict[str, int]]]:
    return [(e.name, e.kind, e.side, e.stats) for e in events if isinstance(e, CharacterJoined)]


def test_mordheim_maps_hp_to_wounds_and_ignores_healing() -> None:
    converted = convert_records("foundry", [RECORDS[1], RECORDS[12]], ruleset="mordheim")
    assert joins(converted.events) == [
        ("Goblin (1)", "", "monsters", {"wounds": 7}),
        ("Brakka", "", "players", {"wounds": 12}),
    ]
    assert [type(e).__name__ for e in converted.events if not isinstance(e, CharacterJoined)] == [
        "Hit",  # the goblin's blow
        "Hit",  # Brakka first seen hurt (1 of 12 before the potion)
    ]


def test_warhammer_quest_and_contractor_kinds_and_stats() -> None:
    quest = convert_records("foundry", RECORDS[:1], ruleset="warhammer_quest").events
    assert joins(quest)[:2] == [
        ("Brakka", "warrior", "warriors", {"wounds": 12}),
        ("Goblin (1)", "monster", "monsters", {"wounds": 7}),
    ]
    contractor = convert_records("foundry", RECORDS[:1], ruleset="contractor").events
    assert joins(contractor)[0] == ("Brakka", "", "players", {"constitution": 12})


def test_a_tokens_side_overrides_the_default() -> None:
    changed = record(1)
    changed["token"]["side"] = "goblins"
    joined = convert_records("foundry", [changed], ruleset="mordheim").events[0]
    assert isinstance(joined, CharacterJoined) and joined.side == "goblins"


def test_first_sight_joins_once_and_known_characters_do_not_join() -> None:
    converted = convert_records(
        "foundry", RECORDS, ruleset="dnd5e", joined=[BRAKKA, GOBLIN_1, GOBLIN_2]
    )
    assert not any(isinstance(e, CharacterJoined) for e in converted.events)
    assert not any((e.id or "").endswith(":hurt") for e in converted.events)


@pytest.mark.parametrize(
    ("change", "field", "match"),
    [
        (lambda r: r.pop("id"), "$.id", "missing required field"),
        (lambda r: r.pop("amount"), "$.amount", "missing required field"),
        (lambda r: r["changes"].update(hp="-5"), "$.changes.hp", "Expected `int`"),
        (lambda r: r.update(hook="updateActor"), "$.hook", "known: dnd5e.applyDamage"),
        (lambda r: r["token"].update(uuid="two words"), "$.token.uuid", "matching regex"),
        (lambda r: r["actor"]["hp"].pop("max"), "$.actor.hp.max", "missing required field"),
    ],
)
def test_malformed_envelopes_name_the_record_and_field(change: Any, field: str, match: str) -> None:
    changed = record(1)
    change(changed)
    with pytest.raises(StructuralError, match=match) as caught:
        convert_records("foundry", [RECORDS[0], changed], ruleset="d26")
    assert (caught.value.index, caught.value.field) == (1, field)


def test_a_die_the_event_cannot_hold_is_refused_with_the_record() -> None:
    huge = {"dice": [{"faces": 6, "results": [{"result": 1001, "active": True}]}]}
    with pytest.raises(StructuralError, match="invalid event") as caught:
        convert_records("foundry", [record(1, purpose="location", roll=huge)], ruleset="d26")
    assert caught.value.index == 0
    assert caught.value.field is not None and caught.value.field.startswith("$.rolls")


@pytest.mark.parametrize("ruleset", ["d26", "warhammer_quest"])
def test_reimporting_into_another_ruleset_is_a_no_op(store: Store, ruleset: str) -> None:
    fight = Fight.create(store, "f", FightStarted(ruleset=ruleset, seed=3))
    first = fight.append(convert_records("foundry", RECORDS, ruleset=ruleset).events)
    before = fight.state()
    again = convert_records("foundry", RECORDS, ruleset=ruleset, joined=list(before.characters))
    assert fight.append(again.events).version == first.version
    third = fight.append(convert_records("foundry", RECORDS, ruleset=ruleset).events)
    assert third.version == first.version
    assert fight.state() == before


# --- examples the mutation run found missing ------------------------------------------------------
# `crossed` walks from Foundry's `CombatHistoryData` prior to current (the `updateCombat` hook's
# `combat.previous` and `combat.current`), so its boundaries are shown on those two alone.

Step, History = foundry.Step, foundry.HistoryData


def walk(prior: dict[str, Any], current: dict[str, Any], order: list[str]) -> list[Any]:
    return list(foundry.crossed(History(**prior), History(**current), order))


def test_a_jump_of_exactly_ten_rounds_is_crossed_turn_by_turn_without_a_warning() -> None:
    ten = record(10, current={**RECORDS[10]["current"], "round": 12})  # round 2 -> 12
    converted = convert_records("foundry", [ten], ruleset="dnd5e")
    assert not any("jumps" in w for w in converted.warnings)
    assert ticks(converted.events)[-2:] == [("TurnEnded", None, 11), ("TurnStarted", BRAKKA, 12)]


def test_without_an_order_ten_rounds_end_one_by_one_and_eleven_end_only_the_first() -> None:
    ten = walk(
        {"round": 1, "turn": 0, "combatant_id": "a"},
        {"round": 11, "turn": 0, "combatant_id": "b"},
        [],
    )
    assert ten == [
        Step(1, 0, "a"),
        *[Step(r) for r in range(1, 11)],
        Step(11, 0, "b", starts=True),
    ]
    eleven = walk(
        {"round": 1, "turn": 0, "combatant_id": "a"},
        {"round": 12, "turn": 0, "combatant_id": "b"},
        [],
    )
    assert eleven == [Step(1, 0, "a"), Step(1), Step(12, 0, "b", starts=True)]


def test_a_turn_handed_on_at_its_place_starts_at_that_place() -> None:
    handed = walk(
        {"round": 2, "turn": 1, "combatant_id": "a"},
        {"round": 2, "turn": 1, "combatant_id": "b"},
        ["x", "b"],
    )
    assert handed == [Step(2, 1, "a"), Step(2, 1, "b", starts=True)]


def test_begin_combat_starts_the_first_turn_and_ends_nothing_of_round_zero() -> None:
    """Foundry's combat before "Begin Combat" is round 0 with turn 0 set (Combat#setupTurns)."""
    begun = walk(
        {"round": 0, "turn": 0, "combatant_id": "a"},
        {"round": 1, "turn": 0, "combatant_id": "a"},
        ["a", "b"],
    )
    assert begun == [Step(1, 0, "a", starts=True)]


def test_a_first_turn_after_no_turn_starts_only_that_turn() -> None:
    first = walk({"round": 1}, {"round": 1, "turn": 0, "combatant_id": "a"}, ["a", "b"])
    assert first == [Step(1, 0, "a", starts=True)]


def test_a_current_in_round_zero_or_with_no_turn_crosses_nothing() -> None:
    assert walk({}, {"round": 0, "turn": 0, "combatant_id": "a"}, ["a"]) == []
    no_turn = {"round": 2, "combatant_id": "b"}  # a combatant named, no turn index
    assert walk({"round": 1, "turn": 0, "combatant_id": "a"}, no_turn, ["a", "b"]) == []


def test_one_point_of_damage_is_a_hit_of_one_and_no_temporary_hp_absorbed_none() -> None:
    """Brakka (12 HP, no temporary HP) takes 1: the hit is 1 in d26 (nothing absorbed) and in
    dnd5e."""
    graze = record(3, amount=1, changes={"hp": -1, "temp": 0, "total": -1})
    graze["actor"]["hp"] |= {"value": 11}
    for ruleset in ("d26", "dnd5e"):
        events = convert_records("foundry", [graze], ruleset=ruleset).events
        damage = [e.damage for e in events if isinstance(e, Hit)]  # type: ignore[union-attr]
        assert damage == [1], ruleset
    full = convert_records("foundry", [RECORDS[3]], ruleset="d26").events
    assert [e.damage for e in full if isinstance(e, Hit)] == [5]  # type: ignore[union-attr]


def test_temporary_hp_left_after_a_blow_through_some_of_them_are_not_granted_again() -> None:
    """dnd5e: Brakka at 12 HP with 5 temporary HP takes 2, all off the temporary HP (3 left):
    only the 5 he had on joining are granted, no new 3."""
    first = record(3, amount=0, changes={"hp": 0, "temp": 0, "total": 0})
    first["actor"]["hp"] |= {"value": 12, "temp": 5}
    blow = record(
        3, id=RECORDS[3]["id"] + "b", amount=2, changes={"hp": 0, "temp": -2, "total": -2}
    )
    blow["actor"]["hp"] |= {"value": 12, "temp": 3}
    events = convert_records("foundry", [first, blow], ruleset="dnd5e").events
    granted = [e.amount for e in events if isinstance(e, Heal) and e.means == "temporary"]
    assert granted == [5]
    assert [e.damage for e in events if isinstance(e, Hit)] == [2]  # type: ignore[union-attr]


def test_a_blow_of_one_whose_hp_hook_came_after_it_is_one_hit() -> None:
    """As test_a_blow_whose_hp_hook_came_after_it_is_one_hit, for the smallest blow: 1 on
    Brakka, 12 -> 11, then dnd5e's own HP hook of -1 is the same update, not a second blow."""
    blow = record(3, amount=1)
    blow["actor"]["hp"] |= {"value": 11}
    del blow["changes"]
    late = {**record(3), "hook": "dnd5e.damageActor", "id": "env-late"}
    late["actor"] = copy.deepcopy(blow["actor"])
    del late["amount"], late["attacker"]
    late["changes"] = {"hp": -1, "temp": 0, "total": -1}
    first = convert_records("foundry", [RECORDS[0], blow], ruleset="dnd5e")
    second = convert_records("foundry", [late], ruleset="dnd5e", previous=first.previous,
                             joined=[BRAKKA, GOBLIN_1, GOBLIN_2])  # fmt: skip
    assert (first.warnings, second.warnings, second.events) == ([], [], [])
    assert [e.damage for e in first.events if isinstance(e, Hit)] == [1]  # type: ignore[union-attr]


def test_the_token_says_who_is_a_player_and_without_it_the_actor_type_does() -> None:
    """`token.player` is the module's `actor.hasPlayerOwner`: a character actor no player owns
    (a GM's hireling) is on the monsters' side; with no `player` sent, a `character` is a pc."""
    kinds: dict[bool | None, list[tuple[str, str]]] = {}
    for player in (False, None):
        hit = record(3)
        if player is None:
            del hit["token"]["player"]
        else:
            hit["token"]["player"] = player
        events = convert_records("foundry", [hit], ruleset="dnd5e").events
        kinds[player] = [(e.kind, e.side) for e in events if isinstance(e, CharacterJoined)]
    assert kinds == {False: [("monster", "monsters")], None: [("pc", "players")]}


# Shapes from dnd5e release-5.3.3: module/documents/actor/actor.mjs (`applyDamage`,
# `calculateDamage`, `rollDeathSave`), module/data/actor/templates/attributes.mjs (`hitPoints`)
# and module/data/actor/character.mjs (`death`).

KNOWN = [BRAKKA, GOBLIN_1, GOBLIN_2]


def blow_without_changes(envelope_id: str, amount: int, value: int) -> dict[str, Any]:
    """A blow on Brakka as the module of manifest 1.0.0 sent it in dnd5e 4.0 and later, when
    dnd5e's own HP hook came after `applyDamage`: no `changes`."""
    blow = record(3, id=envelope_id, amount=amount)
    blow["actor"]["hp"] |= {"value": value}
    del blow["changes"]
    return blow


def late_hp_hook(blow: dict[str, Any], lost: int) -> dict[str, Any]:
    """dnd5e's own HP hook of that blow (`onUpdateHP`), arriving after it."""
    late = {**copy.deepcopy(blow), "hook": "dnd5e.damageActor", "id": blow["id"] + "-hp"}
    del late["amount"], late["attacker"]
    late["changes"] = {"hp": -lost, "temp": 0, "total": -lost}
    return late


def test_a_resend_is_known_among_the_last_500_envelope_ids_and_not_further_back() -> None:
    """The cursor keeps the last 500 envelope ids (`SEEN_KEPT`; replays/integrations/foundry/
    outbox.mjs sends an envelope again when its answer was lost): a blow followed by 499 other
    envelopes is still known when resent; followed by 500, it is forgotten, and its resend is
    taken in anew (a drift back to 12, then the blow again)."""
    blow = RECORDS[3]  # 5 on Brakka, 12 -> 7
    others = [record(4, id=f"back{n:03d}") for n in range(500)]  # Previous Turn: no tick
    for kept, makes in ((499, []), (500, ["drift", "hit"])):
        first = convert_records("foundry", [blow, *others[:kept]], ruleset="d26")
        cursor = msgspec.json.decode(msgspec.json.encode(first.previous))
        again = convert_records("foundry", [blow], ruleset="d26", previous=cursor, joined=KNOWN)
        assert [e.id.rsplit(":", 1)[1] for e in again.events] == makes, kept


def test_four_blows_await_their_late_hp_hooks_and_a_fifth_back_is_not_awaited() -> None:
    """Up to 4 blows a token are awaited for their late HP hook (`UNHOOKED_KEPT`): five blows of
    2 on Brakka (12 -> 2) before any hook arrives, then the hooks of the last four make nothing,
    and the first one's, no longer awaited, is a change of its own (reported as drift)."""
    blows = [blow_without_changes(f"blow{n}", 2, 12 - 2 * n) for n in range(1, 6)]
    first = convert_records("foundry", [RECORDS[0], *blows], ruleset="dnd5e")
    hits = [e.damage for e in first.events if isinstance(e, Hit)]  # type: ignore[union-attr]
    assert hits == [2] * 5
    cursor = msgspec.json.decode(msgspec.json.encode(first.previous))
    hooks = [late_hp_hook(b, 2) for b in blows]
    last_four = convert_records("foundry", hooks[1:], ruleset="dnd5e", previous=cursor,
                                joined=KNOWN)  # fmt: skip
    assert (last_four.events, last_four.warnings) == ([], [])
    oldest = convert_records("foundry", hooks[:1], ruleset="dnd5e", previous=last_four.previous,
                             joined=KNOWN)  # fmt: skip
    assert "changed unseen" in oldest.warnings[0]


def test_an_unmoved_blow_awaits_no_hp_hook_and_a_later_grant_at_that_hp_is_taken_in() -> None:
    """Brakka immune to the blow: dnd5e's `calculateDamage` sets an immune part to 0 and
    `applyDamage` still fires with amount 0, HP unmoved (12), so no HP hook follows it. Then
    the sheet gives him 5 temporary HP (`onUpdateHP`: hp 0, temp +5, a `healActor`): that is
    no late hook of the blow, and he gains them."""
    immune = blow_without_changes("immune", 0, 12)
    first = convert_records("foundry", [RECORDS[0], immune], ruleset="dnd5e")
    grant = copy.deepcopy(heal_to(12, 0))
    grant["id"] = "sheet-temp"
    grant["actor"]["hp"]["temp"] = 5
    grant["changes"] = {"hp": 0, "temp": 5, "total": 5}
    second = convert_records("foundry", [grant], ruleset="dnd5e", previous=first.previous,
                             joined=KNOWN)  # fmt: skip
    granted = [e.amount for e in second.events if isinstance(e, Heal) and e.means == "temporary"]
    assert granted == [5]


def test_a_blow_without_changes_on_an_actor_with_no_current_hp_is_read_as_no_change() -> None:
    """dnd5e's `hp.value` is nullable (attributes.mjs `hitPoints`: `initial: null`), so an
    actor whose current HP was never set sends none: nothing to compare, no HP change."""
    blind = blow_without_changes("blind", 5, 0)
    blind["actor"]["hp"]["value"] = None
    converted = convert_records("foundry", [RECORDS[0], blind], ruleset="dnd5e")
    hits = [e.damage for e in converted.events if isinstance(e, Hit)]  # type: ignore[union-attr]
    assert hits == [5]


def test_a_token_first_seen_in_a_turn_change_holding_temporary_hp_is_granted_all_of_them() -> None:
    """A turn change says nothing of a change of temporary HP: Brakka, first seen in
    `combat.turns` with 5 temporary HP (False Life), joins with all 5."""
    shielded = record(0)
    shielded["turns"][0]["actor"]["hp"]["temp"] = 5
    events = convert_records("foundry", [shielded], ruleset="dnd5e").events
    grants = [e for e in events if isinstance(e, Heal) and e.means == "temporary"]
    granted = [(e.target, e.amount) for e in grants]
    assert granted == [(BRAKKA, 5)]


def test_a_death_save_with_a_bonus_die_records_the_d20_and_the_bonus_dies_total() -> None:
    """character.mjs `death.bonuses.save` is a formula, and `rollDeathSave` adds it to the d20's
    parts: "1d4" makes the roll `1d20 + 1d4`, whose `Roll#dice` lists the d20 then the d4. The
    check's die is the d20 (9); the d4's 3 is bonus."""
    d20 = {"faces": 20, "results": [{"result": 9, "active": True}]}
    d4 = {"faces": 4, "results": [{"result": 3, "active": True}]}
    roll = {"formula": "1d20 + 1d4", "total": 12, "target": 10, "isCritical": False,
            "isFumble": False, "dice": [d20, d4]}  # fmt: skip
    blessed = record(8, roll=roll)
    check = convert_records("foundry", [blessed], ruleset="dnd5e").events[-1]
    assert isinstance(check, Check)
    assert (check.rolls, check.bonus) == ({"death_save": [9]}, 3)


def test_a_death_save_that_names_no_die_adds_nothing_to_the_die_woundlog_draws() -> None:
    """The format lets a death save carry no roll, or a roll with no die (`roll` is optional):
    no die is made up and nothing is added, so woundlog draws a plain d20."""
    for roll in (None, {"formula": "", "dice": []}):
        save_ = record(8, roll=roll)
        if roll is None:
            del save_["roll"]
        check = convert_records("foundry", [save_], ruleset="dnd5e").events[-1]
        assert isinstance(check, Check)
        assert (check.rolls, check.bonus) == ({}, 0), roll


def test_temporary_hp_the_blow_itself_grants_take_nothing_off_it() -> None:
    """d26 keeps no temporary HP. A damage roll of 6 fire and 5 `temphp` (calculateDamage sums
    `temphp` parts into `temp`, the rest into `amount`) on Brakka, 12 HP and none temporary:
    `applyDamage` takes 6 off HP and then sets temp to 5, so `changes` is hp -6, temp +5. None
    of the 6 was absorbed: the hit is 6."""
    mixed = record(3, amount=6, changes={"hp": -6, "temp": 5, "total": -1})
    mixed["actor"]["hp"] |= {"value": 6, "temp": 5}
    events = convert_records("foundry", [mixed], ruleset="d26").events
    assert [e.damage for e in events if isinstance(e, Hit)] == [6]  # type: ignore[union-attr]


def test_temporary_hp_the_blow_went_through_are_absorbed_though_it_grants_more() -> None:
    """A defect the survivor above pointed at. Brakka, 12 HP and 3 temporary, takes 4 fire and 5
    `temphp` in one application: `applyDamage` takes `deltaTemp = min(hp.temp, amount)` (3)
    off temporary HP and 1 off HP, then sets temp to 5 (`temp > updates[temp]`), so `changes`
    is hp -1, temp +2. In d26, which keeps no temporary HP, the hit is the 1 Foundry took off
    HP (4 less the 3 absorbed), not all 4; in dnd5e it is all 4, and the 5 are granted."""
    mixed = record(3, amount=4, changes={"hp": -1, "temp": 2, "total": 1})
    mixed["actor"]["hp"] |= {"value": 11, "temp": 5}
    d26 = convert_records("foundry", [mixed], ruleset="d26").events
    assert [e.damage for e in d26 if isinstance(e, Hit)] == [1]  # type: ignore[union-attr]
    dnd5e = convert_records("foundry", [mixed], ruleset="dnd5e").events
    assert [e.damage for e in dnd5e if isinstance(e, Hit)] == [4]  # type: ignore[union-attr]
    granted = [e.amount for e in dnd5e if isinstance(e, Heal) and e.means == "temporary"]
    assert granted == [3, 5]  # the 3 he held on joining, then the 5 of the blow


def test_a_move_from_round_0_to_round_11_is_a_jump_of_11_rounds() -> None:
    """Round 0 is the combat before "Begin Combat": a GM who types round 11 there jumps 11
    rounds, past `MAX_ROUNDS`, and is told so."""
    typed = record(0, current={**RECORDS[0]["current"], "round": 11})
    converted = convert_records("foundry", [typed], ruleset="dnd5e")
    assert any("jumps 11 rounds" in w for w in converted.warnings)
    assert ticks(converted.events) == [("TurnStarted", BRAKKA, 11)]


def test_a_prior_naming_a_combatant_but_no_turn_ends_no_turn() -> None:
    """A `prior` with no `turn` index is before the round's first turn, whoever it names: no
    turn of it ends, and the move crosses the round from its first turn."""
    moved = walk({"round": 2, "combatant_id": "a"}, {"round": 2, "turn": 1, "combatant_id": "b"},
                 ["a", "b"])  # fmt: skip
    assert moved == [Step(2, 0, "a", starts=True), Step(2, 0, "a"), Step(2, 1, "b", starts=True)]


def test_a_move_across_the_end_of_a_round_takes_the_next_round_from_its_first_turn() -> None:
    """From b's turn (turn 1 of a, b, c) in round 1 to b's turn in round 2, as when quick Next
    Turn clicks reach woundlog as one move: c's turn, the round's end, then a's turn of round
    2, which comes before b's."""
    moved = walk({"round": 1, "turn": 1, "combatant_id": "b"},
                 {"round": 2, "turn": 1, "combatant_id": "b"}, ["a", "b", "c"])  # fmt: skip
    assert moved == [
        Step(1, 1, "b"),
        Step(1, 2, "c", starts=True), Step(1, 2, "c"),
        Step(1),
        Step(2, 0, "a", starts=True), Step(2, 0, "a"),
        Step(2, 1, "b", starts=True),
    ]  # fmt: skip


def test_a_heal_by_someone_through_an_hp_hook_names_the_healer_and_the_grant_does_not() -> None:
    """An HP hook that names who did it (`attacker`, which the format takes on every HP hook):
    the heal of HP carries the healer, as the hit carries the attacker; the temporary HP it
    grants are the ruleset's own means and name nobody. Failed before: the heal's `means` is
    "" when it is a plain heal, and the importer looked for None, so no heal named a healer."""
    heal = heal_to(6, 5)  # Brakka, back at 1 HP by his natural 20 (record 11), 1 -> 6
    heal["attacker"] = "Actor.actCleric0000001"
    heal["actor"]["hp"]["temp"] = 5
    heal["changes"] = {"hp": 5, "temp": 5, "total": 10}
    events = convert_records("foundry", [*RECORDS[:12], heal], ruleset="dnd5e").events
    heals = [(e.means, e.healer) for e in events if isinstance(e, Heal) and "env00013" in e.id]
    assert heals == [("", "Actor.actCleric0000001"), ("temporary", None)]
