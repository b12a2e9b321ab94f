"""A long log appended in batches inside one transaction: all of it or none, in bounded memory.

Checked as one batch, a log is held whole until it commits: a million events are a million
decoded events, with their places in the batch. Appended here, it is read, checked and written
`BATCH` events at a time, each batch an ordinary append onto the fight as the ones before it left
it, all inside one transaction of the store, which commits at the end or not at all. What the
fold of a batch needs from the earlier ones (an undo event naming one of their events, the past
refolded under it) the store reads back from the transaction; the state a batch ends with is the
only one kept for the next (`Newest`), and the snapshots the appends keep on the way are written
in the transaction too, so a refold starts at most SNAPSHOT_EVERY events back.

A refusal is named as one batch would name it: the batch it is in and all the rest are checked
as one batch at their own positions (every refused item named, the later events checked as if
each refused one were void), the transaction is rolled back, and the errors give each item's
place in the whole log. Only a refused log is held from its first refusal on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, Literal, TypeGuard, overload

from woundlog.core import FightState
from woundlog.events import BatchRefused, Event, RefusedError, WoundlogError
from woundlog.events.stores import Store

from .fight import Appended, Fight

BATCH = 1000
"""Events read, checked and written at a time: what an import holds of its log, but for the
fight's state and, once something is refused, the rest of the log."""


def streams(store: Store) -> bool:
    """Whether `store` can take a log in batches inside one transaction (`Store.transactional`:
    the JSON Lines store, one file a fight, cannot: it takes the log as one batch)."""
    return store.transactional


class Newest:
    """A FoldCache of one state, the newest put: each batch folds onto where the one before it
    ended, and no other state is kept."""

    def __init__(self) -> None:
        self.version = 0
        self.state: FightState[Any] | None = None

    def get(self, store: Store, fight: str, version: int) -> FightState[Any] | None:
        return self.state if version == self.version else None

    def put(self, store: Store, fight: str, version: int, state: FightState[Any]) -> None:
        self.version, self.state = version, state


def append_streamed(
    store: Store, fight: str, items: Iterable[Event | RefusedError], *, size: int | None = None
) -> Appended:
    """Append the events of `items` to `fight` (new, or holding all of them already: a retry),
    `size` (default BATCH) at a time in one transaction of `store` (`streams(store)`): all of
    them, or none and every refused item named, each by its place in `items`. Nothing of what
    each event did is kept: the result holds the version and the ids already there."""
    assert streams(store), store
    size = size or BATCH
    with store.transaction():
        opened = Fight(store, fight, Newest(), carry=True)
        before = version = opened.version
        skipped: list[str] = []
        rest = iter(items)
        start = 0
        while batch := list(islice(rest, size)):
            # a fight that was there takes no new event: a conflict, as for one batch
            expected = version if before == 0 else 0
            try:
                appended = _append(opened, batch, expected)
            except WoundlogError as error:
                raise _placed(error, start) from None
            if appended is None:  # refused: checked with the rest, at their own positions
                whole = [*batch, *rest]
                try:
                    appended = _append(opened, whole, expected, naming=True)
                except WoundlogError as error:
                    raise _placed(error, start) from None
            version = appended.version
            skipped += appended.skipped
            start += len(batch)
        return Appended(version, [], skipped)


@overload
def _append(
    opened: Fight, items: Sequence[Event | RefusedError], expected: int, *, naming: Literal[True]
) -> Appended: ...
@overload
def _append(
    opened: Fight, items: Sequence[Event | RefusedError], expected: int, *, naming: bool = False
) -> Appended | None: ...
def _append(
    opened: Fight, items: Sequence[Event | RefusedError], expected: int, *, naming: bool = False
) -> Appended | None:
    """Append `items` as one batch; None if something in it is refused, unless `naming`, when
    every refusal is raised, as `Fight.append` and `Fight.refuse` name them."""
    if not _all_read(items):
        if naming:
            opened.refuse(items)
        return None
    try:
        return opened.append(items, expected_version=expected, report=False)
    except RefusedError:
        if naming:
            raise
        return None


def _all_read(items: Sequence[Event | RefusedError]) -> TypeGuard[Sequence[Event]]:
    """Whether every item was read as an event (none is the error that refused it)."""
    return not any(isinstance(item, RefusedError) for item in items)


def _placed(error: WoundlogError, start: int) -> WoundlogError:
    """`error`, each refusal in it placed in the whole log: its index in a batch that begins
    at item `start`."""
    each: list[WoundlogError] = list(error.errors) if isinstance(error, BatchRefused) else [error]
    for refused in each:
        if refused.index is not None:
            refused.index += start
    # a batch's message is made from its errors' when it is built: build it again
    return BatchRefused(error.errors) if isinstance(error, BatchRefused) else error
