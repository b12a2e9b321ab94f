"""What an event did, as every replay recomputes it (never stored as truth)."""

from __future__ import annotations

from typing import Any

import msgspec

from .dice import DieRoll


def show(value: Any) -> str:
    """A value of state as a person reads it: an injury Struct as its own `__str__` or else its
    fields' values in order (`maul fracture weapon_arm`), a collection as its items, nothing as
    `-`."""
    if value is None or value == () or value == [] or value == {}:
        return "-"
    if isinstance(value, msgspec.Struct):
        if type(value).__str__ is not msgspec.Struct.__str__:
            return str(value)  # the ruleset says how its injuries read
        parts = msgspec.structs.astuple(value)
        return " ".join(show(p) for p in parts if p not in (None, False, "", (), [], {}))
    if isinstance(value, dict):
        return ", ".join(f"{k} {show(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(show(v) for v in value)
    return str(value)


class CharacterChange(msgspec.Struct, frozen=True, kw_only=True):
    """One character's difference across one event."""

    character: str
    name: str
    before: str | None  # None: the character joined with this event
    after: str | None  # None: an undo removed the character (its joining was retracted)
    counters: dict[str, tuple[Any, Any]] = {}
    injuries: list[Any] = []  # gained
    injuries_removed: list[Any] = []  # healed, treated, or undone

    def summary(self) -> str:
        """`Grim: out_of_action -> knocked_down (wounds 0 -> 1)`."""
        move = f"{self.before or 'not joined'} -> {self.after or 'not joined'}"
        details = [f"{k} {show(a)} -> {show(b)}" for k, (a, b) in self.counters.items()]
        details += [f"+ {show(injury)}" for injury in self.injuries]
        details += [f"- {show(injury)}" for injury in self.injuries_removed]
        return f"{self.name}: {move}" + (f" ({', '.join(details)})" if details else "")


class Changes(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one event did: state moves, counters, injuries, each die, and why."""

    seq: int
    event: str
    type: str
    explanation: str
    characters: list[CharacterChange] = []
    dice: list[DieRoll] = []
    unused: dict[str, list[int]] = {}
    void: str | None = None
    undone: str | None = None  # `retracted by #9`, `amended by fix-3`: a later undo's doing
    consequences: list[CharacterChange] = []  # an undo event's effect on the fight as it stands

    def line(self) -> str:
        """One line for a person: `#3 hit: Grim: upright -> stunned (injury d6=3)`."""
        head = f"#{self.seq}" if self.event == f"#{self.seq}" else f"#{self.seq} {self.event}"
        if self.void is not None:
            text = f"{head} {self.type}: void: {self.void}"
        else:
            text = f"{head} {self.type}: {self.explanation}"
        if self.consequences:
            text += " => " + ", ".join(c.summary() for c in self.consequences)
        if self.undone is not None:
            text += f" [{self.undone}]"
        return text
