"""A campaign over a store: its log folded, each fight it names read by folding that fight's log.

`campaign_state` folds the campaign's stream (`campaign~NAME`) with its undo applied; each
`fight_played` reads its fight through the fight's own fold (`Fight.steps`), as the fight stands
now or at the version `fights_at` gives, so a retract in an old fight changes every record after
it. `consequences` compares two such folds: what changed for each member from which fight on,
and which later fights began from a record that is no longer true (their logs are left alone).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from woundlog.core.campaign import (
    CampaignState,
    FightOutcome,
    Played,
    advance_campaign,
    pass_over,
    permanence_of,
    start_campaign,
)
from woundlog.core.changes import show
from woundlog.events import RuleError
from woundlog.events.campaign import CampaignEvent, FightPlayed
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.stores import Store, Stored

from .fight import Fight
from .undo import Undo


def fight_outcome(store: Store, fight: str, at: int | None = None) -> FightOutcome | None:
    """The fight's log folded (to seq `at`): its characters as they end, and the event where
    each of their injuries was gained and each death happened. None if there is no such fight."""
    if store.version(fight) == 0:
        return None
    gained: dict[str, dict[str, list[str]]] = {}
    fell: dict[str, str] = {}
    joined: dict[str, Any] = {}
    state = None
    for state, changes in Fight(store, fight).steps(at):
        for change in changes.characters:
            if change.before is None and change.after is not None:  # as it joined
                joined[change.character] = state.characters[change.character]
            for injury in change.injuries:
                gained.setdefault(change.character, {}).setdefault(show(injury), []).append(
                    changes.event
                )
            if change.after == "dead" and change.before != "dead":
                fell[change.character] = changes.event
    assert state is not None
    return FightOutcome(
        fight=fight,
        ruleset=state.ruleset,
        characters=state.characters,
        gained=gained,
        fell=fell,
        joined=joined,
    )


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One event of a campaign's log folded: the campaign after it, and, if it did nothing, why
    (`undone`: a retract took it back; `void`: the rules refuse it on replay, as a fight's
    fold voids an event an earlier undo left making no sense)."""

    stored: Stored[CampaignEvent]
    state: CampaignState
    undone: str | None = None
    void: str | None = None


def campaign_steps(
    store: Store,
    campaign: str,
    *,
    at: int | None = None,
    fights_at: Mapping[str, int] | None = None,
    then: tuple[CampaignEvent, ...] = (),
) -> Iterator[Step]:
    """The campaign's log folded event by event, to its seq `at` (default: now), then the events
    `then` (refused, not voided: an append's check). Each `fight_played` reads its fight as it
    stands now, or at the version `fights_at` gives it."""
    stream = campaign_stream(campaign)
    undo = Undo(store.campaign_undo_events(stream, at))
    state: CampaignState | None = None
    logged = list(undo.played(store.campaign_read(stream, 1, at)))
    end = logged[-1][0].seq if logged else 0
    fresh = [(Stored(end + i, event), event, None) for i, event in enumerate(then, start=1)]
    if not logged and store.version(stream) == 0:
        raise CampaignNotFound(f"no campaign `{campaign}` in this store")
    for stored, played, undone in [*logged, *fresh]:
        event = stored.event
        if state is None:
            state = start_campaign(event)
            yield Step(stored=stored, state=state)
            continue
        if played is None:  # taken back
            state = pass_over(state)
            yield Step(stored=stored, state=state, undone=undone)
            continue
        assert played is event  # a campaign's log holds no amend (its decoder refuses one)
        outcome = None
        if isinstance(event, FightPlayed):
            limit = (fights_at or {}).get(event.fight)
            outcome = fight_outcome(store, event.fight, limit)
        try:
            state = advance_campaign(state, event, outcome, replaying=stored.seq <= end)
        except RuleError as error:
            if stored.seq > end:
                raise
            state = pass_over(state)
            yield Step(stored=stored, state=state, void=error.message)
            continue
        yield Step(stored=stored, state=state)


def campaign_state(
    store: Store,
    campaign: str,
    *,
    at: int | None = None,
    fights_at: Mapping[str, int] | None = None,
    then: tuple[CampaignEvent, ...] = (),
) -> CampaignState:
    """The campaign at its seq `at` (default: now), plus the events `then` (`campaign_steps`)."""
    state: CampaignState | None = None
    for step in campaign_steps(store, campaign, at=at, fights_at=fights_at, then=then):
        state = step.state
    if state is None:
        raise CampaignNotFound(f"no campaign `{campaign}` in this store")
    return state


class CampaignNotFound(RuleError):
    exit_code = 2


class Consequence(msgspec.Struct, frozen=True, kw_only=True):
    """One member's stat, changed from one fight on (None: in the record now, after the last)."""

    member: str
    name: str
    stat: str
    label: str
    before: Any
    after: Any
    from_fight: str | None

    def line(self) -> str:
        since = f"from fight {self.from_fight} on" if self.from_fight else "now"
        return f"{self.name}: {self.label} {self.before} -> {self.after} {since}"


class Consequences(msgspec.Struct, frozen=True, kw_only=True):
    changes: list[Consequence]
    records: list[str]  # other differences of the record now (injuries, death, retirement)
    stale: list[Played]  # later fights that began from a record no longer true

    def lines(self) -> Iterator[str]:
        yield from (c.line() for c in self.changes)
        yield from self.records
        for played in self.stale:
            yield (
                f"fight {played.fight} began {played.member} from a record no longer true "
                f"(joined {played.joined}, the record now says {played.record}); its log is "
                "left as it is: amend its join to carry the correction in"
            )


def consequences(before: CampaignState, after: CampaignState) -> Consequences:
    """What changed between two folds of one campaign, member by member, fight by fight."""
    permanence = permanence_of(after.ruleset)
    found: list[Consequence] = []
    seen: set[tuple[str, str]] = set()
    was = {(p.fight, p.member): p for p in before.played}
    # (fight or None for the record now, member, as that point was before, record after it)
    points: list[tuple[str | None, str, Played | None, dict[str, int]]] = [
        (p.fight, p.member, was.get((p.fight, p.member)), p.record) for p in after.played
    ]
    points += [(None, m, None, r.current) for m, r in after.members.items()]  # and the record now
    for fight, member, then, now in points:
        old = then.record if then is not None else before.members[member].current
        if fight is None:
            old = before.members[member].current if member in before.members else {}
        name = after.members[member].name
        for stat in dict.fromkeys([*old, *now]):
            if (member, stat) in seen or old.get(stat) == now.get(stat):
                continue
            seen.add((member, stat))
            found.append(
                Consequence(
                    member=member,
                    name=name,
                    stat=stat,
                    label=permanence.label(stat),
                    before=old.get(stat),
                    after=now.get(stat),
                    from_fight=fight,
                )
            )
    records: list[str] = []
    for member, record in after.members.items():
        old_record = before.members.get(member)
        if old_record is None:
            continue
        lost = {i.name for i in old_record.injuries} - {i.name for i in record.injuries}
        new = {i.name for i in record.injuries} - {i.name for i in old_record.injuries}
        records += [f"{record.name}: no longer has {name}" for name in sorted(lost)]
        records += [f"{record.name}: now has {name}" for name in sorted(new)]
        if old_record.dead != record.dead:
            records.append(f"{record.name}: dead {old_record.dead} -> {record.dead}")
    return Consequences(changes=found, records=records, stale=[p for p in after.played if p.stale])
