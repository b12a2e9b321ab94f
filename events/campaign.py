"""A campaign's vocabulary: the events of a roster that outlives its fights.

A campaign is an append-only log of its own, in the same stores as the fights, under the stream
id `campaign~NAME` (`fight_ids.campaign_stream`): `~` is no character of a fight id, so a
campaign's log can never be taken for a fight's, nor a fight created under a campaign's name.

Its events are frozen msgspec Structs tagged by `type`, bounded as a fight's are: a tagged union
of their own (`CampaignEvent`) with a decoder of its own (`events.codec.CAMPAIGN`), so a
campaign's log reads as campaign events and a fight's as fight events (`Event`). Every store
keeps both: `append` checks each event against its log's family, and `campaign_read`,
`campaign_lookup` and `campaign_undo_events` read a campaign's log. A campaign event in a
fight's log, or a fight event in a campaign's, is refused by the decoder, naming what it is.

Undo: `retract` is the fight's own (`model.Retract`): the named campaign event is treated as never
having happened, and retracting the retract restores it. There is no campaign `amend` in this
wire version: `amend.replacement` is a fight event (DESIGN section 3), and a correction of a
campaign event is a retract and the right event appended after it. A correction of a fight is
made in that fight's log, which the campaign folds.
"""

# The types are declared in model.py, beside a fight's, so that its tables (ids, names shown)
# hold every type a log may hold from the start, whichever module is imported first.
from .model import (
    CAMPAIGN_TYPES,
    CampaignEvent,
    CampaignStarted,
    Died,
    FightPlayed,
    MemberJoined,
    Members,
    Repair,
    Rest,
    Retired,
    TimePassed,
    Treatment,
)

__all__ = [
    "CAMPAIGN_TYPES",
    "CampaignEvent",
    "CampaignStarted",
    "Died",
    "FightPlayed",
    "MemberJoined",
    "Members",
    "Repair",
    "Rest",
    "Retired",
    "TimePassed",
    "Treatment",
]
