"""What a form that records a ruleset's events reads of it (`GET /rulesets`): its dice with
sides and words, its facts with the values each takes, its means of healing, checks and
choices, all from the ruleset's own declarations."""

from __future__ import annotations

import pytest

from woundlog.core import RULESETS
from woundlog.core.summary import Die, Fact, summarize


def test_dnd5e_declares_its_death_save_its_facts_and_its_check() -> None:
    summary = summarize(RULESETS["dnd5e"])
    assert summary.dice == {"death_save": Die(20, "Death save")}
    assert summary.hit_facts == (
        Fact(name="critical", kind="bool"),
        Fact(name="knock_out", kind="bool"),
    )
    assert [fact.name for fact in summary.heal_facts] == ["check"]
    assert summary.heal_facts[0].kind == "int"
    assert summary.checks == ("death_save",)
    assert {"medicine", "spare_the_dying", "healers_kit"} <= set(summary.heal_means)


def test_a_die_is_called_what_the_table_calls_it() -> None:
    assert summarize(RULESETS["mordheim"]).dice == {"injury": Die(6, "Injury roll")}


def test_a_fact_of_a_few_values_offers_them() -> None:
    facts = {fact.name: fact for fact in summarize(RULESETS["dragonquest"]).hit_facts}
    assert facts["weapon"] == Fact(name="weapon", kind="choice", choices=("A", "B", "C"))
    assert (facts["strike_roll"].minimum, facts["strike_roll"].maximum) == (1, 100)


def test_d26_leaves_its_players_two_choices() -> None:
    assert set(summarize(RULESETS["d26"]).choices) == {"last_stand", "hold_on"}


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_ruleset_declares_exactly_the_facts_and_dice_it_reads(name: str) -> None:
    rules = RULESETS[name]
    summary = summarize(rules)
    assert {fact.name for fact in summary.hit_facts} == set(rules.hit_facts)
    assert {fact.name for fact in summary.heal_facts} == set(rules.heal_facts)
    assert {purpose: die.sides for purpose, die in summary.dice.items()} == dict(rules.dice)
