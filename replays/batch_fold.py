"""A batch being validated, held in memory so that checking it is one pass over it.

An undo event in a batch changes the past: the state before it is folded again under the new
undo resolution. Folded from the first event each time, an import of a long log with undo events
in it was quadratic; and each undo event's target was found by going through the batch.

So the batch keeps its events by name (one dict lookup per target), and every `KEEP_EVERY`
seqs a state of the fight: the fold of events 1..S under the undo resolution as it stands. A new
undo event changes the fate of the event it names, and, if that one is an undo event too, of
what it named, and so on (its `reach`): the kept states at or after the earliest of them no
longer hold and are forgotten; the others still do, since no fate before them changed. A refold
starts from the newest one left and keeps states as it goes. An undo of an event a few turns back
refolds those few turns, however long the batch.

How many states are kept is bounded, however long the batch: the newest `RECENT` at
`KEEP_EVERY` apart, where undo events reach (the hit just recorded, one a few turns back), and
at most `OLDER` behind them, thinned to every other one whenever there would be more, so the
further back, the further apart. Any kept state is the fold of the events up to it, so which
ones are kept changes how far a refold goes back, never what it gives.

A log appended in batches inside one transaction (streamed.py) carries one BatchFold from each
batch to the next (`written`): the kept states and the undo events' reaches go on, and the
events of the batches before, now in the store, are read back from it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from typing import Any

from woundlog.core import FightState
from woundlog.events import Event
from woundlog.events.stores import Stored

from .undo import POSITION, Target, Undo, reach, target_of

KEEP_EVERY = 64
"""Seqs between two kept states: a refold starts at most this far behind the event an undo
names, or behind the undo event before it that reached further. Each kept state is one map of
the fight's characters (most of them shared with the next), so a batch keeps one map for
every KEEP_EVERY of its events, up to RECENT + OLDER of them."""

RECENT = 64
"""Kept states at KEEP_EVERY apart behind the newest: an undo of an event up to RECENT *
KEEP_EVERY (4,096) seqs back refolds at most KEEP_EVERY events from a kept state."""

OLDER = 64
"""Kept states, at the most, behind the RECENT ones. When there would be one more, every other
one of them goes (the oldest stays), so their spacing doubles as the batch grows: a
million-event import keeps at most 128 states, not 15,625 (issue 28), and an undo of an event
far back refolds from one at most about as far behind it as it is behind the newest."""


class BatchFold:
    """The accepted events of a batch so far, by seq and by name, and the states kept along it.

    `base` is the fight as it stood before the batch (None for a new fight): the first kept
    state. The fight is at `version` before the batch; its undo events were accounted for there.
    """

    def __init__(self, base: FightState[Any] | None, version: int, undo: Undo) -> None:
        self.undo = undo
        """The undo resolution of the fight at `version`, then of the batch as it is folded (so
        the next batch of one transaction need not read every undo event again)."""
        self.events: list[Stored[Event]] = []
        """The events of this batch held in memory (those of the batches before it are in the
        store, `written`)."""
        self._seqs: list[int] = []  # of `events`, for bisection (a refused event leaves a gap)
        self._ids: dict[str, int] = {}  # explicit id -> index in `events`; `#N` is found by N
        self._kept: list[tuple[int, FightState[Any]]] = []  # (seq, state), oldest first
        if base is not None:
            self._kept.append((base.seq, base))
        self._reaches: dict[int, int] = {}  # of each undo event of the batch: see `reach`
        self._steady = True  # no event refused yet: see `refused`
        self.stored = version
        """The fight's version in the store: the events up to it are read from there."""
        self.reached_upto = version
        """The seq of the newest undo event whose reach `forget_from` was told of."""

    def __contains__(self, name: str) -> bool:
        return self._index(name) is not None

    def find(self, name: str) -> Target | None:
        index = self._index(name)
        return None if index is None else target_of(self.events[index])

    def _index(self, name: str) -> int | None:
        if POSITION.fullmatch(name):
            seq = int(name[1:])
            at = bisect_left(self._seqs, seq)
            return at if at < len(self._seqs) and self._seqs[at] == seq else None
        return self._ids.get(name)

    def add(self, stored: Stored[Event], state: FightState[Any] | None) -> None:
        """An event of the batch accepted, and the fight's state right after it."""
        self.events.append(stored)
        self._seqs.append(stored.seq)
        if stored.event.id is not None:
            self._ids[stored.event.id] = len(self.events) - 1
        if state is not None:
            self.keep(state)

    def written(self, version: int) -> BatchFold:
        """This BatchFold for the next batch of one transaction, once this batch is written
        and the fight is at `version`: its events are let go (the store reads them back), its
        kept states and reaches go on."""
        self.events, self._seqs, self._ids = [], [], {}
        self.stored = version
        return self

    def keep(self, state: FightState[Any]) -> None:
        """Keep `state`, the fold of the fight up to its seq under the undo resolution as it
        now stands, if it is far enough past the newest kept one.

        By distance, not by count: after an undo event forgets the states behind it, the next
        event or refold keeps one at once, so the undo event after it refolds little."""
        newest = self._kept[-1][0] if self._kept else -KEEP_EVERY
        if self._steady and state.seq - newest >= KEEP_EVERY:
            self._kept.append((state.seq, state))
            if len(self._kept) > RECENT + OLDER:
                self._kept[:-RECENT] = self._kept[:-RECENT:2]

    @property
    def kept_seqs(self) -> list[int]:
        """The seqs of the states kept, oldest first."""
        return [seq for seq, _ in self._kept]

    def refused(self) -> None:
        """An event of the batch was refused: it is left out, and a fold of the batch does not
        see the gap it leaves. States kept from here on would, so none are kept: a refold then
        gives exactly what a fold from the start would."""
        self._steady = False

    def forget_from(self, seq: int) -> None:
        """An undo event names the event at `seq`: the states kept at or after it no longer hold."""
        while self._kept and self._kept[-1][0] >= seq:
            self._kept.pop()

    def start(self, upto: int) -> FightState[Any] | None:
        """The newest kept state at or before `upto`; None if none is kept there (fold from
        the store)."""
        # typed here: `reversed` of tuples holding an Any is Any to mypy (overloads that match)
        newest_first: Iterator[tuple[int, FightState[Any]]] = reversed(self._kept)
        for seq, state in newest_first:
            if seq <= upto:
                return state
        return None

    def held(self, after: int, upto: int) -> list[Stored[Event]]:
        """The events of `events` past seq `after`, up to seq `upto`."""
        return self.events[bisect_right(self._seqs, after) : bisect_right(self._seqs, upto)]

    def reach(self, undo_seq: int, target: Target | None) -> int:
        """The first seq whose fate an undo event at `undo_seq` naming `target` may change
        (`undo.reach`), remembered for the undo events that may name it in turn. An undo event
        from before the batch is not remembered: it may have reached anything."""
        reached = self._reaches[undo_seq] = reach(target, self._reaches)
        return reached
