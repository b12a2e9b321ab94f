"""The seven states a character can be in. Each ruleset says which it uses and what each means."""

from __future__ import annotations

from typing import Literal, TypeAlias

State: TypeAlias = Literal[
    "upright", "knocked_down", "stunned", "downed", "stabilised", "out_of_action", "dead"
]

UPRIGHT: State = "upright"
KNOCKED_DOWN: State = "knocked_down"
STUNNED: State = "stunned"
DOWNED: State = "downed"
STABILISED: State = "stabilised"
OUT_OF_ACTION: State = "out_of_action"
DEAD: State = "dead"

HARM: dict[str, int] = {
    UPRIGHT: 0,
    KNOCKED_DOWN: 1,
    STUNNED: 2,
    STABILISED: 3,
    DOWNED: 4,
    OUT_OF_ACTION: 5,
    DEAD: 6,
}
"""The states by how bad they are, worse larger: the first key of every ruleset's order of harm
(`Ruleset.harm`)."""

STATES: tuple[State, ...] = (
    UPRIGHT,
    KNOCKED_DOWN,
    STUNNED,
    DOWNED,
    STABILISED,
    OUT_OF_ACTION,
    DEAD,
)
