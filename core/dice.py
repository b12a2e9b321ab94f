"""Dice, the same on every replay: given rolls first, in order; otherwise drawn from the seed.

A drawn die is a counter-based hash of (seed, event id, purpose, index), mapped to 1..sides by
rejection sampling. It depends on nothing but those things, so undoing one event never
reshuffles another event's dice, and every process on every machine draws the same numbers.

A die rolled *for one character* in an event that concerns several (a turn's Downed rolls) is
that character's: given as `purpose@character`, and, from draw version 2 on, drawn with the
character in the key, its index counted per character. So an undo that changes who is down at
a tick never hands one character's die to another. Unscoped given dice of such a purpose are
still handed out in the order the rules ask (join order), as logs of version 1 were written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import msgspec

from woundlog.events import RuleError, StructuralError

# Exported (`as blake2b`) for replays/snapshots.py, which hashes the rules' source with it.
try:  # hashlib's own blake2b, without the OpenSSL library `import hashlib` loads: 3% of a
    # `woundlog hit`'s instructions (issue 28), for dice that need blake2b alone
    from _blake2 import blake2b as blake2b
except ImportError:  # a Python built without its own blake2: hashlib's, whatever it is
    from hashlib import blake2b as blake2b

_SPACE = 1 << 64
SCOPE = "@"
"""Separates a purpose from the character a given die belongs to: `downed@brakk`."""

LEGACY_DRAW = 1
"""Draw version 1: a die for one character of several is keyed like any other (seed, event,
purpose, index), its index counted across the characters. Logs that say no version use it."""
SCOPED_DRAW = 2
"""Draw version 2: such a die has the character in its key, and its own index."""


def draw(
    seed: int, event_id: str, purpose: str, index: int, sides: int, character: str | None = None
) -> int:
    """The `index`-th (0-based) die of `purpose` for event `event_id` (and `character`, when it
    is one character's die), uniform in 1..sides."""
    limit = _SPACE - _SPACE % sides  # values at or past the limit would favour low faces
    scope = purpose if character is None else f"{purpose}\x1f{character}"
    attempt = 0
    while True:
        key = f"{seed}\x1f{event_id}\x1f{scope}\x1f{index}\x1f{attempt}".encode()
        value = int.from_bytes(blake2b(key, digest_size=8).digest(), "big")
        if value < limit:
            return value % sides + 1
        attempt += 1


class DieRoll(msgspec.Struct, frozen=True, omit_defaults=True):
    """One die the rules used: what for, how many sides, its value, whether it was given, and
    the character it was rolled for when the event concerns several."""

    purpose: str
    sides: int
    value: int
    source: str  # "given" or "drawn"
    character: str | None = None

    def label(self) -> str:
        """`downed@brakk d6=1 given`, as a person reads it."""
        scope = self.purpose if self.character is None else f"{self.purpose}@{self.character}"
        return f"{scope} d{self.sides}={self.value} {self.source}"


def split_scope(key: str) -> tuple[str, str | None]:
    """`downed@brakk` -> ("downed", "brakk"); `downed` -> ("downed", None)."""
    purpose, at, character = key.partition(SCOPE)
    return (purpose, character) if at else (purpose, None)


class Dice:
    """The dice of one event: hands out given rolls in order, then drawn ones.

    With `records` (an explained fold), each die handed out is kept in `used` as a DieRoll,
    for the changes; a fold that keeps only state hands out the integers and builds none."""

    __slots__ = (
        "_event_id",
        "_given",
        "_hints",
        "_missing",
        "_next",
        "_owner",
        "_plain",
        "_position",
        "_records",
        "_scoped",
        "_seed",
        "_sides",
        "_strict",
        "used",
    )

    def __init__(
        self,
        seed: int,
        event_id: str,
        given: Mapping[str, list[int]],
        sides: Mapping[str, int],
        *,
        strict: bool = False,
        version: int = LEGACY_DRAW,
        hints: Mapping[str, str] | None = None,
        owner: str | None = None,
        missing: Callable[[str, int, str | None], int] | None = None,
        records: bool = True,
    ) -> None:
        self._seed = seed
        self._event_id = event_id
        self._given = given
        self._sides = sides
        self._strict = strict
        self._scoped = version >= SCOPED_DRAW
        self._hints = hints or {}
        self._owner = owner
        self._missing = missing  # asked for each die not given instead of drawing it (odds)
        self._next: dict[str, int] = {}  # per key of `given`: how many of its dice are taken
        self._position: dict[str, int] = {}  # per purpose: how many dice of it were rolled
        self._records = records
        self.used: list[DieRoll] = []  # with `records`: each die handed out, in order
        # nothing given, nothing to ask: every die is drawn (most events of a fight)
        self._plain = not given and missing is None and not strict
        if given:
            self._check(given)

    def anew(self, event_id: str, given: Mapping[str, list[int]], owner: str | None) -> Dice:
        """These dice made another event's, as if made for it (seed, sides and options kept):
        a fold that keeps only state takes up one Dice for each of its events in turn, since
        it keeps no event's dice past the event."""
        self._event_id = event_id
        self._given = given
        self._owner = owner
        if self._next:  # left empty by an event that took no given die: kept, not remade
            self._next = {}
        if self._position:
            self._position = {}
        if self._records:  # without, nothing is ever put in `used`: it stays empty
            self.used = []
        self._plain = not given and self._missing is None and not self._strict
        if given:
            self._check(given)
        return self

    def _check(self, given: Mapping[str, list[int]]) -> None:
        """A given die outside its range is refused. A purpose the rules never roll is a typo,
        refused naming the purposes there are (version 1 logs kept such dice as unused, and
        still do, so they replay as they were written)."""
        for key, values in given.items():
            purpose, _ = split_scope(key)
            die = self._sides.get(purpose)
            if die is None:
                if self._scoped:
                    raise RuleError(
                        unknown_purpose(purpose, self._sides),
                        event=self._event_id,
                        field=f"$.rolls.{key}",
                    )
                continue
            for i, value in enumerate(values):
                if not 1 <= value <= die:
                    hint = self._hints.get(purpose)
                    raise StructuralError(
                        f"a d{die} shows 1 to {die}, not {value}" + (f": {hint}" if hint else ""),
                        event=self._event_id,
                        field=f"$.rolls.{key}[{i}]",
                    )

    def roll(self, purpose: str, character: str | None = None) -> int:
        """The next die of `purpose`: the next given one, else drawn from the seed.

        With `character` (one character's die in an event about several): the next die given
        as `purpose@character`, else the next unscoped given one, else drawn for that
        character. In an event about one character (the `owner`: a hit's target), his dice
        may be given scoped to him too."""
        if self._plain:  # nothing given, nothing to ask: the same draw, in fewer steps
            sides = self._sides[purpose]
            position = self._position.get(purpose, 0)
            self._position[purpose] = position + 1
            if character is not None and self._scoped:
                own = self._take(f"{purpose}{SCOPE}{character}")
                value = draw(self._seed, self._event_id, purpose, own, sides, character)
            else:
                value = draw(self._seed, self._event_id, purpose, position, sides)
            if self._records:
                self.used.append(DieRoll(purpose, sides, value, "drawn", character))
            return value
        sides = self._sides[purpose]
        position = self._count(purpose)  # its place among the event's dice of `purpose`
        scope = character or self._owner
        own = 0
        found: int | None = None
        if scope is not None:
            key = f"{purpose}{SCOPE}{scope}"
            own = self._take(key)  # its place among that character's
            given = self._given.get(key, ())
            found = given[own] if own < len(given) else None
        if found is None:
            shared = self._given.get(purpose, ())
            if self._next.get(purpose, 0) < len(shared):
                found = shared[self._take(purpose)]
        if found is not None:
            source = "given"
            value = found
        elif self._missing is not None:
            source = "drawn"
            value = self._missing(purpose, sides, character)
        elif self._strict:
            wanted = purpose if character is None else f"{purpose}{SCOPE}{character}"
            raise RuleError(
                f"the rules need a die of `{wanted}` (d{sides}) and option strict_dice "
                "forbids drawing it: give it in `rolls`",
                event=self._event_id,
                field=f"$.rolls.{wanted}",
            )
        else:
            source = "drawn"
            if character is not None and self._scoped:
                # counted per character: nobody else's dice move it
                value = draw(self._seed, self._event_id, purpose, own, sides, character)
            else:
                value = draw(self._seed, self._event_id, purpose, position, sides)
        if self._records:
            self.used.append(DieRoll(purpose, sides, value, source, character))
        return value

    def _count(self, purpose: str) -> int:
        position = self._position.get(purpose, 0)
        self._position[purpose] = position + 1
        return position

    def _take(self, key: str) -> int:
        index = self._next.get(key, 0)
        self._next[key] = index + 1
        return index

    def unused(self) -> dict[str, list[int]]:
        """Given rolls the rules never asked for: kept in the log, reported, not refused."""
        left: dict[str, list[int]] = {}
        for key, values in self._given.items():
            rest = values[self._next.get(key, 0) :]
            if rest:
                left[key] = list(rest)
        return left


class Draws(Dice):
    """The dice of a fold's events that give none (and of a fight without `strict_dice`):
    every die drawn from the seed, in one call. One Draws serves a fold's every such event in
    turn: the fold names the event it serves (`named`, its id, else `seq`: `#N`, put into words
    only when a die is drawn) and empties `drawn`; it keeps no record (`used` stays empty)."""

    __slots__ = ("drawn", "named", "seq")

    def __init__(self, seed: int, sides: Mapping[str, int], *, version: int) -> None:
        super().__init__(seed, "", {}, sides, version=version, records=False)
        self.named: str | None = None
        self.seq = 0
        self.drawn: dict[str, int] | None = None
        """Per purpose (and per `purpose@character`), the dice of it drawn for this event."""

    def roll(self, purpose: str, character: str | None = None) -> int:
        """`Dice.roll` of an event that gives no dice: the same draw."""
        sides = self._sides[purpose]
        drawn = self.drawn
        if drawn is None:
            drawn = self.drawn = {}
        position = drawn.get(purpose, 0)
        drawn[purpose] = position + 1
        named = self.named
        event_id = named if named is not None else f"#{self.seq}"
        if character is not None and self._scoped:
            key = f"{purpose}{SCOPE}{character}"
            own = drawn.get(key, 0)
            drawn[key] = own + 1
            return draw(self._seed, event_id, purpose, own, sides, character)
        limit = _SPACE - _SPACE % sides  # `draw`, written in: the key, its hash, rejection
        attempt = 0
        while True:
            key = f"{self._seed}\x1f{event_id}\x1f{purpose}\x1f{position}\x1f{attempt}"
            value = int.from_bytes(blake2b(key.encode(), digest_size=8).digest(), "big")
            if value < limit:
                return value % sides + 1
            attempt += 1


def check_owners(given: Mapping[str, list[int]], characters: Collection[str]) -> str | None:
    """The first key of `given` scoped to someone not among `characters` (`injury@gim`), or
    None. Such a die would be left unused and the die drawn instead: a typo, refused on append
    (`core.reducer.refuse_strangers_dice`) as a purpose the rules never roll is."""
    for key in given:
        _, character = split_scope(key)
        if character is not None and character not in characters:
            return key
    return None


def unknown_character(character: str, characters: Collection[str]) -> str:
    """`a die for `gim`, who is not in this fight; did you mean `grim`?`"""
    import difflib  # here, not at the top: only a mistyped character needs it

    near = difflib.get_close_matches(character, list(characters), n=1)
    return f"a die for `{character}`, who is not in this fight" + (
        f"; did you mean `{near[0]}`?" if near else ""
    )


def unknown_purpose(purpose: str, sides: Mapping[str, int]) -> str:
    """`this ruleset rolls no `injruy` dice (it rolls: injury); did you mean `injury`?`"""
    known = ", ".join(sides) or "none"
    said = f"this ruleset rolls no `{purpose}` dice (it rolls: {known})"
    import difflib  # here, not at the top: only a mistyped purpose needs it

    near = difflib.get_close_matches(purpose, list(sides), n=1)
    return said + (f"; did you mean `{near[0]}`?" if near else "")
