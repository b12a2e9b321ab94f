"""The store contract: one contract, every store, one shared test suite.

A store keeps the events of many fights, each an append-only sequence numbered from 1. It knows
nothing of rules: it refuses only what would corrupt a log (a reused id with other content, a
stale expected version) and writes a batch entirely or not at all.

Beside the fights it keeps the rows the CLI and the service keep for them (`side`: import cursors,
tokens, kept answers, stream tickets; side.py), which a deleted or renamed fight takes along, and
which a `transaction()` writes with the events where the store can (`transactional`). A caller
asks the store what it can do, never which class it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar, runtime_checkable

import msgspec

from ..codec import CAMPAIGN, FIGHT, Family
from ..model import CampaignEvent, Event, EventBase, Retract, UndoEvent
from .side import Side

E = TypeVar("E", bound=EventBase, covariant=True)
L = TypeVar("L", bound=EventBase)  # the events of one log: a fight's or a campaign's
U = TypeVar("U", bound=EventBase)  # its undo events


class Stored(msgspec.Struct, Generic[E], frozen=True):
    """An event as the store holds it: its 1-based position in its log, and the event, of the
    log's family: `Stored[Event]` from a fight's log, `Stored[CampaignEvent]` from a campaign's."""

    seq: int
    event: E


@runtime_checkable
class Store(Protocol):
    def append(
        self,
        fight: str,
        events: Sequence[Event] | Sequence[CampaignEvent],
        expected_version: int | None = None,
    ) -> int:
        """Append `events` atomically; return the fight's version (its number of events) after.
        `fight` may name a campaign's log (`campaign~NAME`, fight_ids.campaign_stream): its
        events are a campaign's, and each event must read back as one of the log's family.

        An event whose id is already in the fight (or earlier in the same batch) with the same
        content is skipped. The same id with other content raises ConflictError. If
        `expected_version` is given and is not the current version, ConflictError, unless every
        event of the batch was already there (a retry): then the current version is returned.
        Nothing of a refused batch is written.
        """
        ...

    def read(
        self, fight: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Stored[Event]]:
        """The events from `from_seq` to `to_seq` (inclusive), in order, streamed. A fight the
        store does not have reads as empty."""
        ...

    def fights(self) -> list[str]:
        """Every fight id in the store, in a stable order: creation order where the store
        knows it (SQLite), else by name (JSON Lines)."""
        ...

    def version(self, fight: str) -> int:
        """The number of events in the fight; 0 for a fight the store does not have."""
        ...

    def lookup(self, fight: str, refs: Iterable[str]) -> dict[str, Stored[Event]]:
        """The stored events named by `refs` (explicit ids or `#N`), keyed by the ref as given;
        unknown names are left out."""
        ...

    def undo_events(self, fight: str, to_seq: int | None = None) -> list[Stored[UndoEvent]]:
        """The `retract` and `amend` events up to `to_seq`, in order (few, so a list)."""
        ...

    # A campaign's log (`campaign~NAME`: fight_ids.campaign_stream) is kept as a fight's is,
    # and holds the other family of events (events/campaign.py): `append`, `version`,
    # `delete_fight` and `rename_fight` take either kind of log; these are `read`, `lookup` and
    # `undo_events` for a campaign's.

    def campaign_read(
        self, campaign: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Stored[CampaignEvent]]:
        """`read`, of the campaign's log."""
        ...

    def campaign_lookup(
        self, campaign: str, refs: Iterable[str]
    ) -> dict[str, Stored[CampaignEvent]]:
        """`lookup`, in the campaign's log."""
        ...

    def campaign_undo_events(
        self, campaign: str, to_seq: int | None = None
    ) -> list[Stored[Retract]]:
        """`undo_events` of the campaign's log (its `retract` events)."""
        ...

    def delete_fight(self, fight: str) -> bool:
        """Delete the fight: its events, its snapshots and its rows in the side tables (its
        tokens, cursors, kept answers, tickets) and every other companion table
        (`companions.py`), all in one transaction. True if the fight was there; False (and
        nothing else) if not."""
        ...

    def rename_fight(self, old: str, new: str) -> int:
        """Give fight `old` the id `new`, with its events, snapshots, side rows and companion
        rows, in one transaction; return its version. `new` must keep the rule of fight ids
        (BadFightId); UsageError if `old` is not there, ConflictError if `new` already is.
        Nothing of a refused rename is done."""
        ...

    def save_snapshot(self, fight: str, seq: int, data: bytes) -> None:
        """Keep an encoded state at `seq` (an optimisation: a store may ignore it)."""
        ...

    def snapshot(self, fight: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        """The newest snapshot at or before `at_most`, as (seq, data), or None."""
        ...

    # -- what is kept beside the fights (side.py) --------------------------------------------------

    @property
    def side(self) -> Side:
        """The tables kept beside the fights: import cursors, tokens, kept answers, stream
        tickets, each row a fight's. They survive a restart, and every process that opens the
        store sees them."""
        ...

    @property
    def transactional(self) -> bool:
        """Whether the events appended inside `transaction()` commit with it (or roll back with
        it): SQLite and PostgreSQL, where the side tables share the store's database. Where not
        (JSON Lines), each append commits by itself, and a transaction holds the side rows
        alone; a caller that needs both (a fight's first event and its tokens) writes the side
        rows first and the events last."""
        ...

    def transaction(self) -> AbstractContextManager[object]:
        """One write transaction: the side rows written inside it commit together, with the
        events appended inside it where the store is `transactional`. Each write inside is a
        savepoint of it, undone alone if it fails."""
        ...

    def import_lock(self, fight: str, fmt: str) -> AbstractContextManager[object]:
        """Held by an import of `fight` in format `fmt` while it reads its cursor, appends and
        keeps the new cursor: one such import at a time across the processes that write to the
        store at once, and, where the store is `transactional`, one transaction in which the
        cursor commits with the events (so nothing cached of what is folded inside may outlive
        it). A store one process owns (JSON Lines) holds nothing: that process keeps its own
        imports apart."""
        ...

    def writing(self, fight: str) -> AbstractContextManager[object]:
        """Held by an append to `fight` from reading its version to committing, where the store
        can make appends to one fight wait their turn across processes (PostgreSQL); elsewhere
        it holds nothing, and an append that lost a race is tried again."""
        ...

    @property
    def broken(self) -> bool:
        """Whether the store is of no more use and must be opened again (closed; on PostgreSQL
        the connection is opened again here when the server is back). Asked before each use by
        whoever keeps a store open across requests."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class HearingLost(Exception):
    """The connection that hears the appends other processes commit was lost: hear again."""


class ClosesOnExit:
    """Makes a store a context manager (`with open_store(url) as store:` closes it after), and
    gives the contract's answers of a store one process owns: no append waits for another
    process (`writing`), and a store is broken only once closed. Its reads of a fight's log and
    of a campaign's are one read each, told which family of events the log holds."""

    def _read(
        self, stream: str, from_seq: int, to_seq: int | None, family: Family[L, Any]
    ) -> Iterator[Stored[L]]:
        raise NotImplementedError

    def _lookup(
        self, stream: str, refs: Iterable[str], family: Family[L, Any]
    ) -> dict[str, Stored[L]]:
        raise NotImplementedError

    def _undo_events(
        self, stream: str, to_seq: int | None, family: Family[Any, U]
    ) -> list[Stored[U]]:
        raise NotImplementedError

    def read(
        self, fight: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Stored[Event]]:
        return self._read(fight, from_seq, to_seq, FIGHT)

    def campaign_read(
        self, campaign: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Stored[CampaignEvent]]:
        return self._read(campaign, from_seq, to_seq, CAMPAIGN)

    def lookup(self, fight: str, refs: Iterable[str]) -> dict[str, Stored[Event]]:
        return self._lookup(fight, refs, FIGHT)

    def campaign_lookup(
        self, campaign: str, refs: Iterable[str]
    ) -> dict[str, Stored[CampaignEvent]]:
        return self._lookup(campaign, refs, CAMPAIGN)

    def undo_events(self, fight: str, to_seq: int | None = None) -> list[Stored[UndoEvent]]:
        return self._undo_events(fight, to_seq, FIGHT)

    def campaign_undo_events(
        self, campaign: str, to_seq: int | None = None
    ) -> list[Stored[Retract]]:
        return self._undo_events(campaign, to_seq, CAMPAIGN)

    _closed = False

    def writing(self, fight: str) -> AbstractContextManager[object]:
        return nullcontext()

    @property
    def broken(self) -> bool:
        return self._closed

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
