"""The values the application layer takes and gives, shared by every front end, and the
refusals it adds to the contract's `WoundlogError` family.

The Structs are the wire's own: the service draws its OpenAPI schema from them, so their names
and docstrings are what a client reads.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from woundlog.core import Changes
from woundlog.core.campaign import Played, Unmoved
from woundlog.core.permanence import Injury, Record
from woundlog.events import Event, UsageError
from woundlog.events.campaign import CampaignEvent
from woundlog.events.fight_ids import FIGHT_ID_PATTERN, MAX_CHARS, RULE
from woundlog.events.stores import Stored

from ..campaign import Consequences
from ..fight import FightNotFound as FightNotFound  # where a fight is read; named here too

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
    events: list[Stored[Event]]
    next: int | None = None


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """One event of the log, with what it did as it happened (`changes.undone`: what undid it)."""

    seq: int
    event: Event
    changes: Changes


class TimelinePage(msgspec.Struct, frozen=True, kw_only=True):
    """Events `from` to `next - 1` of a fight of `version` events; `next` None: the last window.
    `undo`, `redo`: the seq of the event an undo, and of the undo a redo, takes back by default
    at `version` (DESIGN.md section 6); None: nothing to undo, or the newest event in effect is
    no undo."""

    version: int
    moments: list[Moment]
    next: int | None = None
    undo: int | None = None
    redo: int | None = None


class FightHistory(msgspec.Struct, frozen=True, kw_only=True):
    """A whole fight, each event with what it did as it happened (`changes.undone`: what undid
    it): what `woundlog timeline` draws. `fight` is its id, or a file's name less `.jsonl`;
    `name` the name its `fight_started` gives, if any."""

    fight: str
    name: str
    moments: list[Moment]


# --- sharing (issue 26): a fight's tokens, as `sharing.py` hands them out -----------------------


class Role(StrEnum):
    VIEWER = "viewer"  # reads a fight
    GM = "gm"  # reads and writes a fight
    ADMIN = "admin"  # creates fights; may read and write every fight


NAME_PATTERN = r"^\w[\w.-]*$"
NAME_MAX = 64
NAME_RULE = f"a letter, digit or _ first, then letters, digits and _ . -; at most {NAME_MAX}"
TokenName = Annotated[
    str,
    Meta(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN, description=f"{NAME_RULE}."),
]


class TokenInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A token of a fight as a listing shows it: never the token itself."""

    name: str
    role: Role
    issued: datetime | None  # None: issued before tokens had names and times


class Issued(msgspec.Struct, frozen=True, kw_only=True):
    """A token just issued: the only time it is shown."""

    fight: str
    name: str
    role: Role
    issued: datetime
    token: str


class TokenNameTaken(UsageError):
    """A fight already holds a token of that name (the service answers 409)."""


class NoSuchToken(UsageError):
    """No token of that name in the fight (the service answers 404)."""


class TokenNotYours(UsageError):
    """A token asked to hand out or revoke a token of a role above its own (403)."""


def check_name(name: str) -> str:
    """`name` if it is a valid token name, else a UsageError naming the rule."""
    if len(name) > NAME_MAX or not re.fullmatch(NAME_PATTERN, name):
        raise UsageError(f"token name {name!r}: use {NAME_RULE} characters")
    return name


# --- campaigns -------------------------------------------------------------------------------
# A campaign's undo's report (`replays.campaign`'s `Consequences`) is given as it is; a member's
# record (`core.permanence.Record`) in the one shape of current values; these add what a front
# end shows around them.


class MemberRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A campaign member's record as every front end shows it, in the shape of a fight's
    character (DESIGN section 8): the stats the next fight joins them with at the top level,
    each under its own name (`"wounds": 8`), and the ones they joined the campaign with under
    `stats`; their gear, injuries (each with the fight and event it was taken in), lasting
    conditions, the fights they played, why they retired, where and why they died.

    The current values are fields of a subclass made for the stats the record has
    (`member_record`): msgspec puts a Struct's fields, never a dict's keys, beside the others.
    `current` gives them back as a dict."""

    member: str
    name: str
    side: str = ""
    kind: str = ""
    stats: dict[str, int] = {}
    gear: dict[str, str] = {}
    injuries: tuple[Injury, ...] = ()
    conditions: tuple[str, ...] = ()  # lasting until a rest (d26's Fatigued)
    fights: tuple[str, ...] = ()
    retired: str | None = None  # why, and where
    dead: str | None = None  # where (fight and event, or the campaign's event) and why

    @property
    def current(self) -> dict[str, int]:
        """The stats the next fight joins the member with, by name (`{"wounds": 8}`)."""
        fields = self.__struct_fields__[len(MemberRecord.__struct_fields__) :]
        names = self.__struct_encode_fields__[len(MemberRecord.__struct_fields__) :]
        return {name: getattr(self, field) for field, name in zip(fields, names, strict=True)}


def member_record(record: Record) -> MemberRecord:
    """`record` in the shape every front end shows (`MemberRecord`)."""
    shape = _with_stats(tuple(record.current))
    fields = msgspec.structs.asdict(record)
    current = fields.pop("current")
    return shape(**fields, **{f"v{at}": current[stat] for at, stat in enumerate(current)})


@lru_cache(maxsize=256)
def _with_stats(stats: tuple[str, ...]) -> type[MemberRecord]:
    """The MemberRecord whose fields after its own are `stats`, in their order: a ruleset has a
    few sets of stats, so a few classes are ever made."""
    clash = set(stats) & set(MemberRecord.__struct_encode_fields__)
    if clash:  # a ruleset's stat named as a field of the record: the ruleset's error
        raise ValueError(f"stats {sorted(clash)} would hide fields of a member's record")
    made = msgspec.defstruct(
        "MemberRecord",
        [(f"v{at}", int) for at in range(len(stats))],
        bases=(MemberRecord,),
        rename={f"v{at}": stat for at, stat in enumerate(stats)},
        module=__name__,
        frozen=True,
        kw_only=True,
        omit_defaults=True,
    )
    return made  # type: ignore[return-value]  # a subclass of MemberRecord: `bases`


class CampaignNotFoundError(UsageError):
    """The campaign named is not in the store (the service answers 404)."""


class CampaignAppended(msgspec.Struct, frozen=True, kw_only=True):
    """A campaign event recorded: the campaign's version after it, the event, and the records
    of the members it touched as they stand after it. `skipped`: an event with this id and the
    same content was already in the log (a retried request), nothing was written."""

    campaign: str
    ruleset: str
    version: int
    event: CampaignEvent
    members: list[MemberRecord] = []
    skipped: bool = False


class CampaignView(msgspec.Struct, frozen=True, kw_only=True):
    """A campaign at its seq `seq` (of `version`): every member's record, in join order, the
    fights played, and the members who began a fight from a record no longer true (an undo in
    an earlier fight: the later fight's log is left as it is)."""

    campaign: str
    name: str
    ruleset: str
    seq: int
    version: int
    members: list[MemberRecord]
    fights: list[str]
    stale: list[Played] = []


class StatChange(msgspec.Struct, frozen=True, kw_only=True):
    """One stat of a record changed by one event (`label`: the name the ruleset's text gives
    it, "Starting Wounds")."""

    stat: str
    label: str
    before: int | None
    after: int | None


class MemberChange(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one campaign event did to one member's record."""

    member: str
    name: str
    stats: list[StatChange] = []
    gained: list[Injury] = []
    lost: list[str] = []  # injuries no longer on the record (treated)
    conditions: list[str] = []  # as they stand after the event
    joined: bool = False
    dead: str | None = None  # newly dead: where and why
    retired: str | None = None  # newly retired: why


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One event of a campaign's log, what it did to each member, and, if nothing, why
    (`undone`: taken back by a retract; `void`: the rules refuse it as the log stands now);
    `unmoved`: the members it left as they were while it moved the others, each with why."""

    seq: int
    event: CampaignEvent
    changes: list[MemberChange] = []
    undone: str | None = None
    void: str | None = None
    unmoved: list[Unmoved] = []


class CampaignHistory(msgspec.Struct, frozen=True, kw_only=True):
    """A campaign's log, event by event (for one member: the events that concern them)."""

    campaign: str
    version: int
    member: str | None
    entries: list[HistoryEntry]


class CampaignUndone(msgspec.Struct, frozen=True, kw_only=True):
    """An undo in a campaign: a retract in the campaign's own log, or in one of its fights
    (`fight`, with what the retract did there), and its consequences across the campaign."""

    campaign: str
    version: int
    retracted: str
    fight: str | None = None
    fight_changes: Any = None  # the fight's `Appended`, when the undo was in a fight
    consequences: Consequences
