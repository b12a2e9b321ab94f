"""Importing another program's records (Foundry VTT, Improved Initiative, Avrae) into a fight,
and recording that fight in a campaign when one is named.

    import_records(fight, fmt, records, *, ruleset=None, seed=None, create=False,
                   campaign=None) -> Appended

A woundlog log of its own is stored by `import_log` (fights.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core.importing import convert_records  # with the ruleset's ImportRules
from woundlog.events import Event, UsageError
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.importers import DEFAULT_RULESET, IMPORTERS
from woundlog.events.stores import Store

from ..fight import Appended, Fight
from .campaigns import CampaignCases
from .values import NewFight, UnknownFormat

if TYPE_CHECKING:
    from woundlog.events.stores.side import ImportCursors

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


def cursor_not_kept(fight: str, fmt: str, error: Exception) -> str:
    return f"the events are in, but where this import stopped was not kept: {error}"


class ImportCases(CampaignCases):
    """Another program's records, converted by its importer; `cursors` holds one import of a
    fight and format at a time, `cursor_lost` hears of a cursor not kept."""

    def __init__(
        self,
        store_of: Callable[[], Store],
        *,
        cursors: Cursors = cursors_of_store,
        cursor_lost: CursorLost = cursor_not_kept,
        **options: Any,
    ) -> None:
        super().__init__(store_of, **options)
        self._cursors = cursors
        self._cursor_lost = cursor_lost

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
