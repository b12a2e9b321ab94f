"""One benchmark measurement, run by run.py as a process of its own (not a test).

    python tests/benchmarks/measure.py TASK ARGS...

Each task does its work and prints one JSON line: what it found (the seq reached and every
fighter's state and wounds), so run.py can check the answer while it times the process.

  import                      start Python and import woundlog, nothing more
  decode FILE                 bare msgspec: decode each line to the Event union, nothing else
  decode-checked FILE         woundlog's own decoding of the file: every structural check
  replay FILE [AT]            replay_file to the final state (or the state at seq AT)
  replay-state FILE [AT]      replay_file_state: the same state, without each event's changes
  minimal-fold FILE           the same state by a minimal hand-written fold (minimal_fold.py)
  sqlite-read DB FIGHT        read every stored event back (decoded), nothing else
  sqlite-state DB FIGHT [AT]  Fight(store, FIGHT).state(AT): the newest usable snapshot + tail
  sqlite-undo DB FIGHT EVENT  Fight(store, FIGHT).undo(EVENT), as `woundlog undo` does
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def summary(state: Any) -> dict[str, Any]:
    """The seq reached and each character's state and what he lives by: a Mordheim fighter's
    wounds, a dnd5e creature's hit points."""
    return {
        "seq": state.seq,
        "characters": {
            cid: [c.state, c.wounds if hasattr(c, "wounds") else c.hp]
            for cid, c in state.characters.items()
        },
    }


def decode(path: str) -> dict[str, Any]:
    import msgspec

    from woundlog.events import Event

    decoder = msgspec.json.Decoder(Event)
    count = 0
    with open(path, "rb") as f:
        for line in f:
            decoder.decode(line)
            count += 1
    return {"events": count}


def decode_checked(path: str) -> dict[str, Any]:
    from woundlog.events import read_jsonl

    count = 0
    for _ in read_jsonl(path):
        count += 1
    return {"events": count}


def replay(path: str, at: str | None = None) -> dict[str, Any]:
    from woundlog.replays.files import replay_file

    last = None
    for last, _ in replay_file(path, at=None if at is None else int(at)):  # noqa: B007
        pass
    return summary(last)


def replay_state(path: str, at: str | None = None) -> dict[str, Any]:
    try:
        from woundlog.replays.files import replay_file_state
    except ImportError:  # a woundlog from before it
        return {"unavailable": "woundlog.replays.files.replay_file_state"}
    return summary(replay_file_state(path, at=None if at is None else int(at)))


def minimal(path: str) -> dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from minimal_fold import minimal_fold

    return minimal_fold(path)


def sqlite_read(db: str, fight: str) -> dict[str, Any]:
    from woundlog.events.stores import SQLiteStore

    count = 0
    with SQLiteStore(db) as store:
        for _ in store.read(fight):
            count += 1
    return {"events": count}


def sqlite_state(db: str, fight: str, at: str | None = None) -> dict[str, Any]:
    from woundlog.events.stores import SQLiteStore
    from woundlog.replays.fight import Fight

    with SQLiteStore(db) as store:
        return summary(Fight(store, fight).state(None if at is None else int(at)))


def import_only() -> dict[str, Any]:
    import woundlog.replays  # noqa: F401

    return {}


def sqlite_undo(db: str, fight: str, event: str) -> dict[str, Any]:
    from woundlog.events.stores import SQLiteStore
    from woundlog.replays.fight import Fight

    with SQLiteStore(db) as store:
        return {"version": Fight(store, fight).undo(event, reason="benchmark").version}


TASKS = {
    "import": import_only,
    "decode": decode,
    "decode-checked": decode_checked,
    "replay": replay,
    "replay-state": replay_state,
    "minimal-fold": minimal,
    "sqlite-read": sqlite_read,
    "sqlite-state": sqlite_state,
    "sqlite-undo": sqlite_undo,
}


if __name__ == "__main__":
    task, *args = sys.argv[1:]
    print(json.dumps(TASKS[task](*args)))
