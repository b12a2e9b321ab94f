"""A ruleset as software outside the rules reads it: `RulesetSummary`, what `GET /rulesets`
serves, made from the ruleset's own declarations (`summarize`)."""

from __future__ import annotations

import msgspec
from msgspec import inspect

from woundlog.events import Heal, Hit
from woundlog.events.importers.rules import ImportRules

from .presentation import Presentation
from .ruleset import ACTS, Acting, Ruleset
from .states import State


class RulesetSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One ruleset's declarations: its states (the first is a character's on joining), kinds
    (the first is the default), stats (null: required), what pages, importers and reports read
    of it (`presentation`), who may act in each of its states, how another program's hit
    points map onto it (`importing`; null: nothing can be imported into it), and what a form
    that records its events asks for: its dice, facts, means of healing, checks, choices and the
    stats a `stat_changed` may set."""

    name: str
    states: tuple[State, ...]
    kinds: tuple[str, ...]
    stats: dict[str, int | None]
    presentation: Presentation
    who_may_act: dict[State, Acting]
    importing: ImportRules | None
    dice: dict[str, Die] = {}
    """The dice the rules roll, by purpose: sides and what the table calls the roll."""
    hit_facts: tuple[Fact, ...] = ()
    """The facts a hit may carry in this ruleset, each with the values it takes."""
    heal_facts: tuple[Fact, ...] = ()
    heal_means: tuple[str, ...] = ()
    """The means of healing a form offers (the rules check what is given); empty: none."""
    checks: tuple[str, ...] = ()
    """The checks the table may roll for the rules (`check` events)."""
    choices: tuple[str, ...] = ()
    """The decisions the rules leave to a player (`choice` events)."""
    changeable_stats: dict[str, str] = {}
    """The stats a `stat_changed` may set, each with what it is; empty: it takes none."""


class Die(msgspec.Struct, frozen=True):
    """A die the rules roll: its sides, and what the table calls it (`Injury roll`)."""

    sides: int
    label: str


class Fact(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A fact of a hit or a heal, as a form asks for it: `kind` is `bool`, `int` (from
    `minimum` to `maximum`), `choice` (one of `choices`) or `text`."""

    name: str
    kind: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()


def facts(event: type[Hit | Heal], used: frozenset[str]) -> tuple[Fact, ...]:
    """The facts of `event` a ruleset reads, in the event's field order, each as its field's
    type says (the JSON Schema's own bounds)."""
    info = inspect.type_info(event)
    assert isinstance(info, inspect.StructType)
    return tuple(_fact(field.name, field.type) for field in info.fields if field.name in used)


def _fact(name: str, kind: inspect.Type) -> Fact:
    if isinstance(kind, inspect.UnionType):  # `X | None`: the X
        kind = next(t for t in kind.types if not isinstance(t, inspect.NoneType))
    if isinstance(kind, inspect.BoolType):
        return Fact(name=name, kind="bool")
    if isinstance(kind, inspect.IntType):
        return Fact(name=name, kind="int", minimum=kind.ge, maximum=kind.le)
    if isinstance(kind, inspect.LiteralType):
        return Fact(name=name, kind="choice", choices=tuple(str(v) for v in kind.values))
    return Fact(name=name, kind="text")


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
        dice={
            purpose: Die(sides, rules.die_word(purpose)) for purpose, sides in rules.dice.items()
        },
        hit_facts=facts(Hit, rules.hit_facts),
        heal_facts=facts(Heal, rules.heal_facts),
        heal_means=rules.heal_means,
        checks=rules.checks,
        choices=rules.choices,
        changeable_stats=dict(rules.changeable_stats),
    )
