"""Dice (DESIGN.md section 4): given rolls first, in order; otherwise drawn from the fight's seed.

A drawn die is a counter-based hash of (seed, event id, purpose, index), mapped to 1..sides by
rejection sampling. It depends on nothing but those four things, so undoing one event never
reshuffles another event's dice, and every process on every machine draws the same numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import msgspec

from woundlog.events import RuleError, StructuralError

_SPACE = 1 << 64


def draw(seed: int, event_id: str, purpose: str, index: int, sides: int) -> int:
    """The `index`-th (0-based) die of `purpose` for event `event_id`, uniform in 1..sides."""
    limit = _SPACE - _SPACE % sides  # values at or past the limit would favour low faces
    attempt = 0
    while True:
        key = f"{seed}\x1f{event_id}\x1f{purpose}\x1f{index}\x1f{attempt}".encode()
        value = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")
        if value < limit:
            return value % sides + 1
        attempt += 1


class DieRoll(msgspec.Struct, frozen=True):
    """One die the rules used: what for, how many sides, its value, and whether it was given."""

    purpose: str
    sides: int
    value: int
    source: str  # "given" or "drawn"


class Dice:
    """The dice of one event: hands out given rolls in order, then drawn ones; records each."""

    __slots__ = ("_event_id", "_given", "_next", "_seed", "_sides", "_strict", "used")

    def __init__(
        self,
        seed: int,
        event_id: str,
        given: Mapping[str, list[int]],
        sides: Mapping[str, int],
        *,
        strict: bool = False,
    ) -> None:
        self._seed = seed
        self._event_id = event_id
        self._given = given
        self._sides = sides
        self._strict = strict
        self._next: dict[str, int] = {}
        self.used: list[DieRoll] = []
        if given:
            self._check(given)

    def _check(self, given: Mapping[str, list[int]]) -> None:
        """A given die outside its range is refused; dice of a purpose the rules do not roll
        are kept."""
        for purpose, values in given.items():
            die = self._sides.get(purpose)
            if die is None:
                continue  # reported as unused: other software may roll dice we have no use for
            for i, value in enumerate(values):
                if not 1 <= value <= die:
                    raise StructuralError(
                        f"a d{die} shows 1 to {die}, not {value}",
                        event=self._event_id,
                        field=f"$.rolls.{purpose}[{i}]",
                    )

    def roll(self, purpose: str) -> int:
        """The next die of `purpose`: the next given one, else drawn from the seed."""
        sides = self._sides[purpose]
        index = self._next.get(purpose, 0)
        self._next[purpose] = index + 1
        given = self._given.get(purpose, ())
        if index < len(given):
            value, source = given[index], "given"
        elif self._strict:
            raise RuleError(
                f"the rules need die {index + 1} of `{purpose}` (d{sides}) and option "
                "strict_dice forbids drawing it: give it in `rolls`",
                event=self._event_id,
                field=f"$.rolls.{purpose}",
            )
        else:
            value, source = draw(self._seed, self._event_id, purpose, index, sides), "drawn"
        self.used.append(DieRoll(purpose, sides, value, source))
        return value

    def unused(self) -> dict[str, list[int]]:
        """Given rolls the rules never asked for: kept in the log, reported, not refused."""
        left: dict[str, list[int]] = {}
        for purpose, values in self._given.items():
            rest = values[self._next.get(purpose, 0) :]
            if rest:
                left[purpose] = list(rest)
        return left
