"""What the service's `/campaigns` routes take and give, bounded as the events they become.

The between-fight events are taken as the campaign's own event Structs (events/campaign.py), so a
body is bounded exactly as a line of the campaign's log is, and nothing is declared twice.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from woundlog.events.campaign import Died, Repair, Rest, Retired, TimePassed, Treatment
from woundlog.events.model import SAFE_INT, CharacterId, EventRef, Gear, Id, Name, Stats, Text

CampaignName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=190,
        description="A letter, digit or _ first, then letters, digits and _ . - (as a fight id).",
    ),
]
FightName = Annotated[str, Meta(min_length=1, max_length=200)]
Version = Annotated[int, Meta(ge=0, le=SAFE_INT)]
Members = Annotated[dict[CharacterId, CharacterId], Meta(min_length=1, max_length=1000)]

Between = Rest | Treatment | Repair | TimePassed | Retired | Died
"""A between-fight event, tagged by `type` as in the campaign's log."""


class Request(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    by: Name | None = None
    note: Text | None = None
    id: Id | None = None  # the event's id: a retried request with it is written once


class NewCampaign(Request, frozen=True):
    """`POST /campaigns`: a campaign, every fight of it played with `ruleset`."""

    campaign: CampaignName
    ruleset: Name
    name: Name = ""


class CampaignCreated(msgspec.Struct, kw_only=True):
    """The campaign's tokens, shown once and kept only as hashes: gm writes, viewer reads."""

    campaign: str
    version: int
    gm_token: str
    viewer_token: str


class MemberRequest(Request, frozen=True):
    """`POST /campaigns/{campaign}/members`: a character joins the roster."""

    member: CharacterId
    name: Name = ""
    side: Name = ""
    kind: Name = ""
    stats: Stats = {}
    gear: Gear = {}


class PlayedRequest(Request, frozen=True):
    """`POST /campaigns/{campaign}/fights`: fight `fight` was played; `members` maps each member
    who took part to their character id in it (none: every active member under their own id)."""

    fight: FightName
    members: Members | None = None


class CampaignUndoRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """`POST /campaigns/{campaign}/undo`: the campaign event to retract (default: its newest
    live one)."""

    event: EventRef | None = None
    reason: Text = ""
    by: Name | None = None
    id: Id | None = None


class JoinFromCampaign(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/join`: `character` joins the fight as campaign member `member`
    (default: the member of that id), with their record at the campaign's event `at`."""

    campaign: CampaignName
    character: CharacterId
    member: CharacterId | None = None
    at: Annotated[int, Meta(ge=1, le=SAFE_INT)] | None = None
    by: Name | None = None
    id: Id | None = None
