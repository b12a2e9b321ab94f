"""How lucky the dice of a fight were, exactly.

Three figures, each from what the log knows (every die with its purpose, the rules that read
it, and the exact odds engine):

- a reading: the dice of one purpose an event rolled (for one character), read as the rules
  read them (`Ruleset.dice_readings`), and where that reading stands among all rolls of as
  many dice: a Mordheim hit whose injury dice were 2 and 6 reads 6, the highest of two d6,
  and 11 of the 36 rolls of two d6 have a highest of 6 or more.
- a moment: one event run again from the state before it with its dice free (`core.odds`),
  and per character it touched, the exact chance of an outcome at least as bad (or as good)
  as the one played.
- per character: the whole fight as played, every die free, and the chance of ending at
  least as badly (or as well). Exact within its budget; past it, sampled, with an interval.

Decisions where the issue is silent:
- An outcome is ranked by its ruleset's order of harm (`Ruleset.harm`): the character's state
  (upright, knocked down, stunned, stabilised, downed, out of action, dead: worse in that
  order), then the counters its rules treat as decisive (dnd5e's failed death saves, Warhammer
  Quest's Serious Injuries by severity and Starting Wounds, d26's Fatal and Severe Injuries and
  Fatigue, DragonQuest's Grievous Injuries and Endurance, the contractor's Maimed wounds and
  Constitution). Outcomes of the same rank are as bad as each other: a chance of "at least as
  bad" counts them. So a death save's natural 1 (two failures) is 1 in 20, not 19 in 20.
- A reading is where its dice stood by face (`at_least`, `at_most`) and, where the rules order
  what the dice do (`Ruleset.die_harm`), by harm (`as_bad`, `as_good`): a D66 by its result's
  severity, not its number. Dice read by their highest count every die the rules would roll
  (`Ruleset.dice_asked`), so [2, 6] and [6, 2] read alike though the second stops at the 6.
- A reading counts the dice the rules rolled: a die the rules never rolled (a Mordheim hit
  settled out of action by its first die) is no part of it.
- A moment is only an event whose dice could have changed the rank of someone's outcome.
  The luckiest is the one with the smallest chance of going at least as well; the unluckiest,
  at least as badly; the earlier wins a tie.
- The whole-fight figures start after `fight_started` and run every event as played (amended
  ones as their replacement, retracted ones left out, undo events themselves left out),
  without the dice the log gives. A voided event stays in: on other dice it may stand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import groupby
from typing import Any

import msgspec

from woundlog.core import Changes, FightState, get_ruleset
from woundlog.core.dice import DieRoll
from woundlog.core.fight_state import Character
from woundlog.core.odds import Budget, TooLarge, branches, estimate, exact
from woundlog.events import Event

from .values import Chance, CharacterLuck, DieLuck, Moment

MOMENT_STEPS = 20_000
"""Reducer steps one event's moment may take (a D66 and a d6 after it: about 250)."""
REPORT_STEPS = 200_000
"""Reducer steps the moments of one report may take in all, however many events have dice (a
step is a few microseconds: about a second). Past it, the later events' moments are left out
and the report says so, rather than a long fight's report taking a minute a hundred events."""
FIGHT_STEPS = 10_000
"""Reducer steps the whole fight may take exactly before it is sampled (a report must come
back in a second or two: a step of a Warhammer Quest hit costs about 40 microseconds)."""
SAMPLE_STEPS = 60_000
"""Events replayed, all samples together, for a fight too large to enumerate."""
MOST_SAMPLES = 1_000
FEWEST_SAMPLES = 30
"""Under this many samples an interval says nothing: the figures are left out, and why."""
DICE_LISTED = 1_000
"""The most readings a report lists; `Luck.dice_read` counts them all."""
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def tails(
    played: Character, cid: str, outcomes: Iterable[tuple[FightState[Any], Fraction]], ruleset: str
) -> tuple[Fraction, Fraction]:
    """The chance, over `outcomes`, that character `cid` fares at least as badly as `played`,
    and at least as well, by the ruleset's order of harm (`Ruleset.harm`)."""
    harm = get_ruleset(ruleset).harm
    lot = harm(played)
    as_bad = as_good = Fraction(0)
    for state, chance in outcomes:
        other = state.characters.get(cid)
        if other is None:
            continue
        rank = harm(other)
        as_bad += chance if rank >= lot else 0
        as_good += chance if rank <= lot else 0
    return as_bad, as_good


# --- readings -------------------------------------------------------------------------------


def readings(before: FightState[Any], event: Event, changes: Changes) -> list[DieLuck]:
    """The event's dice, grouped by purpose and character, as its rules read them: where
    their reading stood among every roll of as many dice, by face, and by what the dice did
    where the rules order it (`Ruleset.die_harm`)."""
    rules = get_ruleset(before.ruleset)
    kinds: Mapping[str, str] = rules.dice_readings
    found: list[DieLuck] = []
    ordered = sorted(changes.dice, key=lambda die: (die.purpose, die.character or ""))
    for (purpose, character), group in groupby(
        ordered, key=lambda die: (die.purpose, die.character)
    ):
        dice = list(group)
        kind = kinds.get(purpose, "die")
        asked = rules.dice_asked(before, event, purpose) if kind == "highest" else None
        harm = rules.die_harm(before, purpose)
        for values, reading, value, at_least, at_most in _read(kind, dice, asked):
            by_harm = None if harm is None else harmed(kind, values, dice[0].sides, harm, asked)
            found.append(
                DieLuck(
                    seq=changes.seq,
                    event=changes.event,
                    purpose=purpose,
                    character=character,
                    sides=dice[0].sides,
                    dice=values,
                    reading=reading,
                    value=value,
                    at_least=Chance.of(at_least),
                    at_most=Chance.of(at_most),
                    as_bad=None if by_harm is None else Chance.of(by_harm[0]),
                    as_good=None if by_harm is None else Chance.of(by_harm[1]),
                )
            )
    return found


def reading_count(before: FightState[Any], changes: Changes) -> int:
    """How many readings `readings` finds in the event's dice, without working them out: what
    a report counts of the readings past the DICE_LISTED it lists."""
    if len(changes.dice) == 1:  # one die reads once, whatever its kind
        return 1
    kinds: Mapping[str, str] = get_ruleset(before.ruleset).dice_readings
    count = 0
    ordered = sorted(changes.dice, key=lambda die: (die.purpose, die.character or ""))
    for (purpose, _), group in groupby(ordered, key=lambda die: (die.purpose, die.character)):
        dice = sum(1 for _ in group)
        kind = kinds.get(purpose, "die")
        if kind == "highest" or (kind == "total" and dice > 1):
            count += 1
        elif kind == "tens_units":
            count += dice // 2 + dice % 2
        else:
            count += dice
    return count


def harmed(
    kind: str, values: list[int], sides: int, harm: Mapping[int, int], asked: int | None
) -> tuple[Fraction, Fraction]:
    """The chance of a result at least as bad as these dice's, and at most as bad, by what each
    result does (`harm`, worse larger), whatever order the dice were written in: a D66 by its
    result; several dice read by their highest (Mordheim's injury rolls) by the worst of `asked`
    dice (the rolls the rules would make, though they stop once the worst is settled); one die
    by its face's harm."""
    if kind == "tens_units" and len(values) == 2:
        results = [harm[10 * a + b] for a in range(1, sides + 1) for b in range(1, sides + 1)]
        played = harm[10 * values[0] + values[1]]
    else:
        results = [harm[face] for face in range(1, sides + 1)]
        played = max(harm[v] for v in values)
    every = len(results)
    worse_or_same = sum(1 for h in results if h >= played)
    better_or_same = sum(1 for h in results if h <= played)
    if kind == "highest":  # the worst of n dice
        n = max(asked or 0, len(values))
        below = every - worse_or_same  # faces strictly better than the worst played
        return (
            1 - Fraction(below, every) ** n,
            Fraction(better_or_same, every) ** n,
        )
    return Fraction(worse_or_same, every), Fraction(better_or_same, every)


Read = tuple[list[int], str, int, Fraction, Fraction]


def _read(kind: str, dice: list[DieRoll], asked: int | None = None) -> list[Read]:
    sides = dice[0].sides
    values = [die.value for die in dice]
    if kind == "highest" and max(len(values), asked or 0) > 1:
        return [highest(values, sides, asked)]
    if kind == "total" and len(values) > 1:
        return [total(values, sides)]
    if kind == "tens_units":
        pairs = [values[i : i + 2] for i in range(0, len(values) - 1, 2)]
        rest = [] if len(values) % 2 == 0 else [values[-1]]
        return [tens_units(pair, sides) for pair in pairs] + [one(v, sides) for v in rest]
    return [one(v, sides) for v in values]


def one(value: int, sides: int) -> Read:
    """One die: `value` or more is (sides - value + 1) of `sides` faces."""
    return [value], "die", value, Fraction(sides - value + 1, sides), Fraction(value, sides)


def highest(values: list[int], sides: int, asked: int | None = None) -> Read:
    """The highest of n dice is v or more unless every die is under v: 1 - ((v-1)/s)^n; n the
    dice the rules would roll (`asked`), though they stopped early, else the dice rolled.

    Example: highest([2, 6], 6) reads 6, at least as high 11/36; so does [6] of 2 asked."""
    n, top = max(len(values), asked or 0), max(values)
    every = sides**n
    at_least = Fraction(every - (top - 1) ** n, every)
    return values, "highest", top, at_least, Fraction(top**n, every)


def total(values: list[int], sides: int) -> Read:
    """The sum of n dice, its distribution counted by convolution (integers throughout)."""
    ways = [1]  # ways[t]: rolls of the dice so far that total t
    for _ in values:
        grown = [0] * (len(ways) + sides)
        for t, count in enumerate(ways):
            if count:
                for face in range(1, sides + 1):
                    grown[t + face] += count
        ways = grown
    every = sides ** len(values)
    sum_ = sum(values)
    return (
        values,
        "total",
        sum_,
        Fraction(sum(ways[sum_:]), every),
        Fraction(sum(ways[: sum_ + 1]), every),
    )


def tens_units(pair: list[int], sides: int) -> Read:
    """A D66: tens then units, each of the s*s results equally likely."""
    tens, units = pair
    value = 10 * tens + units
    results = [10 * a + b for a in range(1, sides + 1) for b in range(1, sides + 1)]
    every = len(results)
    above = sum(1 for r in results if r >= value)
    below = sum(1 for r in results if r <= value)
    return pair, "tens_units", value, Fraction(above, every), Fraction(below, every)


# --- moments --------------------------------------------------------------------------------


def free(event: Event) -> Event:
    """The event without the dice it was given: the odds engine enumerates them."""
    return msgspec.structs.replace(event, rolls={}) if event.rolls else event


class Weighing:
    """What the moments of one report may still spend: `steps` in all (REPORT_STEPS), each at
    most MOMENT_STEPS. A moment too large on its own is skipped, as it always was; once the
    whole budget is spent, every later event with dice is left out (`left_out`, from seq
    `left_out_from`). `stop` is called as the work goes and may raise (a request's deadline)."""

    def __init__(self, steps: int = REPORT_STEPS, stop: Callable[[], None] | None = None) -> None:
        self.steps = steps
        self.left = steps
        self.stop = stop
        self.left_out = 0
        self.left_out_from: int | None = None

    def why(self) -> str | None:
        if not self.left_out:
            return None
        return (
            f"the moments of {self.left_out:,} events from #{self.left_out_from} on were left "
            f"out: a report weighs its moments within {self.steps:,} reducer steps in all"
        )


def moments(
    before: FightState[Any],
    event: Event,
    after: FightState[Any],
    changes: Changes,
    weighing: Weighing | None = None,
) -> list[Moment]:
    """Per character this event's dice could have treated otherwise, the chance of an outcome
    at least as good and at least as bad as theirs (each only where under 1), within what
    `weighing` has left (default: this moment alone)."""
    if not changes.dice or changes.void is not None:
        return []
    weighing = weighing or Weighing()
    if weighing.left_out:
        weighing.left_out += 1
        return []
    allowed = min(MOMENT_STEPS, weighing.left)
    budget = Budget(allowed, stop=weighing.stop)
    try:
        ways = branches(before, free(event), budget)
    except TooLarge:
        weighing.left -= min(budget.spent, allowed)
        if allowed < MOMENT_STEPS:  # the report's budget ran out, not this moment's own
            weighing.left_out, weighing.left_out_from = 1, changes.seq
        return []
    weighing.left -= budget.spent
    concerned = [c.character for c in changes.characters]
    concerned += [d.character for d in changes.dice if d.character and d.character not in concerned]
    target = getattr(event, "target", None)
    if target is not None and target not in concerned:
        concerned.append(target)
    found = []
    for cid in concerned:
        played = after.characters.get(cid)
        if played is None:
            continue
        as_bad, as_good = tails(
            played, cid, ((state, chance) for state, chance, _ in ways), after.ruleset
        )
        for kind, chance in (("unlucky", as_bad), ("lucky", as_good)):
            if chance < 1:
                found.append(
                    Moment(
                        seq=changes.seq,
                        event=changes.event,
                        character=cid,
                        name=played.name,
                        kind=kind,
                        chance=Chance.of(chance),
                        explanation=changes.explanation,
                    )
                )
    return found


# --- the whole fight ------------------------------------------------------------------------


def fight_luck(
    start: FightState[Any],
    whatif: Sequence[Event],
    final: FightState[Any],
    stop: Callable[[], None] | None = None,
) -> tuple[list[CharacterLuck], str | None]:
    """Per character, the chance of ending at least as badly or as well as they did: exact
    within FIGHT_STEPS, else from samples within SAMPLE_STEPS (and why, second). `stop` is
    called as the work goes and may raise."""
    try:
        outcomes = exact(start, whatif, budget=Budget(FIGHT_STEPS, stop=stop))
    except TooLarge as large:
        why = f"the fight takes {large.figure} to enumerate"
    else:
        return _luck(outcomes, final, None), None
    samples = min(MOST_SAMPLES, SAMPLE_STEPS // max(1, len(whatif)))
    if samples < FEWEST_SAMPLES:
        return [], (
            f"{why}, and its {len(whatif):,} events are too many to replay {FEWEST_SAMPLES} "
            f"times within {SAMPLE_STEPS:,} events: ask `woundlog odds` about a part of it"
        )
    try:  # a step is an event or a die: a sample's dice are bounded by the fight's own
        outcomes = estimate(start, whatif, samples, budget=Budget(20 * SAMPLE_STEPS, stop=stop))
    except TooLarge as large:
        return [], f"{why}, and {large.figure} to sample"
    return _luck(outcomes, final, samples), f"{why}: sampled {samples} times"


def _luck(
    outcomes: list[tuple[FightState[Any], Fraction]],
    final: FightState[Any],
    samples: int | None,
) -> list[CharacterLuck]:
    found = []
    for cid, played in final.characters.items():
        as_bad, as_good = tails(played, cid, outcomes, final.ruleset)
        interval: dict[str, Chance] = {}
        if samples is not None:
            for name, share in (("as_bad", as_bad), ("as_good", as_good)):
                low, high = wilson(share, samples)
                interval[f"{name}_low"], interval[f"{name}_high"] = low, high
        found.append(
            CharacterLuck(
                character=cid,
                name=played.name,
                state=played.state,
                as_bad=Chance.of(as_bad),
                as_good=Chance.of(as_good),
                method="exact" if samples is None else "sampled",
                samples=samples,
                **interval,
            )
        )
    return found


def wilson(share: Fraction, samples: int) -> tuple[Chance, Chance]:
    """The 95% Wilson score interval of a share of `samples`, rounded outwards to thousandths
    (the only floats of the report: an interval is an estimate already)."""
    p, n, z2 = float(share), samples, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    spread = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = max(0, math.floor((centre - spread) * 1000))
    high = min(1000, math.ceil((centre + spread) * 1000))
    return Chance.of(Fraction(low, 1000)), Chance.of(Fraction(high, 1000))
