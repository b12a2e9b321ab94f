"""Reports and timelines: a fight told after the fact, from a stored fight or a file alike.

    report(fight_or_file, *, most=None) -> Report        numbers, luck and chronicle (report/)
    report_spooled(fight_or_file) -> (Report, ChronicleSpool)   the same, its chronicle aside
    timeline(fight, first=1, limit=TIMELINE_MAX) -> TimelinePage   a window, for the page
    history(fight_or_file) -> FightHistory               every event as the fight stands: what
                                                         `woundlog timeline` draws
    replayed(fight, *, most=None) -> (Fight, stored events, replayed steps)   what a report reads

What they read is worked out here; how it is drawn or written (Markdown, HTML, SVG) is the
renderers' (replays/render/), which a front end calls with the values these return.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import tee
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core import Changes
from woundlog.events import Event
from woundlog.events.stores import Stored

from ..fight import Fight
from .base import FightOrFile, UseCases
from .values import FightHistory, Moment, TimelinePage, TooLarge

if TYPE_CHECKING:  # loaded by the use cases that need them: `woundlog hit` needs none of them
    from ..report import ChronicleSpool, Report
    from ..report.chronicle import Written

TIMELINE_MAX = 1000
"""The most events one timeline window holds (each with its changes: a few KiB)."""


class ReportCases(UseCases):
    """What a fight was, told whole: its report, its history, a window of its timeline."""

    def report(
        self,
        fight: FightOrFile,
        *,
        most: int | None = None,
        stop: Callable[[], None] | None = None,
        watch: Callable[[Iterator[tuple[Stored[Event], Changes]]], Iterator[Any]] | None = None,
        written: Written | None = None,
        tracks: bool = True,
    ) -> Report:
        """The fight's report (`replays.report`): per character and side numbers from the
        fight as it stands, the luck of its dice, and its chronicle as it happened. A fight of
        more than `most` events is TooLarge (the service's bound).
        One budget for the whole report, the CLI's as the service's: its moments within
        REPORT_STEPS reducer steps in all, the later ones left out and said so; `stop` is
        called as the work goes and may raise (a request's deadline); `watch` is given the
        events with what each did as the report reads them, and passes them on (the players'
        view keeps those it must word again: redaction.py).

        The fight is read once, in step (`report.OnePass`): its memory does not grow with the
        fight, but for the chronicle, kept whole in the report unless `written` takes it line
        by line as it is told (`report_spooled`), and the tracks (`tracks=False`: none)."""
        from ..report import OnePass, build

        with self.reading(fight) as opened:
            version = self.within(opened, self.named(fight), most)
            final = opened.undo_resolution(version)
            seqs, ids = final.named_seqs, final.named_ids

            def named(seq: int, event: Event) -> bool:
                return seq in seqs or (event.id is not None and event.id in ids)

            # one fold gives both (`Fight.steps_and_history`)
            steps = opened.steps_and_history(version)
            if watch is not None:  # tee holds the one event its two readers are apart by
                for_played, for_told = tee(steps)
                played = (step[:4] for step in for_played)
                history = watch((stored, told) for stored, _, _, _, told in for_told)
                return build(
                    self.named(fight), played, history, stop=stop, written=written, named=named,
                    tracks=tracks,
                )  # fmt: skip
            made = OnePass(self.named(fight), written, stop=stop, named=named, tracks=tracks)
            for stored, event, state, changes, told in steps:
                made.played(stored, event, state, changes)
                made.told(stored, told)
            return made.done()

    def report_spooled(
        self,
        fight: FightOrFile,
        *,
        most: int | None = None,
        stop: Callable[[], None] | None = None,
        tracks: bool = False,
    ) -> tuple[Report, ChronicleSpool]:
        """The report with its chronicle written aside as it is told (`report.ChronicleSpool`,
        which the caller closes once a renderer has read it back): what `woundlog report`
        writes and the report page streams, in memory that does not grow with the fight."""
        from ..report import ChronicleSpool

        spool = ChronicleSpool()
        try:
            made = self.report(fight, most=most, stop=stop, written=spool, tracks=tracks)
        except BaseException:
            spool.close()
            raise
        return made, spool

    @staticmethod
    def within(opened: Fight, fight: str, most: int | None) -> int:
        """The fight's version, if it is at most `most` events (else TooLarge)."""
        version = opened.version
        if most is not None and version > most:
            raise TooLarge(
                f"fight `{fight}` has {version:,} events; a report here takes at most {most:,}: "
                "run `woundlog report` where the store is"
            )
        return version

    def history(self, fight: FightOrFile) -> FightHistory:
        """Every event of the fight with what it did as it happened, each undo with its
        consequences and each undone event marked with what undid it: the whole fight, as its
        picture shows it."""
        with self.reading(fight) as opened:
            moments = [
                Moment(seq=stored.seq, event=stored.event, changes=changes)
                for stored, changes in zip(opened.events(), opened.history(), strict=True)
            ]
        first = moments[0].event if moments else None
        return FightHistory(
            fight=self.named(fight), name=getattr(first, "name", ""), moments=moments
        )

    def timeline(self, fight: str, first: int = 1, limit: int = TIMELINE_MAX) -> TimelinePage:
        """A window of the fight's history: events `first` on, at most `limit` (TIMELINE_MAX at
        most), each with its changes as it was appended (from the state before `first`: a
        snapshot and its tail, never the whole log) and, if a later undo took it back, what
        did."""
        opened = self.fight(fight)
        version = opened.version
        final = opened.undo_resolution(version)
        undo, redo = opened.undo_targets(final)
        last = min(version, first + min(limit, TIMELINE_MAX) - 1)
        if first > last:
            return TimelinePage(version=version, moments=[], undo=undo, redo=redo)
        moments = []
        for (stored, _, undone), changes in zip(
            final.played(opened.events(first, last)), opened.changes_from(first, last), strict=True
        ):
            if undone is not None:
                changes = msgspec.structs.replace(changes, undone=undone)
            moments.append(Moment(seq=stored.seq, event=stored.event, changes=changes))
        return TimelinePage(
            version=version,
            moments=moments,
            next=last + 1 if last < version else None,
            undo=undo,
            redo=redo,
        )

    def replayed(
        self, fight: str, *, most: int | None = None
    ) -> tuple[Fight, list[Stored[Event]], Any]:
        """The fight opened, its stored events, and each as `fold.replayed` gives it beside
        its stored form: what a report reads. More than `most` events is TooLarge."""
        opened = self.fight(fight)
        return (opened, *self.replayed_from(opened, fight, most=most))

    @staticmethod
    def replayed_from(
        opened: Fight, fight: str, *, most: int | None = None
    ) -> tuple[list[Stored[Event]], Any]:
        """`replayed`, of a fight already opened (a stored one, or a file's)."""
        from ..fold import replayed

        version = ReportCases.within(opened, fight, most)
        stream = list(opened.events(1, version))
        steps = replayed(stream, opened.undo_resolution(version))
        return stream, ((stored, *step) for stored, step in zip(stream, steps, strict=True))
