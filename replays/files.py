"""Replaying a `.jsonl` fight file with no store: two streaming passes, memory held flat.

The first pass reads only what undo needs: the undo events themselves and the events that carry
an id. The second folds every event once. Memory
grows with the number of explicit ids and undo events, never with the rest of the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from woundlog.core import Changes, FightState
from woundlog.events import Event, WoundlogError, decode_json
from woundlog.events.stores import Stored

from .fold import fold
from .undo import Undo, resolve

State = FightState[Any]


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(seq, line number, raw line) of every event line; blank lines hold no event."""
    seq = 0
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            if raw.strip():
                seq += 1
                yield seq, number, raw


def scan_undo(path: Path, at: int | None = None) -> Undo:
    """Pass one: resolve the file's undo events, checking ids are unique and targets exist."""

    def named_or_undo() -> Iterator[tuple[int, int | None, Event]]:
        for seq, number, raw in _lines(path):
            if at is not None and seq > at:
                return
            # a line with neither an id nor an undo is nothing undo needs: not even decoded
            if seq == 1 or b'"id"' in raw or b"retract" in raw or b"amend" in raw:
                yield seq, number, decode_json(raw, line=number)

    return resolve(named_or_undo())


def replay_file(
    path: str | Path, *, at: int | None = None, strict: bool = False
) -> Iterator[tuple[State, Changes]]:
    """Each event's state and changes, as the fight stands: every undo in the file applied."""
    path = Path(path)
    undo = scan_undo(path, at)
    where = {"line": 0}

    def stream() -> Iterator[Stored]:
        for seq, number, raw in _lines(path):
            if at is not None and seq > at:
                return
            where["line"] = number
            yield Stored(seq, decode_json(raw, line=number))

    try:
        yield from fold(stream(), undo, strict=strict)
    except WoundlogError as exc:
        raise exc.located(line=where["line"]) from None
