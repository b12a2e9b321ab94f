"""Which die the rules would ask for next: `die_asked(state, event) -> DieAsked | None`.

A table that rolls its own dice records an event with the dice it has rolled so far; before
appending it, a page or a bridge asks which die the rules still need (the GM's "Injury roll
for Grim, d6"), the table rolls it, and it is added to the event's `rolls`, until the rules ask
for none. The answer is the reducer's own: the event is folded on the state, given dice first,
and the first die it does not give stops the fold (`advance`'s `missing`, the way exact odds
ask for each die), so nothing here knows which rule rolls what, and nothing is written.

Example: a hit past Grim's last wound in Mordheim, no die given yet::

    die_asked(state, Hit(target="grim", damage=1))
    -> DieAsked(purpose="injury", sides=6, character=None, key="injury",
                label="Injury roll", whose="grim")
"""

from __future__ import annotations

from typing import Any

import msgspec

from woundlog.events import Event

from .dice import SCOPE
from .fight_state import FightState
from .reducer import _concerns as concerns
from .reducer import advance
from .rulesets import get_ruleset


class DieAsked(msgspec.Struct, frozen=True, kw_only=True):
    """A die the rules need that the event does not give: its `purpose` and `sides`, the
    `character` it is rolled for in an event about several (None: the event's own), the `key`
    to give it under in `rolls` (`injury`, `death_save@mira`), the ruleset's word for it
    (`Injury roll`), and `whose` it is (the character it is rolled for, or the one the event is
    about; None: nobody's in particular)."""

    purpose: str
    sides: int
    character: str | None
    key: str
    label: str
    whose: str | None


class _Asked(Exception):
    """Stops the fold at the first die the event does not give."""

    def __init__(self, purpose: str, sides: int, character: str | None) -> None:
        super().__init__(purpose)
        self.purpose, self.sides, self.character = purpose, sides, character


def _stop(purpose: str, sides: int, character: str | None) -> int:
    raise _Asked(purpose, sides, character)


def die_asked(state: FightState[Any], event: Event) -> DieAsked | None:
    """The first die folding `event` on `state` needs that its `rolls` do not give, or None
    when they give every die it needs. An event the rules refuse raises as an append would
    (a RuleError or StructuralError naming the event and field), so a refusal is told before
    any die is rolled for it."""
    try:
        advance(state, event, missing=_stop)
    except _Asked as asked:
        rules = get_ruleset(state.ruleset)
        scoped = asked.character is not None
        return DieAsked(
            purpose=asked.purpose,
            sides=asked.sides,
            character=asked.character,
            key=f"{asked.purpose}{SCOPE}{asked.character}" if scoped else asked.purpose,
            label=rules.die_word(asked.purpose),
            whose=asked.character if scoped else concerns(event),
        )
    return None
