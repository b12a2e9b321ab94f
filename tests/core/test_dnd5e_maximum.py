"""dnd5e: a hit point maximum that changes (`stat_changed` of `hp`), from SRD 5.1's own
examples: Aid raises the maximum (its hit points are a heal), a wight's Life Drain lowers it,
and "the target dies if this effect reduces its hit point maximum to 0". Other rulesets refuse
the event, naming the field and what they accept."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from woundlog.core import FightState, apply, get_ruleset
from woundlog.core.reducer import advance
from woundlog.core.summary import summarize
from woundlog.events import (
    CharacterJoined,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StatChanged,
    TurnStarted,
)
from woundlog.replays import replay

State = FightState[Any]
START = FightStarted(ruleset="dnd5e", seed=5, version=3)
JOINS = (
    CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": 20}),
    CharacterJoined(
        character="gob", name="Goblin", side="goblins", kind="monster", stats={"hp": 7}
    ),
)


def fight(*events: Event, **options: bool | int | str) -> State:
    """Mira (pc, 20 hit points) and a goblin (monster, 7), then `events`."""
    state: State | None = None
    for event in (msgspec.structs.replace(START, options=options), *JOINS, *events):
        state = advance(state, event)
    assert state is not None
    return state


def maximum(value: int, who: str = "mira", reason: str = "") -> StatChanged:
    return StatChanged(character=who, stat="hp", value=value, reason=reason)


def mira(state: State) -> Any:
    return state.characters["mira"]


def hp(state: State) -> tuple[int, int]:
    return mira(state).hp, mira(state).max_hp


def test_aid_at_full_hit_points_raises_the_maximum_and_heals_nothing_until_healed() -> None:
    state = fight(maximum(25, reason="Aid"))
    assert (hp(state), mira(state).state) == ((20, 25), "upright")
    healed = advance(state, Heal(target="mira", amount=5, means="aid"))
    assert hp(healed) == (25, 25)


def test_life_drain_at_full_hit_points_lowers_the_maximum_and_the_hit_points_with_it() -> None:
    state = fight(maximum(13, reason="Life Drain"))
    assert (hp(state), mira(state).state) == ((13, 13), "upright")


def test_a_lowered_maximum_above_the_hit_points_leaves_them_as_they_are() -> None:
    assert hp(fight(Hit(target="mira", damage=12), maximum(13))) == (8, 13)


def test_a_heal_is_capped_at_the_new_maximum() -> None:
    state = fight(Hit(target="mira", damage=15), maximum(13), Heal(target="mira", amount=30))
    assert hp(state) == (13, 13)


def test_a_maximum_reduced_to_0_kills_whatever_the_state() -> None:
    after, changes = apply(fight(), maximum(0, reason="Life Drain"))
    assert (mira(after).state, hp(after)) == ("dead", (0, 0))
    assert "reduced to 0: dies" in changes.explanation
    dying = fight(Hit(target="mira", damage=20))
    assert mira(dying).state == "downed"
    assert mira(advance(dying, maximum(0))).state == "dead"


def test_the_maximum_now_decides_instant_death() -> None:
    """Massive damage is measured against the maximum as it stands: 13 after Life Drain."""
    state = fight(maximum(13), Hit(target="mira", damage=26))
    assert mira(state).state == "dead"
    assert mira(fight(Hit(target="mira", damage=26))).state == "downed"


def test_the_dead_take_a_new_maximum_and_stay_dead_and_one_at_0_is_not_revived() -> None:
    dead = fight(maximum(0), revival=True)
    with pytest.raises(RuleError, match="maximum is 0"):
        advance(dead, Heal(target="mira", amount=5, means="revivify"))
    raised = advance(dead, maximum(20))
    assert (mira(raised).state, hp(raised)) == ("dead", (0, 20))
    back = advance(raised, Heal(target="mira", amount=5, means="revivify"))
    assert (mira(back).state, hp(back)) == ("upright", (5, 20))


def test_a_negative_maximum_is_refused_naming_the_value() -> None:
    with pytest.raises(RuleError, match="0 or more") as refused:
        advance(fight(), maximum(-1))
    assert refused.value.field == "$.value"


def test_a_stat_other_than_the_maximum_is_refused_naming_what_may_be_set() -> None:
    with pytest.raises(RuleError, match="`hp` \\(the hit point maximum\\)") as refused:
        advance(fight(), StatChanged(character="mira", stat="ac", value=18))
    assert refused.value.field == "$.stat"


def test_an_unknown_character_is_refused() -> None:
    with pytest.raises(RuleError, match="no character `grim`") as refused:
        advance(fight(), maximum(10, who="grim"))
    assert refused.value.field == "$.character"


def test_the_state_shows_the_maximum_now_beside_the_stat_as_joined() -> None:
    encoded = msgspec.to_builtins(mira(fight(maximum(25))))
    assert (encoded["max_hp"], encoded["stats"]["hp"], encoded["hp"]) == (25, 20, 20)
    assert get_ruleset("dnd5e").presentation.maximums == {"hp": "max_hp"}


def test_what_changed_names_the_maximum() -> None:
    _, changes = apply(fight(), maximum(13, reason="Life Drain"))
    [change] = changes.characters
    assert change.counters == {"hp": (20, 13), "max_hp": (20, 13)}
    assert "Life Drain" in changes.explanation


def test_retracting_the_change_restores_the_maximum_and_the_hit_points() -> None:
    log: list[Event] = [
        START,
        *JOINS,
        maximum(13, reason="Life Drain"),
        Heal(target="mira", amount=0),
        Retract(event="#4", reason="the wight missed"),
    ]
    *_, (state, _) = replay(log)
    assert hp(state) == (20, 20)
    *_, (killed, _) = replay([START, *JOINS, maximum(0), Retract(event="#4")])
    assert (mira(killed).state, hp(killed)) == ("upright", (20, 20))


def test_a_change_to_the_maximum_rolls_no_die_and_keeps_a_given_one_unused() -> None:
    _, changes = apply(
        fight(), StatChanged(character="mira", stat="hp", value=25, rolls={"death_save": [3]})
    )
    assert (changes.dice, changes.unused) == ([], {"death_save": [3]})


def test_a_dying_creature_whose_maximum_falls_stays_dying_at_0() -> None:
    state = fight(Hit(target="mira", damage=20), maximum(13))
    assert (mira(state).state, hp(state)) == ("downed", (0, 13))
    assert mira(advance(state, TurnStarted(character="mira", rolls={"death_save": [20]}))).hp == 1


def test_the_hit_points_carried_to_a_campaign_are_at_most_the_maximum_joined_with() -> None:
    rules = get_ruleset("dnd5e")
    aided = fight(maximum(25), Heal(target="mira", amount=5))
    assert rules.permanence.after_the_fight(mira(aided))[1]["current_hp"] == 20
    drained = fight(maximum(13))
    assert rules.permanence.after_the_fight(mira(drained))[1]["current_hp"] == 13


@pytest.mark.parametrize(
    ("ruleset", "stats"),
    [
        ("mordheim", {"wounds": 1}),
        ("warhammer_quest", {"wounds": 10}),
        ("d26", {"hp": 10}),
        ("dragonquest", {"endurance": 15, "fatigue": 15, "willpower": 12}),
        ("contractor", {"constitution": 10}),
    ],
)
def test_every_other_ruleset_refuses_a_stat_change_naming_the_stat(
    ruleset: str, stats: dict[str, int]
) -> None:
    state: State | None = None
    for event in (
        FightStarted(ruleset=ruleset),
        CharacterJoined(character="grim", side="reavers", stats=stats),
    ):
        state = advance(state, event)
    with pytest.raises(RuleError, match="none of its stats") as refused:
        advance(state, StatChanged(character="grim", stat=next(iter(stats)), value=5))
    assert refused.value.field == "$.stat"


def test_the_ruleset_summary_says_which_stats_a_change_may_set() -> None:
    assert summarize(get_ruleset("dnd5e")).changeable_stats == {"hp": "the hit point maximum"}
    assert summarize(get_ruleset("mordheim")).changeable_stats == {}
