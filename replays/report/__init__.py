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

from woundlog.core import Changes, FightState, get_ruleset
from woundlog.events import Event, FightStarted
from woundlog.events.stores import Stored

from .chronicle import chronicle
from .luck import (
    DICE_LISTED,
    REPORT_STEPS,
    Weighing,
    extreme,
    fight_luck,
    moments,
    played_events,
    readings,
)
from .numbers import Count, FightNumbers, fight_numbers, sides
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
    "DieLuck",
    "FightNumbers",
    "Length",
    "Line",
    "Luck",
    "Moment",
    "Report",
    "SideReport",
    "Tally",
    "Track",
    "build",
    "fight_numbers",
]

Played = tuple[Stored[Event], Event | None, FightState[Any], Changes]


STOP_EVERY = 256
"""Events folded between two calls of a report's `stop`."""


def build(
    fight: str,
    played: Iterable[Played],
    history: Iterable[tuple[Stored[Event], Changes]],
    *,
    steps: int = REPORT_STEPS,
    stop: Callable[[], None] | None = None,
) -> Report:
    """The report, its moments weighed within `steps` reducer steps in all (past them, left
    out, and said); `stop` is called as the work goes and may raise (a deadline)."""
    weighing = Weighing(steps, stop)
    count = Count()
    tracks = Tracks()
    dice: list[DieLuck] = []
    dice_read = 0
    found: list[Moment] = []
    events: list[Event | None] = []
    start: FightState[Any] | None = None
    before: FightState[Any] | None = None
    state: FightState[Any] | None = None
    for stored, event, state, changes in played:
        if stop is not None and stored.seq % STOP_EVERY == 0:
            stop()
        if isinstance(event, FightStarted):
            start = state
        count.add(stored, event, state, changes)
        tracks.add(state, changes)
        if changes.dice and event is not None and before is not None:
            read = readings(before, event, changes)
            dice_read += len(read)
            dice.extend(read[: DICE_LISTED - len(dice)])
            found.extend(moments(before, event, state, changes, weighing))
        events.append(event)
        before = state
    assert state is not None and start is not None, "a fight begins with fight_started"
    counted = count.done(state)
    per_character, why = fight_luck(start, played_events(events), state, stop)
    return Report(
        fight=fight,
        name=counted.name,
        ruleset=state.ruleset,
        length=counted.length,
        characters=counted.characters,
        sides=sides(counted.characters),
        luck=Luck(
            dice=dice,
            dice_read=dice_read,
            characters=per_character,
            luckiest=extreme(found, "lucky"),
            unluckiest=extreme(found, "unlucky"),
            why_sampled=why,
            moments_left_out=weighing.left_out,
            moments_left_out_from=weighing.left_out_from,
            why_left_out=weighing.why(),
        ),
        chronicle=chronicle(history),
        tracks=tracks.done(),
    )


class Tracks:
    """Each character's health counter, after every event that changed it: the first of its
    ruleset's pools it has (`Presentation.pools`)."""

    def __init__(self) -> None:
        self.points: dict[str, tuple[str, list[tuple[int, int]]]] = {}

    def add(self, state: FightState[Any], changes: Changes) -> None:
        for change in changes.characters:
            cid = change.character
            if cid not in self.points:
                character = state.characters.get(cid)
                pools = get_ruleset(state.ruleset).presentation.pools
                counter = next((c for c in pools if hasattr(character, c)), None)
                value = getattr(character, counter) if counter else None
                if counter is None or not isinstance(value, int):
                    continue
                self.points[cid] = (counter, [(changes.seq, value)])
                continue
            counter, points = self.points[cid]
            moved = change.counters.get(counter)
            if moved is not None and isinstance(moved[1], int):
                points.append((changes.seq, moved[1]))

    def done(self) -> list[Track]:
        return [
            Track(character=cid, counter=counter, points=points)
            for cid, (counter, points) in self.points.items()
        ]
