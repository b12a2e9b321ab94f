"""State as plain, frozen data: a fight's characters and what the fight was set up with.

The JSON encoding of FightState is the state JSON the CLI (`--json`) and the API print:
`ruleset`, `seq` (the last event folded), and `characters` keyed by id in join order, each with
its `state` and the ruleset's counters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, Generic, TypeVar

import msgspec

from woundlog.events import FightStarted

from .initiative import Turn
from .states import State
from .turns import Rounds


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
    """A fight as it stands. Only `version` (the draw of logs that name none), `rounds` and
    `turn` have defaults, left out of the encoding: state JSON of a version 1 log is what it
    always was until its first tick, from which `rounds` says which round the ticks are in and
    whose turns have started and ended in it (`core.turns`); and from its first character on,
    `turn` says the round, the turn order and whose turn it is (`core.initiative`)."""

    ruleset: str
    seq: int
    characters: dict[str, C]
    name: str
    seed: int
    options: dict[str, bool | int | str]
    tables: dict[str, Any]
    ended: bool
    version: int = 1
    rounds: Rounds = Rounds()
    turn: Turn = msgspec.field(default_factory=Turn)  # a default Turn holds a dict: no hash

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


class TickConcern(msgspec.Struct, frozen=True):
    """Whom one kind of tick (`turn_started`, `turn_ended`) can do anything to (move, change a
    counter of, roll a die for, name in its explanation): a character in one of `states`, or
    with one of `counters` set (not 0, empty or False). It may name more than the tick will
    touch, never fewer. It reads nothing else of him, so a fold's index of whom it concerns
    need look at him again only when his state or one of those counters changes."""

    states: frozenset[State] = frozenset()
    counters: tuple[str, ...] = ()

    def concerns(self, character: Character) -> bool:
        return character.state in self.states or any(
            getattr(character, counter) for counter in self.counters
        )


INDEX_FROM = 64
"""How many characters a fight holds before its fold indexes whom each tick concerns. Below it,
a side's tick walks at most this many: on a small fight cheaper than the index's upkeep, and
still a bound on what one event costs."""


class Roster(dict[str, C]):
    """A character map that also keeps who is on each side: the working map of one fold
    (`reducer.Fold`), updated in place by it alone and handed to nobody else. Characters are
    only ever added or replaced (`update`, `put`), never removed, and keep the side they joined
    (no rule moves a character to another side).

    Given the ruleset's `concerns` (`Ruleset.tick_concerns`), once the fight holds
    `index_from` characters it also keeps, per kind of tick, the ids of those a tick of that
    kind concerns (the knocked down and stunned of a recovery phase): so a tick visits them
    alone, not the whole side. A character is looked at again only when his state or a counter
    the concerns read changes (a harmless hit costs one comparison). Below `index_from` a tick
    walks its scope instead: among a few dozen characters that costs less than keeping the
    index up to date on every hit that fells one. `index_from=None`: never index (what the
    index is checked against); 0: always."""

    def __init__(
        self,
        characters: Mapping[str, C],
        concerns: Mapping[str, TickConcern] | None = None,
        *,
        index_from: int | None = INDEX_FROM,
    ) -> None:
        super().__init__()
        self._sides: dict[str, dict[str, C]] = {}
        # whether anyone is on a side: asked of every side's tick, so a call made in C
        self.has_side: Callable[[str], bool] = self._sides.__contains__
        # everyone on a side, the map itself, not a copy: `get` of the map of sides, in C
        self.side: Callable[..., Any] = self._sides.get
        self._all_concerns: Mapping[str, TickConcern] = concerns or {}
        self._index_from = index_from if concerns else None
        # set when the index starts (`_start_index`); until then nothing is indexed
        self._kinds: tuple[str, ...] = ()
        # whether this map keeps whom a tick of a kind concerns (from `index_from` on): asked
        # of every tick, so a call made in C (set again when the index starts)
        self.indexes: Callable[[str], bool] = frozenset[str]().__contains__
        self._concerns: tuple[TickConcern, ...] = ()
        # per kind of tick, the ids it concerns (a dict as an ordered set), whatever their side
        self._concerned: tuple[dict[str, None], ...] = ()
        # what the concerns read of a character, as one value, compared on every `put`
        self._read: Callable[[Any], Any] | None = None
        self.indexing = False
        """Whether it keeps the index (then a character is replaced through `put` alone; else
        his side's map and this one may be written straight, as `put` writes them)."""
        self._says: dict[Any, tuple[bool, ...]] = {}  # key -> per kind: whether it concerns
        self._joined: dict[str, int] = {}  # id -> place in join order, to hand ticks that order
        self.update(characters)

    def on_side(self, side: str) -> dict[str, C]:
        """Everyone on `side`, by id in join order: a copy, made in C."""
        members = self._sides.get(side)
        return {} if members is None else members.copy()

    def concerned(self, kind: str, side: str | None = None) -> dict[str, C]:
        """Those a tick of `kind` concerns, on `side` (None: on any side), by id in join order."""
        ids = self._concerned[self._kinds.index(kind)]
        if not ids:
            return {}
        chosen = list(ids) if side is None else [cid for cid in ids if self[cid].side == side]
        if len(chosen) > 1:  # one who left the index and came back is at its end: put in order
            chosen.sort(key=self._joined.__getitem__)
        return {cid: self[cid] for cid in chosen}

    def put(self, cid: str, character: C) -> None:
        """Replace one character who has joined already (on the side he joined)."""
        read = self._read
        if read is not None:
            key = read(character)
            if key != read(self[cid]):
                self._index(cid, character, key)
        self._sides[character.side][cid] = character
        self[cid] = character

    def update(self, characters: Mapping[str, C], /) -> None:  # type: ignore[override]
        sides = self._sides
        read = self._read
        for cid, character in characters.items():
            members = sides.get(character.side)
            if members is None:
                members = sides[character.side] = {}
            members[cid] = character
            if cid not in self._joined:
                self._joined[cid] = len(self._joined)
            if read is not None:
                self._index(cid, character, read(character))
        super().update(characters)
        if read is None and self._index_from is not None and len(self) >= self._index_from:
            self._start_index()

    def _start_index(self) -> None:
        """Index everyone: the fight has just reached `index_from` characters."""
        concerns = self._all_concerns
        self._kinds = tuple(concerns)
        self.indexes = frozenset(self._kinds).__contains__
        self._concerns = tuple(concerns.values())
        self._concerned = tuple({} for _ in concerns)
        read = dict.fromkeys(c for concern in self._concerns for c in concern.counters)
        self._read = attrgetter("state", *read)
        self.indexing = True
        for cid, character in self.items():
            self._index(cid, character, self._read(character))

    def _index(self, cid: str, character: C, key: Any) -> None:
        """Put him in, or take him out of, the index of each kind of tick. What the concerns
        say depends on nothing but `key` (his state and the counters they read): worked out
        once per key a fight reaches."""
        says = self._says.get(key)
        if says is None:
            if len(self._says) > _KEYS_KEPT:
                self._says.clear()
            says = self._says[key] = tuple(c.concerns(character) for c in self._concerns)
        for kind, concerned in enumerate(says):
            if concerned:
                self._concerned[kind][cid] = None
            else:
                self._concerned[kind].pop(cid, None)


_KEYS_KEPT = 4096
"""How many (state, counters) keys a Roster remembers the concerns' answer for: few in a real
fight (a handful of states, flags); a bound for a fight whose counters take many values."""


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
