"""The application layer: every use case of woundlog, written once, for every front end.

`Application` is one object over a store, with one method per use case. It takes and returns
typed values (the Structs of `values.py`, the events, `Appended`, `Odds`), raises the
`WoundlogError` family of the contract, and knows nothing of typer, Litestar or terminals: the
CLI, the service and the pages call it, and add only what is theirs (wording and printing;
tokens, idempotency, streams and threads).

    Application(store_of, *, cache=None, cursors=None, cursor_lost=None, max_batch=None)
    Application.over(store) / Application.opened(url, *, create=True)   (a context manager)

    store -> Store                                       this thread's store
    fight(fight, *, cached=True) -> Fight                FightNotFound if it is not there
    exists(fight) -> bool;  version(fight) -> int
    started(new: NewFight) -> FightStarted               a new fight's first event, seed chosen
    create(fight, started: FightStarted) -> Appended
    read(items: Sequence[object]) -> list[Event | RefusedError]
    record(fight, items, *, expected_version=None) -> Appended   hit, heal, tick, choice, ...
    record_named(fight, fields, *, expected_version=None) -> Appended   as a person names them
    import_log(fight, items) -> Appended                 a woundlog log stored as a new fight,
                                                         its items taken a batch at a time
    undo(fight, event=None, *, reason="", by=None, undo_id=None) -> Appended
    amend(fight, event, replacement, *, reason="", by=None) -> Appended
    import_records(fight, fmt, records, *, ruleset=None, seed=None, create=False,
                   campaign=None) -> Appended             recorded in `campaign` when named
    branch_log(fight, *, at=None, then=()) -> list[Event];  branch(fight, new, ...) -> Appended
    whatif(state, events=(), *, hits=(), ticks=0) -> list[Event]
    odds(state, whatif, *, characters=(), samples=None, budget=None) -> Odds
    state(fight, at=None) -> FightState;  log(fight) -> Iterator[Changes]
    events(fight, first=1, limit=None) -> EventsPage
    changes_from(fight, first, limit) -> list[Changes]
    timeline(fight, first=1, limit=TIMELINE_MAX) -> TimelinePage
    report(fight) -> Report                              numbers, luck and chronicle (report/)
    summary(fight) -> FightSummary;  fights(offset=0, limit=None, *, only=None) -> FightsPage
    delete(fight) -> bool;  rename(old, new) -> int
    share(fight, keeper, *, base, gm=False, name=None) -> Shared   links with new tokens
    hand_out(fight, keeper, role, name, by) -> Issued;  tokens_of(fight, keeper) -> list[TokenInfo]
    revoke_token(fight, keeper, name, by) -> Role
    kept_tokens() -> context manager of a TokenKeeper   the store's side tables (tokens.py)
    campaign_new / campaign_join / campaign_record / campaign_rest / campaign_treat /
    campaign_time / campaign_retire / campaign_died / campaign_undo / campaign_show /
    campaign_history / campaign_consequences / campaign_report / join_from_campaign
                                                                      (campaigns.py)

A new use case is one method here; a front end then calls it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core import Changes, FightState
from woundlog.core.importing import convert_records  # with the ruleset's ImportRules
from woundlog.events import (
    WIRE_VERSION,
    Event,
    FightStarted,
    GameEvent,
    RefusedError,
    StructuralError,
    UsageError,
    convert,
    type_name,
)
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.importers import DEFAULT_RULESET, IMPORTERS
from woundlog.events.stores import Store, Stored, open_store

from ..fight import Appended, Fight, FoldCache
from .campaigns import Campaigns
from .names import asked_about, in_whatif, strangers, with_ids
from .sharing import (
    DEFAULT_BASE,
    Issued,
    Role,
    Shared,
    TokenInfo,
    TokenKeeper,
    base_url,
    check_name,
    may_manage,
    shared,
)
from .values import (
    EventsPage,
    FightId,
    FightNotFound,
    FightsPage,
    FightSummary,
    LastChange,
    Moment,
    NewFight,
    NothingAsked,
    OptionValue,
    TimelinePage,
    TooLarge,
    UnknownFormat,
)

if TYPE_CHECKING:  # loaded by the use cases that need them: `woundlog hit` needs none of them
    from woundlog.core.odds import Budget
    from woundlog.events.stores.side import ImportCursors

    from ..report import Report
    from ..whatif import Odds

__all__ = [
    "TIMELINE_MAX",
    "Application",
    "EventsPage",
    "FightId",
    "FightNotFound",
    "FightSummary",
    "FightsPage",
    "LastChange",
    "Moment",
    "NewFight",
    "NothingAsked",
    "OptionValue",
    "TimelinePage",
    "TooLarge",
    "UnknownFormat",
]

TIMELINE_MAX = 1000
"""The most events one timeline window holds (each with its changes: a few KiB)."""

Cursors = Callable[[Store, str, str], AbstractContextManager["ImportCursors"]]
"""Holds one import of a fight and format at a time, and gives its cursors (the store's side
tables: `Store.side.cursors`)."""
CursorLost = Callable[[str, str, Exception], "str | None"]
"""Told that an import's events are committed but its cursor was not kept; its answer, if any,
is a warning of the import."""


@contextmanager
def cursors_of_store(store: Store, fight: str, fmt: str) -> Iterator[ImportCursors]:
    """For a front end that keeps no lock of its own (the CLI): the store's import lock (across
    processes on PostgreSQL; the cursor committed with the events where the store is
    transactional) and the cursors beside its fights."""
    with store.import_lock(fight, fmt):
        yield store.side.cursors


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


def cursor_not_kept(fight: str, fmt: str, error: Exception) -> str:
    return f"the events are in, but where this import stopped was not kept: {error}"


class Application(Campaigns):
    """Every use case over one store (`store_of` gives the calling thread's)."""

    def __init__(
        self,
        store_of: Callable[[], Store],
        *,
        cache: FoldCache | None = None,
        cursors: Cursors = cursors_of_store,
        cursor_lost: CursorLost = cursor_not_kept,
        max_batch: int | None = None,
    ) -> None:
        self._store_of = store_of
        self.cache = cache
        self._cursors = cursors
        self._cursor_lost = cursor_lost
        self.max_batch = max_batch

    @classmethod
    def over(cls, store: Store, **options: Any) -> Application:
        return cls(lambda: store, **options)

    @classmethod
    @contextmanager
    def opened(
        cls, url: str | None, *, create: bool = True, **options: Any
    ) -> Iterator[Application]:
        """The application over the store `url` names (None: the default), closed after. A use
        that only reads passes `create=False`: a store not there yet is an error, never made."""
        store = open_store(url, create=create)
        try:
            yield cls.over(store, **options)
        finally:
            store.close()

    @property
    def store(self) -> Store:
        return self._store_of()

    # --- the fights ------------------------------------------------------------------------

    def fight(self, fight: str, *, cached: bool = True) -> Fight:
        """The fight, its folded state kept in the cache unless not `cached` (an append inside a
        transaction that may yet roll back must not leave its state behind)."""
        check_fight_id(fight)
        store = self.store
        if store.version(fight) == 0:
            raise FightNotFound(f"no fight `{fight}`")
        return Fight(store, fight, self.cache if cached else None)

    def exists(self, fight: str) -> bool:
        check_fight_id(fight)
        return self.store.version(fight) > 0

    def version(self, fight: str) -> int:
        return self.fight(fight).version

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

    def undo(
        self,
        fight: str,
        event: str | None = None,
        *,
        reason: str = "",
        by: str | None = None,
        undo_id: str | None = None,
    ) -> Appended:
        """Retract `event` (default: the newest live event that is not itself a retract)."""
        return self.fight(fight).undo(event, reason=reason, by=by, undo_id=undo_id)

    def amend(
        self,
        fight: str,
        event: str,
        replacement: GameEvent,
        *,
        reason: str = "",
        by: str | None = None,
    ) -> Appended:
        """Replay `event` as `replacement`, in its place."""
        return self.fight(fight).amend(event, replacement, reason=reason, by=by)

    def check_batch_size(self, count: int) -> None:
        if self.max_batch is not None and count > self.max_batch:
            raise TooLarge(
                f"{count} events in one batch; at most {self.max_batch}: send them in batches"
            )
        if count == 0:
            raise StructuralError("an empty batch: send one event or a list of events")

    # --- importing -------------------------------------------------------------------------

    def import_records(
        self,
        fight: str,
        fmt: str,
        records: Sequence[object],
        *,
        ruleset: str | None = None,
        seed: int | None = None,
        create: bool = False,
        campaign: str | None = None,
    ) -> Appended:
        """Convert another program's records with its importer and append the events.

        With `create`, a fight not there yet is started (`ruleset`, default the importers' own,
        `seed`) in the same batch, so a refused record leaves no empty fight behind; else it is
        FightNotFound. A `ruleset` that is not the fight's is refused. An event the rules refuse
        is left out and named in the warnings, so the cursor moves on.

        One import at a time per fight and format (`cursors`): the importer's cursor
        (`previous`) is read, used and replaced in turn, in every process on PostgreSQL. Where
        the store is transactional (SQLite, PostgreSQL) it commits with the events; elsewhere it
        is saved after the append. If saving it fails, the events are still committed
        (`cursor_lost` is told), and the records' stable ids make a resend harmless.

        With `campaign`, the fight is then recorded in it once (`campaign_record_imported`), so
        a program's fights accumulate on one roster; a new fight plays the campaign's ruleset.
        """
        if campaign is not None:
            ruleset = self.campaign_ruleset_for(campaign, fight, ruleset)
        if fmt not in IMPORTERS:
            raise UnknownFormat(f"no import format `{fmt}` (known: {', '.join(IMPORTERS)})")
        if records or not create:  # a new fight may start with no records
            self.check_batch_size(len(records))
        check_fight_id(fight)
        store = self.store
        with self._cursors(store, fight, fmt) as cursors:
            started: list[Event] = []
            joined: list[str] = []
            previous = None
            if store.version(fight) or not create:
                # inside a transaction that may yet roll back: no cached state
                opened = self.fight(fight, cached=not store.transactional)
                now = opened.state()
                if ruleset is not None and ruleset != now.ruleset:
                    raise UsageError(
                        f"fight `{fight}` is played with `{now.ruleset}`, not `{ruleset}`"
                    )
                ruleset, joined = now.ruleset, list(now.characters)
                previous = cursors.get(fight, fmt)
                expected = None
            else:
                ruleset = ruleset or DEFAULT_RULESET
                options = IMPORTERS[fmt].fight_options(ruleset)  # no die the table did not roll
                new = NewFight(fight=fight, ruleset=ruleset, seed=seed, options=options)
                started.append(self.started(new))
                opened, expected = Fight(store, fight, None), 0
            converted = convert_records(
                fmt, records, ruleset=ruleset, joined=joined, previous=previous
            )
            warnings = list(converted.warnings)
            if converted.events or started:  # not limited again: a record makes a few events
                from woundlog.events.importers import append_importing

                appended, refusals = append_importing(
                    converted,
                    lambda events: opened.append(events, expected),
                    before=started,
                    known=lambda ids: store.lookup(fight, ids),
                )
                warnings += [refusal.said() for refusal in refusals]
            else:  # records that changed nothing (a snapshot like the last one)
                appended = Appended(opened.version, [])
            try:
                cursors.put(fight, fmt, converted.previous)
            except Exception as error:
                # The events are committed: that must not be answered as a failure. The next
                # import compares against an older cursor; the records' ids make it harmless.
                lost = self._cursor_lost(fight, fmt, error)
                if lost is not None:
                    warnings.append(lost)
        if campaign is not None:  # after the commit: the campaign folds the fight's log
            recorded, said = self.campaign_record_imported(campaign, fight)
            warnings += said
            if recorded:
                appended = msgspec.structs.replace(appended, recorded_in=campaign)
        if warnings:
            appended = msgspec.structs.replace(appended, warnings=warnings)
        return appended

    # --- what if ---------------------------------------------------------------------------

    def branch_log(
        self, fight: str, *, at: int | None = None, then: Sequence[Event] = ()
    ) -> list[Event]:
        """The log a branch of `fight` at event `at` (default: its end), then `then`, writes."""
        self.fight(fight)
        from ..branch import branch_events  # with the use case: a hit needs no branch

        return branch_events(self.store, fight, at=at, then=then)

    def branch(
        self, fight: str, new: str, *, at: int | None = None, then: Sequence[Event] = ()
    ) -> Appended:
        """The new fight `new`: `fight`'s log up to `at`, then `then` (`replays.branch`)."""
        self.fight(fight)
        from ..branch import branch as branch_fight

        return branch_fight(self.store, fight, new, at=at, then=then)

    def whatif(
        self,
        state: FightState[Any],
        events: Sequence[Event] = (),
        *,
        hits: Sequence[str] = (),
        ticks: int = 0,
    ) -> list[Event]:
        """A what-if's events: `events`, then each `hits` shorthand (TARGET:DAMAGE[:ATTACKER]),
        then `ticks` rounds of turns from `state`, a character named by id or display name
        (`names.py`). NothingAsked when that is nothing."""
        from ..whatif import hit_shorthand, rounds

        given = [*events, *(hit_shorthand(text) for text in hits)]
        named = [in_whatif(state.characters, event, at) for at, event in enumerate(given, 1)]
        whatif = [*named, *rounds(state, ticks)]
        if not whatif:
            raise NothingAsked("say what happens")
        return whatif

    def odds(
        self,
        state: FightState[Any],
        whatif: Sequence[Event],
        *,
        characters: Sequence[str] = (),
        samples: int | None = None,
        budget: Budget | None = None,
    ) -> Odds:
        """The chance of every outcome of `whatif` from `state`, exact or from `samples`
        replays, within `budget` (core.odds.TooLarge past it), for `characters` named by id or
        display name (default: everyone)."""
        self.check_batch_size(len(whatif))
        from ..whatif import odds as compute_odds

        asked = [asked_about(state.characters, given) for given in characters]
        return compute_odds(state, whatif, characters=asked, samples=samples, budget=budget)

    # --- reading ---------------------------------------------------------------------------

    def state(self, fight: str, at: int | None = None) -> FightState[Any]:
        """Every character's state, now or as the fight stood at event `at`."""
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

    def timeline(self, fight: str, first: int = 1, limit: int = TIMELINE_MAX) -> TimelinePage:
        """A window of the fight's history: events `first` on, at most `limit` (TIMELINE_MAX at
        most), each with its changes as it was appended (from the state before `first`: a
        snapshot and its tail, never the whole log) and, if a later undo took it back, what
        did."""
        opened = self.fight(fight)
        version = opened.version
        last = min(version, first + min(limit, TIMELINE_MAX) - 1)
        if first > last:
            return TimelinePage(version=version, moments=[])
        final = opened.undo_resolution(version)
        moments = []
        for (stored, _, undone), changes in zip(
            final.played(opened.events(first, last)), opened.changes_from(first, last), strict=True
        ):
            if undone is not None:
                changes = msgspec.structs.replace(changes, undone=undone)
            moments.append(Moment(seq=stored.seq, event=stored.event, changes=changes))
        return TimelinePage(
            version=version, moments=moments, next=last + 1 if last < version else None
        )

    def report(self, fight: str, *, most: int | None = None) -> Report:
        """The fight's report (`replays.report`): per character and side numbers from the
        fight as it stands, the luck of its dice, and its chronicle as it happened. A fight of
        more than `most` events is TooLarge (the service's bound: a report folds it twice)."""
        from ..report import build

        opened, stream, played = self.replayed(fight, most=most)
        history = zip(stream, opened.history(opened.version), strict=True)
        return build(fight, played, history)

    def replayed(
        self, fight: str, *, most: int | None = None
    ) -> tuple[Fight, list[Stored[Event]], Any]:
        """The fight opened, its stored events, and each as `fold.replayed` gives it beside
        its stored form: what a report reads. More than `most` events is TooLarge."""
        from ..fold import replayed

        opened = self.fight(fight)
        version = opened.version
        if most is not None and version > most:
            raise TooLarge(
                f"fight `{fight}` has {version:,} events; a report here takes at most {most:,}: "
                "run `woundlog report` where the store is"
            )
        stream = list(opened.events(1, version))
        steps = replayed(stream, opened.undo_resolution(version))
        return opened, stream, ((stored, *step) for stored, step in zip(stream, steps, strict=True))

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

    # --- sharing (issue 26) -----------------------------------------------------------------

    @contextmanager
    def kept_tokens(self) -> Iterator[TokenKeeper]:
        """The fights' tokens in the tables beside this store's fights (`Store.side`): the ones
        `woundlog serve` reads on every request, so a token handed out here works there at
        once. For a front end that holds the store itself (the CLI), so with no admin token;
        the service keeps its own, with its admin token (service/fights.py)."""
        from .tokens import Tokens  # with the use case: a hit needs none of it

        store = self.store
        store.side.check()  # a damaged file is exit 2 before a token is handed out
        yield Tokens(lambda: store)

    def share(
        self,
        fight: str,
        keeper: TokenKeeper,
        *,
        base: str = DEFAULT_BASE,
        gm: bool = False,
        name: str | None = None,
    ) -> Shared:
        """A new viewer token for the fight (`gm`: a gm token too, named `NAME-gm`), beside
        the tokens already out, and the links to its pages under `base` that open with them.

        Example: `share("yard", keeper, name="phones")` -> the table link
        `http://127.0.0.1:8000/fights/yard/table#viewer=...`, token named `phones`."""
        self.fight(fight)
        base = base_url(base)
        if name is not None:
            check_name(name)
            if gm:
                check_name(f"{name}-gm")
        viewer = keeper.add(fight, Role.VIEWER, name)
        also = keeper.add(fight, Role.GM, f"{name}-gm" if name else None) if gm else None
        return shared(base, fight, viewer, also)

    def hand_out(
        self, fight: str, keeper: TokenKeeper, role: Role, name: str | None, by: Role
    ) -> Issued:
        """One new `role` token named `name` (None: `ROLE-N`) beside the fight's others;
        `by`, the role asking: a gm hands out viewer tokens, the admin either."""
        self.fight(fight)
        may_manage(by, role, "issue")
        return keeper.add(fight, role, name)

    def tokens_of(self, fight: str, keeper: TokenKeeper) -> list[TokenInfo]:
        """The fight's tokens, oldest first: names, roles and times, never the tokens."""
        self.fight(fight)
        return keeper.named(fight)

    def revoke_token(self, fight: str, keeper: TokenKeeper, name: str, by: Role) -> Role:
        """Revoke the fight's token `name`, the others kept; its role. `by` as in `hand_out`."""
        self.fight(fight)
        role = keeper.role_of(fight, name)
        may_manage(by, role, "revoke")
        keeper.revoke_named(fight, name)
        return role
