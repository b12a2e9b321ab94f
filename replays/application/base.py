"""What every group of use cases stands on: the store (the calling thread's), the fights in it,
and a fight log file read as a fight of its own.

`UseCases` is the base of every group (fights.py, undoing.py, reports.py, ...); `Application`
composes the groups into one object. A group that calls another group's use cases inherits
that group, so what each one needs is declared by its bases.

A use case that reads a fight takes a stored fight or a `.jsonl` file alike (`FightOrFile`): a
fight by its id (a `str`), a file by its path (a `Path`), which is read into a private
in-memory store of its own, with no rule checked on the way in (a file is replayed, so what
the rules refuse is void, as `woundlog replay` has it).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from woundlog.events import StructuralError
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.stores import Store

from ..fight import Fight, FoldCache
from .values import FightNotFound, TooLarge

FightOrFile = str | Path
"""A fight in the store, by its id, or a fight log file (`.jsonl`), by its path."""


class UseCases:
    """The store and its fights, for every group of use cases (`store_of` gives the calling
    thread's store; `cache` keeps folded states; `max_batch` bounds a batch of events)."""

    def __init__(
        self,
        store_of: Callable[[], Store],
        *,
        cache: FoldCache | None = None,
        max_batch: int | None = None,
    ) -> None:
        self._store_of = store_of
        self.cache = cache
        self.max_batch = max_batch

    @property
    def store(self) -> Store:
        return self._store_of()

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

    def check_batch_size(self, count: int) -> None:
        if self.max_batch is not None and count > self.max_batch:
            raise TooLarge(
                f"{count} events in one batch; at most {self.max_batch}: send them in batches"
            )
        if count == 0:
            raise StructuralError("an empty batch: send one event or a list of events")

    def reading(self, source: FightOrFile) -> AbstractContextManager[Fight]:
        """A context manager of the fight `source` names: a stored fight, or a file's events
        in a store of their own for as long as it is open (`files.file_fight`)."""
        if isinstance(source, Path):
            from ..files import file_fight  # with a file: a stored fight needs none of it

            return file_fight(source)
        return nullcontext(self.fight(source))

    @staticmethod
    def named(source: FightOrFile) -> str:
        """What a report or a picture calls `source`: a fight's id, a file's name less `.jsonl`."""
        return source.stem if isinstance(source, Path) else source


def no_store() -> Store:
    """The store of an application that reads files alone (`Application.without_store`)."""
    raise AssertionError("this application reads fight log files alone: it has no store")
