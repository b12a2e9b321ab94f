"""woundlog.core: what it means. States, the state graph, dice, rulesets and the pure reducer."""

from .changes import Changes, CharacterChange, show
from .dice import Dice, DieRoll, draw
from .fight_state import Character, FightState
from .machine import Graph, IllegalTransition
from .reducer import (
    advance,
    apply,
    apply_or_void,
    diff,
    not_replayed,
    refuse_strangers_dice,
    start,
)
from .ruleset import Context, Ruleset
from .rulesets import RULESETS, get_ruleset
from .states import STATES, State
from .tables import Table

__all__ = [
    "RULESETS",
    "STATES",
    "Changes",
    "Character",
    "CharacterChange",
    "Context",
    "Dice",
    "DieRoll",
    "FightState",
    "Graph",
    "IllegalTransition",
    "Ruleset",
    "State",
    "Table",
    "advance",
    "apply",
    "apply_or_void",
    "diff",
    "draw",
    "get_ruleset",
    "not_replayed",
    "refuse_strangers_dice",
    "show",
    "start",
]
