"""A campaign written: its start, its roster, the fights it records, what happens between them,
its undo, and a fight's character joined from its roster, written once for every front end.

    campaign_new(campaign, ruleset, *, name="") -> CampaignAppended
    campaign_join(campaign, member, *, name="", side="", kind="", stats={}, gear={})
    campaign_record(campaign, fight, members=None)    a fight played: {member: character id}
    campaign_rest(campaign, kind="", *, member=None, amount=None)
    campaign_treat(campaign, member, *, injury="", means="", amount=None)
    campaign_time(campaign, days);  campaign_retire(campaign, member, *, reason="")
    campaign_died(campaign, member, *, cause="")
    campaign_between(campaign, event)                 any of the five above, as an event
    campaign_undo(campaign, event=None, *, fight=None, reason="") -> CampaignUndone
    join_from_campaign(fight, character, campaign, *, member=None, at=None) -> Appended
    campaign_ruleset_for(campaign, fight, ruleset) -> str      an import's check, before it
    campaign_record_imported(campaign, fight) -> (recorded, warnings)   an import's, after it

Reading a campaign is campaign_views.py's.

Every writing method takes `by`, `note` and `event_id` (the event's id: a retried request with
the same id and content is skipped, `CampaignAppended.skipped`, never recorded twice), and
`stop` (`core.odds.Budget.stop`'s shape): called now and then while the campaign is folded, it
may raise to end the work (a gate's budget).

A campaign event is checked as a fight's is: its structure as it would read back, its ids and
names printable, then the campaign's fold with it appended (`replays.campaign`), which refuses
what the rules refuse, naming the event and field. Only then is it written, at the version the
check read (a writer that got in first makes it check again). That check folds the campaign
once, each fight it records read from its cached contribution (`replays.campaign`): recording
the k-th fight folds that fight alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import to_builtins

from woundlog.core.campaign import CampaignState, joining, permanence_of, start_campaign
from woundlog.core.permanence import Record
from woundlog.events import (
    ConflictError,
    Event,
    RuleError,
    StructuralError,
    UsageError,
    WoundlogError,
    canonical,
    convert,
    decode_campaign_json,
    encode_json,
)
from woundlog.events.campaign import (
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
from woundlog.events.fight_ids import campaign_stream, check_fight_id
from woundlog.events.model import Retract, unprintable

from ..campaign import (
    Stop,
    campaign_state,
    campaign_then,
    consequences,
    fight_outcome,
)
from ..fight import Appended
from ..undo import Undo, check_target, target_of
from .campaign_views import CampaignViews
from .fights import FightCases
from .undoing import UndoCases
from .values import (
    CampaignAppended,
    CampaignNotFoundError,
    CampaignUndone,
    MemberRecord,
    member_record,
)

RETRIES = 20
"""How often an append is checked again when another writer got in first."""


class CampaignCases(CampaignViews, FightCases, UndoCases):
    """The campaign's writing use cases; a fight's (`record`, `state`, `undo`) are what they
    call in the fights they concern."""

    # --- writing ---------------------------------------------------------------------------

    def campaign_new(
        self, campaign: str, ruleset: str, *, name: str = "", stop: Stop = None, **common: Any
    ) -> CampaignAppended:
        """Start the campaign `campaign`, every fight of it played with `ruleset`; a campaign
        already there is refused (unless this is a retry of the same start)."""
        started = CampaignStarted(ruleset=ruleset, name=name, **_common(common))
        return self._append(campaign, started, new=True, stop=stop)

    def campaign_join(
        self,
        campaign: str,
        member: str,
        *,
        name: str = "",
        side: str = "",
        kind: str = "",
        stats: Mapping[str, int] | None = None,
        gear: Mapping[str, str] | None = None,
        stop: Stop = None,
        **common: Any,
    ) -> CampaignAppended:
        """A character joins the roster with their starting stats and gear, checked as a fight
        of the campaign's ruleset would check them."""
        joined = MemberJoined(
            member=member,
            name=name,
            side=side,
            kind=kind,
            stats=dict(stats or {}),
            gear=dict(gear or {}),
            **_common(common),
        )
        return self._append(campaign, joined, stop=stop)

    def campaign_record(
        self,
        campaign: str,
        fight: str,
        members: Mapping[str, str] | None = None,
        *,
        stop: Stop = None,
        **common: Any,
    ) -> CampaignAppended:
        """Fight `fight` was played: `members` maps each member who took part to their character
        id in it (None: every active member who is a character of the fight under their own
        id). Its result enters the campaign by folding the fight's log."""
        check_fight_id(fight)
        known = None
        if members is None:
            known = self._state(campaign, stop=stop)
            # played already (a retry): its members as recorded, though one died in it since
            members = {p.member: p.character for p in known.played if p.fight == fight} or (
                self._members_by_id(campaign, fight, known, stop=stop)
            )
        played = FightPlayed(fight=fight, members=dict(members), **_common(common))
        return self._append(campaign, played, stop=stop, known=known)

    def campaign_rest(
        self,
        campaign: str,
        kind: str = "",
        *,
        member: str | None = None,
        amount: int | None = None,
        stop: Stop = None,
        **common: Any,
    ) -> CampaignAppended:
        """A rest between fights, the ruleset's `kind` (default its first), for `member` or
        every active member; `amount`: the hit points a dnd5e short rest's Hit Dice gave."""
        rest = Rest(kind=kind, member=member, amount=amount, **_common(common))
        return self._append(campaign, rest, stop=stop)

    def campaign_treat(
        self,
        campaign: str,
        member: str,
        *,
        injury: str = "",
        means: str = "",
        amount: int | None = None,
        stop: Stop = None,
        **common: Any,
    ) -> CampaignAppended:
        """A member's injury (by name, or the event that dealt it) treated between fights."""
        treated = Treatment(
            member=member, injury=injury, means=means, amount=amount, **_common(common)
        )
        return self._append(campaign, treated, stop=stop)

    def campaign_repair(
        self, campaign: str, member: str, item: str, *, stop: Stop = None, **common: Any
    ) -> CampaignAppended:
        """A member's gear repaired or replaced between fights (`item`: the ruleset's word,
        DragonQuest's `armour` or `shield`)."""
        repair = Repair(member=member, item=item, **_common(common))
        return self._append(campaign, repair, stop=stop)

    def campaign_time(
        self, campaign: str, days: int, *, stop: Stop = None, **common: Any
    ) -> CampaignAppended:
        """`days` go by between fights (the healing times of the rulesets that give them)."""
        return self._append(campaign, TimePassed(days=days, **_common(common)), stop=stop)

    def campaign_retire(
        self, campaign: str, member: str, *, reason: str = "", stop: Stop = None, **common: Any
    ) -> CampaignAppended:
        retired = Retired(member=member, reason=reason, **_common(common))
        return self._append(campaign, retired, stop=stop)

    def campaign_died(
        self, campaign: str, member: str, *, cause: str = "", stop: Stop = None, **common: Any
    ) -> CampaignAppended:
        """A member's death, as the GM records it (a fight's own death is read from its log)."""
        died = Died(member=member, cause=cause, **_common(common))
        return self._append(campaign, died, stop=stop)

    def campaign_between(
        self,
        campaign: str,
        event: Rest | Treatment | Repair | TimePassed | Retired | Died,
        *,
        stop: Stop = None,
    ) -> CampaignAppended:
        """A between-fight event as the campaign's log holds it (a rest, a treatment, a repair,
        time passing, a retirement, a death): what `campaign_rest` and the others record, given
        whole."""
        return self._append(campaign, event, stop=stop)

    def campaign_undo(
        self,
        campaign: str,
        event: str | None = None,
        *,
        fight: str | None = None,
        reason: str = "",
        by: str | None = None,
        undo_id: str | None = None,
        stop: Stop = None,
    ) -> CampaignUndone:
        """Retract `event` of the campaign's log (default: its newest live event), or, with
        `fight`, of that fight of the campaign (the fight's own undo, default its newest live
        event), and report what that changed across the campaign: each member's stats from
        which fight on, and which later fights began from a record no longer true (their logs
        are history, left as they are)."""
        before = self._state(campaign, stop=stop)
        if fight is not None:
            if fight not in before.fights:
                played = ", ".join(before.fights) or "none yet"
                raise UsageError(
                    f"fight `{fight}` is not played in campaign `{campaign}` (fights: {played})"
                )
            target = event if event is not None else self.fight(fight).newest_live()
            appended = self.undo(fight, target, reason=reason, by=by, undo_id=undo_id)
            after = self._state(campaign, stop=stop)
            return CampaignUndone(
                campaign=campaign,
                version=self.store.version(campaign_stream(campaign)),
                retracted=target,
                fight=fight,
                fight_changes=appended,
                consequences=consequences(before, after),
            )
        target = event if event is not None else self._newest_live(campaign)
        retract = Retract(id=undo_id, event=target, reason=reason, by=by)
        appended_event = self._append(campaign, retract, stop=stop)
        after = self._state(campaign, stop=stop)
        return CampaignUndone(
            campaign=campaign,
            version=appended_event.version,
            retracted=target,
            consequences=consequences(before, after),
        )

    # --- a fight from the roster ------------------------------------------------------------

    def join_from_campaign(
        self,
        fight: str,
        character: str,
        campaign: str,
        *,
        member: str | None = None,
        at: int | None = None,
        by: str | None = None,
        event_id: str | None = None,
        stop: Stop = None,
        initiative: int | None = None,
    ) -> Appended:
        """`character` joins `fight` as campaign member `member` (default: the member of that
        id) with their record at the campaign's event `at` (default: now): their name, side,
        kind, gear and current stats, lasting injuries and conditions (`core.campaign.joining`),
        and `initiative`, this fight's own.
        A dead or retired member, or one the ruleset says cannot
        fight yet (dnd5e at 0 hit points), is refused with the reason."""
        state = self._state(campaign, at, stop=stop)
        record = _member(state, member or character, campaign)
        if record.dead is not None:
            raise RuleError(f"{record.name} is dead: {record.dead}", field="member")
        if record.retired is not None:
            raise RuleError(f"{record.name} has retired: {record.retired}", field="member")
        why = permanence_of(state.ruleset).cannot_join(record)
        if why is not None:
            raise RuleError(f"{record.name} {why}", field="member")
        ruleset = self.state(fight).ruleset
        if ruleset != state.ruleset:
            raise UsageError(
                f"fight `{fight}` plays {ruleset}, campaign `{campaign}` {state.ruleset}"
            )
        joined: Event = joining(record, character, event_id=event_id, by=by)
        if initiative is not None:  # decoded, so its bound is checked as a log's is
            joined = convert({**to_builtins(joined), "initiative": initiative}, index=0)
        return self.record(fight, [joined])

    # --- an import naming a campaign ----------------------------------------------------------

    def campaign_ruleset_for(
        self, campaign: str, fight: str, ruleset: str | None, *, stop: Stop = None
    ) -> str:
        """The ruleset an import into `fight` for `campaign` plays: the campaign's, checked
        before anything is written (a fight or `ruleset` of other rules is refused)."""
        plays = self._state(campaign, stop=stop).ruleset
        if self.exists(fight):
            ruleset = ruleset or self.state(fight).ruleset
        if ruleset is not None and ruleset != plays:
            raise UsageError(
                f"campaign `{campaign}` plays {plays}; fight `{fight}` would play {ruleset}"
            )
        return plays

    def campaign_record_imported(
        self, campaign: str, fight: str, *, stop: Stop = None
    ) -> tuple[bool, list[str]]:
        """After an import into `fight` committed: record it in `campaign`, with every active
        member who is a character of it under their own id, unless it is recorded there
        already, so a resent or continued import records it once. A character who is no member
        is not joined: a program's fights hold monsters and hirelings, the roster is the GM's.

        The fight's events are committed whatever happens here, so a refusal is not raised:
        it comes back as a warning saying how to record the fight by hand. Its `fight_played`
        has a fixed id, so once recorded and then undone by the GM, a resend leaves it undone.
        What `stop` raises ends the work and is raised, never made a warning."""
        by_hand = f"'woundlog campaign record {campaign} {fight}' records it"
        stopped: list[BaseException] = []

        def watched() -> None:
            try:
                if stop is not None:
                    stop()
            except BaseException as exc:
                stopped.append(exc)
                raise

        try:
            state = self._state(campaign, stop=watched)
            if fight in state.fights:
                return False, []
            members = self._members_by_id(campaign, fight, state, stop=watched)
            appended = self.campaign_record(
                campaign, fight, members, event_id=f"imported~{fight}", stop=watched
            )
        except ConflictError:  # recorded under this id before, then undone; or a race lost
            return False, []
        except Exception as error:  # the import is committed: whatever failed is a warning
            if stopped:
                raise  # the budget's end, not a failure of the record
            if isinstance(error, RuleError) and self._recorded_meanwhile(campaign, fight):
                return False, []  # another import of it got in first
            why = error.message if isinstance(error, WoundlogError) else str(error)
            return False, [f"fight `{fight}` is not recorded in campaign `{campaign}`: "
                           f"{why}; {by_hand}"]  # fmt: skip
        return not appended.skipped, []

    # --- the parts -------------------------------------------------------------------------

    def _recorded_meanwhile(self, campaign: str, fight: str) -> bool:
        try:
            return fight in self._state(campaign).fights
        except Exception:
            return False

    def _members_by_id(
        self, campaign: str, fight: str, state: CampaignState | None = None, *, stop: Stop = None
    ) -> dict[str, str]:
        """Each active member of the campaign (as it stands, or as `state`) who is a character
        of `fight` under their own id, as themselves."""
        if state is None:
            state = self._state(campaign, stop=stop)
        outcome = fight_outcome(self.store, fight, stop=stop)  # kept: the record reads it again
        if outcome is None:
            self.state(fight)  # no such fight: its own error
        characters = outcome.characters if outcome is not None else {}
        members = {m: m for m, record in state.members.items() if record.active and m in characters}
        if not members:
            raise UsageError(
                f"no member of campaign `{campaign}` is a character of fight `{fight}` under "
                f"their own id (members: {', '.join(state.members) or 'none yet'}; characters: "
                f"{', '.join(characters) or 'none'}): say who played whom"
            )
        return members

    def _newest_live(self, campaign: str) -> str:
        stream = campaign_stream(campaign)
        undo = Undo(self.store.campaign_undo_events(stream))
        newest = undo.newest_live(reversed(list(self.store.campaign_read(stream))))
        if newest is None:
            raise UsageError(f"nothing to undo in campaign `{campaign}`")
        return newest

    def _append(
        self,
        campaign: str,
        event: CampaignEvent,
        *,
        new: bool = False,
        stop: Stop = None,
        known: CampaignState | None = None,
    ) -> CampaignAppended:
        """Append `event` to the campaign's log once the campaign with it folds, at the version
        that check read; `known`: the campaign as the caller just folded it, used if the log
        has not moved on since (each fight in it is read from its kept contribution)."""
        stream = campaign_stream(campaign)
        event = _checked(event)
        store = self.store
        for _ in range(RETRIES):
            version = store.version(stream)
            if event.id is not None:
                kept = store.campaign_lookup(stream, [event.id]).get(event.id)
                if kept is not None:
                    if canonical(kept.event) != canonical(event):
                        raise ConflictError(
                            f"id `{event.id}` is already another event of campaign `{campaign}`",
                            current_version=version,
                            event=event.id,
                        )
                    return CampaignAppended(
                        campaign=campaign,
                        ruleset=self._ruleset(campaign, event),
                        version=version,
                        event=event,
                        skipped=True,
                    )
            if new and version:
                raise ConflictError(
                    f"campaign `{campaign}` is already there", current_version=version
                )
            if not new and version == 0:
                raise CampaignNotFoundError(
                    f"no campaign `{campaign}`: 'woundlog campaign new {campaign} --ruleset "
                    "NAME' starts one"
                )
            if isinstance(event, Retract):
                self._check_retract(stream, version, event)
            if new:
                after = start_campaign(event)  # an unknown ruleset is refused, naming the known
                before = None
            else:
                before = known if known is not None and known.seq == version else None
                if before is None:
                    before = campaign_state(store, campaign, at=version, stop=stop)
                after = campaign_then(store, before, (event,), stop=stop)
                known = None  # a retry reads the campaign again
            try:
                written = store.append(stream, [event], version)
            except ConflictError:
                continue  # another writer got in first: check against its events
            touched = [] if before is None else _touched(before, after)
            return CampaignAppended(
                campaign=campaign,
                ruleset=after.ruleset,
                version=written,
                event=event,
                members=touched,
            )
        raise ConflictError(
            f"gave up after {RETRIES} tries: campaign `{campaign}` kept changing",
            current_version=store.version(stream),
        )

    def _ruleset(self, campaign: str, event: CampaignEvent) -> str:
        if isinstance(event, CampaignStarted):
            return event.ruleset
        return self._state(campaign).ruleset

    def _check_retract(self, stream: str, version: int, retract: Retract) -> None:
        """A retract names an earlier event of the campaign other than its start: the fight's
        rule (`undo.check_target`), in the campaign's words."""
        found = self.store.campaign_lookup(stream, [retract.event]).get(retract.event)
        target = None if found is None else target_of(found)
        check_target(version + 1, retract, target, log="campaign")


def _common(given: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every event may carry, as a use case takes them (`event_id` for `id`)."""
    unknown = set(given) - {"by", "note", "event_id", "at"}
    if unknown:
        raise TypeError(f"unexpected arguments: {', '.join(sorted(unknown))}")
    common = {k: v for k, v in given.items() if k != "event_id" and v is not None}
    if given.get("event_id") is not None:
        common["id"] = given["event_id"]
    return common


def _checked(event: CampaignEvent) -> CampaignEvent:
    """The event as it would read back (a Struct built in Python skips the decoder's bounds:
    a negative day), its ids and names printable."""
    read = decode_campaign_json(encode_json(event))
    bad = unprintable(read)
    if bad is not None:
        raise StructuralError(bad[1], event=None, field=bad[0])
    return read


def _member(state: CampaignState, member: str, campaign: str) -> Record:
    record = state.members.get(member)
    if record is None:
        known = ", ".join(state.members) or "none yet"
        raise UsageError(f"no member `{member}` in campaign `{campaign}` (members: {known})")
    return record


def _touched(before: CampaignState, after: CampaignState) -> list[MemberRecord]:
    return [member_record(r) for m, r in after.members.items() if before.members.get(m) != r]
