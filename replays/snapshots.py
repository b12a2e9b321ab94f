"""Snapshots: a fight's state at some seq, encoded with MessagePack. An optimisation only.

State from a snapshot plus the events after it always equals the full fold, provided no undo
event after the snapshot reaches back before it; `usable` checks exactly that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from woundlog.core import FightState, get_ruleset

SNAPSHOT_EVERY = 500
"""A store keeps a snapshot each time a fight grows past another multiple of this many events."""


class _Head(msgspec.Struct):
    ruleset: str


def encode(state: FightState[Any]) -> bytes:
    return msgspec.msgpack.encode(state)


def decode(data: bytes) -> FightState[Any]:
    ruleset = get_ruleset(msgspec.msgpack.decode(data, type=_Head).ruleset)
    return msgspec.msgpack.decode(data, type=FightState[ruleset.character])  # type: ignore[name-defined]


def usable(snapshot_seq: int, undo_targets: Iterable[tuple[int, int | None]]) -> bool:
    """Whether a snapshot at `snapshot_seq` still holds, given (undo seq, target seq) pairs.

    An undo event after the snapshot that names an event at or before it would change what the
    snapshot folded; the fold must then start earlier.
    """
    return all(
        target is not None and target > snapshot_seq
        for seq, target in undo_targets
        if seq > snapshot_seq
    )


def newest_that_holds(
    find: Callable[[int], tuple[int, bytes] | None],
    upto: int,
    undo_targets: Sequence[tuple[int, int | None]],
) -> tuple[int, bytes] | None:
    """The newest snapshot at or before `upto` that still holds (`find(limit)` gives the newest
    stored at or before `limit`). An undo that reaches behind one sends the search to before
    the event it names, so one late undo costs a short refold, not a full one."""
    limit = upto
    while limit > 0:
        snap = find(limit)
        if snap is None or usable(snap[0], undo_targets):
            return snap
        reached = [t for seq, t in undo_targets if seq > snap[0] and (t is None or t <= snap[0])]
        if None in reached:
            return None
        limit = min(t for t in reached if t is not None) - 1
    return None
