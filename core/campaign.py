"""A campaign folded: its roster, each member's record at any point, and the fights they played.

Pure, as the fight reducer is: `start_campaign` and `advance_campaign` fold a campaign's events
one at a time. A `fight_played` reads that fight's result from a `FightOutcome`, which the
replays layer makes by folding the fight's own log (as it stands now, or at any point), never
from a number copied into the campaign: so an undo in fight 2 changes the record every later
fight would start from. What of a fight lasts is the ruleset's `permanence` (core.permanence).

A campaign event the rules refuse raises a RuleError naming it (on append); the replays fold
turns one into a void on replay, as a fight's fold does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from woundlog.events import (
    CarriedInjury,
    CharacterJoined,
    FightStarted,
    RuleError,
    StructuralError,
    event_ref,
)
from woundlog.events.campaign import (
    CAMPAIGN_TYPES,
    CampaignEvent,
    CampaignStarted,
    Died,
    FightPlayed,
    MemberJoined,
    Repair,
    Rest,
    Retired,
    TimePassed,
    Treatment,
)
from woundlog.events.model import Retract

from .changes import show
from .permanence import Permanence, Record
from .reducer import apply
from .rulesets import get_ruleset

DEAD = "dead"


class FightOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """A fight's log read for the campaign: its characters as they end, and where each of their
    injuries (as `core.changes.show` words it, in the order gained) and each death happened."""

    fight: str
    ruleset: str
    characters: Mapping[str, Any]
    gained: dict[str, dict[str, list[str]]] = {}
    fell: dict[str, str] = {}
    joined: Mapping[str, Any] = {}
    """Per character, its state as it joined: a campaign member's injuries from earlier fights
    are on the record already (not gained again), and its gear as the fight began."""


class Played(msgspec.Struct, frozen=True, kw_only=True):
    """One member in one fight: the stats the fight's log joined them with, and those their
    record held just before it (which a join from the campaign takes). When the two differ, the
    fight began from a record that is no longer true (an undo in an earlier fight)."""

    seq: int
    fight: str
    member: str
    character: str
    joined: dict[str, int]
    record: dict[str, int]

    @property
    def stale(self) -> bool:
        return self.joined != self.record


class Unmoved(msgspec.Struct, frozen=True, kw_only=True):
    """A member an event of the campaign left as they were, and why, while it moved the
    others: one member's fate is that member's (a party's long rest with one member at 0 hit
    points; a fight recorded for a member an undo in an earlier fight has since killed)."""

    seq: int
    member: str
    why: str


class CampaignState(msgspec.Struct, frozen=True, kw_only=True):
    """A campaign as it stands: its roster by member id in join order, every fight played, and
    the members events left unmoved."""

    name: str
    ruleset: str
    seq: int
    members: dict[str, Record]
    played: tuple[Played, ...] = ()
    unmoved: tuple[Unmoved, ...] = ()

    @property
    def fights(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.fight for p in self.played))


def permanence_of(ruleset: str) -> Permanence:
    rules = get_ruleset(ruleset)
    permanence = rules.permanence
    if permanence is None:  # every shipped ruleset declares one (a test checks)
        raise RuleError(f"{ruleset} declares nothing about what outlasts a fight")
    return permanence  # type: ignore[no-any-return]


def start_campaign(event: CampaignEvent) -> CampaignState:
    if not isinstance(event, CampaignStarted):
        raise StructuralError(
            "a campaign begins with `campaign_started`", event=event_ref(event, 1), field="$.type"
        )
    get_ruleset(event.ruleset)  # an unknown ruleset is refused here, naming the known ones
    permanence_of(event.ruleset)
    return CampaignState(name=event.name, ruleset=event.ruleset, seq=1, members={})


def pass_over(state: CampaignState) -> CampaignState:
    """An event a later `retract` took back: it keeps its place and does nothing."""
    return msgspec.structs.replace(state, seq=state.seq + 1)


def advance_campaign(
    state: CampaignState,
    event: CampaignEvent,
    outcome: FightOutcome | None = None,
    *,
    replaying: bool = False,
) -> CampaignState:
    """The campaign after `event` (a `fight_played` needs its fight's `outcome`).

    `replaying`: the event is in the log already, and an undo in an earlier fight may have
    changed the roster under it since: a member of a recorded fight who is now dead or retired
    has their part of it void (left unmoved, with why), and the others' parts stand. Appended
    now, the same event is refused, naming the member."""
    seq = state.seq + 1
    eid = event_ref(event, seq)
    unmoved: list[Unmoved] = []
    try:
        members = _members_after(state, event, eid, outcome, unmoved, replaying)
    except (RuleError, StructuralError) as exc:
        raise exc.located(event=eid) from None
    played = state.played
    if isinstance(event, FightPlayed):
        assert outcome is not None
        void = {left.member for left in unmoved}
        played += tuple(
            Played(
                seq=seq,
                fight=event.fight,
                member=member,
                character=character,
                joined=dict(outcome.characters[character].stats),
                record=join_stats(state.members[member]),
            )
            for member, character in event.members.items()
            if member not in void
        )
    return msgspec.structs.replace(
        state,
        seq=seq,
        members=members,
        played=played,
        unmoved=(*state.unmoved, *unmoved),
    )


def join_stats(record: Record) -> dict[str, int]:
    """The stats a fight's `character_joined` takes for this member now."""
    return dict(record.current)


def joining(
    record: Record, character: str, *, event_id: str | None = None, by: str | None = None
) -> CharacterJoined:
    """The `character_joined` that brings this member into a fight as their record stands:
    current stats, gear as it stands, the lasting injuries with where each was taken, and the
    conditions that last; the ruleset's rules read them in the new fight."""
    return CharacterJoined(
        id=event_id,
        by=by,
        character=character,
        name=record.name,
        side=record.side,
        kind=record.kind,
        stats=join_stats(record),
        gear=dict(record.gear),
        injuries=tuple(
            CarriedInjury(name=injury.name, fight=injury.fight, event=injury.event)
            for injury in record.injuries
        ),
        conditions=record.conditions,
    )


def _members_after(
    state: CampaignState,
    event: CampaignEvent,
    eid: str,
    outcome: FightOutcome | None,
    unmoved: list[Unmoved],
    replaying: bool,
) -> dict[str, Record]:
    """The roster after `event`; a member it leaves as they were while it moves the others is
    added to `unmoved`."""
    members = state.members
    permanence = permanence_of(state.ruleset)
    match event:
        case CampaignStarted():
            raise StructuralError(
                "`campaign_started` comes once, as the first event", field="$.type"
            )
        case Retract():
            return members
        case MemberJoined():
            if event.member in members:
                raise RuleError(f"{event.member} is already on the roster", field="$.member")
            return {**members, event.member: _as_a_fight_takes(state.ruleset, event)}
        case FightPlayed():
            if outcome is None:
                raise RuleError(f"fight `{event.fight}` is not in this store", field="$.fight")
            if outcome.ruleset != state.ruleset:
                raise RuleError(
                    f"fight `{event.fight}` plays {outcome.ruleset}, the campaign {state.ruleset}",
                    field="$.fight",
                )
            if any(p.fight == event.fight for p in state.played):
                raise RuleError(f"fight `{event.fight}` is already played", field="$.fight")
            after = dict(members)
            for member, character in event.members.items():
                gone = members.get(member)
                if replaying and gone is not None and not gone.active:
                    unmoved.append(Unmoved(seq=state.seq + 1, member=member, why=_part_void(gone)))
                    continue
                record = _active(members, member, f"$.members.{member}")
                final = outcome.characters.get(character)
                if final is None:
                    known = ", ".join(outcome.characters) or "none"
                    raise RuleError(
                        f"fight `{event.fight}` has no character `{character}` (it has: {known})",
                        field=f"$.members.{member}",
                    )
                after[member] = after_the_fight(permanence, record, outcome, character, final)
            return after
        case Rest():
            kind = event.kind or (permanence.rests[0] if permanence.rests else "")
            if kind not in permanence.rests:
                raise RuleError(
                    f"{state.ruleset} {permanence.no_rest}"
                    if not permanence.rests
                    else f"{state.ruleset} has no `{kind}` rest (it has: "
                    f"{', '.join(permanence.rests)})",
                    field="$.kind",
                )
            if event.member is not None:
                resting = [_active(members, event.member, "$.member")]
            else:  # everyone on the roster who is still in the campaign
                resting = [record for record in members.values() if record.active]
            kinded = msgspec.structs.replace(event, kind=kind)
            rested: dict[str, Record] = {}
            for record in resting:
                try:
                    rested[record.member] = permanence.rest(record, kinded)
                except RuleError as refused:
                    if event.member is not None or len(resting) == 1:
                        raise  # one member's rest, refused as asked
                    # a party's rest: this one gains nothing, the others rest
                    unmoved.append(
                        Unmoved(seq=state.seq + 1, member=record.member, why=refused.message)
                    )
            if resting and not rested:
                raise RuleError(
                    "nobody can rest: " + "; ".join(u.why for u in unmoved), field="$.kind"
                )
            return {**members, **rested}
        case Treatment():
            record = _active(members, event.member, "$.member")
            return {**members, event.member: permanence.treat(record, event)}
        case Repair():
            record = _active(members, event.member, "$.member")
            if permanence.repair is None:
                raise RuleError(
                    f"{state.ruleset}: a fight leaves no gear to repair (nothing of it lasts)",
                    field="$.type",
                )
            return {**members, event.member: permanence.repair(record, event)}
        case TimePassed():
            return {
                member: permanence.time_passes(record, event.days) if record.active else record
                for member, record in members.items()
            }
        case Retired():
            record = _active(members, event.member, "$.member")
            why = event.reason or "retired"
            return {
                **members,
                event.member: msgspec.structs.replace(record, retired=f"{why} ({eid})"),
            }
        case Died():
            record = _active(members, event.member, "$.member")
            said = f"recorded by the GM ({eid}{': ' + event.cause if event.cause else ''})"
            return {**members, event.member: msgspec.structs.replace(record, dead=said)}
        case _:
            raise StructuralError(
                f"`{type(event).__struct_config__.tag}` is a fight's event, not a campaign's: "
                "record it in the fight, then `fight_played`",
                field="$.type",
            )


def after_the_fight(
    permanence: Permanence, record: Record, outcome: FightOutcome, character: str, final: Any
) -> Record:
    """The record after one fight: the stats the ruleset carries moved by what the fight did
    to them (how it ends, less how it began), the injuries that last with the event that dealt
    each, death where it happened, retirement, the gear as the fight left it (an item destroyed
    is gone), and the fight on the list of fights."""
    began, ends = permanence.after_the_fight(final)
    current = dict(record.current)
    for stat, now in ends.items():
        start = began.get(stat, now)
        current[stat] = current.get(stat, start) + now - start
    where = outcome.gained.get(character, {})
    taken: dict[str, int] = {}
    injuries = list(record.injuries)
    began_as = outcome.joined.get(character)
    already = list(getattr(began_as, "injuries", ()))
    for injury in getattr(final, "injuries", ()):
        if injury in already:  # brought from an earlier fight: on the record already
            already.remove(injury)
            continue
        lasting = permanence.lasting(injury)
        if lasting is None:
            continue
        said = show(injury)
        events = where.get(said, [])
        nth = taken.get(said, 0)
        taken[said] = nth + 1
        event = events[nth] if nth < len(events) else (events[-1] if events else "?")
        injuries.append(msgspec.structs.replace(lasting, fight=outcome.fight, event=event))
    gear = dict(record.gear)
    if began_as is not None:  # what the fight did to the gear it began with
        for slot in began_as.gear:
            if slot not in final.gear:
                gear.pop(slot, None)  # destroyed (contractor: Maimed)
        for slot, item in final.gear.items():
            if began_as.gear.get(slot) != item:
                gear[slot] = item
    changed = msgspec.structs.replace(
        record,
        gear=gear,
        current=current,
        injuries=tuple(injuries),
        conditions=tuple(
            dict.fromkeys(
                [
                    *(c for c in record.conditions if c not in permanence.reads),
                    *permanence.conditions(final),
                ]
            )
        ),
        fights=(*record.fights, outcome.fight),
    )
    if final.state == DEAD:
        fell = outcome.fell.get(character, "?")
        changed = msgspec.structs.replace(changed, dead=f"fight {outcome.fight}, {fell}")
    elif permanence.retired(final):
        changed = msgspec.structs.replace(
            changed, retired=f"retires from adventuring (fight {outcome.fight})"
        )
    return changed


def _part_void(record: Record) -> str:
    why = f"is dead: {record.dead}" if record.dead is not None else f"has retired: {record.retired}"
    return f"{record.name} {why}; their part of this fight is void, the others' stands"


def _active(members: Mapping[str, Record], member: str, field: str) -> Record:
    record = members.get(member)
    if record is None:
        known = ", ".join(members) or "none yet"
        raise RuleError(f"no member `{member}` on the roster (members: {known})", field=field)
    if record.dead is not None:
        raise RuleError(f"{record.name} is dead: {record.dead}", field=field)
    if record.retired is not None:
        raise RuleError(f"{record.name} has retired: {record.retired}", field=field)
    return record


def _as_a_fight_takes(ruleset: str, event: MemberJoined) -> Record:
    """The member as a fight of the ruleset would take them: a `character_joined` with the same
    stats and gear is folded into an empty fight, so the ruleset refuses what it would refuse
    there (a misspelt stat, a missing one) and fills in its defaults."""
    joined = CharacterJoined(
        character=event.member,
        name=event.name,
        side=event.side,
        kind=event.kind,
        stats=event.stats,
        gear=event.gear,
    )
    fight, _ = apply(None, FightStarted(ruleset=ruleset))
    try:
        fight, _ = apply(fight, joined)
    except RuleError as exc:
        exc.event = None
        raise
    character = fight.characters[event.member]
    return Record(
        member=event.member,
        name=character.name,
        side=character.side,
        kind=character.kind,
        stats=dict(character.stats),
        gear=dict(character.gear),
        current=dict(character.stats),
    )


CAMPAIGN_EVENT_TYPES = frozenset({*CAMPAIGN_TYPES, Retract})
