"""Folded states of busy fights, in memory, for a front end that keeps a store open (the
service, a `woundlog play` session): an append folds only its events.

Each fight keeps one state, at the version it was folded to. An append whose fight is still at
that version folds only its own events onto it; one that finds the fight moved on (another
process, the CLI) folds from the store as before, and keeps the result. Keyed by version, an
entry is never wrong, only unused: the state at version V is that of events 1..V.

Of the same log, that is. A fight deleted and made again under its id (the CLI's `delete` and
`new` while a server runs: the server never hears of it) is another log that reaches the same
versions, so a version alone would answer the new fight with the old one's fold. Each entry
also keeps the fight's first and newest events as the store held them when it was kept (the
events at seq 1 and at its version), and is used only while the store still holds those two:
one lookup by position, without reading the log between. A fight made again starts with its own
`fight_started` (a seed of its own, unless given the same one) and has its own newest event; a
new log that matched both ends at the same version would have to copy the old one's first and
last events and differ only between them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from woundlog.core import FightState
from woundlog.events import Event
from woundlog.events.stores import Store, Stored

BUSY_FIGHTS = 1024
"""How many fights' states are kept; the least recently used goes first."""

Ends = tuple[Stored[Event] | None, Stored[Event] | None]
"""A log's first and newest events, which tell one log of a fight id from another."""


def ends(store: Store, fight: str, version: int) -> Ends:
    first, newest = "#1", f"#{version}"
    found = store.lookup(fight, [first, newest])
    return found.get(first), found.get(newest)


class FoldCache:
    def __init__(self, size: int = BUSY_FIGHTS) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[int, Ends, FightState[Any]]] = OrderedDict()
        self._lock = threading.Lock()  # the server's worker threads share it

    def get(self, store: Store, fight: str, version: int) -> FightState[Any] | None:
        with self._lock:
            kept = self._kept.get(fight)
        if kept is None or kept[0] != version:
            return None
        if ends(store, fight, version) != kept[1]:  # outside the lock: a store read
            self.forget(fight)  # another log of this id: the kept fold is of none of it
            return None
        with self._lock:
            if fight in self._kept:
                self._kept.move_to_end(fight)
        return kept[2]

    def put(self, store: Store, fight: str, version: int, state: FightState[Any]) -> None:
        with self._lock:
            kept = self._kept.get(fight)
            if kept is not None and kept[0] > version:
                return  # a newer state is kept already (appends finish in any order)
        found = ends(store, fight, version)
        with self._lock:
            kept = self._kept.get(fight)
            if kept is not None and kept[0] > version:
                return  # kept while the store was read
            self._kept[fight] = (version, found, state)
            self._kept.move_to_end(fight)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def forget(self, fight: str) -> None:
        """Drop the fight's state (it was deleted: a new fight of that id is another log)."""
        with self._lock:
            self._kept.pop(fight, None)
