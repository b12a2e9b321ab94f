"""Each d26 rule, with the dice given, as the rule text states it, and each decision documented
where the text is silent."""

from __future__ import annotations

import json
import shlex
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.core.rulesets.d26 import (
    HOLD_ON_TO_LIFE,
    INJURY_LOCATION,
    INJURY_THRESHOLDS,
    SEVERE_INJURIES_STAND_IN,
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
)
from woundlog.replays import replay, replay_file
from woundlog.replays.cli import app

ROUND_END = TurnEnded()


def fight(
    *events: Event, hp: int = 10, kind: str = "", tables: Any = None, version: int = 1
) -> FightState[Any]:
    """A d26 fight with Mira (`kind`, `hp`) and Kael (pc, 10 HP), then `events`."""
    started = FightStarted(ruleset="d26", tables=tables or {}, version=version)
    state, _ = apply(None, started)
    for event in (
        CharacterJoined(character="mira", name="Mira", side="party", kind=kind, stats={"hp": hp}),
        CharacterJoined(character="kael", name="Kael", side="party", stats={"hp": 10}),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def hit(damage: int, *location: int, target: str = "mira", **facts: Any) -> Hit:
    rolls = {"location": list(location)} if location else {}
    return Hit(target=target, damage=damage, rolls=rolls, **facts)


def own_turn_ends(*hold_on: int, who: str = "mira") -> TurnEnded:
    return TurnEnded(character=who, rolls={"hold_on": list(hold_on)} if hold_on else {})


def heal_check(check: int | None, amount: int = 0) -> Heal:
    return Heal(target="mira", amount=amount, means="heal_check", healer="kael", check=check)


def mira(state: FightState[Any]) -> Any:
    return state.characters["mira"]


def explanation(state: FightState[Any], event: Event) -> str:
    return apply(state, event)[1].explanation


# a Fatal Injury to the arm, then each choice, as most tests need them
FATAL_ARM = hit(16, 1)  # 10 HP, 6 left over: Fatal; d4 = 1, the arm
FATAL_HEAD = hit(16, 4)
HOLDING_ON = (FATAL_ARM, Choice(character="mira", option="hold_on"))


# --- HP and Fatigued ----------------------------------------------------------------------------


def test_damage_above_zero_only_lowers_hp_and_rolls_nothing() -> None:
    state, changes = apply(fight(), hit(4))
    assert mira(state).hp == 6
    assert not mira(state).fatigued
    assert mira(state).state == "upright"
    assert changes.dice == []


def test_hp_never_go_below_zero() -> None:
    assert mira(fight(hit(25, 4))).hp == 0
    assert mira(fight(hit(10), hit(2))).hp == 0


def test_reaching_zero_hp_makes_a_character_fatigued() -> None:
    state = fight(hit(10))
    assert mira(state).hp == 0
    assert mira(state).fatigued
    assert mira(state).state == "upright"


def test_fatigued_stays_when_healed_above_zero() -> None:
    state = fight(hit(10), Heal(target="mira", amount=5, means="potion"))
    assert mira(state).hp == 5
    assert mira(state).fatigued


def test_only_rest_removes_fatigued() -> None:
    state = fight(hit(10), Heal(target="mira", amount=3, means="spell"))
    assert mira(state).fatigued
    state, _ = apply(state, Heal(target="mira", amount=0, means="rest"))
    assert not mira(state).fatigued


def test_healing_at_zero_hp_while_fatigued_restores_hp_and_harm_lowers_them_again() -> None:
    state = fight(hit(10), Heal(target="mira", amount=4))
    state, changes = apply(state, hit(3))  # above 0 HP again: HP, no injury check
    assert mira(state).hp == 1
    assert changes.dice == []
    state, changes = apply(state, hit(5, 2))  # the blow back to 0 checks its excess: 4, Severe
    assert mira(state).hp == 0
    assert mira(state).injuries == ("severe leg",)


def test_healing_never_raises_hp_above_the_hp_stat() -> None:
    assert mira(fight(hit(3), Heal(target="mira", amount=9))).hp == 10


# --- the injury thresholds ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("excess", "injuries", "state"),
    [
        (0, (), "upright"),
        (2, (), "upright"),
        (3, ("severe arm",), "upright"),
        (5, ("severe arm",), "upright"),
        (6, ("fatal arm",), "downed"),
        (11, ("fatal arm",), "downed"),
    ],
)
def test_damage_left_over_from_the_blow_that_reaches_zero_is_checked(
    excess: int, injuries: tuple[str, ...], state: str
) -> None:
    after = fight(hit(10 + excess, 1))
    assert mira(after).injuries == injuries
    assert mira(after).state == state


@pytest.mark.parametrize(
    ("damage", "injuries", "state"),
    [
        (2, (), "upright"),
        (3, ("severe arm",), "upright"),
        (5, ("severe arm",), "upright"),
        (6, ("fatal arm",), "downed"),
    ],
)
def test_every_later_hit_at_zero_hp_checks_its_whole_damage(
    damage: int, injuries: tuple[str, ...], state: str
) -> None:
    after = fight(hit(10), hit(damage, 1))
    assert mira(after).injuries == injuries
    assert mira(after).state == state


def test_no_effect_rolls_no_location() -> None:
    _, changes = apply(fight(hit(10)), hit(2, 1))
    assert changes.dice == []
    assert changes.unused == {"location": [1]}


def test_a_hit_of_no_damage_at_zero_hp_checks_nothing() -> None:
    _, changes = apply(fight(hit(10), kind="legendary"), hit(0, hit_strength=3))
    assert changes.dice == [] and changes.characters == []


def test_threshold_table_has_the_books_ranges() -> None:
    assert list(INJURY_THRESHOLDS) == [
        ((0, 2), "no effect"),
        ((3, 5), "severe"),
        ((6, 6), "fatal"),  # 6+
    ]


# --- injury location ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "location"), [(1, "arm"), (2, "leg"), (3, "internal"), (4, "head")]
)
def test_every_injury_rolls_its_location_on_1d4(roll: int, location: str) -> None:
    state, changes = apply(fight(), hit(13, roll))
    assert mira(state).injuries == (f"severe {location}",)
    assert [(d.purpose, d.sides, d.value) for d in changes.dice] == [("location", 4, roll)]
    assert INJURY_LOCATION[roll] == location


@pytest.mark.parametrize(
    ("roll", "location"), [(1, "arm"), (2, "leg"), (3, "internal"), (4, "head")]
)
def test_a_fatal_injury_rolls_its_location_too(roll: int, location: str) -> None:
    assert mira(fight(hit(16, roll))).fatal_location == location


def test_a_second_severe_injury_to_the_same_location_escalates_to_fatal() -> None:
    state = fight(hit(13, 1))
    state, changes = apply(state, hit(4, 1))
    assert mira(state).injuries == ("severe arm", "fatal arm")
    assert mira(state).state == "downed"
    assert "escalates" in changes.explanation


def test_no_one_has_severe_injuries_in_both_arms_however_many_healthy_limbs() -> None:
    state = fight(hit(13, 1))  # "the left arm"
    state, _ = apply(state, hit(5, 1))  # "the right arm": the d4 knows one arm location
    assert mira(state).injuries.count("severe arm") == 1
    assert mira(state).fatal_location == "arm"


def test_severe_injuries_to_other_locations_do_not_escalate() -> None:
    state = fight(hit(13, 1), hit(4, 2), hit(3, 3), hit(5, 4))
    assert mira(state).injuries == ("severe arm", "severe leg", "severe internal", "severe head")
    assert mira(state).state == "upright"


def test_an_earlier_fatal_injury_does_not_escalate_a_severe_one() -> None:
    state = fight(
        *HOLDING_ON,
        own_turn_ends(6),  # stabilised
        Heal(target="mira", amount=5),  # stands up
        hit(8, 1),  # 3 left over: Severe, to the arm that took the Fatal Injury
    )
    assert mira(state).injuries == ("fatal arm", "severe arm")
    assert mira(state).state == "upright"


def test_a_severe_injury_leaves_the_character_fighting() -> None:
    state = fight(hit(14, 2))
    assert mira(state).state == "upright"
    assert mira(state).fate is None


# --- the choice: The Last Stand or Hold on to Life ----------------------------------------------


def test_a_fatal_injury_downs_the_character_awaiting_the_choice() -> None:
    state, changes = apply(fight(), FATAL_ARM)
    assert mira(state).state == "downed"
    assert mira(state).fate == "undecided"
    assert "choose `last_stand` or `hold_on`" in changes.explanation


def test_the_last_stand_gives_one_automatic_action_then_death() -> None:
    state, changes = apply(fight(FATAL_ARM), Choice(character="mira", option="last_stand"))
    assert mira(state).state == "dead"
    assert mira(state).fate == "last_stand"
    assert "automatic success" in changes.explanation
    assert "Hit Strength 3, reducible only to 2" in changes.explanation


def test_after_the_last_stand_the_character_cannot_be_saved() -> None:
    state = fight(FATAL_ARM, Choice(character="mira", option="last_stand"))
    with pytest.raises(RuleError, match="dead"):
        apply(state, heal_check(20))


def test_the_last_stand_attack_is_recorded_as_a_hit_by_the_fallen() -> None:
    state = fight(FATAL_ARM, Choice(character="mira", option="last_stand"))
    state, _ = apply(state, Hit(target="kael", damage=6, attacker="mira"))
    assert state.characters["kael"].hp == 4


def test_hold_on_to_life_leaves_the_character_incapacitated() -> None:
    state = fight(*HOLDING_ON)
    assert mira(state).state == "downed"
    assert mira(state).fate == "hold_on"


def test_a_choice_that_is_neither_option_is_refused_naming_the_field() -> None:
    with pytest.raises(RuleError, match="`last_stand` or `hold_on`") as err:
        apply(fight(FATAL_ARM), Choice(character="mira", option="flee"))
    assert err.value.field == "$.option"


def test_a_choice_without_a_fatal_injury_is_refused() -> None:
    with pytest.raises(RuleError, match="no Fatal Injury to answer") as err:
        apply(fight(), Choice(character="mira", option="last_stand"))
    assert err.value.field == "$.character"


def test_a_second_choice_is_refused() -> None:
    with pytest.raises(RuleError, match="already holds on"):
        apply(fight(*HOLDING_ON), Choice(character="mira", option="last_stand"))


def test_a_turn_ending_before_the_choice_settles_it_as_hold_on() -> None:
    state, changes = apply(fight(FATAL_ARM), TurnEnded(character="kael"))
    assert mira(state).state == "downed"
    assert mira(state).fate == "hold_on"
    assert "the turn ended before a choice" in changes.explanation
    assert changes.dice == []  # not Mira's own turn: no hold_on die


@pytest.mark.parametrize("turn", [TurnEnded(side="party"), ROUND_END])
def test_a_side_or_round_ending_before_the_choice_also_settles_it(turn: TurnEnded) -> None:
    assert mira(fight(FATAL_ARM, turn)).fate == "hold_on"


def test_the_last_stand_is_refused_once_a_turn_has_ended() -> None:
    state = fight(FATAL_ARM, TurnEnded(character="kael"))
    with pytest.raises(RuleError, match="taken at once"):
        apply(state, Choice(character="mira", option="last_stand"))


def test_own_turn_ending_before_the_choice_holds_on_and_rolls_at_once() -> None:
    state, changes = apply(fight(FATAL_ARM), own_turn_ends(1))
    assert mira(state).fate == "hold_on"
    assert mira(state).agony == 2
    assert [(d.purpose, d.sides, d.value) for d in changes.dice] == [("hold_on", 6, 1)]


def test_a_turn_starting_does_nothing_to_a_pending_choice() -> None:
    assert mira(fight(FATAL_ARM, TurnStarted(character="mira"))).fate == "undecided"


# --- holding on: the d6 at the end of each own turn ---------------------------------------------


def test_a_six_stabilises_on_their_own() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(6))
    assert mira(state).state == "stabilised"


@pytest.mark.parametrize("roll", [2, 3, 4, 5])
def test_two_to_five_changes_nothing(roll: int) -> None:
    state = fight(*HOLDING_ON, own_turn_ends(roll))
    assert mira(state).state == "downed"
    assert mira(state).agony == 0


def test_a_one_is_agony() -> None:
    state, changes = apply(fight(*HOLDING_ON), own_turn_ends(1))
    assert mira(state).agony == 2
    assert "dies at the end of the next round" in changes.explanation


def test_hold_on_table_has_the_books_faces() -> None:
    assert [HOLD_ON_TO_LIFE[r] for r in range(1, 7)] == [
        "agony", "holds on", "holds on", "holds on", "holds on", "stabilises",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "turn", [TurnEnded(character="kael"), TurnEnded(side="foes"), ROUND_END], ids=repr
)
def test_no_turn_end_but_the_characters_own_rolls_the_hold_on_die(turn: TurnEnded) -> None:
    state = fight(*HOLDING_ON, CharacterJoined(character="orc", side="foes", stats={"hp": 5}))
    _, changes = apply(state, turn)
    assert changes.dice == []


def test_a_round_end_is_not_a_turn_end_and_rolls_no_hold_on_die() -> None:
    """A log that ticks only rounds records no turn of the dying character: no die."""
    state = fight(*HOLDING_ON, ROUND_END, ROUND_END, ROUND_END)
    assert mira(state).state == "downed"
    _, changes = apply(state, TurnEnded(rolls={"hold_on@mira": [6]}))
    assert changes.dice == []
    assert changes.unused == {"hold_on@mira": [6]}


def test_the_hold_on_die_is_drawn_when_not_given() -> None:
    _, changes = apply(fight(*HOLDING_ON), TurnEnded(id="t1", character="mira"))
    assert [(d.purpose, d.source) for d in changes.dice] == [("hold_on", "drawn")]


def test_a_stabilised_character_rolls_no_more() -> None:
    _, changes = apply(fight(*HOLDING_ON, own_turn_ends(6)), own_turn_ends(1))
    assert changes.dice == []


# --- agony --------------------------------------------------------------------------------------


def test_agony_kills_at_the_end_of_the_next_round() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), TurnEnded(character="kael"))
    state, _ = apply(state, ROUND_END)  # the end of the round of the 1
    assert mira(state).state == "downed"
    assert mira(state).agony == 1
    state, _ = apply(state, own_turn_ends(3))
    state, changes = apply(state, ROUND_END)  # the end of the next round
    assert mira(state).state == "dead"
    assert mira(state).agony == 0  # no rounds left to count: the state JSON shows none
    assert "dies in agony" in changes.explanation


def test_agony_rolled_on_the_last_turn_of_a_round_still_gives_the_next_round() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), ROUND_END)
    assert mira(state).state == "downed"


def test_stabilised_before_the_next_round_ends_survives_agony() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), ROUND_END, heal_check(15), ROUND_END, ROUND_END)
    assert mira(state).state == "stabilised"
    assert mira(state).agony == 0


def test_a_stabilised_character_healed_to_1_hp_stands_up() -> None:
    """ "Healed above 0": 1 HP is enough (found alive by the mutation run: only 5 was tried)."""
    state = fight(*HOLDING_ON, own_turn_ends(1), ROUND_END, heal_check(15))
    assert (mira(state).state, mira(state).hp) == ("stabilised", 0)
    state, _ = apply(state, Heal(target="mira", amount=1))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)


def test_the_die_keeps_being_rolled_in_agony_and_a_six_still_stabilises() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), ROUND_END, own_turn_ends(6), ROUND_END)
    assert mira(state).state == "stabilised"


def test_a_second_one_in_agony_neither_resets_nor_shortens_the_deadline() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), ROUND_END)
    state, changes = apply(state, own_turn_ends(1))
    assert mira(state).agony == 1
    assert "deadline stands" in changes.explanation
    state, _ = apply(state, ROUND_END)
    assert mira(state).state == "dead"


def test_side_turn_ends_do_not_count_as_round_ends_for_agony() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), TurnEnded(side="party"), TurnEnded(side="party"))
    assert mira(state).agony == 2


def test_no_agony_no_death_at_round_ends() -> None:
    state = fight(*HOLDING_ON, ROUND_END, ROUND_END, ROUND_END)
    assert mira(state).state == "downed"


# --- the Heal check -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "state"), [(14, "downed"), (15, "stabilised"), (30, "stabilised")]
)
def test_heal_check_stabilises_at_fifteen(check: int, state: str) -> None:
    assert mira(fight(*HOLDING_ON, heal_check(check))).state == state


@pytest.mark.parametrize(("check", "state"), [(17, "downed"), (18, "stabilised")])
def test_heal_check_for_a_head_injury_stabilises_at_eighteen(check: int, state: str) -> None:
    after = fight(FATAL_HEAD, Choice(character="mira", option="hold_on"), heal_check(check))
    assert mira(after).state == state


def test_a_successful_heal_check_ends_agony() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), heal_check(15))
    assert mira(state).agony == 0


def test_a_heal_check_needs_its_total() -> None:
    with pytest.raises(RuleError, match="check=N") as err:
        apply(fight(*HOLDING_ON), heal_check(None))
    assert err.value.field == "$.check"


def test_a_heal_check_before_the_choice_is_refused() -> None:
    with pytest.raises(RuleError, match="record the choice first"):
        apply(fight(FATAL_ARM), heal_check(20))


def test_a_check_with_another_means_is_refused() -> None:
    with pytest.raises(RuleError, match="heal_check") as err:
        apply(fight(*HOLDING_ON), Heal(target="mira", amount=0, means="potion", check=16))
    assert err.value.field == "$.means"


def test_a_heal_check_on_someone_not_dying_is_ordinary_healing() -> None:
    state, changes = apply(fight(hit(6)), heal_check(3, amount=2))
    assert mira(state).hp == 6
    assert "not compared" in changes.explanation


# --- standing up, and healing the downed --------------------------------------------------------


def test_a_stabilised_character_stands_when_healed_above_zero() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(6))
    state, _ = apply(state, Heal(target="mira", amount=0, means="potion"))
    assert mira(state).state == "stabilised"
    state, _ = apply(state, Heal(target="mira", amount=3, means="potion"))
    assert mira(state).state == "upright"
    assert mira(state).hp == 3
    assert mira(state).fatigued
    assert mira(state).fate is None and mira(state).fatal_location is None


def test_a_heal_check_that_also_restores_hp_stabilises_and_stands_at_once() -> None:
    state = fight(*HOLDING_ON, heal_check(16, amount=2))
    assert mira(state).state == "upright"
    assert mira(state).hp == 2


def test_healing_a_downed_character_raises_hp_but_does_not_stop_the_dying() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(1), Heal(target="mira", amount=4, means="potion"))
    assert mira(state).state == "downed"
    assert mira(state).hp == 4
    state = fight(
        *HOLDING_ON, own_turn_ends(1), Heal(target="mira", amount=4), ROUND_END, ROUND_END
    )
    assert mira(state).state == "dead"


def test_a_six_after_a_potion_stabilises_and_stands_at_once() -> None:
    state = fight(*HOLDING_ON, Heal(target="mira", amount=4), own_turn_ends(6))
    assert mira(state).state == "upright"


def test_a_dying_character_cannot_rest() -> None:
    with pytest.raises(RuleError, match="cannot rest") as err:
        apply(fight(*HOLDING_ON), Heal(target="mira", amount=0, means="rest"))
    assert err.value.field == "$.means"


def test_a_stabilised_character_may_rest() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(6), Heal(target="mira", amount=2, means="rest"))
    assert mira(state).state == "upright"
    assert not mira(state).fatigued


def test_the_dead_cannot_be_healed() -> None:
    state = fight(FATAL_ARM, Choice(character="mira", option="last_stand"))
    with pytest.raises(RuleError, match="dead"):
        apply(state, Heal(target="mira", amount=5))


# --- hits on the downed, the stabilised and the dead --------------------------------------------


def test_a_downed_character_is_hit_on_the_zero_hp_thresholds() -> None:
    state = fight(*HOLDING_ON, hit(2, 2))
    assert mira(state).injuries == ("fatal arm",)
    state = fight(*HOLDING_ON, hit(4, 2))
    assert mira(state).injuries == ("fatal arm", "severe leg")
    assert mira(state).state == "downed"


def test_a_fatal_injury_kills_a_downed_character() -> None:
    state, changes = apply(fight(*HOLDING_ON), hit(6, 3))
    assert mira(state).state == "dead"
    assert "already incapacitated" in changes.explanation


def test_a_fatal_injury_kills_one_awaiting_the_choice() -> None:
    state = fight(FATAL_ARM, hit(9, 2))
    assert mira(state).state == "dead"
    assert mira(state).fate is None  # no choice is awaited from the dead


def test_an_escalated_injury_kills_a_downed_character() -> None:
    state = fight(*HOLDING_ON, hit(3, 2), hit(4, 2))
    assert mira(state).state == "dead"


def test_a_fatal_injury_kills_a_stabilised_character() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(6), hit(7, 4))
    assert mira(state).state == "dead"


def test_a_stabilised_character_keeps_severe_injuries_and_stays_stable() -> None:
    state = fight(*HOLDING_ON, own_turn_ends(6), hit(3, 4))
    assert mira(state).state == "stabilised"
    assert mira(state).injuries == ("fatal arm", "severe head")


def test_a_downed_character_healed_above_zero_loses_hp_before_any_check() -> None:
    state, changes = apply(fight(*HOLDING_ON, Heal(target="mira", amount=4)), hit(3))
    assert mira(state).hp == 1
    assert changes.dice == []


def test_the_dead_cannot_be_hit() -> None:
    state = fight(FATAL_ARM, Choice(character="mira", option="last_stand"))
    with pytest.raises(RuleError, match="dead"):
        apply(state, hit(3))


# --- npc and legendary --------------------------------------------------------------------------


def test_an_npc_at_zero_hp_simply_dies() -> None:
    state, changes = apply(fight(kind="npc", hp=5), hit(5, 1))
    assert mira(state).state == "dead"
    assert mira(state).injuries == ()
    assert changes.dice == []
    assert "simply dies" in changes.explanation


def test_an_npc_above_zero_only_loses_hp() -> None:
    state = fight(hit(4), kind="npc", hp=5)
    assert mira(state).state == "upright"
    assert mira(state).hp == 1


def test_an_npc_has_no_choice_to_make() -> None:
    state = fight(hit(9), kind="npc", hp=5)
    with pytest.raises(RuleError, match="Mira is dead: there is nothing left to choose"):
        apply(state, Choice(character="mira", option="last_stand"))


@pytest.mark.parametrize(
    ("strength", "injuries", "state"),
    [
        (0, (), "upright"),
        (1, ("severe leg",), "upright"),
        (2, ("severe leg",), "upright"),
        (3, ("fatal leg",), "downed"),
        (4, ("fatal leg",), "downed"),
    ],
)
def test_a_legendary_enemys_injury_goes_by_hit_strength(
    strength: int, injuries: tuple[str, ...], state: str
) -> None:
    # 1 HP: the blow reaches 0 with 8 left over, which would be Fatal by the thresholds
    after = fight(hit(9, 2, hit_strength=strength), kind="legendary", hp=1)
    assert mira(after).injuries == injuries
    assert mira(after).state == state


def test_a_legendary_enemy_hit_at_zero_hp_goes_by_hit_strength() -> None:
    after = fight(hit(20), hit(1, 3, hit_strength=3), kind="legendary", hp=20)
    assert mira(after).injuries == ("fatal internal",)


def test_a_legendary_enemy_without_hit_strength_uses_the_thresholds() -> None:
    after = fight(hit(24, 2), kind="legendary", hp=20)
    assert mira(after).injuries == ("severe leg",)


def test_hit_strength_does_not_injure_a_legendary_enemy_above_zero_hp() -> None:
    _, changes = apply(fight(kind="legendary", hp=20), hit(5, 2, hit_strength=3))
    assert changes.dice == []


def test_a_legendary_enemy_chooses_like_a_pc() -> None:
    state = fight(hit(3, 4, hit_strength=3), kind="legendary", hp=3)
    state, _ = apply(state, Choice(character="mira", option="last_stand"))
    assert mira(state).state == "dead"


def test_hit_strength_on_a_pc_is_not_read_and_says_so() -> None:
    state, changes = apply(fight(), hit(11, 1, hit_strength=3))  # 1 left over: no effect
    assert mira(state).injuries == ()
    assert "legendary enemies only" in changes.explanation


# --- joining, facts, dice, the graph ------------------------------------------------------------


def test_a_character_needs_hp() -> None:
    state, _ = apply(None, FightStarted(ruleset="d26"))
    with pytest.raises(RuleError, match="needs stat `hp`") as err:
        apply(state, CharacterJoined(character="mira"))
    assert err.value.field == "$.stats.hp"


def test_a_character_starts_with_at_least_one_hp() -> None:
    state, _ = apply(None, FightStarted(ruleset="d26"))
    with pytest.raises(RuleError, match="at least 1 HP") as err:
        apply(state, CharacterJoined(character="mira", stats={"hp": 0}))
    assert err.value.field == "$.stats.hp"


def test_kind_defaults_to_pc_and_no_side_is_needed() -> None:
    state, _ = apply(None, FightStarted(ruleset="d26"))
    state, _ = apply(state, CharacterJoined(character="mira", stats={"hp": 7}))
    assert mira(state).kind == "pc"
    assert mira(state).hp == 7


def test_an_unknown_kind_is_refused() -> None:
    state, _ = apply(None, FightStarted(ruleset="d26"))
    with pytest.raises(RuleError, match="pc, npc, legendary"):
        apply(state, CharacterJoined(character="mira", kind="boss", stats={"hp": 7}))


def test_a_fact_d26_does_not_use_is_refused() -> None:
    with pytest.raises(RuleError, match="does not use the fact `magic`") as err:
        apply(fight(), Hit(target="mira", damage=1, magic=True))
    assert err.value.field == "$.magic"


def test_dice_purposes_and_sides() -> None:
    assert dict(get_ruleset("d26").dice) == {"location": 4, "hold_on": 6}


def test_a_location_die_out_of_range_is_refused_as_structural() -> None:
    with pytest.raises(StructuralError, match="d4"):
        apply(fight(), hit(13, 5))


def test_machine_declares_the_four_states_d26_uses_and_nothing_leaves_dead() -> None:
    graph = get_ruleset("d26").graph
    assert graph.states == ("upright", "downed", "stabilised", "dead")
    assert not any(source == "dead" for source, _ in graph.edges)


def test_rule_error_on_replay_becomes_a_void_change() -> None:
    state = fight(FATAL_ARM, Choice(character="mira", option="last_stand"))
    after, changes = apply_or_void(state, hit(3))
    assert changes.void is not None and "dead" in changes.void
    assert after.characters == state.characters


def test_the_docstring_lists_each_decision_the_issue_asks_for() -> None:
    text = get_ruleset("d26").documentation()
    for decision in (
        "A turn that ends before the choice is made",
        "keeps being rolled after agony",
        "Hits on a downed or stabilised character",
        "Standing up. A stabilised character stands",
        "Healing at 0 HP while Fatigued",
        "STAND-IN",
        "it is the event right after the choice",
        "a side's turn end ends the turn of every member",
        "A round's end (neither side nor character) is the",
        'The Heal check that stabilises is "another character\'s": it needs a `healer`',
        "Who may act",
    ):
        assert decision in text, decision


# --- the severe_injuries table, a stand-in the log may replace ----------------------------------

BOOK = {
    "arm": "no two-handed actions",
    "leg": "half movement",
    "internal": "no running",
    "head": "-2 to perception",
}


def test_the_default_severe_injuries_table_is_labelled_a_stand_in() -> None:
    assert SEVERE_INJURIES_STAND_IN.source.startswith("STAND-IN")
    for location in ("arm", "leg", "internal", "head"):
        assert getattr(SEVERE_INJURIES_STAND_IN, location).startswith("stand-in:")
    _, changes = apply(fight(), hit(13, 2))
    assert "stand-in: movement is limited" in changes.explanation


def test_a_severe_injuries_table_in_the_log_replaces_the_stand_in() -> None:
    _, changes = apply(fight(tables={"severe_injuries": BOOK}), hit(13, 2))
    assert "Leg Injury (half movement)" in changes.explanation
    assert "stand-in" not in changes.explanation


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        ({"arm": "x", "leg": "y", "internal": "z"}, "missing required field `head`"),
        ({**BOOK, "tail": "no"}, "unknown field `tail`"),
        ({**BOOK, "arm": 3}, r"Expected `str`, got `int` - at `\$.arm`"),
        (["arm", "leg"], "Expected `object`, got `array`"),
    ],
)
def test_a_malformed_severe_injuries_table_is_refused_as_structural(
    table: Any, reason: str
) -> None:
    with pytest.raises(StructuralError, match=reason) as err:
        apply(None, FightStarted(ruleset="d26", tables={"severe_injuries": table}))
    assert err.value.field == "$.tables.severe_injuries"


# --- the example fights shipped with the package ------------------------------------------------


def shipped(name: str) -> str:
    return str(files("woundlog.replays") / "data" / name)


def test_the_ossuary_gate_example_tells_its_story() -> None:
    steps = list(replay_file(shipped("d26_ossuary_gate.jsonl")))
    assert all(changes.void is None for _, changes in steps)
    final = steps[-1][0].characters
    assert {cid: c.state for cid, c in final.items()} == {
        "mira": "upright",
        "kael": "upright",
        "ghoul": "dead",
        "warden": "dead",
    }
    assert final["kael"].injuries == ("severe arm", "fatal arm")
    assert not final["kael"].fatigued
    assert final["warden"].fate == "last_stand"


def test_the_agony_example_ends_in_death_at_the_end_of_the_next_round() -> None:
    steps = list(replay_file(shipped("d26_agony.jsonl")))
    assert all(changes.void is None for _, changes in steps)
    states = [state.characters["bren"].state for state, _ in steps[4:]]
    assert states[-1] == "dead"
    assert states[-2] == "downed"  # alive until the very last round end


# --- frequencies of drawn dice ------------------------------------------------------------------


def test_drawn_location_dice_give_each_location_a_quarter_of_the_time() -> None:
    base = fight()
    n = 20_000
    counts = dict.fromkeys(("arm", "leg", "internal", "head"), 0)
    for i in range(n):
        state, _ = apply(base, Hit(id=f"h{i}", target="mira", damage=13))
        counts[mira(state).injuries[0].split()[1]] += 1
    sigma = (n * (1 / 4) * (3 / 4)) ** 0.5
    for location, count in counts.items():
        assert abs(count - n / 4) < 5 * sigma, (location, count)


def test_drawn_hold_on_dice_stabilise_a_sixth_and_bring_agony_a_sixth_of_the_time() -> None:
    base = fight(*HOLDING_ON)
    n = 12_000
    stable = agony = 0
    for i in range(n):
        state, _ = apply(base, TurnEnded(id=f"t{i}", character="mira"))
        stable += mira(state).state == "stabilised"
        agony += mira(state).agony == 2
    sigma = (n * (1 / 6) * (5 / 6)) ** 0.5
    assert abs(stable - n / 6) < 5 * sigma
    assert abs(agony - n / 6) < 5 * sigma


def test_replay_of_a_log_with_a_retracted_fatal_hit_restores_the_character() -> None:
    log: list[Event] = [
        FightStarted(ruleset="d26"),
        CharacterJoined(character="mira", stats={"hp": 10}),
        Hit(id="oops", target="mira", damage=16, rolls={"location": [1]}),
        Retract(event="oops"),
    ]
    final = list(replay(log))[-1][0]
    assert mira(final).state == "upright"
    assert mira(final).hp == 10


# --- a walkthrough, as a GM types it (the README's, before it gave d26 one paragraph) ---------

WALKTHROUGH = [
    "new gate --ruleset d26 --seed 26 --tables book.toml",
    "join gate mira --name Mira --stat hp=12",
    "join gate kael --name Kael --stat hp=10",
    "join gate warden --name Warden --kind legendary --stat hp=20",
    "hit gate mira 15 --attacker warden --roll location=2",
    "hit gate mira 6 --attacker warden --roll location=4",
    "choose gate mira hold_on",
    "tick gate end --character mira --roll hold_on=3",
    "heal gate mira 0 --means heal_check --healer kael --fact check=18",
    "hit gate warden 22 --attacker mira --fact hit_strength=3",  # refused: still incapacitated
    "heal gate mira 5 --means potion --healer kael",
    "hit gate warden 22 --attacker mira --fact hit_strength=3",
    "choose gate warden last_stand",
    "hit gate mira 4 --attacker warden",  # the Last Stand's one action, the very next event
]
REFUSED = {9}


def test_the_walkthrough_runs_as_written_with_the_books_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.toml").write_text(
        "[severe_injuries]\n" + "".join(f'{k} = "{v}"\n' for k, v in BOOK.items())
    )
    runner = CliRunner()
    said = []
    for n, line in enumerate(WALKTHROUGH):
        result = runner.invoke(app, shlex.split(line))
        assert result.exit_code == (3 if n in REFUSED else 0), (line, result.output)
        said.append(result.output)
    assert "Leg Injury (half movement)" in said[4]
    assert "holds on" in said[7]
    assert "Difficulty 18: Mira is stabilised" in said[8]
    assert "Mira is stabilised but still incapacitated" in said[9]
    assert "Mira stands up" in said[10]
    state = json.loads(runner.invoke(app, ["state", "gate", "--json"]).stdout)["characters"]
    assert state["mira"]["state"] == "upright"
    assert state["mira"]["hp"] == 1
    assert state["mira"]["fatigued"] is True
    assert state["mira"]["injuries"] == ["severe leg", "fatal head"]
    assert state["warden"]["state"] == "dead"
    assert state["warden"]["fate"] == "last_stand"


# --- an undo never hands one character's die to another (DESIGN.md section 4) ------------------

BOTH_HOLDING_ON = (
    Hit(id="downs-mira", target="mira", damage=16, rolls={"location": [1]}),
    Choice(character="mira", option="hold_on"),
    Hit(id="downs-kael", target="kael", damage=16, rolls={"location": [2]}),
    Choice(character="kael", option="hold_on"),
)


def dice_at(log: list[Event], event: str) -> dict[str | None, list[int]]:
    """Per character, the hold_on dice the event `event` rolled."""
    steps = [changes for _, changes in replay(log)]
    rolled: dict[str | None, list[int]] = {}
    for die in next(c for c in steps if c.event == event).dice:
        rolled.setdefault(die.character, []).append(die.value)
    return rolled


def version_2(*events: Event) -> list[Event]:
    return [
        FightStarted(ruleset="d26", seed=7, version=2),
        CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": 10}),
        CharacterJoined(character="kael", name="Kael", side="party", stats={"hp": 10}),
        *events,
    ]


def test_retracting_the_hit_that_downed_one_leaves_anothers_given_hold_on_die_alone() -> None:
    tick = TurnEnded(id="tick", side="party", rolls={"hold_on@mira": [6], "hold_on@kael": [1]})
    log = version_2(*BOTH_HOLDING_ON, tick)
    assert dice_at(log, "tick") == {"mira": [6], "kael": [1]}
    undone = [*log, Retract(event="downs-mira")]
    assert dice_at(undone, "tick") == {"kael": [1]}
    final = list(replay(undone))[-1][0].characters
    assert final["kael"].agony == 2  # still Kael's own 1, not Mira's 6
    assert final["mira"].state == "upright"


def test_retracting_the_hit_that_downed_one_leaves_anothers_drawn_hold_on_die_alone() -> None:
    log = version_2(*BOTH_HOLDING_ON, TurnEnded(id="tick", side="party"))
    kael = dice_at(log, "tick")["kael"]
    undone = [*log, Retract(event="downs-mira")]
    assert dice_at(undone, "tick") == {"kael": kael}
    amended = [*log, Amend(event="downs-mira", replacement=Hit(target="mira", damage=1))]
    assert dice_at(amended, "tick") == {"kael": kael}


def test_unscoped_given_dice_at_a_tick_still_go_in_join_order_as_old_logs_were_written() -> None:
    tick = TurnEnded(id="tick", side="party", rolls={"hold_on": [6, 1]})
    log = version_2(*BOTH_HOLDING_ON, tick)
    assert dice_at(log, "tick") == {"mira": [6], "kael": [1]}
    assert dice_at([*log, Retract(event="downs-mira")], "tick") == {"kael": [6]}


# --- who may act (DESIGN.md section 5) ----------------------------------------------------------

ORC = CharacterJoined(character="orc", name="Orc", side="foes", stats={"hp": 10})


def blow_by(attacker: str) -> Hit:
    return Hit(target="orc", damage=1, attacker=attacker)


def potion_by(healer: str, target: str = "orc") -> Heal:
    return Heal(target=target, amount=1, means="potion", healer=healer)


@pytest.mark.parametrize(
    ("before", "reason"),
    [
        ((FATAL_ARM,), "Mira is incapacitated by a Fatal Injury: for one last action, record the "
         "choice `last_stand` first"),
        (HOLDING_ON, "Mira is incapacitated by a Fatal Injury and may not act"),
        ((*HOLDING_ON, own_turn_ends(6)), "Mira is stabilised but still incapacitated, until "
         "healed above 0 HP, and may not act"),
        ((FATAL_ARM, Choice(character="mira", option="last_stand"), ORC),
         "Mira made The Last Stand and is dead: its one action is the event right after"),
        ((FATAL_ARM, hit(9, 2)), "Mira is dead and may not act"),
    ],
    ids=["awaiting the choice", "holding on", "stabilised", "after the Last Stand", "dead"],
)  # fmt: skip
def test_the_incapacitated_and_the_dead_may_neither_attack_nor_heal(
    before: tuple[Event, ...], reason: str
) -> None:
    state = fight(*before) if ORC in before else fight(ORC, *before)
    with pytest.raises(RuleError, match=reason) as err:
        apply(state, blow_by("mira"))
    assert err.value.field == "$.attacker"
    with pytest.raises(RuleError, match=reason) as err:
        apply(state, potion_by("mira"))
    assert err.value.field == "$.healer"


@pytest.mark.parametrize(
    "before",
    [(), (hit(10),), (hit(13, 1),), (*HOLDING_ON, own_turn_ends(6), Heal(target="mira", amount=2))],
    ids=["unhurt", "Fatigued at 0 HP", "Severely Injured", "stood up"],
)
def test_an_upright_character_may_attack_and_heal_even_fatigued_or_injured(
    before: tuple[Event, ...],
) -> None:
    state = fight(ORC, *before)
    assert apply(state, blow_by("mira"))[0].characters["orc"].hp == 9
    assert apply(state, potion_by("mira", target="kael"))[1].void is None


def test_a_blow_by_the_incapacitated_is_void_on_replay() -> None:
    after, changes = apply_or_void(fight(ORC, *HOLDING_ON), blow_by("mira"))
    assert changes.void == "Mira is incapacitated by a Fatal Injury and may not act"
    assert after.characters["orc"].hp == 10


def test_an_attacker_from_outside_the_fight_is_accepted_and_named() -> None:
    state, changes = apply(fight(ORC), blow_by("ork"))
    assert state.characters["orc"].hp == 9
    assert "attacker `ork` is not a character of this fight" in changes.explanation


def test_a_dead_npc_may_not_strike_its_last_blow_after_the_killing_one() -> None:
    state = fight(ORC, hit(5), kind="npc", hp=5)
    with pytest.raises(RuleError, match="Mira is dead and may not act"):
        apply(state, blow_by("mira"))


# --- The Last Stand's one action ----------------------------------------------------------------

LAST_STAND = (ORC, FATAL_ARM, Choice(character="mira", option="last_stand"))


def test_the_last_stand_action_is_the_event_right_after_the_choice() -> None:
    state, changes = apply(fight(*LAST_STAND), blow_by("mira"))
    assert state.characters["orc"].hp == 9
    assert "The Last Stand's blow: an automatic hit at Hit Strength 3" in changes.explanation
    assert mira(state).last_stand_at == 6  # the choice: after the start, 3 joins and the hit


def test_the_last_stand_gives_one_action_only() -> None:
    state = fight(*LAST_STAND, blow_by("mira"))
    with pytest.raises(RuleError, match="made The Last Stand and is dead") as err:
        apply(state, blow_by("mira"))
    assert err.value.field == "$.attacker"


def test_the_last_stand_action_is_immediate_any_event_between_lets_it_pass() -> None:
    state = fight(*LAST_STAND, TurnStarted(character="kael"))
    with pytest.raises(RuleError, match="the event right after the choice"):
        apply(state, blow_by("mira"))


def test_a_last_stand_action_may_be_corrected_by_an_amend_in_place() -> None:
    log: list[Event] = [
        FightStarted(ruleset="d26"),
        CharacterJoined(character="mira", name="Mira", stats={"hp": 10}),
        ORC,
        FATAL_ARM,
        Choice(character="mira", option="last_stand"),
        Hit(id="wrong", target="mira", damage=3, attacker="mira"),
        Amend(event="wrong", replacement=Hit(target="orc", damage=6, attacker="mira")),
    ]
    steps = list(replay(log))
    assert all(changes.void is None for _, changes in steps)
    assert steps[-1][0].characters["orc"].hp == 4


def test_the_last_stand_may_be_a_heal_check_an_automatic_success() -> None:
    state = fight(
        *HOLDING_ON, hit(16, 3, target="kael"), Choice(character="kael", option="last_stand")
    )
    state, changes = apply(state, Heal(target="mira", amount=0, means="heal_check", healer="kael"))
    assert mira(state).state == "stabilised"
    assert "automatic success" in changes.explanation
    assert "is stabilised and stands" not in changes.explanation


def test_a_last_stand_heal_check_that_gives_hp_stabilises_and_stands_and_says_so() -> None:
    """Found alive by the mutation run: the words "and stands" were never checked."""
    state = fight(
        *HOLDING_ON, hit(16, 3, target="kael"), Choice(character="kael", option="last_stand")
    )
    state, changes = apply(state, Heal(target="mira", amount=2, means="heal_check", healer="kael"))
    assert (mira(state).state, mira(state).hp) == ("upright", 2)
    assert "Mira is stabilised and stands" in changes.explanation


@pytest.mark.parametrize(
    ("strength", "injury"), [(None, "fatal leg"), (3, "fatal leg"), (2, "severe leg")]
)
def test_the_last_stand_hits_a_legendary_enemy_at_hit_strength_3_reducible_to_2(
    strength: int | None, injury: str
) -> None:
    warden = CharacterJoined(character="warden", kind="legendary", stats={"hp": 1})
    state = fight(warden, FATAL_ARM, Choice(character="mira", option="last_stand"))
    blow = Hit(
        target="warden", damage=1, attacker="mira", hit_strength=strength, rolls={"location": [2]}
    )
    assert apply(state, blow)[0].characters["warden"].injuries == (injury,)


@pytest.mark.parametrize("strength", [0, 1])
def test_the_last_stand_hit_strength_may_not_be_reduced_below_2(strength: int) -> None:
    blow = Hit(target="orc", damage=1, attacker="mira", hit_strength=strength)
    with pytest.raises(RuleError, match="may reduce only to 2") as err:
        apply(fight(*LAST_STAND), blow)
    assert err.value.field == "$.hit_strength"


def test_a_blow_without_hit_strength_by_anyone_else_still_goes_by_the_thresholds() -> None:
    warden = CharacterJoined(character="warden", kind="legendary", stats={"hp": 1})
    blow = Hit(target="warden", damage=4, attacker="kael", rolls={"location": [2]})
    assert fight(warden, blow).characters["warden"].injuries == ("severe leg",)


# --- the Heal check is another character's ------------------------------------------------------


def test_the_dying_may_not_make_the_heal_check_that_stabilises_them() -> None:
    heal = Heal(target="mira", amount=0, means="heal_check", healer="mira", check=20)
    with pytest.raises(RuleError, match="Mira may not make the Heal check that stabilises them"):
        apply(fight(*HOLDING_ON), heal)


def test_a_heal_check_by_one_who_cannot_act_is_refused() -> None:
    state = fight(
        *HOLDING_ON, hit(16, 3, target="kael"), Choice(character="kael", option="hold_on")
    )
    with pytest.raises(RuleError, match="Kael is incapacitated by a Fatal Injury") as err:
        apply(state, heal_check(20))
    assert err.value.field == "$.healer"


def test_a_heal_check_that_stabilises_needs_the_healer_who_makes_it() -> None:
    heal = Heal(target="mira", amount=0, means="heal_check", check=20)
    with pytest.raises(RuleError, match="is another character's: give the `healer`") as err:
        apply(fight(*HOLDING_ON), heal)
    assert err.value.field == "$.healer"


def test_a_heal_check_by_someone_outside_the_fight_is_accepted_and_named() -> None:
    heal = Heal(target="mira", amount=0, means="heal_check", healer="priest", check=15)
    state, changes = apply(fight(*HOLDING_ON), heal)
    assert mira(state).state == "stabilised"
    assert "healer `priest` is not a character of this fight" in changes.explanation


def test_healing_oneself_other_than_by_the_stabilising_heal_check_is_allowed() -> None:
    state = fight(hit(4), Heal(target="mira", amount=2, means="heal_check", healer="mira", check=9))
    assert mira(state).hp == 8


def test_a_failed_heal_check_still_heals_its_amount() -> None:
    state = fight(*HOLDING_ON, heal_check(10, amount=3))
    assert mira(state).state == "downed"
    assert mira(state).hp == 3


# --- own turns: a character's or a side's turn end ----------------------------------------------


def test_a_sides_turn_end_rolls_the_hold_on_die_for_every_member_holding_on() -> None:
    tick = TurnEnded(side="party", rolls={"hold_on@mira": [6], "hold_on@kael": [1]})
    state, changes = apply(fight(*BOTH_HOLDING_ON), tick)
    assert mira(state).state == "stabilised"
    assert state.characters["kael"].agony == 2
    assert [(d.character, d.value) for d in changes.dice] == [("mira", 6), ("kael", 1)]


def test_a_sides_turn_end_before_the_choice_holds_on_and_rolls_at_once() -> None:
    state, changes = apply(fight(FATAL_ARM), TurnEnded(side="party", rolls={"hold_on@mira": [1]}))
    assert mira(state).fate == "hold_on"
    assert mira(state).agony == 2
    assert [(d.purpose, d.character) for d in changes.dice] == [("hold_on", "mira")]


def test_a_second_hold_on_choice_is_refused_about_hold_on_to_life() -> None:
    with pytest.raises(RuleError, match="Hold on to Life is chosen once") as err:
        apply(fight(*HOLDING_ON), Choice(character="mira", option="hold_on"))
    assert "Last Stand" not in str(err.value)
    assert err.value.field == "$.option"


# --- every row of the text's tables, against literals typed from the rule text ------------------
# "Damage taken at 0 HP (or excess damage from the blow that dropped you): 0-2 No effect,
# 3-5 Severe Injury, 6+ Fatal Injury"; "1d4: 1 Arm Injury, 2 Leg Injury, 3 Internal Injury,
# 4 Head Injury"; "a Heal check (Difficulty 15, or 18 if it's a Head Injury)".

THE_TEXTS_THRESHOLDS = [
    (0, "no effect"),
    (1, "no effect"),
    (2, "no effect"),
    (3, "severe"),
    (4, "severe"),
    (5, "severe"),
    (6, "fatal"),
    (7, "fatal"),
    (12, "fatal"),
]
THE_TEXTS_LOCATIONS = [
    (1, "arm", "Arm Injury"),
    (2, "leg", "Leg Injury"),
    (3, "internal", "Internal Injury"),
    (4, "head", "Head Injury"),
]
THE_TEXTS_DIFFICULTIES = [(1, 15), (2, 15), (3, 15), (4, 18)]


def severity_of(state: FightState[Any]) -> str:
    injuries = mira(state).injuries
    return injuries[-1].split()[0] if injuries else "no effect"


@pytest.mark.parametrize(("damage", "result"), THE_TEXTS_THRESHOLDS)
def test_each_threshold_row_for_damage_taken_at_zero_hp(damage: int, result: str) -> None:
    assert severity_of(fight(hit(10), hit(damage, 2))) == result


@pytest.mark.parametrize(("excess", "result"), THE_TEXTS_THRESHOLDS)
def test_each_threshold_row_for_the_excess_of_the_blow_that_drops_you(
    excess: int, result: str
) -> None:
    assert severity_of(fight(hit(4), hit(6 + excess, 2))) == result


@pytest.mark.parametrize(("roll", "location", "name"), THE_TEXTS_LOCATIONS)
def test_each_location_row_names_its_injury(roll: int, location: str, name: str) -> None:
    state, changes = apply(fight(), hit(13, roll))
    assert mira(state).injuries == (f"severe {location}",)
    assert f"Severe Injury: {name} (" in changes.explanation
    state, changes = apply(fight(), hit(16, roll))
    assert mira(state).injuries == (f"fatal {location}",)
    assert f"Fatal Injury: {name}: Mira is downed" in changes.explanation


@pytest.mark.parametrize(("roll", "location", "name"), THE_TEXTS_LOCATIONS)
def test_a_second_severe_injury_escalates_to_fatal_at_each_location(
    roll: int, location: str, name: str
) -> None:
    state, changes = apply(fight(hit(13, roll)), hit(3, roll))
    assert mira(state).injuries == (f"severe {location}", f"fatal {location}")
    assert mira(state).state == "downed"
    assert f"a second Severe Injury to the {location} escalates: Fatal Injury: {name}" in (
        changes.explanation
    )


@pytest.mark.parametrize(("first", "second"), [(1, 2), (2, 3), (3, 4), (4, 1)])
def test_severe_injuries_to_two_locations_stay_severe(first: int, second: int) -> None:
    state = fight(hit(13, first), hit(3, second))
    assert [i.split()[0] for i in mira(state).injuries] == ["severe", "severe"]
    assert mira(state).state == "upright"


@pytest.mark.parametrize(("roll", "difficulty"), THE_TEXTS_DIFFICULTIES)
def test_each_locations_heal_check_difficulty(roll: int, difficulty: int) -> None:
    holding_on = (hit(16, roll), Choice(character="mira", option="hold_on"))
    assert mira(fight(*holding_on, heal_check(difficulty - 1))).state == "downed"
    assert mira(fight(*holding_on, heal_check(difficulty))).state == "stabilised"
    _, changes = apply(fight(*holding_on), heal_check(difficulty))
    assert f"against Difficulty {difficulty}:" in changes.explanation


@pytest.mark.parametrize(
    ("roll", "name", "stand_in"),
    [
        (1, "Arm Injury", "stand-in: actions with the injured arm are limited; the book says how"),
        (2, "Leg Injury", "stand-in: movement is limited; the book says how"),
        (3, "Internal Injury", "stand-in: exertion is limited; the book says how"),
        (4, "Head Injury", "stand-in: perception and focus are limited; the book says how"),
    ],
)
def test_each_row_of_the_stand_in_severe_injuries_table(
    roll: int, name: str, stand_in: str
) -> None:
    _, changes = apply(fight(), hit(13, roll))
    assert f"Severe Injury: {name} ({stand_in})" in changes.explanation


@pytest.mark.parametrize(
    ("location", "book"),
    [
        (1, "no two-handed actions"),
        (2, "half movement"),
        (3, "no running"),
        (4, "-2 to perception"),
    ],
)
def test_each_row_of_a_books_severe_injuries_table_is_read(location: int, book: str) -> None:
    _, changes = apply(fight(tables={"severe_injuries": BOOK}), hit(13, location))
    assert f"({book})" in changes.explanation


@pytest.mark.parametrize(
    ("roll", "state", "agony"),
    [
        (1, "downed", 2),
        (2, "downed", 0),
        (3, "downed", 0),
        (4, "downed", 0),
        (5, "downed", 0),
        (6, "stabilised", 0),
    ],
)
def test_each_face_of_the_hold_on_die(roll: int, state: str, agony: int) -> None:
    after = fight(*HOLDING_ON, own_turn_ends(roll))
    assert (mira(after).state, mira(after).agony) == (state, agony)


def test_one_check_per_hit_gives_at_most_one_injury() -> None:
    state = fight(hit(10), hit(30, 3))
    assert mira(state).injuries == ("fatal internal",)


def test_an_npc_at_zero_hp_is_not_fatigued() -> None:
    state = fight(hit(9), kind="npc", hp=5)
    assert not mira(state).fatigued


@pytest.mark.parametrize("version", [1, 2, 3])
def test_agony_kills_in_a_log_that_ends_turns_per_side_with_their_round(version: int) -> None:
    """Issue 27: such a log never ticks the round; its round ends when the next one's first
    tick comes (the `round` moves on)."""
    state = fight(
        *HOLDING_ON,
        TurnEnded(side="party", round=1, rolls={"hold_on@mira": [1]}),  # agony
        TurnEnded(side="party", round=2, rolls={"hold_on@mira": [3]}),  # round 1 has ended
        version=version,
    )
    assert (mira(state).state, mira(state).agony) == ("downed", 1)
    state, changes = apply(state, TurnStarted(side="party", round=3))  # round 2 has ended
    assert mira(state).state == "dead"
    assert "dies in agony" in changes.explanation


def test_a_hit_says_the_hp_it_took_and_what_was_left_over() -> None:
    """Found alive by the mutation run (tests/mutation/run.py): the words were never checked."""
    state = fight()
    assert explanation(state, hit(4)) == "Mira takes 4 damage (HP 10 -> 6)"
    assert explanation(state, hit(13, 1)).startswith(
        "Mira takes 13 damage (HP 10 -> 0): Fatigued; 3 left over: location d4=1 arm: Severe"
    )
    at_zero, _ = apply(state, hit(10))
    assert explanation(at_zero, hit(2, 1)) == "Mira takes 2 damage at 0 HP: no effect"


def test_a_round_ended_twice_counts_once_for_agony() -> None:
    """Each round ends at most once (DESIGN section 3's pulse): a second `turn_ended` of the
    whole round 1, as a tracker resending it under a new id writes, is no second round end
    (found alive by the mutation run: the tick's own scope read for the pulse's round end)."""
    state = fight(
        *HOLDING_ON,
        TurnEnded(character="mira", round=1, rolls={"hold_on@mira": [1]}),  # agony
        TurnEnded(round=1),  # the end of the round of the 1
    )
    assert (mira(state).state, mira(state).agony) == ("downed", 1)
    state, _ = apply(state, TurnEnded(round=1))
    assert (mira(state).state, mira(state).agony) == ("downed", 1)
    state, changes = apply(state, TurnEnded(round=2))  # the end of the next round
    assert mira(state).state == "dead"
    assert "dies in agony" in changes.explanation


def test_a_blow_on_1_hp_says_what_was_left_over() -> None:
    # 1 HP, a blow of 4: 3 left over, Severe (the threshold table's 3-4 row), to the arm (d4=1)
    assert explanation(fight(hp=1), hit(4, 1)).startswith(
        "Mira takes 4 damage (HP 1 -> 0): Fatigued; 3 left over: location d4=1 arm: Severe"
    )


# --- examples the mutation run found missing (tests/mutation/results, seed 27) ---------------


def test_a_turn_ending_after_the_choice_asks_nothing_again() -> None:
    """Only a choice still pending lapses into Hold on to Life at a turn's end: one already made
    is not made again, on anyone's turn end (`DOWNED and fate == UNDECIDED` with `or` said it
    again, "the turn ended before a choice", for a character who had chosen)."""
    state = fight(*HOLDING_ON)
    assert explanation(state, TurnEnded(character="kael")) == "no effect"
    assert explanation(state, own_turn_ends(3)) == "Mira rolls 3 to hold on to life: holds on"


def test_a_new_rounds_first_turn_brings_no_agony_to_one_not_in_agony() -> None:
    """Agony is "one round end closer to death" only once the hold_on die gave it: a Downed
    character who rolled a 3 is no nearer death when the next round's first turn starts
    (`DOWNED and agony` with `or` counted down from 0, to -1)."""
    state = fight(*HOLDING_ON, TurnEnded(side="party", round=1, rolls={"hold_on@mira": [3]}))
    state, changes = apply(state, TurnStarted(side="party", round=2))  # round 1 has ended
    assert (mira(state).state, mira(state).agony) == ("downed", 0)
    assert changes.explanation == "no effect"


def test_a_heal_says_the_hp_it_gave_and_nothing_when_it_gave_none() -> None:
    potion = Heal(target="mira", amount=3, means="potion")
    assert explanation(fight(hit(5)), potion) == "Mira is healed 3 (HP 5 -> 8)"
    assert explanation(fight(), potion) == "Mira is healed 3"  # at 10 of 10 HP: no HP to show


def test_a_turn_starting_within_the_round_is_no_round_end_for_agony() -> None:
    # agony counts round ends; a turn starting without the round moving on is none
    state = fight(*HOLDING_ON, own_turn_ends(1))  # a 1: agony, 2 round ends left
    state, changes = apply(state, TurnStarted(character="kael"))
    assert (mira(state).state, mira(state).agony) == ("downed", 2)
    assert changes.explanation == "no effect"


def test_fatigued_lasts_past_the_fight_and_only_for_the_fatigued() -> None:
    """ "Fatigued ... until you rest": a campaign carries it out of the fight (the campaign's
    own tests show it whole; this is the ruleset's part of it)."""
    conditions = get_ruleset("d26").permanence.conditions
    assert conditions(mira(fight(hit(10)))) == ("Fatigued",)  # 0 HP: Fatigued
    assert conditions(mira(fight(hit(4)))) == ()
