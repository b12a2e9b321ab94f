"""Each contractor rule, with the dice given, as the rule text and the docstring state it."""

from __future__ import annotations

import inspect
from importlib.resources import files
from pathlib import Path
from typing import Any

import msgspec
import pytest

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.core.permanence import Injury, Record
from woundlog.core.rulesets import contractor
from woundlog.events import (
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnEnded,
    TurnStarted,
    decode_json,
)
from woundlog.events.campaign import Treatment
from woundlog.replays import replay, replay_file

VEX_GEAR = {"weapon_arm": "Coil Rifle", "shield_arm": "Riot Shield", "pack": "Salvage Pack"}


def started(tables: dict[str, Any] | None = None, **options: bool) -> FightState[Any]:
    state, _ = apply(
        None, FightStarted(ruleset="contractor", options=dict(options), tables=tables or {})
    )
    return state


def fight(
    *events: Event,
    constitution: int = 14,
    ap: int = 0,
    tables: dict[str, Any] | None = None,
    options: dict[str, bool] | None = None,
) -> FightState[Any]:
    """Cinder (no gear, Dexterity 12) and Vex (gear in every slot that covers a location)."""
    state = started(tables, **(options or {}))
    for event in (
        CharacterJoined(
            character="cinder",
            name="Cinder",
            side="crew",
            stats={"constitution": constitution, "ap": ap, "dexterity": 12},
        ),
        CharacterJoined(
            character="vex", name="Vex", side="crew", stats={"constitution": 12}, gear=VEX_GEAR
        ),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def to_zero(
    roll: int | None, target: str = "cinder", *, id: str | None = None, **facts: Any
) -> Hit:
    """A hit far past 0 HP, its wound die given."""
    rolls = {"wound": [roll]} if roll is not None else {}
    return Hit(id=id, target=target, damage=99, rolls=rolls, **facts)


def treat(wound: str, means: str = "mend", target: str = "cinder", amount: int = 0) -> Heal:
    return Heal(target=target, amount=amount, means=means, wound=wound)


def cinder(state: FightState[Any]) -> Any:
    return state.characters["cinder"]


def vex(state: FightState[Any]) -> Any:
    return state.characters["vex"]


def refused(state: FightState[Any], event: Event, match: str, field: str | None = None) -> None:
    with pytest.raises(RuleError, match=match) as err:
        apply(state, event)
    if field is not None:
        assert err.value.field == field


# --- the worked example -------------------------------------------------------------------------


def test_cinders_fracture_replays_exactly_as_the_worked_example() -> None:
    state = fight(to_zero(37, id="h1"))
    wounded = cinder(state)
    (wound,) = wounded.injuries
    assert (wound.type, wound.location) == ("Fracture", "weapon_arm")
    assert wounded.wound_counter == 1
    assert wounded.constitution == 10 and wounded.max_hp == 10
    assert wounded.penalties == {"dexterity": -2}
    assert "disadvantage on skill checks" in wound.effect
    assert wounded.state == "upright"  # she keeps acting: a Fracture does not prevent it

    treated = cinder(apply(state, treat("h1"))[0])
    assert treated.wound_counter == 0
    assert treated.constitution == 14 and treated.max_hp == 14
    assert treated.penalties == {}
    assert treated.injuries == ()
    assert treated.stats == {"constitution": 14, "ap": 0, "motivation": 0, "dexterity": 12}


def test_cinders_fracture_says_what_each_layer_did() -> None:
    _, changes = apply(fight(), to_zero(37))
    assert "wound roll 37: Fracture to location 7, weapon arm" in changes.explanation
    assert "Constitution 14 -> 10, dexterity -2" in changes.explanation
    (change,) = changes.characters
    assert change.counters["constitution"] == (14, 10)
    assert change.counters["penalties.dexterity"] == (None, -2)
    assert [w.id for w in change.injuries] == ["#4"]


# --- flat damage, AP, HP ------------------------------------------------------------------------


def test_flat_damage_comes_off_current_hp_not_constitution() -> None:
    state, changes = apply(fight(), Hit(target="cinder", damage=5))
    assert cinder(state).hp == 9
    assert cinder(state).constitution == 14
    assert changes.dice == []


def test_ap_reduces_damage() -> None:
    state = fight(Hit(target="cinder", damage=5), ap=2)
    assert cinder(state).hp == 11


def test_ap_never_turns_a_hit_into_healing_and_a_hit_it_stops_does_nothing() -> None:
    state, changes = apply(fight(ap=3), Hit(target="cinder", damage=2))
    assert cinder(state).hp == 14
    assert changes.characters == []


def test_a_hit_that_ap_stops_whole_says_so() -> None:
    """Damage 2 against AP 2 is 0: the explanation says nothing got through (mutant `== -1`)."""
    _, changes = apply(fight(ap=2), Hit(target="cinder", damage=2))
    assert "Cinder: no damage gets through (AP 2)" in changes.explanation


def test_a_hit_that_ignores_ap_deals_its_full_damage() -> None:
    state = fight(Hit(target="cinder", damage=5, ignores_ap=True), ap=3)
    assert cinder(state).hp == 9


def test_reaching_exactly_zero_hp_rolls_on_the_wound_table() -> None:
    state, changes = apply(fight(), Hit(target="cinder", damage=14, rolls={"wound": [37]}))
    assert [d.value for d in changes.dice] == [37]
    assert cinder(state).wound_counter == 1


def test_damage_beyond_zero_hp_is_lost_at_the_reset() -> None:
    state, changes = apply(fight(), Hit(target="cinder", damage=40, rolls={"wound": [37, 38]}))
    assert [d.value for d in changes.dice] == [37]  # one wound, however far below 0
    assert changes.unused == {"wound": [38]}
    assert cinder(state).hp == 10


def test_hp_resets_to_maximum_hp_after_the_wounds_own_reduction() -> None:
    state = fight(Hit(target="cinder", damage=6), to_zero(37))
    assert cinder(state).hp == cinder(state).max_hp == 10


def test_hp_reset_is_followed_by_ordinary_damage_again() -> None:
    state = fight(to_zero(37), Hit(target="cinder", damage=3))
    assert cinder(state).hp == 7
    assert cinder(state).wound_counter == 1


def test_maximum_hp_is_constitution_and_a_contractor_joins_at_full_hp() -> None:
    joined = cinder(fight())
    assert joined.constitution == joined.max_hp == joined.hp == 14


# --- the Wound Table ----------------------------------------------------------------------------


@pytest.mark.parametrize("roll", range(1, 11))
def test_lucky_rolls_1_to_10_cancel_the_wound_and_grant_5_motivation(roll: int) -> None:
    state = fight(Hit(target="cinder", damage=3), to_zero(roll))
    lucky = cinder(state)
    assert lucky.wound_counter == 0 and lucky.injuries == () and lucky.pending == ()
    assert lucky.constitution == 14 and lucky.penalties == {}
    assert lucky.motivation == 5
    assert lucky.hp == 14  # HP resets on a Lucky result too


def test_a_roll_of_exactly_10_is_lucky_not_a_location_10_wound() -> None:
    lucky = cinder(fight(to_zero(10)))
    assert lucky.motivation == 5
    assert lucky.pending == ()


def test_lucky_motivation_adds_up_over_the_fight() -> None:
    assert cinder(fight(to_zero(3), to_zero(8))).motivation == 10


# The Wound Table as this module ships it, typed from the text (Lucky 1-10, Maimed 91-100) and
# from the docstring's stand-in rows (11-90): one line per row, never read from the table.
WOUND_TABLE_ROWS = [
    (1, 10, "Lucky"),
    (11, 20, "Graze"),
    (21, 30, "Laceration"),
    (31, 40, "Fracture"),
    (41, 50, "Burn"),
    (51, 60, "Puncture"),
    (61, 70, "Concussion"),
    (71, 80, "Dislocation"),
    (81, 90, "Internal Injury"),
    (91, 100, "Maimed"),
]

# The location table: 7 is the text's ("location 7, the weapon arm", -2 Dexterity), the rest the
# docstring's stand-ins: number, name, penalty, gear slots that cover it.
LOCATION_ROWS = [
    (1, "head", {"perception": -2}, ()),
    (2, "face", {"perception": -1}, ()),
    (3, "chest", {"vitality": -2}, ()),
    (4, "abdomen", {"vitality": -1}, ()),
    (5, "back", {"strength": -1}, ("back", "pack")),
    (6, "shield_arm", {"strength": -2}, ("shield_arm",)),
    (7, "weapon_arm", {"dexterity": -2}, ("weapon_arm",)),
    (8, "left_leg", {"speed": -2}, ()),
    (9, "right_leg", {"speed": -2}, ()),
]

EVERY_ATTRIBUTE = {"perception": 9, "vitality": 9, "strength": 9, "dexterity": 9, "speed": 9}


def wound_type_rolled(roll: int) -> str:
    """What a roll does to a contractor with no gear: Lucky, or the type it wounds with."""
    sheet = cinder(fight(to_zero(roll), constitution=40))
    if sheet.motivation == 5 and sheet.wound_counter == 0:
        return "Lucky"
    (wound,) = [*sheet.injuries, *sheet.pending]
    assert isinstance(wound.type, str)
    return wound.type


@pytest.mark.parametrize(("low", "high", "name"), WOUND_TABLE_ROWS)
def test_each_row_of_the_wound_table_gives_its_type_across_its_range(
    low: int, high: int, name: str
) -> None:
    table = contractor.wound_table(contractor.WOUND_TYPES)
    assert {table[roll].name for roll in range(low, high + 1)} == {name}
    assert wound_type_rolled(low) == wound_type_rolled(high) == name


def test_the_wound_table_answers_every_roll_from_1_to_100_with_the_texts_ends() -> None:
    """The text: 1-10 Lucky, 91-100 Maimed (00 read as 100); the stand-in's rows between."""
    table = contractor.wound_table(contractor.WOUND_TYPES)
    names = [table[roll].name for roll in range(1, 101)]
    assert names[:10] == ["Lucky"] * 10 and names[90:] == ["Maimed"] * 10
    assert "Lucky" not in names[10:90] and "Maimed" not in names[10:90]


@pytest.mark.parametrize("roll", range(91, 100))
def test_rolls_91_to_99_are_maimed_permanent_wounds(roll: int) -> None:
    (wound,) = cinder(fight(to_zero(roll))).injuries
    assert wound.type == "Maimed" and wound.maimed


@pytest.mark.parametrize(("number", "name", "penalty", "gear"), LOCATION_ROWS)
def test_each_location_row_gives_its_body_part_and_its_penalty(
    number: int, name: str, penalty: dict[str, int], gear: tuple[str, ...]
) -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="ana", stats={"constitution": 20}))
    state, _ = apply(state, to_zero(50 + number, "ana"))
    (wound,) = state.characters["ana"].injuries
    assert (wound.location, wound.penalty) == (name, penalty)
    assert state.characters["ana"].penalties == penalty


@pytest.mark.parametrize(("number", "name", "penalty", "gear"), LOCATION_ROWS)
def test_each_location_row_is_covered_by_its_gear_slots_and_no_other(
    number: int, name: str, penalty: dict[str, int], gear: tuple[str, ...]
) -> None:
    for slot in ("back", "pack", "shield_arm", "weapon_arm", "belt"):
        state = started()
        join = CharacterJoined(character="ana", stats={"constitution": 20}, gear={slot: "Kit"})
        state, _ = apply(state, join)
        state, _ = apply(state, to_zero(50 + number, "ana"))
        took = state.characters["ana"].gear_damage
        assert bool(took) == (slot in gear), (number, slot)


def test_location_10_is_the_texts_exposed_gear_or_the_foremans_choice() -> None:
    sheet = cinder(fight(to_zero(50)))
    assert sheet.injuries == () and [p.roll for p in sheet.pending] == [50]


def test_the_location_table_and_the_docstring_agree_with_the_rows_typed_here() -> None:
    doc = " ".join((inspect.getdoc(contractor) or "").split())
    for number, name, penalty, _ in LOCATION_ROWS:
        (stat, value), *_ = penalty.items()
        assert f"{number} {name.replace('_', ' ')}" in doc
        assert f"({stat} {value:+d}" in doc or f"{stat} {value:+d})" in doc
    for low, high, name in WOUND_TABLE_ROWS[1:-1]:
        assert f"{low}-{high} {name}" in doc


def test_a_stand_in_row_is_named_as_such_when_it_is_used() -> None:
    _, changes = apply(fight(), to_zero(13))
    assert "Graze (stand-in) to location 3, chest (stand-in)" in changes.explanation


# --- location 10 --------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [20, 30, 40, 50, 60, 70, 80, 90, 100])
def test_location_10_is_never_lucky_by_itself_and_waits_for_the_foreman(roll: int) -> None:
    waiting = cinder(fight(to_zero(roll)))
    assert [p.roll for p in waiting.pending] == [roll]
    assert waiting.motivation == 0 and waiting.injuries == ()


def test_the_foreman_places_a_location_10_wound_on_a_body_location_by_name() -> None:
    state = fight(to_zero(40, id="h1"), Choice(character="cinder", option="weapon_arm"))
    (wound,) = cinder(state).injuries
    assert (wound.id, wound.type, wound.location) == ("h1", "Fracture", "weapon_arm")
    assert cinder(state).pending == ()
    assert cinder(state).penalties == {"dexterity": -2}
    assert cinder(state).dexterity == 10


def test_the_foreman_places_a_location_10_wound_by_number() -> None:
    (wound,) = cinder(fight(to_zero(20), Choice(character="cinder", option="3"))).injuries
    assert wound.location == "chest"


def test_a_location_10_wounds_counter_takes_effect_at_the_roll() -> None:
    waiting = cinder(fight(to_zero(20)))
    assert waiting.wound_counter == 1
    assert waiting.constitution == waiting.max_hp == waiting.hp == 10  # reset to the new maximum
    assert waiting.penalties == {}  # the location's penalty waits for the Foreman
    placed = cinder(apply(fight(to_zero(20)), Choice(character="cinder", option="head"))[0])
    assert (placed.wound_counter, placed.constitution, placed.hp) == (1, 10, 10)
    assert placed.penalties == {"perception": -2}


def test_a_hit_before_the_foremans_choice_meets_the_new_maximum_hp() -> None:
    state = fight(to_zero(40, id="h1"))
    state, changes = apply(state, Hit(id="h2", target="cinder", damage=10, rolls={"wound": [33]}))
    assert [d.value for d in changes.dice] == [33]  # 10 damage on 10 HP: a second wound roll
    sheet = cinder(state)
    assert sheet.wound_counter == 2 and sheet.constitution == 6 and sheet.hp == 6


def test_location_10_with_gear_to_take_it_waits_before_the_counter_counts() -> None:
    """Issue 27: "location 10 points to exposed gear or lets the Foreman choose", and "when gear
    absorbs the wound: the Wound Counter does not increase": where it lands comes first."""
    state = fight(to_zero(30, "vex", id="h1"), Hit(target="vex", damage=3))
    assert (vex(state).wound_counter, vex(state).constitution, vex(state).hp) == (0, 12, 9)
    state, _ = apply(state, Choice(character="vex", option="gear:pack"))
    hurt = vex(state)
    assert hurt.wound_counter == 0 and hurt.injuries == () and hurt.pending == ()
    assert (hurt.constitution, hurt.max_hp, hurt.hp) == (12, 12, 9)
    assert [t.item for t in hurt.gear_damage] == ["Salvage Pack"]


def test_location_10_placed_on_the_body_counts_then_and_caps_hp() -> None:
    state = fight(to_zero(30, "vex", id="h1"), Choice(character="vex", option="head"))
    hurt = vex(state)
    assert (hurt.wound_counter, hurt.constitution, hurt.max_hp, hurt.hp) == (1, 8, 8, 8)


LAST_WOUND = CharacterJoined(
    character="ana", side="crew", stats={"constitution": 4}, gear={"pack": "Salvage Pack"}
)
"""Ana: one wound (Constitution 4 - 4 = 0) from death, her pack on her back."""


def test_a_last_wound_on_location_10_that_gear_takes_does_not_kill() -> None:
    state = fight(LAST_WOUND, to_zero(50, "ana"))
    assert state.characters["ana"].state == "upright"
    state, _ = apply(state, Choice(character="ana", option="gear:pack"))
    ana = state.characters["ana"]
    assert (ana.state, ana.wound_counter, ana.constitution) == ("upright", 0, 4)


def test_a_last_wound_on_location_10_the_foreman_puts_on_the_body_kills() -> None:
    state = fight(LAST_WOUND, to_zero(50, "ana"), Choice(character="ana", option="chest"))
    assert state.characters["ana"].state == "dead"


def test_the_foremans_choice_given_with_the_hit_places_location_10_at_once() -> None:
    state = fight(LAST_WOUND, to_zero(50, "ana", location="gear:pack"))
    ana = state.characters["ana"]
    assert (ana.state, ana.pending, ana.wound_counter) == ("upright", (), 0)
    assert [t.item for t in ana.gear_damage] == ["Salvage Pack"]
    on_body = fight(to_zero(30, id="h1", location="head"), constitution=14)
    sheet = cinder(on_body)
    assert (sheet.pending, sheet.wound_counter, sheet.constitution, sheet.hp) == ((), 1, 10, 10)
    assert [w.location for w in sheet.injuries] == ["head"]


def test_the_foremans_choice_with_the_hit_is_unused_when_the_roll_names_a_location() -> None:
    sheet = cinder(fight(to_zero(37, id="h1", location="head")))
    assert [w.location for w in sheet.injuries] == ["weapon_arm"]


def test_a_foremans_choice_with_the_hit_of_gear_not_carried_is_refused_naming_the_fact() -> None:
    refused(fight(), to_zero(30, location="gear:pack"), "carries nothing", "$.location")


def test_location_10_with_nothing_to_take_it_counts_at_the_roll() -> None:
    """No gear, no prosthetic: the body takes it wherever the Foreman places it."""
    assert cinder(fight(to_zero(30))).wound_counter == 1


def test_a_location_10_wound_placed_on_a_constitution_penalty_caps_hp() -> None:
    state = fight(to_zero(20), tables={"locations": HOUSE_LOCATIONS})
    assert cinder(state).hp == 10
    state, _ = apply(state, Choice(character="cinder", option="torso"))
    assert cinder(state).constitution == cinder(state).max_hp == cinder(state).hp == 8


def test_a_location_10_wound_that_prevents_acting_does_so_from_the_roll() -> None:
    state = fight(to_zero(40, id="h1"), tables=HOUSE)  # 40: a Knockout, location 10
    assert cinder(state).state == "out_of_action"
    on_gear = fight(to_zero(40, "vex"), Choice(character="vex", option="gear:pack"), tables=HOUSE)
    assert vex(on_gear).state == "upright"
    on_body = apply(state, Choice(character="cinder", option="gut"))[0]
    assert cinder(on_body).state == "out_of_action"
    assert cinder(on_body).injuries[0].type == "Knockout"


def test_location_10_pointing_at_exposed_gear_damages_it() -> None:
    state = fight(to_zero(30, "vex", id="h1"), Choice(character="vex", option="gear:pack"))
    (taken,) = vex(state).gear_damage
    assert (taken.item, taken.type, taken.destroyed) == ("Salvage Pack", "Laceration", False)
    assert vex(state).wound_counter == 0


def test_a_roll_of_100_on_exposed_gear_destroys_it() -> None:
    state = fight(to_zero(100, "vex"), Choice(character="vex", option="gear:shield_arm"))
    assert "shield_arm" not in vex(state).gear
    assert vex(state).gear_damage[0].destroyed
    assert vex(state).wound_counter == 0


def test_a_location_10_wound_placed_on_a_covered_location_goes_to_its_gear() -> None:
    state = fight(to_zero(50, "vex"), Choice(character="vex", option="weapon_arm"))
    assert vex(state).gear_damage[0].item == "Coil Rifle"
    assert vex(state).injuries == ()


def test_a_location_10_wound_keeps_the_hits_gear_absorbs_fact() -> None:
    state = fight(
        to_zero(50, "vex", gear_absorbs=False), Choice(character="vex", option="weapon_arm")
    )
    assert vex(state).gear_damage == ()
    assert vex(state).injuries[0].location == "weapon_arm"


def test_pending_location_10_wounds_are_placed_oldest_first() -> None:
    state = fight(to_zero(20, id="h1"), to_zero(90, id="h2"))
    state, _ = apply(state, Choice(character="cinder", option="chest"))
    assert [(w.id, w.type) for w in cinder(state).injuries] == [("h1", "Graze")]
    assert [p.id for p in cinder(state).pending] == ["h2"]


def test_a_choice_with_no_wound_on_location_10_is_refused() -> None:
    refused(fight(), Choice(character="cinder", option="head"), "location 10", "$.option")


def test_a_choice_of_no_body_location_is_refused_naming_them() -> None:
    refused(fight(to_zero(20)), Choice(character="cinder", option="tail"), "weapon_arm")
    refused(fight(to_zero(20)), Choice(character="cinder", option="10"), "no body location")


def test_a_choice_of_gear_the_contractor_does_not_carry_is_refused() -> None:
    refused(fight(to_zero(20)), Choice(character="cinder", option="gear:back"), "slot `back`")


def test_a_pending_wound_cannot_be_treated_until_it_is_placed() -> None:
    refused(fight(to_zero(20, id="h1")), treat("h1"), "choice", "$.wound")


# --- gear ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "item"), [(37, "Coil Rifle"), (36, "Riot Shield"), (35, "Salvage Pack")]
)
def test_gear_covering_the_location_takes_a_non_maimed_wound(roll: int, item: str) -> None:
    state, changes = apply(fight(), to_zero(roll, "vex", id="h1"))
    hurt = vex(state)
    assert hurt.wound_counter == 0 and hurt.penalties == {} and hurt.injuries == ()
    assert hurt.constitution == 12
    (taken,) = hurt.gear_damage
    assert (taken.wound, taken.item, taken.type, taken.destroyed) == ("h1", item, "Fracture", False)
    assert hurt.gear == VEX_GEAR  # kept: the Foreman narrates the consequence
    assert "gear consequence" in changes.explanation
    assert hurt.hp == 12  # HP still resets


@pytest.mark.parametrize(("roll", "slot"), [(97, "weapon_arm"), (96, "shield_arm"), (95, "pack")])
def test_a_maimed_result_destroys_the_gear_permanently(roll: int, slot: str) -> None:
    state, changes = apply(fight(), to_zero(roll, "vex"))
    hurt = vex(state)
    assert slot not in hurt.gear
    assert hurt.wound_counter == 0 and hurt.injuries == ()
    assert hurt.gear_damage[0].destroyed
    (change,) = changes.characters
    assert change.counters[f"gear.{slot}"] == (VEX_GEAR[slot], None)


def test_gear_that_was_destroyed_no_longer_protects() -> None:
    state = fight(to_zero(97, "vex"), to_zero(37, "vex"))
    assert vex(state).injuries[0].location == "weapon_arm"


def test_gear_elsewhere_does_not_take_a_wound_to_an_uncovered_location() -> None:
    state = fight(to_zero(33, "vex"))
    assert vex(state).injuries[0].location == "chest"
    assert vex(state).gear_damage == ()


def test_a_hit_saying_gear_absorbs_false_sends_the_wound_to_the_body() -> None:
    state = fight(to_zero(37, "vex", gear_absorbs=False))
    assert vex(state).wound_counter == 1
    assert vex(state).penalties == {"dexterity": -2}


def test_house_rule_gear_absorbs_false_leaves_gear_out_unless_the_hit_says_so() -> None:
    off = {"gear_absorbs": False}
    assert vex(fight(to_zero(37, "vex"), options=off)).wound_counter == 1
    said = fight(to_zero(37, "vex", gear_absorbs=True), options=off)
    assert vex(said).wound_counter == 0 and len(vex(said).gear_damage) == 1


# --- treatment ----------------------------------------------------------------------------------


@pytest.mark.parametrize("means", ["mend", "treat_wound", "clinic"])
def test_each_treatment_reverses_all_three_layers(means: str) -> None:
    before = cinder(fight())
    state = fight(to_zero(37, id="h1"), treat("h1", means))
    after = cinder(state)
    assert after.wound_counter == 0 and after.injuries == ()
    assert (after.constitution, after.max_hp, after.penalties) == (14, 14, {})
    assert after.state == before.state == "upright"


def test_treatment_removes_only_the_named_wound() -> None:
    state = fight(to_zero(37, id="h1"), to_zero(33, id="h2"), treat("h1"))
    assert [w.id for w in cinder(state).injuries] == ["h2"]
    assert cinder(state).constitution == 10
    assert cinder(state).penalties == {"vitality": -2}


def test_penalties_of_two_wounds_on_one_attribute_add_up_and_come_off_one_at_a_time() -> None:
    state = fight(to_zero(37, id="h1"), to_zero(47, id="h2"))
    assert cinder(state).penalties == {"dexterity": -4}
    state, _ = apply(state, treat("h2"))
    assert cinder(state).penalties == {"dexterity": -2}


def test_treatment_needs_the_wound_fact() -> None:
    refused(fight(to_zero(37)), Heal(target="cinder", amount=0, means="mend"), "#4", "$.wound")


def test_treatment_of_a_wound_that_is_not_there_is_refused_listing_the_active_ones() -> None:
    refused(fight(to_zero(37, id="h1")), treat("h9"), r"active: h1", "$.wound")


def test_treatment_does_not_raise_current_hp_by_itself() -> None:
    state = fight(to_zero(37, id="h1"), Hit(target="cinder", damage=4), treat("h1"))
    assert cinder(state).hp == 6 and cinder(state).max_hp == 14


def test_a_treatments_amount_restores_hp_after_the_wound_is_removed() -> None:
    state = fight(to_zero(37, id="h1"), treat("h1", amount=20))
    assert cinder(state).hp == 14


def test_ordinary_healing_restores_hp_up_to_maximum_hp() -> None:
    state = fight(Hit(target="cinder", damage=9), Heal(target="cinder", amount=3, means="medkit"))
    assert cinder(state).hp == 8
    state, _ = apply(state, Heal(target="cinder", amount=50))
    assert cinder(state).hp == 14


def test_ordinary_healing_never_removes_a_wound() -> None:
    state = fight(to_zero(37), Heal(target="cinder", amount=5, means="rest"))
    assert cinder(state).wound_counter == 1 and cinder(state).hp == 10


def test_naming_a_wound_with_a_means_that_treats_nothing_is_refused() -> None:
    state = fight(to_zero(37, id="h1"))
    refused(state, treat("h1", means="medkit"), "treats no wound", "$.means")


# --- Maimed and prosthetics ---------------------------------------------------------------------


@pytest.mark.parametrize("means", ["mend", "treat_wound", "clinic"])
def test_a_maimed_wound_cannot_be_treated_and_the_refusal_says_what_it_needs(means: str) -> None:
    state = fight(to_zero(97, id="h1"))
    refused(state, treat("h1", means), "prosthetic.*coiltech", "$.means")


def test_a_prosthetic_offsets_the_maimed_penalty_but_the_wound_stays_on_the_counter() -> None:
    state = fight(to_zero(97, id="h1"), treat("h1", "prosthetic"))
    fitted = cinder(state)
    assert fitted.penalties == {}
    assert fitted.wound_counter == 1
    assert fitted.constitution == fitted.max_hp == 10
    assert fitted.injuries[0].prosthetic


def test_a_prosthetic_is_only_for_maimed_wounds() -> None:
    refused(fight(to_zero(37, id="h1")), treat("h1", "prosthetic"), "not Maimed", "$.means")


def test_one_prosthetic_per_maimed_wound() -> None:
    state = fight(to_zero(97, id="h1"), treat("h1", "prosthetic"))
    refused(state, treat("h1", "prosthetic"), "already", "$.wound")


def test_losing_a_prosthetic_brings_the_maimed_penalties_back() -> None:
    state = fight(
        to_zero(97, id="h1"),
        treat("h1", "prosthetic"),
        Choice(character="cinder", option="prosthetic_lost:h1"),
    )
    assert cinder(state).penalties == {"dexterity": -2}
    assert not cinder(state).injuries[0].prosthetic


def test_losing_a_prosthetic_whose_penalty_takes_constitution_to_0_kills() -> None:
    # Constitution 10, a Maimed torso wound (93: house table, constitution -2): the counter's -4
    # and the -2 leave 4; the prosthetic offsets the -2 (6); a Bruise's counter leaves 2; the
    # prosthetic lost brings the -2 back: Constitution 0, "permanent death"
    state = fight(
        to_zero(93, id="m1"),
        treat("m1", "prosthetic"),
        to_zero(31, id="b1"),
        tables={"locations": HOUSE_LOCATIONS},
        constitution=10,
    )
    assert cinder(state).constitution == 2 and cinder(state).state == "upright"
    state, changes = apply(state, Choice(character="cinder", option="prosthetic_lost:m1"))
    assert cinder(state).constitution == 0
    assert cinder(state).state == "dead"
    assert "dies: Constitution 0, permanently" in changes.explanation


def test_losing_a_prosthetic_that_is_not_fitted_is_refused() -> None:
    state = fight(to_zero(97, id="h1"))
    refused(state, Choice(character="cinder", option="prosthetic_lost:h1"), "no prosthetic")


def test_coiltech_restoration_removes_a_maimed_wound_entirely() -> None:
    state = fight(to_zero(97, id="h1"), treat("h1", "coiltech"))
    restored = cinder(state)
    assert restored.injuries == () and restored.wound_counter == 0
    assert (restored.constitution, restored.penalties) == (14, {})


def test_coiltech_is_only_for_maimed_wounds() -> None:
    refused(fight(to_zero(37, id="h1")), treat("h1", "coiltech"), "not Maimed", "$.means")


# --- a prosthetic is gear -----------------------------------------------------------------------


def fitted(roll: int = 97, **facts: Any) -> FightState[Any]:
    """Cinder with a Maimed wound `m1` at the roll's location, a prosthetic fitted on it."""
    return fight(to_zero(roll, id="m1", **facts), treat("m1", "prosthetic"), constitution=20)


def test_a_prosthetic_takes_a_wound_to_its_location_as_gear_does() -> None:
    state, changes = apply(fitted(), to_zero(37, id="h2"))
    sheet = cinder(state)
    assert [w.id for w in sheet.injuries] == ["m1"]  # no new wound: no counter, no penalty
    assert (sheet.wound_counter, sheet.constitution, sheet.penalties) == (1, 16, {})
    (taken,) = sheet.gear_damage
    assert (taken.wound, taken.slot, taken.item) == ("h2", "prosthetic:m1", "prosthetic weapon arm")
    assert (taken.type, taken.destroyed) == ("Fracture", False)
    assert sheet.injuries[0].prosthetic  # damaged, still fitted: the Foreman narrates
    assert "gear consequence" in changes.explanation


def test_a_maimed_result_destroys_the_prosthetic_and_the_maimed_penalties_are_back() -> None:
    state, changes = apply(fitted(), to_zero(97, id="h2"))
    sheet = cinder(state)
    assert [w.id for w in sheet.injuries] == ["m1"] and not sheet.injuries[0].prosthetic
    assert (sheet.wound_counter, sheet.constitution) == (1, 16)  # the Maimed wound stays
    assert sheet.penalties == {"dexterity": -2} and sheet.dexterity == 10
    assert sheet.gear_damage[0].destroyed
    assert "penalties are back" in changes.explanation
    refit = cinder(apply(state, treat("m1", "prosthetic"))[0])
    assert refit.injuries[0].prosthetic and refit.penalties == {}


def test_a_prosthetic_outside_back_shield_arm_and_weapon_arm_takes_no_wound() -> None:
    """Gear takes a wound only "if the wound location is Back/Pack, Shield Arm, or Weapon Arm"
    (issue 27): a Fracture to a prosthetic left leg (8) is the body's."""
    sheet = cinder(apply(fitted(98), to_zero(38, id="h2"))[0])  # 8: the left leg
    assert sheet.gear_damage == ()
    assert (sheet.wound_counter, sheet.constitution) == (2, 12)
    assert [w.id for w in sheet.injuries] == ["m1", "h2"]


def test_the_option_widens_the_list_to_wherever_a_prosthetic_is_fitted() -> None:
    state = fight(
        to_zero(98, id="m1"),
        treat("m1", "prosthetic"),
        constitution=20,
        options={"prosthetics_anywhere": True},
    )
    sheet = cinder(apply(state, to_zero(38))[0])
    assert sheet.gear_damage[0].item == "prosthetic left leg"
    assert sheet.wound_counter == 1


def test_a_prosthetic_does_not_cover_another_location() -> None:
    sheet = cinder(apply(fitted(98), to_zero(39))[0])  # 9: the right leg
    assert sheet.gear_damage == () and sheet.wound_counter == 2


def test_a_prosthetic_takes_no_wound_when_gear_does_not_absorb() -> None:
    sheet = cinder(apply(fitted(), to_zero(37, gear_absorbs=False))[0])
    assert sheet.gear_damage == () and sheet.wound_counter == 2
    off = fight(to_zero(97, id="m1"), treat("m1", "prosthetic"), options={"gear_absorbs": False})
    assert cinder(apply(off, to_zero(37))[0]).wound_counter == 2


def test_the_item_in_a_slot_covering_the_location_takes_the_wound_before_a_prosthetic() -> None:
    state = fight(to_zero(97, "vex", id="m1", gear_absorbs=False), treat("m1", "prosthetic", "vex"))
    state, _ = apply(state, to_zero(37, "vex"))
    assert [t.item for t in vex(state).gear_damage] == ["Coil Rifle"]


def test_a_location_10_wound_placed_where_a_prosthetic_is_fitted_goes_to_the_prosthetic() -> None:
    state = apply(fitted(), to_zero(60, id="h2"))[0]
    assert cinder(state).wound_counter == 1  # a prosthetic might take it: not counted yet
    state, _ = apply(state, Choice(character="cinder", option="weapon_arm"))
    assert cinder(state).gear_damage[0].slot == "prosthetic:m1"
    assert (cinder(state).wound_counter, cinder(state).constitution) == (1, 16)


# --- permanent death ----------------------------------------------------------------------------


def test_constitution_reaching_zero_is_permanent_death() -> None:
    state = fight(to_zero(37), constitution=8)
    assert cinder(state).state == "upright" and cinder(state).constitution == 4
    state, changes = apply(state, to_zero(33))
    dead = cinder(state)
    assert dead.state == "dead"
    assert dead.constitution == dead.max_hp == 0 and dead.hp == 0
    assert "permanently" in changes.explanation


def test_a_maimed_wound_with_a_prosthetic_still_counts_towards_death() -> None:
    state = fight(to_zero(97, id="h1"), treat("h1", "prosthetic"), to_zero(33), constitution=8)
    assert cinder(state).state == "dead"


def test_gear_taking_the_wound_keeps_a_contractor_alive() -> None:
    state = fight(to_zero(37, "vex"), to_zero(36, "vex"), to_zero(35, "vex"))
    assert vex(state).state == "upright" and vex(state).constitution == 12


def test_the_dead_take_no_hits_no_healing_and_no_choices() -> None:
    state = fight(to_zero(91, id="h1"), constitution=4)
    assert cinder(state).state == "dead"
    refused(state, Hit(target="cinder", damage=1), "no resurrection")
    refused(state, treat("h1", "coiltech"), "no resurrection")
    refused(state, Heal(target="cinder", amount=5), "no resurrection")
    refused(state, Choice(character="cinder", option="head"), "no resurrection")


def test_a_wound_ending_in_0_kills_at_the_roll_with_no_last_second_save_by_the_foreman() -> None:
    state = fight(to_zero(90, id="h1"), constitution=4)
    assert cinder(state).state == "dead"
    refused(state, Choice(character="cinder", option="gear:back"), "no resurrection")


# --- tables carried by the fight ----------------------------------------------------------------

HOUSE_TYPES = {
    "rows": {
        "11-36": {"name": "Bruise", "effect": "-1 on the next check"},
        "37": {"name": "Fracture", "effect": "disadvantage with that limb"},
        "38-60": {"name": "Knockout", "effect": "senseless", "prevents_acting": True},
        "61-90": {"name": "Gash", "effect": "bleeding"},
    }
}
HOUSE_LOCATIONS = {
    "rows": {
        "1": {"name": "skull", "penalty": {"wits": -3}},
        "2": {"name": "eyes", "penalty": {"wits": -1}},
        "3": {"name": "torso", "penalty": {"constitution": -2}},
        "4": {"name": "gut"},
        "5": {"name": "pack", "gear": ["pack"]},
        "6": {"name": "shield_arm", "gear": ["shield_arm"]},
        "7": {"name": "weapon_arm", "penalty": {"dexterity": -2}, "gear": ["weapon_arm"]},
        "8": {"name": "legs", "penalty": {"speed": -2}},
        "9": {"name": "feet", "penalty": {"speed": -1}},
    }
}
HOUSE = {"wound_types": HOUSE_TYPES, "locations": HOUSE_LOCATIONS}


def test_wound_types_carried_in_fight_started_replace_the_stand_in() -> None:
    state = fight(to_zero(36), to_zero(38), tables={"wound_types": HOUSE_TYPES})
    assert [w.type for w in cinder(state).injuries] == ["Bruise", "Knockout"]


def test_locations_carried_in_fight_started_replace_the_stand_in() -> None:
    state = fight(to_zero(31), tables={"locations": HOUSE_LOCATIONS})
    (wound,) = cinder(state).injuries
    assert (wound.location, wound.penalty) == ("skull", {"wits": -3})


def test_the_fights_tables_keep_the_texts_lucky_maimed_and_location_10() -> None:
    state = fight(to_zero(4), to_zero(92), to_zero(70), tables=HOUSE)
    sheet = cinder(state)
    assert sheet.motivation == 5
    assert [(w.type, w.location) for w in sheet.injuries] == [("Maimed", "eyes")]
    assert [p.roll for p in sheet.pending] == [70]


def test_a_contractor_may_join_with_the_attributes_the_fights_location_table_penalises() -> None:
    state = started(HOUSE)
    state, _ = apply(state, CharacterJoined(character="ana", stats={"constitution": 10, "wits": 4}))
    assert state.characters["ana"].stats["wits"] == 4
    refused(
        state,
        CharacterJoined(character="bo", stats={"constitution": 10, "perception": 2}),
        "wits",
        "$.stats.perception",
    )


def test_a_wound_that_prevents_acting_means_out_of_action_until_it_is_treated() -> None:
    state = fight(to_zero(44, id="h1"), tables=HOUSE)
    assert cinder(state).state == "out_of_action"
    state = fight(to_zero(44, id="h1"), to_zero(33, id="h2"), treat("h2"), tables=HOUSE)
    assert cinder(state).state == "out_of_action"  # the Knockout is still active
    state, changes = apply(state, treat("h1"))
    assert cinder(state).state == "upright"
    assert changes.characters[0].before == "out_of_action"


def test_a_contractor_out_of_action_can_still_be_hurt_and_die() -> None:
    state = fight(to_zero(44), to_zero(37), to_zero(51), tables=HOUSE, constitution=12)
    assert cinder(state).state == "dead"


def test_a_constitution_penalty_lowers_constitution_and_counts_towards_death() -> None:
    state = fight(to_zero(23), tables=HOUSE, constitution=6)
    assert cinder(state).constitution == cinder(state).max_hp == 0  # 6 - 4 - 2
    assert cinder(state).state == "dead"


@pytest.mark.parametrize(
    ("tables", "field", "match"),
    [
        ({"wound_types": {"rows": {"11-80": {"name": "Cut"}}}}, "wound_types", "no row for 81-90"),
        (
            {"wound_types": {"rows": {"11-50": {"name": "A"}, "50-90": {"name": "B"}}}},
            "wound_types",
            "50 is in both",
        ),
        ({"wound_types": {"rows": {"1-90": {"name": "A"}}}}, "wound_types", "outside 11-90"),
        ({"wound_types": {"rows": {"eleven": {"name": "A"}}}}, "wound_types", "not a roll"),
        ({"wound_types": {"rows": {"11-90": {"nom": "A"}}}}, "wound_types", "nom"),
        ({"wound_types": [1, 2]}, "wound_types", "object"),
        (
            {"locations": {"rows": {**HOUSE_LOCATIONS["rows"], "10": {"name": "exposed"}}}},
            "locations",
            "location 10 is the text's own rule",
        ),
        ({"locations": {"rows": {"1": {"name": "head"}}}}, "locations", "no row for 2"),
        (
            {"locations": {"rows": {**HOUSE_LOCATIONS["rows"], "2": {"name": "skull"}}}},
            "locations",
            "each name once",
        ),
        (
            {"locations": {"rows": {**HOUSE_LOCATIONS["rows"], "1": {"name": 3}}}},
            "locations",
            "str",
        ),
        ({"injuries": {}}, "injuries", "no table `injuries`"),
    ],
)
def test_a_malformed_table_in_fight_started_is_refused_as_structural(
    tables: dict[str, Any], field: str, match: str
) -> None:
    with pytest.raises(StructuralError, match=match) as err:
        started(tables)
    assert err.value.field == f"$.tables.{field}"


def test_stand_in_rows_are_labelled_in_the_data_and_in_the_docstring() -> None:
    doc = inspect.getdoc(contractor) or ""
    assert "STAND-IN" in doc
    for kind in contractor.WOUND_TYPES.rows.values():
        assert kind.name in doc
        assert kind.stand_in == (kind.name != "Fracture")  # Fracture is the text's own
    for number, place in contractor.LOCATIONS.rows.items():
        assert f"{number} {place.name.replace('_', ' ')}" in doc
        assert place.stand_in == (number != "7")  # 7, the weapon arm, is the text's own
    assert contractor.LOCATIONS.number(7).penalty == {"dexterity": -2}


# --- who may act -------------------------------------------------------------------------------


def knocked_out() -> FightState[Any]:
    """Cinder out of action: a Knockout (house table 38-60) to the gut, wound `k1`."""
    return fight(to_zero(44, id="k1"), tables=HOUSE)


def test_who_may_act_lists_out_of_action_and_dead_and_neither_attacks_nor_heals() -> None:
    rules = get_ruleset("contractor")
    assert sorted(rules.who_may_act) == ["dead", "out_of_action"]
    assert not any(a.attack or a.heal for a in rules.who_may_act.values())


def test_an_out_of_action_contractor_may_not_attack_and_the_refusal_names_the_wound() -> None:
    words = r"Cinder is out of action: a wound prevents acting until it is treated \(Knockout k1\)"
    refused(knocked_out(), Hit(target="vex", damage=3, attacker="cinder"), words, "$.attacker")


def test_an_out_of_action_contractor_may_not_mend_himself_but_another_may_treat_him() -> None:
    state = knocked_out()
    mend = Heal(target="cinder", amount=0, means="mend", wound="k1", healer="cinder")
    refused(state, mend, "Cinder is out of action", "$.healer")
    by_vex = msgspec.structs.replace(mend, healer="vex")
    assert cinder(apply(state, by_vex)[0]).state == "upright"


def test_a_contractor_whose_location_10_wound_prevents_acting_may_not_attack() -> None:
    state = fight(to_zero(40, id="k1"), tables=HOUSE)
    words = r"out of action.*\(Knockout k1 \(on location 10\)\)"
    refused(state, Hit(target="vex", damage=3, attacker="cinder"), words, "$.attacker")


def test_a_dead_contractor_may_neither_attack_nor_heal() -> None:
    state = fight(to_zero(91), constitution=4)
    refused(state, Hit(target="vex", damage=3, attacker="cinder"), "Cinder is dead, permanently")
    refused(state, Heal(target="vex", amount=2, healer="cinder"), "Cinder is dead", "$.healer")


def test_a_wounded_contractor_who_still_acts_may_attack_and_heal() -> None:
    state = fight(to_zero(37, id="h1"))  # a Fracture does not prevent acting
    state, _ = apply(state, Hit(target="vex", damage=3, attacker="cinder"))
    state, _ = apply(state, Heal(target="vex", amount=3, healer="cinder"))
    assert vex(state).hp == 12


def test_an_attacker_from_outside_the_fight_is_accepted_and_named() -> None:
    _, changes = apply(knocked_out(), Hit(target="vex", damage=3, attacker="scrap hound"))
    assert "attacker `scrap hound` is not a character of this fight" in changes.explanation


def test_a_blow_by_a_contractor_who_cannot_act_is_void_on_replay() -> None:
    state = knocked_out()
    after, changes = apply_or_void(state, Hit(target="vex", damage=3, attacker="cinder"))
    assert changes.void is not None and "Cinder is out of action" in changes.void
    assert after.characters == state.characters


def test_retracting_the_knockout_lets_the_later_blow_stand_on_replay() -> None:
    log: list[Event] = [
        FightStarted(ruleset="contractor", tables=HOUSE),
        CharacterJoined(character="cinder", name="Cinder", stats={"constitution": 14}),
        CharacterJoined(character="vex", name="Vex", stats={"constitution": 12}),
        to_zero(44, id="k1"),
        Hit(id="blow", target="vex", damage=3, attacker="cinder"),
    ]
    steps = list(replay(log))
    assert steps[-1][1].void is not None
    steps = list(replay([*log, Retract(event="k1")]))
    assert steps[-1][0].characters["vex"].hp == 9


# --- every stat at its current value ------------------------------------------------------------


def now(sheet: contractor.ContractorSheet) -> dict[str, int | None]:
    return {
        "constitution": sheet.constitution,
        "ap": sheet.ap,
        "motivation": sheet.motivation,
        "dexterity": sheet.dexterity,
    }


def test_cinder_joined_with_dexterity_12_shows_dexterity_10_after_the_fracture() -> None:
    state = fight(to_zero(37, id="h1"))
    sheet = cinder(state)
    assert sheet.stats["dexterity"] == 12  # as joined
    assert now(sheet) == {"constitution": 10, "ap": 0, "motivation": 0, "dexterity": 10}
    treated = cinder(apply(state, treat("h1"))[0])
    assert now(treated) == {"constitution": 14, "ap": 0, "motivation": 0, "dexterity": 12}


def test_the_state_json_shows_each_changed_stat_under_its_own_name_at_the_top() -> None:
    """DESIGN section 8, as Warhammer Quest shows `toughness`: one place, the stat's name."""
    encoded = msgspec.json.decode(msgspec.json.encode(fight(to_zero(37), to_zero(5))))
    shown = encoded["characters"]["cinder"]
    assert shown["dexterity"] == 10 and shown["stats"]["dexterity"] == 12
    assert shown["motivation"] == 5 and shown["constitution"] == 10
    assert "current" not in shown and shown["own_attributes"] == {}
    assert shown["perception"] is None  # not joined with: no value to show


def test_an_attribute_only_the_fights_own_table_names_is_shown_at_its_value_now() -> None:
    """The bundled own-tables example: Ash joins with Wits 3 and Grit 2; the loader mech's
    slam is a Knockout to the gut, which that table makes -1 Grit."""
    ash = final_state("contractor_own_tables.jsonl", at=4).characters["ash"]
    assert ash.own_attributes == {"wits": 3, "grit": 1}
    assert ash.stats == {"constitution": 13, "ap": 1, "motivation": 0, "wits": 3, "grit": 2}
    assert ash.dexterity is None


def test_current_stats_follow_a_prosthetic_fitted_and_lost() -> None:
    maimed = fight(to_zero(97, id="m1"))
    assert cinder(maimed).dexterity == 10
    fitted_on = apply(maimed, treat("m1", "prosthetic"))[0]
    assert now(cinder(fitted_on)) == {
        "constitution": 10,
        "ap": 0,
        "motivation": 0,
        "dexterity": 12,
    }
    lost = apply(fitted_on, Choice(character="cinder", option="prosthetic_lost:m1"))[0]
    assert cinder(lost).dexterity == 10


def test_current_constitution_includes_a_locations_constitution_penalty() -> None:
    sheet = cinder(fight(to_zero(23), tables=HOUSE, constitution=14))  # torso: -2 Constitution
    assert sheet.constitution == 8


def test_a_penalty_on_an_attribute_not_joined_with_is_shown_in_penalties_only() -> None:
    sheet = cinder(fight(to_zero(31)))  # the head: -2 Perception, which Cinder did not give
    assert sheet.penalties == {"perception": -2}
    assert sheet.perception is None


# --- joining, facts, dice, ids, turns -----------------------------------------------------------


def test_a_contractor_needs_constitution() -> None:
    refused(started(), CharacterJoined(character="x"), "constitution", "$.stats.constitution")


def test_a_contractor_joins_with_constitution_1_or_more() -> None:
    event = CharacterJoined(character="x", stats={"constitution": 0})
    refused(started(), event, "dead", "$.stats.constitution")


def test_a_contractor_with_constitution_1_joins_alive_on_1_hp() -> None:
    """Only 0 is dead: 1 is the least a contractor may join with (mutant `<= 1`)."""
    state, _ = apply(started(), CharacterJoined(character="x", stats={"constitution": 1}))
    joined = state.characters["x"]
    assert (joined.constitution, joined.max_hp, joined.hp) == (1, 1, 1)


def test_negative_ap_is_refused() -> None:
    event = CharacterJoined(character="x", stats={"constitution": 5, "ap": -1})
    refused(started(), event, "AP", "$.stats.ap")


def test_an_unknown_stat_is_refused_listing_the_attributes() -> None:
    event = CharacterJoined(character="x", stats={"constitution": 5, "luck": 1})
    refused(started(), event, "dexterity", "$.stats.luck")


def test_a_fact_contractor_does_not_use_is_refused() -> None:
    refused(fight(), Hit(target="cinder", damage=1, magic=True), "magic", "$.magic")
    refused(fight(), Heal(target="cinder", amount=1, check=12), "check", "$.check")


def test_the_wound_die_is_a_d100_drawn_from_the_seed_when_not_given() -> None:
    _, changes = apply(fight(), Hit(id="h1", target="cinder", damage=99))
    assert [(d.purpose, d.sides, d.source) for d in changes.dice] == [("wound", 100, "drawn")]


def test_strict_dice_refuses_a_missing_wound_die() -> None:
    refused(fight(options={"strict_dice": True}), to_zero(None), "strict_dice", "$.rolls.wound")


def test_a_wound_die_outside_1_to_100_is_refused_as_structural_00_is_given_as_100() -> None:
    with pytest.raises(StructuralError, match="1 to 100") as err:
        apply(fight(), Hit(target="cinder", damage=99, rolls={"wound": [101]}))
    assert err.value.field == "$.rolls.wound[0]"
    zero = decode_json('{"type":"hit","target":"cinder","damage":99,"rolls":{"wound":[0]}}')
    with pytest.raises(StructuralError, match="00 is read as 100: give 100") as err:
        apply(fight(), zero)
    assert err.value.field == "$.rolls.wound[0]"


def test_the_cli_tells_someone_who_gives_the_d100_as_0_that_00_is_read_as_100(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from woundlog.replays.cli import app

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    runner = CliRunner()
    for args in (["new", "scrap", "--ruleset", "contractor"], ["join", "scrap", "cinder"]):
        args += ["--stat", "constitution=14"] if args[0] == "join" else []
        assert runner.invoke(app, args).exit_code == 0
    result = runner.invoke(app, ["hit", "scrap", "cinder", "99", "--roll", "wound=0"])
    assert result.exit_code == 3
    assert result.stderr.strip() == (
        "error: event #3, field $.rolls.wound[0]: a d100 shows 1 to 100, not 0: "
        "a d100's 00 is read as 100: give 100"
    )
    given_100 = runner.invoke(app, ["hit", "scrap", "cinder", "99", "--roll", "wound=100"])
    assert given_100.exit_code == 0 and "Maimed to location 10" in given_100.stdout


def test_a_wound_id_is_its_hits_id_and_undoing_an_earlier_hit_does_not_rename_it() -> None:
    log: list[Event] = [
        FightStarted(ruleset="contractor"),
        CharacterJoined(character="cinder", stats={"constitution": 14}),
        to_zero(33),  # #3
        to_zero(37),  # #4
        treat("#4"),
        Retract(event="#3"),
    ]
    final = list(replay(log))[-1][0]
    assert final.characters["cinder"].injuries == ()
    assert final.characters["cinder"].constitution == 14


def test_turn_ticks_change_nothing() -> None:
    state = fight(to_zero(37))
    for tick in (TurnStarted(side="crew"), TurnEnded(round=1), TurnStarted(character="cinder")):
        after, changes = apply(state, tick)
        assert after.characters == state.characters and changes.characters == []


def test_a_rule_error_on_replay_becomes_a_void_change() -> None:
    state = fight(to_zero(37))
    after, changes = apply_or_void(state, treat("nope"))
    assert changes.void is not None and "no active wound" in changes.void
    assert after.characters == state.characters


def test_machine_declares_upright_out_of_action_and_dead_and_nothing_leaves_dead() -> None:
    graph = get_ruleset("contractor").graph
    assert graph.states == ("upright", "out_of_action", "dead")
    assert not any(source == "dead" for source, _ in graph.edges)


# --- drawn dice ---------------------------------------------------------------------------------


def test_drawn_wound_rolls_are_lucky_maimed_and_location_10_as_often_as_a_d100_says() -> None:
    base = fight(constitution=1000)
    n = 20_000
    lucky = maimed = exposed = 0
    for i in range(n):
        sheet = cinder(apply(base, Hit(id=f"h{i}", target="cinder", damage=9999))[0])
        lucky += sheet.motivation > 0
        maimed += any(w.maimed for w in sheet.injuries) or any(p.roll == 100 for p in sheet.pending)
        exposed += bool(sheet.pending)
    # exact: Lucky 10/100, Maimed 10/100, location 10 without Lucky: 20, 30, ..., 100 = 9/100
    for count, hits in ((lucky, 10), (maimed, 10), (exposed, 9)):
        p = hits / 100
        sigma = (n * p * (1 - p)) ** 0.5
        assert abs(count - n * p) < 5 * sigma, (count, hits)


# --- the example fights shipped with the package -----------------------------------------------

DATA = Path(str(files("woundlog.replays") / "data"))


def final_state(name: str, at: int | None = None) -> FightState[Any]:
    steps = list(replay_file(DATA / name, at=at, strict=True))
    return steps[-1][0]


def test_shipped_cinder_example_is_the_worked_example_then_its_treatment() -> None:
    wounded = final_state("contractor_cinder.jsonl", at=4).characters["cinder"]
    assert (wounded.constitution, wounded.max_hp, wounded.penalties) == (10, 10, {"dexterity": -2})
    assert [(w.id, w.type, w.location) for w in wounded.injuries] == [
        ("maul", "Fracture", "weapon_arm")
    ]
    treated = final_state("contractor_cinder.jsonl").characters["cinder"]
    assert (treated.constitution, treated.wound_counter, treated.penalties) == (14, 0, {})


def test_shipped_salvage_example_tells_gear_lucky_maimed_prosthetic_and_death() -> None:
    end = final_state("contractor_salvage.jsonl").characters
    assert {cid: c.state for cid, c in end.items()} == {
        "brask": "upright",
        "mirel": "upright",
        "tomo": "dead",
    }
    assert "weapon_arm" not in end["brask"].gear and end["brask"].wound_counter == 0
    assert end["mirel"].motivation == 6
    assert end["mirel"].injuries[0].prosthetic and end["mirel"].constitution == 5


def test_shipped_own_tables_example_uses_the_tables_its_log_carries() -> None:
    knocked = final_state("contractor_own_tables.jsonl", at=4).characters["ash"]
    assert knocked.state == "out_of_action"
    assert knocked.injuries[0].type == "Knockout"
    assert final_state("contractor_own_tables.jsonl").characters["ash"].state == "upright"


BOOK_TOML = """
[wound_types.rows]
"11-36" = { name = "Bruise", effect = "-1 on the next check" }
"37" = { name = "Fracture", effect = "disadvantage with that limb until treated" }
"38-90" = { name = "Knockout", effect = "senseless", prevents_acting = true }

[locations.rows]
1 = { name = "skull", penalty = { wits = -2 } }
2 = { name = "eyes" }
3 = { name = "torso" }
4 = { name = "gut" }
5 = { name = "back", gear = ["back", "pack"] }
6 = { name = "shield_arm", gear = ["shield_arm"] }
7 = { name = "weapon_arm", penalty = { dexterity = -2 }, gear = ["weapon_arm"] }
8 = { name = "hips" }
9 = { name = "legs", penalty = { speed = -2 } }
"""


def test_tables_written_in_toml_as_the_docstring_shows_replace_the_stand_ins() -> None:
    state = fight(to_zero(38), to_zero(71), tables=msgspec.toml.decode(BOOK_TOML))
    assert [(w.type, w.location) for w in cinder(state).injuries] == [
        ("Knockout", "hips"),
        ("Knockout", "skull"),
    ]
    assert cinder(state).state == "out_of_action"


def test_a_lost_prosthetic_takes_hp_above_the_lower_maximum_down_with_it() -> None:
    # a fight's own table whose chest wound costs Constitution: fitting the prosthetic gives the
    # 2 Constitution back, losing it takes them again, and HP cannot stay above Maximum HP
    chest = {"name": "chest", "penalty": {"constitution": -2}}
    arm = {"name": "weapon_arm", "penalty": {"dexterity": -2}}
    rows = {str(n): {"name": f"place_{n}"} for n in range(1, 10)} | {"3": chest, "7": arm}
    maimed = Hit(target="cinder", damage=8, id="w1", rolls={"wound": [93]})  # 9x Maimed, at 3
    state = fight(maimed, constitution=8, tables={"locations": {"rows": rows}})
    assert (cinder(state).max_hp, cinder(state).hp) == (2, 2)  # 8 - 4 (counter) - 2 (chest)
    for event in (
        treat("w1", means="prosthetic"),
        Heal(target="cinder", amount=2),
        Choice(character="cinder", option="prosthetic_lost:w1"),
    ):
        state, _ = apply(state, event)
        if isinstance(event, Heal) and event.means != "prosthetic":
            assert (cinder(state).max_hp, cinder(state).hp) == (4, 4)
    assert (cinder(state).max_hp, cinder(state).hp) == (2, 2)


# --- examples the mutation run found missing (tests/mutation/results, seed 27) ---------------


def test_a_contractor_may_join_with_constitution_1() -> None:
    assert cinder(fight(constitution=1)).constitution == 1


@pytest.mark.parametrize("roll", [51, 50], ids=["location-1", "location-10"])
def test_a_wound_taking_constitution_below_0_resets_hp_to_0_not_below(roll: int) -> None:
    # Constitution 1 - 4 for the wound = -3: Maximum HP -3, and HP shown and kept at 0
    state, changes = apply(fight(constitution=1), to_zero(roll))
    assert (cinder(state).constitution, cinder(state).hp, cinder(state).state) == (-3, 0, "dead")
    assert "Constitution 1 -> -3" in changes.explanation
    assert "HP reset to 0; Cinder dies" in changes.explanation


def test_gear_damage_reads_as_the_wound_type_or_destroyed() -> None:
    from woundlog.core.changes import show

    damaged = vex(fight(to_zero(57, "vex", id="h1")))  # Puncture, location 7: the weapon arm
    assert show(damaged.gear_damage) == "h1 Coil Rifle: Puncture"
    destroyed = vex(fight(to_zero(97, "vex", id="h1")))  # Maimed, location 7
    assert show(destroyed.gear_damage) == "h1 Coil Rifle: destroyed"


# Between jobs: "Non-Maimed wounds can be treated by: ... Camp Treat Wound action ... Maimed
# wounds cannot be removed by normal treatment. They require prosthetics or Coiltech
# restoration." A record of Constitution 14 with one wound's counter (-4) taken off.


def on_the_record(injury: Injury) -> Record:
    current = {"constitution": 10, "dexterity": 10}
    return Record(member="cinder", name="Cinder", current=current, injuries=(injury,))


def treated_between_jobs(record: Record, means: str) -> Record:
    treat = get_ruleset("contractor").permanence.treat
    return treat(record, Treatment(member="cinder", means=means))


def test_a_wound_not_maimed_is_removed_by_a_camp_treat_wound() -> None:
    fracture = Injury(name="h1 Fracture", fight="f1", event="#3", effect={"constitution": -4})
    treated = treated_between_jobs(on_the_record(fracture), "treat_wound")
    assert (treated.current, treated.injuries) == ({"constitution": 14, "dexterity": 10}, ())


def test_a_maimed_wound_needs_a_prosthetic_or_coiltech() -> None:
    maimed = Injury(
        name="h2 Maimed",
        fight="f1",
        event="#4",
        effect={"constitution": -4, "dexterity": -2},
        permanent=True,
    )
    record = on_the_record(maimed)
    with pytest.raises(RuleError, match="Maimed wounds cannot be removed by normal treatment"):
        treated_between_jobs(record, "treat_wound")
    # the prosthetic offsets the penalty (Dexterity back to 10 + 2); the counter stays
    fitted = treated_between_jobs(record, "prosthetic")
    assert fitted.current == {"constitution": 10, "dexterity": 12}
    assert [(i.effect, i.prosthetic) for i in fitted.injuries] == [({"constitution": -4}, True)]
    restored = treated_between_jobs(record, "coiltech")
    assert (restored.current, restored.injuries) == ({"constitution": 14, "dexterity": 12}, ())
