"""dnd5e: every rule of dropping to 0, death saves, instant death, stabilising and healing, with
given dice; the drawn-dice odds of a dying character left alone against their exact values."""

from __future__ import annotations

import functools
import math
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState, apply, get_ruleset
from woundlog.core.reducer import advance
from woundlog.events import (
    CharacterJoined,
    Check,
    Event,
    FightStarted,
    Heal,
    Hit,
    RuleError,
    StructuralError,
    TurnStarted,
)
from woundlog.replays import replay

State = FightState[Any]


def fight(*events: Event, **options: bool | int | str) -> State:
    """A version-2 dnd5e fight: Mira (pc, 10 hp, side party), Bram (pc, 12 hp, party), and a
    goblin (monster, 7 hp, side goblins), then `events`."""
    state: State | None = None
    for event in (
        FightStarted(ruleset="dnd5e", seed=5, options=options, version=2),
        CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": 10}),
        CharacterJoined(character="bram", name="Bram", side="party", stats={"hp": 12}),
        CharacterJoined(
            character="gob", name="Goblin", side="goblins", kind="monster", stats={"hp": 7}
        ),
        *events,
    ):
        state = advance(state, event)
    assert state is not None
    return state


def then(state: State, event: Event) -> tuple[State, str]:
    """The fight after one more event, and what it said."""
    after, changes = apply(state, event)
    return after, changes.explanation


def mira(state: State) -> Any:
    return state.characters["mira"]


def hit(damage: int, target: str = "mira", **facts: Any) -> Hit:
    return Hit(target=target, damage=damage, **facts)


def save(roll: int, who: str = "mira") -> TurnStarted:
    return TurnStarted(character=who, rolls={f"death_save@{who}": [roll]})


DYING = (hit(10),)  # Mira dropped to exactly 0: dying, no damage left over


# --- joining ------------------------------------------------------------------------------------


def test_a_creature_joins_at_its_hit_point_maximum_with_no_temporary_hit_points() -> None:
    state = fight()
    assert (mira(state).hp, mira(state).temp_hp, mira(state).state) == (10, 0, "upright")
    assert state.characters["gob"].kind == "monster"


def test_a_hit_point_maximum_is_required_and_at_least_1() -> None:
    with pytest.raises(RuleError, match="dnd5e needs stat `hp`"):
        then(fight(), CharacterJoined(character="x", stats={"ac": 12}))
    with pytest.raises(RuleError, match="at least 1"):
        then(fight(), CharacterJoined(character="x", stats={"hp": 0}))


# --- damage and temporary hit points ------------------------------------------------------------


def test_damage_comes_off_hit_points_which_never_go_below_zero() -> None:
    state, said = then(fight(), hit(4))
    assert mira(state).hp == 6 and "10 -> 6" in said


def test_temporary_hit_points_absorb_damage_first() -> None:
    state = fight(Heal(target="mira", amount=5, means="temporary"))
    state, said = then(state, hit(7))
    assert (mira(state).temp_hp, mira(state).hp) == (0, 8)
    assert "absorb 5" in said


def test_temporary_hit_points_that_absorb_all_of_it_leave_hit_points_alone() -> None:
    state = fight(Heal(target="mira", amount=5, means="temporary"))
    state, _ = then(state, hit(3))
    assert (mira(state).temp_hp, mira(state).hp) == (2, 10)


def test_temporary_hit_points_do_not_stack_the_higher_stands() -> None:
    state = fight(Heal(target="mira", amount=5, means="temporary"))
    state, said = then(state, Heal(target="mira", amount=3, means="temporary"))
    assert mira(state).temp_hp == 5 and "keeps 5" in said
    state, _ = then(state, Heal(target="mira", amount=8, means="temporary"))
    assert mira(state).temp_hp == 8


def test_temporary_hit_points_are_not_healing_they_wake_nobody() -> None:
    state, _ = then(fight(*DYING), Heal(target="mira", amount=5, means="temporary"))
    assert mira(state).state == "downed" and mira(state).hp == 0 and mira(state).temp_hp == 5


# --- dropping to 0 ------------------------------------------------------------------------------


def test_a_character_dropped_to_zero_falls_unconscious_and_dies_nothing() -> None:
    state, said = then(fight(), hit(12))
    assert (mira(state).state, mira(state).hp) == ("downed", 0)
    assert "death saving throws" in said


def test_left_over_damage_equal_to_the_maximum_is_instant_death() -> None:
    state, said = then(fight(), hit(20))  # 10 to reach 0, 10 left over = the maximum
    assert mira(state).state == "dead" and "instant death" in said


def test_left_over_damage_one_below_the_maximum_is_not_instant_death() -> None:
    state, _ = then(fight(), hit(19))
    assert mira(state).state == "downed"


def test_temporary_hit_points_come_off_before_the_damage_left_over_is_counted() -> None:
    state = fight(Heal(target="mira", amount=5, means="temporary"))
    state, _ = then(state, hit(24))  # 5 absorbed; 19 is 10 to reach 0 and 9 left over
    assert mira(state).state == "downed"
    without, _ = then(fight(), hit(24))
    assert mira(without).state == "dead"


def test_a_monster_dies_at_zero() -> None:
    state, said = then(fight(), hit(7, "gob"))
    assert state.characters["gob"].state == "dead" and "dies" in said


def test_a_monster_falls_unconscious_with_the_variant_option() -> None:
    state, _ = then(fight(monster_death_saves=True), hit(7, "gob"))
    assert state.characters["gob"].state == "downed"


def test_a_monster_still_dies_of_massive_damage_with_the_variant_option() -> None:
    state, _ = then(fight(monster_death_saves=True), hit(14, "gob"))
    assert state.characters["gob"].state == "dead"


def test_a_blow_that_knocks_out_leaves_the_creature_unconscious_and_stable() -> None:
    state, said = then(fight(), hit(12, knock_out=True))
    assert mira(state).state == "stabilised" and "knocked out" in said
    goblin, _ = then(fight(), hit(7, "gob", knock_out=True))
    assert goblin.characters["gob"].state == "stabilised"  # a knocked-out monster lives


def test_knocking_out_does_not_save_from_massive_damage() -> None:
    state, _ = then(fight(), hit(20, knock_out=True))
    assert mira(state).state == "dead"


def test_knock_out_on_a_creature_already_at_zero_is_refused() -> None:
    with pytest.raises(RuleError, match="already at 0 hit points: knock a creature out"):
        then(fight(*DYING), hit(1, knock_out=True))


# --- damage at 0 hit points ---------------------------------------------------------------------


def test_damage_at_zero_is_one_death_save_failure() -> None:
    state, said = then(fight(*DYING), hit(1))
    assert (mira(state).state, mira(state).failures) == ("downed", 1)
    assert "a failure" in said


def test_a_critical_hit_at_zero_is_two_failures() -> None:
    state, _ = then(fight(*DYING), hit(1, critical=True))
    assert mira(state).failures == 2


def test_a_critical_hit_above_zero_has_no_rule_of_its_own() -> None:
    state, _ = then(fight(), hit(3, critical=True))
    assert (mira(state).hp, mira(state).failures) == (7, 0)


def test_the_third_failure_from_damage_kills() -> None:
    state, said = then(fight(*DYING, hit(1)), hit(1, critical=True))
    assert mira(state).state == "dead" and "third failure" in said


def test_damage_at_zero_of_at_least_the_maximum_is_instant_death() -> None:
    state, _ = then(fight(*DYING), hit(10))
    assert mira(state).state == "dead"
    state, _ = then(fight(*DYING), hit(9))
    assert (mira(state).state, mira(state).failures) == ("downed", 1)


def test_a_hit_of_no_damage_on_a_dying_creature_is_no_failure() -> None:
    state, said = then(fight(*DYING), hit(0))
    assert mira(state).failures == 0 and "no damage" in said


def test_a_stable_creature_that_takes_damage_is_dying_again_counted_from_zero() -> None:
    stable = fight(*DYING, save(12), save(15), save(5))  # two successes, a failure, then:
    stable, _ = then(stable, save(18))  # the third success: stable
    assert mira(stable).state == "stabilised" and mira(stable).failures == 0
    state, said = then(stable, hit(2))
    assert (mira(state).state, mira(state).successes, mira(state).failures) == ("downed", 0, 1)
    assert "dying again" in said


def test_a_stable_creature_hit_for_no_damage_stays_stable() -> None:
    state, _ = then(fight(hit(12, knock_out=True)), hit(0))
    assert mira(state).state == "stabilised"


def test_the_dead_take_no_hits() -> None:
    with pytest.raises(RuleError, match="Mira is dead"):
        then(fight(hit(20)), hit(1))


# --- death saving throws ------------------------------------------------------------------------


def test_a_death_save_of_10_succeeds_and_of_9_fails() -> None:
    state, said = then(fight(*DYING), save(10))
    assert (mira(state).successes, mira(state).failures) == (1, 0) and "success" in said
    state, said = then(fight(*DYING), save(9))
    assert (mira(state).successes, mira(state).failures) == (0, 1) and "failure" in said


def test_a_death_save_of_1_is_two_failures() -> None:
    state, _ = then(fight(*DYING), save(1))
    assert mira(state).failures == 2


def test_a_death_save_of_20_restores_one_hit_point_and_consciousness() -> None:
    state, _ = then(fight(*DYING, save(5), save(14)), save(20))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)
    assert (mira(state).successes, mira(state).failures) == (0, 0)


def test_the_third_success_makes_a_creature_stable_and_clears_its_saves() -> None:
    state, _ = then(fight(*DYING, save(10), save(3)), save(19))
    assert mira(state).state == "downed"
    state, said = then(state, save(11))
    assert mira(state).state == "stabilised" and "stable" in said
    assert (mira(state).successes, mira(state).failures) == (0, 0)


def test_the_third_failure_is_death() -> None:
    state, _ = then(fight(*DYING, save(2), save(12)), save(9))
    assert (mira(state).state, mira(state).failures) == ("downed", 2)
    state, _ = then(state, save(1))
    assert mira(state).state == "dead" and mira(state).failures == 3


def test_a_sides_turn_rolls_for_each_of_its_dying_members_with_their_own_dice() -> None:
    state = fight(*DYING, hit(12, "bram"))
    state, _ = then(
        state, TurnStarted(side="party", rolls={"death_save@bram": [3], "death_save@mira": [15]})
    )
    assert (mira(state).successes, state.characters["bram"].failures) == (1, 1)


def test_a_round_marker_rolls_no_death_save() -> None:
    state, said = then(fight(*DYING), TurnStarted(round=2, rolls={"death_save": [20]}))
    assert mira(state).state == "downed" and mira(state).successes == 0
    assert "start of a creature's own turn" in said


def test_a_stable_creature_makes_no_death_saves() -> None:
    state, _ = then(fight(hit(12, knock_out=True)), save(1))
    assert mira(state).state == "stabilised" and mira(state).failures == 0


def test_a_death_save_not_given_is_drawn_for_that_character() -> None:
    _, changes = apply(fight(*DYING), TurnStarted(character="mira"))
    [die] = changes.dice
    assert (die.purpose, die.character, die.source) == ("death_save", "mira", "drawn")


# --- death saves rolled at the table --------------------------------------------------------------


def table_check(roll: int, who: str = "mira", bonus: int = 0) -> Check:
    return Check(character=who, check="death_save", rolls={"death_save": [roll]}, bonus=bonus)


def test_at_a_table_that_rolls_its_own_saves_a_turn_rolls_nothing_and_a_check_rolls_it() -> None:
    state = fight(*DYING, death_saves="table")
    state, said = then(state, save(20))
    assert mira(state).state == "downed" and "rolled at the table" in said
    state, _ = then(state, table_check(14))
    assert mira(state).successes == 1


@pytest.mark.parametrize(
    ("roll", "bonus", "successes", "failures"),
    [
        (8, 2, 1, 0),  # 10: a success, though the die is below 10
        (7, 2, 0, 1),  # 9: a failure
        (12, -3, 0, 1),  # 9: a failure, though the die is 10 or more
        (1, 15, 1, 0),  # 16: a natural 1 that succeeds is a success (Foundry's reading)
        (1, 5, 0, 2),  # 6: a natural 1 among failures is two
    ],
)
def test_a_death_save_rolled_at_the_table_counts_its_bonus_against_10(
    roll: int, bonus: int, successes: int, failures: int
) -> None:
    state, said = then(fight(*DYING, death_saves="table"), table_check(roll, bonus=bonus))
    assert (mira(state).successes, mira(state).failures) == (successes, failures)
    assert f"death save {roll}" in said


def test_a_natural_20_that_succeeds_wakes_the_creature() -> None:
    state, said = then(fight(*DYING, death_saves="table"), table_check(20, bonus=-5))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)
    assert "regains 1 hit point" in said


def test_a_natural_20_that_fails_is_one_failure() -> None:
    state, _ = then(fight(*DYING, death_saves="table"), table_check(20, bonus=-11))
    assert (mira(state).state, mira(state).failures) == ("downed", 1)


def test_a_death_saves_explanation_shows_the_bonus_and_the_total() -> None:
    _, said = then(fight(*DYING, death_saves="table"), table_check(8, bonus=3))
    assert "death save 8 + 3 = 11: success" in said


def test_a_check_in_a_fight_whose_turns_roll_the_saves_is_refused() -> None:
    with pytest.raises(RuleError, match="option death_saves=turn"):
        then(fight(*DYING), table_check(14))


def test_a_check_by_a_creature_that_is_not_dying_is_refused() -> None:
    with pytest.raises(RuleError, match="Mira is upright and makes no death saving throws"):
        then(fight(death_saves="table"), table_check(14))


def test_a_check_dnd5e_does_not_have_is_refused() -> None:
    with pytest.raises(RuleError, match="only check rolled at the table is `death_save`"):
        then(fight(*DYING, death_saves="table"), Check(character="mira", check="stealth"))


def test_option_death_saves_takes_turn_or_table_only() -> None:
    with pytest.raises(StructuralError, match="`turn` or `table`, not 'sometimes'"):
        fight(death_saves="sometimes")


# --- stabilising --------------------------------------------------------------------------------


def medicine(check: int | None, healer: str | None = "bram", amount: int = 0) -> Heal:
    return Heal(target="mira", amount=amount, means="medicine", check=check, healer=healer)


def test_a_medicine_check_of_10_stabilises_and_of_9_does_not() -> None:
    state, _ = then(fight(*DYING, save(3)), medicine(10))
    assert mira(state).state == "stabilised" and mira(state).failures == 0
    state, said = then(fight(*DYING, save(3)), medicine(9))
    assert (mira(state).state, mira(state).failures) == ("downed", 1) and "still dying" in said


def test_a_medicine_check_needs_its_total_and_heals_no_hit_points() -> None:
    with pytest.raises(RuleError, match="needs its total: fact `check`"):
        then(fight(*DYING), medicine(None))
    with pytest.raises(RuleError, match="restores no hit points: give amount 0"):
        then(fight(*DYING), medicine(12, amount=3))


def test_spare_the_dying_and_a_healers_kit_stabilise_with_no_check() -> None:
    for means in ("spare_the_dying", "healers_kit"):
        state, _ = then(fight(*DYING), Heal(target="mira", amount=0, means=means, healer="bram"))
        assert mira(state).state == "stabilised", means


def test_stabilising_a_creature_that_is_not_dying_is_refused() -> None:
    with pytest.raises(RuleError, match="Mira is not dying: there is nothing to stabilise"):
        then(fight(), medicine(15))
    with pytest.raises(RuleError, match="Mira is already stable"):
        then(fight(hit(12, knock_out=True)), medicine(15))


def test_an_unconscious_healer_is_refused() -> None:
    state = fight(*DYING, hit(12, "bram"))
    with pytest.raises(RuleError, match="Bram is unconscious and dying, and can take no action"):
        then(state, medicine(15, healer="bram"))


def test_a_healer_from_outside_the_fight_is_accepted_and_named() -> None:
    state, said = then(fight(*DYING), medicine(15, healer="priest"))
    assert mira(state).state == "stabilised"
    assert "healer `priest` is not a character of this fight" in said


def test_a_check_with_another_means_is_refused() -> None:
    with pytest.raises(RuleError, match="total of a Medicine check"):
        then(fight(hit(3)), Heal(target="mira", amount=2, means="potion", check=12))


# --- healing ------------------------------------------------------------------------------------


def test_healing_never_exceeds_the_maximum() -> None:
    state, said = then(fight(hit(4)), Heal(target="mira", amount=9, means="potion"))
    assert mira(state).hp == 10 and "6 -> 10" in said


def test_healing_a_dying_creature_wakes_it_with_that_many_hit_points() -> None:
    state, _ = then(fight(*DYING, save(4)), Heal(target="mira", amount=3, means="cure_wounds"))
    assert (mira(state).state, mira(state).hp, mira(state).failures) == ("upright", 3, 0)


def test_healing_a_stable_creature_wakes_it() -> None:
    state, _ = then(fight(hit(12, knock_out=True)), Heal(target="mira", amount=1, means="rest"))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)


def test_a_heal_of_nothing_changes_nothing() -> None:
    state, said = then(fight(*DYING), Heal(target="mira", amount=0))
    assert mira(state).state == "downed" and "regains nothing" in said


def test_the_dead_regain_nothing() -> None:
    with pytest.raises(RuleError, match=r"Mira is dead and regains nothing$"):
        then(fight(hit(20)), Heal(target="mira", amount=5, means="potion"))
    with pytest.raises(RuleError, match="option `revival`"):
        then(fight(hit(20)), Heal(target="mira", amount=1, means="revivify"))


def test_with_option_revival_a_revival_spell_brings_back_the_dead() -> None:
    state, said = then(
        fight(hit(20), revival=True), Heal(target="mira", amount=1, means="revivify")
    )
    assert (mira(state).state, mira(state).hp) == ("upright", 1)
    assert "returns to life" in said


# --- who may act --------------------------------------------------------------------------------


def test_an_unconscious_creature_cannot_attack() -> None:
    with pytest.raises(RuleError, match="Mira is unconscious and dying, and can take no action"):
        then(fight(*DYING), Hit(target="gob", damage=3, attacker="mira"))


def test_the_machine_has_the_four_states_the_documentation_names() -> None:
    rules = get_ruleset("dnd5e")
    states = ("upright", "downed", "stabilised", "dead")  # the documentation's, typed here
    assert rules.graph.states == states
    doc = rules.documentation()
    for state in states:
        assert f"\n  {state} " in doc
    diagram = rules.graph.mermaid()
    for state in states:
        assert state in diagram
    for unused in ("knocked_down", "stunned", "out_of_action"):
        assert unused not in diagram and unused in doc


# --- a dying character left alone ----------------------------------------------------------------


def exact_fates(successes: int = 0, failures: int = 0) -> dict[str, Fraction]:
    """The chances of a dying character's fate, left alone until it resolves, from `successes`
    and `failures` so far: worked out here from the death-save rule alone, face by face."""
    fates: Counter[str] = Counter()
    for face in range(1, 21):
        if face == 20:
            fates["upright"] += Fraction(1, 20)
            continue
        s, f = (successes + 1, failures) if face >= 10 else (successes, failures + 1 + (face == 1))
        if f >= 3:
            fates["dead"] += Fraction(1, 20)
        elif s >= 3:
            fates["stabilised"] += Fraction(1, 20)
        else:
            for fate, chance in _exact(s, f).items():
                fates[fate] += chance / 20
    return dict(fates)


_exact = functools.cache(exact_fates)


def test_the_exact_fates_of_a_dying_character_left_alone() -> None:
    assert exact_fates() == {
        "stabilised": Fraction(331, 800),
        "dead": Fraction(3239, 8000),
        "upright": Fraction(1451, 8000),
    }


def test_drawn_death_saves_give_each_fate_as_often_as_its_exact_chance() -> None:
    fights, each = 100, 40  # 4,000 dying characters, in fights of 40 (seeds 0 to 99)
    fates: Counter[str] = Counter()
    for seed in range(fights):
        state: State | None = None
        for event in (
            FightStarted(ruleset="dnd5e", seed=seed, version=2),
            *(
                CharacterJoined(character=f"c{i}", side="party", stats={"hp": 1})
                for i in range(each)
            ),
            *(Hit(target=f"c{i}", damage=1) for i in range(each)),
            *(TurnStarted(side="party") for _ in range(5)),  # every fate is settled by the 5th
        ):
            state = advance(state, event)
        assert state is not None
        fates.update(c.state for c in state.characters.values())
    dying = fights * each
    assert sum(fates.values()) == dying and "downed" not in fates
    for fate, chance in exact_fates().items():
        p = float(chance)
        sigma = math.sqrt(p * (1 - p) / dying)
        assert abs(fates[fate] / dying - p) <= 4.5 * sigma, (fate, fates[fate], p)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    faces=st.lists(st.integers(1, 20), max_size=5),
)
def test_a_dying_character_left_alone_is_settled_within_five_of_its_turns(
    seed: int, faces: list[int]
) -> None:
    log: list[Event] = [
        FightStarted(ruleset="dnd5e", seed=seed, version=2),
        CharacterJoined(character="mira", side="party", stats={"hp": 10}),
        Hit(target="mira", damage=10),
    ]
    for turn in range(5):
        given_die = {"death_save@mira": [faces[turn]]} if turn < len(faces) else {}
        log.append(TurnStarted(character="mira", rolls=given_die))
    states = [s.characters["mira"].state for s, _ in list(replay(log))[3:]]
    assert states[-1] in ("stabilised", "upright", "dead")
    settled = states.index(next(s for s in states if s != "downed"))
    assert all(s == states[settled] for s in states[settled:])  # nothing moves once settled


# --- one turn start a round, whichever scope says so first (issue 27, section 1) ---------------


@pytest.mark.parametrize("numbered", [True, False], ids=["with round", "without round"])
def test_a_turn_started_by_side_then_by_character_is_one_death_save(numbered: bool) -> None:
    round_ = {"round": 1} if numbered else {}
    state = fight(
        *DYING,
        TurnStarted(side="party", rolls={"death_save@mira": [5]}, **round_),
        TurnStarted(character="mira", rolls={"death_save@mira": [5]}, **round_),
    )
    assert (mira(state).failures, mira(state).successes) == (1, 0)
    # her next round's turn is a turn of its own
    state = advance(state, TurnStarted(character="mira", round=2, rolls={"death_save@mira": [5]}))
    assert mira(state).failures == 2


def test_the_second_scope_s_die_is_reported_unused() -> None:
    state = fight(*DYING, TurnStarted(side="party", round=1, rolls={"death_save@mira": [5]}))
    after, changes = apply(
        state, TurnStarted(character="mira", round=1, rolls={"death_save@mira": [15]})
    )
    assert mira(after).successes == 0
    assert changes.unused == {"death_save@mira": [15]}


# --- a rest, as the documentation records it (issue 27, section 2) -----------------------------


def test_a_rest_before_the_fight_ends_wakes_a_stable_creature_on_1_hit_point() -> None:
    stable = fight(*DYING, medicine(10))
    state, _ = then(stable, Heal(target="mira", amount=1, means="rest"))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)


def test_a_rest_after_the_fight_ends_is_refused_as_the_documentation_says() -> None:
    from woundlog.core import get_ruleset
    from woundlog.events import FightEnded

    ended = fight(*DYING, medicine(10), FightEnded())
    with pytest.raises(RuleError, match="the fight has ended; undo `fight_ended`"):
        apply(ended, Heal(target="mira", amount=1, means="rest"))
    doc = " ".join(get_ruleset("dnd5e").documentation().split())
    assert "recorded as a heal with means `rest` (amount 1), before `fight_ended`" in doc


def test_a_revival_that_gives_no_hit_points_brings_back_the_dead_on_1() -> None:
    """Issue 27 (a surviving mutant): brought back "with the hit points it gives, at least 1"."""
    state, _ = then(fight(hit(20), revival=True), Heal(target="mira", amount=0, means="revivify"))
    assert (mira(state).state, mira(state).hp) == ("upright", 1)


# --- found alive by the mutation run (tests/mutation/run.py) -------------------------------------


def test_a_death_save_is_a_d20_a_21_is_refused() -> None:
    then(fight(*DYING), TurnStarted(round=2, rolls={"death_save": [20]}))  # taken
    with pytest.raises(StructuralError, match="death_save"):
        then(fight(*DYING), TurnStarted(round=2, rolls={"death_save": [21]}))


def test_a_creature_brought_back_to_life_has_no_temporary_hit_points() -> None:
    state, _ = then(fight(hit(20), revival=True), Heal(target="mira", amount=1, means="revivify"))
    assert (mira(state).hp, mira(state).temp_hp) == (1, 0)


def test_temporary_hit_points_equal_to_those_held_are_kept_not_gained_again() -> None:
    state = fight(Heal(target="mira", amount=5, means="temporary"))
    state, said = then(state, Heal(target="mira", amount=5, means="temporary"))
    assert mira(state).temp_hp == 5
    assert "keeps 5 temporary hit points (not 5)" in said


@pytest.mark.parametrize(
    ("before", "why"),
    [
        ((*DYING, medicine(10)), "Mira is unconscious, though stable, and can take no action"),
        ((hit(20),), "Mira is dead"),
    ],
)
def test_the_stable_and_the_dead_neither_attack_nor_heal(
    before: tuple[Event, ...], why: str
) -> None:
    state = fight(*before)
    with pytest.raises(RuleError, match=why):
        then(state, Hit(target="gob", damage=3, attacker="mira"))
    with pytest.raises(RuleError, match=why):
        then(state, Heal(target="bram", amount=3, means="potion", healer="mira"))
