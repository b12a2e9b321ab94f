"""What every importer shares: the result, stable ids, and the batch of woundlog events being
built from another program's records.

Importers live in `events`, so they cannot ask `core` what a ruleset needs: the little they must
know of the fight's ruleset (which stat a maximum of hit points becomes, which kinds, whether it
heals) is handed to them as a value, its `ImportRules` (rules.py), and the rules still check
every event on append.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import msgspec
from msgspec import Meta

from ..codec import convert
from ..errors import StructuralError
from ..model import CharacterJoined, Event, Heal, Hit, TurnEnded, TurnStarted

# named in the package, so the CLI's help reads it without loading this module
from . import DEFAULT_RULESET as DEFAULT_RULESET
from .rules import ImportRules

T = TypeVar("T")

SourceId = Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^[^\s]+$")]
"""An id taken from the source (actor, combatant, envelope): it becomes part of woundlog ids,
which allow no whitespace and at most 200 characters."""


class Converted(msgspec.Struct, frozen=True):
    """What a conversion gives: the events, and the cursor to hand to the next call for the same
    fight (formats compared pairwise need the last snapshot seen; others give None)."""

    events: list[Event]
    previous: Any | None = None
    warnings: list[str] = []
    """What a person should hear about: a record skipped (late, or seen before), a combatant not
    tracked and why. Nothing an importer leaves out is left out silently."""
    records: list[int] = []
    """Per event, the place in the records given of the record that made it, so that an event
    the rules refuse on append is reported by its record (see refusals.py)."""
    instead: dict[str, Event] = {}
    """By event id, the event appended in its place if the rules refuse it, under an id of its
    own (a heal of a character the source shows alive again, as a revival where the rules hold
    the character dead); refused too, it is left out and reported as any refusal."""


# --- decoding records --------------------------------------------------------------------------

_AT_PATH = re.compile(r"^(?P<message>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.DOTALL)
_NAMED_FIELD = re.compile(r"missing required field `(?P<name>[^`]+)`")


def kept(previous: object, shape: type[T]) -> T:
    """The cursor an importer gave with its last conversion (`previous`), read back as its
    `shape`; refused, naming `previous`, when it is not one."""
    try:
        return msgspec.convert(previous, shape)
    except msgspec.ValidationError as exc:
        raise StructuralError(f"not a cursor this importer gave: {exc}", field="previous") from None


def decode(record: object, shape: type[T], index: int) -> T:
    """Validate one record of another program into its Struct; errors name the record and field."""
    try:
        return msgspec.convert(record, shape)
    except RecursionError:
        raise StructuralError("nested too deeply to read", field="$", index=index) from None
    except msgspec.ValidationError as exc:
        match = _AT_PATH.match(str(exc))
        assert match is not None
        message, path = match["message"], match["path"] or "$"
        named = _NAMED_FIELD.search(message)
        if named is not None:  # msgspec points at the object; the missing field says more
            path = f"{path}.{named['name']}"
        raise StructuralError(message, field=path, index=index) from None


def content_key(record: object, before: str = "") -> str:
    """A short digest of a record's canonical JSON (keys sorted), chained after `before`.

    Chaining makes the key of a snapshot depend on every snapshot before it, so the same
    snapshot seen again later in a fight (HP back where it was) still gets new ids."""
    digest = hashlib.blake2b(before.encode(), digest_size=8)
    digest.update(msgspec.json.encode(record, order="sorted"))
    return digest.hexdigest()


# --- what the source says of a combatant, and the events it makes ------------------------------


@dataclass(frozen=True)
class Sighting:
    """A combatant as one record shows it. `hp` is its current HP before the record's change."""

    id: str
    name: str
    player: bool
    max_hp: int
    hp: int
    side: str | None = None
    temp_hp: int = 0


class Batch:
    """The events of one conversion, with who has joined so far.

    Every event gets an id `<source>:<key>:...` made of source ids and record content only, so a
    second import of the same records makes the same events, which the fight skips.
    """

    def __init__(self, source: str, importing: ImportRules, joined: Collection[str]) -> None:
        self.source = source
        self.importing = importing
        self.joined = set(joined)
        self.events: list[Event] = []
        self.warnings: list[str] = []
        self.warned: set[str] = set()  # the same, to look up: a long import warns often
        self.records: list[int] = []
        self.instead: dict[str, Event] = {}  # `Converted.instead`: see `revivals`

    def revivals(self, start: int, who: str, note: str) -> None:
        """The plain heals of `who` made since `start`, each given the same heal by the
        ruleset's revival means (`ImportRules.revival`, dnd5e's `revivify`) to take its place
        under its id plus `:revival` should the rules refuse it (`Converted.instead`): the
        source shows `who` alive after it, and woundlog may hold them dead (the table's death
        saves). A fight without the ruleset's option for it refuses that too, and says so.
        `note` says what the source showed."""
        means = self.importing.revival
        if means is None:
            return
        for heal in self.events[start:]:
            if isinstance(heal, Heal) and heal.target == who and not heal.means and heal.id:
                self.instead[heal.id] = msgspec.structs.replace(
                    heal, id=f"{heal.id}:revival", means=means, note=note
                )

    def warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self.warnings.append(message)

    def id(self, *parts: str) -> str:
        return ":".join((self.source, *parts))

    def add(self, event: Event) -> None:
        self.events.append(event)

    def sight(self, who: Sighting) -> bool:
        """Join a combatant seen for the first time (True), hurt already if it is below its
        maximum, so the fight matches the source from the start."""
        if who.id in self.joined:
            return False
        self.joined.add(who.id)
        index = 0 if who.player else 1
        kind = self.importing.kinds[index]
        self.add(
            CharacterJoined(
                id=self.id(who.id, "joined"),
                by=self.source,
                character=who.id,
                name=who.name,
                side=who.side or self.importing.sides[index],
                kind=kind,
                stats={self.importing.stat: who.max_hp},
            )
        )
        self.hp_change(self.id(who.id, "hurt"), who.id, min(who.hp - who.max_hp, 0))
        if who.temp_hp > 0:
            self.grant_temporary(self.id(who.id, "temp"), who.id, who.temp_hp)
        return True

    def grant_temporary(self, event_id: str, character: str, amount: int) -> None:
        """Temporary hit points gained, as the ruleset's heal means for them (none: no event)."""
        if self.importing.temporary is not None:
            self.add(
                Heal(
                    id=event_id,
                    by=self.source,
                    target=character,
                    amount=amount,
                    means=self.importing.temporary,
                )
            )

    def hp_and_temporary(
        self, key: str, character: str, hp: tuple[int, int], temp: tuple[int, int]
    ) -> None:
        """A combatant's HP and temporary HP, before and now, as hits and heals.

        Both programs take damage off temporary hit points first. In a ruleset that keeps them
        (`ImportRules.temporary`), HP lost means the temporary hit points went first: the hit is
        all of them plus the HP lost, and temporary hit points shown now were granted after it.
        Temporary hit points lost with no HP lost were absorbed damage: a hit the ruleset's
        temporary hit points take. Elsewhere only HP counts. Ids: `<key>:<character>:hit`,
        `:heal` and `:temp`."""
        (hp_before, hp_now), (temp_before, temp_now) = hp, temp
        change = hp_now - hp_before
        if self.importing.temporary is None:
            self.hp_change(
                self.id(key, character, "hit" if change < 0 else "heal"), character, change
            )
            return
        if change < 0:
            self.hp_change(self.id(key, character, "hit"), character, change - temp_before)
            temp_before = 0
        elif temp_now < temp_before:
            self.hp_change(self.id(key, character, "hit"), character, temp_now - temp_before)
        if change > 0:
            self.hp_change(self.id(key, character, "heal"), character, change)
        if temp_now > temp_before:
            self.grant_temporary(self.id(key, character, "temp"), character, temp_now)

    def hp_change(
        self,
        event_id: str,
        character: str,
        delta: int,
        *,
        by: str | None = None,
        rolls: dict[str, list[int]] | None = None,
    ) -> None:
        """HP down is a hit, up a heal (when the ruleset heals in a fight); no change, nothing."""
        given = scoped(rolls or {}, character)
        if delta < 0:
            self.add(
                Hit(
                    id=event_id,
                    by=self.source,
                    target=character,
                    damage=-delta,
                    attacker=by,
                    rolls=given,
                )
            )
        elif delta > 0 and self.importing.heals:
            self.add(
                Heal(
                    id=event_id,
                    by=self.source,
                    target=character,
                    amount=delta,
                    healer=by,
                    rolls=given,
                )
            )

    def tick(
        self, kind: type[TurnStarted] | type[TurnEnded], key: str, round_: int, character: str
    ) -> None:
        if character not in self.joined:
            return
        suffix = "turn_started" if kind is TurnStarted else "turn_ended"
        self.add(
            kind(
                id=self.id(key, character, suffix),
                by=self.source,
                round=round_,
                character=character,
            )
        )

    def give_rolls(self, start: int, rolls: dict[str, list[int]]) -> None:
        """Hand dice to the first event made since `start` (dice of a record with no event are
        dropped: nothing needed them)."""
        if rolls and start < len(self.events):
            event = self.events[start]
            character = getattr(event, "character", None) or getattr(event, "target", None)
            self.events[start] = msgspec.structs.replace(event, rolls=scoped(rolls, character))

    def check(self, start: int, index: int) -> None:
        """Validate the events record `index` made, as any event from outside is validated, and
        note that they are its events."""
        self.records += [index] * (len(self.events) - len(self.records))
        for event in self.events[start:]:
            try:
                convert(msgspec.to_builtins(event))
            except StructuralError as error:
                raise StructuralError(
                    f"makes an invalid event: {error.message}",
                    event=event.id,
                    field=error.field,
                    index=index,
                ) from None


def scoped(rolls: dict[str, list[int]], character: str | None) -> dict[str, list[int]]:
    """The dice as the character's own (`location@grm1`), so that an undo in woundlog that
    changes who rolls at a tick never hands them to somebody else: a scoped die is read, and
    drawn, for its character only."""
    if character is None:
        return rolls
    return {key if "@" in key else f"{key}@{character}": values for key, values in rolls.items()}


def merge_rolls(groups: Iterable[tuple[str, list[int]]]) -> dict[str, list[int]]:
    rolls: dict[str, list[int]] = {}
    for purpose, values in groups:
        if values:
            rolls.setdefault(purpose, []).extend(values)
    return rolls
