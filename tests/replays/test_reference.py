"""`woundlog schema`: every fact says what it is, its type, and which rulesets read it."""

from __future__ import annotations

from woundlog.core import RULESETS
from woundlog.events import FACTS
from woundlog.replays.reference import event_schema


def test_every_fact_names_the_rulesets_that_read_it_and_has_a_type() -> None:
    schema = event_schema()
    for kind, struct in (("hit", "Hit"), ("heal", "Heal")):
        properties = schema["$defs"][struct]["properties"]
        for fact in FACTS[kind]:
            prop = properties[fact]
            declared = [
                name
                for name, rules in RULESETS.items()
                if fact in (rules.hit_facts if kind == "hit" else rules.heal_facts)
            ]
            assert prop["x-woundlog-rulesets"] == declared, fact
            assert prop["description"].startswith("A fact."), fact
            assert ", ".join(declared) in prop["description"], fact
            assert any("type" in o or "enum" in o for o in prop["anyOf"]), fact


def test_a_fact_only_dragonquest_reads_says_so() -> None:
    weapon = event_schema()["$defs"]["Hit"]["properties"]["weapon"]
    assert weapon["x-woundlog-rulesets"] == ["dragonquest"]
    assert "Read by: dragonquest; any other ruleset refuses it." in weapon["description"]


def test_the_core_fields_are_no_facts() -> None:
    damage = event_schema()["$defs"]["Hit"]["properties"]["damage"]
    assert "x-woundlog-rulesets" not in damage
