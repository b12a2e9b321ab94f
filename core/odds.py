"""Exact odds of a what-if: these events, from this state, and the chance of every state the
fight can end in, found by enumerating every face of every die the pure reducer asks for.

The reducer is pure and asks for its dice one at a time, so every outcome is found by running
each event once per sequence of faces its missing dice can show: a die the event does not give is
chosen in turn from 1 to its sides (a depth-first walk over the dice the reducer asks for), and
paths that reach the same fight state are merged, so a long what-if stays as small as the set of
states it can reach. Chances are exact fractions. Dice the what-if gives are fixed. An event the
rules refuse on some path is void on it, as in a replay.

A question too large to enumerate (past `limit` evaluations of an event) is refused with
`TooLarge`; `estimate` then samples it instead, drawing each missing die with the fight's own
dice rule keyed by the sample's number, so the same question always gets the same estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import msgspec

from woundlog.events import Event, RuleError, UsageError, event_ref

from .dice import draw
from .reducer import advance
from .state import Character, FightState

State = FightState[Any]
LIMIT = 200_000
"""Evaluations of one event, summed over the what-if, before a question is too large."""

_SHOWN_ALWAYS = frozenset({"state", "name", "side", "kind", "stats", "gear"})
"""Character fields that are no outcome: who the character is, not what happened to him."""


class TooLarge(UsageError):
    """A what-if with more dice paths than the limit allows: estimate it instead."""


class _NeedDie(Exception):
    """The event asks for one more die than the path chose: branch on its faces."""

    def __init__(self, sides: int) -> None:
        self.sides = sides


class _Path:
    """Hands out the faces one path chose, in the order the reducer asks for them."""

    __slots__ = ("faces", "taken")

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = faces
        self.taken = 0

    def __call__(self, purpose: str, sides: int, character: str | None) -> int:
        if self.taken == len(self.faces):
            raise _NeedDie(sides)
        face = self.faces[self.taken]
        self.taken += 1
        return face


def _key(state: State) -> bytes:
    return msgspec.msgpack.encode(state)


def _void(state: State) -> State:
    return msgspec.structs.replace(state, seq=state.seq + 1)


Branch = tuple[State, Fraction, str | None]
"""A state one event leads to, its chance, and why the rules refused the event there (void)."""


def branches(state: State, event: Event, budget: list[int]) -> list[Branch]:
    """Every state one event can lead to, with its chance; `budget` counts evaluations down."""
    found: list[Branch] = []
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        faces, chance = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise TooLarge(
                f"this what-if has more than {LIMIT:,} dice paths to enumerate exactly; "
                "ask about fewer events, or estimate it by sampling (--samples N)"
            )
        try:
            after = advance(state, event, missing=_Path(faces))
        except _NeedDie as need:
            share = chance / need.sides
            stack.extend(((*faces, face), share) for face in range(need.sides, 0, -1))
            continue
        except RuleError as refused:
            found.append((_void(state), chance, refused.message))
            continue
        found.append((after, chance, None))
    return found


class Voids(dict[tuple[int, str], Fraction]):
    """Per (what-if event, 0-based; the rules' reason): the chance that it is void."""


def exact(
    state: State, whatif: Sequence[Event], *, limit: int = LIMIT, voids: Voids | None = None
) -> list[tuple[State, Fraction]]:
    """Every state the fight can be in after `whatif`, with its exact chance (summing to 1), in
    the order first reached. `voids` gathers the chance of each event being refused."""
    budget = [limit]
    frontier: dict[bytes, tuple[State, Fraction]] = {_key(state): (state, Fraction(1))}
    for index, event in enumerate(whatif):
        reached: dict[bytes, tuple[State, Fraction]] = {}
        for now, chance in frontier.values():
            for after, share, void in branches(now, event, budget):
                if void is not None and voids is not None:
                    voids[(index, void)] = voids.get((index, void), Fraction(0)) + share * chance
                key = _key(after)
                seen = reached.get(key)
                reached[key] = (after, share * chance + (seen[1] if seen else 0))
        frontier = reached
    return list(frontier.values())


def estimate(
    state: State, whatif: Sequence[Event], samples: int, *, voids: Voids | None = None
) -> list[tuple[State, Fraction]]:
    """`samples` replays of `whatif`, each missing die drawn by the fight's own dice rule from
    (seed, the event's name and the sample's number, purpose, character, index): the share of
    samples that reached each state."""
    if samples < 1:
        raise UsageError("an estimate needs at least one sample")
    counts: dict[bytes, tuple[State, int]] = {}
    for sample in range(samples):
        now = state
        for index, event in enumerate(whatif):
            name = f"{event_ref(event, now.seq + 1)}~{sample}"
            try:
                now = advance(now, event, missing=_Drawn(now.seed, name))
            except RuleError as refused:
                if voids is not None:
                    why = (index, refused.message)
                    voids[why] = voids.get(why, Fraction(0)) + Fraction(1, samples)
                now = _void(now)
        reached = _key(now)
        seen = counts.get(reached)
        counts[reached] = (now, 1 + (seen[1] if seen else 0))
    return [(s, Fraction(n, samples)) for s, n in counts.values()]


class _Drawn:
    """Draws a sample's missing dice, each (purpose, character) counted on its own."""

    __slots__ = ("counted", "name", "seed")

    def __init__(self, seed: int, name: str) -> None:
        self.seed = seed
        self.name = name
        self.counted: dict[tuple[str, str | None], int] = {}

    def __call__(self, purpose: str, sides: int, character: str | None) -> int:
        index = self.counted.get((purpose, character), 0)
        self.counted[(purpose, character)] = index + 1
        return draw(self.seed, self.name, purpose, index, sides, character)


# --- what a person asks of the outcomes ----------------------------------------------------------


def outcome(character: Character) -> dict[str, Any]:
    """What happened to a character: his state and every counter, not who he is."""
    fields = msgspec.structs.asdict(character)
    return {"state": character.state} | {k: v for k, v in fields.items() if k not in _SHOWN_ALWAYS}


def per_character(
    outcomes: Iterable[tuple[State, Fraction]], characters: Iterable[str]
) -> dict[str, list[tuple[dict[str, Any], Fraction]]]:
    """Per character, each outcome (state and counters) with its chance, likeliest first."""
    table: dict[str, dict[bytes, tuple[dict[str, Any], Fraction]]] = {c: {} for c in characters}
    for state, chance in outcomes:
        for cid, merged in table.items():
            character = state.characters.get(cid)
            if character is None:
                continue
            seen = outcome(character)
            key = msgspec.json.encode(seen)
            before = merged.get(key)
            merged[key] = (seen, chance + (before[1] if before else 0))
    return {
        cid: sorted(merged.values(), key=lambda pair: pair[1], reverse=True)
        for cid, merged in table.items()
    }


def states_of(outcomes: Iterable[tuple[dict[str, Any], Fraction]]) -> dict[str, Fraction]:
    """The chance of each state alone, likeliest first."""
    states: dict[str, Fraction] = {}
    for seen, chance in outcomes:
        states[seen["state"]] = states.get(seen["state"], Fraction(0)) + chance
    return dict(sorted(states.items(), key=lambda pair: pair[1], reverse=True))
