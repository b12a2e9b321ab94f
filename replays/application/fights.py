"""The fights' use cases: start one, record its events, read it, list, delete and rename them.

    started(new: NewFight) -> FightStarted               a new fight's first event, seed chosen
    create(fight, started: FightStarted) -> Appended
    read(items: Sequence[object]) -> list[Event | RefusedError]
    record(fight, items, *, expected_version=None) -> Appended   hit, heal, tick, choice, ...
    record_json(fight, items, *, expected_version=None) -> Appended   events as JSON values
    record_named(fight, fields, *, expected_version=None) -> Appended   as a person names them
    import_log(fight, items) -> Appended                 a woundlog log stored as a new fight
    state(fight_or_file, at=None) -> FightState;  log(fight) -> Iterator[Changes]
    replay(file, *, at=None, strict=False, on_void=None) -> Iterator[(FightState, Changes)]
    events(fight, first=1, limit=None) -> EventsPage;  changes_from(fight, first, limit)
    summary(fight) -> FightSummary;  fights(offset=0, limit=None, *, only=None) -> FightsPage
    delete(fight) -> bool;  rename(old, new) -> int

A file is read by `state` and `replay` alone; the other use cases here take a stored fight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core import Changes, FightState
from woundlog.events import (
    WIRE_VERSION,
    Event,
    FightStarted,
    RefusedError,
    StructuralError,
    UsageError,
    convert,
    type_name,
)
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.stores import Store

from ..fight import Appended, Fight
from .base import FightOrFile, UseCases
from .names import strangers, with_ids
from .values import EventsPage, FightsPage, FightSummary, LastChange, NewFight

if TYPE_CHECKING:  # loaded with the use cases that read a file: `woundlog hit` reads none
    from ..files import Void


def append_read(
    opened: Fight,
    items: Sequence[Event | RefusedError],
    expected_version: int | None,
    *,
    report: bool = True,
) -> Appended:
    """Append the events of `items`, or refuse them all, naming each refused item."""
    if any(isinstance(item, RefusedError) for item in items):
        opened.refuse(items)
    events = [item for item in items if not isinstance(item, RefusedError)]
    return opened.append(events, expected_version=expected_version, report=report)


class OneFold:
    """A FoldCache of one state, for one call: what `record_named` folded to read the names."""

    def __init__(self, version: int, state: FightState[Any]) -> None:
        self.version, self.state = version, state

    def get(self, store: Store, fight: str, version: int) -> FightState[Any] | None:
        return self.state if version == self.version else None

    def put(self, store: Store, fight: str, version: int, state: FightState[Any]) -> None:
        pass  # kept for this call only


class FightCases(UseCases):
    """A fight's own use cases, from its start to its deletion."""

    # --- writing ---------------------------------------------------------------------------

    def started(self, new: NewFight) -> FightStarted:
        """The `fight_started` a new fight begins with. A seed nobody gave is chosen here and
        written into it, so every replay draws the same dice, and no two fights the same."""
        import secrets  # here: it loads base64 and hmac, which a hit needs none of

        seed = secrets.randbelow(2**31) if new.seed is None else new.seed
        fields = {
            "type": "fight_started",
            "ruleset": new.ruleset,
            "seed": seed,
            "options": new.options,
            "tables": new.tables,
            "name": new.name,
            "by": new.by,
            "note": new.note,
            "version": WIRE_VERSION,
        }
        started = convert({k: v for k, v in fields.items() if v is not None}, index=0)
        assert isinstance(started, FightStarted)
        return started

    def create(self, fight: str, started: FightStarted) -> Appended:
        """Start `fight` with `started` (from `started()`); a fight already there is refused."""
        check_fight_id(fight)
        made = Fight.create(self.store, fight, started)
        return Appended(made.version, list(made.history()))

    def read(self, items: Sequence[object]) -> list[Event | RefusedError]:
        """Events given as plain JSON values, each validated: its Event, or why it is refused."""
        self.check_batch_size(len(items))
        read: list[Event | RefusedError] = []
        for index, item in enumerate(items):
            try:
                read.append(convert(item, index=index))
            except StructuralError as error:
                read.append(error)
        return read

    def record(
        self,
        fight: str,
        items: Sequence[Event | RefusedError],
        *,
        expected_version: int | None = None,
    ) -> Appended:
        """Append events (a hit, a heal, a tick, a choice, a check, the end...) atomically.
        Every refused one is named, the unreadable ones (from `read`) and the rule errors of the
        rest, and nothing is written."""
        return append_read(self.fight(fight), items, expected_version)

    def record_json(
        self,
        fight: str,
        items: Sequence[object],
        *,
        expected_version: int | None = None,
    ) -> Appended:
        """Record events given as plain JSON values (a request's body): each is read, and every
        one refused is named, the unreadable ones and the rule errors of the rest together."""
        return self.record(fight, self.read(items), expected_version=expected_version)

    def record_named(
        self,
        fight: str,
        items: Sequence[Mapping[str, Any]],
        *,
        expected_version: int | None = None,
    ) -> Appended:
        """Record events given as a person writes them (the CLI, a session): their fields, a
        character named by id or by display name where that names one (`names.py`), each
        event recorded with the id. An attacker or healer who is no character of the fight is
        recorded, and warned of with the nearest. The first item that does not decode is
        refused, with its index."""
        opened = self.fight(fight)
        version = opened.version
        now = opened.state()
        events = [
            convert(with_ids(now.characters, item, f"#{version + at + 1}"), index=at)
            for at, item in enumerate(items)
        ]
        if opened.cache is None:  # the append folds from the state just folded, not again
            opened = Fight(self.store, fight, OneFold(version, now))
        appended = opened.append(events, expected_version=expected_version)
        warnings = [warning for event in events for warning in strangers(now.characters, event)]
        if not warnings:
            return appended
        return msgspec.structs.replace(appended, warnings=[*appended.warnings, *warnings])

    def import_log(self, fight: str, items: Iterable[Event | RefusedError]) -> Appended:
        """Store a whole woundlog log as the new fight `fight`, all of it or none: every refused
        item is named (the unreadable ones from `read` or a file, and the rule errors of the
        rest); a fight already there is a ConflictError. What each event did is not kept, and
        `items` is taken a batch at a time into one transaction (`streamed.py`), so a long log
        costs its count, not its length in memory (but in the JSON Lines store, which takes it
        as one batch)."""
        check_fight_id(fight)
        from ..streamed import append_streamed, streams  # with the use case: a hit needs none

        store = self.store
        if streams(store):
            return append_streamed(store, fight, items)
        return append_read(Fight(store, fight), list(items), 0, report=False)

    # --- reading ---------------------------------------------------------------------------

    def state(self, fight: FightOrFile, at: int | None = None) -> FightState[Any]:
        """Every character's state, now or as the fight (or the file) stood at event `at`."""
        if isinstance(fight, Path):
            return self._file_state(fight, at)
        opened = self.fight(fight)
        version = opened.version
        if at is not None and at > version:
            raise UsageError(f"at={at}: fight `{fight}` has events 1 to {version}")
        return opened.state(at)

    def log(self, fight: str) -> Iterator[Changes]:
        """What each event did, the fight as it stands (undone events marked)."""
        return self.fight(fight).history()

    def events(self, fight: str, first: int = 1, limit: int | None = None) -> EventsPage:
        """The events from seq `first`, at most `limit` (None: all), with their seq."""
        opened = self.fight(fight)
        version = opened.version
        first = max(first, 1)
        last = version if limit is None else min(version, first + limit - 1)
        events = list(opened.events(first, last)) if first <= last else []
        return EventsPage(version=version, events=events, next=last + 1 if last < version else None)

    def changes_from(self, fight: str, first: int, limit: int) -> list[Changes]:
        """Up to `limit` events' changes from seq `first`, as each was appended."""
        opened = self.fight(fight)
        last = min(opened.version, first + limit - 1)
        return list(opened.changes_from(first, last)) if first <= last else []

    def replay(
        self,
        file: Path,
        *,
        at: int | None = None,
        strict: bool = False,
        on_void: Callable[[Void], None] | None = None,
    ) -> Iterator[tuple[FightState[Any], Changes]]:
        """A fight log file replayed, no store involved: each event's state and changes as the
        fight stands (every undo in the file applied), up to event `at`. An event the rules
        refuse is void (`on_void` hears of it, with its line), or with `strict` an error."""
        from ..files import replay_file  # with the use case: a hit replays no file

        return replay_file(file, at=at, strict=strict, on_void=on_void)

    def replay_state(
        self,
        file: Path,
        *,
        at: int | None = None,
        strict: bool = False,
        on_void: Callable[[Void], None] | None = None,
    ) -> FightState[Any] | None:
        """The state `replay` ends in (None: the file holds no event), without working out
        each event's changes: a fold to the state alone is faster."""
        from ..files import replay_file_state

        return replay_file_state(file, at=at, strict=strict, on_void=on_void)

    def _file_state(self, file: Path, at: int | None) -> FightState[Any]:
        state = self.replay_state(file, at=at)
        if state is None:
            raise UsageError(f"{file} holds no events")
        if at is not None and state.seq < at:
            raise UsageError(f"at={at}: {file} has events 1 to {state.seq}")
        return state

    def summary(self, fight: str) -> FightSummary:
        """One fight as the lists show it: its ruleset, name, events and last change (its
        newest event: `LastChange`)."""
        store = self.store
        version = store.version(fight)
        first = next(iter(store.read(fight, 1, 1)), None)
        last = next(iter(store.read(fight, version, version)), None) if version else None
        started = first.event if first is not None else None
        return FightSummary(
            fight=fight,
            ruleset=started.ruleset if isinstance(started, FightStarted) else "?",
            name=started.name if isinstance(started, FightStarted) else "",
            events=version,
            last_change=None
            if last is None
            else LastChange(seq=last.seq, type=type_name(last.event), at=last.event.at),
        )

    def fights(
        self, offset: int = 0, limit: int | None = None, *, only: str | None = None
    ) -> FightsPage:
        """The fights, in the store's order, from `offset`, at most `limit` (None: all);
        `only`: that one fight alone, if it is there."""
        store = self.store
        names = store.fights() if only is None else [only] if store.version(only) else []
        page = names[offset:] if limit is None else names[offset : offset + limit]
        after = offset + len(page)
        return FightsPage(
            fights=[self.summary(name) for name in page],
            next=after if after < len(names) else None,
        )

    # --- managing ---------------------------------------------------------------------------

    def delete(self, fight: str) -> bool:
        """Delete the fight with what the service keeps for it (tokens, cursors, answers,
        tickets: one store transaction); False if it was not there."""
        check_fight_id(fight)
        return self.store.delete_fight(fight)

    def rename(self, old: str, new: str) -> int:
        """Give fight `old` the id `new`; what is kept for it goes along. Its event count."""
        self.fight(old)
        check_fight_id(new)
        return self.store.rename_fight(old, new)
