"""A fight's report: its numbers, how lucky its dice were, and its chronicle.

`build` is pure: it reads the fight as it stands (`played`: each event the rules replayed
with the state after it and its changes, as `replays.fold.replayed` gives them) and as it
happened (`history`: each stored event with what it did then, undos with their
consequences), and returns a `Report`. The application's `report(fight)` feeds it from the
store or a file. How a report is written for people (Markdown, HTML, its charts) is the
renderers' (replays/render/).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from woundlog.core import Changes, FightState
from woundlog.events import Event
from woundlog.events.stores import Stored

from .chronicle import Named, Written
from .luck import REPORT_STEPS
from .numbers import FightNumbers, fight_numbers
from .one_pass import OnePass
from .spool import ChronicleSpool
from .values import (
    Blow,
    Chance,
    Chapter,
    CharacterLuck,
    CharacterReport,
    DieLuck,
    Length,
    Line,
    Luck,
    Moment,
    Report,
    SideReport,
    Tally,
    Track,
)

__all__ = [
    "Blow",
    "Chance",
    "Chapter",
    "CharacterLuck",
    "CharacterReport",
    "ChronicleSpool",
    "DieLuck",
    "FightNumbers",
    "Length",
    "Line",
    "Luck",
    "Moment",
    "OnePass",
    "Report",
    "SideReport",
    "Tally",
    "Track",
    "build",
    "fight_numbers",
]

Played = tuple[Stored[Event], Event | None, FightState[Any], Changes]


def build(
    fight: str,
    played: Iterable[Played],
    history: Iterable[tuple[Stored[Event], Changes]],
    *,
    steps: int = REPORT_STEPS,
    stop: Callable[[], None] | None = None,
    written: Written | None = None,
    named: Named | None = None,
    tracks: bool = True,
) -> Report:
    """The report, its moments weighed within `steps` reducer steps in all (past them, left
    out, and said); `stop` is called as the work goes and may raise (a deadline). Both are
    read in one pass, an event of each in turn (`OnePass`); the chronicle is kept whole in
    the report unless `written` takes it as it is told."""
    made = OnePass(fight, written, steps=steps, stop=stop, named=named, tracks=tracks)
    for (stored, event, state, changes), (told, happened) in zip(played, history, strict=True):
        made.played(stored, event, state, changes)
        made.told(told, happened)
    return made.done()
