"""Branches: what if the fight had gone otherwise from event N, as a fight of its own.

A branch is a new fight with its own log: a copy of the original's events up to N, then the
what-if events. The original is never touched. Its `fight_started` keeps every field but the
note, which says where it came from, so the branch replays the same dice up to N: the dice of
an event are keyed by the fight's seed and the event's own id or position, both copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from woundlog.core import CharacterChange, FightState, diff, get_ruleset
from woundlog.events import Event, FightStarted, UsageError
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.stores import Store

from .fight import Appended, Fight


def branch_events(
    store: Store, fight: str, *, at: int | None = None, then: Sequence[Event] = ()
) -> list[Event]:
    """The log a branch of `fight` at event `at` (default: all of it) writes: a copy of the
    events up to `at`, its `fight_started` noting where it came from, then `then`."""
    source = Fight.open(store, fight)
    end = source.version if at is None else at
    if not 1 <= end <= source.version:
        raise UsageError(f"at {at}: fight `{fight}` has events 1 to {source.version}")
    events = [stored.event for stored in source.events(1, end)]
    started = events[0]
    assert isinstance(started, FightStarted)
    origin = f"branch of fight `{fight}` at #{end}"
    note = origin if not started.note else f"{origin}. {started.note}"
    events[0] = msgspec.structs.replace(started, note=note)
    return [*events, *then]


def branch(
    store: Store, fight: str, new: str, *, at: int | None = None, then: Sequence[Event] = ()
) -> Appended:
    """Copy `fight` up to event `at` (default: all of it) into the new fight `new`, then append
    `then`; one atomic batch, so a refused what-if leaves no branch behind."""
    check_fight_id(new)
    events = branch_events(store, fight, at=at, then=then)
    if store.version(new):
        raise UsageError(f"fight `{new}` already exists: branch into a new name")
    return Fight(store, new).append(events, expected_version=0)


def compare(first: FightState[Any], second: FightState[Any]) -> list[CharacterChange]:
    """Per character, what differs from `first` to `second` (a character only one of them has
    shows as joined or not joined)."""
    if first.ruleset != second.ruleset:
        raise UsageError(
            f"the fights play different rulesets ({first.ruleset}, {second.ruleset}): "
            "nothing to compare"
        )
    rules = get_ruleset(first.ruleset)
    return diff(rules, first.characters, second.characters, moves=False)
