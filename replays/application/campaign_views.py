"""A campaign read: its roster, each member's history across fights, what an undo changed, and
the numbers of its fights summed, written once for the CLI, the service and the pages.

    campaign_show(campaign, at=None) -> CampaignView           the roster's records
    campaign_history(campaign, member=None) -> CampaignHistory
    campaign_consequences(campaign, fights_at=None) -> Consequences
    campaign_report(campaign, *, most=None) -> CampaignReport  numbers summed over its fights

Each fight a campaign records is read as its contribution, folded once per version of its log
and kept in the store (`replays.campaign`). Every read takes `stop` (`core.odds.Budget.stop`'s
shape): called now and then as the work goes on, it may raise to end it (a gate's budget).

A member's record is shown as a fight's character is (DESIGN section 8): the stats the next
fight joins them with at the top level under their own names, the ones they joined with under
`stats` (`values.member_record`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from woundlog.core.campaign import CampaignState, permanence_of
from woundlog.events import UsageError
from woundlog.events.campaign import FightPlayed, Rest, TimePassed
from woundlog.events.fight_ids import campaign_stream

from ..campaign import (
    STOP_EVERY,
    CampaignNotFound,
    Consequences,
    Stop,
    campaign_state,
    campaign_steps,
    consequences,
)
from .reports import ReportCases
from .values import (
    CampaignHistory,
    CampaignNotFoundError,
    CampaignView,
    HistoryEntry,
    MemberChange,
    StatChange,
    member_record,
)

if TYPE_CHECKING:
    from ..campaign import Step
    from ..report.campaign import CampaignReport


T = TypeVar("T")


class CampaignViews(ReportCases):
    """A campaign as it stands, or stood: read by folding its log and the fights it records."""

    def campaign_show(
        self, campaign: str, at: int | None = None, *, stop: Stop = None
    ) -> CampaignView:
        """Every member's record, now or as the campaign stood at its event `at`."""
        version = self._version(campaign)
        if at is not None and not 1 <= at <= version:
            raise UsageError(f"at={at}: campaign `{campaign}` has events 1 to {version}")
        state = self._state(campaign, at, stop=stop)
        return CampaignView(
            campaign=campaign,
            name=state.name,
            ruleset=state.ruleset,
            seq=state.seq,
            version=version,
            members=[member_record(record) for record in state.members.values()],
            fights=list(state.fights),
            stale=[p for p in state.played if p.stale],
        )

    def campaign_history(
        self, campaign: str, member: str | None = None, *, stop: Stop = None
    ) -> CampaignHistory:
        """The campaign's log, each event with what it did to each member's record; for one
        `member`, the events that concern them alone, across fights."""
        version = self._version(campaign)
        entries: list[HistoryEntry] = []
        before: CampaignState | None = None
        for step in self._steps(campaign, stop=stop):
            state = step.state
            changes = [] if before is None else _member_changes(before, state)
            if member is not None:
                changes = [c for c in changes if c.member == member]
                if not changes and not _names(step.stored.event, member):
                    before = state
                    continue
            entries.append(
                HistoryEntry(
                    seq=step.stored.seq,
                    event=step.stored.event,
                    changes=changes,
                    undone=step.undone,
                    void=step.void,
                    unmoved=[u for u in state.unmoved if u.seq == step.stored.seq],
                )
            )
            before = state
        if member is not None and before is not None and member not in before.members:
            known = ", ".join(before.members) or "none yet"
            raise UsageError(f"no member `{member}` in campaign `{campaign}` (members: {known})")
        return CampaignHistory(campaign=campaign, version=version, member=member, entries=entries)

    def campaign_consequences(
        self, campaign: str, fights_at: Mapping[str, int] | None = None, *, stop: Stop = None
    ) -> Consequences:
        """What the campaign's fights as they stand now change against the campaign as they
        stood at the versions `fights_at` gives (None: no comparison, only the fights that
        began from a record no longer true)."""
        after = self._state(campaign, stop=stop)
        if not fights_at:
            return consequences(after, after)
        for fight in fights_at:
            if fight not in after.fights:
                played = ", ".join(after.fights) or "none yet"
                raise UsageError(
                    f"fight `{fight}` is not played in campaign `{campaign}` (fights: {played})"
                )
        return consequences(self._state(campaign, fights_at=fights_at, stop=stop), after)

    def campaign_report(
        self, campaign: str, *, most: int | None = None, stop: Stop = None
    ) -> CampaignReport:
        """Each member's numbers (as `report(fight)` counts them) summed over the fights the
        campaign records, through each `fight_played`'s member -> character mapping (one the
        GM took back counts for nothing), per member and in all, with the fights listed. Luck
        and chronicle stay per fight. Fights of more than `most` events in all: TooLarge."""
        from ..report.campaign import campaign_numbers
        from ..report.numbers import fight_numbers

        state = self._state(campaign, stop=stop)
        numbers = {}
        left = most
        for fight in state.fights:
            if stop is not None:
                stop()
            _, stream, played = self.replayed(fight, most=left)
            numbers[fight] = fight_numbers(_stopping(played, stop))
            if left is not None:
                left -= len(stream)
        roster = {m: (r.name, r.side) for m, r in state.members.items()}
        return campaign_numbers(campaign, state.name, state.ruleset, roster, state.played, numbers)

    # --- the campaign's fold ------------------------------------------------------------------

    def _steps(self, campaign: str, **asked: Any) -> Iterator[Step]:
        try:
            yield from campaign_steps(self.store, campaign, **asked)
        except CampaignNotFound as error:
            raise CampaignNotFoundError(error.message) from None

    def _state(
        self,
        campaign: str,
        at: int | None = None,
        *,
        fights_at: Mapping[str, int] | None = None,
        stop: Stop = None,
    ) -> CampaignState:
        try:
            return campaign_state(self.store, campaign, at=at, fights_at=fights_at, stop=stop)
        except CampaignNotFound as error:
            raise CampaignNotFoundError(error.message) from None

    def _version(self, campaign: str) -> int:
        version = self.store.version(campaign_stream(campaign))
        if version == 0:
            raise CampaignNotFoundError(f"no campaign `{campaign}` in this store")
        return version


def _stopping(items: Iterable[T], stop: Stop) -> Iterator[T]:
    """`items`, with `stop` called every STOP_EVERY of them."""
    for n, item in enumerate(items, start=1):
        if stop is not None and n % STOP_EVERY == 0:
            stop()
        yield item


def _names(event: Any, member: str) -> bool:
    """Whether a campaign event names `member` (a rest of everyone names them all)."""
    if isinstance(event, FightPlayed):
        return member in event.members
    if isinstance(event, Rest | TimePassed):
        return getattr(event, "member", None) in (None, member)
    return getattr(event, "member", None) == member


def _member_changes(before: CampaignState, after: CampaignState) -> list[MemberChange]:
    """What one event did to each member's record: its stats, injuries, death, retirement."""
    permanence = permanence_of(after.ruleset)
    changes = []
    for member, now in after.members.items():
        was = before.members.get(member)
        if was == now:
            continue
        if was is None:
            changes.append(MemberChange(member=member, name=now.name, joined=True))
            continue
        stats = [
            StatChange(
                stat=stat,
                label=permanence.label(stat),
                before=was.current.get(stat),
                after=now.current.get(stat),
            )
            for stat in dict.fromkeys([*was.current, *now.current])
            if was.current.get(stat) != now.current.get(stat)
        ]
        old = list(was.injuries)
        gained = []
        for injury in now.injuries:
            if injury in old:
                old.remove(injury)
            else:
                gained.append(injury)
        changes.append(
            MemberChange(
                member=member,
                name=now.name,
                stats=stats,
                gained=gained,
                lost=[i.name for i in old],
                conditions=list(now.conditions) if now.conditions != was.conditions else [],
                dead=now.dead if now.dead != was.dead else None,
                retired=now.retired if now.retired != was.retired else None,
            )
        )
    return changes
