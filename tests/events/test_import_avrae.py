"""Avrae: combat recorder records (the FIREBALL dataset's raw records), made by a port of
v4.2.70's combat model (tests/data/importers/avrae_fixtures.py), become the fight Avrae showed."""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    StructuralError,
    TurnEnded,
    TurnStarted,
    type_name,
)
from woundlog.events.importers.avrae import summary_hp
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight, replay

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "importers"))
from avrae_fixtures import Combat, Combatant

DATA = Path(__file__).parent.parent / "data" / "importers"
ALL = [json.loads(line) for line in (DATA / "avrae_combat.jsonl").read_text().splitlines()]
AID_COMBAT = "1700007200-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
RECORDS = [r for r in ALL if r["combat_id"] != AID_COMBAT]  # the first two combats
AID = [r for r in ALL if r["combat_id"] == AID_COMBAT]
TALI, WO1, WO2 = (
    "9e1d7c2a-0f4b-4a55-8a0e-1c2d3e4f5a6b",
    "3b9f6c1e-7a2d-4f80-b1c4-5d6e7f8a9b0c",
    "4c0a7d2f-8b3e-4091-c2d5-6e7f8a9b0c1d",
)
TALI2, GO1 = "8a4e0b6d-cf72-44d5-a6b9-0c1d2e3f4051", "9b5f1c7e-d083-45e6-b7ca-1d2e3f405162"
SHORT = {TALI: "tali", WO1: "wo1", WO2: "wo2", TALI2: "tali2", GO1: "go1"}


def rows(events: list[Event]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for e in events:
        if isinstance(e, CharacterJoined):
            out.append(("joined", SHORT[e.character], e.name, e.kind, str(e.stats)))
        elif isinstance(e, Hit):
            out.append(("hit", SHORT[e.target], str(e.damage)))
        elif isinstance(e, Heal):
            out.append(("heal", SHORT[e.target], str(e.amount), e.means or ""))
        elif isinstance(e, TurnStarted | TurnEnded):
            who = SHORT[e.character] if e.character else "round"
            out.append((type_name(e), who, str(e.round)))
    return out


def final(events: list[Event], ruleset: str) -> dict[str, tuple[Any, ...]]:
    log: list[Event] = [FightStarted(ruleset=ruleset, seed=2), *events]
    *_, (state, _) = replay(log, strict=True)
    return {SHORT[cid]: (c.state, c.hp) for cid, c in state.characters.items()}  # type: ignore[attr-defined]


def test_state_updates_become_the_fight_players_included() -> None:
    converted = convert_records("avrae", RECORDS, ruleset="dnd5e")
    assert rows(converted.events) == [
        ("joined", "tali", "Tali", "pc", "{'hp': 12}"),  # HP from the summary
        ("joined", "wo1", "WO1", "monster", "{'hp': 11}"),  # a group's members, one by one
        ("joined", "wo2", "WO2", "monster", "{'hp': 11}"),
        ("hit", "wo1", "7"),
        ("heal", "tali", "5", "temporary"),  # shown only in the summary: "5 temp"
        ("turn_ended", "tali", "1"),
        ("turn_started", "wo1", "1"),  # the group's turn is each member's
        ("turn_started", "wo2", "1"),
        ("hit", "tali", "8"),  # 5 off temporary HP, 3 off HP
        ("turn_ended", "wo1", "1"),
        ("turn_ended", "wo2", "1"),
        ("turn_ended", "round", "1"),  # the ghost light has no HP: no turn of its own
        ("turn_started", "tali", "2"),
        ("hit", "wo1", "7"),  # to -3: Avrae keeps HP below 0
        # the second combat of the file: its own characters and its own comparisons
        ("joined", "tali2", "Tali", "pc", "{'hp': 12}"),
        ("hit", "tali2", "3"),
        ("joined", "go1", "GO1", "monster", "{'hp': 7}"),
        ("hit", "go1", "5"),
    ]


def test_combat_id_keys_each_combats_events() -> None:
    ids = [e.id or "" for e in convert_records("avrae", RECORDS, ruleset="dnd5e").events]
    assert (
        "avrae:1700003600-7f3dab5c-be61-43c4-f5a8-9b0c1d2e3f40:1700003609.0:" + GO1 + ":hit" in ids
    )
    assert f"avrae:1700000000-5f0c2a8e-4d1b-4e0a-9a57-2c1b7d3e9f10:r1:{WO1}:turn_started" in ids


def test_the_fight_in_dnd5e_and_in_d26() -> None:
    dnd5e = final(convert_records("avrae", RECORDS, ruleset="dnd5e").events, "dnd5e")
    assert dnd5e == {
        "tali": ("upright", 9),
        "wo1": ("dead", 0),
        "wo2": ("upright", 11),
        "tali2": ("upright", 9),
        "go1": ("upright", 2),
    }
    d26_events = convert_records("avrae", RECORDS, ruleset="d26").events
    assert ("hit", "tali", "3") in rows(d26_events)  # no temporary HP in d26: only HP lost
    assert not any(isinstance(e, Heal) for e in d26_events)
    assert final(d26_events, "d26")["wo2"] == ("upright", 11)


def test_a_player_whose_summary_shows_no_hp_is_reported_not_dropped_silently() -> None:
    record = copy.deepcopy(RECORDS[2])
    record["human_readable"] = "```md\nCurrent initiative: 18 (round 1)\n```"
    converted = convert_records("avrae", [record], ruleset="dnd5e")
    assert TALI not in {getattr(e, "character", None) for e in converted.events}
    assert any(
        "Tali" in w and "PlayerCombatant.to_dict() drops hp and temp_hp" in w
        for w in converted.warnings
    )


def test_a_combatant_without_max_hp_is_reported() -> None:
    warnings = convert_records("avrae", RECORDS, ruleset="dnd5e").warnings
    assert any("Ghost light" in w and "max_hp null" in w for w in warnings)


def test_records_out_of_order_and_twice_give_the_same_events() -> None:
    whole = convert_records("avrae", RECORDS, ruleset="dnd5e")
    shuffled = RECORDS + RECORDS[3:6]
    random.Random(4).shuffle(shuffled)
    again = convert_records("avrae", shuffled, ruleset="dnd5e")
    assert again.events == whole.events
    assert again.previous == whole.previous


def test_with_the_cursor_late_and_resent_records_change_nothing() -> None:
    first = convert_records("avrae", RECORDS[:7], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    assert json.loads(json.dumps(first.previous)) == first.previous  # the service keeps it as JSON
    late = convert_records(
        "avrae", RECORDS[2:7], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert late.events == []
    assert any("older than the last one" in w for w in late.warnings)
    assert any("the same as the last one" in w for w in late.warnings)
    rest = convert_records(
        "avrae", RECORDS[7:], ruleset="dnd5e", joined=joined, previous=late.previous
    )
    assert first.events + rest.events == convert_records("avrae", RECORDS, ruleset="dnd5e").events


def test_rewinding_and_advancing_again_makes_the_same_turn_events() -> None:
    states = [r for r in RECORDS if r["event_type"] == "combat_state_update"]
    wolves_turn, tali_turn = states[3], states[2]
    rewind = copy.deepcopy(tali_turn)  # !init prev: Tali's turn again, later
    rewind["timestamp"] = 1700000100.0
    again = copy.deepcopy(wolves_turn)  # !init next
    again["timestamp"] = 1700000101.0
    converted = convert_records(
        "avrae", [states[0], tali_turn, wolves_turn, rewind, again], ruleset="dnd5e"
    )
    turn_ids = [e.id for e in converted.events if isinstance(e, TurnStarted | TurnEnded)]
    assert len(turn_ids) == 6 and len(set(turn_ids)) == 3  # the re-advance repeats ids


def test_other_event_types_are_skipped() -> None:
    others = [r for r in RECORDS if r["event_type"] != "combat_state_update"]
    assert convert_records("avrae", others, ruleset="dnd5e").events == []


def test_malformed_record_names_record_and_field() -> None:
    record = copy.deepcopy(RECORDS[3])
    record["data"]["combatants"][1]["combatants"][0]["hp"] = "4"
    with pytest.raises(StructuralError, match=r"Expected `int \| null`") as caught:
        convert_records("avrae", [RECORDS[2], record], ruleset="dnd5e")
    assert (caught.value.index, caught.value.field) == (1, "$.data.combatants[1].combatants[0].hp")
    with pytest.raises(StructuralError, match="missing required field") as untyped:
        convert_records("avrae", [{"data": {}}], ruleset="dnd5e")
    assert (untyped.value.index, untyped.value.field) == (0, "$.event_type")


def test_a_bad_cursor_is_refused() -> None:
    with pytest.raises(StructuralError, match="not a cursor") as caught:
        convert_records("avrae", RECORDS, ruleset="dnd5e", previous={"key": 3})
    assert caught.value.field == "previous"


def test_a_player_in_a_group_reads_its_members_line() -> None:
    record = copy.deepcopy(RECORDS[2])
    combatants = record["data"]["combatants"]
    tali = combatants.pop(0)
    combatants[0]["combatants"].append(tali)  # Tali joined the wolves' group
    lines = record["human_readable"].splitlines()
    record["human_readable"] = "\n".join(line for line in lines if ": Tali <" not in line)
    record["human_readable"] = record["human_readable"].replace(
        "     - WO2 <11/11 HP> ",
        "     - WO2 <11/11 HP> \n     - Tali <7/12 HP> (AC 15)",
    )
    converted = convert_records("avrae", [record], ruleset="dnd5e")
    assert ("hit", "tali", "5") in rows(converted.events)


def test_importing_again_into_a_real_fight_is_a_no_op(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "fights.db")
    try:
        fight = Fight.create(store, "f", FightStarted(ruleset="dnd5e", seed=3))
        first = fight.append(convert_records("avrae", RECORDS, ruleset="dnd5e").events)
        before = fight.state()
        again = convert_records("avrae", RECORDS, ruleset="dnd5e", joined=list(before.characters))
        assert fight.append(again.events).changes == []
        third = fight.append(convert_records("avrae", RECORDS[::-1], ruleset="dnd5e").events)
        assert third.version == first.version and fight.state() == before
    finally:
        store.close()


# --- effects on the maximum, groups, removed and re-added combatants (the third combat) ---------

MIRA, OR1 = "a0000000-0000-4000-8000-00000000000a", "b0000000-0000-4000-8000-00000000000b"
GO1_FIRST, GO1_AGAIN = (
    "c0000000-0000-4000-8000-00000000000c",
    "d0000000-0000-4000-8000-00000000000d",
)
SHORT.update({MIRA: "mira", OR1: "or1", GO1_FIRST: "go1", GO1_AGAIN: "go1b"})
SHOWN = re.compile(r"(?:^|\n)[ #]*(?:\d+: |- )(?P<name>\w+) <(?P<hp>-?\d+)/(?P<max>\d+) HP")


def shown_by_avrae(record: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """(HP, maximum) of each combatant as Avrae's own summary shows it."""
    return {
        m["name"]: (int(m["hp"]), int(m["max"])) for m in SHOWN.finditer(record["human_readable"])
    }


def test_a_maximum_raised_by_an_effect_is_the_one_a_combatant_joins_with() -> None:
    first = next(r for r in AID if r["event_type"] == "combat_state_update")
    orc = next(c for c in first["data"]["combatants"] if c["id"] == OR1)
    assert (orc["max_hp"], orc["hp"], shown_by_avrae(first)["OR1"]) == (15, 20, (20, 20))
    joined = {
        e.character: e.stats
        for e in convert_records("avrae", [first], ruleset="dnd5e").events
        if isinstance(e, CharacterJoined)
    }
    assert joined[OR1] == {"hp": 20}  # Aid's +5 on a base of 15, as Avrae shows it


def test_at_every_record_the_hp_is_avraes_up_to_the_maximum_joined_with() -> None:
    """Aid given mid-fight, healing past the base maximum, Aid ending with HP above the new
    maximum: woundlog follows Avrae's HP wherever its own (fixed) maximum allows."""
    states = [r for r in AID if r["event_type"] == "combat_state_update"]
    names = {MIRA: "Mira", OR1: "OR1", GO1_AGAIN: "GO1"}  # the first GO1 is gone from Avrae
    maxima: dict[str, int] = {}
    for upto in range(1, len(states) + 1):
        converted = convert_records("avrae", states[:upto], ruleset="dnd5e")
        for e in converted.events:
            if isinstance(e, CharacterJoined):
                maxima[e.character] = e.stats["hp"]
        woundlog = final(converted.events, "dnd5e")
        avrae = shown_by_avrae(states[upto - 1])
        for cid, name in names.items():
            if name in avrae and SHORT[cid] in woundlog:
                capped = max(min(avrae[name][0], maxima[cid]), 0)
                assert woundlog[SHORT[cid]][1] == capped, (upto, name, avrae[name])
    assert final(convert_records("avrae", AID, ruleset="dnd5e").events, "dnd5e") == {
        "mira": ("upright", 5),  # 5/10 in Avrae, Aid over, down to 0 and healed
        "or1": ("upright", 12),  # 12/15 in Avrae: joined at 20 under Aid
        "go1": ("dead", 0),  # removed by deathdelete at 0
        "go1b": ("upright", 7),  # the new GO1: a new combatant id, a new character
    }


def test_a_maximum_that_moves_after_joining_is_reported() -> None:
    warnings = convert_records("avrae", AID, ruleset="dnd5e").warnings
    assert any(
        "Mira" in w and "maximum of 15 HP" in w and "joined woundlog with 10" in w for w in warnings
    )
    assert any(
        "OR1" in w and "maximum of 15 HP" in w and "joined woundlog with 20" in w for w in warnings
    )


def test_the_joined_maximum_survives_the_cursor() -> None:
    whole = convert_records("avrae", AID, ruleset="dnd5e")
    first = convert_records("avrae", AID[:4], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    rest = convert_records(
        "avrae",
        AID[4:],
        ruleset="dnd5e",
        joined=joined,
        previous=json.loads(json.dumps(first.previous)),
    )
    assert first.events + rest.events == whole.events


def test_a_group_made_mid_fight_takes_its_members_turn() -> None:
    events = convert_records("avrae", AID, ruleset="dnd5e").events
    assert ("turn_started", "or1", "2") in rows(events)  # OR1's turn in the Raiders group
    assert ("turn_started", "go1b", "2") in rows(events)


def replayed(events: list[Event], death_saves: str) -> list[Any]:
    log: list[Event] = [
        FightStarted(ruleset="dnd5e", seed=2, options={"death_saves": death_saves}),
        *events,
    ]
    return list(replay(log, strict=True))


def test_no_death_save_is_invented_when_the_table_rolls_them() -> None:
    """Avrae rolls a death save only on `!game deathsave` (cogs5e/gametrack.py
    `game_deathsave`, on the character sheet, no combat commit), so its records carry no die:
    the import makes no `check`, and a fight whose table rolls them draws none."""
    converted = convert_records("avrae", AID, ruleset="dnd5e")
    assert not any(type_name(e) == "check" for e in converted.events)
    assert any("Mira" in w and "!game deathsave" in w for w in converted.warnings)
    table = replayed(converted.events, "table")
    assert [d for _, changes in table for d in changes.dice] == []
    downed = [c.state for state, _ in table if (c := state.characters.get(MIRA))]
    assert "downed" in downed and downed[-1] == "upright"
    drawn = [d for _, changes in replayed(converted.events, "turn") for d in changes.dice]
    assert [d.purpose for d in drawn] == ["death_save"]  # what `turn` would have invented


def test_a_summary_line_below_zero_hp_is_read_with_its_sign() -> None:
    """A monster's HP has no floor in Avrae 4.2.70 (cogs5e/initiative/combatant.py
    `Combatant.hp` setter stores what it is given; cog.py `init_next` removes a monster "at 0
    HP or less"), and `Combatant.hp_str` prints it as it is: `<-3/7 HP>`. Initiative can be
    below zero too (a `-1:` line)."""
    summary = (
        "```md\nCurrent initiative: 12 (round 2)\n================================\n"
        "# 12: Tali <9/12 HP, 3 temp> (AC 15)\n"
        "  -1: GO1 <-3/7 HP> \n```"
    )
    assert summary_hp(summary) == {"Tali": (9, 12, 3), "GO1": (-3, 7, 0)}


# --- examples the mutation run found missing ------------------------------------------------------
# Each changes one field of the first combat's round-1 record (Tali, the Wolves group of WO1 and
# WO2, the Ghost light), as Avrae v4.2.70's Combat.to_dict would write it.


def round_one() -> dict[str, Any]:
    return copy.deepcopy(RECORDS[2])


def wo1(record: dict[str, Any]) -> dict[str, Any]:
    member: dict[str, Any] = record["data"]["combatants"][1]["combatants"][0]
    return member


def test_a_combat_of_players_only_reads_their_hp_from_the_summary() -> None:
    record = round_one()
    record["data"]["combatants"] = record["data"]["combatants"][:1]  # Tali alone
    assert rows(convert_records("avrae", [record], ruleset="dnd5e").events)[0] == (
        "joined",
        "tali",
        "Tali",
        "pc",
        "{'hp': 12}",
    )


def test_only_a_player_at_0_hp_or_below_is_warned_about_avraes_death_saves() -> None:
    record = round_one()
    record["human_readable"] = record["human_readable"].replace("Tali <12/12 HP>", "Tali <1/12 HP>")
    warnings = convert_records("avrae", [record], ruleset="dnd5e").warnings
    assert not any("is at 0 HP" in w for w in warnings)  # 1 HP, and the wolves at 11
    record["human_readable"] = record["human_readable"].replace("Tali <1/12 HP>", "Tali <0/12 HP>")
    warnings = convert_records("avrae", [record], ruleset="dnd5e").warnings
    assert next(w for w in warnings if "is at 0 HP" in w).startswith("Tali (")


def test_a_combat_whose_current_turn_is_none_or_outside_the_order_has_no_turn() -> None:
    """Avrae's `current` is None before `!init begin`; an index past either end names nobody.
    Without the Ghost light the order's last place is the Wolves, so reading -1 as "the last"
    would start their turns."""
    before = round_one()
    before["data"]["combatants"] = before["data"]["combatants"][:2]
    for current in (None, -1, 2):
        now = copy.deepcopy(before)
        now["timestamp"] += 1
        now["data"]["current"] = current
        ticks = rows(convert_records("avrae", [before, now], ruleset="dnd5e").events)[3:]
        assert ticks == [("turn_ended", "tali", "1")], current  # Tali's turn ended, nobody's began


def test_a_record_as_old_as_the_cursor_is_skipped_as_not_newer() -> None:
    """ "A record not newer than the last one of its combat taken in ... is skipped and
    reported": the same timestamp, other content (WO1 hit), is not newer."""
    first = convert_records("avrae", [RECORDS[2]], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    same_time = round_one()
    wo1(same_time)["hp"] = 4
    late = convert_records(
        "avrae", [same_time], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert late.events == []
    assert any("older than the last one" in w for w in late.warnings)


def test_an_effect_setting_the_maximum_replaces_the_base_and_one_without_adds_nothing() -> None:
    record = round_one()
    wo1(record)["effects"] = [{"name": "Bless", "effects": {}}]
    joined = rows(convert_records("avrae", [record], ruleset="dnd5e").events)[1]
    assert joined == ("joined", "wo1", "WO1", "monster", "{'hp': 11}")
    wo1(record)["effects"] = [{"name": "Polymorph", "effects": {"max_hp_value": 30}}]
    wo1(record)["hp"] = 30
    joined = rows(convert_records("avrae", [record], ruleset="dnd5e").events)[1]
    assert joined == ("joined", "wo1", "WO1", "monster", "{'hp': 30}")


def test_a_maximum_of_0_is_not_tracked_and_a_maximum_of_1_is() -> None:
    record = round_one()
    wo1(record)["max_hp"], wo1(record)["hp"] = 0, 0
    converted = convert_records("avrae", [record], ruleset="dnd5e")
    assert "wo1" not in {r[1] for r in rows(converted.events)}
    assert any("WO1" in w and "(max_hp 0)" in w for w in converted.warnings)
    wo1(record)["max_hp"], wo1(record)["hp"] = 1, 1
    joined = rows(convert_records("avrae", [record], ruleset="dnd5e").events)[1]
    assert joined == ("joined", "wo1", "WO1", "monster", "{'hp': 1}")


def test_a_cursor_with_a_field_this_importer_never_writes_is_refused() -> None:
    first = convert_records("avrae", RECORDS[:3], ruleset="dnd5e")
    tampered = {**json.loads(json.dumps(first.previous)), "rounds": 3}
    with pytest.raises(StructuralError, match="not a cursor") as caught:
        convert_records("avrae", RECORDS[3:], ruleset="dnd5e", previous=tampered)
    assert caught.value.field == "previous"


def test_a_negative_starting_thp_is_no_temporary_hp_and_the_blow_it_deepens_counts_whole() -> None:
    """`!init add 10 GO1 -hp 7 -thp -3`: combatant_builders.py `basic_combatant` passes `-thp`
    (`args.last("thp", type_=int, default=0)`) to the constructor unchecked, and
    cogs5e/models/sheet/statblock.py `StatBlock.__init__` stores it (`self._temp_hp =
    temp_hp`) without the setter's `max(0, value)`, so `to_dict` writes `temp_hp: -3`. Avrae's
    summary shows no temp (`hp_str`: `temp_hp > 0`), and its next blow of 5 deals 8
    (`modify_hp`: `value += min(thp, -value)` with `thp` -3), 7 -> -1. woundlog reads the -3 as
    none and the 8 as the hit (v4.2.70)."""
    combat = Combat("1700300000-negative-thp", 1700300000.0)
    go1 = Combatant("go1-negative-thp", "GO1", "common", 10, 7)
    go1._temp = -3  # StatBlock.__init__'s unclamped `_temp_hp`
    combat.add(go1)
    combat.advance()
    combat.commit()
    go1.modify_hp(-5)
    combat.commit()
    assert [r["data"]["combatants"][0]["temp_hp"] for r in combat.records[1:]] == [-3, 0]
    assert [r["data"]["combatants"][0]["hp"] for r in combat.records[1:]] == [7, -1]
    events = convert_records("avrae", combat.records, ruleset="dnd5e").events
    assert [e.damage for e in events if isinstance(e, Hit)] == [8]  # type: ignore[union-attr]
    assert not [e for e in events if isinstance(e, Heal) and e.means == "temporary"]


# --- combatants gone between two records (cog.py init_next's deathdelete, init_remove) ----------

MIRA2, ORC, GOB = (
    "a1000000-0000-4000-8000-0000000000a1",
    "b1000000-0000-4000-8000-0000000000b1",
    "c1000000-0000-4000-8000-0000000000c1",
)
SHORT.update({MIRA2: "mira2", ORC: "orc", GOB: "gob"})


def skirmish(**options: bool) -> tuple[Combat, Combatant, Combatant, Combatant]:
    """Mira against an orc and a goblin, the goblin acting, its turn recorded."""
    combat = Combat("1700400000-skirmish", 1700400000.0)
    combat.options.update(options)
    mira = Combatant(MIRA2, "Mira", "player", 16, None, sheet_max=10)
    orc = Combatant(ORC, "OR1", "monster", 12, 15)
    gob = Combatant(GOB, "GO1", "monster", 8, 7)
    for c in (mira, orc, gob):
        combat.add(c)
    for _ in range(3):
        combat.advance()
    combat.commit()  # round 1, GO1's turn
    return combat, mira, orc, gob


def test_a_monster_killed_on_its_own_turn_and_removed_by_init_next_ends_dead() -> None:
    """GO1 dies on its own turn (Mira's Hellish Rebuke) and `!init next` removes it
    (deathdelete): the record of the blow is not among those given (a file cut, the recorder's
    gap), so it is gone from a place whose turn ended while last seen at 7 HP. Avrae removes a
    monster there only at 0 HP or below: it ends dead, the hit saying why."""
    combat, _, _, gob = skirmish()
    gob.modify_hp(-7)
    combat.advance()  # round 2, Mira's turn: GO1 removed
    combat.commit()
    records = [r for r in combat.records if r["event_type"] == "combat_state_update"]
    converted = convert_records("avrae", records, ruleset="dnd5e")
    hit = next(e for e in converted.events if isinstance(e, Hit))
    assert (hit.target, hit.damage) == (GOB, 7)
    assert hit.note is not None and "deathdelete" in hit.note
    assert any("GO1" in w and "removed by !init next" in w for w in converted.warnings)
    assert final(converted.events, "dnd5e")["gob"] == ("dead", 0)
    ended = [e.character for e in converted.events if isinstance(e, TurnEnded)]
    assert ended[0] == GOB  # its turn ends after the blow, as in Avrae
    assert converted.events.index(hit) < [type(e) for e in converted.events].index(TurnEnded)


def test_a_monster_removed_by_deathdelete_at_0_hp_is_named_and_stays_dead() -> None:
    combat, _, _, gob = skirmish()
    gob.modify_hp(-9)
    combat.commit()  # the record of the blow: GO1 at -2
    combat.advance()
    combat.commit()
    records = [r for r in combat.records if r["event_type"] == "combat_state_update"]
    converted = convert_records("avrae", records, ruleset="dnd5e")
    assert [e.damage for e in converted.events if isinstance(e, Hit)] == [9]
    assert any("GO1" in w and "at -2 HP already" in w for w in converted.warnings)
    assert final(converted.events, "dnd5e")["gob"] == ("dead", 0)


def test_a_combatant_the_gm_removes_is_named_and_kept_as_last_seen() -> None:
    """`!init remove OR1` off its turn, and GO1 removed by hand where deathdelete is off: both
    are named; neither is hurt by woundlog."""
    combat, _, orc, gob = skirmish(deathdelete=False)
    combat.remove(orc)
    combat.commit()
    combat.advance()  # deathdelete off: GO1 (alive) stays; the GM removes it
    combat.remove(gob)
    combat.commit()
    records = [r for r in combat.records if r["event_type"] == "combat_state_update"]
    assert records[-1]["data"]["options"] == {"deathdelete": False}
    converted = convert_records("avrae", records, ruleset="dnd5e")
    assert not [e for e in converted.events if isinstance(e, Hit)]
    gone = [w for w in converted.warnings if "is gone from Avrae's initiative" in w]
    assert [w.split(" ", 1)[0] for w in gone] == ["OR1", "GO1"]
    assert final(converted.events, "dnd5e") == {
        "mira2": ("upright", 10), "orc": ("upright", 15), "gob": ("upright", 7)
    }  # fmt: skip


def test_a_death_seen_across_two_imports_is_the_same_one(tmp_path: Path) -> None:
    """The cursor keeps where everyone stood: the record before the removal in one import, the
    one after in the next, give the same dead goblin, and importing again adds nothing."""
    combat, _, _, gob = skirmish()
    gob.modify_hp(-7)
    combat.advance()
    combat.commit()
    records = [r for r in combat.records if r["event_type"] == "combat_state_update"]
    whole = convert_records("avrae", records, ruleset="dnd5e")
    first = convert_records("avrae", records[:1], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    rest = convert_records(
        "avrae", records[1:], ruleset="dnd5e", joined=joined,
        previous=json.loads(json.dumps(first.previous)),
    )  # fmt: skip
    assert first.events + rest.events == whole.events
    assert [(e.target, e.damage) for e in rest.events if isinstance(e, Hit)] == [(GOB, 7)]


# --- revival: a dead player the sheet shows alive again (Character.on_hp) -----------------------


def test_a_player_dead_by_the_tables_saves_and_healed_in_avrae_is_revived(tmp_path: Path) -> None:
    """Mira drops to 0; the table's death saves, recorded in woundlog (`woundlog check`: Avrae
    records none), kill her; Avrae heals her (`!init hp Mira +5`). Avrae's sheet takes any HP
    above 0 as alive: `Character.on_hp` resets the death saves, three failures included
    (cogs5e/models/character.py, v4.2.70). The fight an import makes allows revivals, and the
    heal is one: she ends upright at 5, as Avrae shows her."""
    from woundlog.events import Check
    from woundlog.events.importers import IMPORTERS, append_importing

    split = next(n for n, r in enumerate(AID) if "Mira <0/" in r.get("human_readable", "")) + 1
    store = SQLiteStore(tmp_path / "fights.db")
    try:
        options = IMPORTERS["avrae"].fight_options("dnd5e")
        fight = Fight.create(store, "f", FightStarted(ruleset="dnd5e", options=options))
        first = convert_records("avrae", AID[:split], ruleset="dnd5e")
        append_importing(first, fight.append)
        saves = [
            Check(id=f"save{n}", character=MIRA, check="death_save", rolls={"death_save": [d]})
            for n, d in enumerate((1, 4))  # a 1 is two failures, a 4 the third
        ]
        fight.append(saves)
        assert fight.state().characters[MIRA].state == "dead"
        rest = convert_records(
            "avrae",
            AID[split:],
            ruleset="dnd5e",
            joined=list(fight.state().characters),
            previous=first.previous,
        )
        _, refused = append_importing(rest, fight.append)
        mira = fight.state().characters[MIRA]
        assert (mira.state, mira.hp) == ("upright", 5)  # type: ignore[attr-defined]
        heal = next(e for e in rest.events if isinstance(e, Heal) and e.target == MIRA)
        assert [(r.event, r.instead) for r in refused] == [(heal.id, f"{heal.id}:revival")]
        assert heal.means == ""  # Avrae's heal, a revival only where woundlog has her dead
        revival = next(s.event for s in fight.events() if s.event.id == f"{heal.id}:revival")
        assert isinstance(revival, Heal) and revival.means == "revivify"
        assert "death saves" in (revival.note or "")
        version = fight.state().seq
        again = convert_records(
            "avrae",
            AID[split:],
            ruleset="dnd5e",
            joined=list(fight.state().characters),
            previous=first.previous,
        )
        append_importing(again, fight.append, known=lambda ids: store.lookup("f", ids))
        assert fight.state().seq == version  # the revival is not healed a second time
        assert fight.state().characters[MIRA].hp == 5  # type: ignore[attr-defined]
    finally:
        store.close()


def test_a_player_healed_from_0_while_dying_is_healed_as_any_heal() -> None:
    """Without the saves that killed her, Avrae's heal wakes her as any heal does: the fight
    ends as Avrae shows it either way."""
    assert final(convert_records("avrae", AID, ruleset="dnd5e").events, "dnd5e")["mira"] == (
        "upright",
        5,
    )
