"""Invariants every ruleset's random-stream properties check the same way."""

from __future__ import annotations

from typing import Any

from woundlog.core import Changes, FightState, get_ruleset
from woundlog.events import Amend, Event, Retract
from woundlog.replays import replay


def replays_every_event(log: list[Event]) -> list[tuple[FightState[Any], Changes]]:
    """Replay never crashes: each event gets its changes, in its own place (void at worst)."""
    steps = list(replay(log))
    assert [c.seq for _, c in steps] == list(range(1, len(log) + 1))
    return steps


def moves_stay_in_the_machine(ruleset: str, log: list[Event]) -> None:
    """No fold makes a state move the ruleset's transitions Machine does not declare."""
    graph = get_ruleset(ruleset).graph
    for _, changes in replay(log):
        for change in changes.characters:
            assert change.after in graph.states
            if change.before is not None:
                assert graph.allows(change.before, change.after)


DiceOf = dict[tuple[str, str | None, str], list[tuple[int, int, str]]]
"""Per (event, character or None, purpose): the (sides, value, source) of each die, in order."""


TICKS = ("turn_started", "turn_ended")
"""Events that concern several characters: every die they roll is some character's."""


def dice_of(log: list[Event]) -> DiceOf:
    """Every die each event rolled, keyed by the event and the character it was rolled for.

    A die of a turn tick rolled for nobody in particular is a ruleset that forgot
    `ctx.for_character`: its dice would pass from one character to another on an undo."""
    dice: DiceOf = {}
    for _, changes in replay(log):
        for die in changes.dice:
            assert changes.type not in TICKS or die.character is not None, (changes.event, die)
            key = (changes.event, die.character, die.purpose)
            dice.setdefault(key, []).append((die.sides, die.value, die.source))
    return dice


def undo_moves_no_other_die(log: list[Event], undo: Event, undone: str) -> None:
    """Undoing one event (`undo` names `undone`) changes no die of any other (event,
    character) pair (DESIGN.md section 4): where a pair rolls a purpose both before and after,
    one sequence is the start of the other (an undo may change *whether* a character rolls,
    at a tick where he is no longer down, never *what* he rolls)."""
    before = dice_of(log)
    after = dice_of([*log, undo])
    moved = _fate_changed(log, undone)
    for key in before.keys() & after.keys():
        if key[0] in moved:
            continue
        old, new = before[key], after[key]
        shorter = min(len(old), len(new))
        assert old[:shorter] == new[:shorter], (key, old, new)


def _fate_changed(log: list[Event], undone: str) -> set[str]:
    """The events whose own fate the undo changes: the undone one, and, when that is itself a
    retract or an amend, the event it named (retracting an amend rightly rolls the amended
    event's dice anew)."""
    names = [changes.event for _, changes in replay(log)]

    def name(ref: str) -> str:
        return names[int(ref[1:]) - 1] if ref.startswith("#") else ref

    changed = {name(undone)}
    target = next((e for e, n in zip(log, names, strict=True) if n == name(undone)), None)
    if isinstance(target, Retract | Amend):
        changed.add(name(target.event))
    return changed
