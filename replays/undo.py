"""Undo, by appending, never editing: which events a log's `retract` and `amend` take away.

History is never edited. An undo event names an earlier event by its id or by `#N`; resolving
the undo events of a log (newest first, so that retracting a retract restores its event) tells,
for every other event, whether it stands, was retracted, or is replayed as a replacement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TypeVar

import msgspec

from woundlog.events import (
    Amend,
    Event,
    EventBase,
    GameEvent,
    Retract,
    StructuralError,
    UndoEvent,
    WoundlogError,
    event_ref,
    type_name,
)
from woundlog.events.stores import Stored

S = TypeVar("S", bound=Stored[EventBase])
"""An event as a store holds it, of a fight's log or a campaign's: undo is the same in both."""

POSITION = re.compile(r"#[1-9][0-9]*")
"""`#N`, exactly as the N-th event calls itself."""


def names_of(seq: int, event: EventBase) -> tuple[str, ...]:
    """Every name an event answers to: `#seq`, and its own id if it has one."""
    return (f"#{seq}", event.id) if event.id is not None else (f"#{seq}",)


class Fate(msgspec.Struct, frozen=True):
    """What the undo events of a log do to one event."""

    by: str  # the undo event's name
    replacement: GameEvent | None = None  # None: retracted

    def describe(self) -> str:
        return f"{'retracted' if self.replacement is None else 'amended'} by {self.by}"


class Undo:
    """The resolved undo events of a log (or of a prefix of it): a fight's, or a campaign's
    (whose only undo event is `retract`).

    Built from the undo events alone, so a replay can resolve a long log without holding it.
    """

    def __init__(self, undo_events: Iterable[Stored[UndoEvent]] = ()) -> None:
        self.events: list[Stored[UndoEvent]] = list(undo_events)
        self.live: dict[int, bool] = {}
        self._retracted: dict[str, str] = {}
        self._amended: dict[str, tuple[int, str, GameEvent]] = {}
        # every name of every undo event, so `add` knows whether a new one reaches another
        self._undo_names: set[str] = set()
        # every event an undo event names, by position (`#N`, kept as N) or by id (the fold
        # asks `fate` of these alone)
        self.named_seqs: set[int] = set()
        self.named_ids: set[str] = set()
        self._rebuild()

    def _rebuild(self) -> None:
        for names in (self._undo_names, self.named_seqs, self.named_ids):
            names.clear()
        for stored in self.events:
            self._name(stored)
        self._work_out_fates()

    def _name(self, stored: Stored[UndoEvent]) -> None:
        self._undo_names.update(names_of(stored.seq, stored.event))
        name = stored.event.event
        if POSITION.fullmatch(name):
            self.named_seqs.add(int(name[1:]))
        else:
            self.named_ids.add(name)

    def _work_out_fates(self) -> None:
        """Which undo events stand, and what those that do take back or replace (`fate`)."""
        # newest first: whether an undo event stands depends only on the undo events after it
        retracted: dict[str, str] = {}
        self.live = {}
        for stored in reversed(self.events):
            names = names_of(stored.seq, stored.event)
            stands = not any(name in retracted for name in names)
            self.live[stored.seq] = stands
            if stands and isinstance(stored.event, Retract):
                retracted.setdefault(stored.event.event, event_ref(stored.event, stored.seq))
        self._retracted = retracted
        self._amended = {}
        for stored in self.events:
            event = stored.event
            if isinstance(event, Amend) and self.live[stored.seq]:
                by = event_ref(event, stored.seq)
                self._amended[event.event] = (stored.seq, by, event.replacement)

    def add(self, stored: Stored[UndoEvent]) -> None:
        """Resolve one more undo event, newer than all the others, in place.

        One that names an event which is not an undo event changes no other undo event's
        standing: it stands (nothing after it can retract it yet) and, being the newest, wins
        its target. So it costs the same however many came before it; only one that reaches an
        undo event (a retracted retract) is resolved again from the start."""
        event = stored.event
        reaches_undo = event.event in self._undo_names
        self.events.append(stored)
        self._name(stored)
        if reaches_undo:
            self._work_out_fates()
            return
        self.live[stored.seq] = True
        by = event_ref(event, stored.seq)
        if isinstance(event, Retract):
            self._retracted[event.event] = by
        else:
            self._amended[event.event] = (stored.seq, by, event.replacement)

    def drop_newest(self) -> None:
        """Take back the last `add` (an undo event refused after all)."""
        self.events.pop()
        self._rebuild()

    @property
    def empty(self) -> bool:
        return not self.events

    def fate(self, seq: int, event: EventBase) -> Fate | None:
        """None if the event stands as written; else who retracted or replaced it, and with what."""
        names = names_of(seq, event)
        for name in names:
            by = self._retracted.get(name)
            if by is not None:
                return Fate(by)
        if not self._amended:
            return None
        found = [self._amended[name] for name in names if name in self._amended]
        if not found:
            return None
        _, by, replacement = max(found, key=lambda entry: entry[0])  # the newest amend wins
        if replacement.id is None and event.id is not None:
            # the slot keeps its identity, and so its dice and the names others use for it
            replacement = msgspec.structs.replace(replacement, id=event.id)
        return Fate(by, replacement)

    def fates(self, stream: Iterable[S]) -> Iterator[tuple[S, Fate | None]]:
        """Each stored event with its fate: None when it stands as written (kept), else a Fate
        without a replacement (skipped, labelled by `Fate.describe`) or with one (replayed as
        it). The fold, the state at a point and the history all walk a log through this.

        `fate` is asked only of the few events an undo event names, by position or by id."""
        seqs, ids, fate = self.named_seqs, self.named_ids, self.fate
        for stored in stream:
            event = stored.event
            if stored.seq in seqs or (event.id is not None and event.id in ids):
                yield stored, fate(stored.seq, event)
            else:
                yield stored, None

    def retracted(self, names: Iterable[str]) -> str | None:
        """The undo event that retracted the event with these names, if one did."""
        return next((self._retracted[n] for n in names if n in self._retracted), None)


class Target(msgspec.Struct, frozen=True):
    """What an undo check needs to know of the event an undo event names."""

    seq: int
    type: str
    id: str | None


def check_target(seq: int, event: UndoEvent, target: Target | None) -> None:
    """Structural checks of an undo event, given the event it names (None: no such event)."""
    eid = event_ref(event, seq)
    if target is None or target.seq >= seq:
        raise StructuralError(
            f"`{event.event}` names no earlier event of this fight", event=eid, field="$.event"
        )
    if target.type == "fight_started":
        raise StructuralError(
            "`fight_started` cannot be undone; start a new fight instead",
            event=eid,
            field="$.event",
        )
    if isinstance(event, Amend):
        if target.type in ("retract", "amend"):
            raise StructuralError(
                f"`{event.event}` is an undo event: retract it instead of amending it",
                event=eid,
                field="$.event",
            )
        if event.replacement.id is not None and event.replacement.id != target.id:
            raise StructuralError(
                "the replacement keeps the id of the event it replaces; leave `id` out",
                event=eid,
                field="$.replacement.id",
            )


def target_of(stored: Stored[EventBase]) -> Target:
    return Target(stored.seq, type_name(stored.event), stored.event.id)


def resolve(entries: Iterable[tuple[int, int | None, Event]]) -> Undo:
    """Resolve the undo events among (seq, line, event) entries, checking the log's structure:
    ids unique, each undo naming an earlier event it may undo.

    Entries may leave out unnamed game events: an undo naming one by `#N` is then taken to
    name a game event.
    """
    targets: dict[str, Target] = {}
    lines: dict[str, int | None] = {}
    undo_events: list[tuple[int | None, int, UndoEvent]] = []
    for seq, line, event in entries:
        target = Target(seq, type_name(event), event.id)
        targets[f"#{seq}"] = target
        if event.id is not None:
            if event.id in lines:
                earlier = lines[event.id]
                raise StructuralError(
                    f"id `{event.id}` is already used"
                    + (f" on line {earlier}" if earlier else " by an earlier event"),
                    event=event.id,
                    line=line,
                    field="$.id",
                )
            lines[event.id] = line
            targets[event.id] = target
        if isinstance(event, Retract | Amend):
            undo_events.append((line, seq, event))
    for line, seq, undo in undo_events:
        named = targets.get(undo.event)
        if named is None and undo.event.startswith("#") and int(undo.event[1:]) < seq:
            named = Target(int(undo.event[1:]), "game", None)
        try:
            check_target(seq, undo, named)
        except WoundlogError as exc:
            raise exc.located(line=line) from None
    return Undo(Stored(seq, undo) for _, seq, undo in undo_events)
