"""A campaign's report: each member's numbers summed over the fights its log records.

`campaign_numbers` is pure: it takes each recorded fight's numbers (`FightNumbers`, as
`numbers.fight_numbers` counts them from the fight as it stands) and the campaign's
`Played` entries (member -> that fight's character, one per member and fight played; a
`fight_played` the GM took back is not among them), and sums.

Luck and the chronicle are a fight's own and are not summed: a chance of ending at least as
badly is a question about one fight's dice, and a campaign's story is its fights' chronicles
one after the other (`woundlog report FIGHT` each).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from woundlog.core.campaign import Played

from .numbers import TALLIED, FightNumbers
from .values import Blow, Length, Tally


class FightBlow(Blow, frozen=True, kw_only=True):
    """A `Blow` in fight `fight` (its `character` and `by` are that fight's ids)."""

    fight: str


class CampaignFight(msgspec.Struct, frozen=True, kw_only=True):
    """A fight the campaign records: its name, length and who played whom in it."""

    fight: str
    name: str
    length: Length
    members: dict[str, str]


class MemberReport(msgspec.Struct, kw_only=True):
    """One member's numbers over the `fights` they played, and each time they were put out or
    killed (`put_out_by`) or put someone out (`put_out`), with the fight."""

    member: str
    name: str
    side: str
    fights: list[str]
    tally: Tally
    put_out_by: list[FightBlow] = []
    put_out: list[FightBlow] = []


class CampaignReport(msgspec.Struct, kw_only=True):
    """`woundlog campaign report NAME --json` and `GET /campaigns/{c}/report`: each member's
    numbers summed over the campaign's fights, the sum over every member (`total`), and the
    fights' lengths summed (`length`). Luck and chronicle are per fight, not summed."""

    campaign: str
    name: str
    ruleset: str
    fights: list[CampaignFight]
    members: list[MemberReport]
    total: Tally
    length: Length


def campaign_numbers(
    campaign: str,
    name: str,
    ruleset: str,
    roster: Mapping[str, tuple[str, str]],
    played: Iterable[Played],
    numbers: Mapping[str, FightNumbers],
) -> CampaignReport:
    """`roster`: member -> (name, side), in join order; `numbers`: each played fight's."""
    members = {m: MemberReport(member=m, name=n, side=s, fights=[], tally=Tally())
               for m, (n, s) in roster.items()}  # fmt: skip
    fights: dict[str, CampaignFight] = {}
    for one in played:
        counted = numbers[one.fight]
        fight = fights.setdefault(
            one.fight,
            CampaignFight(fight=one.fight, name=counted.name, length=counted.length, members={}),
        )
        fight.members[one.member] = one.character
        character = next(c for c in counted.characters if c.character == one.character)
        member = members[one.member]
        member.fights.append(one.fight)
        add(member.tally, character.tally)
        member.put_out_by += [_in(one.fight, blow) for blow in character.put_out_by]
        member.put_out += [_in(one.fight, blow) for blow in character.put_out]
    total = Tally()
    for member in members.values():
        add(total, member.tally)
    lengths = [f.length for f in fights.values()]
    return CampaignReport(
        campaign=campaign,
        name=name,
        ruleset=ruleset,
        fights=list(fights.values()),
        members=list(members.values()),
        total=total,
        length=Length(
            **{k: sum(getattr(one, k) for one in lengths) for k in Length.__struct_fields__}
        ),
    )


def add(into: Tally, more: Tally) -> None:
    for field in TALLIED:
        setattr(into, field, getattr(into, field) + getattr(more, field))


def _in(fight: str, blow: Blow) -> FightBlow:
    return FightBlow(fight=fight, **msgspec.structs.asdict(blow))
