"""What outlasts a fight: the declaration each ruleset makes, beside its rules, for a campaign.

A ruleset's `permanence` says, from its text, what of a character's final state in one fight is
carried to the next (`after_the_fight`: the stats a `character_joined` takes, as the fight
began and as it ends; the campaign adds the difference to the member's record, so a fight's
result enters by folding its log, and an undo in an earlier fight flows forward), which
injuries last (`lasting`), and what a rest, a treatment or time between fights restores. Pure:
each function takes a record and an event and returns the record, or refuses with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from woundlog.events import RuleError
from woundlog.events.campaign import Repair, Rest, Treatment


class Injury(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A lasting injury on a member's record: where and when it was taken, and the change it
    makes to each stat while it lasts (`{"constitution": -4}`), when the ruleset's state tells
    it apart; either way that change is already in the record's `current` stats."""

    name: str
    fight: str
    event: str
    effect: dict[str, int] = {}
    permanent: bool = False  # no normal treatment removes it (contractor: Maimed)
    prosthetic: bool = False  # contractor: a Maimed wound's penalty offset by a prosthetic


class Record(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A member of the campaign as the campaign stands at one point.

    `stats` is the member as joined to the campaign; `current` the stats the next fight joins
    them with, every permanent change in it under the stat's own name (DESIGN section 8)."""

    member: str
    name: str
    side: str = ""
    kind: str = ""
    stats: dict[str, int] = {}
    gear: dict[str, str] = {}
    current: dict[str, int] = {}
    injuries: tuple[Injury, ...] = ()
    conditions: tuple[str, ...] = ()  # lasting until a rest (d26's Fatigued)
    fights: tuple[str, ...] = ()
    retired: str | None = None  # why, and where
    dead: str | None = None  # where (fight and event, or the campaign's event) and why

    @property
    def active(self) -> bool:
        return self.retired is None and self.dead is None


Carried = tuple[dict[str, int], dict[str, int]]
"""A fight's stats for the next one, as it began and as it ends."""


def _no_lasting(injury: Any) -> Injury | None:
    return None


def lasts(injury: Any) -> Injury:
    """An injury of the fight's state that lasts as it is, named as the state names it (its
    fight and event are filled in by the campaign)."""
    return Injury(name=str(injury), fight="", event="")


def _never(character: Any) -> bool:
    return False


def _no_time(record: Record, days: int) -> Record:
    return record


class Permanence(msgspec.Struct, frozen=True):
    """One ruleset's rules for what outlasts a fight (see the module docstring).

    A Struct, as the records are, rather than a dataclass: `dataclasses` (and `inspect` under
    it) would load at every `woundlog hit`, which never reads it (issue 28).

    `rests` names the kinds of rest the game has (an empty tuple: none, a rest is refused with
    `no_rest`, the ruleset's reason); `labels` the names its text gives its stats ("Starting
    Wounds" for Warhammer Quest's `wounds`), for the sentences of a report."""

    after_the_fight: Callable[[Any], Carried]
    rest: Callable[[Record, Rest], Record]
    treat: Callable[[Record, Treatment], Record]
    lasting: Callable[[Any], Injury | None] = _no_lasting
    retired: Callable[[Any], bool] = _never
    time_passes: Callable[[Record, int], Record] = _no_time
    rests: tuple[str, ...] = ()
    no_rest: str = "has no rest between fights"
    labels: dict[str, str] = msgspec.field(default_factory=dict)
    conditions: Callable[[Any], tuple[str, ...]] = lambda character: ()
    reads: tuple[str, ...] = ()
    """The conditions a member brings into a fight that its rules read (d26's Fatigued): the
    fight's end says whether they still hold. The others stay on the record as they were."""
    cannot_join: Callable[[Record], str | None] = lambda record: None
    repair: Callable[[Record, Repair], Record] | None = None
    """What a repair between fights restores (None: the game's gear takes nothing that lasts,
    and a repair is refused)."""

    def label(self, stat: str) -> str:
        return self.labels.get(stat, stat.replace("_", " ").capitalize())


# --- helpers the rulesets' declarations share --------------------------------------------------


def named_injury(record: Record, treatment: Treatment) -> Injury:
    """The injury a treatment names (by its name or the event that dealt it; the oldest if
    several match); the only one if it names none."""
    live = record.injuries
    if not treatment.injury:
        if len(live) == 1:
            return live[0]
        listed = ", ".join(i.name for i in live) or "none"
        raise RuleError(
            f"{record.name} has {len(live)} injuries: name the one treated (injuries: {listed})",
            field="$.injury",
        )
    for injury in live:
        if treatment.injury in (injury.name, injury.event):
            return injury
    listed = ", ".join(f"{i.name} ({i.fight} {i.event})" for i in live) or "none"
    raise RuleError(
        f"{record.name} has no injury `{treatment.injury}` (injuries: {listed})", field="$.injury"
    )


def without(record: Record, injury: Injury, *, restore: bool = True) -> Record:
    """The record with `injury` gone, and (if `restore`) what it took off each stat given back."""
    injuries = tuple(i for i in record.injuries if i is not injury)
    current = dict(record.current)
    if restore:
        for stat, value in injury.effect.items():
            if stat in current:
                current[stat] -= value
    return msgspec.structs.replace(record, injuries=injuries, current=current)


def heal_removes_injury(record: Record, treatment: Treatment) -> Record:
    """A treatment between fights heals the injury it names (a ruleset's decision, where its
    text gives no healing time)."""
    return without(record, named_injury(record, treatment))


def rest_clears_conditions(record: Record, rest: Rest) -> Record:
    return msgspec.structs.replace(record, conditions=()) if record.conditions else record


def refuse_treatment(why: str) -> Callable[[Record, Treatment], Record]:
    def treat(record: Record, treatment: Treatment) -> Record:
        raise RuleError(f"{record.name}: {why}", field="$.type")

    return treat


def nothing_to_restore(record: Record, rest: Rest) -> Record:
    return record


def same_stats(stats: dict[str, int], now: dict[str, int]) -> Carried:
    return dict(stats), {**stats, **now}
