"""Improved Initiative: autosaves and the export data file, in the shapes of release 3.11.8
(tests/data/importers/improved_initiative_fixtures.py, a port of its logic), become the fight
Improved Initiative showed."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import (
    Amend,
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
        # joined when the encounter starts, with the names it shows then
        ("joined", "grim-pc", "Grim", "pc", "players", "{'hp': 12}"),  # StatBlock.HP.Value
        ("joined", "k2gob", "Goblin 1", "monster", "monsters", "{'hp': 7}"),
        ("joined", "k3gob", "Goblin 2", "monster", "monsters", "{'hp': 7}"),
        ("turn_started", "grim-pc", "1"),
        ("heal", "grim-pc", "3", "temporary"),
        ("hit", "k2gob", "7"),
        ("turn_ended", "grim-pc", "1"),
        ("turn_started", "k2gob", "1"),  # Improved Initiative does not skip the fallen
        ("turn_ended", "k2gob", "1"),
        ("turn_started", "k3gob", "1"),
        ("hit", "grim-pc", "5"),  # 3 off temporary HP, 2 off HP: one blow
        ("turn_ended", "k3gob", "1"),
        ("turn_ended", "round", "1"),  # the lair action's turn ticks nobody
        ("turn_started", "grim-pc", "2"),
        ("hit", "k3gob", "4"),
        ("turn_ended", "grim-pc", "2"),
        ("turn_started", "k2gob", "2"),
        ("turn_ended", "k2gob", "2"),
        ("turn_started", "k3gob", "2"),
        ("hit", "grim-pc", "9"),
        ("heal", "grim-pc", "3", ""),  # corrected after going back a turn
        ("joined", "k5gob", "Goblin 3", "monster", "monsters", "{'hp': 7}"),
        ("turn_ended", "k3gob", "2"),
        ("turn_started", "k5gob", "2"),
        ("turn_ended", "k5gob", "2"),
        ("turn_ended", "round", "2"),
        ("turn_started", "grim-pc", "3"),
        ("turn_ended", "grim-pc", "3"),
        ("turn_started", "k3gob", "3"),
        ("hit", "grim-pc", "4"),  # 8 on 4 HP: kept at 0 (AllowNegativeHP off)
        ("turn_ended", "k3gob", "3"),
        ("turn_started", "k5gob", "3"),
        ("turn_ended", "k5gob", "3"),
        ("turn_ended", "round", "3"),
        ("turn_started", "grim-pc", "4"),
        ("heal", "grim-pc", "4", ""),
        ("turn_ended", "grim-pc", "4"),  # his turn passes before he is removed
        ("turn_started", "k3gob", "4"),
    ]
    assert converted.warnings == [
        "Lair Action (k4lair) has no hit points in Improved Initiative (StatBlock.HP.Value 0): "
        "not tracked"
    ]


def test_the_fight_in_dnd5e_ends_as_improved_initiative_shows_it() -> None:
    events = convert_records(FMT, SAVES, ruleset="dnd5e").events
    final = states(events, "dnd5e")
    last = {c["Id"]: c for c in SAVES[-1]["Combatants"]}
    assert final == {
        "grim-pc": ("upright", last["k6grim"]["CurrentHP"]),  # 4: dropped, then a potion
        "k2gob": ("dead", 0),  # a monster at 0 (removed from the board since)
        "k3gob": ("upright", last["k3gob"]["CurrentHP"]),
        "k5gob": ("upright", last["k5gob"]["CurrentHP"]),
    }


def test_the_same_autosaves_in_d26_map_hp_and_npc_kind_and_drop_temporary_hp() -> None:
    events = convert_records(FMT, SAVES, ruleset="d26").events
    kinds = [(e.character, e.kind) for e in events if isinstance(e, CharacterJoined)]
    assert kinds == [("grim-pc", "pc"), ("k2gob", "npc"), ("k3gob", "npc"), ("k5gob", "npc")]
    hits = [(e.target, e.damage) for e in events if isinstance(e, Hit)]
    assert hits == [("k2gob", 7), ("grim-pc", 2), ("k3gob", 4), ("grim-pc", 9), ("grim-pc", 4)]
    assert not any(isinstance(e, Heal) and e.means == "temporary" for e in events)
    assert states(events, "d26")["k5gob"] == ("upright", 7)


def at(state: dict[str, Any], cid: str) -> dict[str, Any]:
    combatant: dict[str, Any] = next(c for c in state["Combatants"] if c["Id"] == cid)
    return combatant


GONE_BACK = next(
    i for i, s in enumerate(SAVES) if s["ActiveCombatantId"] == "k2gob" and s["RoundCounter"] == 2
    and at(s, "k1grim")["CurrentHP"] == 4
)  # fmt: skip
"""The autosave of the HP corrected after the GM went back from Goblin 2's turn to Goblin 1's
(EncounterFlow.ts `PreviousTurn`)."""


def test_hp_corrected_after_going_back_a_turn_is_followed() -> None:
    """Improved Initiative's HP is a fact of the table, in whichever turn the GM corrected it."""
    converted = convert_records(FMT, SAVES[: GONE_BACK + 1], ruleset="dnd5e")
    log: list[Event] = [FightStarted(ruleset="dnd5e", seed=1), *converted.events]
    *_, (state, _) = replay(log, strict=True)
    grim = next(c for c in state.characters.values() if c.name == "Grim")
    assert (grim.state, grim.hp) == ("upright", 4)  # type: ignore[attr-defined]  # 10 - 9 + 3
    assert not [w for w in converted.warnings if "older" in w or "skipped" in w]


def test_going_back_a_turn_and_on_again_ticks_no_turn_twice() -> None:
    events = convert_records(FMT, SAVES, ruleset="dnd5e").events
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids))
    round_2 = [r for r in rows(events) if r[0].startswith("turn") and r[2] == "2"]
    assert round_2 == [
        ("turn_started", "grim-pc", "2"),
        ("turn_ended", "grim-pc", "2"),
        ("turn_started", "k2gob", "2"),
        ("turn_ended", "k2gob", "2"),
        ("turn_started", "k3gob", "2"),
        ("turn_ended", "k3gob", "2"),
        ("turn_started", "k5gob", "2"),
        ("turn_ended", "k5gob", "2"),
        ("turn_ended", "round", "2"),
    ]


WRAP = next(
    i for i, s in enumerate(SAVES) if s["RoundCounter"] == 2 and s["ActiveCombatantId"] == "k4lair"
)  # fmt: skip
"""The autosave `NextTurn` writes past the last combatant after `IncrementCombatRounds()` and
before `ActiveCombatant(next)`: round 2, the lair action's turn still."""


def test_the_round_counter_moving_before_the_turn_ticks_nothing_ahead() -> None:
    converted = convert_records(FMT, SAVES[: WRAP + 1], ruleset="dnd5e")
    assert not [r for r in rows(converted.events) if r[0].startswith("turn") and r[2] == "2"]
    then = convert_records(
        FMT, SAVES[WRAP + 1 : WRAP + 4], ruleset="dnd5e",
        joined=["grim-pc", "k2gob", "k3gob"], previous=converted.previous,
    )  # fmt: skip
    assert rows(then.events) == [
        ("turn_ended", "round", "1"),
        ("turn_started", "grim-pc", "2"),
        ("hit", "k3gob", "4"),  # in Grim's turn, not after the whole of round 2
    ]


def names(state: dict[str, Any]) -> list[str]:
    """The names of those one state joins."""
    events = convert_records(FMT, [state], ruleset="dnd5e").events
    return [e.name for e in events if isinstance(e, CharacterJoined)]


def test_a_lone_combatant_alone_of_its_name_since_another_left_keeps_its_label() -> None:
    """Goblin 1 removed, Goblin 2 stays "Goblin 2" (the name's count drops with the last)."""
    state = copy.deepcopy(SAVES[GONE_BACK + 3])
    assert [c["Id"] for c in state["Combatants"]] == ["k1grim", "k3gob", "k4lair"]
    assert names(state) == ["Grim", "Goblin 2"]


def test_a_persistent_character_removed_and_added_back_is_one_character() -> None:
    converted = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert "k6grim" not in {e.id.split(":")[1] for e in converted.events if e.id}
    assert [e.character for e in converted.events if isinstance(e, CharacterJoined)].count(
        "grim-pc"
    ) == 1


def test_a_state_far_past_the_last_one_walks_no_turns_and_says_so() -> None:
    first = convert_records(FMT, SAVES[:WRAP], ruleset="dnd5e")
    far = copy.deepcopy(SAVES[WRAP + 2])
    far["RoundCounter"] = 5000
    jumped = convert_records(
        FMT, [far], ruleset="dnd5e", joined=["grim-pc", "k2gob", "k3gob"], previous=first.previous
    )
    assert [r for r in rows(jumped.events) if r[0].startswith("turn")] == [
        ("turn_started", "grim-pc", "5000")
    ]
    assert any("rounds past the last one taken in" in w for w in jumped.warnings)


def test_the_export_data_file_reads_its_autosave_json_text() -> None:
    converted = convert_records(FMT, [EXPORT], ruleset="dnd5e")
    assert rows(converted.events) == [
        ("joined", "grim-pc", "Grim", "pc", "players", "{'hp': 12}"),
        ("hit", "grim-pc", "8"),  # at 4 when the file was exported
        ("joined", "k3gob", "Goblin 2", "monster", "monsters", "{'hp': 7}"),
        ("hit", "k3gob", "4"),
        ("joined", "k5gob", "Goblin 3", "monster", "monsters", "{'hp': 7}"),
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
    state = copy.deepcopy(SAVES[WRAP - 10])
    assert state["ActiveCombatantId"] is not None  # the encounter has started: all join
    state["Combatants"][0]["Alias"] = "Grim the Bold"
    del state["Combatants"][2]  # one goblin left, labelled 1: no "Goblin 1"
    assert names(state) == ["Grim the Bold", "Goblin"]


def test_a_stat_block_player_other_than_player_is_a_monster() -> None:
    state = copy.deepcopy(SAVES[WRAP - 10])
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


def test_an_autosave_sent_again_later_deals_no_damage_again() -> None:
    # two autosaves of round 1 (Grim hit) arrive again in round 2: taken in already, skipped
    first = convert_records(FMT, SAVES[:40], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    late = convert_records(
        FMT, [SAVES[21], SAVES[15]], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert late.events == []
    assert len([w for w in late.warnings if "taken in already" in w]) == 2
    rest = convert_records(FMT, SAVES[40:], ruleset="dnd5e", joined=joined, previous=late.previous)
    whole = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert first.events + rest.events == whole.events


def test_a_turn_jump_over_lost_autosaves_ends_and_starts_every_turn_crossed() -> None:
    # from round 1, Grim's turn straight to round 2, Goblin 1's turn
    start = next(i for i, s in enumerate(SAVES) if s["ActiveCombatantId"] == "k1grim")
    converted = convert_records(FMT, [SAVES[start], SAVES[WRAP + 4]], ruleset="dnd5e")
    turns = [r for r in rows(converted.events) if r[0].startswith("turn")]
    assert turns == [
        ("turn_ended", "grim-pc", "1"),
        ("turn_started", "k2gob", "1"),
        ("turn_ended", "k2gob", "1"),
        ("turn_started", "k3gob", "1"),
        ("turn_ended", "k3gob", "1"),
        ("turn_ended", "round", "1"),
        ("turn_started", "grim-pc", "2"),
        ("turn_ended", "grim-pc", "2"),
        ("turn_started", "k2gob", "2"),
    ]
    # and the turn events are those of the step-by-step import: a later resend is a no-op
    whole = {e.id for e in convert_records(FMT, SAVES, ruleset="dnd5e").events}
    assert {e.id for e in converted.events if isinstance(e, TurnStarted | TurnEnded)} <= whole


def test_already_joined_combatants_without_cursor_are_reported_not_compared() -> None:
    converted = convert_records(
        FMT, [EXPORT], ruleset="dnd5e", joined=["grim-pc", "k3gob", "k5gob"]
    )
    assert converted.events == []
    assert any("Grim 4/12 HP" in w and "no cursor" in w for w in converted.warnings)


def test_a_bad_cursor_is_refused() -> None:
    with pytest.raises(StructuralError, match="not a cursor") as caught:
        convert_records(FMT, SAVES, ruleset="dnd5e", previous={"key": 3})
    assert caught.value.field == "previous"


def two_states(before: tuple[int, int], now: tuple[int, int]) -> list[Any]:
    """Grim's (CurrentHP, TemporaryHP) in two autosaves of the same turn."""
    first, second = copy.deepcopy(SAVES[WRAP - 10]), copy.deepcopy(SAVES[WRAP - 10])
    for state, (hp, temp), seconds in ((first, before, 1), (second, now, 2)):
        state["Combatants"][0].update(CurrentHP=hp, TemporaryHP=temp)
        state["ElapsedSeconds"] = seconds
    return [first, second]


@pytest.mark.parametrize(
    ("before", "now", "made"),
    [
        ((12, 5), (12, 2), [("hit", "grim-pc", "3")]),  # temporary HP alone absorbed a blow
        ((12, 5), (9, 0), [("hit", "grim-pc", "8")]),  # through temporary HP into HP
        ((12, 0), (9, 4), [("hit", "grim-pc", "3"), ("heal", "grim-pc", "4", "temporary")]),
        ((9, 3), (12, 3), [("heal", "grim-pc", "3", "")]),
        ((12, 2), (12, 6), [("heal", "grim-pc", "6", "temporary")]),  # the higher stands
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
    grim = state.characters["grim-pc"]
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


def fixtures() -> Any:
    """tests/data/importers/improved_initiative_fixtures.py, the port that wrote the files."""
    path = DATA / "improved_initiative_fixtures.py"
    spec = importlib.util.spec_from_file_location("improved_initiative_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lines_run(work: Callable[[], object]) -> int:
    """Python lines executed by `work` (sys.settrace): its work, counted, never timed."""
    count = [0]

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            count[0] += 1
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return count[0]


def test_the_importer_works_in_proportion_to_the_autosaves() -> None:
    """Four times the autosaves (of a fight of one length, with as many seen before) cost
    about four times the work: no state is compared with every state before it."""
    port = fixtures()
    work = {}
    for turns in (100, 400):
        saves = port.long_fight(turns)
        first = convert_records(FMT, saves, ruleset="dnd5e")
        joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]

        def both(saves: list[Any] = saves, first: Any = first, joined: list[str] = joined) -> None:
            convert_records(FMT, saves, ruleset="dnd5e")  # every state taken in
            convert_records(FMT, saves, ruleset="dnd5e", joined=joined, previous=first.previous)

        work[turns] = lines_run(both), len(saves)
    (small, small_saves), (large, large_saves) = work[100], work[400]
    assert large_saves > 3.8 * small_saves
    # per autosave, the work stays flat (quadratic: about four times as much per autosave)
    assert large / large_saves < 1.25 * small / small_saves, work


def test_a_cursor_kept_by_an_earlier_woundlog_is_still_read() -> None:
    """Before the states seen were kept, the cursor was the last state's alone."""
    first = convert_records(FMT, SAVES[:30], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    bare = first.previous["last"]
    rest = convert_records(FMT, SAVES[29:], ruleset="dnd5e", joined=joined, previous=bare)
    whole = convert_records(FMT, SAVES, ruleset="dnd5e")
    assert first.events + rest.events == whole.events
    assert any("the same as the last one taken in" in w for w in rest.warnings)


def test_a_state_before_the_start_says_who_joins_when_it_starts() -> None:
    before = next(i for i, s in enumerate(SAVES) if s["RoundCounter"] == 1) - 1
    converted = convert_records(FMT, SAVES[: before + 1], ruleset="dnd5e")
    assert converted.events == []
    assert converted.warnings[-1] == (
        "the encounter has not started in Improved Initiative: Grim, Goblin 1, Goblin 2 join "
        "when it starts, with the names it shows then"
    )
    started = convert_records(FMT, SAVES, ruleset="dnd5e", previous=converted.previous)
    assert [e.name for e in started.events if isinstance(e, CharacterJoined)][:3] == [
        "Grim", "Goblin 1", "Goblin 2"
    ]  # fmt: skip


def test_a_name_improved_initiative_changes_mid_fight_changes_in_the_fight(
    tmp_path: Path,
) -> None:
    """A lone "Goblin" becomes "Goblin 1" when a second is added (UpdateIndexLabel), and a
    goblin given an alias takes it (SetAlias): the join is amended, once, however often the
    autosaves are sent."""
    port = fixtures()
    table = port.Tracker()
    table.add("k1grim", port.GRIM, initiative=17, persistent="grim-pc")
    goblin = table.add("k2gob", port.GOBLIN, initiative=14)
    table.start()
    table.damage(goblin, 3)
    table.add("k3gob", port.GOBLIN, initiative=12)  # reinforcements
    table.next_turn()
    table.rename(goblin, "Snaga")
    store = SQLiteStore(tmp_path / "fights.db")
    try:
        fight = Fight.create(store, "f", FightStarted(ruleset="dnd5e", seed=3))
        converted = convert_records(FMT, table.saves, ruleset="dnd5e")
        fight.append(converted.events)
        names = {cid: c.name for cid, c in fight.state().characters.items()}
        assert names == {"grim-pc": "Grim", "k2gob": "Snaga", "k3gob": "Goblin 2"}
        assert fight.state().characters["k2gob"].hp == 4  # type: ignore[attr-defined]
        amends = [e for e in converted.events if isinstance(e, Amend)]
        assert [e.replacement.name for e in amends] == ["Goblin 1", "Snaga"]  # type: ignore[union-attr]
        again = convert_records(
            FMT, table.saves, ruleset="dnd5e", joined=list(names), previous=converted.previous
        )
        assert again.events == []
        resent = convert_records(FMT, table.saves, ruleset="dnd5e")  # no cursor: same ids
        assert fight.append(resent.events).changes == []
    finally:
        store.close()


def test_a_player_dead_by_the_tables_saves_and_healed_in_improved_initiative_is_revived(
    tmp_path: Path,
) -> None:
    """Improved Initiative has no death saves (Combatant.ts: HP, temporary HP, tags): Grim at 0
    HP is dying there until healed. The table's saves, recorded in woundlog, kill him; the GM
    heals him 5 in Improved Initiative (`ApplyHealing`). The fight an import makes allows
    revivals, and the heal is written as one: he ends upright at 5, as the tracker shows."""
    from woundlog.events import Check
    from woundlog.events.importers import IMPORTERS, append_importing

    port = fixtures()
    table = port.Tracker()
    grim = table.add("k1grim", port.GRIM, initiative=17, persistent="grim-pc")
    table.add("k2gob", port.GOBLIN, initiative=14)
    table.start()
    table.damage(grim, 12)
    at_zero = len(table.saves)
    table.next_turn()
    table.heal(grim, 5)
    store = SQLiteStore(tmp_path / "fights.db")
    try:
        options = IMPORTERS[FMT].fight_options("dnd5e")
        fight = Fight.create(store, "f", FightStarted(ruleset="dnd5e", options=options))
        first = convert_records(FMT, table.saves[:at_zero], ruleset="dnd5e")
        append_importing(first, fight.append)
        fight.append(
            [
                Check(
                    id=f"save{n}",
                    character="grim-pc",
                    check="death_save",
                    rolls={"death_save": [d]},
                )
                for n, d in enumerate((1, 2))
            ]
        )
        assert fight.state().characters["grim-pc"].state == "dead"
        rest = convert_records(
            FMT,
            table.saves[at_zero:],
            ruleset="dnd5e",
            joined=list(fight.state().characters),
            previous=first.previous,
        )
        _, refused = append_importing(rest, fight.append)
        assert [r.instead for r in refused] == [f"{r.event}:revival" for r in refused] != []
        grim_now = fight.state().characters["grim-pc"]
        assert (grim_now.state, grim_now.hp) == ("upright", 5)  # type: ignore[attr-defined]
    finally:
        store.close()


# --- a combatant Improved Initiative never labels, and one being added at the end -------------


def test_a_combatant_whose_index_label_stays_0_in_every_state_joins() -> None:
    """A stat block taken with its `Name` null (an encounter imported as another program wrote
    it): Combatant.ts `UpdateIndexLabel` returns at `name == oldName` (null == undefined), so
    its `IndexLabel` stays 0 in every autosave. It is no combatant being added: it joins, is
    hurt and takes its turns like anyone."""
    port = fixtures()
    table = port.Tracker()
    table.add("k1grim", port.GRIM, initiative=17, persistent="grim-pc")
    nameless = table.add("k9ghost", {**port.GOBLIN, "Name": None}, initiative=14)
    table.start()
    table.damage(nameless, 3)
    table.next_turn()
    labels = {c["IndexLabel"] for s in table.saves for c in s["Combatants"] if c["Id"] == "k9ghost"}
    assert labels == {0}
    converted = convert_records(FMT, table.saves, ruleset="dnd5e")
    joined = {e.character: e.name for e in converted.events if isinstance(e, CharacterJoined)}
    assert joined == {"grim-pc": "Grim", "k9ghost": "k9ghost"}  # no name: its id
    assert states(converted.events, "dnd5e")["k9ghost"] == ("upright", 4)
    assert ("turn_started", "k9ghost", "1") in rows(converted.events)


def test_a_combatant_being_added_in_the_last_state_of_the_records_is_named() -> None:
    """The records end with the autosave `AddCombatantFromState` writes before it labels the new
    goblin: it is named in a warning, and joins with the next state imported."""
    port = fixtures()
    table = port.Tracker()
    table.add("k1grim", port.GRIM, initiative=17, persistent="grim-pc")
    table.add("k2gob", port.GOBLIN, initiative=14)
    table.start()
    table.add("k3gob", port.GOBLIN, initiative=12)
    push = next(n for n, s in enumerate(table.saves) if len(s["Combatants"]) == 3)
    assert table.saves[push]["Combatants"][-1]["IndexLabel"] == 0
    first = convert_records(FMT, table.saves[: push + 1], ruleset="dnd5e")
    assert not any(isinstance(e, CharacterJoined) and e.character == "k3gob" for e in first.events)
    assert any(w.startswith("Goblin (k3gob) is being added") for w in first.warnings)
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    rest = convert_records(
        FMT, table.saves[push + 1 :], ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert [e.name for e in rest.events if isinstance(e, CharacterJoined)] == ["Goblin 2"]
    whole = convert_records(FMT, table.saves, ruleset="dnd5e")
    assert first.events + rest.events == whole.events
