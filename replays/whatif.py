"""What-ifs as a person asks them, and their odds as the CLI and the API show them.

A what-if is a list of events that have not happened: given whole (`--then`, a file) or by the
shorthands `--hit TARGET:DAMAGE[:ATTACKER]` and `--ticks N` (N rounds of turns). The odds are
`woundlog.core.odds`' exact fractions, or its estimate when asked for samples; here they become
percentages and, for an estimate, a 95% confidence interval.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import msgspec

from woundlog.core import FightState
from woundlog.core.odds import Budget, Voids, estimate, exact, per_character, states_of
from woundlog.events import (
    Event,
    Hit,
    StructuralError,
    TurnEnded,
    TurnStarted,
    UsageError,
    convert,
    decode_document,
)
from woundlog.events.model import MAGNITUDE

MAX_SAMPLES = 1_000_000
MAX_TICKS = 20


def hit_shorthand(text: str) -> Hit:
    """`grim:2` or `grim:2:orc`: a hit on grim for 2 (by orc), bounded and checked as the same
    hit on the wire is (damage at most `MAGNITUDE`)."""
    target, _, rest = text.partition(":")
    damage, _, attacker = rest.partition(":")
    if not target or not _DIGITS.fullmatch(damage):
        raise UsageError(f"--hit takes TARGET:DAMAGE[:ATTACKER], not {text!r}")
    if len(damage) > len(str(MAGNITUDE)) or int(damage) > MAGNITUDE:
        raise UsageError(f"--hit {text!r}: damage is at most {MAGNITUDE:,}, as in any event")
    fields = {"type": "hit", "target": target, "damage": int(damage)}
    try:
        hit = convert(fields | ({"attacker": attacker} if attacker else {}))
    except StructuralError as exc:
        raise UsageError(f"--hit {text!r}: {exc.message}") from None
    assert isinstance(hit, Hit)
    return hit


_DIGITS = re.compile("[0-9]+")
"""ASCII digits only: `int` also takes `1_000`, `²` and spaces."""


def rounds(state: FightState[Any], count: int) -> list[Event]:
    """`count` rounds of turns, as a tracker runs them: the round starts, each side in the order
    its first member joined takes its turn (starts and ends it), and the round ends. Every
    ruleset finds its own ticks in it: Mordheim's recovery phase (a side's turn start), d26's
    hold-on die and dnd5e's death saves (a side's turn), Warhammer Quest's end of turn and
    d26's agony (the round's end)."""
    if not 0 <= count <= MAX_TICKS:
        raise UsageError(f"--ticks takes 0 to {MAX_TICKS} rounds, not {count}")
    sides = list(dict.fromkeys(c.side for c in state.characters.values() if c.side))
    events: list[Event] = []
    for _ in range(count):
        events.append(TurnStarted())
        for side in sides:
            events += [TurnStarted(side=side), TurnEnded(side=side)]
        events.append(TurnEnded())
    return events


def then_events(texts: Iterable[str]) -> list[Event]:
    """`--then '{"type": "hit", ...}'`: each a whole event, checked as any event is."""
    events: list[Event] = []
    for index, text in enumerate(texts):
        try:
            raw = decode_document(text)
        except StructuralError as exc:
            raise UsageError(f"--then {index + 1}: {exc.message}") from None
        events.append(convert(raw, index=index))
    return events


class StateOdds(msgspec.Struct, frozen=True):
    state: str
    chance: str  # an exact fraction, `331/800`; for an estimate, the share of the samples
    percent: float
    low: float | None = None  # an estimate's 95% interval, in percent
    high: float | None = None


class OutcomeOdds(msgspec.Struct, frozen=True):
    outcome: dict[str, Any]  # the state and every counter
    chance: str
    percent: float


class CharacterOdds(msgspec.Struct, frozen=True):
    name: str
    states: list[StateOdds]
    outcomes: list[OutcomeOdds]


class VoidOdds(msgspec.Struct, frozen=True):
    """A what-if event the rules refuse on some paths: which (1-based), why, how likely."""

    event: int
    reason: str
    chance: str
    percent: float


class Odds(msgspec.Struct, frozen=True):
    """The answer: per character, the chance of each state and of each whole outcome."""

    exact: bool
    samples: int | None
    events: int
    characters: dict[str, CharacterOdds]
    void: list[VoidOdds] = []

    def when(self) -> str:
        """`once 13 more events have happened`: the what-if as a count of events still to come,
        which "after 13 events" was not (it read as the fight's event #13)."""
        more = f"{self.events} more event{'s' if self.events != 1 else ''}"
        return f"once {more} {'have' if self.events != 1 else 'has'} happened"


def odds(
    state: FightState[Any],
    whatif: Sequence[Event],
    *,
    characters: Sequence[str] = (),
    samples: int | None = None,
    budget: Budget | None = None,
) -> Odds:
    """The odds of `whatif` from `state`, for `characters` (default: everyone), within `budget`
    (default: `core.odds.LIMIT` steps)."""
    unknown = [c for c in characters if c not in state.characters]
    if unknown:
        joined = ", ".join(state.characters) or "nobody yet"
        raise UsageError(f"no character `{unknown[0]}` in this fight (joined: {joined})")
    if samples is not None and not 1 <= samples <= MAX_SAMPLES:
        raise UsageError(f"--samples takes 1 to {MAX_SAMPLES:,}, not {samples}")
    voids = Voids()
    if samples is None:
        found = exact(state, whatif, budget=budget, voids=voids)
    else:
        found = estimate(state, whatif, samples, budget=budget, voids=voids)
    wanted = list(characters) or list(state.characters)
    table = per_character(found, wanted)
    return Odds(
        exact=samples is None,
        samples=samples,
        events=len(whatif),
        characters={
            cid: CharacterOdds(
                name=state.characters[cid].name,
                states=[_state_odds(s, c, samples) for s, c in states_of(table[cid]).items()],
                outcomes=[
                    OutcomeOdds(outcome=seen, chance=_fraction(c), percent=_percent(c))
                    for seen, c in table[cid]
                ],
            )
            for cid in wanted
        },
        void=[
            VoidOdds(index + 1, reason, _fraction(chance), _percent(chance))
            for (index, reason), chance in sorted(voids.items())
        ],
    )


def _state_odds(state: str, chance: Fraction, samples: int | None) -> StateOdds:
    if samples is None:
        return StateOdds(state, _fraction(chance), _percent(chance))
    low, high = wilson(chance, samples)
    return StateOdds(
        state, _fraction(chance), _percent(chance), round(100 * low, 2), round(100 * high, 2)
    )


def _fraction(chance: Fraction) -> str:
    return f"{chance.numerator}/{chance.denominator}"


def _percent(chance: Fraction) -> float:
    return round(100 * chance.numerator / chance.denominator, 4)


def wilson(share: Fraction, samples: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of `samples`."""
    p = share.numerator / share.denominator
    centre = (p + z * z / (2 * samples)) / (1 + z * z / samples)
    half = z * math.sqrt(p * (1 - p) / samples + z * z / (4 * samples * samples))
    half /= 1 + z * z / samples
    return max(0.0, centre - half), min(1.0, centre + half)
