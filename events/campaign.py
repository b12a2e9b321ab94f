"""A campaign's vocabulary: the events of a roster that outlives its fights.

A campaign is an append-only log of its own, in the same stores as the fights, under the stream
id `campaign~NAME` (`fight_ids.campaign_stream`): `~` is no character of a fight id, so a
campaign's log can never be taken for a fight's, nor a fight created under a campaign's name.

Its events are frozen msgspec Structs tagged by `type`, bounded as a fight's are, decoded by the
same decoder as a fight's (`events.codec`), so every store reads and writes them unchanged.
A fight's log holding one is refused by the reducer, and a campaign's log holding a fight event
by the campaign fold, each naming the event.

Undo: `retract` is the fight's own (`model.Retract`): the named campaign event is treated as never
having happened, and retracting the retract restores it. There is no campaign `amend` in this
wire version: `amend.replacement` is a fight event (DESIGN section 3), and a correction of a
campaign event is a retract and the right event appended after it. A correction of a fight is
made in that fight's log, which the campaign folds.
"""

# No `from __future__ import annotations`: msgspec reads the annotations (see model.py).
from typing import Annotated, TypeAlias

from msgspec import Meta

from .fight_ids import is_fight_id
from .model import (
    _CHARACTERS,
    _IDS,
    ENTRIES,
    ID_FIELDS,
    KNOWN_IDS,
    SHOWN,
    Amount,
    Event,
    CharacterId,
    EventBase,
    Gear,
    Name,
    Retract,
    Stats,
    Text,
    _seen_test,
)

Members = Annotated[
    dict[CharacterId, CharacterId],
    Meta(
        min_length=1,
        max_length=ENTRIES,
        description="Who took part: {member id: their character id in the fight}.",
    ),
]


class CampaignStarted(EventBase, tag="campaign_started", frozen=True):
    """Always first, exactly once: the ruleset every fight of the campaign plays."""

    ruleset: Name
    name: Name = ""


class MemberJoined(EventBase, tag="member_joined", frozen=True):
    """A character joins the roster, with what a fight's `character_joined` would take."""

    member: CharacterId
    name: Name = ""
    side: Name = ""
    kind: Name = ""
    stats: Stats = {}
    gear: Gear = {}


class FightPlayed(EventBase, tag="fight_played", frozen=True):
    """A fight of the campaign was played: its result is read by folding that fight's log."""

    fight: Annotated[str, Meta(min_length=1, max_length=200)]
    members: Members

    def __post_init__(self) -> None:
        if not is_fight_id(self.fight):
            raise ValueError(f"`fight` {self.fight!r} is not a fight id - at `$.fight`")
        for member, character in self.members.items():
            if not member.strip() or not character.strip() or " " in member + character:
                raise ValueError("a member or character id holds whitespace - at `$.members`")


class Rest(EventBase, tag="rest", frozen=True):
    """A rest between fights: `kind` is the ruleset's word (dnd5e: `short`, `long`; none given:
    the ruleset's first).
    `member` None: every living, active member rests. `amount`: what the table rolled back
    (dnd5e: the hit points the Hit Dice spent on a short rest gave)."""

    kind: Name = ""
    member: CharacterId | None = None
    amount: Amount | None = None


class Treatment(EventBase, tag="treatment", frozen=True):
    """A member's injury treated between fights (`injury`: its name, or the event that dealt
    it); `means` is the ruleset's word (contractor: `treat_wound`, `prosthetic`)."""

    member: CharacterId
    injury: Name = ""
    means: Name = ""
    amount: Amount | None = None


class TimePassed(EventBase, tag="time_passed", frozen=True):
    """Days go by between fights (the healing times of the rulesets that give them)."""

    days: Annotated[int, Meta(ge=1, le=100_000)]


class Retired(EventBase, tag="retired", frozen=True):
    member: CharacterId
    reason: Text = ""


class Died(EventBase, tag="died", frozen=True):
    """A member's death the GM records (between fights, or one the fight's rules left open)."""

    member: CharacterId
    cause: Text = ""


CampaignEvent: TypeAlias = (
    CampaignStarted
    | MemberJoined
    | FightPlayed
    | Rest
    | Treatment
    | TimePassed
    | Retired
    | Died
    | Retract
)
"""Every event a campaign's log may hold."""

CAMPAIGN_TYPES: tuple[type[EventBase], ...] = (
    CampaignStarted,
    MemberJoined,
    FightPlayed,
    Rest,
    Treatment,
    TimePassed,
    Retired,
    Died,
)
"""The campaign's own event types (its `retract` is the fight's)."""

_MEMBER = (("id", _IDS), ("member", _CHARACTERS))
_CAMPAIGN_IDS: dict[type[EventBase], tuple[tuple[str, object], ...]] = {
    CampaignStarted: (("id", _IDS),),
    MemberJoined: _MEMBER,
    FightPlayed: (("id", _IDS),),
    Rest: (("id", _IDS),),
    Treatment: _MEMBER,
    TimePassed: (("id", _IDS),),
    Retired: _MEMBER,
    Died: _MEMBER,
}
# The codec checks every decoded event's ids and names through model's tables: the campaign's
# types join them here, once, as this module is imported by the codec before any decode.
ID_FIELDS.update(_CAMPAIGN_IDS)  # type: ignore[arg-type]
KNOWN_IDS.update({kind: _seen_test(fields) for kind, fields in _CAMPAIGN_IDS.items()})  # type: ignore[arg-type]
SHOWN.update(
    {
        CampaignStarted: ("id", "by", "ruleset", "name"),
        MemberJoined: ("id", "by", "member", "name", "side", "kind"),
        FightPlayed: ("id", "by", "fight"),
        Rest: ("id", "by", "kind", "member"),
        Treatment: ("id", "by", "member", "injury", "means"),
        TimePassed: ("id", "by"),
        Retired: ("id", "by", "member"),
        Died: ("id", "by", "member"),
    }
)

Logged: TypeAlias = Event | CampaignEvent
"""What a store's log holds: a fight's events, or a campaign's."""
