"""Improved Initiative: autosaves and the export data file, in the shapes of release 3.11.8
(tests/data/importers/make_fixtures.py), become the fight Improved Initiative showed."""

from __future__ import annotations

import copy
import json
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
    type_name,
)
from woundlog.events.importers import convert_records
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight, replay

DATA = Path(__file__).parent.parent / "data" / "importers"
SAVES: list[Any] = json.loads((DATA / "improved_initiative_autosaves.json").read_text())
EXPORT: dict[str, Any] = json.loads((DATA / "improved_initiative_export.json").read_text())
FMT = "improved-initiative"


def rows(events: list[Event]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for e in events:
        if isinstance(e, CharacterJoined):
            out.append(("joined", e.character, e.name, e.kind, e.side, str(e.stats)))
        elif isinstance(e, Hit):
            out.append(("hit", e.target, str(e.damage)))
        elif isinstance(e, Heal):
            out.append(("heal", e.target, str(e.amount), e.means or ""))
        elif isinstance(e, TurnStarted | TurnEnded):
            out.append((type_name(e), e.character or "round", str(e.round)))
    return out


def states(events: list[Event], ruleset: str, seed: int = 1) -> dict[str, tuple[Any, ...]]:
    log: list[Event] = [FightStarted(ruleset=ruleset, seed=seed), *events]
    *_, (state, _) = replay(log, strict=True)
    return {cid: (c.state, c.hp) for cid, c in state.characters.items()}  # type: ignore[attr-defined]


def test_autosaves_become_joins_hits_temporary_hp_and_every_turn_in_order() -> None:
    converted = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert rows(converted.events) == [
        ("joined", "grim", "Grim", "pc", "players", "{'hp': 12}"),  # StatBlock.HP.Value
        ("joined", "gob1", "Goblin 1", "monster", "monsters", "{'hp': 7}"),  # names collide
        ("joined", "gob2", "Goblin 2", "monster", "monsters", "{'hp': 7}"),
        ("turn_started", "grim", "1"),
        ("heal", "grim", "3", "temporary"),
        ("hit", "gob1", "7"),
        ("turn_ended", "grim", "1"),
        ("turn_started", "gob1", "1"),
        ("turn_ended", "gob1", "1"),
        ("turn_started", "gob2", "1"),
        ("hit", "grim", "5"),  # 3 off temporary HP, 2 off HP
        ("turn_ended", "gob2", "1"),
        ("turn_ended", "round", "1"),  # the lair action's turn ticks nobody
        ("turn_started", "grim", "2"),
        ("turn_ended", "grim", "2"),
        ("turn_started", "gob1", "2"),
        ("turn_ended", "gob1", "2"),
        ("turn_started", "gob2", "2"),
        ("hit", "grim", "10"),
        ("turn_ended", "gob2", "2"),
        ("turn_ended", "round", "2"),
        ("turn_started", "grim", "3"),
    ]


def test_a_combatant_without_hit_points_is_reported_once_and_not_tracked() -> None:
    converted = convert_records(FMT, SAVES, ruleset="dnd5e")
    lair = [w for w in converted.warnings if "Lair Action" in w]
    assert lair == [
        "Lair Action (lair) has no hit points in Improved Initiative (StatBlock.HP.Value 0): "
        "not tracked"
    ]
    assert "lair" not in {getattr(e, "character", None) for e in converted.events}


def test_the_fight_in_dnd5e_has_the_goblin_dead_and_grim_dying_then_saving() -> None:
    events = convert_records(FMT, SAVES, ruleset="dnd5e").events
    final = states(events, "dnd5e")
    assert final["gob1"] == ("dead", 0)  # a monster at 0
    assert final["gob2"] == ("upright", 7)
    assert final["grim"][1] == 0 and final["grim"][0] in ("downed", "stabilised", "upright")


def test_the_same_autosaves_in_d26_map_hp_and_npc_kind_and_drop_temporary_hp() -> None:
    events = convert_records(FMT, SAVES, ruleset="d26").events
    kinds = [(e.character, e.kind) for e in events if isinstance(e, CharacterJoined)]
    assert kinds == [("grim", "pc"), ("gob1", "npc"), ("gob2", "npc")]
    hits = [(e.target, e.damage) for e in events if isinstance(e, Hit)]
    assert hits == [("gob1", 7), ("grim", 2), ("grim", 10)]  # only CurrentHP counts
    assert not any(isinstance(e, Heal) for e in events)
    replayed = states(events, "d26")
    assert replayed["gob2"] == ("upright", 7)


def test_going_back_a_turn_takes_nothing_in_and_is_reported() -> None:
    converted = convert_records(FMT, SAVES, ruleset="dnd5e")
    back = [w for w in converted.warnings if "older than the last one" in w]
    assert len(back) == 2  # the step back, and the step on whose turn timer restarted
    assert "round 2, Goblin 1's turn, 0 s into it" in back[0]


def test_the_export_data_file_reads_its_autosave_json_text() -> None:
    converted = convert_records(FMT, [EXPORT], ruleset="dnd5e")
    assert rows(converted.events) == [
        ("joined", "grim", "Grim", "pc", "players", "{'hp': 12}"),
        ("hit", "grim", "12"),  # down when the file was exported
        ("joined", "gob1", "Goblin 1", "monster", "monsters", "{'hp': 7}"),
        ("hit", "gob1", "7"),
        ("joined", "gob2", "Goblin 2", "monster", "monsters", "{'hp': 7}"),
    ]
    # the same state given directly makes the same events
    direct = convert_records(
        FMT, [json.loads(EXPORT["ImprovedInitiative.AutoSavedEncounters.default"])], ruleset="dnd5e"
    )
    assert direct.events == converted.events


def test_an_export_file_without_autosave_says_what_it_holds() -> None:
    library = {k: v for k, v in EXPORT.items() if "AutoSaved" not in k}
    with pytest.raises(StructuralError, match="holds no autosaved encounter") as caught:
        convert_records(FMT, [library], ruleset="dnd5e")
    assert caught.value.field == '$["ImprovedInitiative.AutoSavedEncounters.default"]'


def test_a_malformed_autosave_inside_the_export_names_the_field() -> None:
    broken = dict(EXPORT)
    state = json.loads(broken["ImprovedInitiative.AutoSavedEncounters.default"])
    state["Combatants"][1]["CurrentHP"] = "seven"
    broken["ImprovedInitiative.AutoSavedEncounters.default"] = json.dumps(state)
    with pytest.raises(StructuralError, match="Expected `int`") as caught:
        convert_records(FMT, [broken], ruleset="dnd5e")
    assert caught.value.field == (
        '$["ImprovedInitiative.AutoSavedEncounters.default"].Combatants[1].CurrentHP'
    )


def test_a_record_of_neither_shape_is_refused_naming_both() -> None:
    with pytest.raises(StructuralError, match="neither an Improved Initiative autosave"):
        convert_records(FMT, [{"Name": "Goblin"}], ruleset="dnd5e")


def test_an_alias_names_the_combatant_and_a_lone_name_takes_no_label() -> None:
    state = copy.deepcopy(SAVES[0])
    state["Combatants"][0]["Alias"] = "Grim the Bold"
    del state["Combatants"][2]  # one goblin left: no "Goblin 1"
    joined = [
        e.name
        for e in convert_records(FMT, [state], ruleset="dnd5e").events
        if isinstance(e, CharacterJoined)
    ]
    assert joined == ["Grim the Bold", "Goblin"]


def test_a_stat_block_player_other_than_player_is_a_monster() -> None:
    state = copy.deepcopy(SAVES[0])
    state["Combatants"][1]["StatBlock"]["Player"] = "npc"
    joined = [
        e
        for e in convert_records(FMT, [state], ruleset="dnd5e").events
        if isinstance(e, CharacterJoined)
    ]
    assert joined[1].kind == "monster"


def test_reimporting_with_the_cursor_or_resending_makes_nothing() -> None:
    first = convert_records(FMT, SAVES, ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    again = convert_records(
        FMT, SAVES[-3:], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert again.events == []
    assert any("the same as the last one" in w for w in again.warnings)
    assert again.previous == first.previous


def test_reimporting_without_cursor_makes_the_same_ids() -> None:
    once = convert_records(FMT, SAVES, ruleset="dnd5e")
    twice = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert once.events == twice.events


def test_a_late_autosave_deals_no_damage_again() -> None:
    # 6 (Grim hit) arrives again after 8 (round 2): older, skipped; then 9 goes on
    first = convert_records(FMT, SAVES[:9], ruleset="dnd5e")
    joined = ["grim", "gob1", "gob2"]
    late = convert_records(
        FMT, [SAVES[6], SAVES[5]], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert late.events == []
    assert len([w for w in late.warnings if "older" in w]) == 2
    rest = convert_records(FMT, SAVES[9:], ruleset="dnd5e", joined=joined, previous=late.previous)
    whole = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert first.events + rest.events == whole.events


def test_a_turn_jump_over_lost_autosaves_ends_and_starts_every_turn_crossed() -> None:
    # from round 1, Grim's turn (3) straight to round 2, Goblin 1's turn (9)
    converted = convert_records(FMT, [SAVES[3], SAVES[9]], ruleset="dnd5e")
    turns = [r for r in rows(converted.events) if r[0].startswith("turn")]
    assert turns == [
        ("turn_ended", "grim", "1"),
        ("turn_started", "gob1", "1"),
        ("turn_ended", "gob1", "1"),
        ("turn_started", "gob2", "1"),
        ("turn_ended", "gob2", "1"),
        ("turn_ended", "round", "1"),
        ("turn_started", "grim", "2"),
        ("turn_ended", "grim", "2"),
        ("turn_started", "gob1", "2"),
    ]
    # and the turn events are those of the step-by-step import: a later resend is a no-op
    whole = {e.id for e in convert_records(FMT, SAVES, ruleset="dnd5e").events}
    assert {e.id for e in converted.events if isinstance(e, TurnStarted | TurnEnded)} <= whole


def test_already_joined_combatants_without_cursor_are_reported_not_compared() -> None:
    converted = convert_records(FMT, [EXPORT], ruleset="dnd5e", joined=["grim", "gob1", "gob2"])
    assert converted.events == []
    assert any("Grim 0/12 HP" in w and "no cursor" in w for w in converted.warnings)


def test_a_bad_cursor_is_refused() -> None:
    with pytest.raises(StructuralError, match="not a cursor") as caught:
        convert_records(FMT, SAVES, ruleset="dnd5e", previous={"key": 3})
    assert caught.value.field == "previous"


def two_states(before: tuple[int, int], now: tuple[int, int]) -> list[Any]:
    """Grim's (CurrentHP, TemporaryHP) in two autosaves of the same turn."""
    first, second = copy.deepcopy(SAVES[1]), copy.deepcopy(SAVES[1])
    for state, (hp, temp), seconds in ((first, before, 1), (second, now, 2)):
        state["Combatants"][0].update(CurrentHP=hp, TemporaryHP=temp)
        state["ElapsedSeconds"] = seconds
    return [first, second]


@pytest.mark.parametrize(
    ("before", "now", "made"),
    [
        ((12, 5), (12, 2), [("hit", "grim", "3")]),  # temporary HP alone absorbed a blow
        ((12, 5), (9, 0), [("hit", "grim", "8")]),  # through temporary HP into HP
        ((12, 0), (9, 4), [("hit", "grim", "3"), ("heal", "grim", "4", "temporary")]),
        ((9, 3), (12, 3), [("heal", "grim", "3", "")]),
        ((12, 2), (12, 6), [("heal", "grim", "6", "temporary")]),  # the higher stands
    ],
)
def test_hp_and_temporary_hp_changes_in_dnd5e(
    before: tuple[int, int], now: tuple[int, int], made: list[tuple[str, ...]]
) -> None:
    converted = convert_records(FMT, two_states(before, now), ruleset="dnd5e")
    changes = [r for r in rows(converted.events) if r[0] in ("hit", "heal")]
    if before[0] < 12:
        changes = changes[1:]  # the hurt of the first sight
    if before[1]:
        changes = changes[1:]  # and its temporary hit points
    assert changes == made
    # the fight ends as Improved Initiative shows it
    log: list[Event] = [FightStarted(ruleset="dnd5e"), *converted.events]
    *_, (state, _) = replay(log, strict=True)
    grim = state.characters["grim"]
    assert (grim.hp, grim.temp_hp) == now  # type: ignore[attr-defined]


def test_the_cursor_is_json() -> None:
    converted = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert json.loads(json.dumps(converted.previous)) == converted.previous


def test_importing_again_into_a_real_fight_is_a_no_op(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "fights.db")
    try:
        fight = Fight.create(store, "f", FightStarted(ruleset="dnd5e", seed=3))
        first = fight.append(convert_records(FMT, SAVES, ruleset="dnd5e").events)
        before = fight.state()
        again = convert_records(FMT, SAVES, ruleset="dnd5e", joined=list(before.characters))
        assert fight.append(again.events).changes == []
        third = fight.append(convert_records(FMT, SAVES, ruleset="dnd5e").events)
        assert third.version == first.version and fight.state() == before
    finally:
        store.close()
