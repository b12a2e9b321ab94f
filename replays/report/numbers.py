"""Per character and per side numbers, counted from the fight as it stands (every undo
applied): what was played, never what the GM took back.

Decisions where the issue is silent:
- A hit counts as a hit and its `damage` as damage whatever the rules made of it (armour, a
  fighter already on zero): the numbers tell what was dealt; the states tell what it did. A
  hit or heal the rules voided counts for nothing.
- An attacker or healer who is no character of the fight (a trap, a spell) deals and heals
  for no one's tally, but is named in `put_out_by`.
- Knocked down, stunned, downed and stabilised count each time a character moves into that
  state from another one.
- Put out: moved into `downed` or `out_of_action`; killed: moved into `dead`. Each is a `Blow`
  by the hit's attacker; by no one when a tick or a heal did it (bleeding, a failed roll).
- Rounds spent down: the rounds (as the ticks number them) in which, after some event, the
  character was knocked down, stunned, downed or stabilised. Before the first tick there is
  no round to count.
- Standing: a side's characters the fight left upright, knocked down or stunned.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from woundlog.core import Changes, FightState
from woundlog.events import Amend, Event, FightStarted, Heal, Hit, Retract
from woundlog.events.stores import Stored

from .values import Blow, CharacterReport, Length, SideReport, Tally

COUNTED = ("knocked_down", "stunned", "downed", "stabilised")
DOWN = frozenset(COUNTED)
PUT_OUT = frozenset({"downed", "out_of_action", "dead"})
STANDING = frozenset({"upright", "knocked_down", "stunned"})
TALLIED = tuple(Tally.__struct_fields__)


class Numbers:
    """Takes the fight event by event (`add`) and tells its numbers (`characters`, `sides`)."""

    def __init__(self) -> None:
        self.tallies: dict[str, Tally] = {}
        self.put_out_by: dict[str, list[Blow]] = {}
        self.put_out: dict[str, list[Blow]] = {}
        self.down: set[str] = set()
        # per character: the rounds counted down, and the last of them (a fold's rounds never
        # go back, so a round is new when it is not the last one counted); counted as a
        # character goes down, and for each one down when a round begins
        self.rounds_down: dict[str, list[int]] = {}
        self.round = 0  # the round of the last event counted

    def add(self, event: Event | None, after: FightState[Any], changes: Changes) -> None:
        if event is None or changes.void is not None:
            return
        tallies = self.tallies
        attacker = None
        # an event's type asked, not `isinstance` (core.reducer._effect says why)
        if type(event) is Hit:
            self._hit(event, after)
            attacker = event.attacker
        elif type(event) is Heal:
            self._heal(event, after)
        round_now = after.rounds.round
        for change in changes.characters:
            cid, state = change.character, change.after
            tally = tallies.get(cid)
            if tally is None:
                tally = tallies[cid] = Tally()
            if state == change.before or state is None:
                continue
            if state in DOWN:
                setattr(tally, state, getattr(tally, state) + 1)
                self.down.add(cid)
                if round_now:
                    self._count_down(cid, round_now)
            else:
                self.down.discard(cid)
            if state in PUT_OUT and not (change.before in PUT_OUT and state != "dead"):
                blow = Blow(seq=changes.seq, character=cid, by=attacker, state=state)
                self.put_out_by.setdefault(cid, []).append(blow)
                if attacker is not None:
                    self.put_out.setdefault(attacker, []).append(blow)
        if round_now != self.round:  # a new round: each character down in it counts it
            self.round = round_now
            if round_now:
                for cid in self.down:
                    self._count_down(cid, round_now)

    def _count_down(self, cid: str, round_now: int) -> None:
        counted = self.rounds_down.setdefault(cid, [0, 0])
        if counted[1] != round_now:
            counted[0] += 1
            counted[1] = round_now

    def _hit(self, hit: Hit, state: FightState[Any]) -> None:
        taken = self.tallies.setdefault(hit.target, Tally())
        taken.hits_taken += 1
        taken.damage_taken += hit.damage
        if hit.attacker is not None and hit.attacker in state.characters:
            dealt = self.tallies.setdefault(hit.attacker, Tally())
            dealt.hits_dealt += 1
            dealt.damage_dealt += hit.damage

    def _heal(self, heal: Heal, state: FightState[Any]) -> None:
        taken = self.tallies.setdefault(heal.target, Tally())
        taken.heals_taken += 1
        taken.healing_taken += heal.amount
        if heal.healer is not None and heal.healer in state.characters:
            given = self.tallies.setdefault(heal.healer, Tally())
            given.heals_given += 1
            given.healing_given += heal.amount

    def characters(self, final: FightState[Any]) -> list[CharacterReport]:
        """Every character of the fight as it ends, in join order."""
        reports = []
        for cid, character in final.characters.items():
            tally = self.tallies.get(cid, Tally())
            tally.rounds_down = self.rounds_down.get(cid, [0, 0])[0]
            reports.append(
                CharacterReport(
                    character=cid,
                    name=character.name,
                    side=character.side,
                    state=character.state,
                    tally=tally,
                    put_out_by=self.put_out_by.get(cid, []),
                    put_out=self.put_out.get(cid, []),
                )
            )
        return reports


def sides(characters: list[CharacterReport]) -> list[SideReport]:
    """Each side's totals, sides in the order their first character joined."""
    reports: dict[str, SideReport] = {}
    for one in characters:
        side = reports.setdefault(
            one.side, SideReport(side=one.side, characters=[], tally=Tally(), standing=0)
        )
        side.characters.append(one.character)
        side.standing += one.state in STANDING
        for field in TALLIED:
            setattr(side.tally, field, getattr(side.tally, field) + getattr(one.tally, field))
    return list(reports.values())


class FightNumbers(msgspec.Struct, kw_only=True):
    """A fight's numbers without its luck or chronicle: what a campaign's report sums."""

    name: str
    length: Length
    characters: list[CharacterReport]


class Count:
    """The numbers and the length of a fight, taken event by event as `fold.replayed` gives
    them (`add`), told at its end (`done`)."""

    def __init__(self) -> None:
        self.numbers = Numbers()
        self.name = ""
        self.undo_events = self.undone = self.void = 0

    def add(
        self, stored: Stored[Event], event: Event | None, state: FightState[Any], changes: Changes
    ) -> None:
        if type(stored.event) is Retract or type(stored.event) is Amend:
            self.undo_events += 1
        self.undone += changes.undone is not None
        self.void += changes.void is not None
        if type(event) is FightStarted:
            self.name = event.name
        self.numbers.add(event, state, changes)

    def done(self, final: FightState[Any]) -> FightNumbers:
        return FightNumbers(
            name=self.name,
            length=Length(
                rounds=final.rounds.round,
                events=final.seq,
                undo_events=self.undo_events,
                undone=self.undone,
                void=self.void,
            ),
            characters=self.numbers.characters(final),
        )


def fight_numbers(
    played: Iterable[tuple[Stored[Event], Event | None, FightState[Any], Changes]],
) -> FightNumbers:
    """A fight's numbers alone (`build` without the odds engine's luck or the chronicle)."""
    count = Count()
    state: FightState[Any] | None = None
    for stored, event, state, changes in played:
        count.add(stored, event, state, changes)
    assert state is not None, "a fight begins with fight_started"
    return count.done(state)
