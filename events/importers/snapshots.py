"""Formats that save the whole encounter each time, compared one snapshot with the one before.

HP down is a hit, HP up a heal, a new active combatant ends one turn and starts the next, and a
new round counter ends a round. The first snapshot of a fight (no cursor) is the baseline: its
combatants join, hurt already if below their maximum, and nothing ticks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from ..errors import StructuralError
from .base import Batch, Converted, Sighting, Turn, content_key


@dataclass(frozen=True)
class Snapshot:
    turn: Turn
    combatants: list[Sighting]


class Cursor(msgspec.Struct, frozen=True):
    """The last snapshot seen, as much of it as the next comparison needs (JSON-serialisable)."""

    key: str
    round: int
    position: int | None
    active: list[str]
    hp: dict[str, int]

    @property
    def turn(self) -> Turn:
        return Turn(self.round, self.position, tuple(self.active))


def cursor_of(previous: object | None) -> Cursor | None:
    if previous is None:
        return None
    try:
        return msgspec.convert(previous, Cursor)
    except msgspec.ValidationError as exc:
        raise StructuralError(f"not a cursor this importer gave: {exc}", field="previous") from None


def compare(
    batch: Batch,
    records: Sequence[object],
    previous: object | None,
    read: Callable[[object, int], Snapshot | None],
) -> Converted:
    """Fold the snapshots `read` makes of `records` (None: not a snapshot, skipped) into events."""
    cursor = cursor_of(previous)
    for index, record in enumerate(records):
        snapshot = read(record, index)
        if snapshot is None:
            continue
        start = len(batch.events)
        cursor = step(batch, cursor, snapshot, content_key(record, cursor.key if cursor else ""))
        batch.check(start, index)
    return Converted(batch.events, msgspec.to_builtins(cursor) if cursor else previous)


def step(batch: Batch, before: Cursor | None, now: Snapshot, key: str) -> Cursor:
    """One snapshot against the one before: joins, then HP changes, then the turn; damage is
    dealt during a turn, so a snapshot that shows both had the damage first."""
    for who in now.combatants:
        if batch.sight(who) or before is None or who.id not in before.hp:
            continue  # joined just now, or no earlier HP to compare with
        batch.hp_change(batch.id(key, who.id, "hp"), who.id, who.hp - before.hp[who.id])
    if before is not None:
        batch.turn_change(key, before.turn, now.turn)
    return Cursor(
        key=key,
        round=now.turn.round,
        position=now.turn.position,
        active=list(now.turn.active),
        hp={who.id: who.hp for who in now.combatants},
    )
