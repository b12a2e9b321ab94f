"""The service's folded states of its busy fights, in memory: an append folds only its events.

Each fight keeps one state, at the version it was folded to. An append whose fight is still at
that version folds only its own events onto it; one that finds the fight moved on (another
process, the CLI) folds from the store as before, and keeps the result. Keyed by version, an
entry is never wrong, only unused: the state at version V is that of events 1..V.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from woundlog.core import FightState

BUSY_FIGHTS = 1024
"""How many fights' states are kept; the least recently used goes first."""


class FoldCache:
    def __init__(self, size: int = BUSY_FIGHTS) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[int, FightState[Any]]] = OrderedDict()
        self._lock = threading.Lock()  # the server's worker threads share it

    def get(self, fight: str, version: int) -> FightState[Any] | None:
        with self._lock:
            kept = self._kept.get(fight)
            if kept is None or kept[0] != version:
                return None
            self._kept.move_to_end(fight)
            return kept[1]

    def put(self, fight: str, version: int, state: FightState[Any]) -> None:
        with self._lock:
            kept = self._kept.get(fight)
            if kept is not None and kept[0] > version:
                return  # a newer state is kept already (appends finish in any order)
            self._kept[fight] = (version, state)
            self._kept.move_to_end(fight)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def forget(self, fight: str) -> None:
        """Drop the fight's state (it was deleted: a new fight of that id is another log)."""
        with self._lock:
            self._kept.pop(fight, None)
