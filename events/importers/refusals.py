"""Importing past what the rules refuse.

Another program's record is a fact: it happened at that table. When woundlog's rules refuse the
event it makes (a heal on a goblin woundlog's dnd5e killed at 0 HP, which Foundry kept at 0 HP
and the GM healed), refusing the whole import would refuse every later record of the combat
too, forever, since a resend makes the same refused event again. So an import appends what the
rules accept and reports the rest:

- an event the rules refuse only for who made it (a blow struck, or a heal given, by a character
  woundlog's rules say cannot act) is kept without that `attacker` or `healer`, under its own
  id with `:unattributed` added, since its damage or healing was real; the answer says so;
- an event the importer gave another to try in its place (`Converted.instead`: a heal of a
  character the other program shows alive again, as a revival) is replaced by that one, under
  its own id; the answer says so;
- any other event the rules refuse is left out, and the answer names its record, its event and
  the rules' reason. The same records sent again are refused again, the same way: a no-op.

Structural errors (a malformed record, an id reused with other content) still refuse the whole
import: they are no fact of the table, and nothing of such an import is written. The fight's
log, as DESIGN.md section 5 says of every append, holds no refused event.

Importers cannot see the rules (`events` imports nothing of `core`): the rules speak through the
append, which checks each event of a batch as if every refused one before it were void, and
names each refusal with its place in the batch. This module only reads those refusals.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

import msgspec

from ..errors import BatchRefused, RefusedError, RuleError
from ..model import Event, Heal, Hit
from .base import Converted

T = TypeVar("T")

UNATTRIBUTED = "unattributed"
"""Added to the id of an event kept without its attacker or healer."""

ACTORS = {"$.attacker": "attacker", "$.healer": "healer"}


class Refusal(msgspec.Struct, frozen=True):
    """An imported event the rules refused: the record that made it (its place in the records
    given to the importer), the event's id, the field at fault and the rules' reason; `kept`
    when the event was kept without its attacker or healer."""

    record: int | None
    event: str | None
    reason: str
    field: str | None = None
    kept: bool = False
    instead: str | None = None
    """The id of the event appended in its place (`Converted.instead`), if any."""

    def said(self) -> str:
        record = "a record" if self.record is None else f"record {self.record}"
        made = f"{record} (event `{self.event}`)"
        if self.instead is not None:
            return f"{made} refused by the rules ({self.reason}): `{self.instead}` appended instead"
        if self.kept:
            role = ACTORS.get(self.field or "", "actor")
            return (
                f"{made}: kept without its {role}, whom the rules refuse: {self.reason} "
                f"(the other program's HP change is real)"
            )
        return f"{made} refused by the rules, left out: {self.reason}"


def append_importing(
    converted: Converted,
    append: Callable[[list[Event]], T],
    *,
    before: Sequence[Event] = (),
    known: Callable[[list[str]], Collection[str]] | None = None,
) -> tuple[T, list[Refusal]]:
    """Append `before` (a new fight's `fight_started`) and the converted events with `append`,
    leaving out each event the rules refuse (or keeping it without its attacker or healer, when
    they are what is refused): what `append` returned, and every refusal in batch order.

    `append` gets the whole batch each time and raises as `Fight.append` does: a RuleError, or a
    BatchRefused of them, each with its `index` in the batch. Anything else it raises, and a
    refusal that is no rule error or not of a converted event, refuses the import.

    `known(ids)` gives those of `ids` already in the fight: an event kept unattributed by an
    earlier import is then sent again in that form, a no-op, even if an undo since then would
    let the rules take it whole (its damage must not count twice)."""
    events = list(converted.events)
    instead = converted.instead
    if known is not None:
        events = kept_before(events, known, instead)
    records: list[int | None] = list(converted.records)
    records += [None] * (len(events) - len(records))  # an importer that names no records
    refusals: list[Refusal] = []
    # each round leaves out an event, replaces it (at most once) or drops its actor (at most
    # once): a bound, not a guess
    for _ in range(3 * len(events) + 1):
        try:
            return append([*before, *events]), refusals
        except RefusedError as refused:
            errors = refused.errors if isinstance(refused, BatchRefused) else [refused]
            if not all(_ours(error, len(before), len(events)) for error in errors):
                raise
            events, records = _past(errors, events, records, len(before), refusals, instead)
    raise AssertionError("unreachable: every round leaves out or changes an event")


def kept_before(
    events: list[Event],
    known: Callable[[list[str]], Collection[str]],
    instead: Mapping[str, Event] | None = None,
) -> list[Event]:
    """The events, each one an earlier import kept in another form (without its actor, or the
    event given `instead` of it, or that one without its actor) in that same form."""
    forms = {i: _forms(e, instead or {}) for i, e in enumerate(events)}
    ids = [form.id for each in forms.values() for form in each if form.id is not None]
    found = set(known(ids)) if ids else set()
    kept = []
    for i, event in enumerate(events):
        shown = next((form for form in forms[i] if form.id in found), None)
        kept.append(event if shown is None else shown)
    return kept


def _forms(event: Event, instead: Mapping[str, Event]) -> list[Event]:
    """The other forms an import may have kept the event in."""
    other = instead.get(event.id) if event.id is not None else None
    forms = [_alone(event), other, _alone(other) if other is not None else None]
    return [form for form in forms if form is not None]


def _alone(event: Event) -> Event | None:
    if isinstance(event, Hit):
        return _without_actor(event, "$.attacker")
    if isinstance(event, Heal):
        return _without_actor(event, "$.healer")
    return None


def _ours(error: RefusedError, first: int, count: int) -> bool:
    """A rule error of one of the converted events (not of `before`)."""
    return (
        isinstance(error, RuleError)
        and error.index is not None
        and first <= error.index < first + count
    )


def _past(
    errors: Sequence[RefusedError],
    events: list[Event],
    records: list[int | None],
    first: int,
    refusals: list[Refusal],
    instead: Mapping[str, Event],
) -> tuple[list[Event], list[int | None]]:
    """The events with each refused one left out, or replaced by the event given `instead` of
    it, or by itself without its actor."""
    at = {error.index - first: error for error in errors if error.index is not None}
    kept: list[Event] = []
    kept_records: list[int | None] = []
    for place, (event, record) in enumerate(zip(events, records, strict=True)):
        error = at.get(place)
        if error is None:
            kept.append(event)
            kept_records.append(record)
            continue
        other = instead.get(event.id) if event.id is not None else None
        if other is not None:
            refusals.append(Refusal(record, event.id, error.message, error.field, instead=other.id))
            kept.append(other)
            kept_records.append(record)
            continue
        alone = _without_actor(event, error.field)
        refusals.append(
            Refusal(record, event.id, error.message, error.field, kept=alone is not None)
        )
        if alone is not None:
            kept.append(alone)
            kept_records.append(record)
    return kept, kept_records


def _without_actor(event: Event, field: str | None) -> Event | None:
    """The hit without its attacker, or the heal without its healer, when that is the field the
    rules refused (and the event is not already one kept so)."""
    role = ACTORS.get(field or "")
    if role is None or not isinstance(event, Hit | Heal) or getattr(event, role, None) is None:
        return None
    event_id = None if event.id is None else f"{event.id}:{UNATTRIBUTED}"
    note = f"{role} `{getattr(event, role)}` left out: the rules say they cannot act"
    if event.note:
        note = f"{event.note}; {note}"
    return msgspec.structs.replace(event, id=event_id, note=note, **{role: None})
