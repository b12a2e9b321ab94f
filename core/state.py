"""State as plain, frozen data: a fight's characters and what the fight was set up with.

The JSON encoding of FightState is the state JSON the CLI (`--json`) and the API print:
`ruleset`, `seq` (the last event folded), and `characters` keyed by id in join order, each with
its `state` and the ruleset's counters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

import msgspec

from woundlog.events import FightStarted

from .states import State


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """What every ruleset tracks of a character; each ruleset subclasses it with its counters."""

    state: State
    name: str
    side: str
    kind: str
    stats: dict[str, int] = {}
    gear: dict[str, str] = {}


C = TypeVar("C", bound=Character)


class FightState(msgspec.Struct, Generic[C], frozen=True, kw_only=True, omit_defaults=True):
    """A fight as it stands. Only `version` has a default (the draw of logs that name none), so
    only it is left out of the encoding: state JSON of a version 1 log is what it always was."""

    ruleset: str
    seq: int
    characters: dict[str, C]
    name: str
    seed: int
    options: dict[str, bool | int | str]
    tables: dict[str, Any]
    ended: bool
    version: int = 1

    def character(self, character_id: str) -> C | None:
        return self.characters.get(character_id)

    def on_side(self, side: str) -> dict[str, C]:
        """Everyone on `side`, by id in join order. A fold's own `Roster` knows them without
        looking at anyone else, so a side's turn costs the size of the side."""
        characters = self.characters
        if isinstance(characters, Roster):
            return characters.on_side(side)
        return {cid: c for cid, c in characters.items() if c.side == side}

    def has_side(self, side: str) -> bool:
        """Whether anyone is on `side`."""
        characters = self.characters
        if isinstance(characters, Roster):
            return characters.has_side(side)
        return any(c.side == side for c in characters.values())


class Roster(dict[str, C]):
    """A character map that also keeps who is on each side: the working map of one fold
    (`reducer.Fold`), updated in place by it alone and handed to nobody else. Characters are
    only ever added or replaced (`update`, `put`), never removed, and keep the side they joined
    (no rule moves a character to another side)."""

    def __init__(self, characters: Mapping[str, C]) -> None:
        super().__init__()
        self._sides: dict[str, dict[str, C]] = {}
        self.update(characters)

    def side(self, side: str) -> list[str]:
        """The ids of everyone on `side`, in join order."""
        return list(self._sides.get(side, ()))

    def on_side(self, side: str) -> dict[str, C]:
        """Everyone on `side`, by id in join order: a copy, made in C."""
        members = self._sides.get(side)
        return {} if members is None else members.copy()

    def has_side(self, side: str) -> bool:
        return side in self._sides

    def put(self, cid: str, character: C) -> None:
        """Replace one character who has joined already (on the side he joined)."""
        self._sides[self[cid].side][cid] = character
        self[cid] = character

    def update(self, characters: Mapping[str, C], /) -> None:  # type: ignore[override]
        sides = self._sides
        for cid, character in characters.items():
            members = sides.get(character.side)
            if members is None:
                members = sides[character.side] = {}
            members[cid] = character
        super().update(characters)


def setup_of(event: FightStarted, options: dict[str, bool | int | str]) -> FightState[Any]:
    """The empty fight a `fight_started` event sets up (options already checked and completed)."""
    return FightState(
        ruleset=event.ruleset,
        seq=1,
        characters={},
        name=event.name,
        seed=event.seed,
        options=options,
        tables=event.tables,
        ended=False,
        version=event.version,
    )
