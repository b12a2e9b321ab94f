"""Who may act, through the fast fold (`reducer.Fold`'s quick steps) by example (issue 27): a
replay folds hits and heals there, not through `apply`, so each refusal and each exception of
the rules is checked there too, with the words and field `apply` gives, and the fold is left as
it was by a refused event.

The fights are the rulesets' own test fights; the words are the rule texts' (Mordheim: "may do
nothing at all"; SRD 5.1: unconscious, "can't take actions"; Warhammer Quest's Downed rules: a
stabilised warrior may drink a healing potion himself; d26: The Last Stand's one action)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core import test_d26 as d26
from tests.core import test_dnd5e as dnd5e
from tests.core import test_mordheim as mordheim
from tests.core import test_warhammer_quest as whq
from woundlog.core import FightState
from woundlog.core.reducer import Fold
from woundlog.events import Event, Heal, Hit, RuleError


def refused(state: FightState[Any], event: Event, words: str, field: str) -> None:
    """The fast fold refuses `event` with these words and field, and stays where it was."""
    fold = Fold(state)
    with pytest.raises(RuleError, match=words) as err:
        fold.add(event)
    assert err.value.field == field
    assert fold.state == state


def accepted(state: FightState[Any], event: Event) -> FightState[Any]:
    fold = Fold(state)
    fold.add(event)
    after = fold.state
    assert after is not None and after.seq == state.seq + 1
    return after


def test_mordheim_a_stunned_or_knocked_down_fighter_may_not_strike_through_the_fast_fold() -> None:
    stunned = mordheim.fight(mordheim.hit(1, 3))
    blow = Hit(target="snik", damage=1, attacker="grim")
    refused(stunned, blow, "Grim is stunned and may do nothing at all", "$.attacker")
    knocked = mordheim.fight(mordheim.hit(1, 1))
    refused(knocked, blow, "Grim is knocked down and may not fight", "$.attacker")


def test_mordheim_the_upright_and_those_from_outside_the_fight_strike_through_it() -> None:
    state = mordheim.fight(mordheim.hit(1, 3))
    after = accepted(state, Hit(target="grim", damage=1, attacker="snik", rolls={"injury": [5]}))
    assert after.characters["grim"].state == "out_of_action"
    accepted(state, Hit(target="snik", damage=0, attacker="a_falling_beam"))


def test_dnd5e_an_unconscious_creature_may_not_heal_through_the_fast_fold() -> None:
    dying = dnd5e.fight(*dnd5e.DYING)
    heal = Heal(target="bram", amount=1, means="potion", healer="mira")
    refused(dying, heal, "Mira is unconscious and dying, and can take no action", "$.healer")
    woken = accepted(dying, Heal(target="mira", amount=3, means="potion", healer="bram"))
    assert woken.characters["mira"].hp == 3


def test_warhammer_quest_a_stabilised_warrior_drinks_a_potion_himself_and_nothing_else() -> None:
    stable = whq.fight(whq.down(6, 1), whq.end(downed=[6]))
    drunk = accepted(stable, Heal(target="grim", amount=4, means="potion", healer="grim"))
    assert drunk.characters["grim"].state == "upright"
    words = "may do nothing except drink a healing potion"
    for target, means in (("ulf", "potion"), ("grim", "bandage")):
        heal = Heal(target=target, amount=2, means=means, healer="grim")
        refused(stable, heal, words, "$.healer")
    refused(stable, Hit(target="orc", damage=1, attacker="grim"), "is stabilised", "$.attacker")


def test_d26_the_last_stand_gives_one_action_through_the_fast_fold() -> None:
    standing = d26.fight(*d26.LAST_STAND)
    struck = accepted(standing, d26.blow_by("mira"))
    assert struck.characters["orc"].hp < standing.characters["orc"].hp
    refused(struck, d26.blow_by("mira"), "made The Last Stand and is dead", "$.attacker")
