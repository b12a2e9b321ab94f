"""A fight's report made in one pass over its fold, in memory that does not grow with the fight.

`OnePass` takes each event twice over, side by side: as the fight stands (`played`: the state
after it and its changes, every undo applied) for the numbers, the tracks and the luck, and as
it happened (`told`: its changes then) for the chronicle, whose lines go on to where they are
written as they are told (`chronicle.Written`: kept whole for `Report.chronicle`, or a
`spool.ChronicleSpool` a renderer reads back). What it keeps while it reads is the fight's
numbers (per character), the dice readings it lists (DICE_LISTED at most), the two extreme
moments, and the sentences of the events an undo event names; the events as played, for the
luck of the whole fight, are written aside past their first few thousand (`spool.EventSpool`).

Decisions where the issue is silent:
- The tracks (each character's health after every change, for the HTML chart and `--json`)
  grow with the fight by their nature: they are kept only when asked for (`tracks=True`).
- Readings past the DICE_LISTED listed are counted, not worked out: the count is all the
  report says of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from woundlog.core import Changes, FightState, get_ruleset
from woundlog.events import Amend, Event, FightStarted, Retract
from woundlog.events.stores import Stored

from . import luck
from .chronicle import Chapters, Chronicle, Named, Written
from .luck import (
    DICE_LISTED,
    REPORT_STEPS,
    Weighing,
    fight_luck,
    free,
    moments,
    reading_count,
    readings,
)
from .numbers import Count, sides
from .spool import ChronicleSpool, EventSpool, TrackPoints
from .values import DieLuck, Luck, Moment, Report, Track

STOP_EVERY = 256
"""Events folded between two calls of a report's `stop`."""


class OnePass:
    """Takes a fight event by event (`played`, then `told`, of each event in turn) and tells
    its report at the end (`done`). `stop` is called as the work goes and may raise (a
    deadline); `named`: which events an undo event names (`chronicle.Chronicle`)."""

    def __init__(
        self,
        fight: str,
        written: Written | None = None,
        *,
        steps: int = REPORT_STEPS,
        stop: Callable[[], None] | None = None,
        named: Named | None = None,
        tracks: bool = True,
    ) -> None:
        self.fight = fight
        self.stop = stop
        self.weighing = Weighing(steps, stop)
        self.count = Count()
        spooled = written.tracks if isinstance(written, ChronicleSpool) else None
        self.tracks = Tracks(spooled) if tracks else None
        self.dice: list[DieLuck] = []
        self.dice_read = 0
        self.luckiest: Moment | None = None
        self.unluckiest: Moment | None = None
        # the events the whole fight's luck may read: as many as an exact answer may reach,
        # or as a fight may have and still be sampled (luck.fight_luck)
        self.whatif = EventSpool(
            max(luck.FIGHT_STEPS + 1, luck.SAMPLE_STEPS // luck.FEWEST_SAMPLES)
        )
        self.start: FightState[Any] | None = None
        self.before: FightState[Any] | None = None
        self.chronicle = Chronicle(written, named)

    def played(
        self, stored: Stored[Event], event: Event | None, state: FightState[Any], changes: Changes
    ) -> None:
        """One event as the fight stands: `event` as the rules replayed it (None: taken
        back), the state after it, its changes."""
        if self.stop is not None and stored.seq % STOP_EVERY == 0:
            self.stop()
        if type(event) is FightStarted:  # not `isinstance`: core.reducer._effect says why
            self.start = state
        self.count.add(stored, event, state, changes)
        if self.tracks is not None:
            self.tracks.add(state, changes)
        before = self.before
        if changes.dice and event is not None and before is not None:
            if len(self.dice) < DICE_LISTED:
                read = readings(before, event, changes)
                self.dice_read += len(read)
                self.dice.extend(read[: DICE_LISTED - len(self.dice)])
            else:
                self.dice_read += reading_count(before, changes)
            for moment in moments(before, event, state, changes, self.weighing):
                self._weigh(moment)
        if event is not None and type(event) not in (FightStarted, Retract, Amend):
            self.whatif.add(event, free)
        self.before = state

    def _weigh(self, moment: Moment) -> None:
        """The luckiest and unluckiest so far: the smallest chance, the earliest of equals."""
        end = "luckiest" if moment.kind == "lucky" else "unluckiest"
        best: Moment | None = getattr(self, end)
        if best is None or moment.chance.fraction() < best.chance.fraction():
            setattr(self, end, moment)

    def told(self, stored: Stored[Event], changes: Changes) -> None:
        """One event as it happened, for the chronicle."""
        self.chronicle.add(stored, changes)

    def done(self) -> Report:
        """The report; its chronicle whole if it was kept (`Chapters`), else empty (it is
        where it was written)."""
        state, start = self.before, self.start
        assert state is not None and start is not None, "a fight begins with fight_started"
        counted = self.count.done(state)
        try:
            per_character, why = fight_luck(start, self.whatif, state, self.stop)
        finally:
            self.whatif.close()
        weighing = self.weighing
        written = self.chronicle.written
        return Report(
            fight=self.fight,
            name=counted.name,
            ruleset=state.ruleset,
            length=counted.length,
            characters=counted.characters,
            sides=sides(counted.characters),
            luck=Luck(
                dice=self.dice,
                dice_read=self.dice_read,
                characters=per_character,
                luckiest=self.luckiest,
                unluckiest=self.unluckiest,
                why_sampled=why,
                moments_left_out=weighing.left_out,
                moments_left_out_from=weighing.left_out_from,
                why_left_out=weighing.why(),
            ),
            chronicle=written.chapters if isinstance(written, Chapters) else [],
            tracks=[] if self.tracks is None else self.tracks.done(),  # spooled: none here
        )


class Tracks:
    """Each character's health counter, after every event that changed it: the first of its
    ruleset's pools it has (`Presentation.pools`). Kept whole, or written aside to `spooled`
    (a `ChronicleSpool`'s tracks) as they come."""

    def __init__(self, spooled: list[TrackPoints] | None = None) -> None:
        self.points: dict[str, tuple[str, list[tuple[int, int]] | TrackPoints]] = {}
        self.spooled = spooled

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
                if self.spooled is None:
                    self.points[cid] = (counter, [(changes.seq, value)])
                else:
                    track = TrackPoints(cid, counter)
                    track.add(changes.seq, value)
                    self.spooled.append(track)
                    self.points[cid] = (counter, track)
                continue
            counter, points = self.points[cid]
            moved = change.counters.get(counter)
            if moved is not None and isinstance(moved[1], int):
                if isinstance(points, TrackPoints):
                    points.add(changes.seq, moved[1])
                else:
                    points.append((changes.seq, moved[1]))

    def done(self) -> list[Track]:
        """The tracks kept whole (none when they were written aside)."""
        return [
            Track(character=cid, counter=counter, points=points)
            for cid, (counter, points) in self.points.items()
            if isinstance(points, list)
        ]
