"""Undo, by appending, never editing: the one place that says what a log's `retract` and `amend`
do to the rest of it (DESIGN.md section 6).

History is never edited. An undo event names an earlier event by its id or by `#N`. `Undo`
resolves the undo events of a log (newest first, so that retracting a retract restores its
event; `add` resolves one more in place), and `Undo.as_played` applies them to one step of the
log: what the rules replay there (the event as written, the newest standing amend's
replacement in the slot, or nothing: retracted) and what undid it. Every loop over a log asks
it, and none decides it for itself:

- the folds: `fold.replayed` (each event's changes, through `Undo.played`), `fold.fold_pairs`
  (state only: it reads `named_seqs` and `named_ids`, the table of the few events an undo event
  names, and calls `as_played` for those alone, so a replay pays nothing for the rest), and a
  campaign's (`campaign.campaign_steps`);
- the readers of a log as it stands: `Fight.history` and the application's timeline (each
  event marked with what undid it), the report's chronicle (what each retract took or gave
  back: `ends_on`, then `as_played`), and what an undo takes back by default (`newest_live`, of
  a fight and of a campaign);
- the loops that take undo events one at a time as they are appended (`timeline.Timeline`,
  `batch_fold.BatchFold`): each resolves them in place (`add`), asks `fate` whether a target is
  taken back already and `in_slot` what an amend's replacement is in its slot, and `reach`
  tells a batch which of its kept states an undo event leaves standing.

The structural checks of an undo event (`check_target`) are here too, for a fight's log and a
campaign's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol, TypeVar

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
from woundlog.events.model import CampaignStarted, FightStarted
from woundlog.events.stores import Stored

E = TypeVar("E", bound=EventBase)
"""An event of a fight's log or of a campaign's: undo is the same in both."""

POSITION = re.compile(r"#[1-9][0-9]*")
"""`#N`, exactly as the N-th event calls itself."""

START_TYPES = ("fight_started", "campaign_started")
"""The first event of a log, which no undo event may name: start a new log instead."""


class Named(Protocol):
    """Anything that knows an event's own id: the event, or a `Target` standing for it."""

    @property
    def id(self) -> str | None: ...


def names_of(seq: int, event: Named) -> tuple[str, ...]:
    """Every name an event answers to: `#seq`, and its own id if it has one."""
    return (f"#{seq}", event.id) if event.id is not None else (f"#{seq}",)


class Fate(msgspec.Struct, frozen=True):
    """What the undo events of a log do to one event."""

    by: str  # the undo event's name
    replacement: GameEvent | None = None  # None: retracted

    def describe(self) -> str:
        return f"{'retracted' if self.replacement is None else 'amended'} by {self.by}"


def in_slot(replacement: GameEvent, slot: Named) -> GameEvent:
    """An amend's replacement as it is replayed in the slot of the event it amends: the slot
    keeps its identity, and so its dice and the names others use for it."""
    if replacement.id is None and slot.id is not None:
        return msgspec.structs.replace(replacement, id=slot.id)
    return replacement


class Undo:
    """The resolved undo events of a log (or of a prefix of it): a fight's, or a campaign's
    (whose only undo event is `retract`).

    Built from the undo events alone, so a replay can resolve a long log without holding it.
    """

    def __init__(self, undo_events: Iterable[Stored[UndoEvent]] = ()) -> None:
        self.events: list[Stored[UndoEvent]] = list(undo_events)
        self.live: dict[int, bool] = {}
        """Of each undo event, by seq: whether it stands (no retract that stands names it)."""
        self._retracted: dict[str, str] = {}
        self._amended: dict[str, tuple[int, str, GameEvent]] = {}
        # every undo event by every name it answers to: whether a new one reaches another
        # (`add`), and what a chain of retracts ends on (`ends_on`)
        self._undo_named: dict[str, Stored[UndoEvent]] = {}
        # every event an undo event names, by position (`#N`, kept as N) or by id: the only
        # events `as_played` can find other than written (the table `fold_pairs` reads)
        self.named_seqs: set[int] = set()
        self.named_ids: set[str] = set()
        self._rebuild()

    def _rebuild(self) -> None:
        self._undo_named.clear()
        self.named_seqs.clear()
        self.named_ids.clear()
        for stored in self.events:
            self._name(stored)
        self._work_out_fates()

    def _name(self, stored: Stored[UndoEvent]) -> None:
        for name in names_of(stored.seq, stored.event):
            self._undo_named[name] = stored
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
        reaches_undo = event.event in self._undo_named
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

    # --- the one rule, and the questions every loop asks of it --------------------------------

    def fate(self, seq: int, event: Named) -> Fate | None:
        """None if the event at `seq` stands as written; else who retracted or replaced it,
        and with what: a retract that stands takes it back, whatever amends it; else the
        newest amend that stands replaces it, and the replacement keeps the slot's id."""
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
        return Fate(by, in_slot(replacement, event))

    def as_played(self, seq: int, event: E) -> tuple[E | GameEvent | None, str | None]:
        """One step of the log as its undo events leave it: what the rules replay at `seq` (the
        event as written, its replacement, or None: taken back) and what undid it, as the
        step's changes say it (`Changes.undone`: "retracted by #9"; None: as written).

        Only an event an undo event names (`named_seqs`, `named_ids`) can be other than
        written: a loop that must not pay a call an event (`fold_pairs`) reads that table and
        asks this of those alone."""
        if seq not in self.named_seqs and (event.id is None or event.id not in self.named_ids):
            return event, None
        fate = self.fate(seq, event)
        if fate is None:
            return event, None
        return fate.replacement, fate.describe()

    def played(
        self, stream: Iterable[Stored[E]]
    ) -> Iterator[tuple[Stored[E], E | GameEvent | None, str | None]]:
        """Each stored event with `as_played` of it: the fold with changes, the history, the
        timeline and a campaign's fold all walk a log through this. (`as_played` is called
        for the events an undo event names alone, as `fold_pairs` calls it: a call an event
        fewer in a replay.)"""
        seqs, ids, as_played = self.named_seqs, self.named_ids, self.as_played
        for stored in stream:
            event = stored.event
            if stored.seq in seqs or (event.id is not None and event.id in ids):
                played, undone = as_played(stored.seq, event)
                yield stored, played, undone
            else:
                yield stored, event, None

    def newest_live(self, newest_first: Iterable[Stored[EventBase]]) -> str | None:
        """The name of the event an undo takes back by default (`undo_default`); None:
        nothing to undo."""
        found = self.undo_default(newest_first)
        return None if found is None else names_of(found.seq, found.event)[-1]

    def undo_default(self, newest_first: Iterable[Stored[E]]) -> Stored[E] | None:
        """The newest event of `newest_first` (a log read newest first) that an undo takes back
        by default (DESIGN.md section 6): in effect (`as_played` replays something in its place,
        an amended event included), not the log's start, and not a retract (taking one back is
        a redo, asked for by name). None: nothing to undo."""
        for stored in newest_first:
            event = stored.event
            if isinstance(event, FightStarted | CampaignStarted | Retract):
                continue
            if self.as_played(stored.seq, event)[0] is not None:
                return stored
        return None

    def redo_default(self, newest_first: Iterable[Stored[E]]) -> Stored[E] | None:
        """The undo a redo takes back by default: the newest event in effect, when it is a
        retract (retracting a retract restores what it took, DESIGN.md section 6), as an
        editor offers Redo right after Undo. None: the newest event in effect is no undo."""
        for stored in newest_first:
            if self.as_played(stored.seq, stored.event)[0] is None:
                continue
            return stored if isinstance(stored.event, Retract) else None
        return None

    def ends_on(self, name: str) -> str:
        """The event a retract of `name` finally concerns: `name` itself, unless it names a
        retract, whose taking back gives back (or takes back again) what that one named, and
        so on down the chain."""
        named = self._undo_named.get(name)
        while named is not None and isinstance(named.event, Retract):
            name = named.event.event
            named = self._undo_named.get(name)
        return name


class Target(msgspec.Struct, frozen=True):
    """What an undo check needs to know of the event an undo event names."""

    seq: int
    type: str
    id: str | None


def check_target(seq: int, event: UndoEvent, target: Target | None, log: str = "fight") -> None:
    """Structural checks of an undo event at `seq`, given the event it names (None: no such
    event), in a fight's log or (`log="campaign"`) a campaign's."""
    eid = event_ref(event, seq)
    if target is None or target.seq >= seq:
        raise StructuralError(
            f"`{event.event}` names no earlier event of this {log}", event=eid, field="$.event"
        )
    if target.type in START_TYPES:
        raise StructuralError(
            f"`{target.type}` cannot be undone; start a new {log} instead",
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


def reach(target: Target | None, reaches: Mapping[int, int]) -> int:
    """The first seq whose fate an undo event naming `target` may change: the target's, or,
    when the target is an undo event, the first seq that one reached (`reaches`, by its seq;
    one not in it, from before what the caller followed, may have reached anything: 0).
    Retracting an undo event changes what that one did too: the fate of the event it named,
    and so on down. None: a target not found, so anything."""
    if target is None:
        return 0
    if target.type in ("retract", "amend"):
        return min(target.seq, reaches.get(target.seq, 0))
    return target.seq


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
