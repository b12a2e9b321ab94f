"""Each DragonQuest rule, with the dice given, as the rule text states it (and as its docstring
decides where the text is silent)."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.core.rulesets.dragonquest import (
    GRIEVOUS_INJURY_STAND_IN,
    GrievousInjuryTable,
    band_of_strike,
    break_band,
    modified_strike_chance,
    special_damage_chart,
)
from woundlog.events import (
    Amend,
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
    read_jsonl,
)
from woundlog.replays import replay

from ..invariants import undo_moves_no_other_die

DATA = Path(str(files("woundlog.replays") / "data"))
ROLF = {"fatigue": 15, "endurance": 14, "willpower": 12, "protection": 4}
"""Rolf in Leather armour (Protection Rating 4)."""


def fight(
    *events: Event,
    options: dict[str, bool | int | str] | None = None,
    tables: dict[str, Any] | None = None,
    **stats: int,
) -> FightState[Any]:
    """A DragonQuest fight with Rolf (ROLF, overridden by `stats`) on side `company` and a
    goblin on side `goblins`, then `events`."""
    state, _ = apply(
        None, FightStarted(ruleset="dragonquest", options=options or {}, tables=tables or {})
    )
    for event in (
        CharacterJoined(character="rolf", name="Rolf", side="company", stats={**ROLF, **stats}),
        CharacterJoined(
            character="gob",
            name="Gob",
            side="goblins",
            kind="monster",
            stats={"fatigue": 9, "endurance": 8, "willpower": 6},
        ),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def hit(
    damage: int, target: str = "rolf", rolls: dict[str, list[int]] | None = None, **facts: Any
) -> Hit:
    return Hit(target=target, damage=damage, rolls=rolls or {}, **facts)


def rolf(state: FightState[Any]) -> Any:
    return state.characters["rolf"]


def down_to(fatigue: int) -> list[Event]:
    """Fatigue hits bringing Rolf (15 Fatigue, Leather) down to `fatigue`, none of them
    stunning (5 or less through the armour each)."""
    events: list[Event] = []
    left = ROLF["fatigue"]
    while left > fatigue:
        step = min(5, left - fatigue)
        events.append(hit(step + 4))
        left -= step
    return events


STUN_PULSE_ENDS = TurnEnded(note="the pulse in which he was stunned ends: no attempt yet")
"""A figure stunned in a pulse tries to recover only in the pulses after it."""


def dice(changes: Any) -> list[tuple[str, int]]:
    return [(d.purpose, d.value) for d in changes.dice]


# --- the worked example: Rolf in Leather armour ----------------------------------------------


def test_rolf_with_3_fatigue_takes_9_through_leather_loses_3_fatigue_and_the_rest_is_ignored() -> (
    None
):
    state = fight(*down_to(3))
    assert rolf(state).fatigue == 3
    state, changes = apply(state, hit(9))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 14)
    assert "armour absorbs 4, 3 off Fatigue (3 -> 0), 2 ignored" in changes.explanation


def test_rolf_next_fatigue_hit_of_9_leather_absorbs_4_and_5_come_off_endurance() -> None:
    state = fight(*down_to(3), hit(9))
    state, changes = apply(state, hit(9))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 9)
    assert "armour absorbs 4, 5 off Endurance (14 -> 9)" in changes.explanation
    assert rolf(state).state == "upright"


def test_shipped_rolf_log_replays_the_worked_example_exactly() -> None:
    events = [event for _, event in read_jsonl(DATA / "dragonquest_rolf.jsonl")]
    steps = list(replay(events))
    assert all(changes.void is None for _, changes in steps)
    figures = [state.characters["rolf"] for state, _ in steps[-2:]]
    assert [(f.fatigue, f.endurance) for f in figures] == [(0, 14), (0, 9)]
    assert "2 ignored" in steps[-2][1].explanation


# --- the Special Damage Chart ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chance", "grievous", "endurance"),
    [
        (3, 0, 0),  # 0.15 and 0.45 round down: no special damage at all
        (4, 0, 1),  # 15% of 4 = 0.6 rounds up
        (9, 0, 1),  # 5% of 9 = 0.45 rounds down
        (10, 1, 2),  # 0.5 and 1.5: halves round up
        (23, 1, 3),  # 3.45 rounds down
        (24, 1, 4),  # 3.6 rounds up
        (29, 1, 4),  # the book's corrected row: 1.45 -> 1, 4.35 -> 4
        (30, 2, 5),  # 1.5 -> 2, 4.5 -> 5
        (36, 2, 5),
        (37, 2, 6),  # 5.55 rounds up
        (100, 5, 15),
    ],
)
def test_special_damage_chart_rounds_5_and_15_percent_to_nearest_halves_up(
    chance: int, grievous: int, endurance: int
) -> None:
    assert special_damage_chart(chance) == (grievous, endurance)


@pytest.mark.parametrize(
    ("roll", "band"),
    [(1, "grievous"), (3, "grievous"), (4, "endurance"), (9, "endurance"), (10, "fatigue")],
)
def test_strike_check_band_edges_at_a_chance_of_60(roll: int, band: str) -> None:
    # 5% of 60 is 3, 15% of 60 is 9
    assert band_of_strike(roll, 60, roll_01_grievous=True) == band


@pytest.mark.parametrize(
    ("roll", "endurance"), [(3, 14 - 8), (4, 14 - 8), (9, 14 - 8), (10, 14 - 4), (60, 14 - 4)]
)
def test_strike_facts_choose_the_band_of_a_hit(roll: int, endurance: int) -> None:
    # Rolf at 0 Fatigue: an Endurance (or Grievous) band takes the full 8, a Fatigue one 8 - 4
    state = fight(*down_to(0))
    facts: dict[str, Any] = {"weapon": "A", "rolls": {"grievous": [99]}}
    state, _ = apply(state, hit(8, strike_roll=roll, strike_chance=60, **facts))
    assert rolf(state).endurance == endurance


def test_strike_roll_of_01_always_qualifies_for_a_grievous_injury() -> None:
    # a chance of 9 has no Grievous band (0.45 rounds to 0), but the house rule gives 01 one
    assert band_of_strike(1, 9, roll_01_grievous=True) == "grievous"
    state, changes = apply(
        fight(), hit(6, strike_roll=1, strike_chance=9, weapon="C", rolls={"grievous": [1]})
    )
    assert rolf(state).injuries == ("skull fractured",)
    assert dice(changes) == [("grievous", 1)]


def test_without_the_01_house_rule_a_strike_of_01_follows_the_chart() -> None:
    assert band_of_strike(1, 9, roll_01_grievous=False) == "endurance"
    state, changes = apply(
        fight(options={"strike_01_grievous": False}),
        hit(6, strike_roll=1, strike_chance=9, rolls={"grievous": [1]}),
    )
    assert rolf(state).endurance == 8 and rolf(state).injuries == ()
    assert changes.dice == []


def test_band_given_directly_sets_the_damage_band() -> None:
    state = fight(hit(8, band="endurance"))
    assert (rolf(state).fatigue, rolf(state).endurance) == (15, 6)


def test_hit_with_neither_band_nor_strike_check_is_a_fatigue_hit() -> None:
    state = fight(hit(8))
    assert (rolf(state).fatigue, rolf(state).endurance) == (11, 14)


def test_band_that_contradicts_the_strike_check_is_refused() -> None:
    with pytest.raises(RuleError, match="contradicts") as err:
        apply(fight(), hit(8, band="fatigue", strike_roll=2, strike_chance=60))
    assert err.value.field == "$.band"


def test_band_that_agrees_with_the_strike_check_is_accepted() -> None:
    state = fight(hit(8, band="endurance", strike_roll=5, strike_chance=60))
    assert rolf(state).endurance == 6


def test_strike_roll_without_its_chance_is_refused_naming_the_missing_fact() -> None:
    with pytest.raises(RuleError, match="give `strike_chance` too") as err:
        apply(fight(), hit(8, strike_roll=5))
    assert err.value.field == "$.strike_chance"
    with pytest.raises(RuleError, match="give `strike_roll` too") as err:
        apply(fight(), hit(8, strike_chance=50))
    assert err.value.field == "$.strike_roll"


def test_strike_roll_above_the_chance_is_a_miss_and_refused() -> None:
    with pytest.raises(RuleError, match="misses") as err:
        apply(fight(), hit(8, strike_roll=61, strike_chance=60))
    assert err.value.field == "$.strike_roll"


# --- Fatigue and Endurance damage ------------------------------------------------------------


def test_armour_absorbs_a_fatigue_hit_up_to_its_protection_rating() -> None:
    state, changes = apply(fight(), hit(4))
    assert rolf(state).fatigue == 15
    assert changes.characters == []
    assert "armour absorbs 4" in changes.explanation


def test_fatigue_hit_comes_off_endurance_once_fatigue_is_zero_after_armour() -> None:
    state = fight(*down_to(0), hit(6))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 12)


def test_endurance_hit_takes_the_full_damage_armour_absorbs_nothing() -> None:
    state = fight(hit(7, band="endurance"))
    assert (rolf(state).fatigue, rolf(state).endurance, rolf(state).protection) == (15, 7, 4)


def test_endurance_hit_never_touches_fatigue() -> None:
    state = fight(*down_to(3), hit(5, band="endurance"))
    assert (rolf(state).fatigue, rolf(state).endurance) == (3, 9)


def test_hit_of_no_damage_does_nothing() -> None:
    _, changes = apply(fight(), hit(0))
    assert changes.characters == [] and changes.dice == []


# --- Grievous Injuries ----------------------------------------------------------------------


def test_grievous_hit_applies_endurance_damage_then_rolls_the_weapon_class_range() -> None:
    state, changes = apply(fight(), hit(5, band="grievous", weapon="B", rolls={"grievous": [7]}))
    figure = rolf(state)
    assert figure.endurance == 9 and figure.fatigue == 15
    assert figure.injuries == ("hamstrung",)
    assert dice(changes) == [("grievous", 7)]
    damage_at = changes.explanation.index("off Endurance")
    assert damage_at < changes.explanation.index("Grievous Injury Table")


def test_grievous_roll_outside_the_range_gives_no_injury_but_the_endurance_damage_stands() -> None:
    state, changes = apply(fight(), hit(5, band="grievous", weapon="A", rolls={"grievous": [16]}))
    assert rolf(state).endurance == 9
    assert rolf(state).injuries == () and rolf(state).protection == 4
    assert "no Grievous Injury" in changes.explanation


@pytest.mark.parametrize(("weapon", "last_in_range"), [("A", 15), ("B", 20), ("C", 25)])
def test_stand_in_table_ranges_end_where_its_data_says(weapon: str, last_in_range: int) -> None:
    assert GRIEVOUS_INJURY_STAND_IN.injury(weapon, 1) is not None
    assert GRIEVOUS_INJURY_STAND_IN.injury(weapon, last_in_range) is not None
    assert GRIEVOUS_INJURY_STAND_IN.injury(weapon, last_in_range + 1) is None
    assert GRIEVOUS_INJURY_STAND_IN.injury(weapon, 100) is None


def test_stand_in_table_is_labelled_in_its_data_in_the_docs_and_in_every_injury_it_gives() -> None:
    assert "STAND-IN" in GRIEVOUS_INJURY_STAND_IN.source
    assert "STAND-IN" in get_ruleset("dragonquest").documentation()
    _, changes = apply(fight(), hit(5, band="grievous", weapon="C", rolls={"grievous": [3]}))
    assert "stand-in Grievous Injury Table" in changes.explanation


def test_grievous_injury_reduces_the_armours_protection_by_2() -> None:
    state = fight(hit(5, band="grievous", weapon="C", rolls={"grievous": [3]}))
    assert rolf(state).protection == 2
    assert rolf(state).stats["protection"] == 4  # the armour's own rating, until repaired


def test_reduced_armour_absorbs_less_on_the_next_fatigue_hit() -> None:
    state = fight(hit(5, band="grievous", weapon="C", rolls={"grievous": [3]}), hit(6))
    assert rolf(state).fatigue == 11  # 6 - 2


def test_grievous_injury_never_takes_protection_below_zero() -> None:
    state = fight(hit(5, band="grievous", weapon="C", rolls={"grievous": [3]}), protection=1)
    assert rolf(state).protection == 0


def test_grievous_injury_without_armour_is_still_recorded() -> None:
    state = fight(hit(5, band="grievous", weapon="C", rolls={"grievous": [3]}), protection=0)
    assert rolf(state).injuries == ("skull fractured",)
    assert rolf(state).protection == 0


def test_a_figure_may_suffer_any_number_of_grievous_injuries() -> None:
    blow = hit(1, band="grievous", weapon="C", rolls={"grievous": [7]})
    state = fight(blow, blow, blow)
    assert rolf(state).injuries == ("ribs broken",) * 3
    assert rolf(state).protection == 0


def test_cleaving_the_shield_spares_the_armour() -> None:
    blow = hit(5, band="grievous", weapon="B", cleave_shield=True, rolls={"grievous": [2]})
    state, changes = apply(fight(shield=1), blow)
    assert (rolf(state).shield, rolf(state).protection) == (0, 4)
    assert rolf(state).injuries == ("hand severed",)
    assert "shield is cloven" in changes.explanation


def test_cleave_shield_is_ignored_when_no_grievous_injury_results() -> None:
    blow = hit(5, band="grievous", weapon="B", cleave_shield=True, rolls={"grievous": [50]})
    assert rolf(fight(blow, shield=1)).shield == 1


def test_cleave_shield_without_a_shield_is_refused() -> None:
    blow = hit(5, band="grievous", weapon="B", cleave_shield=True, rolls={"grievous": [2]})
    with pytest.raises(RuleError, match="no shield") as err:
        apply(fight(), blow)
    assert err.value.field == "$.cleave_shield"


def test_a_cloven_shield_cannot_be_cleaved_again() -> None:
    blow = hit(5, band="grievous", weapon="B", cleave_shield=True, rolls={"grievous": [2]})
    with pytest.raises(RuleError, match="no usable shield"):
        apply(fight(blow, shield=1), blow)


def test_cleave_shield_without_armour_to_spare_is_refused() -> None:
    blow = hit(5, band="grievous", weapon="B", cleave_shield=True, rolls={"grievous": [2]})
    with pytest.raises(RuleError, match="wears none"):
        apply(fight(shield=1, protection=0), blow)


def test_grievous_hit_without_a_weapon_class_is_refused() -> None:
    with pytest.raises(RuleError, match="A thrusting, B slashing, C crushing") as err:
        apply(fight(), hit(5, band="grievous"))
    assert err.value.field == "$.weapon"


def test_grievous_hit_whose_endurance_damage_kills_rolls_nothing() -> None:
    state, changes = apply(fight(), hit(14, band="grievous", weapon="A", rolls={"grievous": [1]}))
    assert rolf(state).state == "dead"
    assert changes.dice == [] and changes.unused == {"grievous": [1]}


def test_grievous_hit_on_a_figure_it_knocks_unconscious_still_rolls() -> None:
    state = fight(hit(12, band="grievous", weapon="A", rolls={"grievous": [1]}))
    assert rolf(state).state == "out_of_action"
    assert rolf(state).injuries == ("eye put out",)


# --- the Grievous Injury Table carried in the log ------------------------------------------

BOOK = {
    "source": "the GM's copy of the book",
    "A": {"01-10": "run through"},
    "B": {"01-30": "limb lopped", "31": "ear off"},
    "C": {"01-02": "crushed"},
}


def test_a_grievous_injury_table_in_the_log_replaces_the_stand_in() -> None:
    blow = hit(5, band="grievous", weapon="B", rolls={"grievous": [31]})
    state, changes = apply(fight(tables={"grievous_injury": BOOK}), blow)
    assert rolf(state).injuries == ("ear off",)
    assert "stand-in" not in changes.explanation


def test_the_replacement_table_ranges_rule_where_the_stand_in_would_not() -> None:
    blow = hit(5, band="grievous", weapon="B", rolls={"grievous": [25]})
    assert rolf(fight(blow)).injuries == ()  # the stand-in's class B stops at 20
    assert rolf(fight(blow, tables={"grievous_injury": BOOK})).injuries == ("limb lopped",)


def test_a_fight_without_a_table_plays_with_the_stand_in() -> None:
    rules = get_ruleset("dragonquest")
    assert rules.table(fight(), "grievous_injury") == GRIEVOUS_INJURY_STAND_IN


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ({**BOOK, "A": {"01-10": "x", "10-12": "y"}}, "class A: D100 table: 10 is in two rows"),
        ({**BOOK, "C": {"90-101": "x"}}, 'class C: range "90-101" must run upwards within 1-100'),
        ({**BOOK, "C": {"05-01": "x"}}, 'class C: range "05-01" must run upwards'),
        ({**BOOK, "C": {"1 to 5": "x"}}, 'range "1 to 5" is not LOW-HIGH'),
        ({"A": {}, "B": {}}, "missing required field `C`"),
        ({**BOOK, "D": {}}, "unknown field `D`"),
        ({**BOOK, "A": ["01-10"]}, "Expected `object`, got `array`"),
    ],
    ids=["overlap", "past-100", "downwards", "not-a-range", "no-C", "class-D", "not-ranges"],
)
def test_a_malformed_grievous_injury_table_is_refused_as_structural(
    table: Any, reason: str
) -> None:
    with pytest.raises(StructuralError, match=re.escape(reason)) as err:
        apply(None, FightStarted(ruleset="dragonquest", tables={"grievous_injury": table}))
    assert err.value.field == "$.tables.grievous_injury"


def test_a_malformed_table_in_a_replayed_log_stops_the_replay() -> None:
    started = FightStarted(ruleset="dragonquest", tables={"grievous_injury": {"A": {}}})
    with pytest.raises(StructuralError, match="missing required field `B`"):
        list(replay([started]))


def test_the_stand_in_decodes_as_its_own_table_type() -> None:
    import msgspec

    raw = msgspec.to_builtins(GRIEVOUS_INJURY_STAND_IN)
    assert msgspec.convert(raw, GrievousInjuryTable) == GRIEVOUS_INJURY_STAND_IN


# --- magic and breath ------------------------------------------------------------------------


def test_magic_comes_off_fatigue_past_the_armour() -> None:
    state = fight(hit(5, magic=True))
    assert (rolf(state).fatigue, rolf(state).endurance) == (10, 14)


def test_magic_spills_from_fatigue_into_endurance() -> None:
    state = fight(*down_to(3), hit(5, magic=True))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 12)


def test_spell_doing_more_than_fatigue_and_endurance_together_kills() -> None:
    state, changes = apply(fight(), hit(30, magic=True))
    assert rolf(state).state == "dead"
    assert "killed outright" in changes.explanation


def test_breath_weapon_is_treated_as_magical_energy() -> None:
    state = fight(*down_to(3), hit(5, breath=True))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 12)


@pytest.mark.parametrize("fact", [{"band": "endurance"}, {"strike_roll": 3, "strike_chance": 50}])
def test_magic_with_a_strike_check_band_is_refused(fact: dict[str, Any]) -> None:
    with pytest.raises(RuleError, match="no Strike Check band"):
        apply(fight(), hit(5, magic=True, **fact))


def test_magic_never_knocks_back_and_a_slam_with_it_is_refused() -> None:
    state, changes = apply(fight(physical_strength=5, agility=10), hit(9, magic=True))
    assert changes.dice == []
    with pytest.raises(RuleError, match="only a blow") as err:
        apply(state, hit(9, magic=True, slam=True))
    assert err.value.field == "$.slam"


# --- stun --------------------------------------------------------------------------------------


def test_effective_damage_over_a_third_of_starting_fatigue_stuns() -> None:
    # Rolf started with 15 Fatigue: 6 effective (10 - 4) is over 5
    state = fight(hit(10))
    assert rolf(state).state == "stunned"


def test_effective_damage_of_exactly_a_third_does_not_stun() -> None:
    state = fight(hit(9))  # 5 effective: not greater than 15 / 3
    assert rolf(state).state == "upright"


def test_ignored_points_are_not_effective_damage_for_the_stun() -> None:
    # Rolf started with 12: the 5 past the armour would stun (5 > 4), the 3 he lost do not
    state = fight(hit(13), STUN_PULSE_ENDS, fatigue=12)  # 9 through: 12 -> 3, and stunned
    state = apply(state, TurnEnded(rolls={"stun_recovery": [1]}))[0]
    assert rolf(state).state == "upright"
    state, _ = apply(state, hit(9))
    assert rolf(state).fatigue == 0 and rolf(state).state == "upright"


def test_endurance_damage_counts_as_effective_damage_for_the_stun() -> None:
    state = fight(hit(6, band="endurance"))  # 6 > 15 / 3
    assert rolf(state).state == "stunned"


@pytest.mark.parametrize(("roll", "kept"), [(1, True), (30, True), (31, False), (100, False)])
def test_becoming_stunned_rolls_the_drop_check_at_most_3_x_md(roll: int, kept: bool) -> None:
    state, changes = apply(fight(manual_dexterity=10), hit(10, rolls={"drop": [roll]}))
    assert rolf(state).state == "stunned"
    assert dice(changes) == [("drop", roll)]
    assert ("keeps hold" if kept else "drops what he holds") in changes.explanation


def test_drop_check_is_not_rolled_when_manual_dexterity_is_unknown() -> None:
    state, changes = apply(fight(), hit(10))
    assert rolf(state).state == "stunned"
    assert changes.dice == []
    assert "no manual_dexterity" in changes.explanation


def test_stun_while_already_stunned_stays_stunned_without_a_second_drop_check() -> None:
    state = fight(hit(10, rolls={"drop": [5]}), manual_dexterity=10)
    state, changes = apply(state, hit(10, rolls={"drop": [99]}))
    assert rolf(state).state == "stunned"
    assert changes.dice == [] and changes.unused == {"drop": [99]}
    assert "already stunned" in changes.explanation


def test_strike_that_knocks_a_figure_unconscious_does_not_also_stun_it() -> None:
    state, changes = apply(fight(manual_dexterity=10), hit(11, band="endurance"))
    assert rolf(state).state == "out_of_action"
    assert changes.dice == []


def test_knocked_down_figure_can_be_stunned() -> None:
    state = fight(
        hit(9, rolls={"knockback": [99], "keep_feet": [99]}), physical_strength=5, agility=10
    )
    assert rolf(state).state == "knocked_down"
    state = apply(state, hit(10, rolls={"knockback": [1]}))[0]
    assert rolf(state).state == "stunned"


# --- recovering from stun, each pulse ----------------------------------------------------------


@pytest.mark.parametrize(("roll", "state"), [(33, "upright"), (34, "stunned")])
def test_stun_recovery_at_the_end_of_each_pulse_is_at_most_2_x_wp_plus_current_fatigue(
    roll: int, state: str
) -> None:
    # 10 through the armour: Fatigue 15 -> 9; 2 x 12 + 9 = 33
    stunned = fight(hit(10), STUN_PULSE_ENDS)
    assert rolf(stunned).fatigue == 9
    after, changes = apply(stunned, TurnEnded(round=2, rolls={"stun_recovery": [roll]}))
    assert rolf(after).state == state
    assert "against 2 x WP + Fatigue = 33" in changes.explanation


def test_stun_recovery_uses_fatigue_at_the_instant_of_the_roll() -> None:
    stunned = fight(hit(10), hit(6, magic=True), STUN_PULSE_ENDS)  # target 2 x 12 + 3 = 27
    after, changes = apply(stunned, TurnEnded(rolls={"stun_recovery": [28]}))
    assert rolf(after).state == "stunned"
    assert "d100=28 against 2 x WP + Fatigue = 27: still stunned" in changes.explanation


def test_a_stunned_figure_tries_again_every_pulse() -> None:
    state = fight(hit(10), STUN_PULSE_ENDS, TurnEnded(rolls={"stun_recovery": [90]}))
    assert rolf(state).state == "stunned"
    state, _ = apply(state, TurnEnded(rolls={"stun_recovery": [2]}))
    assert rolf(state).state == "upright"


@pytest.mark.parametrize(
    "scope", [{"character": "rolf"}, {"side": "company"}, {}], ids=["figure", "side", "round"]
)
def test_pulse_ends_for_the_figure_its_side_or_the_whole_round(scope: dict[str, str]) -> None:
    ends = [TurnEnded(**scope, rolls={"stun_recovery": [1]}) for _ in range(2)]  # type: ignore[arg-type]
    state = fight(hit(10), ends[0])
    assert rolf(state).state == "stunned"  # the pulse he was stunned in
    state = apply(state, ends[1])[0]
    assert rolf(state).state == "upright"


def test_the_end_of_another_sides_turn_is_not_the_stunned_figures_pulse() -> None:
    state, changes = apply(fight(hit(10)), TurnEnded(side="goblins"))
    assert rolf(state).state == "stunned" and changes.dice == []


def test_turn_started_has_no_rule() -> None:
    state, changes = apply(fight(hit(10)), TurnStarted(round=2))
    assert rolf(state).state == "stunned" and changes.dice == []


def test_unconscious_figure_makes_no_stun_recovery_roll() -> None:
    _, changes = apply(fight(hit(11, band="endurance")), TurnEnded())
    assert changes.dice == []


# --- unconsciousness and death -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "state"),
    [(10, "upright"), (11, "out_of_action"), (13, "out_of_action"), (14, "dead")],
)
def test_endurance_3_or_less_is_unconscious_and_0_is_dead(damage: int, state: str) -> None:
    # Endurance 14, 3 x damage never under the stun line matters here: check the state alone
    after = fight(hit(damage, band="endurance"), fatigue=60)
    assert rolf(after).state == state
    assert rolf(after).endurance == 14 - damage


def test_an_unconscious_figure_can_still_be_hit_and_killed() -> None:
    state = fight(*down_to(0), hit(11, band="endurance"))
    assert rolf(state).state == "out_of_action"
    state = apply(state, hit(7))[0]  # Fatigue 0: 3 past the armour come off Endurance
    assert rolf(state).state == "dead"


def test_a_hit_on_the_dead_is_refused() -> None:
    with pytest.raises(RuleError, match="dead"):
        apply(fight(hit(14, band="endurance")), hit(1))


def test_the_worst_result_of_a_hit_stands() -> None:
    state, _ = apply(fight(), hit(12, band="endurance"))
    assert rolf(state).state == "out_of_action"  # also over the stun line: unconscious wins


def test_nothing_leaves_dead_and_every_state_is_reachable() -> None:
    graph = get_ruleset("dragonquest").graph
    assert graph.states == ("upright", "knocked_down", "stunned", "out_of_action", "dead")
    assert not any(source == "dead" for source, _ in graph.edges)
    reached, frontier = {graph.initial}, [graph.initial]
    while frontier:
        at = frontier.pop()
        for (source, _), dest in graph.table.items():
            if source == at and dest not in reached:
                reached.add(dest)
                frontier.append(dest)
    assert reached == set(graph.states)


# --- the knock-back house rule -----------------------------------------------------------------

STRONG: dict[str, Any] = {
    "physical_strength": 10,
    "agility": 12,
    "manual_dexterity": 8,
    "fatigue": 30,
}
"""A strong Rolf, with Fatigue enough that a blow of 11 (7 through the Leather) does not stun."""


def test_damage_not_over_physical_strength_rolls_no_knock_back() -> None:
    _, changes = apply(fight(**STRONG), hit(10))
    assert changes.dice == []


@pytest.mark.parametrize(("roll", "pushed"), [(29, False), (30, True), (100, True)])
def test_damage_over_ps_rolls_under_3_x_ps_or_is_knocked_back(roll: int, pushed: bool) -> None:
    state, changes = apply(fight(**STRONG), hit(11, rolls={"knockback": [roll], "keep_feet": [1]}))
    assert ("knocked back one hex" in changes.explanation) == pushed
    assert [p for p, _ in dice(changes)] == (
        ["knockback", "keep_feet"] if pushed else ["knockback"]
    )
    assert rolf(state).state == "upright"


@pytest.mark.parametrize(("roll", "state"), [(35, "upright"), (36, "knocked_down")])
def test_knocked_back_figure_rolls_under_3_x_agility_or_is_knocked_down(
    roll: int, state: str
) -> None:
    after = fight(hit(11, rolls={"knockback": [50], "keep_feet": [roll]}), **STRONG)
    assert rolf(after).state == state


def test_knock_back_weighs_the_force_of_the_blow_not_the_damage_through_armour() -> None:
    # 11 > PS 10 though the armour lets only 7 through
    _, changes = apply(fight(**STRONG), hit(11, rolls={"knockback": [1]}))
    assert dice(changes) == [("knockback", 1)]


def test_knock_back_is_off_when_the_house_rule_is() -> None:
    _, changes = apply(fight(options={"knockback": False}, **STRONG), hit(20, rolls={}))
    assert [p for p, _ in dice(changes)] == ["drop"]  # the stun's drop check, nothing else


def test_knock_back_is_skipped_without_the_strength_stats() -> None:
    _, changes = apply(fight(), hit(9))
    assert changes.dice == []
    _, changes = apply(fight(physical_strength=5), hit(9))
    assert changes.dice == []  # agility unknown


def test_figure_already_on_the_ground_is_pushed_but_rolls_no_keep_feet() -> None:
    state = fight(hit(11, rolls={"knockback": [99], "keep_feet": [99]}), **STRONG)
    state, changes = apply(state, hit(11, rolls={"knockback": [99], "keep_feet": [1]}))
    assert [p for p, _ in dice(changes)] == ["knockback"]
    assert rolf(state).state == "knocked_down"


def test_stunned_figure_knocked_off_its_feet_stays_stunned() -> None:
    state = fight(hit(15, rolls={"drop": [1], "knockback": [99], "keep_feet": [99]}), **STRONG)
    assert rolf(state).state == "stunned"


def test_unconscious_figure_is_not_knocked_back() -> None:
    _, changes = apply(fight(**STRONG), hit(11, band="endurance"))
    assert changes.dice == []


@pytest.mark.parametrize(("roll", "state"), [(29, "upright"), (30, "knocked_down")])
def test_slam_knocks_down_unless_under_3_x_ps(roll: int, state: str) -> None:
    after = fight(hit(11, slam=True, rolls={"knockback": [roll], "drop": [1]}), **STRONG)
    assert rolf(after).state == state


@pytest.mark.parametrize(("roll", "kept"), [(23, True), (24, False)])
def test_slammed_figure_rolls_under_3_x_md_to_keep_hand_held_items(roll: int, kept: bool) -> None:
    state, changes = apply(
        fight(**STRONG), hit(11, slam=True, rolls={"knockback": [99], "drop": [roll]})
    )
    assert rolf(state).state == "knocked_down"
    assert dice(changes) == [("knockback", 99), ("drop", roll)]
    assert ("keeps hand-held items" if kept else "drops hand-held items") in changes.explanation


def test_slam_needs_damage_over_physical_strength() -> None:
    _, changes = apply(fight(**STRONG), hit(10, slam=True))
    assert changes.dice == [] and "no slam" in changes.explanation


def test_slam_is_refused_when_the_knock_back_house_rule_is_off() -> None:
    with pytest.raises(RuleError, match="knockback=false") as err:
        apply(fight(options={"knockback": False}), hit(11, slam=True))
    assert err.value.field == "$.slam"


def test_stunning_blow_that_knocks_back_rolls_drop_then_knockback_then_keep_feet() -> None:
    rolls = {"drop": [1], "knockback": [99], "keep_feet": [1]}
    _, changes = apply(fight(**STRONG), hit(15, rolls=rolls))
    assert [p for p, _ in dice(changes)] == ["drop", "knockback", "keep_feet"]


# --- standing up -------------------------------------------------------------------------------


def test_knocked_down_figure_stands_when_his_player_spends_his_action_on_it() -> None:
    state = fight(hit(11, rolls={"knockback": [99], "keep_feet": [99]}), **STRONG)
    state, changes = apply(state, Choice(character="rolf", option="stand_up"))
    assert rolf(state).state == "upright"
    assert "standing up" in changes.explanation


def test_a_knocked_down_figure_does_not_stand_by_itself_at_the_end_of_a_pulse() -> None:
    state = fight(hit(11, rolls={"knockback": [99], "keep_feet": [99]}), TurnEnded(), **STRONG)
    assert rolf(state).state == "knocked_down"


@pytest.mark.parametrize(
    ("blow", "reason"),
    [
        (None, "already on his feet"),
        (hit(10), "stunned"),
        (hit(11, band="endurance"), "unconscious"),
        (hit(14, band="endurance"), "dead"),
    ],
)
def test_standing_up_is_refused_unless_knocked_down(blow: Hit | None, reason: str) -> None:
    state = fight(*([blow] if blow else []))
    with pytest.raises(RuleError, match=reason) as err:
        apply(state, Choice(character="rolf", option="stand_up"))
    assert err.value.field == "$.option"


def test_a_choice_other_than_standing_up_is_refused() -> None:
    with pytest.raises(RuleError, match="stand_up"):
        apply(fight(), Choice(character="rolf", option="last_stand"))


# --- healing and rest --------------------------------------------------------------------------


def test_rest_restores_fatigue_up_to_its_starting_value() -> None:
    state, changes = apply(fight(*down_to(3)), Heal(target="rolf", amount=20, means="rest"))
    assert rolf(state).fatigue == 15
    assert "regains 12 Fatigue (3 -> 15, at most 15)" in changes.explanation


def test_a_healer_restores_endurance() -> None:
    state = fight(hit(5, band="endurance"), Heal(target="rolf", amount=3, means="healer"))
    assert (rolf(state).fatigue, rolf(state).endurance) == (15, 12)


@pytest.mark.parametrize(("means", "pool"), [("rest", "endurance"), ("spell", "fatigue")])
def test_pool_fact_overrides_what_the_means_restores(means: str, pool: str) -> None:
    state = fight(hit(5, band="endurance"), hit(9))
    state, _ = apply(state, Heal(target="rolf", amount=2, means=means, pool=pool))  # type: ignore[arg-type]
    assert getattr(rolf(state), pool) == {"fatigue": 12, "endurance": 11}[pool]


def test_heal_saying_neither_means_nor_pool_is_refused() -> None:
    with pytest.raises(RuleError, match="say what the heal restores") as err:
        apply(fight(), Heal(target="rolf", amount=2))
    assert err.value.field == "$.pool"


def test_heal_by_an_unknown_means_is_refused() -> None:
    with pytest.raises(RuleError, match="rest, healer, spell, potion") as err:
        apply(fight(), Heal(target="rolf", amount=2, means="bandage"))
    assert err.value.field == "$.means"


def test_unconscious_figure_healed_above_endurance_3_revives_on_the_ground() -> None:
    state = fight(hit(11, band="endurance"), Heal(target="rolf", amount=1, means="healer"))
    assert rolf(state).state == "knocked_down" and rolf(state).endurance == 4


def test_time_revives_too_resting_endurance_back() -> None:
    state = fight(
        hit(11, band="endurance"), Heal(target="rolf", amount=1, means="rest", pool="endurance")
    )
    assert rolf(state).state == "knocked_down"


def test_unconscious_figure_healed_to_only_3_stays_unconscious() -> None:
    state = fight(hit(12, band="endurance"), Heal(target="rolf", amount=1, means="healer"))
    assert rolf(state).state == "out_of_action" and rolf(state).endurance == 3


def test_resting_fatigue_does_not_revive() -> None:
    state = fight(hit(11, band="endurance"), Heal(target="rolf", amount=5, means="rest"))
    assert rolf(state).state == "out_of_action"


def test_healing_cures_no_stun() -> None:
    state = fight(hit(10), Heal(target="rolf", amount=5, means="rest"))
    assert rolf(state).state == "stunned"


def test_heal_on_the_dead_is_refused() -> None:
    with pytest.raises(RuleError, match="dead"):
        apply(fight(hit(14, band="endurance")), Heal(target="rolf", amount=5, means="healer"))


# --- joining -----------------------------------------------------------------------------------


def started() -> FightState[Any]:
    return apply(None, FightStarted(ruleset="dragonquest"))[0]


@pytest.mark.parametrize("missing", ["fatigue", "endurance", "willpower"])
def test_figure_needs_fatigue_endurance_and_willpower(missing: str) -> None:
    stats = {k: v for k, v in ROLF.items() if k != missing}
    with pytest.raises(RuleError, match=f"dragonquest needs stat `{missing}`") as err:
        apply(started(), CharacterJoined(character="rolf", stats=stats))
    assert err.value.field == f"$.stats.{missing}"


def test_figure_joins_conscious_with_endurance_of_at_least_4() -> None:
    with pytest.raises(RuleError, match="at least 4") as err:
        apply(started(), CharacterJoined(character="rolf", stats={**ROLF, "endurance": 3}))
    assert err.value.field == "$.stats.endurance"


def test_negative_stat_is_refused() -> None:
    with pytest.raises(RuleError, match="never negative") as err:
        apply(started(), CharacterJoined(character="rolf", stats={**ROLF, "protection": -1}))
    assert err.value.field == "$.stats.protection"


def test_house_rule_stat_given_as_zero_is_refused_leave_it_out_instead() -> None:
    with pytest.raises(RuleError, match="leave it out"):
        apply(started(), CharacterJoined(character="r", stats={**ROLF, "agility": 0}))


def test_shield_is_carried_or_not() -> None:
    with pytest.raises(RuleError, match="shield"):
        apply(started(), CharacterJoined(character="r", stats={**ROLF, "shield": 2}))


def test_figure_starts_upright_with_its_pools_full_and_unknown_stats_left_out() -> None:
    figure = rolf(fight(physical_strength=14))
    assert (figure.state, figure.fatigue, figure.endurance, figure.protection) == (
        "upright",
        15,
        14,
        4,
    )
    assert "physical_strength" in figure.stats and "agility" not in figure.stats


# --- what every ruleset declares ---------------------------------------------------------------


def test_every_die_is_a_d100_named_as_the_issue_names_it() -> None:
    assert dict(get_ruleset("dragonquest").dice) == {
        "grievous": 100,
        "drop": 100,
        "stun_recovery": 100,
        "knockback": 100,
        "keep_feet": 100,
    }


def test_a_fact_dragonquest_does_not_use_is_refused() -> None:
    with pytest.raises(RuleError, match="does not use the fact `hit_strength`") as err:
        apply(fight(), hit(5, hit_strength=3))
    assert err.value.field == "$.hit_strength"
    with pytest.raises(RuleError, match="does not use the fact `items`") as err:
        apply(fight(), Heal(target="rolf", amount=1, means="rest", items=1))
    assert err.value.field == "$.items"


def test_unknown_option_is_refused_as_structural() -> None:
    with pytest.raises(StructuralError, match="dragonquest has no option `knock_back`"):
        apply(None, FightStarted(ruleset="dragonquest", options={"knock_back": True}))


def test_drawn_dice_are_recorded_as_drawn() -> None:
    _, changes = apply(fight(), Hit(id="h1", target="rolf", damage=5, band="grievous", weapon="A"))
    assert [(d.purpose, d.sides, d.source) for d in changes.dice] == [("grievous", 100, "drawn")]


def test_strict_dice_refuses_a_missing_die() -> None:
    with pytest.raises(RuleError, match="strict_dice"):
        apply(fight(options={"strict_dice": True}), hit(5, band="grievous", weapon="A"))


def test_rule_error_on_replay_becomes_a_void_change() -> None:
    state = fight(hit(14, band="endurance"))
    after, changes = apply_or_void(state, hit(1))
    assert changes.void is not None and "dead" in changes.void
    assert after.characters == state.characters


def test_drawn_stun_recovery_succeeds_as_often_as_2_x_wp_plus_fatigue_percent() -> None:
    stunned = fight(hit(10), STUN_PULSE_ENDS)  # target 33: succeeds on 33 of 100 faces
    n = 20_000
    recovered = sum(
        rolf(apply(stunned, TurnEnded(id=f"p{i}"))[0]).state == "upright" for i in range(n)
    )
    p = 33 / 100
    sigma = (n * p * (1 - p)) ** 0.5
    assert abs(recovered - n * p) < 5 * sigma


# --- the shipped example fights ------------------------------------------------------------


def shipped(name: str) -> list[Event]:
    return [event for _, event in read_jsonl(DATA / name)]


def test_shipped_skirmish_ends_as_its_story_tells() -> None:
    steps = list(replay(shipped("dragonquest_skirmish.jsonl"), strict=True))
    final = steps[-1][0]
    assert {cid: f.state for cid, f in final.characters.items()} == {
        "rolf": "upright",
        "brannoc": "upright",
        "ysolde": "upright",
        "gorlag": "upright",
        "snag": "knocked_down",  # unconscious, then brought round by a potion
        "cinderwing": "stunned",  # stunned in the last pulse: no attempt before the fight ends
    }
    brannoc = final.characters["brannoc"]
    assert (brannoc.shield, brannoc.protection, brannoc.injuries) == (0, 5, ("ribs broken",))
    assert final.characters["rolf"].endurance == 14  # the GM's slip against him was amended


def test_shipped_house_table_log_plays_with_the_table_it_carries() -> None:
    steps = list(replay(shipped("dragonquest_house_table.jsonl"), strict=True))
    hake = steps[-1][0].characters["hake"]
    assert hake.injuries == ("ear struck off", "eye put out")
    assert not any("stand-in" in changes.explanation for _, changes in steps)


def test_new_with_a_tables_file_puts_the_grievous_injury_table_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from typer.testing import CliRunner, Result

    from woundlog.replays.cli import app

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))

    def cli(*args: str) -> Result:
        return CliRunner().invoke(app, list(args))

    book = tmp_path / "book.toml"
    book.write_text(
        '[grievous_injury]\nsource = "my copy"\n'
        'A = { "01-10" = "run through" }\nB = { "01-05" = "hand off" }\nC = { "01" = "crushed" }\n'
    )
    assert cli("new", "f", "--ruleset", "dragonquest", "--tables", str(book)).exit_code == 0
    stats = ("--stat", "fatigue=15", "--stat", "endurance=14", "--stat", "willpower=12")
    assert cli("join", "f", "rolf", *stats).exit_code == 0
    facts = ("--fact", "band=grievous", "--fact", "weapon=A", "--roll", "grievous=10")
    assert cli("hit", "f", "rolf", "5", *facts).exit_code == 0
    state = json.loads(cli("state", "f", "--json").stdout)
    assert state["characters"]["rolf"]["injuries"] == ["run through"]

    book.write_text('[grievous_injury]\nA = { "01-10" = "x", "05" = "y" }\nB = {}\nC = {}\n')
    refused = cli("new", "g", "--ruleset", "dragonquest", "--tables", str(book))
    assert refused.exit_code == 3
    assert "$.tables.grievous_injury" in refused.output


# --- who may act -------------------------------------------------------------------------------


def test_who_may_act_table_reads_as_the_text_says() -> None:
    rules = get_ruleset("dragonquest")
    may = {
        state: (rules.who_may_act[state].attack, rules.who_may_act[state].heal)
        if state in rules.who_may_act
        else (True, True)
        for state in rules.graph.states
    }
    assert may == {
        "upright": (True, True),
        "knocked_down": (True, True),  # the text forbids a figure on the ground nothing
        "stunned": (False, False),  # "may not take any other action except attempt to recover"
        "out_of_action": (False, False),  # unconscious
        "dead": (False, False),
    }


def test_a_stunned_figure_may_not_strike_a_blow() -> None:
    with pytest.raises(
        RuleError,
        match="Rolf is stunned and may not take any other action except attempt to recover "
        "from Stun",
    ) as err:
        apply(fight(hit(10)), hit(3, target="gob", attacker="rolf"))
    assert err.value.field == "$.attacker"


def test_a_stunned_figure_may_not_heal() -> None:
    state = fight(hit(10), hit(3, target="gob"))
    with pytest.raises(RuleError, match="Rolf is stunned and may not take any other") as err:
        apply(state, Heal(target="gob", amount=1, means="healer", healer="rolf"))
    assert err.value.field == "$.healer"


def test_an_unconscious_figure_may_neither_strike_nor_heal() -> None:
    state = fight(hit(11, band="endurance"), hit(3, target="gob"))
    with pytest.raises(RuleError, match="Rolf is unconscious"):
        apply(state, hit(3, target="gob", attacker="rolf"))
    with pytest.raises(RuleError, match="Rolf is unconscious"):
        apply(state, Heal(target="gob", amount=1, means="healer", healer="rolf"))


def test_the_dead_may_not_strike() -> None:
    with pytest.raises(RuleError, match="Rolf is dead"):
        apply(fight(hit(14, band="endurance")), hit(3, target="gob", attacker="rolf"))


def test_a_knocked_down_figure_may_still_strike_and_heal_from_the_ground() -> None:
    state = fight(hit(11, rolls={"knockback": [99], "keep_feet": [99]}), **STRONG)
    assert rolf(state).state == "knocked_down"
    state, changes = apply(state, hit(3, target="gob", attacker="rolf"))
    assert changes.void is None and state.characters["gob"].fatigue == 6
    state, _ = apply(state, Heal(target="gob", amount=1, means="rest", healer="rolf"))
    assert state.characters["gob"].fatigue == 7


def test_a_blow_by_the_stunned_is_void_on_replay() -> None:
    state = fight(hit(10))
    after, changes = apply_or_void(state, hit(3, target="gob", attacker="rolf"))
    assert changes.void is not None and "Rolf is stunned" in changes.void
    assert after.characters == state.characters


def test_an_attacker_from_outside_the_fight_is_accepted_and_named() -> None:
    _, changes = apply(fight(), hit(3, attacker="ork"))
    assert "attacker `ork` is not a character of this fight" in changes.explanation


# --- stun recovery: every pulse after becoming stunned ---------------------------------------


def test_no_recovery_attempt_in_the_pulse_he_was_stunned_in() -> None:
    state = fight(hit(10))
    assert rolf(state).stunned_this_pulse
    state, changes = apply(state, TurnEnded(rolls={"stun_recovery": [1]}))
    assert rolf(state).state == "stunned" and changes.dice == []
    assert changes.unused == {"stun_recovery": [1]}
    assert "Rolf was stunned in this pulse: tries to recover from the next" in changes.explanation
    assert not rolf(state).stunned_this_pulse


def test_a_second_stun_does_not_put_off_the_recovery_attempts() -> None:
    state = fight(hit(10), STUN_PULSE_ENDS, hit(10))  # stunned again: stays stunned
    assert rolf(state).state == "stunned" and not rolf(state).stunned_this_pulse
    state, changes = apply(state, TurnEnded(rolls={"stun_recovery": [1]}))
    assert rolf(state).state == "upright" and dice(changes) == [("stun_recovery", 1)]


def test_a_second_stun_in_the_same_pulse_keeps_the_first_attempt_for_the_next_pulse() -> None:
    state = fight(hit(10), hit(10))
    assert rolf(state).stunned_this_pulse
    state, changes = apply(state, TurnEnded(rolls={"stun_recovery": [1]}))
    assert rolf(state).state == "stunned" and changes.dice == []


def test_leaving_the_stun_clears_the_pulse_mark() -> None:
    state = fight(hit(10), hit(11, band="endurance"))  # stunned, then knocked unconscious
    assert rolf(state).state == "out_of_action" and not rolf(state).stunned_this_pulse


# --- section 1: a retract never hands one figure's recovery die to another -------------------


def three_figure_fight(version: int = 2) -> list[Event]:
    stunnable = {"fatigue": 15, "endurance": 14, "willpower": 12}
    return [
        FightStarted(ruleset="dragonquest", seed=7, version=version),
        *(
            CharacterJoined(character=cid, name=cid.capitalize(), side="company", stats=stunnable)
            for cid in ("rolf", "snag", "hake")
        ),
        Hit(id="stun-rolf", target="rolf", damage=10),
        Hit(id="stun-snag", target="snag", damage=10),
        Hit(id="stun-hake", target="hake", damage=10),
        TurnEnded(id="pulse-1", round=1),
    ]


def recovery_dice(log: list[Event], event: str) -> dict[str | None, list[tuple[int, str]]]:
    found: dict[str | None, list[tuple[int, str]]] = {}
    for _, changes in replay(log):
        if changes.event == event:
            for die in changes.dice:
                found.setdefault(die.character, []).append((die.value, die.source))
    return found


def test_retracting_a_stun_leaves_the_other_figures_given_recovery_dice_alone() -> None:
    scoped = {"stun_recovery@snag": [95], "stun_recovery@hake": [2], "stun_recovery@rolf": [1]}
    log = [*three_figure_fight(), TurnEnded(id="pulse-2", round=2, rolls=scoped)]
    before = recovery_dice(log, "pulse-2")
    assert before == {"rolf": [(1, "given")], "snag": [(95, "given")], "hake": [(2, "given")]}
    undo = Retract(event="stun-rolf")
    after = recovery_dice([*log, undo], "pulse-2")
    assert after == {"snag": [(95, "given")], "hake": [(2, "given")]}
    final = list(replay([*log, undo]))[-1][0]
    assert {cid: f.state for cid, f in final.characters.items()} == {
        "rolf": "upright",
        "snag": "stunned",
        "hake": "upright",
    }
    undo_moves_no_other_die(log, undo, "stun-rolf")


def test_retracting_a_stun_leaves_the_other_figures_drawn_recovery_dice_alone() -> None:
    log = [*three_figure_fight(), TurnEnded(id="pulse-2", round=2)]
    before = recovery_dice(log, "pulse-2")
    assert set(before) == {"rolf", "snag", "hake"}
    assert all(source == "drawn" for rolled in before.values() for _, source in rolled)
    undo = Retract(event="stun-snag")
    after = recovery_dice([*log, undo], "pulse-2")
    assert after == {"rolf": before["rolf"], "hake": before["hake"]}
    undo_moves_no_other_die(log, undo, "stun-snag")
    amend = Amend(event="stun-rolf", replacement=Hit(target="rolf", damage=1))
    assert recovery_dice([*log, amend], "pulse-2") == {
        "snag": before["snag"],
        "hake": before["hake"],
    }
    undo_moves_no_other_die(log, amend, "stun-rolf")


# --- the Damage Check in parts -----------------------------------------------------------------

BROADSWORD: dict[str, Any] = {"weapon_modifier": 4, "weapon_minimum": 15}
"""A Broadsword: D+4, Physical Strength 15 to wield."""


@pytest.mark.parametrize(
    ("strength", "bonus"),
    [(10, 0), (15, 0), (19, 0), (20, 1), (24, 1), (25, 2), (29, 2), (30, 3)],
)
def test_physical_strength_adds_1_per_5_points_above_the_weapons_minimum(
    strength: int, bonus: int
) -> None:
    # "a figure with PS of 20 through 24 would do D+5 damage when wielding a Broadsword"
    facts = {**BROADSWORD, "physical_strength": strength}
    _, changes = apply(fight(fatigue=60), hit(0, target="gob", damage_roll=3, **facts))
    assert f"Damage Check: D10 3 +4 modifier{f' +{bonus} Physical Strength' if bonus else ''}" in (
        changes.explanation
    )
    assert f"= {3 + 4 + bonus}" in changes.explanation


def test_a_broadsword_in_the_hands_of_ps_20_does_d_plus_5() -> None:
    state = fight(hit(0, damage_roll=6, physical_strength=20, band="endurance", **BROADSWORD))
    assert rolf(state).endurance == 14 - 11


@pytest.mark.parametrize("kind", ["thrown", "missile"])
def test_no_physical_strength_bonus_for_thrown_or_missile_weapons(kind: str) -> None:
    facts = {**BROADSWORD, "physical_strength": 30, kind: True}
    state, changes = apply(fight(), hit(0, band="endurance", damage_roll=6, **facts))
    assert rolf(state).endurance == 14 - 10
    assert "no Physical Strength bonus for a thrown or missile weapon" in changes.explanation
    assert "possible break" not in changes.explanation


@pytest.mark.parametrize(("rank", "bonus"), [(0, 0), (2, 0), (3, 1), (5, 1), (6, 2), (9, 3)])
def test_every_three_ranks_add_1_to_the_damage_modifier(rank: int, bonus: int) -> None:
    state = fight(hit(0, band="endurance", damage_roll=5, weapon_modifier=1, rank=rank))
    assert rolf(state).endurance == 14 - (5 + 1 + bonus)


def test_the_ranks_bonus_applies_to_missile_weapons_too() -> None:
    state = fight(hit(0, band="endurance", damage_roll=5, rank=6, missile=True))
    assert rolf(state).endurance == 14 - 7


def test_physical_strength_bonus_and_ranks_bonus_add_up() -> None:
    facts = {**BROADSWORD, "physical_strength": 25, "rank": 3}  # +2 and +1
    state = fight(hit(0, band="endurance", damage_roll=2, **facts))
    assert rolf(state).endurance == 14 - (2 + 4 + 2 + 1)


def test_physical_strength_comes_from_the_attackers_stat_when_not_given() -> None:
    state = fight(physical_strength=20)
    state, changes = apply(
        state, hit(0, target="gob", attacker="rolf", damage_roll=1, **BROADSWORD)
    )
    assert "PS 20, weapon minimum 15: +1 damage" in changes.explanation
    assert state.characters["gob"].fatigue == 9 - 6


def test_the_physical_strength_fact_overrides_the_attackers_stat() -> None:
    state = fight(physical_strength=20)
    facts = {**BROADSWORD, "physical_strength": 15}
    _, changes = apply(state, hit(0, target="gob", attacker="rolf", damage_roll=1, **facts))
    assert "PS 15, weapon minimum 15: no Physical Strength bonus" in changes.explanation


def test_a_weapon_minimum_without_any_physical_strength_is_refused() -> None:
    with pytest.raises(RuleError, match="give `physical_strength`") as err:
        apply(fight(), hit(0, damage_roll=1, **BROADSWORD))
    assert err.value.field == "$.physical_strength"


def test_physical_strength_without_the_weapons_minimum_is_refused() -> None:
    with pytest.raises(RuleError, match="give `weapon_minimum` too") as err:
        apply(fight(), hit(0, damage_roll=1, physical_strength=20))
    assert err.value.field == "$.weapon_minimum"


@pytest.mark.parametrize("damage", [0, 11])
def test_damage_beside_the_d10_is_0_or_the_total(damage: int) -> None:
    state = fight(hit(damage, band="endurance", damage_roll=6, physical_strength=20, **BROADSWORD))
    assert rolf(state).endurance == 3


def test_damage_beside_the_d10_that_is_not_the_total_is_refused() -> None:
    with pytest.raises(RuleError, match="`damage` 10 is not the Damage Check's total 11") as err:
        apply(fight(), hit(10, damage_roll=6, physical_strength=20, **BROADSWORD))
    assert err.value.field == "$.damage"


@pytest.mark.parametrize("fact", ["weapon_modifier", "weapon_minimum", "rank", "thrown"])
def test_a_damage_check_part_without_the_d10_is_refused(fact: str) -> None:
    value: Any = True if fact == "thrown" else 3
    with pytest.raises(RuleError, match="give `damage_roll` too, or the total") as err:
        apply(fight(), hit(8, **{fact: value}))
    assert err.value.field == f"$.{fact}"


def test_a_damage_check_never_totals_below_zero() -> None:
    state, changes = apply(fight(), hit(0, band="endurance", damage_roll=1, weapon_modifier=-5))
    assert rolf(state).endurance == 14 and "= 0" in changes.explanation


def test_a_spells_damage_check_is_its_d10_and_modifier() -> None:
    state = fight(hit(0, magic=True, damage_roll=4, weapon_modifier=2))
    assert rolf(state).fatigue == 15 - 6


@pytest.mark.parametrize("fact", ["physical_strength", "weapon_minimum", "rank", "missile"])
def test_weapon_facts_on_magic_are_refused(fact: str) -> None:
    value: Any = True if fact == "missile" else 15
    with pytest.raises(RuleError, match="magic and breath are no weapon") as err:
        apply(fight(), hit(0, magic=True, damage_roll=4, **{fact: value}))
    assert err.value.field == f"$.{fact}"


# --- the break band ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bonus", "band"),
    [(0, None), (1, (96, 99)), (2, (93, 99)), (3, (90, 99)), (10, (69, 99))],
)
def test_each_plus_1_adds_3_percent_to_the_break_band_below_99(
    bonus: int, band: tuple[int, int] | None
) -> None:
    # "the PS of 20 would have a chance to break the Broadsword on rolls of 96 through 99"
    assert break_band(bonus) == band


@pytest.mark.parametrize(
    ("chance", "bonus", "modified"),
    [(97, 2, 92), (97, 1, 95), (95, 1, 95), (60, 2, 60), (97, 0, 97), (120, 0, 120)],
)
def test_the_break_band_cuts_the_modified_strike_chance(
    chance: int, bonus: int, modified: int
) -> None:
    # "if the above figure had a Modified Strike Chance of 97%, it would actually be 92%"
    assert modified_strike_chance(chance, bonus) == modified


PS_PLUS_2: dict[str, Any] = {**BROADSWORD, "physical_strength": 25, "damage_roll": 1}
"""PS 25 with a Broadsword: +2, a possible break on 93-99."""


@pytest.mark.parametrize("roll", [93, 95, 99])
def test_a_strike_roll_in_the_break_band_is_a_possible_break_not_a_hit(roll: int) -> None:
    with pytest.raises(RuleError, match="93-99 is a possible break of the weapon") as err:
        apply(fight(), hit(0, strike_roll=roll, strike_chance=97, **PS_PLUS_2))
    assert err.value.field == "$.strike_roll"
    assert "Modified Strike Chance of 92 (97 cut below the break band)" in str(err.value)


def test_a_strike_roll_of_100_is_a_possible_drop() -> None:
    with pytest.raises(RuleError, match="100 is a possible drop of the weapon"):
        apply(fight(), hit(0, strike_roll=100, strike_chance=120, **PS_PLUS_2))


def test_a_strike_roll_just_under_the_break_band_hits_and_the_band_is_reported() -> None:
    _, changes = apply(fight(), hit(0, strike_roll=92, strike_chance=97, **PS_PLUS_2))
    assert "Strike Check 92 of 92 (cut from 97 by the break band): fatigue band" in (
        changes.explanation
    )
    assert "a possible break on 93-99, a possible drop on 100" in changes.explanation


def test_the_special_damage_chart_is_read_from_the_cut_chance() -> None:
    # 15% of 97 rounds to 15, of 92 to 14: a roll of 15 is Endurance damage only without the cut
    _, plain = apply(fight(), hit(0, strike_roll=15, strike_chance=97, damage_roll=1))
    assert "Strike Check 15 of 97: endurance band" in plain.explanation
    _, cut = apply(fight(), hit(0, strike_roll=15, strike_chance=97, **PS_PLUS_2))
    assert "fatigue band" in cut.explanation


def test_without_a_physical_strength_bonus_no_break_band_is_checked() -> None:
    _, changes = apply(fight(), hit(5, strike_roll=99, strike_chance=100))
    assert changes.void is None and "break" not in changes.explanation


# --- the band a hit assumes --------------------------------------------------------------------


def test_a_hit_with_no_band_says_it_assumed_a_fatigue_hit() -> None:
    state, changes = apply(fight(), hit(9))
    assert rolf(state).fatigue == 10
    assert "no band given: a Fatigue hit assumed" in changes.explanation


def test_a_hit_with_a_band_or_strike_check_assumes_nothing() -> None:
    for facts in ({"band": "fatigue"}, {"strike_roll": 40, "strike_chance": 50}):
        _, changes = apply(fight(), hit(9, **facts))
        assert "assumed" not in changes.explanation


# --- a stunned figure cannot use a shield ------------------------------------------------------


def test_a_stunned_figure_cannot_choose_to_have_his_shield_cloven() -> None:
    state = fight(hit(10), shield=1)
    blow = hit(5, band="grievous", weapon="A", cleave_shield=True, rolls={"grievous": [1]})
    with pytest.raises(RuleError, match="unable to use a shield") as err:
        apply(state, blow)
    assert err.value.field == "$.cleave_shield"


def test_a_figure_the_same_hit_stuns_still_cleaves_his_shield() -> None:
    blow = hit(6, band="grievous", weapon="A", cleave_shield=True, rolls={"grievous": [1]})
    state = fight(blow, shield=1)
    assert rolf(state).state == "stunned"
    assert (rolf(state).shield, rolf(state).protection) == (0, 4)


# --- spells: purely magical energy or the surroundings ----------------------------------------


def test_a_spell_of_the_surroundings_is_absorbed_by_armour_then_spills_into_endurance() -> None:
    state, changes = apply(fight(), hit(22, magic=True, purely_magical=False))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 11)  # 4 absorbed, 15 + 3
    assert "armour absorbs 4" in changes.explanation


def test_purely_magical_energy_passes_the_armour() -> None:
    state = fight(hit(22, magic=True, purely_magical=True))
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 7)


def test_a_spell_of_the_surroundings_doing_more_than_fatigue_and_endurance_kills() -> None:
    state, changes = apply(fight(), hit(34, magic=True, purely_magical=False))
    assert rolf(state).state == "dead"
    assert "30 is more than Fatigue and Endurance together: killed outright" in (
        changes.explanation
    )


def test_the_spell_kill_weighs_what_passes_the_armour() -> None:
    # 32 - 4 = 28 is less than 15 + 14: not killed, though 32 is more
    state, changes = apply(fight(), hit(32, magic=True, purely_magical=False))
    assert rolf(state).state == "out_of_action" and rolf(state).endurance == 1
    assert "killed" not in changes.explanation


def test_a_blow_is_no_spell_it_never_kills_by_the_spell_rule() -> None:
    state = fight(hit(60), fatigue=15)
    assert (rolf(state).fatigue, rolf(state).endurance) == (0, 14)


def test_purely_magical_without_magic_is_refused() -> None:
    with pytest.raises(RuleError, match="give `magic` too") as err:
        apply(fight(), hit(5, purely_magical=False))
    assert err.value.field == "$.purely_magical"
    with pytest.raises(RuleError, match="breath is always treated as magical energy"):
        apply(fight(), hit(5, breath=True, purely_magical=False))


# --- every row of the tables, against the text -------------------------------------------------

SPECIAL_DAMAGE_CHART = [
    # Modified Strike Chance, highest Grievous roll, highest Endurance roll: 5% and 15% of the
    # chance, rounded to the nearest (typed by hand from the text's percentages)
    ((1, 3), 0, 0),
    ((4, 9), 0, 1),
    ((10, 16), 1, 2),
    ((17, 23), 1, 3),
    ((24, 29), 1, 4),
    ((30, 36), 2, 5),
    ((37, 43), 2, 6),
    ((44, 49), 2, 7),
    ((50, 56), 3, 8),
    ((57, 63), 3, 9),
    ((64, 69), 3, 10),
    ((70, 76), 4, 11),
    ((77, 83), 4, 12),
    ((84, 89), 4, 13),
    ((90, 96), 5, 14),
    ((97, 100), 5, 15),
]


@pytest.mark.parametrize(
    ("chances", "grievous", "endurance"), SPECIAL_DAMAGE_CHART, ids=lambda v: str(v)
)
def test_every_row_of_the_special_damage_chart(
    chances: tuple[int, int], grievous: int, endurance: int
) -> None:
    low, high = chances
    for chance in range(low, high + 1):
        assert special_damage_chart(chance) == (grievous, endurance), chance
        for roll in range(1, chance + 1):
            expected = (
                "grievous"
                if roll <= grievous or roll == 1
                else "endurance"
                if roll <= endurance
                else "fatigue"
            )
            assert band_of_strike(roll, chance, roll_01_grievous=True) == expected, (chance, roll)


STAND_IN_ROWS = {
    # the stand-in's rows as its documentation prints them (A 01-15, B 01-20, C 01-25)
    "A": [
        ((1, 3), "eye put out"),
        ((4, 6), "lung pierced"),
        ((7, 9), "gut pierced"),
        ((10, 12), "thigh run through"),
        ((13, 15), "hand pinned"),
    ],
    "B": [
        ((1, 4), "hand severed"),
        ((5, 8), "hamstrung"),
        ((9, 12), "face laid open"),
        ((13, 16), "arm cut to the bone"),
        ((17, 20), "scalp cut, blood in the eyes"),
    ],
    "C": [
        ((1, 5), "skull fractured"),
        ((6, 10), "ribs broken"),
        ((11, 15), "arm broken"),
        ((16, 20), "leg broken"),
        ((21, 25), "jaw shattered"),
    ],
}


@pytest.mark.parametrize("weapon", ["A", "B", "C"])
def test_every_row_of_the_stand_in_grievous_injury_table(weapon: str) -> None:
    expected: dict[int, str | None] = dict.fromkeys(range(1, 101))
    for (low, high), injury in STAND_IN_ROWS[weapon]:
        expected.update(dict.fromkeys(range(low, high + 1), injury))
    assert {roll: GRIEVOUS_INJURY_STAND_IN.injury(weapon, roll) for roll in range(1, 101)} == (
        expected
    )


@pytest.mark.parametrize(
    ("means", "pool"),
    [("rest", "fatigue"), ("healer", "endurance"), ("spell", "endurance"), ("potion", "endurance")],
)
def test_every_means_of_healing_restores_its_pool(means: str, pool: str) -> None:
    state = fight(hit(5, band="endurance"), hit(9), Heal(target="rolf", amount=2, means=means))
    assert (rolf(state).fatigue, rolf(state).endurance) == {
        "fatigue": (12, 9),
        "endurance": (10, 11),
    }[pool]


def test_a_spell_doing_exactly_fatigue_and_endurance_takes_endurance_to_0_and_kills() -> None:
    state, changes = apply(fight(), hit(29, magic=True))  # 15 + 14
    assert rolf(state).state == "dead"
    assert "more than Fatigue and Endurance" not in changes.explanation


def test_knock_back_weighs_the_damage_checks_total_when_given_in_parts() -> None:
    # D10 4 + 4 + 2 (PS 25 over 15) = 10, not over PS 10; 5 + 4 + 2 = 11 is
    facts = {**BROADSWORD, "physical_strength": 25}
    _, still = apply(fight(**STRONG), hit(0, damage_roll=4, **facts))
    assert still.dice == []
    _, pushed = apply(fight(**STRONG), hit(0, damage_roll=5, rolls={"knockback": [1]}, **facts))
    assert dice(pushed) == [("knockback", 1)]
    assert "damage 11 > PS 10" in pushed.explanation


# --- examples the mutation run found missing (tests/mutation/results, seed 27) ---------------


def test_a_house_rule_stat_of_1_is_the_lowest_accepted() -> None:
    state, _ = apply(started(), CharacterJoined(character="r", stats={**ROLF, "agility": 1}))
    assert state.characters["r"].stats["agility"] == 1


def test_a_d100_range_starting_at_00_is_refused_the_dice_run_01_to_100() -> None:
    table = {**BOOK, "C": {"00-05": "x"}}
    with pytest.raises(StructuralError, match=re.escape('range "00-05" must run upwards')):
        apply(None, FightStarted(ruleset="dragonquest", tables={"grievous_injury": table}))


def test_grievous_injury_without_armour_costs_no_protection_and_says_none() -> None:
    _, changes = apply(
        fight(protection=0), hit(5, band="grievous", weapon="C", rolls={"grievous": [3]})
    )
    assert "skull fractured" in changes.explanation
    assert "Protection" not in changes.explanation


def test_grievous_hit_leaving_1_endurance_still_rolls_the_injury() -> None:
    # Endurance 14 - 13 = 1: unconscious, alive, so the Grievous Injury Table is rolled
    state, changes = apply(fight(), hit(13, band="grievous", weapon="C", rolls={"grievous": [3]}))
    assert rolf(state).endurance == 1 and rolf(state).state == "out_of_action"
    assert dice(changes) == [("grievous", 3)]
    assert rolf(state).injuries == ("skull fractured",)


def test_knock_back_says_the_3_x_ps_and_3_x_ag_it_rolled_against() -> None:
    # PS 10, AG 12: d100=50 is not under 30, knocked back; d100=35 is under 36, keeps his feet
    _, changes = apply(fight(**STRONG), hit(11, rolls={"knockback": [50], "keep_feet": [35]}))
    assert (
        "damage 11 > PS 10: d100=50 against 3 x PS = 30: knocked back one hex; "
        "d100=35 against 3 x AG = 36: keeps his feet"
    ) in changes.explanation


def test_slam_drop_check_says_the_3_x_md_it_rolled_against() -> None:
    _, changes = apply(fight(**STRONG), hit(11, slam=True, rolls={"knockback": [99], "drop": [23]}))
    assert "d100=23 against 3 x MD = 24: keeps hand-held items" in changes.explanation


def test_only_a_heal_that_revives_says_he_comes_to() -> None:
    _, revived = apply(
        fight(hit(11, band="endurance")), Heal(target="rolf", amount=1, means="healer")
    )
    assert "Rolf comes to, on the ground (knocked down)" in revived.explanation
    _, awake = apply(fight(hit(9)), Heal(target="rolf", amount=5, means="rest"))
    assert "comes to" not in awake.explanation
