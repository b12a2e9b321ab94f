"""Dice tables as data, with the book's own ranges: `Table("D6", {(1, 2): ..., (3, 4): ...})`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

R = TypeVar("R")


class Table(Generic[R]):
    """A roll-to-result table. Its ranges are inclusive and must cover every face exactly once."""

    def __init__(
        self, die: str, rows: Mapping[tuple[int, int], R], faces: Iterable[int] | None = None
    ):
        self.die = die
        self.rows = dict(rows)
        self._by_roll: dict[int, R] = {}
        for (low, high), result in self.rows.items():
            for roll in range(low, high + 1):
                if roll in self._by_roll:
                    raise ValueError(f"{die} table: {roll} is in two rows")
                self._by_roll[roll] = result
        if faces is not None and set(faces) != set(self._by_roll):
            raise ValueError(f"{die} table does not cover {faces} exactly")

    def __getitem__(self, roll: int) -> R:
        return self._by_roll[roll]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.rows.items())
