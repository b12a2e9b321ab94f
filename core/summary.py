"""A ruleset as software outside the rules reads it: `RulesetSummary`, what `GET /rulesets`
serves, made from the ruleset's own declarations (`summarize`)."""

from __future__ import annotations

import msgspec

from woundlog.events.importers.rules import ImportRules

from .presentation import Presentation
from .ruleset import ACTS, Acting, Ruleset
from .states import State


class RulesetSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One ruleset's declarations: its states (the first is a character's on joining), kinds
    (the first is the default), stats (null: required), what pages, importers and reports read
    of it (`presentation`), who may act in each of its states, and how another program's hit
    points map onto it (`importing`; null: nothing can be imported into it)."""

    name: str
    states: tuple[State, ...]
    kinds: tuple[str, ...]
    stats: dict[str, int | None]
    presentation: Presentation
    who_may_act: dict[State, Acting]
    importing: ImportRules | None


def summarize(rules: Ruleset) -> RulesetSummary:
    """`rules`' summary; who may act is said for every state, those its table leaves out
    being the default (`ACTS`: may attack and heal)."""
    states = rules.graph.states
    return RulesetSummary(
        name=rules.name,
        states=states,
        kinds=tuple(rules.kinds),
        stats=dict(rules.stats),
        presentation=rules.presentation,
        who_may_act={state: rules.who_may_act.get(state, ACTS) for state in states},
        importing=rules.importing,
    )
