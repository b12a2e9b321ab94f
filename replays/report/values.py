"""What a fight's report holds, as every front end gives it (`--json` and the service alike).

Chances are exact fractions written as two integers (`num`/`den`), never floats, so a reader
can check them by hand: a Mordheim injury roll whose highest of two dice is a 6 is `11/36`.
"""

from __future__ import annotations

from fractions import Fraction

import msgspec


class Chance(msgspec.Struct, frozen=True):
    """An exact chance, `num`/`den` in lowest terms."""

    num: int
    den: int

    @classmethod
    def of(cls, value: Fraction) -> Chance:
        return cls(value.numerator, value.denominator)

    def fraction(self) -> Fraction:
        return Fraction(self.num, self.den)

    def __str__(self) -> str:
        return f"{self.num}/{self.den}"


class Blow(msgspec.Struct, frozen=True, kw_only=True):
    """A character put out of the fight (downed, out of action) or killed, at event `seq`, by
    `by` (a character's id, someone outside the fight as the log names them, or None: no one,
    as bleeding at the end of a turn)."""

    seq: int
    character: str
    by: str | None
    state: str


class Tally(msgspec.Struct, kw_only=True):
    """Counts of a character or a side over the fight as it stands (undone events left out)."""

    hits_dealt: int = 0
    damage_dealt: int = 0
    hits_taken: int = 0
    damage_taken: int = 0
    heals_given: int = 0
    healing_given: int = 0
    heals_taken: int = 0
    healing_taken: int = 0
    knocked_down: int = 0
    stunned: int = 0
    downed: int = 0
    stabilised: int = 0
    rounds_down: int = 0


class CharacterReport(msgspec.Struct, kw_only=True):
    """One character's numbers: `tally`, the state the fight left them in, who put them out or
    killed them (`put_out_by`) and whom they put out (`put_out`)."""

    character: str
    name: str
    side: str
    state: str
    tally: Tally
    put_out_by: list[Blow] = []
    put_out: list[Blow] = []


class SideReport(msgspec.Struct, kw_only=True):
    """A side's totals: its characters' tallies summed, and how many ended the fight up."""

    side: str
    characters: list[str]
    tally: Tally
    standing: int


class Length(msgspec.Struct, frozen=True, kw_only=True):
    """How long the fight was: `rounds` (the highest round its ticks reached), `events` in the
    log; apart from the numbers, `undo_events` (retracts and amends) and the `undone` events
    they took back or replaced, and `void` ones the rules set aside."""

    rounds: int
    events: int
    undo_events: int
    undone: int
    void: int


class DieLuck(msgspec.Struct, frozen=True, kw_only=True):
    """Dice the rules read together (one die, or a ruleset's `dice_readings`: the highest of a
    hit's injury rolls, a D66, a total) and where their reading stood among every roll of as
    many dice: `at_least` of rolls read as high or higher, `at_most` as low or lower; and, where
    the rules order what the dice do (`Ruleset.die_harm`: a D66 by its result's severity, a
    death save's 1 below its other failures), `as_bad` of rolls did as much harm or more,
    `as_good` as little or less. Several dice read by their highest count every die the rules
    would roll, so the figures do not depend on the order the dice were written in."""

    seq: int
    event: str
    purpose: str
    character: str | None
    sides: int
    dice: list[int]
    reading: str  # "die", "highest", "total", "tens_units"
    value: int
    at_least: Chance
    at_most: Chance
    as_bad: Chance | None = None
    as_good: Chance | None = None


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """An event whose dice decided a character's lot: the exact chance, with that event's dice
    free, of an outcome at least as good (`lucky`) or at least as bad (`unlucky`) as theirs."""

    seq: int
    event: str
    character: str
    name: str
    kind: str  # "lucky" or "unlucky"
    chance: Chance
    explanation: str


class CharacterLuck(msgspec.Struct, frozen=True, kw_only=True):
    """How the fight's dice treated a character: given every event as it was played with the
    dice free, the chance of ending at least as badly (`as_bad`) or as well (`as_good`) as they
    did. `method`: `exact` (every die enumerated) or `sampled` (`samples` replays; then `as_bad`
    and `as_good` are shares of them and `*_low`/`*_high` a 95% Wilson interval)."""

    character: str
    name: str
    state: str
    as_bad: Chance
    as_good: Chance
    method: str
    samples: int | None = None
    as_bad_low: Chance | None = None
    as_bad_high: Chance | None = None
    as_good_low: Chance | None = None
    as_good_high: Chance | None = None


class Luck(msgspec.Struct, kw_only=True):
    """The dice of the fight: each reading (at most `DICE_LISTED`; `dice_read` counts all), per
    character luck, the luckiest and unluckiest moments, and why the per character figures are
    sampled when they are (`why_sampled`). The moments are weighed within one budget for the
    whole report: `moments_left_out` counts the events with dice past it, whose moments were
    not weighed, from event `moments_left_out_from` on (`why_left_out` says so in words)."""

    dice: list[DieLuck]
    dice_read: int
    characters: list[CharacterLuck]
    luckiest: Moment | None = None
    unluckiest: Moment | None = None
    why_sampled: str | None = None
    moments_left_out: int = 0
    moments_left_out_from: int | None = None
    why_left_out: str | None = None


class Line(msgspec.Struct, frozen=True, kw_only=True):
    """One sentence of the chronicle, with the event it tells of."""

    seq: int
    text: str


class Chapter(msgspec.Struct, frozen=True, kw_only=True):
    """The chronicle of one round (`round` 0: before the first round's ticks)."""

    round: int
    lines: list[Line]


class Track(msgspec.Struct, frozen=True, kw_only=True):
    """A character's health over the fight, for the chart: (seq, value) after each event that
    changed `counter` (`wounds`, `hp`, ...), from the value they joined with."""

    character: str
    counter: str
    points: list[tuple[int, int]]


class Report(msgspec.Struct, kw_only=True, omit_defaults=True):
    """`woundlog report FIGHT --json` and `GET /fights/{fight}/report`: a fight's numbers, its
    luck and its chronicle. `withheld`, in a viewer's copy: the GM's characters whose damage and
    healing taken (and their sides') are the GM's to see, given as 0 (application/redaction.py)."""

    fight: str
    name: str
    ruleset: str
    length: Length
    characters: list[CharacterReport]
    sides: list[SideReport]
    luck: Luck
    chronicle: list[Chapter]
    tracks: list[Track]
    withheld: list[str] = []
