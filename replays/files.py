"""Replaying a `.jsonl` fight file with no store: two streaming passes, memory held flat.

The first pass reads only what undo needs: the undo events themselves and the events that carry
an id (lines with neither are not even decoded). The second folds every event once. Memory
grows with the number of explicit ids and undo events, never with the rest of the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from woundlog.core import Changes, FightState
from woundlog.events import (
    Amend,
    Retract,
    StructuralError,
    WoundlogError,
    decode_json,
    type_name,
)
from woundlog.events.stores.base import Stored

from .fold import fold
from .undo import Target, Undo, check_target

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
    targets: dict[str, Target] = {}
    lines_of: dict[str, int] = {}
    undo_events: list[tuple[int, Stored]] = []
    for seq, number, raw in _lines(path):
        if at is not None and seq > at:
            break
        if seq > 1 and b'"id"' not in raw and b"retract" not in raw and b"amend" not in raw:
            continue  # neither named nor an undo: nothing undo needs to know
        event = decode_json(raw, line=number)
        kind = type_name(event)
        target = Target(seq, kind, event.id)
        targets[f"#{seq}"] = target
        if event.id is not None:
            if event.id in lines_of:
                raise StructuralError(
                    f"id `{event.id}` is already used on line {lines_of[event.id]}",
                    event=event.id,
                    line=number,
                    field="$.id",
                )
            lines_of[event.id] = number
            targets[event.id] = target
        if isinstance(event, Retract | Amend):
            undo_events.append((number, Stored(seq, event)))
    for number, stored in undo_events:
        name = stored.event.event  # type: ignore[union-attr]
        target = targets.get(name)
        if target is None and name.startswith("#") and int(name[1:]) < stored.seq:
            target = Target(int(name[1:]), "game", None)  # an unnamed game event
        try:
            check_target(stored.seq, stored.event, target)  # type: ignore[arg-type]
        except WoundlogError as exc:
            raise exc.located(line=number) from None
    return Undo(stored for _, stored in undo_events)


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
