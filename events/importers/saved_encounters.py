"""Programs that save the whole encounter each time (Improved Initiative, Avrae): each snapshot
is compared with the last one taken in.

A snapshot shows every combatant's HP and temporary HP, the initiative order and whose turn it
is. Against the last snapshot taken in (the cursor): HP and temporary HP that changed are hits
and heals (`Batch.hp_and_temporary`), and a turn that moved on ends and starts every turn it
crossed, in initiative order, ending a round where the order wrapped (as Foundry's own turn
events do when a GM skips over several combatants). The first snapshot of a fight (no cursor)
is the baseline: its combatants join, hurt already if below their maximum, and nothing ticks.

Which snapshot is late, or the same one again, is each program's to say (`Clock`): a snapshot
that is not newer than the cursor changes nothing and is reported, so a resend, a delivery out
of order or a replayed file never deals damage twice. Since every change is measured against
the last snapshot taken in, a snapshot skipped loses nothing: what it showed arrives with the
next one taken in.

Ids: the HP events of a snapshot are keyed by the snapshot (`Snapshot.key`, from the source's
own identity), turns by round and character (`<stream>r<round>:<character>:turn_started`,
`:turn_ended`, `<stream>r<round>:round_ended`), so going back a turn in the program and on
again is a resend of the same turn events, never a second tick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from ..model import TurnEnded, TurnStarted
from .base import Batch, Sighting, kept


@dataclass(frozen=True)
class Entry:
    """One place in the initiative order: a combatant, or a group whose members act together."""

    id: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class Snapshot:
    """What one record shows. `stream` prefixes the ids of its turns (one combat of a file of
    several: `<combat>:`), `key` is the record's own identity, `clock` orders the records of a
    stream (compared by `Clock.newer`), `digest` tells the same record again."""

    stream: str
    key: str
    digest: str
    clock: tuple[float, ...]
    round: int
    order: tuple[Entry, ...]
    active: str | None
    combatants: list[Sighting]
    untracked: list[tuple[str, str]]  # (combatant, why), reported once
    removable: frozenset[str] = frozenset()
    """Combatants the program removes by itself when their turn ends at 0 HP or below (Avrae's
    monsters, when the combat's `deathdelete` is on): one of them gone when its turn has ended
    is dead (see `Departed`)."""

    def entry(self, entry_id: str | None) -> Entry | None:
        return next((e for e in self.order if e.id == entry_id), None)


class Cursor(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The last snapshot of a stream taken in, as much as the next comparison needs
    (JSON-serialisable: the service keeps it between imports)."""

    key: str
    digest: str
    clock: list[float]
    round: int
    active: str | None
    members: list[str]
    hp: dict[str, int]
    temp_hp: dict[str, int]
    untracked: list[str] = []


def read_cursor(previous: object) -> Cursor:
    return kept(previous, Cursor)


def cursor_after(before: Cursor | None, now: Snapshot) -> Cursor:
    active = now.entry(now.active)
    reported = set(before.untracked) if before else set()
    return Cursor(
        key=now.key,
        digest=now.digest,
        clock=list(now.clock),
        round=now.round,
        active=now.active,
        members=list(active.members) if active else [],
        hp={who.id: who.hp for who in now.combatants},
        temp_hp={who.id: who.temp_hp for who in now.combatants if who.temp_hp},
        untracked=sorted(reported | {cid for cid, _ in now.untracked}),
    )


def late(before: Cursor | None, now: Snapshot, newer: bool) -> str | None:
    """Why `now` changes nothing (the same record again, or one older than the cursor), or
    None: it is taken in."""
    if before is None:
        return None
    if now.digest == before.digest:
        return "the same as the last one taken in"
    if not newer:
        return "older than the last one taken in"
    return None


Departed = Callable[[Batch, Cursor | None, Snapshot], None]
"""What a program makes of the combatants gone since the last snapshot (`take_in`'s
`departed`): called with every snapshot taken in, after its HP and before its turns (a
combatant dies on its turn, and is removed as the turn ends)."""


def step(
    batch: Batch, before: Cursor | None, now: Snapshot, departed: Departed | None = None
) -> Cursor:
    """Take in one snapshot: joins, then HP, then who is gone (`departed`), then the turn
    (damage is dealt during a turn, so a snapshot showing both had the damage first)."""
    reported = set(before.untracked) if before else set()
    for cid, why in now.untracked:
        if cid not in reported:
            batch.warn(why)
    uncompared: list[str] = []
    for who in now.combatants:
        if batch.sight(who):
            continue
        if before is None or who.id not in before.hp:
            uncompared.append(f"{who.name} {who.hp}/{who.max_hp} HP")
            continue
        temp = (before.temp_hp.get(who.id, 0), who.temp_hp)
        if before.hp[who.id] <= 0 < who.hp and who.player and batch.importing.revival:
            revived(batch, now.key, who, before.hp[who.id], temp)
        else:
            batch.hp_and_temporary(now.key, who.id, (before.hp[who.id], who.hp), temp)
    if before is None and uncompared:
        batch.warn(
            "already in the fight, and this import has no earlier snapshot to compare with (no "
            f"cursor): their HP here is not compared with the fight's: {', '.join(uncompared)}"
        )
    if departed is not None:
        departed(batch, before, now)
    if before is not None:
        turns(batch, before, now)
    return cursor_after(before, now)


def revived(batch: Batch, key: str, who: Sighting, was: int, temp: tuple[int, int]) -> None:
    """A player character the program showed at 0 HP or below (`was`) and shows alive again:
    healed the HP it shows (woundlog's HP stop at 0). A monster is not revived so: dnd5e's die
    at 0 HP, where these programs only show 0 HP, and a heal of one stays a refusal the GM is
    told of (as from Foundry). The program keeps no death saves of its own
    (Avrae's sheet forgets them at any HP above 0, Improved Initiative has none): the table
    rolls them, and woundlog may have the character dead by them. The heal is what the program
    did; should the rules refuse it for the dead, the same heal by the ruleset's revival means
    (`ImportRules.revival`, under its id plus `:revival`: `Batch.revivals`) takes its place,
    which a fight's option `revival` lets the rules take."""
    start = len(batch.events)
    batch.hp_and_temporary(key, who.id, (0, who.hp), temp)
    note = (
        f"{who.name} shown alive again at {who.hp} HP (from {was} HP) by {batch.source}, whose "
        "table's death saves had them dead: a revival"
    )
    batch.revivals(start, who.id, note)


def turns(batch: Batch, before: Cursor, now: Snapshot) -> None:
    """The turn ends and starts of going from `before` to `now`; none if the turn went back or
    stayed (a GM's correction: the end-of-turn rules cannot be run backwards)."""
    key = f"{now.stream}r"
    if now.round < before.round or (now.round == before.round and now.active == before.active):
        return
    if before.active is None or before.round < 1:  # the fight starts now
        if now.round >= 1 and (entry := now.entry(now.active)) is not None:
            tick(batch, TurnStarted, key, now.round, entry.members)
        return
    ids = [e.id for e in now.order]
    target = now.entry(now.active)
    known = target is not None and before.active in ids
    if (
        known
        and now.round == before.round
        and ids.index(now.active or "") < ids.index(before.active)
    ):
        return  # back within the round
    tick(batch, TurnEnded, key, before.round, tuple(before.members))
    if target is None:  # the fight is over, or paused: the turn ends, no other starts
        end_rounds(batch, key, before.round, now.round)
        return
    if not known:  # the combatant whose turn it was is gone: no order to walk
        end_rounds(batch, key, before.round, now.round)
        tick(batch, TurnStarted, key, now.round, target.members)
        return
    place, round_ = ids.index(before.active), before.round
    for _ in range(len(ids) * (now.round - before.round + 1)):
        place += 1
        if place == len(ids):
            place = 0
            end_rounds(batch, key, round_, round_ + 1)
            round_ += 1
        entry = now.order[place]
        tick(batch, TurnStarted, key, round_, entry.members)
        if (round_, entry.id) == (now.round, target.id):
            return
        tick(batch, TurnEnded, key, round_, entry.members)


def end_rounds(batch: Batch, key: str, first: int, last: int) -> None:
    """End the rounds from `first` up to the one before `last`."""
    for round_ in range(max(first, 1), last):
        batch.add(
            TurnEnded(id=batch.id(f"{key}{round_}", "round_ended"), by=batch.source, round=round_)
        )


def tick(
    batch: Batch,
    kind: type[TurnStarted] | type[TurnEnded],
    key: str,
    round_: int,
    members: tuple[str, ...],
) -> None:
    for character in members:
        batch.tick(kind, f"{key}{round_}", round_, character)


def take_in(
    batch: Batch,
    cursors: dict[str, Cursor],
    snapshots: list[tuple[int, Snapshot]],
    newer: Callable[[Cursor, Snapshot], bool],
    label: Callable[[Snapshot], str],
    departed: Departed | None = None,
) -> None:
    """Take in each (record index, snapshot) in turn against its stream's cursor; one that is
    late or seen before is skipped, with a warning naming it (`label`)."""
    for index, snapshot in snapshots:
        before = cursors.get(snapshot.stream)
        why = late(before, snapshot, before is None or newer(before, snapshot))
        if why is not None:
            batch.warn(f"{label(snapshot)} is {why}: skipped, it changes nothing")
            continue
        start = len(batch.events)
        cursors[snapshot.stream] = step(batch, before, snapshot, departed)
        batch.check(start, index)
