"""Each Mordheim rule, with the dice given, as the rule text states it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from woundlog.core import STATES, FightState, apply, apply_or_void, get_ruleset
from woundlog.core.ruleset import Acting
from woundlog.core.rulesets.mordheim import INJURY, WHO_MAY_ACT
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
    with pytest.raises(RuleError, match="Grim is out of action and takes no further part"):
        apply(state, hit(1, 1))


def test_heal_is_refused_and_points_at_undo() -> None:
    with pytest.raises(RuleError, match="retract or amend"):
        apply(fight(), Heal(target="grim", amount=1))


def test_choice_is_refused() -> None:
    with pytest.raises(RuleError, match="leaves no decision to a player"):
        apply(fight(), Choice(character="grim", option="last_stand"))


def test_warrior_needs_a_side() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError, match="needs a `side`: its recovery phase") as err:
        apply(state, CharacterJoined(character="grim"))
    assert err.value.field == "$.side"


def test_warrior_defaults_to_one_wound() -> None:
    assert grim(fight()).wounds == 1
    assert grim(fight()).stats == {"wounds": 1}


def test_unknown_stat_is_refused_naming_it() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError, match="no stat `wonds` \\(it has: wounds, movement") as err:
        apply(state, CharacterJoined(character="g", side="a", stats={"wonds": 2}))
    assert err.value.field == "$.stats.wonds"


def test_fact_mordheim_does_not_use_is_refused() -> None:
    with pytest.raises(RuleError, match="does not use the fact `magic` on a hit") as err:
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


# --- the injury table, row by row, as the text prints it --------------------------------------


def test_injury_table_has_the_three_rows_of_the_text() -> None:
    assert dict(INJURY) == {(1, 2): "knocked_down", (3, 4): "stunned", (5, 6): "out_of_action"}
    assert INJURY.die == "D6"


@pytest.mark.parametrize(
    ("rolls", "result"),
    [
        ((3, 1), "stunned"),
        ((1, 3), "stunned"),
        ((1, 2), "knocked_down"),
        ((5, 1), "out_of_action"),
        ((1, 6), "out_of_action"),
        ((4, 3), "stunned"),
    ],
)
def test_several_wounds_in_one_hit_keep_the_highest_result_whatever_their_order(
    rolls: tuple[int, int], result: str
) -> None:
    state, changes = apply(fight(), hit(2, *rolls))
    settled = next((i + 1 for i, roll in enumerate(rolls) if roll >= 5), len(rolls))
    assert [d.value for d in changes.dice] == list(rolls[:settled])  # none after out of action
    assert grim(state).state == result


def test_a_turn_end_does_not_reset_the_worst_result_only_a_recovery_does() -> None:
    state = fight(hit(1, 4), TurnEnded(side="reavers"), TurnEnded(), hit(1, 1))
    assert grim(state).state == "stunned"


def test_after_a_recovery_a_lower_result_still_never_improves_the_state() -> None:
    state = fight(hit(1, 3), TurnStarted(side="reavers"))  # stunned -> knocked down
    assert grim(apply(state, hit(1, 2))[0]).state == "knocked_down"
    assert grim(apply(state, hit(1, 4))[0]).state == "stunned"


def test_hit_of_no_damage_rolls_nothing_even_when_a_die_is_given() -> None:
    state, changes = apply(fight(), hit(0, 6))
    assert changes.dice == [] and changes.unused == {"injury": [6]}
    assert grim(state).state == "upright"


def test_hit_of_no_damage_on_a_fighter_on_zero_wounds_rolls_nothing() -> None:
    state = fight(hit(1, 1), TurnStarted(side="reavers"))  # up again on zero wounds
    after, changes = apply(state, hit(0, 6))
    assert changes.dice == [] and grim(after).state == "upright"


def test_every_wound_on_zero_wounds_rolls() -> None:
    state = fight(hit(1, 1), TurnStarted(side="reavers"))
    _, changes = apply(state, hit(3, 1, 2, 1))
    assert [d.value for d in changes.dice] == [1, 2, 1]


def test_the_close_combat_rule_is_not_applied_a_blow_on_the_fallen_rolls_as_given() -> None:
    # "knocked down or stunned models are taken out of action by any wound" is not in this text
    assert grim(fight(hit(1, 1), hit(1, 1))).state == "knocked_down"
    assert grim(fight(hit(1, 3), hit(1, 3))).state == "stunned"


def test_injuries_stay_empty_through_a_whole_fight() -> None:
    state = fight(hit(1, 1), TurnStarted(side="reavers"), hit(2, 3, 4), hit(1, 6), wounds=2)
    assert grim(state).state == "out_of_action"
    assert grim(state).injuries == ()


# --- the recovery phase -----------------------------------------------------------------------


def warband(*events: Event) -> FightState[Any]:
    """Grim and Ulf (reavers), Snik and Krak (skaven), a wound each, then `events`."""
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    for event in (
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        CharacterJoined(character="ulf", name="Ulf", side="reavers"),
        CharacterJoined(character="snik", name="Snik", side="skaven"),
        CharacterJoined(character="krak", name="Krak", side="skaven"),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def states(state: FightState[Any]) -> dict[str, str]:
    return {cid: c.state for cid, c in state.characters.items()}


def test_a_sides_recovery_phase_recovers_every_fighter_of_that_side_and_no_other() -> None:
    down = [hit(1, 1, target=cid) for cid in ("grim", "ulf", "snik", "krak")]
    state = warband(*down, TurnStarted(side="reavers"))
    assert states(state) == {
        "grim": "upright",
        "ulf": "upright",
        "snik": "knocked_down",
        "krak": "knocked_down",
    }


def test_a_fighters_own_recovery_phase_recovers_him_alone() -> None:
    state = warband(hit(1, 1), hit(1, 1, target="ulf"), TurnStarted(character="grim"))
    assert states(state)["grim"] == "upright"
    assert states(state)["ulf"] == "knocked_down"


def test_the_recovery_phase_rolls_no_dice() -> None:
    state = warband(hit(1, 1), hit(1, 3, target="ulf"))
    _, changes = apply(state, TurnStarted(side="reavers", rolls={"injury": [6]}))
    assert changes.dice == [] and changes.unused == {"injury": [6]}
    assert "Grim stands up" in changes.explanation and "Ulf turns face up" in changes.explanation


def test_one_step_per_recovery_phase_a_stunned_fighter_is_only_knocked_down_after_it() -> None:
    state = fight(hit(1, 4), TurnStarted(side="reavers"))
    assert grim(state).state == "knocked_down"
    assert not grim(state).half_rate  # he turned face up: he did not stand


# --- half rate: the turn a fighter stands up ----------------------------------------------------


def stood_up(*events: Event) -> FightState[Any]:
    """Grim knocked down and stood up at his side's recovery phase, then `events`."""
    return warband(hit(1, 2), TurnStarted(side="reavers"), *events)


def test_standing_up_puts_a_fighter_at_half_rate() -> None:
    assert grim(stood_up()).half_rate


@pytest.mark.parametrize(
    "turn_end",
    [TurnEnded(side="reavers"), TurnEnded(character="grim"), TurnEnded(), TurnEnded(round=1)],
    ids=["his side", "himself", "the whole round", "the round, numbered"],
)
def test_half_rate_clears_at_the_end_of_that_turn(turn_end: TurnEnded) -> None:
    assert not grim(stood_up(turn_end)).half_rate


@pytest.mark.parametrize(
    "turn_end",
    [TurnEnded(side="skaven"), TurnEnded(character="ulf")],
    ids=["the other side", "another fighter"],
)
def test_half_rate_lasts_through_someone_elses_turn_end(turn_end: TurnEnded) -> None:
    assert grim(stood_up(turn_end)).half_rate


@pytest.mark.parametrize(
    "recovery",
    [TurnStarted(side="reavers"), TurnStarted(character="grim", round=2)],
    ids=["his side's", "his own, next round"],
)
def test_half_rate_clears_at_his_next_recovery_phase_if_no_turn_end_came(
    recovery: TurnStarted,
) -> None:
    state = stood_up(recovery)
    assert grim(state).state == "upright"
    assert not grim(state).half_rate


def test_half_rate_lasts_through_a_round_marker_and_the_other_sides_recovery() -> None:
    assert grim(stood_up(TurnStarted(round=2), TurnStarted(side="skaven"))).half_rate


def test_half_rate_clears_at_the_next_recovery_phase_of_a_fighter_stunned_that_turn() -> None:
    state = stood_up(hit(1, 3), TurnStarted(side="reavers"))
    assert grim(state).state == "knocked_down"
    assert not grim(state).half_rate


def test_half_rate_clears_at_the_next_recovery_phase_of_one_taken_out_of_action() -> None:
    state = stood_up(hit(1, 6), TurnStarted(side="reavers"))
    assert grim(state).state == "out_of_action"
    assert not grim(state).half_rate


def test_a_fighter_knocked_down_again_stands_at_half_rate_again() -> None:
    state = stood_up(hit(1, 1), TurnStarted(side="reavers"))
    assert grim(state).state == "upright" and grim(state).half_rate


def test_the_end_of_turn_says_who_is_back_to_full_rate() -> None:
    _, changes = apply(stood_up(), TurnEnded(side="reavers"))
    assert changes.explanation == "end of turn: back to full movement and fighting: Grim"


# --- who may act ------------------------------------------------------------------------------


def test_who_may_act_lists_every_state_but_upright_as_unable_to_attack_or_heal() -> None:
    expected = {
        "knocked_down": Acting(
            attack=False, heal=False, why="is knocked down and may not fight, shoot or cast spells"
        ),
        "stunned": Acting(attack=False, heal=False, why="is stunned and may do nothing at all"),
        "out_of_action": Acting(attack=False, heal=False, why="is out of action"),
    }
    assert expected == WHO_MAY_ACT
    assert get_ruleset("mordheim").who_may_act is WHO_MAY_ACT


@pytest.mark.parametrize(
    ("roll", "refused"),
    [
        (1, "Grim is knocked down and may not fight, shoot or cast spells"),
        (3, "Grim is stunned and may do nothing at all"),
        (5, "Grim is out of action"),
    ],
)
def test_a_fighter_who_is_down_may_not_strike(roll: int, refused: str) -> None:
    state = warband(hit(1, roll))
    blow = Hit(target="snik", damage=1, attacker="grim", rolls={"injury": [3]})
    with pytest.raises(RuleError, match=refused) as err:
        apply(state, blow)
    assert (err.value.message, err.value.field) == (refused, "$.attacker")
    after, changes = apply_or_void(state, blow)
    assert changes.void == refused and states(after)["snik"] == "upright"


def test_an_upright_fighter_may_strike() -> None:
    state, _ = apply(
        warband(), Hit(target="snik", damage=1, attacker="grim", rolls={"injury": [3]})
    )
    assert states(state)["snik"] == "stunned"


def test_a_fighter_at_half_rate_may_strike() -> None:
    state = stood_up()
    after, _ = apply(state, Hit(target="snik", damage=1, attacker="grim", rolls={"injury": [4]}))
    assert states(after)["snik"] == "stunned"


@pytest.mark.parametrize(
    ("roll", "refused"),
    [
        (1, "Grim is knocked down and may not fight, shoot or cast spells"),
        (3, "Grim is stunned and may do nothing at all"),
        (5, "Grim is out of action"),
    ],
)
def test_a_fighter_who_is_down_may_not_heal(roll: int, refused: str) -> None:
    with pytest.raises(RuleError, match=refused) as err:
        apply(warband(hit(1, roll)), Heal(target="ulf", amount=1, healer="grim"))
    assert err.value.field == "$.healer"


def test_an_upright_healer_meets_mordheims_lack_of_healing() -> None:
    with pytest.raises(RuleError, match="no healing during a battle") as err:
        apply(warband(), Heal(target="ulf", amount=1, healer="grim"))
    assert err.value.field is None


# --- joining ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["warrior", "hero", "henchman"])
def test_every_kind_follows_the_same_rules(kind: str) -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    state, _ = apply(state, CharacterJoined(character="grim", side="a", kind=kind))
    state, _ = apply(state, hit(1, 3))
    assert grim(state).state == "stunned" and grim(state).kind == kind
    state, _ = apply(state, TurnStarted(side="a"))
    assert grim(state).state == "knocked_down"


def test_a_warrior_is_the_default_kind_and_other_kinds_are_refused() -> None:
    assert grim(fight()).kind == "warrior"
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(
        RuleError, match=r"no kind `monster` \(it has: warrior, hero, henchman\)"
    ) as err:
        apply(state, CharacterJoined(character="grim", side="a", kind="monster"))
    assert err.value.field == "$.kind"


def test_a_warrior_needs_at_least_one_wound() -> None:
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    with pytest.raises(RuleError, match="at least 1 wound") as err:
        apply(state, CharacterJoined(character="grim", side="a", stats={"wounds": 0}))
    assert err.value.field == "$.stats.wounds"


def test_the_rest_of_the_profile_is_kept_for_reference_and_read_by_no_rule() -> None:
    profile = {"wounds": 1, "toughness": 9, "strength": 9, "initiative": 1, "leadership": 2}
    state, _ = apply(None, FightStarted(ruleset="mordheim"))
    state, _ = apply(state, CharacterJoined(character="grim", side="a", stats=profile))
    assert grim(state).stats == profile
    state, _ = apply(state, hit(1, 3))
    assert grim(state).state == "stunned"  # toughness 9 changes nothing


# --- the docstring and the machine agree ----------------------------------------------------------


def documented_states() -> tuple[set[str], set[str]]:
    """The states `woundlog rules mordheim` says the game uses (one line each: the state, two
    or more spaces, what it means), and those it says it does not use."""
    doc = get_ruleset("mordheim").documentation()
    section = doc.split("States in this game:\n", 1)[1].split("\n\n", 1)[0]
    used = set(re.findall(r"^  ([a-z_]+)  +\S", section, re.MULTILINE))
    said_unused = re.search(r"\(([a-z_, ]+) are not used", section)
    assert said_unused is not None
    unused = set(re.split(r",? and |, ", said_unused.group(1)))
    return used, unused


def test_the_documented_states_are_the_machines_states() -> None:
    used, unused = documented_states()
    graph = get_ruleset("mordheim").graph
    assert used == set(graph.states) == {"upright", "knocked_down", "stunned", "out_of_action"}
    assert unused == set(STATES) - used == {"downed", "stabilised", "dead"}
    assert graph.initial == "upright"


def test_the_diagram_draws_the_documented_states_and_the_declared_moves() -> None:
    graph = get_ruleset("mordheim").graph
    diagram = graph.mermaid()
    drawn = set(re.findall(r'^\s*state "(\w+)" as \w+$', diagram, re.MULTILINE))
    moves = set(re.findall(r"^\s*(\w+) --> (\w+): (\w+)$", diagram, re.MULTILINE))
    used, _ = documented_states()
    assert drawn == used
    assert moves == {
        ("upright", "knocked_down", "knock_down"),
        ("upright", "stunned", "stun"),
        ("knocked_down", "stunned", "stun"),
        ("upright", "out_of_action", "take_out_of_action"),
        ("knocked_down", "out_of_action", "take_out_of_action"),
        ("stunned", "out_of_action", "take_out_of_action"),
        ("knocked_down", "upright", "stand_up"),
        ("stunned", "knocked_down", "turn_face_up"),
    }
    assert {(a, b) for a, b, _ in moves} == set(graph.edges)
    assert "[*] --> upright" in diagram


def test_a_hit_of_a_billion_wounds_returns_at_once_rolling_until_the_result_is_settled() -> None:
    state, changes = apply(fight(wounds=3), hit(10**9))
    # one roll per wound took minutes and gigabytes: the dice stop once the result is settled
    # (the seed fixes them; a die of 5 or 6 in the first few is all but certain)
    assert len(changes.dice) <= 20
    assert grim(state).state == "out_of_action" and grim(state).wounds == 0
    assert changes.dice[-1].value >= 5  # the roll that settled it: out of action
    assert all(d.value <= 4 for d in changes.dice[:-1])
    assert "999,999,998 past zero" in changes.explanation


def test_rolls_after_an_out_of_action_result_are_not_needed_and_left_unused() -> None:
    state, changes = apply(fight(), hit(4, 1, 5, 3, 6))
    assert [d.value for d in changes.dice] == [1, 5]  # the first rolls, as wound by wound
    assert changes.unused == {"injury": [3, 6]}
    assert grim(state).state == "out_of_action"
    assert "4 past zero" in changes.explanation


def test_the_dice_a_big_hit_rolls_are_the_first_the_wound_by_wound_rule_rolls() -> None:
    _, small = apply(fight(wounds=2), hit(40))
    _, big = apply(fight(wounds=2), hit(10**12))
    assert small.dice == big.dice


# --- one recovery phase a round, whichever scope says so first (issue 27, section 1) ----------


@pytest.mark.parametrize("numbered", [True, False], ids=["with round", "without round"])
def test_a_side_s_recovery_then_his_own_in_one_round_is_one_recovery(numbered: bool) -> None:
    round_ = {"round": 1} if numbered else {}
    state = fight(hit(1, 3), TurnStarted(side="reavers", **round_))  # stunned, face up
    assert grim(state).state == "knocked_down"
    state, _ = apply(state, TurnStarted(character="grim", **round_))
    assert grim(state).state == "knocked_down"  # he stands in his next recovery phase
    state, _ = apply(state, TurnStarted(character="grim", round=2))
    assert grim(state).state == "upright"


# --- what the explanation says of the rolls a blow makes (issue 27, a surviving mutant) ----------


def test_a_blow_whose_every_roll_was_needed_does_not_say_the_first_settled_it() -> None:
    # two wounds past zero, two rolls, neither out of action: both were needed
    state = fight(wounds=1)
    _, changes = apply(state, hit(3, 1, 2))  # 1 -> 0, then 2 past zero: knocked down twice
    assert "injury roll 1 knocked down, 2 knocked down" in changes.explanation
    assert "settles it" not in changes.explanation


def test_a_blow_settled_by_its_first_roll_says_so() -> None:
    state = fight(wounds=1)
    _, changes = apply(state, hit(3, 6))  # out of action on the first of two rolls
    assert "injury roll 6 out of action" in changes.explanation
    assert "(which settles it: the other rolls could change nothing)" in changes.explanation


# --- what the changes say, and a fighter as he joins ----------------------------------------------


def test_each_hit_says_how_many_wounds_it_took_and_from_what() -> None:
    """Found by the mutation run (tests/mutation/run.py): the words were never checked."""
    state = fight(wounds=3)
    said = []
    for event in (hit(0), hit(1), hit(2, 1), hit(1, 4)):
        state, changes = apply(state, event)
        said.append(changes.explanation)
    assert said == [
        "Grim: no wound",
        "Grim loses 1 wound (3 -> 2)",
        "Grim loses 2 wounds (2 -> 0), 1 past zero; injury roll 1 knocked down: knocked down",
        "Grim takes 1 more wound on zero wounds, 1 past zero; injury roll 4 stunned: stunned",
    ]


def test_an_end_of_turn_with_nobody_at_half_rate_says_nothing_of_movement() -> None:
    _, changes = apply(fight(), TurnEnded(round=1, side="reavers"))
    assert changes.explanation == "no effect"


def test_a_fighter_joins_at_full_rate() -> None:
    assert grim(fight()).half_rate is False
