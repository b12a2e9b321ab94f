"""The benchmark's Mordheim fight as an `eventsourcing` aggregate with a fold of its own (aims.py;
not a test).

Issue 28's fairer reference beside es_fight.py: there each aggregate event carries one woundlog
event and folds it through woundlog's own reducer, so eventsourcing's figure holds woundlog's
rules engine as well as its own machinery. Here the aggregate is what a developer would write
with eventsourcing alone: one domain event per thing that happens (`Joined`, `Hit`,
`TurnStarted`, `TurnEnded`, ...), each with plain attributes, applied by a hand-written fold of
this one ruleset on mutable lists: minimal_fold.py's injury table and recovery phase, the same
dice (`core.draw`, keyed as the engine keys them). Like es_fight.py it holds the fight as it
stands (a retracted event stored as `Skipped`, an amended one as its replacement), so it does
not resolve undo events: less work than woundlog does on every read. Needs eventsourcing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import minimal_fold
from eventsourcing.domain import Aggregate, event
from minimal_fold import HALF_RATE, STATE, WOUNDS, recovery_phase

from woundlog.core.states import UPRIGHT
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted


class MordheimFight(Aggregate):  # type: ignore[misc]
    def __init__(self) -> None:
        self.seed = 0
        self.seq = 0
        self.fighters: dict[str, list[Any]] = {}
        self.sides: dict[str, list[list[Any]]] = {}

    @event("Started")
    def started(self, seed: int) -> None:
        self.seq += 1
        self.seed = seed

    @event("Joined")
    def joined(self, character: str, side: str, wounds: int) -> None:
        self.seq += 1
        fighter = [UPRIGHT, wounds, False]
        self.fighters[character] = fighter
        self.sides.setdefault(side, []).append(fighter)

    @event("Hit")
    def hit(
        self, target: str, damage: int, attacker: str | None, injury: list[int], name: str
    ) -> None:
        self.seq += 1
        minimal_fold.hit(self.fighters, self.seed, name, target, damage, attacker, injury)

    @event("TurnStarted")
    def turn_started(self, side: str | None) -> None:
        self.seq += 1
        if side is not None:
            for fighter in self.sides[side]:
                recovery_phase(fighter)

    @event("TurnEnded")
    def turn_ended(self, side: str | None) -> None:
        self.seq += 1
        for fighter in self.sides[side] if side else self.fighters.values():
            fighter[HALF_RATE] = False

    @event("Skipped")
    def skip(self) -> None:
        """An event that changes no fighter here (a retracted one, an undo event, the end)."""
        self.seq += 1

    def summary(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "characters": {cid: [f[STATE], f[WOUNDS]] for cid, f in self.fighters.items()},
        }


def record(fight: MordheimFight, seq: int, stands: Event | None) -> None:
    """One event of the file, as the fight stands, recorded as the aggregate's own event."""
    if isinstance(stands, Hit):
        given = stands.rolls.get("injury", []) if stands.rolls else []
        name = stands.id or f"#{seq}"
        fight.hit(stands.target, stands.damage, stands.attacker, list(given), name)
    elif isinstance(stands, TurnStarted):
        fight.turn_started(stands.side)
    elif isinstance(stands, TurnEnded):
        fight.turn_ended(stands.side)
    elif isinstance(stands, CharacterJoined):
        fight.joined(stands.character, stands.side or "", stands.stats.get("wounds", 1))
    elif isinstance(stands, FightStarted):
        fight.started(stands.seed)
    else:
        fight.skip()


def standing(path: Path) -> Iterator[tuple[int, Event | None]]:
    """Each seq of the file and its event as the fight stands (None for a retracted one)."""
    from woundlog.replays.files import _Events, scan_undo

    undo = scan_undo(path)
    named = {s.event.event for s in undo.events}  # type: ignore[union-attr]
    for stored in _Events(path, None):
        stands: Event | None = stored.event
        if f"#{stored.seq}" in named or (stored.event.id is not None and stored.event.id in named):
            fate = undo.fate(stored.seq, stored.event)
            if fate is not None:
                stands = fate.replacement
        yield stored.seq, stands
