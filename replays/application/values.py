"""The values the application layer takes and gives, shared by every front end, and the
refusals it adds to the contract's `WoundlogError` family.

The Structs are the wire's own: the service draws its OpenAPI schema from them, so their names
and docstrings are what a client reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from woundlog.core import Changes
from woundlog.events import Event, UsageError
from woundlog.events.fight_ids import FIGHT_ID_PATTERN, MAX_CHARS, RULE
from woundlog.events.stores import Stored

FightId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_CHARS,
        pattern=FIGHT_ID_PATTERN,
        description=f"The fight's id in the store: {RULE}.",
    ),
]
OptionValue = bool | int | str


class FightNotFound(UsageError):
    """The fight named is not in the store (the service answers 404)."""


class UnknownFormat(UsageError):
    """No importer for the format named (the service answers 404)."""


class TooLarge(UsageError):
    """A request over one of the application's bounds, as a batch's size (the service: 413)."""


class NothingAsked(UsageError):
    """A what-if with no event in it; each front end names its own ways of saying one."""


class NewFight(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights`: the fight's id plus the fields of its `fight_started` event."""

    fight: FightId
    ruleset: str
    seed: int | None = None  # None: a random seed, written into the log so replays agree
    options: dict[str, OptionValue] = {}
    tables: dict[str, Any] = {}
    name: str = ""
    by: str | None = None
    note: str | None = None


class LastChange(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A fight's newest event, which is its last change (an undo is a change too).

    The stores keep no time of writing, only the log, so this is what the log says: the
    event's `seq` (`#seq` names it) and `type`, and its `at` when whoever recorded it gave one
    (informational, as every `at`: the CLI and the service record none of their own)."""

    seq: int
    type: str
    at: datetime | None = None


class FightSummary(msgspec.Struct, kw_only=True):
    """A fight as `GET /fights` lists it: `events` is its version; `last_change` its newest
    event (`LastChange`), None only for a fight with no event."""

    fight: str
    ruleset: str
    name: str
    events: int
    last_change: LastChange | None = None


class FightsPage(msgspec.Struct, kw_only=True):
    """The fights a token may see; `next` is the `offset` of the following page, None at the
    end."""

    fights: list[FightSummary]
    next: int | None = None


class EventsPage(msgspec.Struct, kw_only=True):
    """Events with their seq; `next` is the `from` of the following page, None at the end."""

    version: int
    events: list[Stored]
    next: int | None = None


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """One event of the log, with what it did as it happened (`changes.undone`: what undid it)."""

    seq: int
    event: Event
    changes: Changes


class TimelinePage(msgspec.Struct, frozen=True, kw_only=True):
    """Events `from` to `next - 1` of a fight of `version` events; `next` None: the last window."""

    version: int
    moments: list[Moment]
    next: int | None = None
