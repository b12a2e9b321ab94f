"""The registry of rulesets, by name. A new ruleset is one module, one import and one line here."""

from __future__ import annotations

from woundlog.events import StructuralError

from ..ruleset import Ruleset
from .contractor import Contractor
from .d26 import D26
from .dnd5e import Dnd5e
from .dragonquest import DragonQuest
from .mordheim import Mordheim
from .warhammer_quest import WarhammerQuest

RULESETS: dict[str, Ruleset] = {
    rules.name: rules
    for rules in (
        Mordheim(),
        WarhammerQuest(),
        D26(),
        DragonQuest(),
        Contractor(),
        Dnd5e(),
    )
}


def get_ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(RULESETS)
        raise StructuralError(f"no ruleset `{name}` (known: {known})", field="$.ruleset") from None


__all__ = ["RULESETS", "get_ruleset"]
