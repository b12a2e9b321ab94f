"""What an event did, as every replay recomputes it (never stored as truth)."""

from __future__ import annotations

from typing import Any

import msgspec

from .dice import DieRoll


class CharacterChange(msgspec.Struct, frozen=True, kw_only=True):
    """One character's difference across one event."""

    character: str
    name: str
    before: str | None  # None: the character joined with this event
    after: str | None  # None: an undo removed the character (its joining was retracted)
    counters: dict[str, tuple[Any, Any]] = {}
    injuries: list[Any] = []

    def summary(self) -> str:
        """`Grim: out_of_action -> knocked_down (wounds 0 -> 1)`."""
        move = f"{self.before or 'not joined'} -> {self.after or 'not joined'}"
        counters = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in self.counters.items())
        return f"{self.name}: {move}" + (f" ({counters})" if counters else "")


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
