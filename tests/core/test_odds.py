"""Exact odds of what-ifs, checked against values worked out by hand from the rule texts, and
against drawn replays."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core import FightState
from woundlog.core.odds import (
    Budget,
    TooLarge,
    Voids,
    estimate,
    exact,
    per_character,
    states_of,
)
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted

State = FightState[Any]


def fight(ruleset: str, *joins: CharacterJoined, seed: int = 3) -> State:
    state: State | None = None
    for event in (FightStarted(ruleset=ruleset, seed=seed, version=2), *joins):
        state = advance(state, event)
    assert state is not None
    return state


def chances(state: State, whatif: list[Event], who: str) -> dict[str, Fraction]:
    return states_of(per_character(exact(state, whatif), [who])[who])


MORDHEIM = fight(
    "mordheim",
    CharacterJoined(character="grim", side="reavers"),
    CharacterJoined(character="snik", side="skaven", stats={"wounds": 2}),
)


def test_mordheim_one_wound_is_a_third_each() -> None:
    assert chances(MORDHEIM, [Hit(target="grim", damage=1)], "grim") == {
        "knocked_down": Fraction(1, 3),
        "stunned": Fraction(1, 3),
        "out_of_action": Fraction(1, 3),
    }


def test_mordheim_two_wounds_on_one_roll_twice_and_the_worse_stands() -> None:
    # knocked down only if both dice are 1-2: 1/9; out of action if either is 5-6: 1 - 4/9
    assert chances(MORDHEIM, [Hit(target="grim", damage=2)], "grim") == {
        "knocked_down": Fraction(1, 9),
        "stunned": Fraction(1, 3),
        "out_of_action": Fraction(5, 9),
    }


def test_a_wound_that_leaves_wounds_rolls_nothing() -> None:
    assert chances(MORDHEIM, [Hit(target="snik", damage=1)], "snik") == {"upright": Fraction(1)}


def test_a_given_die_is_fixed() -> None:
    given_die = Hit(target="grim", damage=2, rolls={"injury": [3]})
    assert chances(MORDHEIM, [given_die], "grim") == {
        "stunned": Fraction(2, 3),  # the second die shows 1-4
        "out_of_action": Fraction(1, 3),
    }


def test_two_recovery_phases_after_a_wound() -> None:
    whatif: list[Event] = [
        Hit(target="grim", damage=1),
        TurnStarted(side="reavers"),
        TurnStarted(side="reavers"),
    ]
    # knocked down stands, then stays up; stunned turns face up, then stands; out stays out
    assert chances(MORDHEIM, whatif, "grim") == {
        "upright": Fraction(2, 3),
        "out_of_action": Fraction(1, 3),
    }


def test_the_chances_of_every_outcome_add_up_to_one_and_paths_merge() -> None:
    found = exact(MORDHEIM, [Hit(target="grim", damage=3), Hit(target="snik", damage=3)])
    assert sum(chance for _, chance in found) == 1
    assert len(found) == 9  # three states each, merged from 6**3 * 6**2 dice paths


def test_dnd5e_a_dying_character_left_alone() -> None:
    state = fight("dnd5e", CharacterJoined(character="mira", side="party", stats={"hp": 10}))
    whatif: list[Event] = [Hit(target="mira", damage=10)] + [
        TurnStarted(character="mira") for _ in range(5)
    ]
    assert chances(state, whatif, "mira") == {
        "stabilised": Fraction(331, 800),
        "dead": Fraction(3239, 8000),
        "upright": Fraction(1451, 8000),
    }


def test_an_event_the_rules_refuse_on_a_path_is_void_there_and_counted() -> None:
    voids = Voids()
    whatif: list[Event] = [Hit(target="grim", damage=1), Hit(target="grim", damage=1)]
    found = exact(MORDHEIM, whatif, voids=voids)
    assert sum(c for _, c in found) == 1
    [(key, chance)] = voids.items()
    assert key[0] == 1 and "out of action" in key[1]
    assert chance == Fraction(1, 3)


def test_a_question_too_large_is_refused_with_the_way_out() -> None:
    whatif: list[Event] = [Hit(target="grim", damage=1)] * 1
    with pytest.raises(TooLarge, match="estimate it by sampling"):
        exact(MORDHEIM, whatif, budget=Budget(3))


class Counted(Budget):
    """A budget that remembers the most it held at once."""

    most_held = 0

    def hold(self, count: int) -> None:
        self.most_held = max(self.most_held, count)
        super().hold(count)


@pytest.mark.parametrize("damage", [600, 10**6])
def test_a_huge_hit_is_refused_at_the_step_budget_its_cost_bounded_by_the_budget(
    damage: int,
) -> None:
    """Issue 24: a hit of 600 wounds past zero ran 170 s, depth first (each path rerun from its
    first die, the first path 600 dice long). Now it stops at the budget, having spent only
    the budget, with its paths held a few thousand at most."""
    budget = Counted(20_000, live=50_000)
    with pytest.raises(TooLarge, match=r"more than 20,000 reducer steps \(reached 20,0\d\d at "
                       r"event 1 of 1\)") as refused:  # fmt: skip
        exact(MORDHEIM, [Hit(target="grim", damage=damage)], budget=budget)
    assert refused.value.bound == "steps"
    assert budget.spent <= 20_000 + 20  # one evaluation past the bound, a few dice long
    assert budget.most_held < 50_000


def test_shortest_paths_first_keeps_each_path_as_short_as_the_tree_is_wide() -> None:
    """Breadth first, the steps a path costs grow with the log of the budget, not the budget:
    the same budget answers as many evaluations as before, whatever the damage."""
    evaluations = []
    for damage in (50, 5000):
        budget = Budget(30_000)
        with pytest.raises(TooLarge):
            exact(MORDHEIM, [Hit(target="grim", damage=damage)], budget=budget)
        evaluations.append(budget.spent)
    assert evaluations[0] == evaluations[1]


def test_too_many_paths_held_at_once_is_refused_naming_the_bound() -> None:
    with pytest.raises(TooLarge, match="dice paths and states held at once") as refused:
        exact(MORDHEIM, [Hit(target="grim", damage=40)], budget=Budget(10**9, live=500))
    assert refused.value.bound == "live" and refused.value.reached > 500


def test_the_budget_calls_stop_as_it_goes_so_a_deadline_can_end_the_work() -> None:
    class Late(Exception):
        pass

    calls = []

    def stop() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Late

    budget = Budget(10**9, live=10**9, stop=stop)
    with pytest.raises(Late):
        exact(MORDHEIM, [Hit(target="grim", damage=60)], budget=budget)
    assert 2 * 4096 <= budget.spent <= 3 * 4096 + 100


def test_an_estimate_spends_the_budget_per_die_drawn() -> None:
    budget = Budget(1000)
    with pytest.raises(TooLarge, match="reducer steps"):
        estimate(MORDHEIM, [Hit(target="grim", damage=600)], 10_000, budget=budget)
    assert budget.spent <= 1000 + 600


def test_breadth_first_answers_in_the_same_order_as_the_faces_chosen() -> None:
    """Outcomes come in the order of their faces (as the depth-first walk gave them), so the
    answer's order of equally likely outcomes did not change."""
    found = exact(MORDHEIM, [Hit(target="grim", damage=3)])
    states = [s.characters["grim"].state for s, _ in found]
    assert states == ["knocked_down", "stunned", "out_of_action"]


def test_an_estimate_is_reproducible_and_near_the_exact_odds() -> None:
    whatif: list[Event] = [Hit(target="grim", damage=2)]
    first = estimate(MORDHEIM, whatif, 3000)
    assert first == estimate(MORDHEIM, whatif, 3000)
    got = states_of(per_character(first, ["grim"])["grim"])
    for state, chance in chances(MORDHEIM, whatif, "grim").items():
        p = float(chance)
        assert abs(float(got[state]) - p) <= 4.5 * math.sqrt(p * (1 - p) / 3000)


@settings(max_examples=4, deadline=None)
@given(
    damages=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    targets=st.lists(st.sampled_from(["grim", "snik"]), min_size=3, max_size=3),
    recover=st.booleans(),
)
def test_enumerated_odds_match_drawn_replays(
    damages: list[int], targets: list[str], recover: bool
) -> None:
    whatif: list[Event] = [Hit(target=t, damage=d) for t, d in zip(targets, damages, strict=False)]
    if recover:
        whatif.append(TurnStarted(side="reavers"))
    samples = 20_000
    drawn = per_character(estimate(MORDHEIM, whatif, samples), ["grim", "snik"])
    for who, outcomes in per_character(exact(MORDHEIM, whatif), ["grim", "snik"]).items():
        seen = {repr(o): c for o, c in drawn[who]}
        for outcome, chance in outcomes:
            p = float(chance)
            share = float(seen.get(repr(outcome), 0))
            assert abs(share - p) <= 4.5 * math.sqrt(p * (1 - p) / samples) + 1e-12, outcome


def test_warhammer_quest_one_hit_to_zero_then_one_end_of_turn() -> None:
    state = fight(
        "warhammer_quest",
        CharacterJoined(character="grundi", kind="warrior", stats={"wounds": 10}),
        CharacterJoined(character="orc", kind="monster", stats={"wounds": 5}),
    )
    whatif: list[Event] = [Hit(target="grundi", damage=10, attacker="orc"), TurnEnded()]
    # D66: 11-13 kill (3/36); 66 knocks him down, and he stands at the turn's end (1/36); the
    # other 32 leave him Down for the Downed table: 1 dead, 6 stabilised, 2-5 unconscious
    assert chances(state, whatif, "grundi") == {
        "downed": Fraction(32, 36) * Fraction(4, 6),
        "dead": Fraction(3, 36) + Fraction(32, 36) * Fraction(1, 6),
        "stabilised": Fraction(32, 36) * Fraction(1, 6),
        "upright": Fraction(1, 36),
    }


def test_contractor_lucky_and_maimed_are_a_tenth_each_on_reaching_zero_hp() -> None:
    state = fight("contractor", CharacterJoined(character="cinder", stats={"constitution": 14}))
    outcomes = per_character(exact(state, [Hit(target="cinder", damage=14)]), ["cinder"])
    lucky = maimed = Fraction(0)
    for seen, chance in outcomes["cinder"]:
        wounds = [*seen["injuries"], *seen["pending"]]
        if not wounds:
            lucky += chance  # 01-10: no wound at all
        elif any(wound.type == "Maimed" for wound in wounds):
            maimed += chance  # 91-00, 00 waiting for the Foreman's choice of location
    assert (lucky, maimed) == (Fraction(1, 10), Fraction(1, 10))


# --- examples the mutation run found missing ---------------------------------------------------


def test_each_characters_outcomes_are_listed_likeliest_first() -> None:
    outcomes = per_character(exact(MORDHEIM, [Hit(target="grim", damage=2)]), ["grim"])["grim"]
    assert [(seen["state"], chance) for seen, chance in outcomes] == [
        ("out_of_action", Fraction(5, 9)),
        ("stunned", Fraction(1, 3)),
        ("knocked_down", Fraction(1, 9)),
    ]


def test_the_default_budget_is_the_documented_one() -> None:
    # the README's bounds table: 500,000 reducer steps, 200,000 paths and states held at once
    assert (Budget().steps, Budget().live) == (500_000, 200_000)


def test_a_question_costs_one_step_an_evaluation_and_one_a_die() -> None:
    # the wound's first evaluation asks for the injury die (1 step), then each of its six
    # faces is evaluated with that die (2 steps each)
    budget = Budget()
    exact(MORDHEIM, [Hit(target="grim", damage=1)], budget=budget)
    assert budget.spent == 1 + 6 * 2
    # sampled: each sample evaluates the wound once and draws its one die
    budget = Budget()
    estimate(MORDHEIM, [Hit(target="grim", damage=1)], 10, budget=budget)
    assert budget.spent == 10 * 2


def test_a_question_that_holds_exactly_its_bound_is_answered() -> None:
    whatif: list[Event] = [Hit(target="grim", damage=2)]
    counted = Counted(10**9, live=10**9)
    exact(MORDHEIM, whatif, budget=counted)
    exact(MORDHEIM, whatif, budget=Budget(10**9, live=counted.most_held))
    with pytest.raises(TooLarge, match="held at once"):
        exact(MORDHEIM, whatif, budget=Budget(10**9, live=counted.most_held - 1))


def test_a_void_event_still_takes_its_place_in_the_fight() -> None:
    whatif: list[Event] = [Hit(target="grim", damage=1), Hit(target="grim", damage=1)]
    for found in (exact(MORDHEIM, whatif), estimate(MORDHEIM, whatif, 30)):
        assert {state.seq for state, _ in found} == {MORDHEIM.seq + 2}


def test_an_estimate_too_large_names_the_event_it_reached() -> None:
    whatif: list[Event] = [Hit(target="snik", damage=1), Hit(target="grim", damage=600)]
    with pytest.raises(TooLarge, match=r"at event 2 of 2\)"):
        estimate(MORDHEIM, whatif, 10, budget=Budget(1))  # the first event costs 1 step


def test_a_tick_that_changes_someone_its_ruleset_says_it_never_concerns_still_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ruleset whose tick concerns name too few: the walk finds the tick did change someone
    of a path at rest and ticks that path for itself, as a replay would."""
    from typing import ClassVar

    import msgspec

    from woundlog.core import RULESETS, Character, Context, Graph, Ruleset
    from woundlog.core.fight_state import TickConcern

    class Counting(Character, frozen=True, kw_only=True):
        turns: int = 0

    class Miscounted(Ruleset):
        name = "miscounted"
        graph = Graph(name, ["upright"], [])
        character = Counting
        tick_concerns: ClassVar[dict[str, TickConcern]] = {
            "turn_started": TickConcern(),  # nobody, it says; yet each turn is counted
            "turn_ended": TickConcern(),
        }

        def new_character(
            self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
        ) -> Counting:
            return Counting(**self.basics(event, kind, stats))

        def on_turn_started(self, fight: State, turn: TurnStarted, ctx: Context) -> Any:
            return {
                cid: msgspec.structs.replace(one, turns=one.turns + 1)
                for cid, one in fight.characters.items()
            }

    monkeypatch.setitem(RULESETS, "miscounted", Miscounted())
    state = fight("miscounted", CharacterJoined(character="ann"))
    [(after, chance)] = exact(state, [TurnStarted(), TurnStarted()])
    assert (after.characters["ann"].turns, chance) == (2, 1)
