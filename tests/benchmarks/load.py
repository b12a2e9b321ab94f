"""Benchmark set-up: a generated fight file into two SQLite stores, one with snapshots.

Events go in with `store.append`, 10,000 at a time. A store written through `Fight.append` one
event at a time would hold a snapshot at every multiple of SNAPSHOT_EVERY: the fight's state at
that seq as it stood then (the undo events written so far applied, none of the later ones). This
set-up computes exactly those states, without `Fight.append`'s per-batch validation: it folds the
log once, and at each undo event refolds from the newest in-memory checkpoint that the undo does
not reach behind (the same condition as `snapshots.usable`). The snapshot-free copy is the same
store before the snapshots were written.
"""

from __future__ import annotations

import shutil
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from woundlog.core import apply, apply_or_void
from woundlog.events import Amend, Event, Retract, decode_json
from woundlog.events.stores import SQLiteStore, Stored
from woundlog.replays import snapshots
from woundlog.replays.fold import fold_state
from woundlog.replays.undo import Undo

BATCH = 10_000
CHECKPOINT_EVERY = 100
WINDOW = 5_000
"""Events kept at hand for refolds; the generator's undo events reach at most 1,500 back."""


@dataclass
class Loaded:
    events: int = 0
    undo_targets: list[tuple[int, int]] = field(default_factory=list)  # (undo seq, target seq)
    snapshot_seqs: list[int] = field(default_factory=list)

    def snapshot_for(self, at: int) -> int | None:
        """The newest snapshot at or before `at` that still holds (`snapshots.usable`)."""
        targets = [(u, t) for u, t in self.undo_targets if u <= at]
        held = [s for s in self.snapshot_seqs if s <= at and snapshots.usable(s, targets)]
        return held[-1] if held else None


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def load(jsonl: Path, db: Path, bare_db: Path, fight: str) -> Loaded:
    """Write the fight to `bare_db` (events only) and to `db` (events and snapshots)."""
    remove_db(db)
    remove_db(bare_db)
    info = Loaded()
    ids: dict[str, int] = {}
    undo = Undo()
    state: Any = None
    checkpoints: dict[int, Any] = {0: None}  # seq -> the fight as it stood at that seq
    recent: deque[Stored] = deque(maxlen=WINDOW)
    saved: list[tuple[int, bytes]] = []
    batch: list[Event] = []
    with SQLiteStore(bare_db) as store, open(jsonl, "rb") as f:
        for seq, line in enumerate(f, start=1):
            event = decode_json(line, line=seq)
            stored = Stored(seq, event)
            recent.append(stored)
            batch.append(event)
            if event.id is not None:
                ids[event.id] = seq
            if isinstance(event, Retract | Amend):
                name = event.event
                target = int(name[1:]) if name.startswith("#") else ids[name]
                info.undo_targets.append((seq, target))
                undo = Undo([*undo.events, stored])  # a new resolution, as the load always made
                state = _refold(seq, event, undo, checkpoints, recent, info.undo_targets)
            else:
                state, _ = apply_or_void(state, event)
            if seq % CHECKPOINT_EVERY == 0:
                checkpoints[seq] = state
                for old in [s for s in checkpoints if 0 < s < seq - WINDOW + CHECKPOINT_EVERY]:
                    del checkpoints[old]
            if seq % snapshots.SNAPSHOT_EVERY == 0:
                saved.append((seq, snapshots.encode(state)))
            if len(batch) == BATCH:
                store.append(fight, batch)
                batch = []
        if batch:
            store.append(fight, batch)
        info.events = seq
    shutil.copyfile(bare_db, db)  # closed: the WAL is checkpointed into the file
    with SQLiteStore(db) as store:
        for seq, data in saved:
            store.save_snapshot(fight, seq, data)
    info.snapshot_seqs = [seq for seq, _ in saved]
    return info


def _refold(
    seq: int,
    event: Retract | Amend,
    undo: Undo,
    checkpoints: dict[int, Any],
    recent: deque[Stored],
    targets: list[tuple[int, int]],
) -> Any:
    """The fight as it stands once the undo event at `seq` is written."""
    start = max(c for c in checkpoints if c < seq and all(t > c for u, t in targets if u > c))
    if start + 1 < recent[0].seq:
        raise RuntimeError(f"undo at {seq} reaches behind the {WINDOW} events kept at hand")
    tail = [s for s in recent if start < s.seq < seq]
    state = fold_state(tail, undo, state=checkpoints[start])
    state, _ = apply(state, event)
    return state
