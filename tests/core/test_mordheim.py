"""Each Mordheim rule, with the dice given, as the rule text states it."""

from __future__ import annotations

from typing import Any

import pytest

from woundlog.core import FightState, apply, apply_or_void, get_ruleset
from woundlog.events import (
    CharacterJoined,
    Choice,
    Event,
    FightStarted,
    Heal,
    Hit,
    RuleError,
    TurnEnded,
    TurnStarted,
)


def fight(*events: Event, wounds: int = 1) -> FightState[Any]:
    """A Mordheim fight with Grim (reavers) and Snik (skaven), then `events`."""
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    for event in (
        CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": wounds}),
        CharacterJoined(character="snik", name="Snik", side="skaven"),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def hit(damage: int, *injury: int, target: str = "grim") -> Hit:
    return Hit(target=target, damage=damage, rolls={"injury": list(injury)} if injury else {})


def grim(state: FightState[Any]) -> Any:
    return state.characters["grim"]


@pytest.mark.parametrize(
    ("roll", "result"),
    [
        (1, "knocked_down"),
        (2, "knocked_down"),
        (3, "stunned"),
        (4, "stunned"),
        (5, "out_of_action"),
        (6, "out_of_action"),
    ],
)
def test_injury_table_gives_each_result_for_its_d6_range(roll: int, result: str) -> None:
    assert grim(fight(hit(1, roll))).state == result


def test_wound_that_does_not_reach_zero_rolls_no_injury() -> None:
    state, changes = apply(fight(wounds=3), hit(2))
    assert grim(state).wounds == 1
    assert grim(state).state == "upright"
    assert changes.dice == []


def test_wound_that_reaches_zero_and_every_later_wound_roll_injury() -> None:
    state, changes = apply(fight(wounds=2), hit(3, 1, 2))
    assert [d.value for d in changes.dice] == [1, 2]  # wound 2 reached zero, wound 3 came after
    assert grim(state).wounds == 0


def test_several_wounds_apply_the_highest_result() -> None:
    state = fight(hit(2, 3, 1))  # a 2-wound hit on a 1-wound fighter rolls twice
    assert grim(state).state == "stunned"


def test_a_later_lower_result_never_improves_the_state() -> None:
    state = fight(hit(1, 4), hit(1, 1))
    assert grim(state).state == "stunned"


def test_a_later_higher_result_makes_the_state_worse() -> None:
    state = fight(hit(1, 1), hit(1, 5))
    assert grim(state).state == "out_of_action"


def test_hit_of_no_damage_inflicts_nothing() -> None:
    state, changes = apply(fight(), hit(0))
    assert grim(state).wounds == 1
    assert changes.dice == [] and changes.characters == []


def test_recovery_phase_stands_a_knocked_down_fighter_at_half_rate() -> None:
    state = fight(hit(1, 2), TurnStarted(side="reavers"))
    assert grim(state).state == "upright"
    assert grim(state).wounds == 0
    assert grim(state).half_rate


def test_stunned_fighter_needs_two_recovery_phases_to_stand() -> None:
    state = fight(hit(1, 3), TurnStarted(side="reavers"))
    assert grim(state).state == "knocked_down"
    state, _ = apply(state, TurnStarted(side="reavers"))
    assert grim(state).state == "upright"


def test_recovery_phase_of_the_other_side_leaves_a_fighter_down() -> None:
    state = fight(hit(1, 3), TurnStarted(side="skaven"))
    assert grim(state).state == "stunned"


def test_turn_started_for_one_character_is_its_recovery_phase() -> None:
    state = fight(hit(1, 1), TurnStarted(character="grim"))
    assert grim(state).state == "upright"


def test_turn_started_for_the_whole_round_recovers_nobody() -> None:
    state = fight(hit(1, 1), TurnStarted(round=2))
    assert grim(state).state == "knocked_down"


def test_half_rate_lasts_until_the_end_of_that_turn() -> None:
    state = fight(hit(1, 2), TurnStarted(side="reavers"), TurnEnded(side="reavers"))
    assert not grim(state).half_rate


def test_fighter_who_stood_up_on_zero_wounds_rolls_again_on_the_next_wound() -> None:
    state = fight(hit(1, 2), TurnStarted(side="reavers"))
    state, changes = apply(state, hit(1, 6))
    assert [d.value for d in changes.dice] == [6]
    assert grim(state).state == "out_of_action"


def test_out_of_action_is_final_for_the_fight() -> None:
    state = fight(hit(1, 5), TurnStarted(side="reavers"), TurnStarted(side="reavers"))
    assert grim(state).state == "out_of_action"
    with pytest.raises(RuleError, match="out of action"):
        apply(state, hit(1, 1))


def test_heal_is_refused_and_points_at_undo() -> None:
    with pytest.raises(RuleError, match="retract or amend"):
        apply(fight(), Heal(target="grim", amount=1))


def test_choice_is_refused() -> None:
    with pytest.raises(RuleError):
        apply(fight(), Choice(character="grim", option="last_stand"))


def test_warrior_needs_a_side() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError, match="side") as err:
        apply(state, CharacterJoined(character="grim"))
    assert err.value.field == "$.side"


def test_warrior_defaults_to_one_wound() -> None:
    assert grim(fight()).wounds == 1
    assert grim(fight()).stats == {"wounds": 1}


def test_unknown_stat_is_refused_naming_it() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError) as err:
        apply(state, CharacterJoined(character="g", side="a", stats={"wonds": 2}))
    assert err.value.field == "$.stats.wonds"


def test_fact_mordheim_does_not_use_is_refused() -> None:
    with pytest.raises(RuleError) as err:
        apply(fight(), Hit(target="grim", damage=1, magic=True))
    assert err.value.field == "$.magic"


def test_drawn_injury_dice_are_recorded_as_drawn() -> None:
    _, changes = apply(fight(), Hit(id="h1", target="grim", damage=1))
    assert [(d.purpose, d.sides, d.source) for d in changes.dice] == [("injury", 6, "drawn")]


def test_unused_given_dice_are_reported_not_refused() -> None:
    _, changes = apply(fight(wounds=3), Hit(target="grim", damage=1, rolls={"injury": [4]}))
    assert changes.unused == {"injury": [4]}


def test_rule_error_on_replay_becomes_a_void_change() -> None:
    state = fight(hit(1, 5))
    after, changes = apply_or_void(state, hit(1, 1))
    assert changes.void is not None and "out of action" in changes.void
    assert after.characters == state.characters
    assert after.seq == state.seq + 1


def test_machine_declares_only_the_four_states_mordheim_uses() -> None:
    graph = get_ruleset("mordheim").graph
    assert set(graph.states) == {"upright", "knocked_down", "stunned", "out_of_action"}
    assert not any(source == "out_of_action" for source, _ in graph.edges)


def test_drawn_dice_give_each_injury_result_a_third_of_the_time() -> None:
    base = fight()
    n = 30_000
    counts = {"knocked_down": 0, "stunned": 0, "out_of_action": 0}
    for i in range(n):
        state, _ = apply(base, Hit(id=f"h{i}", target="grim", damage=1))
        counts[grim(state).state] += 1
    sigma = (n * (1 / 3) * (2 / 3)) ** 0.5
    for result, count in counts.items():
        assert abs(count - n / 3) < 5 * sigma, (result, count)
