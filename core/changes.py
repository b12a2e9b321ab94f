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
    after: str
    counters: dict[str, tuple[Any, Any]] = {}
    injuries: list[Any] = []


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
    undone: bool = False  # retracted or replaced by a later undo event

    def line(self) -> str:
        """One line for a person: `#3 hit: Grim: upright -> stunned (injury d6=3)`."""
        head = f"#{self.seq}" if self.event == f"#{self.seq}" else f"#{self.seq} {self.event}"
        if self.void is not None:
            return f"{head} {self.type}: void: {self.void}"
        return f"{head} {self.type}: {self.explanation}"
