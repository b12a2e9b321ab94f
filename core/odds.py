"""Exact odds of a what-if: these events, from this state, and the chance of every state the
fight can end in, found by enumerating every face of every die the pure reducer asks for.

The reducer is pure and asks for its dice one at a time, so every outcome is found by running
each event once per sequence of faces its missing dice can show: a die the event does not give is
chosen in turn from 1 to its sides, and paths that reach the same fight state are merged, so a
long what-if stays as small as the set of states it can reach. Chances are exact fractions. Dice
the what-if gives are fixed. An event the rules refuse on some path is void on it, as in a replay.

The paths of one event are walked breadth-first, shortest first: an event is rerun from its
start for every longer path, so a walk that went deep first (a hit of 600 wounds past zero, its
first path 600 dice long) paid for each path as many steps as it was deep, the square of the
damage. Shortest first, a question too large runs out of its budget while its paths are still a
few dice long.

Every question has a `Budget`: reducer steps (each evaluation of an event, and each die handed
to it) and live paths and states held at once, spent as the work goes, so a question too large
is refused with `TooLarge` as soon as it gets there, saying which bound and how far it got;
`estimate` then samples it instead, drawing each missing die with the fight's own dice rule
keyed by the sample's number, so the same question always gets the same estimate. The budget's
`stop`, when given, is called now and then and may raise to end the work (a caller's deadline:
this module keeps no clock).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import msgspec

from woundlog.events import Event, RuleError, TurnEnded, TurnStarted, UsageError, event_ref

from .dice import draw
from .fight_state import Character, FightState
from .reducer import advance
from .rulesets import get_ruleset

LIMIT = 500_000
"""Reducer steps (an evaluation of an event, or a die handed to it) one question may take."""
LIVE = 200_000
"""Dice paths waiting and fight states held at once, before a question is too large to hold."""
STOP_EVERY = 4096
"""Steps between two calls of a budget's `stop`."""

_SHOWN_ALWAYS = frozenset({"state", "name", "side", "kind", "stats", "gear"})
"""Character fields that are no outcome: who the character is, not what happened to him."""


class TooLarge(UsageError):
    """A what-if past its budget: which bound (`steps` or `live`), its limit, and what the work
    had reached when it stopped (`reached`, at what-if event `event` of `events`, 1-based);
    `figure` says it in words."""

    def __init__(self, bound: str, limit: int, reached: int, event: int, events: int) -> None:
        self.bound, self.limit, self.reached = bound, limit, reached
        what = "reducer steps" if bound == "steps" else "dice paths and states held at once"
        self.figure = (
            f"more than {limit:,} {what} (reached {reached:,} at event {event} of {events})"
        )
        super().__init__(
            f"this what-if takes {self.figure}; ask about fewer events, or estimate it by "
            "sampling (--samples N)"
        )


class Budget:
    """What one question may cost: `steps` reducer steps and `live` paths or states held at
    once. `stop`, called every STOP_EVERY steps, may raise to end the work early."""

    __slots__ = ("_stop_at", "event", "events", "live", "spent", "steps", "stop")

    def __init__(
        self, steps: int = LIMIT, *, live: int = LIVE, stop: Callable[[], None] | None = None
    ) -> None:
        self.steps, self.live, self.stop = steps, live, stop
        self.spent = 0
        self.event = self.events = 0  # where the work is, for the refusal's figure
        self._stop_at = STOP_EVERY

    def spend(self, steps: int) -> None:
        self.spent += steps
        if self.spent > self.steps:
            raise TooLarge("steps", self.steps, self.spent, self.event, self.events)
        if self.stop is not None and self.spent >= self._stop_at:
            self._stop_at = self.spent + STOP_EVERY
            self.stop()

    def hold(self, count: int) -> None:
        if count > self.live:
            raise TooLarge("live", self.live, count, self.event, self.events)


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


def _key(state: FightState[Any]) -> bytes:
    return msgspec.msgpack.encode(state)


def _void(state: FightState[Any]) -> FightState[Any]:
    return msgspec.structs.replace(state, seq=state.seq + 1)


Branch = tuple[FightState[Any], Fraction, str | None]
"""A state one event leads to, its chance, and why the rules refused the event there (void)."""


def branches(state: FightState[Any], event: Event, budget: Budget) -> list[Branch]:
    """Every state one event can lead to, with its chance, in the order of the dice faces that
    lead there; walked shortest path first (see the module's docstring), spending `budget`."""
    found: list[tuple[tuple[int, ...], Branch]] = []
    waiting: deque[tuple[tuple[int, ...], Fraction]] = deque([((), Fraction(1))])
    while waiting:
        faces, chance = waiting.popleft()
        path = _Path(faces)
        try:
            after = advance(state, event, missing=path)
        except _NeedDie as need:
            share = chance / need.sides
            waiting.extend(((*faces, face), share) for face in range(1, need.sides + 1))
            budget.hold(len(waiting) + len(found))
            continue
        except RuleError as refused:
            found.append((faces, (_void(state), chance, refused.message)))
            continue
        else:
            found.append((faces, (after, chance, None)))
        finally:
            budget.spend(1 + path.taken)  # the evaluation, and each die it was handed
    found.sort(key=lambda pair: pair[0])  # no path is another's prefix: the faces' order
    return [each for _, each in found]


class Voids(dict[tuple[int, str], Fraction]):
    """Per (what-if event, 0-based; the rules' reason): the chance that it is void."""


def exact(
    state: FightState[Any],
    whatif: Sequence[Event],
    *,
    budget: Budget | None = None,
    voids: Voids | None = None,
) -> list[tuple[FightState[Any], Fraction]]:
    """Every state the fight can be in after `whatif`, with its exact chance (summing to 1), in
    the order first reached. `voids` gathers the chance of each event being refused.

    Once only ticks are left, a path whose characters no tick concerns (`Ruleset.tick_concerns`:
    nobody down, stunned or dying) is at rest: no tick can move, count or roll for anyone of it
    any more (icepool's stop at absorbing states), so what a tick does to it is what it does to
    any other path at rest with the same rounds and cast: the tick is run on the first of them
    alone, and the others take its seq and rounds (`_resting`)."""
    budget = budget or Budget()
    budget.events = len(whatif)
    ticks_from = _ticks_from(whatif)
    # per state's key: the state, its chance, and whether it is at rest
    frontier: dict[bytes, tuple[FightState[Any], Fraction, bool]] = {
        _key(state): (state, Fraction(1), False)
    }
    for index, event in enumerate(whatif):
        budget.event = index + 1
        reached: dict[bytes, tuple[FightState[Any], Fraction, bool]] = {}
        ticked: dict[bytes, Branch | None] = {}  # per rounds and cast: the tick at rest
        for now, chance, rests in frontier.values():
            rests = rests or (index >= ticks_from and _at_rest(now))
            ways = _resting(now, event, budget, ticked) if rests else None
            if ways is None:
                rests = False
                ways = branches(now, event, budget)
            for after, share, void in ways:
                if void is not None and voids is not None:
                    voids[(index, void)] = voids.get((index, void), Fraction(0)) + share * chance
                key = _key(after)
                seen = reached.get(key)
                reached[key] = (after, share * chance + (seen[1] if seen else 0), rests)
            budget.hold(len(reached) + len(frontier))
        frontier = reached
    return [(now, chance) for now, chance, _ in frontier.values()]


def _ticks_from(whatif: Sequence[Event]) -> int:
    """The index from which every event of `whatif` is a tick (len(whatif) if the last is not)."""
    at = len(whatif)
    while at > 0 and isinstance(whatif[at - 1], TurnStarted | TurnEnded):
        at -= 1
    return at


TICKS = ("turn_started", "turn_ended")


def _at_rest(state: FightState[Any]) -> bool:
    """Whether no tick of either kind concerns anyone of `state`: a ruleset that declares no
    concerns for a kind may do anything at it, so its fights never rest."""
    concerns = get_ruleset(state.ruleset).tick_concerns
    if not all(kind in concerns for kind in TICKS):
        return False
    started, ended = concerns["turn_started"], concerns["turn_ended"]
    return not any(
        started.concerns(one) or ended.concerns(one) for one in state.characters.values()
    )


def _resting(
    state: FightState[Any], tick: Event, budget: Budget, ticked: dict[bytes, Branch | None]
) -> list[Branch] | None:
    """The one way `tick` goes for `state`, at rest: what it did to the first path at rest with
    the same rounds and cast (all a tick reads of a fight whose characters it does not
    concern), its seq and rounds taken over. None if the tick rolled a die or changed a
    character there after all (a ruleset's concerns naming too few): then every path is
    ticked for itself."""
    sides = {cid: one.side for cid, one in state.characters.items()}
    alike = _key(msgspec.structs.replace(state, characters=sides))
    if alike not in ticked:
        ways = branches(state, tick, budget)
        lone = len(ways) == 1 and ways[0][0].characters == state.characters
        ticked[alike] = ways[0] if lone else None
    first = ticked[alike]
    if first is None:
        return None
    after, share, void = first
    moved = msgspec.structs.replace(
        state, seq=after.seq, rounds=after.rounds, turn=after.turn, ended=after.ended
    )
    return [(moved, share, void)]


def estimate(
    state: FightState[Any],
    whatif: Sequence[Event],
    samples: int,
    *,
    budget: Budget | None = None,
    voids: Voids | None = None,
) -> list[tuple[FightState[Any], Fraction]]:
    """`samples` replays of `whatif`, each missing die drawn by the fight's own dice rule from
    (seed, the event's name and the sample's number, purpose, character, index): the share of
    samples that reached each state."""
    if samples < 1:
        raise UsageError("an estimate needs at least one sample")
    budget = budget or Budget()
    budget.events = len(whatif)
    counts: dict[bytes, tuple[FightState[Any], int]] = {}
    for sample in range(samples):
        now = state
        for index, event in enumerate(whatif):
            budget.event = index + 1
            name = f"{event_ref(event, now.seq + 1)}~{sample}"
            drawn = _Drawn(now.seed, name)
            try:
                now = advance(now, event, missing=drawn)
            except RuleError as refused:
                if voids is not None:
                    why = (index, refused.message)
                    voids[why] = voids.get(why, Fraction(0)) + Fraction(1, samples)
                now = _void(now)
            finally:
                budget.spend(1 + drawn.taken)
        reached = _key(now)
        seen = counts.get(reached)
        counts[reached] = (now, 1 + (seen[1] if seen else 0))
        budget.hold(len(counts))
    return [(s, Fraction(n, samples)) for s, n in counts.values()]


class _Drawn:
    """Draws a sample's missing dice, each (purpose, character) counted on its own."""

    __slots__ = ("counted", "name", "seed", "taken")

    def __init__(self, seed: int, name: str) -> None:
        self.seed = seed
        self.name = name
        self.counted: dict[tuple[str, str | None], int] = {}
        self.taken = 0

    def __call__(self, purpose: str, sides: int, character: str | None) -> int:
        self.taken += 1
        index = self.counted.get((purpose, character), 0)
        self.counted[(purpose, character)] = index + 1
        return draw(self.seed, self.name, purpose, index, sides, character)


# --- what a person asks of the outcomes ----------------------------------------------------------


def outcome(character: Character) -> dict[str, Any]:
    """What happened to a character: his state and every counter, not who he is."""
    fields = msgspec.structs.asdict(character)
    return {"state": character.state} | {k: v for k, v in fields.items() if k not in _SHOWN_ALWAYS}


def per_character(
    outcomes: Iterable[tuple[FightState[Any], Fraction]], characters: Iterable[str]
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
