"""Snapshots: a fight's state at some seq, encoded with MessagePack. An optimisation only.

Each carries the fingerprint of the rules that folded it; one folded by other rules is not used.

State from a snapshot plus the events after it always equals the full fold, provided no undo
event after the snapshot reaches back before it; `usable` checks exactly that.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from woundlog.core import FightState, get_ruleset

SNAPSHOT_EVERY = 500
"""A store keeps a snapshot each time a fight grows past another multiple of this many events."""


class _Head(msgspec.Struct):
    ruleset: str


class _Snapshot(msgspec.Struct, array_like=True):
    rules: bytes  # the `rules_fingerprint` of the code that folded it
    state: msgspec.Raw


@functools.cache
def rules_fingerprint() -> bytes:
    """A hash of the rules' own source (every module of `woundlog.core`).

    A snapshot is a cache of the fold, and the fold is what the rules make of the log: a
    snapshot folded by other rules (an older woundlog, before a rule was fixed or a ruleset's
    state took a new shape) no longer equals the fold, so it is not used."""
    import woundlog.core
    from woundlog.core.dice import blake2b  # the draw's: no second hash module to load

    digest = blake2b(digest_size=16)
    root = os.path.dirname(woundlog.core.__file__)  # a folder of files: woundlog is never zipped
    for name, source in sorted(_sources(root)):
        digest.update(name.encode() + b"\0" + source + b"\0")
    return digest.digest()


def _sources(folder: str, prefix: str = "") -> Iterable[tuple[str, bytes]]:
    """(name under woundlog/core, with `/`, and its bytes) of every module of the rules. Read
    with `os.scandir`, not importlib.resources, whose import costs a snapshot read a tenth of
    its time."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = f"{prefix}{entry.name}"
            if entry.is_dir() and entry.name != "__pycache__":
                yield from _sources(entry.path, f"{name}/")
            elif entry.name.endswith(".py"):
                with open(entry.path, "rb") as source:
                    yield name, source.read()


def encode(state: FightState[Any]) -> bytes:
    return msgspec.msgpack.encode(
        _Snapshot(rules_fingerprint(), msgspec.Raw(msgspec.msgpack.encode(state)))
    )


def decode(data: bytes) -> FightState[Any] | None:
    """The state a snapshot holds, or None if other rules folded it (or it cannot be read,
    as a snapshot of an older woundlog's format cannot): the fold then starts earlier."""
    try:
        snapshot = msgspec.msgpack.decode(data, type=_Snapshot)
        if snapshot.rules != rules_fingerprint():
            return None
        ruleset = get_ruleset(msgspec.msgpack.decode(snapshot.state, type=_Head).ruleset)
        return msgspec.msgpack.decode(snapshot.state, type=FightState[ruleset.character])  # type: ignore[name-defined]
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


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
