"""The fight as it happened: advancing one event at a time, each undo reporting its consequences.

A game event folds onto the current state. An undo event changes the past, so the state after
it is a refold of the log with the new undo resolution; its consequences are the difference,
character by character ("Grim: out_of_action -> knocked_down").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from woundlog.core import (
    Changes,
    FightState,
    advance,
    apply,
    apply_or_void,
    diff,
    get_ruleset,
)
from woundlog.events import (
    Amend,
    Event,
    RefusedError,
    Retract,
    RuleError,
    StructuralError,
    event_ref,
)
from woundlog.events.stores import Stored

from .undo import Target, Undo, check_target, in_slot

Refold = Callable[[Undo, int], FightState[Any]]
"""The state at a seq under an undo resolution."""
Find = Callable[[str], Target | None]
"""The event a name (`#N` or an id) stands for, if any."""


class Timeline:
    def __init__(
        self, state: FightState[Any] | None, undo: Undo, refold: Refold, find: Find
    ) -> None:
        self.state = state
        self.undo = undo
        self._refold = refold
        self._find = find

    def push(self, stored: Stored[Event], *, strict: bool) -> Changes:
        """Advance by one event. With `strict`, a rule error is raised instead of voiding."""
        event = stored.event
        if isinstance(event, Retract | Amend):
            return self._push_undo(stored, event, strict=strict)
        step = apply if strict else apply_or_void
        self.state, changes = step(self.state, event)
        return changes

    def push_unreported(self, stored: Stored[Event]) -> None:
        """`push(stored, strict=True)` for a fold that keeps only where it ends: the same state
        and the same refusals, without working out what a game event changed."""
        event = stored.event
        if isinstance(event, Retract | Amend):
            self._push_undo(stored, event, strict=True)
        else:
            self.state = advance(self.state, event)

    def pass_over(self, seq: int) -> None:
        """Step past a refused event at `seq`, so the events after it keep their own positions."""
        if self.state is not None:
            self.state = msgspec.structs.replace(self.state, seq=seq)

    def _push_undo(self, stored: Stored[Event], event: Retract | Amend, *, strict: bool) -> Changes:
        target = self._find(event.event)
        check_target(stored.seq, event, target)
        assert target is not None and self.state is not None
        if isinstance(event, Retract) and strict:
            earlier = self.undo.fate(target.seq, target)
            if earlier is not None and earlier.replacement is None:
                raise RuleError(
                    f"`{event.event}` is already undone (by {earlier.by})",
                    event=event_ref(event, stored.seq),
                    field="$.event",
                )
        before = self.state
        _, marker = apply(before, event)
        if isinstance(event, Amend) and strict:
            # the events before the amended slot have the same fates with or without this
            # amend (it names a game event, never an undo event), so they are folded as now
            self._check_replacement(stored, event, target, self.undo)
        # resolved in place: a new resolution per undo event would cost all the earlier ones
        self.undo.add(Stored(stored.seq, event))  # typed as the undo event it is
        try:
            # the past as the new resolution has it, then the undo event in its own place
            after, _ = apply(self._refold(self.undo, stored.seq - 1), event)
            rules = get_ruleset(before.ruleset)
            consequences = diff(rules, before.characters, after.characters, moves=False)
        except BaseException:
            self.undo.drop_newest()
            raise
        self.state = after
        return msgspec.structs.replace(marker, consequences=consequences)

    def _check_replacement(
        self, stored: Stored[Event], amend: Amend, target: Target, undo: Undo
    ) -> None:
        """Refuse a replacement the rules refuse where it would stand: in the amended event's
        slot (`in_slot`: with the slot's id, and so its dice), after the events before it as
        `undo` has them (a refold from the newest snapshot before that slot)."""
        try:
            apply(self._refold(undo, target.seq - 1), in_slot(amend.replacement, target))
        except (RuleError, StructuralError) as exc:
            raise _in_replacement(exc, amend, stored.seq) from None


def _in_replacement(exc: RefusedError, amend: Amend, seq: int) -> RefusedError:
    """The replacement's refusal, told as the amend's: its name, and the field inside it."""
    field = "$.replacement" + (exc.field[1:] if exc.field else "")
    message = f"the replacement of `{amend.event}` is refused: {exc.message}"
    return type(exc)(message, event=event_ref(amend, seq), field=field)
