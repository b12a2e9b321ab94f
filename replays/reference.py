"""The JSON Schema as `woundlog schema` prints it: the events' own schema, with every fact of a
`hit` or `heal` (an optional top-level field some rulesets use) saying what it is for and
which rulesets read it.

Events know no rulesets (the dependency rule), so which ruleset reads which fact is added here,
from the rulesets' own declarations, never written down twice."""

from __future__ import annotations

from typing import Any

from woundlog.core import RULESETS
from woundlog.events import FACTS, json_schema

_STRUCTS = {"hit": "Hit", "heal": "Heal"}


def readers(kind: str, fact: str) -> list[str]:
    """The rulesets that read `fact` on a `kind` event, in registry order."""
    return [
        name
        for name, rules in RULESETS.items()
        if fact in (rules.hit_facts if kind == "hit" else rules.heal_facts)
    ]


def event_schema() -> dict[str, Any]:
    schema = json_schema()
    for kind, facts in FACTS.items():
        properties = schema["$defs"][_STRUCTS[kind]]["properties"]
        for fact in facts:
            prop = properties[fact]
            meant = next(
                (o["description"] for o in prop.get("anyOf", []) if "description" in o), ""
            )
            read_by = readers(kind, fact)
            used = (
                f"Read by: {', '.join(read_by)}; any other ruleset refuses it."
                if read_by
                else "Read by no ruleset yet."
            )
            prop["description"] = f"A fact. {meant.rstrip('.') + '. ' if meant else ''}{used}"
            prop["x-woundlog-rulesets"] = read_by
    return schema
