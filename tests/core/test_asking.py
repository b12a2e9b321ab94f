"""Which die the rules ask for next (`core.asking.die_asked`): the reducer's own dice, asked one
at a time, nothing folded for good; a refused event is refused before any die is asked."""

from __future__ import annotations

from typing import Any

import pytest

from woundlog.core import FightState, apply
from woundlog.core.asking import DieAsked, die_asked
from woundlog.events import (
    CharacterJoined,
    Check,
    Event,
    FightStarted,
    Hit,
    RuleError,
    TurnStarted,
)

State = FightState[Any]


def fold(*events: Event) -> State:
    state: State | None = None
    for event in events:
        state, _ = apply(state, event)
    assert state is not None
    return state


def mordheim() -> State:
    return fold(
        FightStarted(ruleset="mordheim", seed=3, version=2),
        CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 1}),
        CharacterJoined(character="snik", name="Snik", side="skaven", stats={"wounds": 2}),
    )


def test_a_hit_past_the_last_wound_asks_for_the_injury_roll_by_its_word() -> None:
    asked = die_asked(mordheim(), Hit(target="grim", damage=1))
    assert asked == DieAsked(
        purpose="injury", sides=6, character=None, key="injury", label="Injury roll", whose="grim"
    )


def test_a_hit_that_rolls_nothing_asks_for_nothing() -> None:
    assert die_asked(mordheim(), Hit(target="snik", damage=1)) is None


def test_each_die_given_moves_the_question_on_until_none_is_needed() -> None:
    state = mordheim()
    two_past = Hit(target="grim", damage=2)  # his last wound and one more: two injury rolls
    assert die_asked(state, two_past) is not None
    one = Hit(target="grim", damage=2, rolls={"injury": [1]})
    assert die_asked(state, one) == die_asked(state, two_past)  # the second, asked alike
    assert die_asked(state, Hit(target="grim", damage=2, rolls={"injury": [1, 2]})) is None


def test_a_result_that_settles_the_rest_asks_no_more() -> None:
    # a 5 takes him out of action: the rules roll no more, so none is asked
    assert die_asked(mordheim(), Hit(target="grim", damage=3, rolls={"injury": [5]})) is None


def test_a_refused_event_is_refused_not_asked() -> None:
    with pytest.raises(RuleError) as refused:
        die_asked(mordheim(), Hit(target="gim", damage=1))
    assert "gim" in refused.value.message


def test_a_die_for_one_character_of_several_is_asked_scoped_to_them() -> None:
    state = fold(
        FightStarted(ruleset="dnd5e", seed=1, version=2),
        CharacterJoined(character="mira", name="Mira", side="party", stats={"hp": 5}),
        CharacterJoined(character="bram", name="Bram", side="party", stats={"hp": 5}),
        Hit(target="mira", damage=5),
        Hit(target="bram", damage=5),
    )
    tick = TurnStarted(round=2, side="party")
    asked = die_asked(state, tick)
    assert asked is not None
    assert (asked.key, asked.sides, asked.label, asked.whose) == (
        "death_save@mira", 20, "Death save", "mira",
    )  # fmt: skip
    then = die_asked(state, TurnStarted(round=2, side="party", rolls={"death_save@mira": [12]}))
    assert then is not None and then.key == "death_save@bram"


def test_a_check_at_the_table_asks_for_its_die() -> None:
    state = fold(
        FightStarted(ruleset="dnd5e", seed=1, version=2, options={"death_saves": "table"}),
        CharacterJoined(character="mira", name="Mira", stats={"hp": 5}),
        Hit(target="mira", damage=5),
    )
    asked = die_asked(state, Check(character="mira", check="death_save"))
    assert asked is not None and (asked.key, asked.whose) == ("death_save", "mira")


def test_asking_writes_nothing_into_the_state() -> None:
    state = mordheim()
    before = state
    die_asked(state, Hit(target="grim", damage=1))
    assert state == before and state.seq == 3
