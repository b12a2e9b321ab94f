"""A Fight: one fight's log in a store, and its state folded from it.

Appending validates the whole batch against the fight as it stands (structure, then rules) and
writes it only if every event passes: nothing refused is ever half-written. A retry of events
already written is a no-op, so other software can resend freely. Once a batch is committed the
append succeeds: what follows the commit (a snapshot) is best effort and never makes it an error,
or a client would resend events that are already written.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice, takewhile
from typing import Any, NamedTuple, NoReturn, Protocol

import msgspec

from woundlog.core import Changes, FightState, apply_or_void, refuse_strangers_dice
from woundlog.events import (
    Amend,
    BatchRefused,
    ConflictError,
    Event,
    FightStarted,
    GameEvent,
    RefusedError,
    Retract,
    StructuralError,
    UsageError,
    canonical,
    decode_json,
    encode_json,
    event_ref,
)
from woundlog.events.model import misnamed, unprintable
from woundlog.events.stores import Store, Stored

from . import snapshots
from .batch_fold import KEEP_EVERY, BatchFold
from .fold import fold, fold_state, played_step
from .timeline import Timeline
from .undo import Target, Undo, names_of, reach, target_of

RETRIES = 20
"""How often an append is revalidated when another writer got in first."""


class FightNotFound(UsageError):
    """The fight named is not in the store (the service answers 404): never made, or deleted,
    maybe while it was being read."""


class Appended(msgspec.Struct, frozen=True):
    """The result of an append: the fight's version after it, and what each new event did."""

    version: int
    changes: list[Changes]
    skipped: list[str] = []  # ids already in the fight with the same content
    warnings: list[str] = []  # what an importer left out or corrected (drift, late records)
    # the campaign an import recorded the fight in, this time; left out of the answer otherwise
    recorded_in: str | msgspec.UnsetType = msgspec.UNSET


class Applied(NamedTuple):
    """One event as it was appended: what it did, and the fight just before and just after it
    (before: None for the fight's first event). What a page following the fight is sent."""

    stored: Stored[Event]
    changes: Changes
    before: FightState[Any] | None
    after: FightState[Any]
    targets: tuple[int | None, int | None] | None = None  # with `targets`: see `undo_targets`


class FoldCache(Protocol):
    """Folded states kept in memory, keyed by fight and version, so an append folds only its
    own events: the state at version V is that of events 1..V whatever comes after, so a kept
    one never goes stale, and it always equals the fold. Given the store, to tell the fight's
    log from another made under its id since (foldcache.py)."""

    def get(self, store: Store, fight: str, version: int) -> FightState[Any] | None: ...

    def put(self, store: Store, fight: str, version: int, state: FightState[Any]) -> None: ...


class Fight:
    def __init__(
        self, store: Store, fight: str, cache: FoldCache | None = None, *, carry: bool = False
    ) -> None:
        self.store = store
        self.id = fight
        self.cache = cache  # an append then folds only its own events onto the kept state
        # With `carry`, the appends are batches of one log in one transaction (streamed.py):
        # what one batch's fold keeps (states, undo reaches) goes on to the next append.
        self._carry = carry
        self._carried: BatchFold | None = None
        # The events undo events name, by the name they use. A stored event never changes, so a
        # name once found stays true; names not found are asked again (they may be written yet).
        # One store lookup for all of a fold's undo events, not one per undo event: in the JSON
        # Lines store each lookup is a scan of the file.
        self._targets: dict[str, Target] = {}

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def create(cls, store: Store, fight: str, started: FightStarted) -> Fight:
        if store.version(fight) > 0:
            raise UsageError(f"fight `{fight}` already exists")
        new = cls(store, fight)
        new.append([started], expected_version=0)
        return new

    @classmethod
    def open(cls, store: Store, fight: str) -> Fight:
        if store.version(fight) == 0:
            known = ", ".join(store.fights()) or "none yet"
            raise FightNotFound(f"no fight `{fight}` (fights: {known})")
        return cls(store, fight)

    @property
    def version(self) -> int:
        return self.store.version(self.id)

    def events(self, from_seq: int = 1, to_seq: int | None = None) -> Iterator[Stored[Event]]:
        return self.store.read(self.id, from_seq, to_seq)

    # --- reading ---------------------------------------------------------------------------

    def undo_resolution(self, at: int | None = None) -> Undo:
        return Undo(self.store.undo_events(self.id, at))

    def state(self, at: int | None = None) -> FightState[Any]:
        """The fight at seq `at` (default: now) as it stood then: later undo events ignored."""
        end = self._end(at)
        kept = self.cache.get(self.store, self.id, end) if self.cache is not None else None
        if kept is not None:
            return kept
        state = self._refold(self.undo_resolution(end), end)
        if self.cache is not None and at is None:
            self.cache.put(self.store, self.id, end, state)
        return state

    def steps(self, at: int | None = None) -> Iterator[tuple[FightState[Any], Changes]]:
        """Every event's changes as the fight stands now (undone events marked)."""
        end = self._end(at)
        return fold(self.events(1, end), self.undo_resolution(end))

    def history(self, at: int | None = None) -> Iterator[Changes]:
        """Every event's changes as they happened, each undo with its consequences; events a
        later undo took back are marked with it."""
        end = self._end(at)
        final = self.undo_resolution(end)
        timeline = Timeline(None, Undo(), self._refold, self._find)
        for stored, _, undone in final.played(self.events(1, end)):
            changes = timeline.push(stored, strict=False)
            if undone is not None:
                changes = msgspec.structs.replace(changes, undone=undone)
            yield changes

    def steps_and_history(
        self, at: int | None = None
    ) -> Iterator[tuple[Stored[Event], Event | None, FightState[Any], Changes, Changes]]:
        """Each event with, in one fold, what `fold.replayed` gives of it (the event the rules
        replay in its place, the state after it and its changes, as the fight stands now) and
        its changes as they happened (`history`): what a report reads.

        The two differ only from an event a later undo event names up to that undo event (the
        interval in which the fight as it happened had not yet been undone); elsewhere the
        same event is applied to the same state, and the changes as the fight stands are its
        history too. So the fold as it happened is worked out in those intervals alone (and
        at each undo event, whose history tells its consequences), not over the whole log."""
        end = self._end(at)
        final = self.undo_resolution(end)
        undone_by: dict[str, int] = {}  # a name an undo event names -> the last that does
        for undo in final.events:
            target = undo.event.event
            undone_by[target] = max(undone_by.get(target, 0), undo.seq)
        # each undo event's reach: the first seq whose fate it may change (`undo.reach`)
        self._prefetch(undo.event.event for undo in final.events)
        reaches: dict[int, int] = {}
        for undo in final.events:
            reaches[undo.seq] = reach(self._find(undo.event.event), reaches)
        last_reached = {at: seq for seq, at in reaches.items()}  # by the last that reaches it
        kept: dict[int, FightState[Any]] = {}  # the fight as it stands before a seq reached
        apart = 0  # the fight as it happened may differ from it as it stands before this seq
        same = True  # the two states are equal (checked after each event folded apart)
        before: FightState[Any] | None = None  # the state as it stands, before this event
        seq = 0

        def refold(undo: Undo, upto: int, batch_fold: BatchFold | None = None) -> FightState[Any]:
            # an undo event's past as it makes it: the fight as it stands, when no later undo
            # event names an event before it (a refold of the whole log spared, per undo event)
            if upto == seq - 1 and seq >= apart and before is not None:
                return before
            held = None
            if upto == seq - 1:
                # else from the fight as it stands before the first seq a later undo event
                # reaches (the two agree before it), when no snapshot that holds is newer
                later = [at for by, at in reaches.items() if by > seq and at < seq]
                first = min(later, default=0)
                if first in kept:
                    held = (first - 1, kept[first])
            return self._refold(undo, upto, batch_fold, held)

        timeline = Timeline(None, Undo(), refold, self._find)
        # one walk of the log, the fold's steps inlined (`fold.replayed`, `Undo.played`): each
        # generator layer and name made per event cost a report some thousand instructions
        seqs, ids, as_played = final.named_seqs, final.named_ids, final.as_played
        state: FightState[Any] | None = None
        for stored in self.events(1, end):
            seq, written = stored.seq, stored.event
            if seq in last_reached and before is not None:
                kept[seq] = before
            named = False
            event: Event | None = written
            undone: str | None = None
            if seq in seqs or (written.id is not None and written.id in ids):
                event, undone = as_played(seq, written)
                for name in names_of(seq, written):
                    if name in undone_by:
                        named = True
                        apart = max(apart, undone_by[name])
            state, changes = played_step(state, written, event, undone, apply_or_void)
            # the event's type asked, not `isinstance` (core.reducer._effect says why)
            if type(written) in (Retract, Amend) or (seq < apart and (named or not same)):
                told = timeline.push(stored, strict=False)
                if undone is not None:
                    told = msgspec.structs.replace(told, undone=undone)
                # the same event on the same state from here on, until a named one
                same = seq >= apart or timeline.state == state
            else:
                told = changes
                timeline.state = state
            if kept and seq in reaches:  # what no undo event after this one can reach
                for at in [at for at in kept if last_reached[at] <= seq]:
                    del kept[at]
            before = state
            yield stored, event, state, changes, told

    def changes_from(self, first: int, last: int | None = None) -> Iterator[Changes]:
        """The changes of events `first` to `last` (default: the newest) as each was appended:
        what `append` returned for them, later undos not marked. Starts from the state at
        `first - 1` (a snapshot plus its tail), so a live feed need not refold the whole log."""
        for applied in self.applied_from(first, last):
            yield applied.changes

    def applied_from(
        self, first: int, last: int | None = None, *, targets: bool = False
    ) -> Iterator[Applied]:
        """`changes_from`, each event's changes with the fight before and after it; with
        `targets`, also the seqs Undo and Redo would take back right after it."""
        end = self._end(last)
        if first > end:
            return
        first = max(first, 1)
        start = self.state(first - 1) if first > 1 else None
        undo = self.undo_resolution(first - 1) if first > 1 else Undo()
        timeline = Timeline(start, undo, self._refold, self._find)
        read: list[Stored[Event]] = []
        for stored in self.events(first, end):
            before = timeline.state
            changes = timeline.push(stored, strict=False)
            assert timeline.state is not None  # a fight's first event starts it
            found = None
            if targets:  # the log newest first from this event: what is read, then the store
                read.append(stored)
                found = self._targets_at(timeline.undo, read, first - 1)
            yield Applied(stored, changes, before, timeline.state, found)

    def _targets_at(
        self, resolution: Undo, read: list[Stored[Event]], before: int
    ) -> tuple[int | None, int | None]:
        def newest_first() -> Iterator[Stored[Event]]:
            yield from reversed(read)
            yield from self._newest_first(before)

        undo = resolution.undo_default(newest_first())
        redo = resolution.redo_default(newest_first())
        return (None if undo is None else undo.seq, None if redo is None else redo.seq)

    def undo_targets(self, resolution: Undo) -> tuple[int | None, int | None]:
        """The seqs Undo and Redo take back by default under `resolution` (`Undo.undo_default`,
        `Undo.redo_default`); None where there is none. What a page offers, so that no page
        keeps its own copy of the rule."""
        undo = resolution.undo_default(self._newest_first())
        redo = resolution.redo_default(self._newest_first())
        return (None if undo is None else undo.seq, None if redo is None else redo.seq)

    def newest_live(self) -> str:
        """The name of the newest event still in effect that an undo can take back."""
        newest = self.undo_resolution().newest_live(self._newest_first())
        if newest is None:
            raise UsageError(f"nothing to undo in fight `{self.id}`")
        return newest

    # --- writing ---------------------------------------------------------------------------

    def append(
        self, events: Sequence[Event], expected_version: int | None = None, *, report: bool = True
    ) -> Appended:
        """Validate and append a batch atomically; raise on anything refused (nothing written).

        Without `report`, the result holds no changes: an import of a million events that only
        counts them need not keep a million explanations."""
        _refuse_unprintable(events)
        for attempt in range(RETRIES):
            if attempt:
                _back_off(attempt)
            with self.store.writing(self.id):  # PostgreSQL: in turn, not in a race
                version = self.version
                fresh, skipped = self._fresh(list(enumerate(events)), version)
                if not fresh:
                    return Appended(version, [], skipped)
                if expected_version is not None and expected_version != version:
                    raise ConflictError(
                        f"the fight is at version {version}, not {expected_version}",
                        current_version=version,
                    )
                changes, state, folded = self._validate(fresh, version, report)
                try:
                    new_version = self.store.append(self.id, [e for _, e in fresh], version)
                except ConflictError:
                    if expected_version is not None:
                        raise
                    continue  # another writer got in first: revalidate against its events
                if self._carry:  # written: the next batch goes on from this one's fold
                    self._carried = folded.written(new_version)
            # committed: from here on nothing may turn the append into an error
            if self.cache is not None:
                self.cache.put(self.store, self.id, new_version, state)
            if new_version // snapshots.SNAPSHOT_EVERY > version // snapshots.SNAPSHOT_EVERY:
                self._save_snapshot(new_version, state)
            return Appended(new_version, changes, skipped)
        raise ConflictError(
            f"gave up after {RETRIES} tries: the fight kept changing", current_version=self.version
        )

    def refuse(self, items: Sequence[Event | RefusedError]) -> NoReturn:
        """Refuse a batch some of whose items could not be read (each given as its error),
        naming every refused item: those errors and the rule errors of the other events, each
        checked at its own position as `append` would check it. Nothing is written."""
        version = self.version
        events = [(i, item) for i, item in enumerate(items) if not isinstance(item, RefusedError)]
        kept = {index for index, _ in self._fresh(events, version)[0]}
        checked = [
            (i, item) for i, item in enumerate(items) if isinstance(item, RefusedError) or i in kept
        ]
        errors, _, _ = self._fold_batch(checked, version)
        if not errors:
            raise ValueError("refuse() is for a batch with an unreadable item; append the rest")
        _raise_all(errors)

    def undo(
        self,
        event: str | None = None,
        reason: str = "",
        by: str | None = None,
        *,
        undo_id: str | None = None,
    ) -> Appended:
        """Retract `event` (default: the newest live one); the changes carry its consequences.

        With `undo_id` the retract carries that id, so a retried undo undoes once: when that
        retract is already in the fight, nothing more is done (not even the newest live event,
        which is now another, is retracted); when the id is another event's, or a retract of
        another event, it is a conflict, as for any event."""
        # the ids asked for are checked before the store is asked about one (PostgreSQL cannot
        # hold a NUL): the retract as asked, its target yet unknown standing in as `#1`
        _refuse_bad_ids(Retract(id=undo_id, event=event or "#1", reason=reason, by=by))
        if event is None and undo_id is not None:
            # a retry of "the newest live": its target is the one the first try took (if the
            # id is another event's, the retract below differs from it: a conflict)
            kept = self.store.lookup(self.id, [undo_id]).get(undo_id)
            if kept is not None and isinstance(kept.event, Retract):
                event = kept.event.event
        target = event if event is not None else self.newest_live()
        retract = Retract(id=undo_id, event=target, reason=reason, by=by)
        _refuse_bad_ids(retract)
        # an undo id already in the fight: the same retract is skipped, another event is 409
        return self.append([retract])

    def amend(
        self, event: str, replacement: GameEvent, reason: str = "", by: str | None = None
    ) -> Appended:
        return self.append([Amend(event=event, replacement=replacement, reason=reason, by=by)])

    # --- the parts -------------------------------------------------------------------------

    def _end(self, at: int | None) -> int:
        version = self.version
        if version == 0:
            raise FightNotFound(f"no fight `{self.id}`")
        if at is None:
            return version
        if not 1 <= at <= version:
            raise UsageError(f"--at {at}: fight `{self.id}` has events 1 to {version}")
        return at

    def _fresh(
        self, events: Sequence[tuple[int, Event]], version: int
    ) -> tuple[list[tuple[int, Event]], list[str]]:
        """The events of a batch, given with their batch index, that are not yet in the fight,
        and the ids of those that are. The same id with other content is a conflict."""
        ids = [e.id for _, e in events if e.id is not None]
        existing = self.store.lookup(self.id, ids) if ids else {}
        seen: dict[str, bytes] = {i: canonical(s.event) for i, s in existing.items()}
        fresh: list[tuple[int, Event]] = []
        skipped: list[str] = []
        for index, event in events:
            if event.id is None:
                fresh.append((index, event))
                continue
            content = canonical(event)
            known = seen.get(event.id)
            if known is None:
                seen[event.id] = content
                fresh.append((index, event))
            elif known == content:
                skipped.append(event.id)
            else:
                raise ConflictError(
                    f"id `{event.id}` is already used by another event",
                    current_version=version,
                    event=event.id,
                    index=index,
                    field="$.id",
                )
        return fresh, skipped

    def _save_snapshot(self, seq: int, state: FightState[Any]) -> None:
        """Keep a snapshot if it can be kept: it is an optimisation, never worth an error."""
        try:
            self.store.save_snapshot(self.id, seq, snapshots.encode(state))
        except Exception as exc:  # any failure here must not fail the append
            import logging  # here, not at the top: nothing else a command runs needs logging

            logging.getLogger(__name__).warning(
                "snapshot of fight `%s` at seq %d skipped (%s: %s); the events are written, "
                "and reads fold from an earlier snapshot or the start",
                self.id,
                seq,
                type(exc).__name__,
                exc,
            )

    def _validate(
        self, fresh: list[tuple[int, Event]], version: int, report: bool = True
    ) -> tuple[list[Changes], FightState[Any], BatchFold]:
        """Fold the new events onto the fight as it stands, strictly; raise every refusal."""
        changes: list[Changes] = []
        errors, state, folded = self._fold_batch(fresh, version, changes if report else None)
        if errors:
            _raise_all(errors)
        assert state is not None
        return changes, state, folded

    def _fold_batch(
        self,
        items: Sequence[tuple[int, Event | RefusedError]],
        version: int,
        changes: list[Changes] | None = None,
    ) -> tuple[list[RefusedError], FightState[Any] | None, BatchFold]:
        """Fold (batch index, event) items onto the fight at `version`, strictly: every
        refusal, the state after, and the batch as folded. An item that is an error (an
        unreadable event) is refused in its place; later events are checked as if each refused
        one were void."""
        self._prefetch(e.event for _, e in items if isinstance(e, Retract | Amend))
        base = self.state() if version else None
        # the batch before's fold, if it was written right before this one (else it is let go:
        # a batch that is refused must not hand on what it kept)
        carried, self._carried = self._carried, None
        if carried is None or carried.stored != version:
            carried = BatchFold(base, version, self.undo_resolution() if version else Undo())
        batch_fold = carried
        timeline = Timeline(
            base,
            batch_fold.undo,  # resolved in place by the batch's undo events, carried with it
            lambda undo, upto: self._refold(undo, upto, batch_fold),
            lambda name: self._find(name, batch_fold),
        )
        errors: list[RefusedError] = []
        for seq, (index, item) in enumerate(items, start=version + 1):
            try:
                if isinstance(item, RefusedError):
                    raise item
                _check_structure(item)
                if timeline.state is not None:
                    refuse_strangers_dice(timeline.state, item)
                stored = Stored(seq, item)  # one per event: the batch keeps it (issue 28)
                if changes is None:
                    timeline.push_unreported(stored)
                else:
                    changes.append(timeline.push(stored, strict=True))
            except RefusedError as exc:
                where = f"#{seq}" if isinstance(item, RefusedError) else event_ref(item, seq)
                errors.append(exc.located(event=where, index=index))
                timeline.pass_over(seq)
                batch_fold.refused()
                continue
            batch_fold.add(stored, timeline.state)
        return errors, timeline.state, batch_fold

    def _refold(
        self,
        undo: Undo,
        upto: int,
        batch_fold: BatchFold | None = None,
        held: tuple[int, FightState[Any]] | None = None,
    ) -> FightState[Any]:
        """The state at `upto` under `undo`, from the newest snapshot that still holds, or
        from `held` (a seq and the state at it under `undo`) when it is as new.

        With `batch_fold` (the batch being validated), from the newest state it keeps that still
        holds: an undo of an event of the batch refolds part of the batch, not the fight."""
        if batch_fold is not None:
            self._forget_reached(undo, batch_fold)
            folded = batch_fold.start(upto)
            if folded is not None:
                # the events after it: of the batches written before (streamed.py), then held
                written = min(upto, batch_fold.stored)
                after = chain(
                    self.events(folded.seq + 1, written) if folded.seq < written else (),
                    batch_fold.held(max(folded.seq, written), upto),
                )
                while chunk := list(islice(after, KEEP_EVERY)):  # keeping states on the way
                    folded = fold_state(chunk, undo, state=folded) or folded
                    batch_fold.keep(folded)
                return folded
        batch: Sequence[Stored[Event]] = batch_fold.events if batch_fold is not None else ()
        targets = self._undo_targets(undo, batch_fold)
        stored_upto = min(upto, self.version)
        start: FightState[Any] | None = None
        first = 1
        snap = snapshots.newest_that_holds(
            lambda limit: self.store.snapshot(self.id, limit), stored_upto, targets
        )
        if held is not None and (snap is None or held[0] >= snap[0]):
            start, first = held[1], held[0] + 1
        elif snap is not None:
            start = snapshots.decode(snap[1])  # None: folded by other rules, so start over
            first = 1 if start is None else snap[0] + 1
        stream: Iterable[Stored[Event]] = (
            self.events(first, stored_upto) if first <= stored_upto else ()
        )
        stream = chain(stream, takewhile(lambda p: p.seq <= upto, batch))  # in seq order
        state = fold_state(stream, undo, state=start)
        if state is None:  # deleted since it was opened: a stream reads on, a request races it
            raise FightNotFound(f"no fight `{self.id}`")
        return state

    def _forget_reached(self, undo: Undo, batch_fold: BatchFold) -> None:
        """Tell `batch_fold` how far back the undo events it has not heard of yet reach."""
        fresh = []
        for stored in reversed(undo.events):
            if stored.seq <= batch_fold.reached_upto:
                break
            fresh.append(stored)
        for stored in reversed(fresh):  # oldest first: a later one may name an earlier one
            target = self._find(stored.event.event, batch_fold)
            batch_fold.forget_from(batch_fold.reach(stored.seq, target))
            batch_fold.reached_upto = stored.seq

    def _undo_targets(
        self, undo: Undo, batch_fold: BatchFold | None = None
    ) -> list[tuple[int, int | None]]:
        self._prefetch((s.event.event for s in undo.events), batch_fold)
        pairs = []
        for stored in undo.events:
            target = self._find(stored.event.event, batch_fold)
            pairs.append((stored.seq, target.seq if target else None))
        return pairs

    def _find(self, name: str, batch_fold: BatchFold | None = None) -> Target | None:
        if batch_fold is not None:
            found = batch_fold.find(name)
            if found is not None:
                return found
        if name not in self._targets:
            self._prefetch([name], batch_fold)
        return self._targets.get(name)

    def _prefetch(self, names: Iterable[str], batch_fold: BatchFold | None = None) -> None:
        """Look up, in one store call, the names not yet known (and not of `batch_fold`)."""
        missing = {
            name
            for name in names
            if name not in self._targets and (batch_fold is None or name not in batch_fold)
        }
        if missing:
            found = self.store.lookup(self.id, missing)
            self._targets.update((name, target_of(stored)) for name, stored in found.items())

    def _newest_first(self, version: int | None = None) -> Iterator[Stored[Event]]:
        """The log newest first, from event `version` (default: the newest)."""
        version = self.version if version is None else version
        step = 64
        while version > 0:
            chunk = list(self.events(max(1, version - step + 1), version))
            yield from reversed(chunk)
            version -= step


def _check_structure(event: Event) -> None:
    """Refuse an event that would not read back (a Struct built in Python skips the decoder's
    checks: a negative damage), so it is named with the batch's other refusals, not alone."""
    decode_json(encode_json(event))


def _back_off(attempt: int) -> None:
    """After a lost race, wait a little, longer after each, at random (exponential backoff with
    full jitter): two writers that keep colliding in step would otherwise each revalidate and
    lose again, and one could lose RETRIES races in a row. Timing only: nothing folded reads it."""
    import random  # here: only a lost race waits, and a `woundlog hit` need not load it

    time.sleep(random.SystemRandom().uniform(0, min(BACK_OFF_CAP_S, BACK_OFF_S * 2**attempt)))


BACK_OFF_S = 0.001
BACK_OFF_CAP_S = 0.05


def _refuse_unprintable(events: Sequence[Event]) -> None:
    """Refuse the events whose ids or names hold control or invisible characters:
    checked on every write, before the store is asked about their ids (PostgreSQL cannot hold
    a NUL), so no store answers them differently."""
    errors: list[RefusedError] = []
    for index, event in enumerate(events):
        bad = unprintable(event)
        if bad is not None:
            name = event.id if event.id is None or event.id.isprintable() else None
            errors.append(StructuralError(bad[1], event=name, field=bad[0], index=index))
    if errors:
        _raise_all(errors)


def _refuse_bad_ids(event: Event) -> None:
    """Refuse an event built from what a caller asked (an undo's id and target) whose ids break
    their patterns or hold control or invisible characters, as decoding and `append` would."""
    bad = misnamed(event) or unprintable(event)
    if bad is not None:
        name = event.id if event.id is None or event.id.isprintable() else None
        raise StructuralError(bad[1], event=name, field=bad[0])


def _raise_all(errors: list[RefusedError]) -> NoReturn:
    if len(errors) == 1:
        raise errors[0]
    raise BatchRefused(errors)
